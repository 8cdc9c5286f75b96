#!/usr/bin/env python3
"""scripts/vmtests_report.py RESULTS_DIR [EXPECT_TSV]

Collect the "# VMSELFTEST ..." lines that guest/vm_selftest.sh prints
(profile vmtests: 6.1's own tools/testing/selftests/vm programs, issue 4)
from RESULTS_DIR/*-vmtests.log and write
  RESULTS_DIR/vm-selftests.md    one row per invocation, one column per
                                 kernel/policy, mismatches marked, reasons
  RESULTS_DIR/vm-selftests.tsv   variant, policy, invocation, result,
                                 expected, seconds
and append the table to RESULTS_DIR/matrix.md when it exists.

A column is a policy of a kernel with vm.cow_policy (exclusive, refcount,
mapcount), or a kernel without it (variant base = unpatched 6.1, nocow),
which runs the exclusive rule. Prints the path of vm-selftests.md and one
verdict line; exit status 1 when a result differs from its expectation,
when exclusive and unpatched 6.1 differ on any invocation (issue 4: such a
failure is a bug), or when there are no results.
"""
import collections
import datetime
import glob
import os
import re
import sys

POLICIES = ["exclusive", "refcount", "mapcount"]
LINE = re.compile(r"# VMSELFTEST (.*?) name=(.*)$")
KV = re.compile(r"(\w+)=(\S+)")


def load_reasons(path):
    """(policy, invocation) -> (expected, reason); policy 'all' kept as is."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 4:
                out[(cols[0], cols[1])] = (cols[2], cols[3])
    return out


def main():
    rdir = sys.argv[1]
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    reasons = load_reasons(sys.argv[2] if len(sys.argv) > 2 else
                           os.path.join(top, "tests/expect/vm-selftests.tsv"))
    cells = collections.OrderedDict()   # invocation -> {column: (result, expected, secs)}
    columns, kernels = [], {}
    for log in sorted(glob.glob(os.path.join(rdir, "*-vmtests.log"))):
        variant, kernel = "?", "?"
        with open(log, encoding="utf-8", errors="replace") as f:
            for raw in f:
                s = raw.strip()
                m = re.match(r"# cow-policy run \S+ variant=(\S+)", s)
                if m:
                    variant = m.group(1)
                m = re.match(r"COWTEST-BOOT kernel=(\S+)", s)
                if m:
                    kernel = m.group(1)
                m = LINE.search(s)
                if not m:
                    continue
                d = dict(KV.findall(m.group(1)))
                if d.get("sysctl") == "no":
                    col = "6.1 (unpatched)" if variant == "base" else variant
                else:
                    col = d.get("policy", "?") + ("" if variant == "cow" else " (%s)" % variant)
                if col not in columns:
                    columns.append(col)
                    kernels[col] = "%s %s" % (variant, kernel)
                cells.setdefault(m.group(2), {})[col] = (d.get("result", "?"),
                                                         d.get("expected", "?"),
                                                         d.get("secs", "?"))
    if not cells:
        print("no vm selftest results in " + rdir)
        return 1

    base_col = "6.1 (unpatched)" if "6.1 (unpatched)" in columns else None
    order = [c for c in columns if c == base_col] + \
        [p for p in POLICIES if p in columns] + \
        [c for c in columns if c != base_col and c not in POLICIES]
    mismatches, differ, tot = [], [], collections.defaultdict(collections.Counter)
    table = ["| invocation | " + " | ".join(order) + " |",
             "| --- |" + " --- |" * len(order)]
    md = ["# 6.1's own mm selftests under every policy\n",
          "tools/testing/selftests/vm of the unpacked linux-source-6.1 tree, built "
          "statically with its own Makefile (scripts/vmtests.sh), run by "
          "guest/vm_selftest.sh in profile `vmtests` (tests/groups/vmtests.list); "
          "a result is the exit status read as run_vmtests.sh reads it (0 pass, "
          "4 skip, else fail; killed after 300 s: timeout). Expected results "
          "other than pass: tests/expect/vm-selftests.tsv. Date %s, results %s.\n" % (
              datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
              os.path.abspath(rdir)),
          "Kernels: " + "; ".join("%s = %s" % (c, kernels[c]) for c in order) + ".\n"]
    rows = []
    for name, r in cells.items():
        row = []
        for c in order:
            if c not in r:
                row.append("-")
                continue
            res, exp, secs = r[c]
            tot[c][res] += 1
            cell = "%s %ss" % (res, secs)
            if res != exp:
                mismatches.append("%s under %s: %s, expected %s" % (name, c, res, exp))
                tot[c]["mismatch"] += 1
                cell = "**%s** (expected %s) %ss" % (res, exp, secs)
            row.append(cell)
            rows.append("\t".join([kernels[c].split()[0], c, name, res, exp, secs]))
        if base_col and ("exclusive" not in r or base_col not in r):
            # An invocation that ran on one side only was not compared.
            differ.append("%s: exclusive %s, unpatched 6.1 %s" % (
                name, r["exclusive"][0] if "exclusive" in r else "did not run",
                r[base_col][0] if base_col in r else "did not run"))
        elif base_col and r["exclusive"][0] != r[base_col][0]:
            differ.append("%s: exclusive %s, unpatched 6.1 %s" % (name, r["exclusive"][0], r[base_col][0]))
        table.append("| `%s` | %s |" % (name, " | ".join(row)))
    table.append("| **totals** | " + " | ".join(
        " ".join("%s %d" % (k, tot[c][k]) for k in ("pass", "fail", "skip", "timeout", "mismatch")
                 if tot[c][k]) for c in order) + " |")
    md.extend(table)
    md.append("")
    md.append("## Results other than pass, and why\n")
    for (pol, name), (exp, why) in reasons.items():
        md.append("- `%s` (%s): %s. %s" % (name, pol, exp, why))
    md.append("")
    md.append("## Mismatches with the expectations\n")
    md.extend(["- " + m for m in mismatches] or ["None."])
    md.append("")
    md.append("## exclusive against unpatched 6.1\n")
    if base_col is None:
        md.append("Not compared: no run on the base kernel (make run VARIANT=base PROFILE=vmtests).")
    else:
        md.extend(["- " + d for d in differ] or
                  ["Same result on all %d invocations." % sum(
                      1 for r in cells.values() if "exclusive" in r and base_col in r)])
    md.append("")
    with open(os.path.join(rdir, "vm-selftests.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(rdir, "vm-selftests.tsv"), "w", encoding="utf-8") as f:
        f.write("variant\tcolumn\tinvocation\tresult\texpected\tseconds\n" + "\n".join(rows) + "\n")
    matrix = os.path.join(rdir, "matrix.md")
    if os.path.exists(matrix):
        with open(matrix, "a", encoding="utf-8") as f:
            f.write("\n## 6.1 mm selftests (vm-selftests.md)\n\n")
            f.write("\n".join(table) + "\n")
    verdict = "%d invocations, %d mismatches, exclusive vs unpatched 6.1: %s" % (
        len(cells), len(mismatches),
        "not compared" if base_col is None else ("%d differ" % len(differ)))
    print(os.path.join(os.path.abspath(rdir), "vm-selftests.md"))
    print(verdict)
    # Nothing compared is not a pass: without the unpatched kernel's column
    # the claim "exclusive == unpatched 6.1" has no evidence.
    return 1 if mismatches or differ or base_col is None else 0


if __name__ == "__main__":
    sys.exit(main())
