#!/usr/bin/env python3
"""scripts/report/upstream_report.py RESULTS_DIR: the report of upstream's COW
selftests (linux-source-6.12's cow.c and gup_longterm.c, profile upstream)
from the run's results.jsonl (scripts/report/results.py) and judgement.jsonl
(scripts/report/judge.py, which decides every case against
tests/expect/upstream.tsv; this only reports). Writes

  RESULTS_DIR/upstream.md          per-policy totals, failing cases with
                                   their reasons, the per-case matrix
  RESULTS_DIR/upstream-totals.txt  one line per (run, policy, suite)
  RESULTS_DIR/upstream-cases.tsv   run, suite, case, one result per policy

and appends the totals to RESULTS_DIR/matrix.md when it exists. Prints the
path of upstream.md; exit 1 when the run has no upstream results.
"""
import collections
import datetime
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import judge  # noqa: E402

POLICIES = judge.POLICIES
ROPIN = ('R/O GUP pin', 'R/O GUP-fast pin', 'R/O longterm GUP pin', 'R/O longterm GUP-fast pin')


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit('usage: upstream_report.py RESULTS_DIR')
    rdir = sys.argv[1]
    exp = judge.load_expect(os.path.join(judge.TOP, 'tests', 'expect'))
    recs = judge.load_jsonl(os.path.join(rdir, 'results.jsonl'))
    verdict = {(c['run'], c['policy'], c['suite'], c['case']): c
               for c in judge.load_jsonl(os.path.join(rdir, 'judgement.jsonl')) if c['suite'].startswith('upstream/')}
    runs = collections.OrderedDict()
    for r in recs:
        if r['kind'] != 'case' or not r['program'].startswith('upstream_suite'):
            continue
        run = '%s-%s' % (r['variant'], r['profile'])
        suite = r['result'].get('suite', '?')
        runs.setdefault(run, collections.OrderedDict()).setdefault(
            (suite, r['name']), {})[r['policy']] = r['result'].get('result', '?')
    if not runs:
        print('no upstream results in ' + rdir)
        return 1
    md = ['# Upstream COW selftests under every policy\n',
          "linux-source-6.12's tools/testing/selftests/mm/cow.c and gup_longterm.c, built "
          'unmodified (scripts/build/upstream.sh), run in profile `upstream` (swap, 2 MiB hugetlb '
          'pages, THP always); judged by scripts/report/judge.py against tests/expect/upstream.tsv. '
          'Run %s, reported %s.\n' % (os.path.basename(os.path.normpath(rdir)),
                                      datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d'))]
    tot_lines, case_lines = [], []
    for run, cases in runs.items():
        kernel, accel = judge.run_meta(rdir, run)
        md.append('## %s (kernel %s, accelerator %s)\n' % (run, kernel, accel))
        md.append('| policy | suite | pass | fail | skip | xfail | R/O-pin cases run | judged failing |')
        md.append('| --- | --- | --- | --- | --- | --- | --- | --- |')
        for p in POLICIES:
            for suite in ('cow', 'gup_longterm'):
                mine = {n: r[p] for (s, n), r in cases.items() if s == suite and p in r}
                if not mine:
                    md.append('| %s | %s | (no result) | | | | | |' % (p, suite))
                    continue
                cnt = collections.Counter(mine.values())
                ropin = sum(1 for n, res in mine.items() if n.startswith(ROPIN) and res != 'skip')
                bad = sum(1 for (vr, vp, vs, _), c in verdict.items()
                          if vr == run and vp == p and vs == 'upstream/' + suite and c['verdict'] == 'fail')
                md.append('| %s | %s | %d | %d | %d | %d | %d | %d |' % (
                    p, suite, cnt['pass'], cnt['fail'], cnt['skip'], cnt['xfail'], ropin, bad))
                tot_lines.append('%s %s %s pass=%d fail=%d skip=%d xfail=%d ropin_ran=%d judged_failing=%d '
                                 'kernel=%s' % (run, p, suite, cnt['pass'], cnt['fail'], cnt['skip'],
                                                cnt['xfail'], ropin, bad, kernel))
        md.append('')
        md.append('### Failing cases by policy\n')
        for p in POLICIES:
            failing = [(s, n) for (s, n), r in cases.items() if r.get(p) == 'fail']
            md.append('**%s**: %d failing%s\n' % (p, len(failing), '' if failing else '.'))
            by_reason = collections.OrderedDict()
            for s, n in failing:
                e = judge.lookup(exp, 'upstream/' + s, n, run.split('-', 1)[0], 'upstream', p)
                by_reason.setdefault(e['reason'] if e else
                                     'UNEXPECTED (not in tests/expect/upstream.tsv)', []).append('%s: %s' % (s, n))
            for reason, names in by_reason.items():
                md.append('- %s' % reason)
                md.extend('  - `%s`' % n for n in names)
            md.append('')
        md.append('### Every case\n')
        md.append('| suite | case | exclusive | refcount | mapcount |')
        md.append('| --- | --- | --- | --- | --- |')
        for (s, n), r in cases.items():
            cells = []
            for p in POLICIES:
                v = verdict.get((run, p, 'upstream/' + s, n))
                cells.append(r.get(p, '-') + (' **(judged: %s)**' % v['why'] if v and v['verdict'] == 'fail' else ''))
            md.append('| %s | %s | %s |' % (s, n.replace('|', '\\|'), ' | '.join(cells)))
            case_lines.append('\t'.join([run, s, n] + [r.get(p, '-') for p in POLICIES]))
        md.append('')
    with open(os.path.join(rdir, 'upstream.md'), 'w', encoding='utf-8') as f:
        f.write('\n'.join(md) + '\n')
    with open(os.path.join(rdir, 'upstream-totals.txt'), 'w', encoding='utf-8') as f:
        f.write('\n'.join(tot_lines) + '\n')
    with open(os.path.join(rdir, 'upstream-cases.tsv'), 'w', encoding='utf-8') as f:
        f.write('run\tsuite\tcase\t' + '\t'.join(POLICIES) + '\n')
        f.write('\n'.join(case_lines) + '\n')
    matrix = os.path.join(rdir, 'matrix.md')
    if os.path.exists(matrix):
        with open(matrix, 'a', encoding='utf-8') as f:
            f.write('\n## Upstream COW selftests (upstream.md)\n\n')
            f.write('| run | policy | suite | totals |\n| --- | --- | --- | --- |\n')
            for line in tot_lines:
                w = line.split()
                f.write('| %s | %s | %s | %s |\n' % (w[0], w[1], w[2], ' '.join(w[3:9])))
    print(os.path.join(os.path.abspath(rdir), 'upstream.md'))
    return 0


if __name__ == '__main__':
    sys.exit(main())
