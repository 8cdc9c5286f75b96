#!/usr/bin/env python3
"""scripts/upstream_report.py RESULTS_DIR [EXPECT_TSV]

Turn the UPSTREAM-* lines that guest/upstream_suite.sh prints (profile
upstream, issue 7) in RESULTS_DIR/*.log into
  RESULTS_DIR/upstream.md          per-policy totals, failing cases with
                                   reasons, the per-case matrix
  RESULTS_DIR/upstream-totals.txt  one line per (run, policy, suite)
  RESULTS_DIR/upstream-cases.tsv   run, suite, case, one result per policy
and append the totals to RESULTS_DIR/matrix.md (the scenario matrix) when
it exists. Prints the path of upstream.md; exit 1 when no run had upstream
results or when a run's failing set differs from the expectations.
"""
import collections
import datetime
import glob
import os
import re
import sys

POLICIES = ["exclusive", "refcount", "mapcount"]
KV = re.compile(r"(\w+)=(\S+)")


def parse_kv(line):
    head, _, name = line.partition(" name=")
    d = dict(KV.findall(head))
    if name:
        d["name"] = name.rstrip("\n")
    return d


def load_expect(path):
    exp = collections.defaultdict(dict)  # (policy, suite) -> {case: reason}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 4:
                continue
            pols = POLICIES if cols[0] == "all" else [cols[0]]
            for p in pols:
                exp[(p, cols[1])][cols[2]] = cols[3]
    return exp


def main():
    rdir = sys.argv[1]
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    exp = load_expect(sys.argv[2] if len(sys.argv) > 2 else
                      os.path.join(top, "tests/expect/upstream.tsv"))
    runs = {}
    for log in sorted(glob.glob(os.path.join(rdir, "*.log"))):
        run = os.path.basename(log)[:-4]
        cases = collections.OrderedDict()  # (suite, name) -> {policy: result}
        totals, missing, kernel, bad = {}, [], "?", {}
        policy = None
        with open(log, encoding="utf-8", errors="replace") as f:
            for line in f:
                s = line.strip()
                m = re.match(r"COWTEST-BOOT kernel=(\S+)", s)
                if m:
                    kernel = m.group(1)
                m = re.match(r"# policy=(\w+) test=", s)
                if m:
                    policy = m.group(1)
                m = re.match(r"(not )?ok \d+ - (\w+)/gup_test_badinput", s)
                if m:
                    bad[m.group(2)] = "fail" if m.group(1) else "pass"
                if s.startswith("# UPSTREAM-CASE "):
                    d = parse_kv(s)
                    cases.setdefault((d["suite"], d["name"]), {})[d["policy"]] = d["result"]
                elif s.startswith("# UPSTREAM-TOTAL "):
                    d = parse_kv(s)
                    totals[(d["policy"], d["suite"])] = d
                elif s.startswith("# UPSTREAM-MISSING "):
                    missing.append(parse_kv(s))
                elif s.startswith("# UPSTREAM-INCOMPLETE "):
                    d = parse_kv(s)
                    totals.setdefault((d["policy"], d["suite"]), {})["incomplete"] = "yes"
        del policy
        if totals:
            runs[run] = (kernel, cases, totals, missing, bad)
    if not runs:
        print("no upstream results in " + rdir)
        return 1

    ok = True
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    md, tot_lines, case_lines = [], [], []
    md.append("# Upstream COW selftests under every policy\n")
    md.append("linux-source-6.12's tools/testing/selftests/mm/cow.c and gup_longterm.c, "
              "built unmodified (scripts/upstream.sh), run in profile `upstream` "
              "(swap, 2 MiB hugetlb pages, THP always); expected failures: "
              "tests/expect/upstream.tsv. Date %s, results %s.\n" % (date, os.path.abspath(rdir)))
    for run, (kernel, cases, totals, missing, bad) in runs.items():
        md.append("## %s (kernel %s)\n" % (run, kernel))
        md.append("| policy | suite | pass | fail | skip | xfail | R/O-pin cases run | "
                  "unexpected fail | expected fail missing | bad-input test |")
        md.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for p in POLICIES:
            for suite in ("cow", "gup_longterm"):
                t = totals.get((p, suite))
                if t is None:
                    md.append("| %s | %s | (no result) | | | | | | | |" % (p, suite))
                    ok = False
                    continue
                if t.get("incomplete") or t.get("unexpected", "0") != "0" or t.get("missing", "0") != "0":
                    ok = False
                md.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    p, suite, t.get("pass", "?"), t.get("fail", "?"), t.get("skip", "?"),
                    t.get("xfail", "?"), t.get("ropin_ran", "?"), t.get("unexpected", "?"),
                    t.get("missing", "?") + (" (INCOMPLETE)" if t.get("incomplete") else ""),
                    bad.get(p, "-")))
                tot_lines.append("%s %s %s pass=%s fail=%s skip=%s xfail=%s ropin_ran=%s "
                                 "unexpected=%s missing=%s kernel=%s" % (
                                     run, p, suite, t.get("pass"), t.get("fail"), t.get("skip"),
                                     t.get("xfail"), t.get("ropin_ran"), t.get("unexpected"),
                                     t.get("missing"), kernel))
        md.append("")
        md.append("### Failing cases by policy\n")
        for p in POLICIES:
            failing = [(s, n) for (s, n), r in cases.items() if r.get(p) == "fail"]
            md.append("**%s**: %d failing%s\n" % (p, len(failing), "" if failing else "."))
            by_reason = collections.OrderedDict()
            for s, n in failing:
                reason = exp.get((p, s), {}).get(n, "UNEXPECTED (not in tests/expect/upstream.tsv)")
                by_reason.setdefault(reason, []).append("%s: %s" % (s, n))
            for reason, names in by_reason.items():
                md.append("- %s" % reason)
                for n in names:
                    md.append("  - `%s`" % n)
            md.append("")
        if missing:
            md.append("Expected failures that did not happen:\n")
            for d in missing:
                md.append("- %s %s: `%s`" % (d["policy"], d["suite"], d["name"]))
            md.append("")
        md.append("### Every case\n")
        md.append("| suite | case | exclusive | refcount | mapcount |")
        md.append("| --- | --- | --- | --- | --- |")
        for (s, n), r in cases.items():
            cells = [r.get(p, "-") for p in POLICIES]
            md.append("| %s | %s | %s |" % (s, n.replace("|", "\\|"), " | ".join(cells)))
            case_lines.append("\t".join([run, s, n] + cells))
        md.append("")

    with open(os.path.join(rdir, "upstream.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(rdir, "upstream-totals.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(tot_lines) + "\n")
    with open(os.path.join(rdir, "upstream-cases.tsv"), "w", encoding="utf-8") as f:
        f.write("run\tsuite\tcase\t" + "\t".join(POLICIES) + "\n")
        f.write("\n".join(case_lines) + "\n")
    matrix = os.path.join(rdir, "matrix.md")
    if os.path.exists(matrix):
        with open(matrix, "a", encoding="utf-8") as f:
            f.write("\n## Upstream COW selftests (upstream.md)\n\n")
            f.write("| run | policy | suite | totals |\n| --- | --- | --- | --- |\n")
            for line in tot_lines:
                w = line.split()
                f.write("| %s | %s | %s | %s |\n" % (w[0], w[1], w[2], " ".join(w[3:9])))
    print(os.path.join(os.path.abspath(rdir), "upstream.md") + ("" if ok else " (MISMATCH)"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
