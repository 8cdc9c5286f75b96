#!/usr/bin/env python3
"""scripts/report/vmtests_report.py RESULTS_DIR: the report of 6.1's own mm
selftests (profile vmtests: tools/testing/selftests/vm of the unpacked
tree) from the run's results.jsonl (scripts/report/results.py) and
judgement.jsonl (scripts/report/judge.py, which decides every invocation against
tests/expect/vm-selftests.tsv and compares exclusive with unpatched 6.1;
this only reports). Writes

  RESULTS_DIR/vm-selftests.md    one row per invocation, one column per
                                 kernel/policy, judged failures marked
  RESULTS_DIR/vm-selftests.tsv   variant, column, invocation, result,
                                 expected, seconds

and appends the table to RESULTS_DIR/matrix.md when it exists. A column is
a policy of a kernel with vm.cow_policy, or a kernel without it (variant
stock = unpatched 6.1, nocow), which runs the exclusive rule. Prints the path
of vm-selftests.md and one line of totals; exit 1 when there are no results.
"""
import collections
import datetime
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import judge  # noqa: E402

UNPATCHED = '6.1 (unpatched)'


def column(variant, res):
    if res.get('sysctl') == 'no':
        return UNPATCHED if variant == 'stock' else variant
    return res.get('policy', '?') + ('' if variant == 'cow' else ' (%s)' % variant)


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit('usage: vmtests_report.py RESULTS_DIR')
    rdir = sys.argv[1]
    exp = judge.load_expect(os.path.join(judge.TOP, 'tests', 'expect'))
    judged = judge.load_jsonl(os.path.join(rdir, 'judgement.jsonl'))
    fails = {}
    for c in judged:
        if c['suite'].startswith('vm-selftest') and c['verdict'] == 'fail':
            fails.setdefault(c['case'], []).append('%s %s: %s' % (c['run'], c['policy'], c['why']))
    cells = collections.OrderedDict()    # invocation -> {column: (result, rc, secs)}
    columns, kernels = [], {}
    for r in judge.load_jsonl(os.path.join(rdir, 'results.jsonl')):
        if r['kind'] != 'case' or not r['program'].startswith('vm_selftest'):
            continue
        res = r['result']
        col = column(r['variant'], res)
        if col not in columns:
            columns.append(col)
            kernels[col] = '%s %s' % (r['variant'], judge.run_meta(rdir, '%s-%s' % (r['variant'], r['profile']))[0])
        cells.setdefault(r['name'], {})[col] = (res.get('result', '?'), res.get('rc', '?'), res.get('secs', '?'))
    if not cells:
        print('no vm selftest results in ' + rdir)
        return 1
    order = [c for c in columns if c == UNPATCHED] + [p for p in judge.POLICIES if p in columns] + \
        [c for c in columns if c != UNPATCHED and c not in judge.POLICIES]
    tot = collections.defaultdict(collections.Counter)
    # A last column marks the judged failures, so that every row has the
    # header's width.
    table = ['| invocation | ' + ' | '.join(order) + ' | verdict |', '| --- |' + ' --- |' * (len(order) + 1)]
    rows = []
    for name, r in cells.items():
        row = []
        for c in order:
            if c not in r:
                row.append('-')
                continue
            res, rc, secs = r[c]
            tot[c][res] += 1
            e = judge.lookup(exp, 'vm-selftest', name, '*', 'vmtests', c.split()[0]
                             if c.split()[0] in judge.POLICIES else 'exclusive')
            row.append('%s %ss' % (res, secs))
            rows.append('\t'.join([kernels[c].split()[0], c, name, res, e['outcome'] if e else 'pass', secs]))
        table.append('| `%s` | %s | %s |' % (name, ' | '.join(row), '**judged failing**' if name in fails else ''))
    table.append('| **totals** | ' + ' | '.join(
        ' '.join('%s %d' % (k, tot[c][k]) for k in ('pass', 'fail', 'skip', 'timeout', 'crash', 'omitted') if tot[c][k])
        for c in order) + ' | |')
    md = ["# 6.1's own mm selftests under every policy\n",
          'tools/testing/selftests/vm of the unpacked linux-source-6.1 tree, built statically with '
          'its own Makefile (scripts/build/vmtests.sh), run by guest/adapters/vm_selftest.sh in profile `vmtests` '
          '(tests/groups/vmtests.list); a result is the exit status read as run_vmtests.sh reads it '
          '(0 pass, 4 skip, killed by a signal: crash, else fail; killed after 300 s: timeout; '
          'omitted: not run under this policy, for the reason its row gives). '
          'Judged by scripts/report/judge.py against tests/expect/vm-selftests.tsv; exclusive must give '
          'what unpatched 6.1 gives. Run %s, reported %s.\n' % (
              os.path.basename(os.path.normpath(rdir)),
              datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d')),
          'Kernels: ' + '; '.join('%s = %s' % (c, kernels[c]) for c in order) + '.\n']
    md += table + ['', '## Results other than pass, and why\n']
    md += ['- `%s` (%s): %s. %s' % (r['case'], r['policy'], r['outcome'], r['reason'])
           for r in exp if r['suite'] == 'vm-selftest']
    md += ['', '## Judged failures\n']
    md += ['- `%s`: %s' % (n, w) for n, ws in fails.items() for w in ws] or ['None.']
    with open(os.path.join(rdir, 'vm-selftests.md'), 'w', encoding='utf-8') as f:
        f.write('\n'.join(md) + '\n')
    with open(os.path.join(rdir, 'vm-selftests.tsv'), 'w', encoding='utf-8') as f:
        f.write('variant\tcolumn\tinvocation\tresult\texpected\tseconds\n' + '\n'.join(rows) + '\n')
    matrix = os.path.join(rdir, 'matrix.md')
    if os.path.exists(matrix):
        with open(matrix, 'a', encoding='utf-8') as f:
            f.write('\n## 6.1 mm selftests (vm-selftests.md)\n\n' + '\n'.join(table) + '\n')
    print(os.path.join(os.path.abspath(rdir), 'vm-selftests.md'))
    print('%d invocations in %d columns, %d judged failing' % (len(cells), len(order), len(fails)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
