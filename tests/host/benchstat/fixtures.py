#!/usr/bin/env python3
"""tests/host/benchstat/fixtures.py: canned bench runs the report must judge
right (make check, item 16d).

Each case writes a made-up run (meta.env, raw.json) to a scratch directory,
renders it with `benchstat.py report`, and looks at one row of the framework
overhead table (report.md) and one cell of summary.txt. Then results_md.py
(RESULTS.md) must render and accept every case's run.

  collapsed   det, one boot a side, 2 rounds each, every round the same
              (stock 1000, cow 1001: +0.1%): the bootstrap over the rounds
              collapses to the point +0.1%; no star, no verdict, and the
              median's [min, max] shown as the range it is (covers 50%)
  twoboots    det, 2 boots a side, cow +1% in both (p = 2/6 = 0.33): not
              "NO" (nor "yes"), no star
  oneboot     wall, one boot a side, 15 rounds, cow 10% slower in every
              round: no mark (one boot: no test), unresolved, "(1b)" in the
              summary
  holm7       det, 7 benchmarks, 5 boots a side wholly apart (each p =
              2/252 = 0.0079): Holm's p 7 x 0.0079 = 0.056, no star
  holm1       the same with one benchmark: Holm's p 0.0079, "**" (a real
              difference still gets its mark)

  fixtures.py [--benchstat DIR] [CASE...]   (default: every case; DIR: the
  directory of the benchstat.py to run, scripts/report by default)
Prints "ok - CASE: what" or "not ok - CASE: why" per case; exit 1 on any
failure.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))


def rows(mode, variant, bench, size, values, policy="exclusive"):
    """values: {boot: [ns per op of each round]}."""
    return [{"mode": mode, "variant": variant, "bench": bench, "size_kib": size,
             "policy": policy, "warm": 0, "boot": boot, "round": i + 1,
             "ops": 1, "ns": v, "ns_per_op": v, "unit": "page"}
            for boot, vs in values.items() for i, v in enumerate(vs)]


def case_rows(name):
    if name == "collapsed":
        return (rows("det", "stock", "reuse", 1024, {1: [1000, 1000]})
                + rows("det", "cow", "reuse", 1024, {1: [1001, 1001]}))
    if name == "twoboots":
        return (rows("det", "stock", "copy", 1024, {1: [1000] * 3, 2: [1000.5] * 3})
                + rows("det", "cow", "copy", 1024, {1: [1010] * 3, 2: [1010.5] * 3}))
    if name == "oneboot":
        return (rows("wall", "stock", "copy", 1024, {1: [1000 + i for i in range(15)]})
                + rows("wall", "cow", "copy", 1024, {1: [1100 + i for i in range(15)]}))
    if name in ("holm7", "holm1"):
        out = []
        for bench in ("reuse", "softdirty", "wprt", "thpcopy", "thpreuse", "ksm",
                      "gupfp")[:7 if name == "holm7" else 1]:
            out += rows("det", "stock", bench, 1024, {b: [1000 + b] * 3 for b in range(1, 6)})
            out += rows("det", "cow", bench, 1024, {b: [1010 + b] * 3 for b in range(1, 6)})
        return out
    raise KeyError(name)


def overhead_row(report, key):
    """The cells of the overhead table's row for key ('det | reuse-1024K')."""
    sec = report.split("## Framework overhead", 1)[1].split("\n## ", 1)[0]
    for line in sec.splitlines():
        if line.startswith("| %s |" % key):
            return [c.strip() for c in line.strip().strip("|").split("|")]
    raise AssertionError("no overhead row for %s" % key)


def summary_cell(summary, bench, col):
    """A cell of summary.txt: col 3 excl-vs-stock, 4 refcount, 5 mapcount."""
    for line in summary.splitlines():
        t = line.split()
        if t and t[0] == bench:
            return t[col]
    raise AssertionError("no summary line for %s" % bench)


def check(name, report, summary):
    """None when the case is judged right, else why not."""
    # overhead row: 0 mode, 1 benchmark, 2 boots, 3-4 medians, 5 spread,
    # 6 delta, 7 p, 8 significance, 9 within 0.5%
    if name == "collapsed":
        r = overhead_row(report, "det | reuse-1024K")
        c = summary_cell(summary, "reuse-1024K", 3)
        if "*" in r[8] or "*" in c:
            return "a star from a collapsed bootstrap: %r, summary %r" % (r[8], c)
        if r[9] in ("yes", "NO"):
            return "a verdict from one boot a side: %r" % r[9]
        if "[1000, 1000] range, covers 50%" not in report:
            return "the 2-sample median interval is not labelled a range with its coverage"
        return None
    if name == "twoboots":
        r = overhead_row(report, "det | copy-1024K")
        if not r[7].startswith("0.3333"):
            return "p is not 2/6: %r" % r[7]
        if r[9] in ("NO", "yes") or "*" in r[8]:
            return "2+2 boots at p 0.33 gave %r, %r" % (r[8], r[9])
        return None
    if name == "oneboot":
        r = overhead_row(report, "wall | copy-1024K")
        c = summary_cell(summary, "copy-1024K", 3)
        if "*" in r[8] or "*" in c or "one boot" not in r[8]:
            return "one boot a side carries a mark: %r, summary %r" % (r[8], c)
        if r[9] in ("NO", "yes"):
            return "a verdict from one boot a side: %r" % r[9]
        if not c.endswith("(1b)"):
            return "the summary does not say one boot: %r" % c
        return None
    if name in ("holm7", "holm1"):
        r = overhead_row(report, "det | reuse-1024K")
        want_p, want_mark = ("0.0079 / 0.0556", "no difference proven") if name == "holm7" \
            else ("0.0079 / 0.0079", "**")
        if r[7] != want_p or r[8] != want_mark:
            return "p %r, mark %r; want %r, %r" % (r[7], r[8], want_p, want_mark)
        return None
    raise KeyError(name)


CASES = ("collapsed", "twoboots", "oneboot", "holm7", "holm1")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--benchstat", default=os.path.join(TOP, "scripts", "report"))
    ap.add_argument("cases", nargs="*", default=CASES)
    args = ap.parse_args()
    bs = os.path.join(os.path.abspath(args.benchstat), "benchstat.py")
    tmp = tempfile.mkdtemp(prefix="benchstat-fixtures.")
    failed = 0
    runs = []
    try:
        for name in args.cases:
            run = os.path.join(tmp, "bench-20260103-000000-%s" % name)
            os.makedirs(run)
            with open(os.path.join(run, "meta.env"), "w") as f:
                f.write("run_id=%s\ndate=2026-01-03T00:00:00Z\ncommand=make bench\n"
                        "project_commit=0123456789abcdef0123456789abcdef01234567\n"
                        "kernel_stock=6.1.0+\nkernel_cow=6.1.0+\naccel_det_cow=tcg-icount\n"
                        % os.path.basename(run))
            with open(os.path.join(run, "raw.json"), "w") as f:
                json.dump({"meta": {"run_id": os.path.basename(run)}, "skipped": [],
                           "rows": case_rows(name)}, f)
            out = subprocess.run([sys.executable, bs, "report", run], capture_output=True, text=True)
            why = "benchstat report: exit %d: %s" % (out.returncode, out.stderr.strip()[-200:]) \
                if out.returncode else None
            if not why:
                try:
                    why = check(name, open(os.path.join(run, "report.md")).read(),
                                open(os.path.join(run, "summary.txt")).read())
                except AssertionError as e:
                    why = str(e)
            runs.append(run)
            failed += why is not None
            print("not ok - %s: %s" % (name, why) if why else "ok - %s" % name)
        # results_md.py must still render and accept these reports.
        md = os.path.join(tmp, "R.md")
        rm = os.path.join(TOP, "scripts", "report", "results_md.py")
        out = subprocess.run([sys.executable, rm, "write", md] + runs, capture_output=True, text=True)
        if out.returncode == 0:
            out = subprocess.run([sys.executable, rm, "check", md], capture_output=True, text=True)
        if out.returncode:
            failed += 1
            print("not ok - results_md: %s" % (out.stdout + out.stderr).strip().splitlines()[-1])
        else:
            print("ok - results_md renders and accepts the %d runs" % len(runs))
    finally:
        shutil.rmtree(tmp)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
