#!/usr/bin/env python3
"""scripts/report/mutants_report.py OUT NAME...: judge the mutants of one make
test-mutants run (scripts/check/mutants.sh) and write OUT/mutants.md.

For each mutant NAME, OUT/NAME/ is its run directory (the .tap of each
profile; scripts/report/results.py parses it into results.jsonl and
scripts/report/judge.py judges it into judgement.jsonl), OUT/NAME.runs
holds "<profile> ok|FAILED" per run, OUT/NAME.expect the regular
expressions of tests/mutants/NAME.conf, and OUT/NAME.build exists when the
mutant could not be built.  A failing cell is named

  "<profile> <policy>/<program>: <case>"   a failing case (a scenario cell
                                           that never ran has program "-")
  "<profile> <policy>/<program>"           a program that failed with no
                                           failing case of its own
  "<profile> runner: <point>"              a failing runner point
  "<profile> run"                          the run failed (make run)

The mutant is caught when it has failing cells, every one matches an
expected expression, and every expression matches one.  Exit status 1 when
a mutant is not caught (or was not built, or never ran).
"""
import datetime
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The judged cells are read as the results model reads them.
from cowresults.model import load_jsonl  # noqa: E402


def failing_cells(rundir, runs):
    """Names of the failing cells of one mutant's runs, as the one judge
    (scripts/report/judge.py) finds them."""
    cells = []
    here = os.path.dirname(os.path.abspath(__file__))
    if os.path.isdir(rundir):
        subprocess.run([sys.executable, os.path.join(here, 'results.py'), rundir],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        if os.path.exists(os.path.join(rundir, 'results.jsonl')):
            subprocess.run([sys.executable, os.path.join(here, 'judge.py'), rundir],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    judged = load_jsonl(os.path.join(rundir, 'judgement.jsonl'), 'judgement')
    fails = [c for c in judged if c['verdict'] == 'fail']
    with_case = {(c['run'], c['policy'], c['program']) for c in fails if c['case'] != '-'}
    for c in fails:
        profile = c['run'].split('-', 1)[-1]
        if c['suite'] == 'runner' and c['policy'] == '-':
            cells.append('%s runner: %s' % (profile, c['case']))
        elif c['case'] != '-':
            cells.append('%s %s/%s: %s' % (profile, c['policy'], c['program'], c['case']))
        elif (c['run'], c['policy'], c['program']) not in with_case:
            cells.append('%s %s/%s' % (profile, c['policy'], c['program']))
    for profile, verdict in runs:
        if verdict != 'ok':
            cells.append('%s run' % profile)
    return cells


def read(path):
    return open(path).read() if os.path.exists(path) else ''


def main():
    if len(sys.argv) < 3 or not os.path.isdir(sys.argv[1]):
        sys.exit('usage: mutants_report.py OUT NAME... (OUT: a results/mutants-* directory)')
    out, names = sys.argv[1], sys.argv[2:]
    rows, uncaught = [], 0
    for m in names:
        desc = read(os.path.join(out, m + '.desc')).strip()
        expect = [l for l in read(os.path.join(out, m + '.expect')).splitlines() if l.strip()]
        runs = [tuple(l.split(None, 1)) for l in read(os.path.join(out, m + '.runs')).splitlines()
                if l.strip()]
        build = read(os.path.join(out, m + '.build')).strip()
        cells = failing_cells(os.path.join(out, m), runs)
        stray = [c for c in cells if not any(re.search(e, c) for e in expect)]
        unmet = [e for e in expect if not any(re.search(e, c) for c in cells)]
        if build and not runs:
            verdict = 'NOT BUILT (%s)' % build
        elif not runs:
            verdict = 'NOT RUN'
        elif not cells:
            verdict = 'NOT CAUGHT (nothing failed)'
        elif stray or unmet:
            verdict = 'WRONG CELLS'
        else:
            verdict = 'caught'
        uncaught += verdict != 'caught'
        rows.append((m, desc, verdict, cells, stray, unmet))
        print('%-14s %-11s %d failing cells%s%s' % (
            m, verdict.split(' (')[0], len(cells),
            '; not expected: ' + ', '.join(stray[:5]) if stray else '',
            '; expected but not failing: ' + ', '.join(unmet) if unmet else ''))
    with open(os.path.join(out, 'mutants.md'), 'w') as f:
        f.write('# Mutants: %s\n\n' % os.path.basename(os.path.normpath(out)))
        meta = []
        for m in names:
            for log in sorted(glob.glob(os.path.join(out, m, '*.log'))):
                k = open(log, errors='replace').read()
                kern = re.search(r'COWTEST-BOOT kernel=(\S+)', k)
                acc = re.search(r'accel=(\S+)', k)
                meta.append('%s: kernel %s, accelerator %s' % (
                    os.path.basename(log)[:-4], kern.group(1) if kern else '?', acc.group(1) if acc else '?'))
        commit = subprocess.run(['git', '-C', os.path.dirname(os.path.abspath(__file__)), 'describe',
                                 '--always', '--dirty'], capture_output=True, text=True,
                                check=False).stdout.strip() or '?'
        f.write('Generated by scripts/report/mutants_report.py from the runs in this directory, %s, '
                'at commit %s. Runs: %s.\n\n' % (
                    datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC'),
                    commit, '; '.join(meta) or 'none'))
        f.write('| mutant | what it breaks | verdict | failing cells |\n|---|---|---|---|\n')
        for m, desc, verdict, cells, stray, unmet in rows:
            shown = '<br>'.join(cells[:12]) + ('<br>... %d more' % (len(cells) - 12) if len(cells) > 12 else '')
            f.write('| %s | %s | %s | %s |\n' % (m, desc.replace('|', '/'), verdict, shown or '-'))
        f.write('\n')
        # The same, cells counted by program (what the README quotes).
        f.write('By program:\n\n| mutant | verdict | failing cells by program (count) |\n'
                '| --- | --- | --- |\n')
        for m, desc, verdict, cells, stray, unmet in rows:
            groups = {}
            for c in cells:
                k = c.split(': ', 1)[0]
                groups[k] = groups.get(k, 0) + 1
            f.write('| `%s` | %s | %s |\n' % (m, verdict.replace('|', '/'), '; '.join(
                '%s (%d)' % kv for kv in groups.items()) or '-'))
        f.write('\n')
        for m, desc, verdict, cells, stray, unmet in rows:
            f.write('## %s\n\n%s: %s\n\n' % (m, verdict, desc))
            for c in cells:
                f.write('- %s%s\n' % (c, '  (not expected)' if c in stray else ''))
            for e in unmet:
                f.write('- expected a failing cell matching `%s`, none failed\n' % e)
            f.write('\n')
    print('%d of %d mutants caught (%s)' % (len(names) - uncaught, len(names),
                                           os.path.join(out, 'mutants.md')))
    return 1 if uncaught else 0


if __name__ == '__main__':
    sys.exit(main())
