#!/usr/bin/env python3
"""scripts/report/benchstat.py: the reporting half of make bench (scipy.stats).

  collect RUN        console logs + meta.env of RUN -> raw.csv, raw.json
  report RUN         raw.json -> report.md, summary.txt, plots/*.png (gnuplot)
  compare A B        every cell of run B against run A (medians, Δ across boots)
  repeat A B         deterministic mode: do boot 1 of A and boot 1 of B (the
                     same seed) agree within 0.1%?
  spread RUN         the boot medians of every cell of RUN and their spread
                     across seeds

A cell is (mode, kernel variant, benchmark, size, policy); its samples are
the measured (not warm-up) rounds of every boot. The value of a sample is ns
per op. make bench boots each kernel K times with distinct seeds; a
difference is judged across boots: each boot contributes its median; between
kernels the test is an exact permutation test over boots and the interval
the shifts it does not reject, between policies of the same boots a paired
t-test and interval, so the variation between boots, which samples of one
boot cannot show, is in both. Marks ('*' p<0.05, '**' p<0.01, '***'
p<0.001, otherwise "no difference proven") come from p after Holm's
correction over the comparisons of each table (judge()). With one boot on a
side there is no test and no mark: the report describes that boot (Δ median
and its bootstrap interval in det mode, Δ mean and Welch's interval in wall
mode) and says "one boot: no test (not evidence)".
"""
import itertools
import math
import os
import shutil
import subprocess
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The samples are parsed once, by the results model (no scipy there).
from cowresults.util import fmt_num  # noqa: E402
from cowresults.bench import (COPY_COUNTERS, FIXED, REDIS_FIGURES, boot_medians,  # noqa: E402,F401
                              cells, collect, load, median, read_meta)

# mthp*<KiB>: 6.8's anonymous multi-size THPs, PTE-mapped (6.12 line only).
MTHP_FAULT = ("mthpcopy16", "mthpreuse16", "mthpcopy64", "mthpreuse64")
MTHP_FORK = ("forkmthp16", "forkmthp64", "munmapmthp16", "munmapmthp64")
FAULT_BENCHES = ("copy", "reuse", "softdirty", "wprt", "thpcopy", "thpreuse",
                 "ksm", "swapin", "gupfp") + MTHP_FAULT
BENCH_ORDER = ("fork", "forkthp", "forkpin") + MTHP_FORK + ("copy", "reuse", "softdirty",
               "wprt", "thpcopy", "thpreuse") + MTHP_FAULT + ("ksm", "swapin", "gupfp", "flip",
               "sng-fork", "sng-vfork", "sng-clone", "sng-mmapfork", "sng-vm",
               "sng-vm-hugepage", "sng-vm-mergeable", "sng-vm-splice",
               "sng-madvise", "sng-mremap", "sng-mprotect", "sng-userfaultfd",
               "redis-thpnever", "redis-thpalways", "redis-mthp64")
BENCH_DESC = {
    "fork": "fork + child _exit + wait, 4 KiB pages touched (per fork)",
    "forkthp": "fork + child _exit + wait, PMD-mapped THPs (per fork)",
    "forkpin": "fork + _exit + wait, region long-term pinned by cowpin: "
               "copy at fork (per fork)",
    "copy": "COW copy faults: fork, child alive, parent writes every page "
            "(per page)",
    "reuse": "reuse faults: fork, child exits, parent writes every page "
             "(per page)",
    "softdirty": "soft-dirty: clear_refs 4, then write every page (per page)",
    "wprt": "write-protect round trip: mprotect RO, RW, write every page "
            "(per page)",
    "thpcopy": "THP COW: fork with THPs, child alive, parent writes every "
               "4 KiB page (per page)",
    "thpreuse": "THP reuse: fork with THPs, child exits, parent writes every "
                "4 KiB page (per page)",
    "ksm": "KSM break: write every page of a KSM-merged region (per page)",
    "swapin": "swap-in write: MADV_PAGEOUT, write every page (per page)",
    "gupfp": "false-positive COW: FOLL_GET references in flight (cowpin), "
             "clear_refs 4, write every page (per page)",
    "flip": "policy change: one write of vm.cow_policy that changes the "
            "policy, adding or removing a slow-path user (per write)",
    "redis-thpnever": "Redis 7.0 BGSAVE while redis-benchmark writes, THP never "
                      "(per BGSAVE; Redis's own figures in the Redis table)",
    "redis-thpalways": "Redis 7.0 BGSAVE while redis-benchmark writes, THP always "
                       "(per BGSAVE; Redis's own figures in the Redis table)",
    "redis-mthp64": "Redis 7.0 BGSAVE while redis-benchmark writes, all anonymous "
                    "memory in 64 KiB mTHPs, PMD THP never (per BGSAVE)",
}
for _k in (16, 64):
    BENCH_DESC["mthpcopy%d" % _k] = ("mTHP COW: fork with %d KiB mTHPs, child alive, parent "
                                     "writes every 4 KiB page (per page)" % _k)
    BENCH_DESC["mthpreuse%d" % _k] = ("mTHP reuse: fork with %d KiB mTHPs, child exits, parent "
                                      "writes every 4 KiB page (per page)" % _k)
    BENCH_DESC["forkmthp%d" % _k] = ("fork + child _exit + wait, %d KiB mTHPs touched "
                                     "(per fork)" % _k)
    BENCH_DESC["munmapmthp%d" % _k] = ("munmap() of a faulted region of %d KiB mTHPs "
                                       "(per munmap)" % _k)
for _s in BENCH_ORDER:
    if _s.startswith("sng-"):
        BENCH_DESC[_s] = "stress-ng --%s, fixed bogo-op count (per bogo op)" % _s[4:]
POLICY_ORDER = ("exclusive", "refcount", "mapcount", "largefolio")
MODE_UNIT = {
    "det": "guest ns under -icount shift=0 (1 ns = 1 guest instruction: an "
           "instruction count, not a time)",
    "wall": "guest wall-clock ns",
}

# ---- statistics (scipy.stats) --------------------------------------------------
# Debian's python3-scipy: run with SCIPY_PYTHON (/usr/bin/python3 by default,
# the interpreter the Debian package is installed for).
try:
    import numpy as np
    from scipy import stats as sps
except ImportError:
    sys.exit("benchstat: scipy is missing: run with the Debian python3 that has "
             "python3-scipy (make deps; SCIPY_PYTHON=%s)" % sys.executable)

ALPHA = 0.05
# The mark of a comparison that rests on one boot on a side: its samples are
# rounds of one boot, which cannot hold the variation between boots (two
# boots of one kernel differ by more than its rounds do), so no test.
ONE_BOOT = "one boot: no test (not evidence)"
STARS = ("*", "**", "***")
# Exact permutation tests enumerate every arrangement of the boots up to
# this many (10 against 10 boots: 184756); beyond, the observed arrangement
# and PERM_RANDOM seeded random ones, as scipy.stats.permutation_test does.
PERM_EXACT_MAX = 200000
PERM_RANDOM = 9999


def t_crit(df, p=0.05):
    """Two-sided critical value of Student's t with df degrees of freedom."""
    return float(sps.t.ppf(1 - p / 2, df))


def median_coverage(n, k):
    """The exact coverage of [x(k), x(n-1-k)] (0-based order statistics of
    n samples) as an interval of a continuous distribution's median: the
    binomial(n, 1/2) probability of k < #(x < median) < n - k. k = 0 is
    [min, max]: 1 - 2^(1-n), 75% for n = 3, 93.75% for n = 5."""
    return float(sps.binom.cdf(n - k - 1, n, 0.5) - sps.binom.cdf(k, n, 0.5))


def median_rank(n, level=0.95):
    """The 0-based rank k of the distribution-free interval of the median,
    [x(k), x(n-1-k)]: the largest k whose coverage (median_coverage()) is
    at least level; 0 ([min, max], which covers less) when none has."""
    best = 0
    for k in range(n // 2):
        if median_coverage(n, k) >= level:
            best = k
        else:
            break
    return best


def stats(xs):
    """n, median, mean, sd, the t interval of the mean (ci_lo, ci_hi), the
    order-statistic interval of the median (med_lo, med_hi) and its exact
    coverage med_cov (below 0.95 for n <= 5: then it is [min, max])."""
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return None
    mean = sum(xs) / n
    med = xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    h = t_crit(n - 1) * sd / math.sqrt(n) if n > 1 else float("nan")
    lo_i = median_rank(n)
    return {"n": n, "median": med, "mean": mean, "sd": sd,
            "ci_lo": mean - h, "ci_hi": mean + h,
            "med_lo": xs[lo_i], "med_hi": xs[n - 1 - lo_i],
            "med_cov": median_coverage(n, lo_i),
            "min": xs[0], "max": xs[-1]}


def fmt_median(s):
    """'median [lo, hi]', the interval of the median covering 95% or more;
    with 5 samples or fewer there is none, and the cell says what it shows:
    'median [min, max] range, covers 75%' (its exact coverage)."""
    if s["n"] < 2:
        return "%s (n 1: no interval)" % fmt(s["median"])
    txt = "%s [%s, %s]" % (fmt(s["median"]), fmt(s["med_lo"]), fmt(s["med_hi"]))
    if s["med_cov"] < 0.95:
        txt += " range, covers %g%%" % round(100 * s["med_cov"], 2)
    return txt


def welch(a, b):
    """b against a, Welch's t-test (scipy.stats.ttest_ind, unequal
    variances): delta %, half width % of the 95% interval, p. The report
    uses it only to describe the rounds of one boot, never to mark."""
    sa, sb = stats(a), stats(b)
    if not sa or not sb or sa["mean"] == 0:
        return None
    d = (sb["mean"] - sa["mean"]) / sa["mean"] * 100
    if sa["n"] < 2 or sb["n"] < 2:
        return {"d": d, "half": float("nan"), "p": float("nan")}
    va = sa["sd"] ** 2 / sa["n"]
    vb = sb["sd"] ** 2 / sb["n"]
    se = math.sqrt(va + vb)
    if se == 0:
        p = 1.0 if sb["mean"] == sa["mean"] else 0.0
        half = 0.0
    else:
        with warnings.catch_warnings():   # nearly identical samples: scipy warns
            warnings.simplefilter("ignore", RuntimeWarning)
            p = float(sps.ttest_ind(b, a, equal_var=False).pvalue)
        df = (va + vb) ** 2 / ((va ** 2 / (sa["n"] - 1) if va else 0)
                               + (vb ** 2 / (sb["n"] - 1) if vb else 0))
        half = t_crit(df) * se / sa["mean"] * 100
    return {"d": d, "half": half, "p": p}


def median_diff(a, b, resamples=2000, seed=1):
    """The difference of the medians of b and a as % of a's median, with a
    seeded percentile-bootstrap interval (scipy.stats.bootstrap, the two
    samples resampled independently). Descriptive only: on the rounds of
    one boot, most of them the same count in det mode, the interval
    collapses to a point and holds none of the variation between boots."""
    if len(a) < 2 or len(b) < 2:
        return None
    ma = median(a)
    if not ma:
        return None
    d = (median(b) - ma) / ma * 100
    if len(set(a)) == 1 and len(set(b)) == 1:
        return {"d": d, "lo": d, "hi": d}   # every resample gives d
    res = sps.bootstrap((np.asarray(b, float), np.asarray(a, float)),
                        lambda x, y, axis=-1: (np.median(x, axis=axis)
                                               - np.median(y, axis=axis)) / ma * 100,
                        vectorized=True, paired=False, n_resamples=resamples,
                        method="percentile", random_state=seed)
    return {"d": d, "lo": float(res.confidence_interval.low),
            "hi": float(res.confidence_interval.high)}


def holm(ps):
    """Holm's step-down adjustment of the p-values ps (returned in their
    order): the i-th smallest becomes max over j <= i of min(1, (m-j+1) p(j)).
    Rejecting where the adjusted p < alpha keeps the chance of any false
    rejection among the m at most alpha, however the tests depend on each
    other."""
    m = len(ps)
    adj = [0.0] * m
    run = 0.0
    for r, i in enumerate(sorted(range(m), key=lambda i: ps[i])):
        run = max(run, min(1.0, (m - r) * ps[i]))
        adj[i] = run
    return adj


def mark_p(p):
    if p < 0.001:
        return "***"
    if p < 0.01:
        return "**"
    if p < ALPHA:
        return "*"
    return "no difference proven"


# ---- across boots ---------------------------------------------------------------
def spread(bm):
    """max - min of the boot medians, as % of their median (0: every boot
    gave the same figure)."""
    v = list(bm.values())
    m = median(v)
    return (max(v) - min(v)) / m * 100 if m else 0.0


def perm_invert(D, C, g, alpha=ALPHA, tol=1e-9):
    """A two-sided permutation test of a shift, and the interval that
    inverts it. D: the observed statistic; for each of the N arrangements
    considered (the observed one among them), C[i] its statistic and g[i]
    >= 0 the rate at which it gains on the observed one as the shift delta
    is taken out: T_i(delta) - T_obs(delta) = C[i] - D + delta g[i].
    p(delta) = 2 min(#(T_i >= T_obs), #(T_i <= T_obs)) / N, capped at 1,
    ties within tol counting on both sides (scipy.stats.permutation_test's
    two-sided p). The interval is {delta: p(delta) >= alpha} = [lo, hi],
    infinite on a side when no count can reach alpha N / 2 (too few
    boots). Returns (p(0), lo, hi); 0 lies in [lo, hi] exactly when
    p(0) >= alpha, so the interval and the test cannot disagree."""
    C = np.asarray(C, float)
    g = np.asarray(g, float)
    N = len(C)
    e = C - D
    flat = g <= 0
    ge0 = int(np.count_nonzero(e[flat] >= -tol))
    le0 = int(np.count_nonzero(e[flat] <= tol))
    es, gs = e[~flat], g[~flat]
    lo_at = np.sort((-tol - es) / gs)   # in #(T_i >= T_obs) from delta >= lo_at
    hi_at = np.sort((tol - es) / gs)    # in #(T_i <= T_obs) while delta <= hi_at
    p = min(1.0, 2 * min(ge0 + int(np.count_nonzero(lo_at <= 0)),
                         le0 + int(np.count_nonzero(hi_at >= 0))) / N)
    need = math.ceil(round(alpha * N / 2, 9))
    k = need - ge0
    lo = -math.inf if k <= 0 else float(lo_at[k - 1]) if k <= len(lo_at) else math.inf
    k = need - le0
    hi = math.inf if k <= 0 else float(hi_at[len(hi_at) - k]) if k <= len(hi_at) else -math.inf
    return p, lo, hi


_ARRANGEMENTS = {}


def arrangements(n, k, seed=1):
    """Index sets of size k out of 0..n-1, one a row, the observed one
    (0..k-1) first: all C(n, k) of them when at most PERM_EXACT_MAX, else
    it and PERM_RANDOM seeded random ones."""
    key = (n, k, seed)
    if key not in _ARRANGEMENTS:
        if math.comb(n, k) <= PERM_EXACT_MAX:
            idx = np.array(list(itertools.combinations(range(n), k)), dtype=np.int64)
        else:
            rng = np.random.default_rng(seed)
            rand = rng.permuted(np.tile(np.arange(n), (PERM_RANDOM, 1)), axis=1)[:, :k]
            idx = np.vstack([np.arange(k)[None, :], rand])
        _ARRANGEMENTS[key] = idx
    return _ARRANGEMENTS[key]


def perm_boots(av, bv, ma, alpha=ALPHA, seed=1):
    """b against a, two independent sets of boot medians: the permutation
    test of the difference of their means (as % of ma) over every way to
    deal the pooled boots to the two sides, and the interval of the shift
    it does not reject (perm_invert()): (p, lo, hi)."""
    na, nb = len(av), len(bv)
    z = np.array(list(bv) + list(av), float)
    idx = arrangements(na + nb, nb, seed)
    s = z[idx].sum(axis=1)
    C = (s / nb - (z.sum() - s) / na) / ma * 100
    j = (idx < nb).sum(axis=1)          # how many of b's boots stay on b's side
    g = (nb - j) * (1.0 / na + 1.0 / nb)
    return perm_invert(C[0], C, g, alpha)


def across_boots(a, b, paired=False, seed=1, alpha=ALPHA):
    """b against a over boots; a, b: {boot: median} (boot_medians()).
    d: the difference of the means of the boot medians, % of a's mean.
    Independent sides (two kernels, booted apart): p is the two-sided
    permutation test over boots (exact up to 10 against 10 boots; the
    same p as scipy.stats.permutation_test), [lo, hi] the shifts it does
    not reject at 5% (perm_invert()): infinite with 3 boots a side or
    fewer, whose smallest possible p (2/20) is above 5%. Paired (two
    policies interleaved in the same boots): the per-boot differences, a
    t interval and test (scipy.stats.ttest_rel); when every boot gave the
    same difference the exact sign test, 2^(1-n), its interval that one
    difference from 6 boots on and infinite below. exact: every boot of
    both sides gave one figure each (or one difference). No mark: the
    marks come from p after Holm's correction over a table (judge()).
    None with fewer than two boots on a side (or, paired, in common)."""
    if paired:
        common = sorted(set(a) & set(b))
        av = [a[k] for k in common]
        bv = [b[k] for k in common]
    else:
        av, bv = list(a.values()), list(b.values())
    if len(av) < 2 or len(bv) < 2:
        return None
    ma = sum(av) / len(av)
    if not ma:
        return None
    d = (sum(bv) / len(bv) - ma) / ma * 100
    out = {"d": d, "k": (len(av), len(bv)), "spread_a": spread(dict(enumerate(av))),
           "spread_b": spread(dict(enumerate(bv))), "paired": paired}
    exact = len(set(av)) == 1 and len(set(bv)) == 1
    if paired:
        ds = [(y - x) / ma * 100 for x, y in zip(av, bv)]
        n = len(ds)
        mean = sum(ds) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in ds) / (n - 1))
        if sd:
            half = t_crit(n - 1) * sd / math.sqrt(n)
            p = float(sps.ttest_rel(bv, av).pvalue)
            lo, hi = mean - half, mean + half
        else:
            # every boot gave the same difference: the exact sign test
            p = min(1.0, 2 * 0.5 ** n) if mean else 1.0
            lo, hi = (mean, mean) if p < alpha else (-math.inf, math.inf)
        out.update(d=mean, lo=lo, hi=hi, p=p)
        exact = exact or not sd
    else:
        p, lo, hi = perm_boots(av, bv, ma, alpha, seed)
        if exact and math.isfinite(lo) and math.isfinite(hi):
            lo = hi = d
        out.update(lo=lo, hi=hi, p=p)
    out["exact"] = exact
    return out


def compare_rows(ra, rb, mode, paired=False):
    """Rows rb against rows ra, as every table of the report and the
    simulation in make check decide it. With two boots or more on each
    side: across_boots(), p a test over boots. Otherwise a description of
    the rounds of the one boot, p None (no test, no mark: ONE_BOOT): in
    det mode Δ median with its bootstrap interval, in wall mode Δ mean ±
    the half-width of Welch's interval. text: the Δ cell."""
    x = across_boots(boot_medians(ra), boot_medians(rb), paired=paired)
    if x:
        x["text"] = fmt_across(x)
        return x
    a = [r["ns_per_op"] for r in ra]
    b = [r["ns_per_op"] for r in rb]
    md = median_diff(a, b) if mode == "det" else None
    w = None if md else welch(a, b)
    if md:
        x = {"d": md["d"], "lo": md["lo"], "hi": md["hi"],
             "text": "%+.2f%% [%+.2f, %+.2f] one boot" % (md["d"], md["lo"], md["hi"])}
    elif w:
        half = "" if math.isnan(w["half"]) else " ±%.2f" % w["half"]
        x = {"d": w["d"], "lo": w["d"] - (w["half"] if half else math.inf),
             "hi": w["d"] + (w["half"] if half else math.inf),
             "text": "%+.2f%%%s one boot" % (w["d"], half)}
    else:
        return None
    x.update(p=None, exact=False, one_boot=True)
    return x


def judge(xs, alpha=ALPHA):
    """The comparisons of one table (compare_rows() results; None for an
    empty cell), one family: Holm's correction (holm()) over those with a
    test; each gets p_adj and its mark from p_adj (mark_p()); those
    without a test p_adj None and the mark ONE_BOOT. Returns xs."""
    tested = [x for x in xs if x and x.get("p") is not None]
    for x, q in zip(tested, holm([x["p"] for x in tested])):
        x["p_adj"] = q
        x["mark"] = mark_p(q) if q < alpha else "no difference proven"
    for x in xs:
        if x and x.get("p") is None:
            x["p_adj"] = None
            x["mark"] = ONE_BOOT
    return xs


def verdict(x, limit=0.5, alpha=ALPHA):
    """Is |Δ| within limit %? yes: the 95% interval lies within ±limit (the
    test over boots rejects every shift beyond); NO: the difference is
    significant after Holm's correction (judge()) and the interval lies
    wholly beyond ±limit; unresolved otherwise, and always with one boot
    on a side."""
    if not x or x.get("p") is None:
        return "unresolved (one boot)"
    if -limit <= x["lo"] and x["hi"] <= limit:
        return "yes"
    if x["p_adj"] < alpha and (x["lo"] > limit or x["hi"] < -limit):
        return "NO"
    return "unresolved"


def fmt_sig(x):
    """The significance cell of a table: the mark, with p and Holm's p."""
    if not x:
        return "-"
    if x.get("p") is None:
        return x["mark"]
    return "%s (p %.4f, Holm %.4f)" % (x["mark"], x["p"], x["p_adj"])


def fmt_across(x):
    """'+0.31% [+0.12, +0.50]', or '+0.31% (same in all 5+5 boots)'."""
    if x["exact"] and x["paired"]:
        return "%+.2f%% (the same difference in all %d boots)" % (x["d"], x["k"][0])
    if x["exact"]:
        return "%+.2f%% (same in all %d+%d boots)" % ((x["d"],) + x["k"])
    return "%+.2f%% [%+.2f, %+.2f]" % (x["d"], x["lo"], x["hi"])


# ---- report -------------------------------------------------------------------
def col_label(variant, policy):
    return "stock (unpatched)" if variant == "stock" else "%s/%s" % (variant, policy)


# The bench report's figures, as the results model prints them.
fmt = fmt_num


def fmt_d(w):
    """Welch's Δ mean ± half-width: a description, never a mark."""
    if not w:
        return "-"
    half = "" if math.isnan(w["half"]) else " ±%.2f" % w["half"]
    return "%+.2f%%%s" % (w["d"], half)


def order_key(k):
    mode, variant, bench, size, policy = k
    return (("det", "wall").index(mode) if mode in ("det", "wall") else 9,
            BENCH_ORDER.index(bench) if bench in BENCH_ORDER else 99, size,
            0 if variant == "stock" else 1,
            POLICY_ORDER.index(policy) if policy in POLICY_ORDER else 9)


def per_op(rows, counter):
    ops = sum(r["ops"] for r in rows)
    return sum(r.get(counter, 0) or 0 for r in rows) / ops if ops else 0


def counters_text(rows):
    names = sorted({k for r in rows for k in r
                    if k.startswith("cow_") or k in ("pgfault", "thp_split_pmd")})
    parts = []
    for c in names:
        v = per_op(rows, c)
        if v >= 0.005:
            parts.append("%s %.2f" % (c.replace("cow_", ""), v))
    return ", ".join(parts) or "-"


def gnuplot(run, data, cs):
    if not shutil.which("gnuplot"):
        return []
    pdir = os.path.join(run, "plots")
    os.makedirs(pdir, exist_ok=True)
    made = []
    groups = {}
    for k in cs:
        groups.setdefault((k[0], k[2], k[3]), []).append(k)
    for (mode, bench, size), keys in sorted(groups.items(), key=lambda g: order_key(g[1][0])):
        keys.sort(key=order_key)
        dat = os.path.join(pdir, "%s-%s-%d.dat" % (mode, bench, size))
        png = os.path.join(pdir, "%s-%s-%d.png" % (mode, bench, size))
        with open(dat, "w") as f:
            for i, k in enumerate(keys):
                s = stats([r["ns_per_op"] for r in cs[k]])
                f.write('%d "%s" %g %g %g\n' % (i, col_label(k[1], k[4]), s["median"],
                                                s["med_lo"], s["med_hi"]))
        unit = "guest ns/op (icount: instructions)" if mode == "det" else "ns/op (wall)"
        accel = data["meta"].get("accel_%s_cow" % mode, "")
        script = """
set terminal pngcairo size 640,400 noenhanced
set output '%s'
set title '%s %d KiB, mode %s (%s): median and 95%% interval (min..max when n <= 5)'
set ylabel '%s'
set xrange [-0.6:%f]
set yrange [0:*]
set style fill solid 0.4
set boxwidth 0.6
set grid ytics
set xtics rotate by -20
plot '%s' using 1:3:xtic(2) with boxes notitle, '' using 1:3:4:5 with yerrorbars pt 7 lc rgb 'black' notitle
""" % (png, bench, size, mode, accel, unit, len(keys) - 0.4, dat)
        r = subprocess.run(["gnuplot"], input=script, text=True,
                           capture_output=True)
        if r.returncode == 0:
            made.append(os.path.relpath(png, run))
        else:
            sys.stderr.write("benchstat: gnuplot failed for %s: %s\n" % (png, r.stderr[-300:]))
        os.remove(dat)
    return made


# The summary's Δ columns: cow's exclusive against stock and against nommid
# (the same series without the MM owner tracking), the other policies
# against exclusive in the same boots.
SUMMARY_COLS = ("d_stock", "d_nommid", "refcount", "mapcount", "largefolio")
SUMMARY_HEAD = {"d_stock": "excl-vs-stock", "d_nommid": "excl-vs-nommid", "refcount": "refcount",
                "mapcount": "mapcount", "largefolio": "largefolio"}


def report(run):
    data = load(run)
    meta = data["meta"]
    cs = cells(data)
    keys = sorted(cs, key=order_key)
    modes = [m for m in ("det", "wall") if any(k[0] == m for k in keys)]
    variants = sorted({k[1] for k in keys}, key=lambda v: (v == "stock", v))
    L = []
    P = L.append
    P("# make bench report: %s" % meta.get("run_id", os.path.basename(run)))
    P("")
    P("Produced by `%s` on %s; re-render with `make bench-report RUN=%s`." %
      (meta.get("command", "make bench"), meta.get("date", "?"), run))
    if meta.get("quick") == "1":
        P("")
        P("**QUICK smoke run: tiny sizes, one round. These numbers mean nothing.**")
    P("")
    P("| metadata | value |")
    P("| --- | --- |")
    # Runs before the kernel axis have no kernel_line: they are 6.1's.
    P("| kernel_line | %s |" % meta.get("kernel_line", "6.1"))
    for k in ("date", "project_commit", "series_hash", "qemu", "host_cpu",
              "host_cpus", "host_kernel", "profile", "kconfig", "rounds", "warmup", "seed",
              "boots_det", "boots_wall", "real",
              "sizes_kib", "fsize_kib", "minops", "benches", "elapsed_s"):
        P("| %s | %s |" % (k, meta.get(k, "")))
    for v in variants:
        P("| kernel %s | %s, config sha256 %s, cowpin %s |" % (
            v, meta.get("kernel_" + v, ""), meta.get("config_hash_" + v, ""),
            meta.get("cowpin_" + v, "")))
    for m in modes:
        for v in variants:
            boots = sorted({r.get("boot", 1) for r in data["rows"]
                            if r["mode"] == m and r["variant"] == v})
            secs = [meta.get("seconds_%s_%s_b%d" % (m, v, b),
                             meta.get("seconds_%s_%s" % (m, v), "?")) for b in boots]
            seeds = [meta.get("seed_%s_%s_b%d" % (m, v, b), meta.get("seed", "?"))
                     for b in boots]
            P("| boots %s/%s | %d (seeds %s), accel %s, seconds %s, `%s` |" % (
                m, v, len(boots), " ".join(seeds), meta.get("accel_%s_%s" % (m, v), ""),
                " ".join(secs), meta.get("qemu_args_%s_%s" % (m, v), "")))
    P("")
    P("Units. **det**: %s. **wall**: %s%s." % (
        MODE_UNIT["det"], MODE_UNIT["wall"],
        "; under TCG (no KVM) wall-clock figures are *indicative only*"
        if any("tcg" in meta.get("accel_wall_%s" % v, "") for v in variants) else ""))
    P("Each cell: the measured rounds (warm-up rounds discarded) of every boot, "
      "one sample per round; policies interleaved in a seeded random order per "
      "round; each boot with its own seed. median [95% interval of the median: "
      "order statistics; with 5 samples or fewer no such interval exists and "
      "the cell shows the range, min and max, with its exact coverage], "
      "mean ± sd, 95% CI of the mean, over all samples; *boots*: the number of "
      "boots and the spread of their medians (max − min, % of the median). "
      "**Δ across boots** (two boots or more per side): each boot contributes "
      "its median; Δ is the difference of their means as % of the reference. "
      "Between kernels p is an exact permutation test over boots and [95%] the "
      "shifts it does not reject (infinite with 3 boots a side or fewer: no "
      "95% statement is possible); between policies of the same boots a t "
      "interval and test on the per-boot differences; \"same in all boots\" "
      "when every boot gave one figure per side. Marks come from p after "
      "Holm's correction over the comparisons of each table (p and Holm's p "
      "are printed): * p<0.05, ** p<0.01, *** p<0.001. With one boot on a "
      "side there is no test and no mark (*" + ONE_BOOT + "*): Δ is described within that "
      "boot (det: Δ median and its bootstrap interval; wall: Δ mean ± the "
      "half-width of Welch's interval), which holds none of the variation "
      "between boots.")
    P("")

    summary = []
    # ---- framework overhead, and the MM owner tracking's -----------------------
    def overhead(base, title, intro):
        """Δ of the cow kernel's exclusive against kernel BASE, whose boots
        run exclusive alone: one table, one family of tests."""
        P(title)
        P("")
        P(intro + " Target: |Δ| ≤ 0.5% in deterministic mode. Δ and p across boots (each "
          "boot's median; exact permutation test over boots, [95%] the shifts it "
          "does not reject) when both kernels were booted twice or more; p: raw "
          "/ Holm-corrected over the tested rows of this table, and the mark "
          "from the corrected p. *within 0.5%*: **yes** when the whole 95% "
          "interval lies within ±0.5%; **NO** only when the difference is "
          "significant after Holm's correction (Holm p < 0.05) and the interval "
          "lies wholly beyond ±0.5%; *unresolved* otherwise. With one boot on "
          "a side (marked *one boot*) Δ describes that boot only (det: Δ median "
          "with its bootstrap interval; wall: Δ mean ± Welch): no test, no mark, "
          "unresolved. Where the run has it, the cow side is "
          "the boot that ran \"exclusive\" alone (cowx), as " + base + " does; the "
          "interleaved boot's exclusive rounds inherit state from the other "
          "policies' rounds.")
        P("")
        P("| mode | benchmark | boots %s/cow | %s median | cow/exclusive median | boot spread %s / cow | Δ [95%%] | p (raw / Holm) | significance | within 0.5%% |"
          % (base, base, base))
        P("| --- | --- | --- | ---: | ---: | --- | ---: | ---: | --- | --- |")
        over = []
        for k in keys:
            if k[1] != base or k[4] != "exclusive":
                continue
            kc = (k[0], "cowx", k[2], k[3], "exclusive")
            if kc not in cs:
                kc = (k[0], "cow", k[2], k[3], "exclusive")
            if kc not in cs:
                continue
            over.append((k, kc, compare_rows(cs[k], cs[kc], k[0])))
        judge([x for _, _, x in over])     # one family: this table
        for k, kc, x in over:
            ba, bb = boot_medians(cs[k]), boot_medians(cs[kc])
            ma, mb = median(list(ba.values())), median(list(bb.values()))
            p = "-" if not x or x["p"] is None else "%.4f / %.4f" % (x["p"], x["p_adj"])
            P("| %s | %s-%dK | %d/%d | %s | %s | %.2f%% / %.2f%% | %s | %s | %s | %s |" % (
                k[0], k[2], k[3], len(ba), len(bb), fmt(ma), fmt(mb), spread(ba),
                spread(bb), x["text"] if x else "-", p, x["mark"] if x else "-",
                verdict(x, 0.5)))
        P("")

    if "stock" in variants and ("cow" in variants or "cowx" in variants):
        overhead("stock", "## Framework overhead: cow kernel (policy exclusive) vs unpatched %s"
                 % meta.get("kernel_line", "6.1"),
                 "The unpatched kernel (stock) against the cow kernel under the default policy.")
    if "nommid" in variants and ("cow" in variants or "cowx" in variants):
        overhead("nommid", "## MM owner tracking: cow kernel with CONFIG_COW_POLICY_MM_ID vs without (nommid), policy exclusive",
                 "What carrying the fourth policy costs under the default one: the same "
                 "series built without the tracking (nommid) against the cow kernel "
                 "with it (every map and unmap of an mTHP takes the folio's mapcount "
                 "lock and updates the owner slots).")

    # ---- false positives -----------------------------------------------------
    fp = [k for k in keys if k[2] == "gupfp"]
    if fp:
        P("## False-positive COW under concurrent GUP (gupfp)")
        P("")
        P("A thread keeps FOLL_GET references (cowpin, like O_DIRECT or vmsplice) "
          "in flight on the region; the main thread does clear_refs 4 and writes "
          "every page. Every copy is a false positive (nobody else maps the page).")
        P("")
        P("| mode | kernel/policy | size | copies per write | copies per second (guest s) | by reason |")
        P("| --- | --- | ---: | ---: | ---: | --- |")
        for k in fp:
            rows = cs[k]
            copies = sum(r.get(c, 0) or 0 for r in rows for c in COPY_COUNTERS)
            ns = sum(r["ns"] for r in rows)
            why = ", ".join("%s %.3f" % (c.replace("cow_", ""), per_op(rows, c))
                            for c in COPY_COUNTERS if per_op(rows, c) > 0) or "-"
            P("| %s | %s | %dK | %.3f | %.0f | %s |" % (
                k[0], col_label(k[1], k[4]), k[3], copies / max(1, sum(r["ops"] for r in rows)),
                copies / (ns / 1e9) if ns else 0, why))
        P("")

    # ---- Redis: its own figures ---------------------------------------------
    rk = [k for k in keys if k[2].startswith("redis-")]
    if rk:
        P("## Redis BGSAVE under a write load")
        P("")
        P("Redis 7.0 with a %s MiB dataset forks for BGSAVE while redis-benchmark "
          "writes (%s); the figures are Redis's own (latest_fork_usec, "
          "rdb_last_cow_size) and redis-benchmark's (latency percentiles and "
          "SET/s over the whole write load), each the median of the boots' "
          "medians (boots in brackets: min..max of the boot medians). BGSAVE is "
          "guest time from the command to the child's end (det mode: "
          "instructions); copies: the kernel's cow_copy_* decisions during it." % (
              meta.get("redis_mib", "?"), "%s SETs of 1 KiB, 4 clients" % meta.get("redis_req", "?")))
        P("")
        P("| mode | kernel/policy | THP | boots | BGSAVE | copies | %s |" %
          " | ".join(t for _, t in REDIS_FIGURES))
        P("| --- | --- | --- | ---: | ---: | ---: | %s |" % " | ".join("---:" for _ in REDIS_FIGURES))
        for k in rk:
            rows = cs[k]

            def bm(f):
                by = {}
                for r in rows:
                    by.setdefault(r.get("boot", 1), []).append(f(r))
                v = [median(x) for x in by.values()]
                return "%s [%s..%s]" % (fmt(median(v)), fmt(min(v)), fmt(max(v))) \
                    if len(v) > 1 else fmt(v[0])
            cells_ = [bm(lambda r: r["ns_per_op"]),
                      bm(lambda r: sum(r.get(c, 0) or 0 for c in COPY_COUNTERS))]
            cells_ += [bm(lambda r, f=f: r.get(f, 0) or 0) for f, _ in REDIS_FIGURES]
            P("| %s | %s | %s | %d | %s |" % (k[0], col_label(k[1], k[4]), k[2][9:],
                                             len({r.get("boot", 1) for r in rows}),
                                             " | ".join(cells_)))
        P("")

    # ---- one table per benchmark --------------------------------------------
    P("## Benchmarks")
    plots = gnuplot(run, data, cs)
    bench_groups = {}
    for k in keys:
        bench_groups.setdefault((k[2], k[3]), []).append(k)
    for (bench, size), ks in sorted(bench_groups.items(),
                                    key=lambda g: order_key(g[1][0])[1:3]):
        P("")
        P("### %s-%dK: %s" % (bench, size, BENCH_DESC.get(bench, "")))
        P("")
        P("| mode | kernel/policy | n | boots (spread) | median [95%] | mean ± sd | 95% CI of mean | Δ vs exclusive | significance | per op |")
        P("| --- | --- | ---: | --- | --- | --- | --- | ---: | --- | --- |")
        # Δ: cow's exclusive against stock, the other policies against
        # exclusive in the same boots; the table's tests are one family.
        deltas = {}
        for k in ks:
            ref = (k[0], k[1], k[2], k[3], "exclusive")
            kb = (k[0], "stock", k[2], k[3], "exclusive")
            if k[1] != "stock" and k[4] == "exclusive" and kb in cs:
                deltas[k] = compare_rows(cs[kb], cs[k], k[0])
            elif k[1] != "stock" and k[4] != "exclusive" and ref in cs:
                deltas[k] = compare_rows(cs[ref], cs[k], k[0], paired=True)
        judge(list(deltas.values()))
        for k in ks:
            xs = [r["ns_per_op"] for r in cs[k]]
            s = stats(xs)
            bm = boot_medians(cs[k])
            x = deltas.get(k)
            if k[1] == "stock":
                d, mark = "(baseline)", ""
            elif x:
                d, mark = x["text"] + (" vs stock" if k[4] == "exclusive" else ""), fmt_sig(x)
            elif k[4] == "exclusive":
                d, mark = "(reference)", ""
            else:
                d, mark = "-", ""
            P("| %s | %s | %d | %d (%.2f%%) | %s | %s ± %s | [%s, %s] | %s | %s | %s |" % (
                k[0], col_label(k[1], k[4]), s["n"], len(bm), spread(bm), fmt_median(s),
                fmt(s["mean"]), fmt(s["sd"]),
                fmt(s["ci_lo"]), fmt(s["ci_hi"]), d, mark, counters_text(cs[k])))
        for m in modes:
            png = "plots/%s-%s-%d.png" % (m, bench, size)
            if png in plots:
                P("")
                P("![%s %s-%dK](%s)" % (m, bench, size, png))
        # summary lines: det and wall
        for m in modes:
            line = {"mode": m, "bench": "%s-%dK" % (bench, size)}
            kb = (m, "stock", bench, size, "exclusive")
            ke = (m, "cow", bench, size, "exclusive")
            kx = (m, "cowx", bench, size, "exclusive")
            if kb in cs:
                line["stock"] = stats([r["ns_per_op"] for r in cs[kb]])["median"]
            if ke in cs:
                line["excl"] = stats([r["ns_per_op"] for r in cs[ke]])["median"]
                # Across boots when there are two or more per side; else
                # a description of the one boot, no test and no mark.
                ro = cs[kx] if kx in cs else cs[ke]
                if kb in cs:
                    line["d_stock"] = compare_rows(cs[kb], ro, m)
                kn = (m, "nommid", bench, size, "exclusive")
                if kn in cs:
                    line["d_nommid"] = compare_rows(cs[kn], ro, m)
                for p in ("refcount", "mapcount", "largefolio"):
                    kp = (m, "cow", bench, size, p)
                    if kp in cs:
                        line[p] = compare_rows(cs[ke], cs[kp], m, paired=True)
            summary.append(line)
    if data.get("skipped"):
        P("")
        P("## Skipped")
        P("")
        for s in data["skipped"]:
            P("- %s/%s: %s %sK: %s" % (s["mode"], s["variant"], s.get("bench"),
                                      s.get("size_kib"), s["reason"]))
    with open(os.path.join(run, "report.md"), "w") as f:
        f.write("\n".join(L) + "\n")

    # ---- the summary table ---------------------------------------------------
    def sd(w):
        if not w:
            return "-"
        if w.get("p") is None:
            return "%+.2f%%(1b)" % w["d"]
        m = w["mark"] if w["mark"] in STARS else ""
        if w.get("exact") and w["d"]:
            m += "="
        return "%+.2f%%%s" % (w["d"], m or " ~")

    for m in modes:   # each mode's table is one family
        judge([line.get(c) for line in summary if line["mode"] == m
               for c in SUMMARY_COLS])
    S = []
    S.append("==== make bench summary: %s (median ns/op; Δ across boots when "
             "each side has two or more: difference of the boot medians' means; "
             "*** p<0.001 ** p<0.01 * p<0.05 after Holm's correction over the "
             "mode's table (exact permutation test over boots between kernels, "
             "paired t over boots between policies), = the same in every boot; "
             "(1b) one boot on a side: Δ within that boot, no test, not evidence; "
             "~ no difference proven)" % meta.get("run_id", ""))
    for m in modes:
        S.append("-- mode %s: %s%s" % (m, MODE_UNIT[m].split(" (")[0] if m == "det"
                                        else MODE_UNIT[m],
                                        "" if m == "det" else ", accel " +
                                        meta.get("accel_wall_cow", meta.get("accel_wall_stock", ""))) +
                 ("; excl-vs-stock from the boot running exclusive alone (cowx)"
                  if any(k[0] == m and k[1] == "cowx" for k in keys) else ""))
        # excl-vs-nommid (the MM owner tracking) and largefolio only
        # where the run has them: a 6.1 summary keeps its columns.
        cols = [c for c in SUMMARY_COLS if c in ("d_stock", "refcount", "mapcount") or
                any(c in line for line in summary if line["mode"] == m)]
        row = "%-16s %10s %10s" + "".join(" %%%ds" % max(12, len(SUMMARY_HEAD[c])) for c in cols)
        S.append(row % (("benchmark", "stock", "exclusive") + tuple(SUMMARY_HEAD[c] for c in cols)))
        for line in summary:
            if line["mode"] != m:
                continue
            S.append(row % (
                (line["bench"], fmt(line.get("stock")), fmt(line.get("excl"))) +
                tuple(sd(line.get(c)) for c in cols)))
    with open(os.path.join(run, "summary.txt"), "w") as f:
        f.write("\n".join(S) + "\n")
    print("benchstat: %s/report.md, summary.txt, %d plots" % (run, len(plots)))


# ---- compare / repeat -------------------------------------------------------
def compare(a, b, only_det=False, benches=None, boot=None):
    ca, cb = cells(load(a), boot), cells(load(b), boot)
    common = sorted(set(ca) & set(cb), key=order_key)
    out = []
    for k in common:
        if only_det and k[0] != "det":
            continue
        if benches and k[2] not in benches:
            continue
        xa = [r["ns_per_op"] for r in ca[k]]
        xb = [r["ns_per_op"] for r in cb[k]]
        ma, mb = stats(xa)["median"], stats(xb)["median"]
        out.append((k, ma, mb, (mb - ma) / ma * 100 if ma else 0, welch(xa, xb),
                    None if boot else across_boots(boot_medians(ca[k]), boot_medians(cb[k]))))
    return out


def spread_report(run):
    """Each cell's boot medians (one per seed) and their spread, to
    RUN/spread.txt and stdout."""
    data = load(run)
    cs = cells(data)
    L = ["spread across seeds: %s (det mode: each boot's median; spread = max - min "
         "as %% of their median)" % run,
         "%-6s %-18s %-16s %5s %9s  %s" % ("mode", "kernel/policy", "benchmark", "boots",
                                          "spread", "boot medians (boot 1, 2, ...)")]
    worst = {}
    for k in sorted(cs, key=order_key):
        bm = boot_medians(cs[k])
        sp = spread(bm)
        kind = "fault" if k[2] in FAULT_BENCHES else "fork"
        if len(bm) > 1:
            if (k[0], kind) not in worst or sp > worst[(k[0], kind)][0]:
                worst[(k[0], kind)] = (sp, k)
        L.append("%-6s %-18s %-16s %5d %8.3f%%  %s" % (
            k[0], col_label(k[1], k[4]), "%s-%dK" % (k[2], k[3]), len(bm), sp,
            " ".join(fmt(v) for v in bm.values())))
    for (m, kind), (sp, k) in sorted(worst.items()):
        L.append("largest spread, %s mode, %s benchmarks: %.3f%% (%s %s-%dK)" % (
            m, kind, sp, col_label(k[1], k[4]), k[2], k[3]))
    if not worst:
        L.append("no cell has more than one boot: nothing to spread (BENCH_BOOTS)")
    with open(os.path.join(run, "spread.txt"), "w") as f:
        f.write("\n".join(L) + "\n")
    print("\n".join(L))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cmd = sys.argv[1]
    if cmd == "collect":
        collect(sys.argv[2])
    elif cmd == "report":
        report(sys.argv[2])
    elif cmd in ("compare", "repeat") and len(sys.argv) == 4:
        a, b = sys.argv[2], sys.argv[3]
        rep = cmd == "repeat"
        rows = compare(a, b, only_det=rep, benches=None, boot=1 if rep else None)
        if not rows:
            sys.exit("benchstat: no cells in common between %s and %s" % (a, b))
        out = []  # to stdout and, compare, to a file in B
        out.append("%s: A=%s B=%s" % ("repeatability (det mode)" if rep else "compare", a, b))
        # Across boots (boot medians: exact permutation test, the interval
        # that inverts it; marks after Holm's correction over every row)
        # where both runs booted each kernel twice or more; the Welch
        # column pools the samples of all boots and cannot hold the
        # variation between boots: a description, no mark.
        judge([x for *_, x in rows])
        out.append("%-6s %-18s %-16s %12s %12s %10s %-44s %s" % ("mode", "kernel/policy", "benchmark",
                                                          "A median", "B median", "Δ median",
                                                          "Δ across boots [95%] p Holm",
                                                          "Δ mean (Welch, rounds pooled: no test)"))
        worst = 0.0
        for k, ma, mb, dm, w, x in rows:
            if rep and k[2] in FAULT_BENCHES:
                worst = max(worst, abs(dm))
            xb = "%s p=%.4f Holm=%.4f %s" % (fmt_across(x), x["p"], x["p_adj"], x["mark"]) \
                if x else "(one boot: no test)"
            out.append("%-6s %-18s %-16s %12s %12s %+9.3f%% %-44s %s" % (
                k[0], col_label(k[1], k[4]), "%s-%dK" % (k[2], k[3]), fmt(ma), fmt(mb),
                dm, xb, fmt_d(w)))
        if not rep:
            # B keeps the comparison, for make report (RESULTS.md).
            with open(os.path.join(b, "compare-%s.txt" % os.path.basename(a.rstrip("/"))), "w") as f:
                f.write("\n".join(out) + "\n")
        print("\n".join(out))
        if rep:
            ok = worst <= 0.1
            print("repeatability: largest |Δ median| over the fault benchmarks "
                  "(%s) = %.4f%%: %s (limit 0.1%%)" % (",".join(FAULT_BENCHES), worst,
                                                       "PASS" if ok else "FAIL"))
            sys.exit(0 if ok else 1)
    elif cmd == "spread" and len(sys.argv) == 3:
        spread_report(sys.argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
