#!/usr/bin/env python3
"""scripts/report/compare_runs.py A B: do two make test runs agree, case by case?

Reads A/judgement.jsonl and B/judgement.jsonl (scripts/report/judge.py) and
A/results.jsonl and B/results.jsonl (scripts/report/results.py) and
compares:
  - every judged cell (run, policy, program, case) and its verdict;
  - every observed case (run, policy, program, case name) and its status.
Counter values and timings are not compared: they are measurements, and a
serial and a parallel run of the same commit may differ in them within
the judge's slack; numbers in case names (measurements too) are read as N.  The unpatched kernel's old variant name "base" counts
as "stock", so runs from before the rename compare.

Prints one line per difference (at most 40), then a summary line; exits 1
when anything differs or either run lacks its files.  make compare-runs
A=<dir> B=<dir> runs it.
"""
import json
import os
import re
import sys

LIST_MAX = 40


def load(rdir, name):
    path = os.path.join(rdir, name)
    if not os.path.exists(path):
        sys.exit('compare_runs: no %s (run make judge RUN=%s first)' % (path, rdir))
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def norm_name(name):
    """A case name without its measurements: a number printed in a name
    ("7786 flips", "MemFree 1963176 kB") differs from run to run."""
    return re.sub(r'\d+(\.\d+)?', 'N', name)


def norm_run(run):
    return 'stock-' + run[len('base-'):] if run.startswith('base-') else run


def cells(rdir):
    """Verdict by (run, policy, program, case [#n]): a case name a program
    prints twice is told apart by its order."""
    out, seen = {}, {}
    for c in load(rdir, 'judgement.jsonl'):
        key = (norm_run(c['run']), c['policy'], c['program'],
               '%s: %s' % (c['suite'], norm_name(c['case'])))
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            key = key[:3] + ('%s #%d' % (key[3], seen[key]),)
        out[key] = c['verdict']
    return out


def cases(rdir):
    out = {}
    for r in load(rdir, 'results.jsonl'):
        if r.get('kind') != 'case':
            continue
        variant = 'stock' if r['variant'] == 'base' else r['variant']
        key = ('%s-%s' % (variant, r['profile']), r['policy'], r['program'],
               '%s %s' % (r['n'], norm_name(r['name'])))
        out[key] = r['status']
    return out


def diff(what, a, b, lines):
    n = 0
    for k in sorted(set(a) | set(b)):
        va, vb = a.get(k, 'absent'), b.get(k, 'absent')
        if va != vb:
            n += 1
            lines.append('%s %s %s/%s: %s: A %s, B %s' % (what, k[0], k[1], k[2], k[3], va, vb))
    return n


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: compare_runs.py RUNDIR-A RUNDIR-B')
    a, b = sys.argv[1:]
    lines = []
    ca, cb = cells(a), cells(b)
    oa, ob = cases(a), cases(b)
    nd_cells = diff('cell', ca, cb, lines)
    nd_cases = diff('case', oa, ob, lines)
    for line in lines[:LIST_MAX]:
        print(line)
    if len(lines) > LIST_MAX:
        print('... %d more' % (len(lines) - LIST_MAX))
    print('compare: %d judged cells (A %d, B %d), %d differ; %d observed cases (A %d, B %d), %d differ'
          % (len(set(ca) | set(cb)), len(ca), len(cb), nd_cells,
             len(set(oa) | set(ob)), len(oa), len(ob), nd_cases))
    return 1 if nd_cells or nd_cases else 0


if __name__ == '__main__':
    sys.exit(main())
