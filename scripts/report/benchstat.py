#!/usr/bin/env python3
"""scripts/report/benchstat.py: the reporting half of make bench (scipy.stats).

  collect RUN        console logs + meta.env of RUN -> raw.csv, raw.json
  report RUN         raw.json -> report.md, summary.txt, plots/*.png (gnuplot)
  compare A B        every cell of run B against run A (medians, Welch test)
  repeat A B         deterministic mode: do A and B agree within 0.1%?

A cell is (mode, kernel variant, benchmark, size, policy); its samples are
the measured (not warm-up) rounds. The value of a sample is ns per op.
Comparisons use Welch's t-test at 95%: '*' p<0.05, '**' p<0.01, '***'
p<0.001, otherwise "no difference proven".
"""
import csv
import glob
import json
import math
import os
import re
import shutil
import subprocess
import sys

FAULT_BENCHES = ("copy", "reuse", "softdirty", "wprt", "thpcopy", "thpreuse",
                 "ksm", "swapin", "gupfp")
BENCH_ORDER = ("fork", "forkthp", "forkpin", "copy", "reuse", "softdirty",
               "wprt", "thpcopy", "thpreuse", "ksm", "swapin", "gupfp")
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
}
POLICY_ORDER = ("exclusive", "refcount", "mapcount")
COPY_COUNTERS = ("cow_copy_mapcount", "cow_copy_refcount", "cow_copy_ksm",
                 "cow_copy_swap", "cow_copy_locked")
MODE_UNIT = {
    "det": "guest ns under -icount shift=0 (1 ns = 1 guest instruction: an "
           "instruction count, not a time)",
    "wall": "guest wall-clock ns",
}
FIXED = ["run_id", "mode", "variant", "kernel", "config_hash", "series_hash",
         "profile", "accel", "qemu", "host_cpu", "rounds", "warmup", "seed",
         "round", "warm", "policy", "bench", "size_kib", "unit", "ops", "ns", "sample_ns",
         "ns_per_op"]


# ---- statistics (scipy.stats) --------------------------------------------------
# Debian's python3-scipy: run with SCIPY_PYTHON (/usr/bin/python3 by default,
# the interpreter the Debian package is installed for).
try:
    from scipy import stats as sps
except ImportError:
    sys.exit("benchstat: scipy is missing: run with the Debian python3 that has "
             "python3-scipy (make deps; SCIPY_PYTHON=%s)" % sys.executable)


def t_crit(df, p=0.05):
    """Two-sided critical value of Student's t with df degrees of freedom."""
    return float(sps.t.ppf(1 - p / 2, df))


def median_rank(n, level=0.95):
    """The 0-based rank k of the distribution-free interval of the median,
    [x(k), x(n-1-k)]: the largest k whose coverage, the binomial
    probability of k < #(x < median) < n - k, is at least level."""
    best = 0
    for k in range(n // 2):
        if sps.binom.cdf(n - k - 1, n, 0.5) - sps.binom.cdf(k, n, 0.5) >= level:
            best = k
        else:
            break
    return best


def stats(xs):
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
            "min": xs[0], "max": xs[-1]}


def welch(a, b):
    """b against a, Welch's t-test (scipy.stats.ttest_ind, unequal
    variances): (delta %, half width % of the 95% interval, p, mark)."""
    sa, sb = stats(a), stats(b)
    if not sa or not sb or sa["mean"] == 0:
        return None
    d = (sb["mean"] - sa["mean"]) / sa["mean"] * 100
    if sa["n"] < 2 or sb["n"] < 2:
        return {"d": d, "half": float("nan"), "p": float("nan"),
                "mark": "n<2: no test"}
    va = sa["sd"] ** 2 / sa["n"]
    vb = sb["sd"] ** 2 / sb["n"]
    se = math.sqrt(va + vb)
    if se == 0:
        p = 1.0 if sb["mean"] == sa["mean"] else 0.0
        half = 0.0
    else:
        p = float(sps.ttest_ind(b, a, equal_var=False).pvalue)
        df = (va + vb) ** 2 / ((va ** 2 / (sa["n"] - 1) if va else 0)
                               + (vb ** 2 / (sb["n"] - 1) if vb else 0))
        half = t_crit(df) * se / sa["mean"] * 100
    if p < 0.001:
        mark = "***"
    elif p < 0.01:
        mark = "**"
    elif p < 0.05:
        mark = "*"
    else:
        mark = "no difference proven"
    return {"d": d, "half": half, "p": p, "mark": mark}


def within(w, limit):
    """yes: the 95% interval of the difference lies inside +-limit %;
    NO: significant and beyond; unresolved otherwise."""
    if not w or math.isnan(w["half"]):
        return "unresolved"
    if abs(w["d"]) + w["half"] <= limit:
        return "yes"
    if w["p"] < 0.05 and abs(w["d"]) > limit:
        return "NO"
    return "unresolved"


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] + xs[(n - 1) // 2]) / 2.0


def median_diff(a, b, resamples=2000, seed=1):
    """The difference of the medians of b and a as % of a's median, with a
    seeded percentile-bootstrap 95% interval (scipy.stats.bootstrap, the
    two samples resampled independently): the statistic for the
    deterministic mode, whose samples are exact instruction counts except
    for the few a timer tick lands in (those move the mean, not the
    median)."""
    if len(a) < 2 or len(b) < 2:
        return None
    ma = median(a)
    if not ma:
        return None
    d = (median(b) - ma) / ma * 100
    if len(set(a)) == 1 and len(set(b)) == 1:
        return {"d": d, "lo": d, "hi": d}   # every resample gives d
    res = sps.bootstrap((b, a), lambda x, y: (median(x) - median(y)) / ma * 100,
                        vectorized=False, paired=False, n_resamples=resamples,
                        method="percentile", random_state=seed)
    return {"d": d, "lo": float(res.confidence_interval.low),
            "hi": float(res.confidence_interval.high)}


def median_cmp(a, b):
    """median_diff() in the shape of welch(): mark * when the interval
    excludes zero."""
    md = median_diff(a, b)
    if not md:
        return None
    return {"d": md["d"], "mark": "*" if md["lo"] > 0 or md["hi"] < 0
            else "no difference proven"}


def within_median(m, limit):
    """yes: the bootstrap interval of the median difference lies inside
    +-limit %; NO: it lies wholly beyond; unresolved otherwise."""
    if not m:
        return "unresolved"
    if -limit <= m["lo"] and m["hi"] <= limit:
        return "yes"
    if m["lo"] > limit or m["hi"] < -limit:
        return "NO"
    return "unresolved"


# ---- collect ------------------------------------------------------------------
def read_meta(run):
    meta = {}
    with open(os.path.join(run, "meta.env")) as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                meta[k] = v
    return meta


def collect(run):
    meta = read_meta(run)
    rows, skips = [], []
    for log in sorted(glob.glob(os.path.join(run, "*.log"))):
        m = re.match(r"(det|wall)-(\w+)\.log$", os.path.basename(log))
        if not m:
            continue
        mode, variant = m.groups()
        if variant == "stock":     # runs before the unpatched kernel was named "stock"
            variant = "stock"
        with open(log, errors="replace") as f:
            for line in f:
                line = line.strip()
                if line.startswith("BENCH-SKIP "):
                    kv = dict(w.split("=", 1) for w in line.split()[1:3])
                    skips.append({"mode": mode, "variant": variant, **kv,
                                  "reason": line.split("reason=", 1)[1]})
                    continue
                if not line.startswith("BENCH "):
                    continue
                kv = dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
                ops, ns = int(kv["ops"]), int(kv["ns"])
                row = {
                    "run_id": meta.get("run_id", ""), "mode": mode,
                    "variant": variant,
                    "kernel": meta.get("kernel_" + variant, ""),
                    "config_hash": meta.get("config_hash_" + variant, ""),
                    "series_hash": "none (unpatched)" if variant == "stock"
                    else meta.get("series_hash", ""),
                    "profile": meta.get("profile", ""),
                    "accel": meta.get("accel_%s_%s" % (mode, variant), ""),
                    "qemu": meta.get("qemu", ""),
                    "host_cpu": meta.get("host_cpu", ""),
                    "rounds": meta.get("rounds", ""),
                    "warmup": meta.get("warmup", ""),
                    "seed": meta.get("seed", ""),
                    "round": int(kv["round"]), "warm": int(kv["warm"]),
                    "policy": kv["policy"], "bench": kv["bench"],
                    "size_kib": int(kv["size_kib"]), "unit": kv["unit"],
                    "ops": ops, "ns": ns, "sample_ns": int(kv.get("sample_ns", 0)),
                    "ns_per_op": ns / ops if ops else 0,
                }
                for k, v in kv.items():
                    if k.startswith("v."):
                        row[k[2:]] = int(v)
                rows.append(row)
    if not rows:
        sys.exit("benchstat collect: no BENCH lines in %s/*.log" % run)
    counters = sorted({k for r in rows for k in r if k not in FIXED})
    with open(os.path.join(run, "raw.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIXED + counters, restval="")
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(run, "raw.json"), "w") as f:
        json.dump({"meta": meta, "skipped": skips, "rows": rows}, f, indent=1)
    print("benchstat: %d samples -> %s/raw.csv, raw.json" % (len(rows), run))


# ---- report -------------------------------------------------------------------
def load(run):
    if not os.path.exists(os.path.join(run, "raw.json")):
        collect(run)
    with open(os.path.join(run, "raw.json")) as f:
        return json.load(f)


def cells(data):
    """{(mode, variant, bench, size, policy): [row, ...]} of measured rounds."""
    out = {}
    for r in data["rows"]:
        if r["warm"]:
            continue
        k = (r["mode"], r["variant"], r["bench"], r["size_kib"], r["policy"])
        out.setdefault(k, []).append(r)
    return out


def col_label(variant, policy):
    return "stock (unpatched)" if variant == "stock" else "%s/%s" % (variant, policy)


def fmt(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if abs(x) >= 100:
        return "%.0f" % x
    if abs(x) >= 10:
        return "%.1f" % x
    return "%.2f" % x


def fmt_d(w):
    if not w:
        return "-", "-"
    half = "" if math.isnan(w["half"]) else " ±%.2f" % w["half"]
    return "%+.2f%%%s" % (w["d"], half), w["mark"]


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
set title '%s %d KiB, mode %s (%s): median, 95%% interval of the median'
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
    for k in ("date", "project_commit", "series_hash", "qemu", "host_cpu",
              "host_cpus", "host_kernel", "profile", "rounds", "warmup", "seed",
              "sizes_kib", "fsize_kib", "minops", "benches", "elapsed_s"):
        P("| %s | %s |" % (k, meta.get(k, "")))
    for v in variants:
        P("| kernel %s | %s, config sha256 %s, cowpin %s |" % (
            v, meta.get("kernel_" + v, ""), meta.get("config_hash_" + v, ""),
            meta.get("cowpin_" + v, "")))
    for m in modes:
        for v in variants:
            P("| boot %s/%s | accel %s, %ss, `%s` |" % (
                m, v, meta.get("accel_%s_%s" % (m, v), ""),
                meta.get("seconds_%s_%s" % (m, v), "?"),
                meta.get("qemu_args_%s_%s" % (m, v), "")))
    P("")
    P("Units. **det**: %s. **wall**: %s%s." % (
        MODE_UNIT["det"], MODE_UNIT["wall"],
        "; under TCG (no KVM) wall-clock figures are *indicative only*"
        if any("tcg" in meta.get("accel_wall_%s" % v, "") for v in variants) else ""))
    P("Each cell: the measured rounds (warm-up rounds discarded), one sample "
      "per round; policies interleaved in a seeded random order per round. "
      "median [95% interval of the median], mean ± sd, 95% CI of the mean; "
      "Δ: the difference of the means as % of the reference ± the half-width of "
      "its 95% Welch interval; significance by Welch's t-test "
      "(* p<0.05, ** p<0.01, *** p<0.001).")
    P("")

    summary = []
    # ---- framework overhead --------------------------------------------------
    if "stock" in variants and ("cow" in variants or "cowx" in variants):
        P("## Framework overhead: cow kernel (policy exclusive) vs unpatched 6.1")
        P("")
        P("Target: |Δ| ≤ 0.5% in deterministic mode. *within 0.5%*: **yes** when "
          "the whole 95% interval lies within ±0.5%, **NO** when it lies wholly "
          "beyond, *unresolved* otherwise; the interval is that of Δ median "
          "(seeded bootstrap) in det mode, where a timer tick moves the odd "
          "sample and so the mean, and that of Δ mean (Welch) in wall mode. "
          "Where the run "
          "has it, the cow side is the boot that ran \"exclusive\" alone "
          "(cowx), as stock does; the interleaved boot's exclusive rounds "
          "inherit state from the other policies' rounds.")
        P("")
        P("| mode | benchmark | stock median | cow/exclusive median | Δ median [95%] | Δ mean | significance | within 0.5% |")
        P("| --- | --- | ---: | ---: | ---: | ---: | --- | --- |")
        for k in keys:
            if k[1] != "stock":
                continue
            kc = (k[0], "cowx", k[2], k[3], "exclusive")
            if kc not in cs:
                kc = (k[0], "cow", k[2], k[3], "exclusive")
            if kc not in cs:
                continue
            a = [r["ns_per_op"] for r in cs[k]]
            b = [r["ns_per_op"] for r in cs[kc]]
            w = welch(a, b)
            d, mark = fmt_d(w)
            md = median_diff(a, b)
            ok = within_median(md, 0.5) if k[0] == "det" else within(w, 0.5)
            ma, mb = stats(a)["median"], stats(b)["median"]
            mds = ("%+.2f%% [%+.2f, %+.2f]" % (md["d"], md["lo"], md["hi"]) if md
                   else "%+.2f%%" % ((mb - ma) / ma * 100 if ma else 0))
            P("| %s | %s-%dK | %s | %s | %s | %s | %s | %s |" % (
                k[0], k[2], k[3], fmt(ma), fmt(mb), mds, d, mark, ok))
        P("")

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
        P("| mode | kernel/policy | n | median [95%] | mean ± sd | 95% CI of mean | Δ vs exclusive | significance | per op |")
        P("| --- | --- | ---: | --- | --- | --- | ---: | --- | --- |")
        for k in ks:
            xs = [r["ns_per_op"] for r in cs[k]]
            s = stats(xs)
            ref = (k[0], k[1], k[2], k[3], "exclusive")
            if k[1] == "stock":
                d, mark = "(baseline)", ""
            elif k[4] == "exclusive":
                kb = (k[0], "stock", k[2], k[3], "exclusive")
                if kb in cs:
                    w = welch([r["ns_per_op"] for r in cs[kb]], xs)
                    d, mark = fmt_d(w)
                    d, mark = d + " vs stock", mark
                else:
                    d, mark = "(reference)", ""
            else:
                d, mark = fmt_d(welch([r["ns_per_op"] for r in cs[ref]], xs)) \
                    if ref in cs else ("-", "")
            P("| %s | %s | %d | %s [%s, %s] | %s ± %s | [%s, %s] | %s | %s | %s |" % (
                k[0], col_label(k[1], k[4]), s["n"], fmt(s["median"]), fmt(s["med_lo"]),
                fmt(s["med_hi"]), fmt(s["mean"]), fmt(s["sd"]), fmt(s["ci_lo"]),
                fmt(s["ci_hi"]), d, mark, counters_text(cs[k])))
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
                xe = [r["ns_per_op"] for r in cs[ke]]
                line["excl"] = stats(xe)["median"]
                xo = [r["ns_per_op"] for r in cs[kx]] if kx in cs else xe
                # det: the median difference and its bootstrap interval
                # (ticks move the odd sample); wall: Welch on the means.
                cmp = median_cmp if m == "det" else welch
                if kb in cs:
                    line["d_stock"] = cmp([r["ns_per_op"] for r in cs[kb]], xo)
                for p in ("refcount", "mapcount"):
                    kp = (m, "cow", bench, size, p)
                    if kp in cs:
                        line[p] = cmp(xe, [r["ns_per_op"] for r in cs[kp]])
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
        m = {"***": "***", "**": "**", "*": "*"}.get(w["mark"], "")
        return "%+.2f%%%s" % (w["d"], m or (" ~" if w["mark"].startswith("no") else ""))

    S = []
    S.append("==== make bench summary: %s (median ns/op; det: Δ = median "
             "difference, * its 95%% bootstrap interval excludes 0; wall: Δ = mean "
             "difference, *** p<0.001 ** p<0.01 * p<0.05 (Welch); ~ no difference "
             "proven)" % meta.get("run_id", ""))
    for m in modes:
        S.append("-- mode %s: %s%s" % (m, MODE_UNIT[m].split(" (")[0] if m == "det"
                                        else MODE_UNIT[m],
                                        "" if m == "det" else ", accel " +
                                        meta.get("accel_wall_cow", meta.get("accel_wall_stock", ""))) +
                 ("; excl-vs-stock from the boot running exclusive alone (cowx)"
                  if any(k[0] == m and k[1] == "cowx" for k in keys) else ""))
        S.append("%-16s %10s %10s %12s %12s %12s" % ("benchmark", "stock", "exclusive",
                                                    "excl-vs-stock", "refcount", "mapcount"))
        for line in summary:
            if line["mode"] != m:
                continue
            S.append("%-16s %10s %10s %12s %12s %12s" % (
                line["bench"], fmt(line.get("stock")), fmt(line.get("excl")),
                sd(line.get("d_stock")), sd(line.get("refcount")), sd(line.get("mapcount"))))
    with open(os.path.join(run, "summary.txt"), "w") as f:
        f.write("\n".join(S) + "\n")
    print("benchstat: %s/report.md, summary.txt, %d plots" % (run, len(plots)))


# ---- compare / repeat -------------------------------------------------------
def compare(a, b, only_det=False, benches=None):
    ca, cb = cells(load(a)), cells(load(b))
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
        out.append((k, ma, mb, (mb - ma) / ma * 100 if ma else 0, welch(xa, xb)))
    return out


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
        rows = compare(a, b, only_det=rep, benches=None)
        if not rows:
            sys.exit("benchstat: no cells in common between %s and %s" % (a, b))
        print("%s: A=%s B=%s" % ("repeatability (det mode)" if rep else "compare", a, b))
        print("%-6s %-18s %-16s %12s %12s %10s %s" % ("mode", "kernel/policy", "benchmark",
                                                    "A median", "B median", "Δ median",
                                                    "Δ mean (Welch)"))
        worst = 0.0
        for k, ma, mb, dm, w in rows:
            if rep and k[2] in FAULT_BENCHES:
                worst = max(worst, abs(dm))
            d, mark = fmt_d(w)
            print("%-6s %-18s %-16s %12s %12s %+9.3f%% %s %s" % (
                k[0], col_label(k[1], k[4]), "%s-%dK" % (k[2], k[3]), fmt(ma), fmt(mb),
                dm, d, mark))
        if rep:
            ok = worst <= 0.1
            print("repeatability: largest |Δ median| over the fault benchmarks "
                  "(%s) = %.4f%%: %s (limit 0.1%%)" % (",".join(FAULT_BENCHES), worst,
                                                       "PASS" if ok else "FAIL"))
            sys.exit(0 if ok else 1)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
