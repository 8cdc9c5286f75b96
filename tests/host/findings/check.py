#!/usr/bin/env python3
"""tests/host/findings/check.py: the Findings, the plots, the document checks
and make rfc on canned runs (make check). Each case prints "ok - WHAT" or
"not ok - WHAT: why"; exit 1 on any failure.

The canned runs here:
  test-20261206-042447/           a make test run cut from a real one (the
                                  cow kernel's scenario cells, a few
                                  upstream cases, the logs' banners), with
                                  cow-base's vmsplice-early-4k cells of run
                                  20261206-151937 added (a scenario 042447
                                  predates)
  bench-20261206-100000-0000000/  a made-up make bench run with its samples
                                  (make_bench.py; report.md and summary.txt
                                  by benchstat.py report)
  insn-20261206-110000-0000000/   a make bench-insn run of copy-1024 (insn.md
  insn-20261206-090000-0000000/   of a real one; the older with another total)
  patches/, tree/                 a two-patch series in format-patch files and
                                  the tree it applies to (make rfc)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, '..', '..', '..'))
PY = os.environ.get('SCIPY_PYTHON', '/usr/bin/python3')
RMD = os.path.join(TOP, 'scripts', 'report', 'results_md.py')
DOC = os.path.join(TOP, 'scripts', 'report', 'doccheck.py')
RUNS = ['test-20261206-042447', 'bench-20261206-100000-0000000', 'insn-20261206-090000-0000000',
        'insn-20261206-110000-0000000']
failed = 0


def result(ok, what, why=''):
    global failed
    print(('ok - %s' % what) if ok else ('not ok - %s: %s' % (what, why)))
    failed += not ok


def run(args, env=None, cwd=None):
    r = subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd)
    return r.returncode, r.stdout + r.stderr


def main():
    tmp = tempfile.mkdtemp()
    try:
        cases(tmp)
    finally:
        shutil.rmtree(tmp)
    return 1 if failed else 0


def cases(tmp):
    out = os.path.join(tmp, 'R.md')
    plots = os.path.join(tmp, 'docs', 'plots')
    dirs = [os.path.join(HERE, r) for r in RUNS]
    rc, o = run([PY, RMD, '--plots', plots, 'write', out] + dirs)
    if rc:
        result(False, 'Findings of canned runs', o.strip()[-300:])
        return
    text = open(out).read()
    head = '\n'.join(text.splitlines()[:80])
    want = [
        ('the three tables in the first 80 lines', all('### %s (Linux 6.1)' % t in head for t in
                                                        ('What breaks', 'What it costs', 'How sure'))),
        ('each naming its run', 'From run `20261206-042447` (make test' in head and
         'From run `bench-20261206-100000-0000000` (make bench' in head),
        ('what breaks: odirect-clear-refs lost-read under refcount, with its seed',
         re.search(r'^\| O_DIRECT and GUP references under clear_refs \| .* \| \*\*lost-read\*\*: '
                   r'odirect-clear-refs \(seed 010\)', head, re.M)),
        ('what breaks: upstream cow.c per policy', '| upstream cow.c, gup_longterm.c (6.12 selftests) |' in head),
        ('what it costs: reuse the same in every boot in all three policies against stock',
         re.search(r'^\| reuse-1024K \| page \| 1313 \| \+0\.23% \(same in every boot\) \| \+2\.97% '
                   r'\(same in every boot\) \| \+6\.63% \(same in every boot\) \|', head, re.M)),
        ('what it costs: an interval across boots', re.search(r'^\| fork-256K \| fork \| \d+ \| [-+]\d+\.\d\d% '
                                                             r'\[[-+]\d+\.\d\d, [-+]\d+\.\d\d\]', head, re.M)),
        ('what it costs: the newest bench-insn run of copy-1024',
         '+65.1 insn/page (`insn-20261206-110000-0000000`, an older series)' in head),
        ('how sure: Holm over this table', 'this cost table is one family: 21 comparisons' in head),
        ('the plots are linked', '[cost per policy and fault path](docs/plots/cost-6.1.svg)' in head and
         'docs/plots/redis-6.1.svg' in head),
    ]
    bad = [w for w, ok in want if not ok]
    result(rc == 0 and not bad, 'Findings of canned runs: ' + ', '.join(w for w, _ in want),
           o.strip().splitlines()[-1:] if rc else 'missing: ' + '; '.join(bad))
    svgs = [os.path.join(plots, f) for f in ('cost-6.1.svg', 'redis-6.1.svg')]
    okp = all(os.path.exists(s) and '<svg' in open(s).read(2000) and
              'bench-20261206-100000-0000000' in open(s).read() for s in svgs)
    result(okp, 'plots: cost per policy and fault path, Redis BGSAVE per policy and THP mode (SVG, naming the run)',
           'missing or not SVG: ' + ' '.join(svgs))
    # No gnuplot: one error line, nothing written.
    before = text
    nd = sorted(os.listdir(os.path.join(tmp, 'digests')))
    env = dict(os.environ, PATH=os.path.join(tmp, 'nobin'))
    os.makedirs(env['PATH'])
    rc, o = run([PY, RMD, '--plots', os.path.join(tmp, 'p2'), 'add', out, dirs[1]], env=env)
    result(rc == 2 and len(o.strip().splitlines()) == 1 and 'gnuplot not found' in o and
           open(out).read() == before and sorted(os.listdir(os.path.join(tmp, 'digests'))) == nd and
           not os.path.exists(os.path.join(tmp, 'p2')),
           'make report without gnuplot: one error line naming the package, nothing written', o.strip()[:200])
    readme_cases(tmp)
    rst_cases(tmp)
    rfc_cases(tmp, out)
    attribution_cases()


def attribution_cases():
    """The 6.12 attribution sentence (findings.attribution_text()) on a
    made-up cost table: a cost the tracking explains, one it does not, and
    one too small to attribute."""
    sys.path.insert(0, os.path.join(TOP, 'scripts', 'report'))
    from cowresults import findings

    def cell(d):
        return {'text': '%+.2f%% [%+.2f, %+.2f]' % (d, d - 0.1, d + 0.1), 'd': d}

    def row(bench, ex, nm, tr):
        return {'mode': 'det', 'bench': bench, 'size': 4096, 'nommid': cell(nm),
                'policies': {'exclusive': cell(ex), 'tracking': cell(tr)}}
    run_ = {'data': {'cost': [row('fork', 1.02, -0.14, 1.15), row('forkmthp16', 4.4, 2.0, 2.4),
                              row('copy', 0.3, 0.1, 0.2)]}}
    s = ' '.join(findings.attribution_text({'attribution': findings.attribution(run_)}))
    want = ['fork-4096K +1.02% [+0.92, +1.12], of which the series without it -0.14% [-0.24, -0.04] '
            'and the tracking +1.15% [+1.05, +1.25]: the tracking\'s',
            "forkmthp16-4096K +4.40% [+4.30, +4.50], of which the series without it +2.00% [+1.90, +2.10] "
            "and the tracking +2.40% [+2.30, +2.50]: the series' own +2.00% is not the tracking's"]
    bad = [w for w in want if w not in s] + (['copy-4096K attributed'] if 'copy-4096K' in s else [])
    result(not bad, 'attribution: a default-policy cost the tracking explains, one it does not '
           '(said so), none below 0.5%', '; '.join(bad) or s[:200])


GOOD = ("The cost: run `insn-20261206-110000-0000000` (copy-1024): +65.1 instructions\n"
        "per page in all, of which `do_wp_page` +9.5 and `page_mapcount` +9.0.\n")


def readme_cases(tmp):
    d = os.path.join(tmp, 'digests')
    for what, text, rc_want, msg in (
            ('a README stating the newest run\'s figures passes', GOOD, 0, 'doccheck: ok: insn-20261206-110000-0000000 copy-1024: +65.1 in all, 2 functions'),
            ('a README whose total is not the run\'s fails', GOOD.replace('+65.1', '+18'), 1,
             'states +18 instructions per page in all, the run says +65.1'),
            ('a README whose function figure is not the run\'s fails', GOOD.replace('+9.5', '+4.5'), 1,
             'states `do_wp_page` +4.5, the run says +9.5'),
            ('a README citing a function the run does not list fails', GOOD.replace('page_mapcount', 'nosuch'), 1,
             '`nosuch` is not among the run\'s functions'),
            ('a README citing an older run than the newest fails', GOOD.replace('110000', '090000').replace('+65.1', '+46.7'), 1,
             'the newest make bench-insn run of copy-1024 is insn-20261206-110000-0000000'),
            ('a README citing a run the model does not have fails', GOOD.replace('110000', '120000'), 1,
             'which the results model (digests/) does not have'),
            ('a README that states no bench-insn cost fails', 'The cost is +18 instructions per copy.\n', 1,
             'states no make bench-insn cost')):
        p = os.path.join(tmp, 'README.md')
        open(p, 'w').write(text)
        rc, o = run([sys.executable, DOC, '--digests', d, 'readme', p])
        result(rc == rc_want and msg in o, 'doccheck readme: ' + what, 'exit %d: %s' % (rc, o.strip()[:300]))


def rst_cases(tmp):
    d = os.path.join(tmp, 'digests')
    rst = open(os.path.join(TOP, 'sysctl-docs', 'cow_policy.rst')).read()
    rows = open(os.path.join(TOP, 'scripts', 'check', 'cow_policy-rows.tsv')).read()
    odirect = re.search(r'^O_DIRECT read vs clear_refs +ok +read lost +ok *$', rst, re.M)
    cases_ = [('the kernel document\'s table against the canned make test run', rst, rows, 0, 'no scenario observes it')]
    if odirect:
        cases_ += [('a cell the matrix contradicts fails, naming the row and the run',
                    rst.replace(odirect.group(0), odirect.group(0).replace('read lost', 'ok       ')), rows, 1,
                    '"O_DIRECT read vs clear_refs" (odirect-clear-refs) disagrees with run 20261206-042447: '
                    'refcount: the document says ok, cow-swap observed lost-read')]
    cases_ += [('a pending row that agrees now fails',
                rst, rows.replace('odirect-clear-refs\toutcome\t\t', 'odirect-clear-refs\toutcome\tpending\t'), 1,
                'agrees with run 20261206-042447 now: drop its pending mark'),
               ('a row of the table that no scenario is mapped to fails',
                rst, '\n'.join(l for l in rows.splitlines() if not l.startswith('KSM page, last')), 1,
                'row "KSM page, last mapping writes" is not in scripts/check/cow_policy-rows.tsv')]
    for what, text, rws, rc_want, msg in cases_:
        p, r = os.path.join(tmp, 'doc.rst'), os.path.join(tmp, 'rows.tsv')
        open(p, 'w').write(text)
        open(r, 'w').write(rws)
        rc, o = run([sys.executable, DOC, '--digests', d, 'rst', p, r])
        result(rc == rc_want and msg in o, 'doccheck rst: ' + what, 'exit %d: %s' % (rc, o.strip()[:300]))
    result(bool(odirect), 'doccheck rst: the document has the O_DIRECT row the mismatch case edits',
           'no "O_DIRECT read vs clear_refs  ok  read lost  ok" row in sysctl-docs/cow_policy.rst')


def rfc_cases(tmp, results_md):
    """make rfc on the canned series: the cover letter and the patches parse
    as mbox, carry RFC, the cover letter carries the Findings, and git am
    applies the series to the canned tree."""
    rfc = os.path.join(TOP, 'scripts', 'report', 'rfc.py')
    if not os.path.exists(rfc):
        return
    od = os.path.join(tmp, 'rfc')
    env = dict(os.environ, GIT_AUTHOR_NAME='x', GIT_AUTHOR_EMAIL='x@example.org',
               GIT_COMMITTER_NAME='x', GIT_COMMITTER_EMAIL='x@example.org')
    rc, o = run([PY, rfc, '--patches', os.path.join(HERE, 'patches'), '--digests', os.path.join(tmp, 'digests'),
                 '--out', od, '--from', 'Jane Doe <jane@kernel.org>', '--base', '6.1.192-3'], env=env)
    if rc:
        result(False, 'make rfc on the canned series', o.strip()[-300:])
        return
    import email
    files = sorted(os.listdir(od))
    msgs = [email.message_from_string(open(os.path.join(od, f)).read()) for f in files]
    subj = [m['Subject'] for m in msgs]
    cover = open(os.path.join(od, files[0])).read()
    ok = (len(files) == 3 and files[0].startswith('0000-cover-letter') and
          subj[0].startswith('[RFC PATCH 0/2] ') and subj[1].startswith('[RFC PATCH 1/2] ') and
          all(m['From'] == 'Jane Doe <jane@kernel.org>' for m in msgs) and
          'Base: Debian linux-source-6.1 6.1.192-3,' in cover and
          'What breaks (Linux 6.1)' in cover and 'What it costs (Linux 6.1)' in cover and
          'odirect-clear-refs' in cover)
    result(ok, 'make rfc: a cover letter (RFC PATCH 0/2, the sender, the Debian base, the Findings) and the '
               'patches as mbox messages', 'subjects %s' % subj)
    tree = os.path.join(tmp, 'tree')
    shutil.copytree(os.path.join(HERE, 'tree'), tree)
    for c in (['git', 'init', '-q'], ['git', 'add', '-A'], ['git', 'commit', '-q', '-m', 'base']):
        run(c, env=env, cwd=tree)
    rc, o = run(['git', 'am', '-q'] + [os.path.join(od, f) for f in files[1:]], env=env, cwd=tree)
    _, log = run(['git', 'log', '--format=%s'], env=env, cwd=tree)
    result(rc == 0 and len(log.splitlines()) == 3, 'make rfc: git am applies its patches to the canned tree',
           o.strip()[-200:])
    run(['git', 'am', '--abort'], env=env, cwd=tree)
    # The same on a tree whose file the first patch's context no longer
    # matches: git am refuses, so the case above can fail.
    bad = os.path.join(tmp, 'badtree')
    shutil.copytree(os.path.join(HERE, 'tree'), bad)
    with open(os.path.join(bad, 'mm', 'demo.c'), 'w') as fh:
        fh.write('int demo_reuse(void)\n{\n\treturn 0;\n}\n')
    for c in (['git', 'init', '-q'], ['git', 'add', '-A'], ['git', 'commit', '-q', '-m', 'base']):
        run(c, env=env, cwd=bad)
    rc, o = run(['git', 'am', '-q'] + [os.path.join(od, f) for f in files[1:]], env=env, cwd=bad)
    result(rc != 0 and 'patch does not apply' in o, 'make rfc: git am refuses its patches on a tree they do not fit',
           'exit %d: %s' % (rc, o.strip()[-200:]))


if __name__ == '__main__':
    sys.exit(main())
