#!/usr/bin/env python3
"""tests/host/benchstat/falsestar.py: the false-star rate of the bench report.

make check runs this (item 16d). It draws made-up benchmark cells with NO
true difference (both sides from one distribution: the same kernel booted
with other seeds), puts each pair through the code that decides a star in
the report (benchstat.compare_rows(), then judge() over the table: Holm),
and asserts that the share of starred comparisons stays at or below 5% plus
a tolerance of 2.5 points, in every scenario. Fixed seed, fixed number of
trials: the outcome is the same on every run.

Why 400 trials and 2.5 points: with a true rate of 5% the standard error of
400 trials is 1.1 points, so 7.5% is 2.3 of them above 5%; the exact tests
here sit at or below 4.8%, so another seed would exceed 7.5% with a chance of
well under 1% per scenario, while a rate of 10% (the bootstrap interval over
5+5 boots) is caught with a chance of about 96% and the one-boot rates of
the old logic (over 50%) always.

Scenarios (det: boot level plus, in a few rounds, a timer tick; identical
rounds otherwise, as under -icount; wall: noisy rounds around a boot level):
  det 5+5 boots, continuous levels     det 5+5 boots, many identical medians
  det 3+3 boots / det 2+2 boots        det one boot a side: 15, 3, 2 rounds
  wall one boot a side, 15 rounds      policies paired in 5 boots (t over
  boots), continuous / many identical  a table of 10 null comparisons of
  7+7 boots (enough for Holm to mark one: 10 x 2/3432 < 5%): the chance
  of any star in the table (the family-wise rate Holm holds at 5%);
  the 0.5% verdict of 5+5 and 2+2 boots whose true difference is +0.5%:
  the share of "yes" or "NO" (each wrong there; 2.5% a side at most)

  --benchstat DIR   the benchstat.py to test (default scripts/report); a
                    benchstat.py from before judge() (git show
                    05f1325:scripts/report/benchstat.py) is judged as its
                    report did: across_boots()'s mark, else median_cmp()
                    (det) or welch() (wall), no correction
"""
import argparse
import os
import random
import sys
import time

NOMINAL, TOLERANCE, TRIALS, SEED = 0.05, 0.025, 400, 20260101
STARS = ("*", "**", "***")


def det_rows(rng, boots, rounds, level):
    """One side in det mode: each boot a level (level(rng)); its rounds that
    level, but 1 in 20 caught a timer tick (+3%)."""
    rows = []
    for b in range(1, boots + 1):
        v = level(rng)
        for _ in range(rounds):
            rows.append({"boot": b, "ns_per_op": v * 1.03 if rng.random() < 0.05 else v})
    return rows


def wall_rows(rng, boots, rounds):
    """One side in wall mode: a boot level (sd 3%), rounds around it (sd 1%)."""
    rows = []
    for b in range(1, boots + 1):
        v = rng.gauss(1000, 30)
        rows += [{"boot": b, "ns_per_op": rng.gauss(v, 10)} for _ in range(rounds)]
    return rows


def cont(rng):
    return rng.gauss(1000, 10)


def ties(rng):
    """Many identical boot medians: 1000 in 70% of boots, 1001 in 20%, 1003."""
    u = rng.random()
    return 1000.0 if u < 0.7 else 1001.0 if u < 0.9 else 1003.0


def paired_rows(rng, boots, rounds, noise):
    """Two policies interleaved in the same boots: a shared boot level, each
    policy its own per-boot deviation noise(rng); the same distribution."""
    ra, rb = [], []
    for b in range(1, boots + 1):
        v = rng.gauss(1000, 20)
        for rows in (ra, rb):
            w = v + noise(rng)
            rows += [{"boot": b, "ns_per_op": w} for _ in range(rounds)]
    return ra, rb


SCENARIOS = [
    # name, mode, paired, generator of (rows a, rows b), comparisons per table
    ("det 5+5 boots, continuous boot levels", "det", False,
     lambda r: (det_rows(r, 5, 15, cont), det_rows(r, 5, 15, cont)), 1),
    ("det 5+5 boots, many identical medians", "det", False,
     lambda r: (det_rows(r, 5, 15, ties), det_rows(r, 5, 15, ties)), 1),
    ("det 3+3 boots", "det", False,
     lambda r: (det_rows(r, 3, 15, cont), det_rows(r, 3, 15, cont)), 1),
    ("det 2+2 boots, many identical medians", "det", False,
     lambda r: (det_rows(r, 2, 15, ties), det_rows(r, 2, 15, ties)), 1),
    ("det one boot a side, 15 rounds", "det", False,
     lambda r: (det_rows(r, 1, 15, cont), det_rows(r, 1, 15, cont)), 1),
    ("det one boot a side, 3 rounds", "det", False,
     lambda r: (det_rows(r, 1, 3, ties), det_rows(r, 1, 3, ties)), 1),
    ("det one boot a side, 2 rounds", "det", False,
     lambda r: (det_rows(r, 1, 2, ties), det_rows(r, 1, 2, ties)), 1),
    ("wall one boot a side, 15 rounds", "wall", False,
     lambda r: (wall_rows(r, 1, 15), wall_rows(r, 1, 15)), 1),
    ("policies paired in 5 boots, continuous", "det", True,
     lambda r: paired_rows(r, 5, 15, lambda q: q.gauss(0, 5)), 1),
    ("policies paired in 5 boots, many identical", "det", True,
     lambda r: paired_rows(r, 5, 15, lambda q: q.choice((0, 0, 0, 1, 2))), 1),
    ("table of 10 comparisons, det 7+7 boots: any star", "det", False,
     lambda r: (det_rows(r, 7, 15, cont), det_rows(r, 7, 15, cont)), 10),
    # The 0.5% verdict where the true difference is +0.5%, the boundary:
    # there neither "yes" nor "NO" is right, and each may come in at most
    # 2.5% of trials (one side of a 95% interval).
    ("verdict, det 5+5 boots, true +0.5%: yes or NO", "det", "verdict",
     lambda r: (det_rows(r, 5, 15, cont), det_rows(r, 5, 15, lambda q: 1.005 * cont(q))), 1),
    ("verdict, det 2+2 boots, true +0.5%: yes or NO", "det", "verdict",
     lambda r: (det_rows(r, 2, 15, cont), det_rows(r, 2, 15, lambda q: 1.005 * cont(q))), 1),
]


def stars_new(b, pairs, mode, paired):
    """The report's path: compare_rows() for each comparison of a table,
    judge() over the table; the number of starred comparisons (paired
    "verdict": the number of yes or NO verdicts, verdict())."""
    xs = b.judge([b.compare_rows(ra, rb, mode, paired=paired is True) for ra, rb in pairs])
    if paired == "verdict":
        return sum(1 for x in xs if b.verdict(x, 0.5) in ("yes", "NO"))
    return sum(1 for x in xs if x and x["mark"] in STARS)


def stars_old(b, pairs, mode, paired):
    """The report before judge(): across_boots()'s mark with two boots or
    more a side, else median_cmp() (det: the overhead table and the
    summary) or welch() (wall); no correction."""
    n = 0
    for ra, rb in pairs:
        x = b.across_boots(b.boot_medians(ra), b.boot_medians(rb), paired=paired is True)
        if paired == "verdict":   # the overhead table: within_median()
            n += b.within_median(x, 0.5) in ("yes", "NO")
            continue
        if not x:
            a, c = [r["ns_per_op"] for r in ra], [r["ns_per_op"] for r in rb]
            x = b.median_cmp(a, c) if mode == "det" else b.welch(a, c)
        n += bool(x) and x["mark"] in STARS
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--benchstat", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts", "report"))
    ap.add_argument("--trials", type=int, default=TRIALS)
    ap.add_argument("--seed", type=int, default=SEED)
    args = ap.parse_args()
    sys.path.insert(0, os.path.abspath(args.benchstat))
    import benchstat as b
    new = hasattr(b, "judge")
    stars = stars_new if new else stars_old
    limit = NOMINAL + TOLERANCE
    print("false stars under no true difference: %d trials a scenario, seed %d, "
          "limit %.1f%% (%.0f%% + %.1f%%), %s logic (%s)" % (
              args.trials, args.seed, 100 * limit, 100 * NOMINAL, 100 * TOLERANCE,
              "judge()" if new else "old: no judge()", b.__file__))
    failed = 0
    t0 = time.time()
    for i, (name, mode, paired, gen, m) in enumerate(SCENARIOS):
        rng = random.Random(args.seed * 100 + i)
        hit = 0
        for _ in range(args.trials):
            hit += stars(b, [gen(rng) for _ in range(m)], mode, paired) > 0
        rate = hit / args.trials
        bad = rate > limit
        failed += bad
        print("  %-50s %5.1f%% %s" % (name, 100 * rate, "FAIL" if bad else "ok"))
    print("%s: %d of %d scenarios above %.1f%% (%.0f s)" % (
        "FAIL" if failed else "PASS", failed, len(SCENARIOS), 100 * limit, time.time() - t0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
