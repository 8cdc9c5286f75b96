#!/usr/bin/env python3
"""scripts/report/results_md.py: RESULTS.md, the committed summary of runs.

  write OUT.md RUNDIR...   the runs into a new OUT.md (make report RUN="...")
  add OUT.md RUNDIR...     the runs into the existing OUT.md, keeping its
                           other runs (make report ADD="..."): the runs
                           behind a committed RESULTS.md need not be here
  check FILE.md            validate a RESULTS.md
  options (before the command): --digests DIR (default: OUT's directory's
  digests/), --plots DIR (write the plots there, gnuplot, and link them)

Every RUNDIR is read once into the results model (scripts/report/cowresults:
make test, make bench, make bench-insn, make test-mutants, make stall-probe,
make soak, told apart by content), whose digest, digests/<run>.json, is
committed with RESULTS.md: write keeps the digests of its runs only, add
adds to them; a RESULTS.md of the earlier layout (no digests) is read back
section by section, so no run is lost. RESULTS.md is a view of the
digests:

  ## Findings        per kernel line, three tables (what breaks, what it
                     costs, how sure) from the newest run of each kind of
                     the current series (cowresults.findings), within the
                     first 80 lines
  ## COMMAND: RUN    the newest run of each kind in full, its first line
                     the provenance line
                       Run: ID · date: ISO · kernel: RELEASE (VARIANTS) ·
                       commit: C · accelerator: A · command: COMMAND
  ## History         every older run, one line: run, date, commit, verdict,
                     its series against the current one
  ## Legends         every kind of table
  ## Runs            every run, its command and directory

Nothing depends on the time of rendering. write and add check what they
rendered as check does, then write the digests and OUT atomically; bad
input: one error line, exit 2, nothing written. check: "FILE: N sections,
H history lines, runs: ID..." and exit 0, or every problem and exit 1.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cowresults import findings as findmod  # noqa: E402
from cowresults import model, store  # noqa: E402
from cowresults import series as seriesmod  # noqa: E402
from cowresults.model import COMMANDS, PROV_KEYS, parse_prov  # noqa: E402,F401
from cowresults.util import (DELIM, POLICIES, BadInput, atomic_write, embed, esc,  # noqa: E402,F401
                             first_line, read, read_env, run_name, split_row, table,
                             tables_under)

FINDINGS_LINES = 80
INSN_ROWS = 12
SECTION_HEAD = re.compile(r'^## (make [a-z-]+): (\S+)$')
OTHER_HEADS = ('## Findings', '## History', '## Legends', '## Runs')


# ---- the sections: views of one run -------------------------------------------------
def prov_lines(run):
    return ['## %s: %s' % (run['command'], run['id']), '',
            'Run: %s · date: %s · kernel: %s · commit: %s · accelerator: %s · command: %s' % (
                run['id'], run['date'], run['kernels'], run['commit'], run['accel'], run['command']), '']


def cases_line(line):
    """The guests' own count, without numbers that read as failures: what
    an observation means is the judge's."""
    m = re.match(r'^(\d+) cases observed \(.*\) of (\d+) program runs in (\d+) guest runs', line)
    if not m:
        return line
    return ('%s cases observed in %s program runs of %s guest runs (a case a guest reports as not ok '
            'is an observation, e.g. an upstream case expected to fail: the judge decides)' % m.groups())


def matrix_view(data):
    """The scenario matrix from the model: one row per scenario and guest
    run, one column per policy; an outcome that loses or leaks data marked
    with the reason it is expected, a judged failure as **FAIL**."""
    sc = [c for c in data.get('scenario', []) if c.get('outcome') is not None]
    if not sc:
        return None
    cell = {}
    order = []
    for c in sc:
        k = (c['case'], c['run'])
        if k not in cell:
            cell[k] = {}
            order.append(k)
        cnt = ' '.join('%s=%s' % kv for kv in sorted(c['counters'].items()))
        o = c['outcome'] + (' <sub>%s</sub>' % cnt if cnt else '')
        if c['verdict'] == 'fail':
            o = '**FAIL** %s (%s)' % (o, c['why'])
        elif c['outcome'] in findmod.BAD:
            o = 'expected %s (%s)' % (o, findmod.short_reason(c['why']) or 'tests/expect')
        cell[k][c['policy']] = o
    first = {}
    for case, _ in order:
        first.setdefault(case, len(first))
    rows = sorted(order, key=lambda k: (first[k[0]], k[1]))
    return (['From the results model (results.jsonl and judgement.jsonl): one row per scenario and '
             'guest run, one column per policy; counters are /proc/vmstat deltas without the `cow_` '
             'prefix; "expected leak (seed 000)": the outcome its row expects, with the seed or commit '
             'of the reason.', ''] +
            table(['scenario', 'run'] + list(POLICIES),
                  [[case, run_name(run)] + [cell[(case, run)].get(p, '-') for p in POLICIES]
                   for case, run in rows]))


def compact_matrix(data):
    """Scenarios by policies from the judged cells, for a run whose cases
    are not at hand."""
    import collections
    scn = data.get('scenario', [])
    if not scn:
        return ['No scenario cells were judged.', '']
    pols = [p for p in POLICIES if any(c['policy'] == p for c in scn)]
    pols += sorted({c['policy'] for c in scn} - set(pols))
    rows = collections.OrderedDict()
    for c in scn:
        rows.setdefault(c['case'], []).append(c)

    def verdicts(cs):
        n = collections.Counter(c['verdict'] for c in cs)
        return ', '.join('%s %d' % ('**FAIL**' if v == 'fail' else v, n[v]) for v in sorted(n)) or '-'
    return (['Built from judgement.jsonl (the run has no matrix.md): the verdicts of '
             'each scenario under each policy, counted over its runs.', ''] +
            table(['scenario', 'runs'] + pols,
                  [[case, ' '.join(sorted({run_name(c['run']) for c in cs}))] +
                   [verdicts([c for c in cs if c['policy'] == p]) for p in pols]
                   for case, cs in rows.items()]))


def upstream_view(data):
    """Upstream's suites per policy and suite: the failures split into those
    of unpatched 6.1 and those of the policy, all expected unless judged."""
    ups = data.get('upstream') or []
    if not ups:
        return embed('Upstream COW selftests (linux-source-6.12 cow.c, gup_longterm.c)',
                     data.get('upstream_tables', []), data.get('upstream_captions', []))
    rows = []
    for u in ups:
        f = u['failing']
        base = sum(1 for x in f if x[2].startswith('6.1 base'))
        bad = sum(1 for x in f if x[1] == 'fail')
        rows.append([run_name(u['run']), u['policy'], u['suite'], u['counts'].get('pass', 0),
                     u['counts'].get('xfail', 0), base, len(f) - base - bad,
                     u['counts'].get('skip', 0), '**%d**' % bad if bad else 0])
    return embed('Upstream COW selftests (linux-source-6.12 cow.c, gup_longterm.c)', [table(
        ['run', 'policy', 'suite', 'pass', 'xfail', 'fail as unpatched 6.1 (expected)',
         'fail by the policy (expected)', 'skip', 'judged failing'], rows)])


def test_view(run):
    d = run['data']
    L = []
    for key, what in (('summary', 'Summary'), ('judge', 'Judge'), ('cases', 'Cases')):
        line = d['lines'].get(key, '')
        line = cases_line(line) if key == 'cases' else line
        L += ['- %s: %s' % (what, re.sub(r'^judge: ', '', line))] if line else []
    w = d.get('wall', {})
    if w.get('elapsed_s', '').isdigit():
        s = int(w['elapsed_s'])
        L += ['- Wall time: %d min %02d s (`%s`, %s host cores, from a %s)' % (
            s // 60, s % 60, w.get('command') or 'make test', w.get('host_cpus') or '?',
            w.get('build_state') or 'build directory as it was')] + (
            ['- ccache at the start: %s MiB' % w['ccache_mib']] if str(w.get('ccache_mib', '')).isdigit() else [])
    L += ['', '### Scenario matrix', '']
    mv = matrix_view(d)
    if mv:
        L += mv
    elif d.get('matrix_tables'):
        L += ['From matrix.md (scripts/report/judge.py): one row per scenario and guest run, one '
              'column per policy; counters are /proc/vmstat deltas without the `cow_` prefix.', '']
        L += [line for t in d['matrix_tables'] for line in t + ['']]
    else:
        L += compact_matrix(d)
    n = d.get('nfail', 0)
    L += embed('Judged failures (%d%s)' % (n, ', the first 30' if n > 30 else ''), [
        table(['run', 'policy', 'program', 'case', 'why'], d['fails'])] if n else [])
    L += upstream_view(d)
    return L + embed('6.1 mm selftests: unpatched 6.1 against each policy', d.get('vm_tables', []))


def bench_view(run):
    d = run['data']
    L = ['**QUICK smoke run: not a measurement.**', ''] if d.get('quick') else []
    L += ['Produced by `%s`%s.' % (d.get('command', 'make bench'), d.get('how') and ': ' + d['how']), '']
    if d.get('elapsed_s', '').isdigit():
        s, b = int(d['elapsed_s']), d.get('build_s', '')
        L += ['Wall time: %d min %02d s from the start of `make bench`%s.' % (
            s // 60, s % 60, ', of which %d min %02d s building' % (int(b) // 60, int(b) % 60)
            if b.isdigit() else ' (builds included when it built)'), '']
    L += embed('Framework overhead: cow kernel (exclusive) against unpatched 6.1', d['overhead']) or [
        'No overhead table: the run has no unpatched (stock) kernel to compare with.', '']
    L += embed('False-positive COW under concurrent GUP', d['falsepos'])
    L += embed('Redis BGSAVE under a write load (Redis\'s own figures, medians of the boot medians '
               '[min..max of the boot medians])', d['redis_tables'])
    L += ['### Summary', ''] + d['summary_md'] if d['summary_md'] else []
    # make bench-compare A=<run> B=<this run> leaves compare-<A>.txt here.
    for name, text in d.get('compares', []):
        L += ['### Against %s (make bench-compare, %s)' % (name[8:-4], name), '',
              '```'] + text.rstrip('\n').splitlines() + ['```', '']
    return L


def mutants_view(run):
    d = run['data']
    L = []
    if d['mutants']:
        vs = list(d['mutants'].values())
        L += ['**%d of %d mutants caught.**' % (vs.count('caught'), len(vs)), '']
    w = d.get('wall') or {}
    if w.get('elapsed_s', '').isdigit():
        s = int(w['elapsed_s'])
        L += ['Wall time: %d min %d s for %s mutants, each built (ccache as it was) and booted on '
              'its profiles, %s host cores.' % (s // 60, s % 60, w.get('mutants') or len(d['mutants']),
                                                w.get('host_cpus') or '?'), '']
    return L + embed('Mutants', d['tables'], ['Each mutant, what it breaks, and the cells that caught it:',
                                              'Failing cells by program:'])


def stall_view(run):
    d = run['data']
    return ['A switch (the key column) flipped every 2 ms for %s s under copy-on-write faults '
            '(tests/guest/keyflip.c), %s boots per cell; %s; CONFIG_JUMP_LABEL: %s.' % (
                d['seconds'], d['repeat'], d['qemu'], d['jump_label']), ''] + \
        embed('Jump-label stall probe', d['tables'])


def soak_view(run):
    d = run['data']
    return ['The flip stress for %s minutes (`%s`): %s.' % (d['minutes'], d['command'],
                                                          d['judge'].replace('*', '\\*')),
            '', '```'] + d['lines'] + ['```', '']


def insn_view(run):
    d = run['data']
    return ['Instructions of `%s`\'s timed sections counted per guest address by the QEMU plugin '
            'benchmarks/insn/insncount.c (`%s`), cow (policy %s) against stock, one boot each '
            '(seed %s), every benchmark run as in a make bench det boot; the functions whose '
            'count per operation differs most (the whole list is in the run\'s insn.md).' % (
                d['insn'], d['command'], d['policy'], d['seed']), ''] + \
        embed('Instructions per operation', [d['tables'][0], d['tables'][1][:2 + INSN_ROWS]])


VIEWS = {'make test': test_view, 'make bench': bench_view, 'make test-mutants': mutants_view,
         'make stall-probe': stall_view, 'make soak': soak_view, 'make bench-insn': insn_view}


def section(run):
    """The full section of a run: from its model, or as RESULTS.md kept it."""
    if run['data'].get('section'):
        return [cases_line_md(l) for l in run['data']['section']] + ['']
    return prov_lines(run) + VIEWS[run['command']](run)


def cases_line_md(line):
    m = re.match(r'^- Cases: (.*)$', line)
    return '- Cases: ' + cases_line(m.group(1)) if m else line


# ---- the page ----------------------------------------------------------------------
def history_line(run, current):
    s = run.get('series') or {}
    if not s.get('sha256'):
        ser = 'series unknown'
    elif current.get('sha256') and s['sha256'] == current['sha256']:
        ser = 'the current series'
    else:
        ser = 'series %s, changed since' % ((s.get('changed_by') or '')[:7] or s['sha256'][:12])
    w = (run.get('data') or {}).get('wall', {})
    wall = ''
    if str(w.get('elapsed_s', '')).isdigit():
        wall = ' · %d min%s' % (int(w['elapsed_s']) // 60,
                                ', fresh build directory' if 'fresh' in (w.get('build_state') or '') else '')
    return '- `%s` · %s · %s · commit %s · %s · %s%s' % (
        run['id'], run.get('group') or run['command'], run['date'], run['commit'][:12],
        run.get('verdict') or '-', ser, wall)


LEGENDS = [
    '- Scenario outcomes: ' + '; '.join('**%s**: %s' % kv for kv in findmod.LEGEND_OUTCOMES) +
    '. "expected leak (seed 000)": an outcome that loses or leaks data and is the one its row of '
    'tests/expect/scenarios.tsv expects, with the seed or commit of its reason; **FAIL**: a cell '
    'the judge failed, with why. Counters (`<sub>`): /proc/vmstat deltas of the kernel\'s cow_* '
    'counters, without the prefix.',
    '- Verdicts: the judge decides every cell (pass, fail, skip by a rule of '
    'tests/expect/skips.tsv); a guest\'s "not ok" is an observation (an upstream case expected to '
    'fail is one), never a verdict.',
    '- Upstream selftests: pass, xfail (upstream\'s own expected failure), failures of unpatched 6.1 '
    '(tests/expect/upstream.tsv "all") and of the policy (its rows), and "judged failing": a case '
    'whose result is not the expected one.',
    '- Benchmarks: det mode: ' + findmod.UNITS['det'] + '; wall mode: ' + findmod.UNITS['wall'] +
    ', indicative only under TCG. Δ = (policy − stock) / stock (or − exclusive where it says '
    'so): positive is slower. [lo, hi]: the 95% interval across boots; "same in every boot" (=): '
    'every boot gave one figure. Marks after Holm\'s correction per table: * p<0.05, ** p<0.01, '
    '*** p<0.001; ~ or none: no difference proven; "(1b)", "one boot": no test, not evidence.',
    '- make bench-insn: guest instructions per operation counted by the QEMU plugin, cow '
    '(exclusive) − stock, exact (one boot a kernel, no interval needed: the same count every '
    'boot of a seed).',
    '- Mutants: caught = fails at least one cell, exactly the expected ones.',
    '- History: run, kind, date, commit, verdict, and whether the series it tested is the current '
    'one (the series\' identity: the sha256 of its kernel line\'s patches/<line>/series and its patches, recorded by the run '
    'or derived from its commit with git).',
]


def render(runs, current, plots=None):
    """RESULTS.md's text from RUNS ({id: Run})."""
    rl = list(runs.values())
    lines_ = sorted({l for r in rl for l in (r.get('lines') or ['6.1'])},
                    key=lambda x: (x != '6.1', x))
    # Each line's current series (patches/<line>/); CURRENT is the 6.1 line's.
    currents = {l: current if l == '6.1' else seriesmod.current(line=l) for l in lines_}
    L = ['# Results of cow-policy runs', '',
         'Generated by `make report` (scripts/report/results_md.py) from the results model of '
         'the runs listed under Runs, each with the directory it was read from, whose digests '
         'are committed in digests/; it must not be edited by hand: change the runs or the '
         'generator and run make report again. The current series: %s.' % '; '.join(
             'sha256 %s, patches/%s/ as of commit %s%s' % (
                 seriesmod.short(c.get('sha256', '')), l, (c.get('changed_by') or '?')[:7],
                 ' plus uncommitted changes' if c.get('uncommitted') else '')
             for l, c in sorted(currents.items(), key=lambda x: (x[0] != '6.1', x[0]))), '',
         '## Findings', '']
    fl = {}
    for line in lines_:
        f = findmod.build(rl, currents[line], line)
        fl[line] = f
        L += findmod.md(f, (plots or {}).get(line, ()))
    shown, hist = [], []
    newest = store.newest(rl)
    order = {c: i for i, c in enumerate(COMMANDS)}
    groups = sorted(newest, key=lambda g: (order.get(newest[g]['command'], 99), g))
    for g in groups:
        shown.append(newest[g])
    for r in sorted(rl, key=lambda r: (order.get(r['command'], 99), r.get('group', ''),
                                       [-ord(ch) for ch in r.newest_key()])):
        if r not in shown:
            hist.append(r)
    for r in shown:
        L += section(r)
    if hist:
        L += ['## History', '', 'Older runs, one line each (the newest run of each kind is above, in full):', '']
        L += [history_line(r, currents.get((r.get('lines') or ['6.1'])[0], current))
              for r in hist] + ['']
    L += ['## Legends', ''] + LEGENDS + ['']
    L += ['## Runs', '']
    L += ['- `%s`: %s, %s%s' % (r['id'], r['command'], r.get('dir') or '(directory not kept)',
                                '' if r.get('source') == 'run directory' else ' (from RESULTS.md)')
          for r in sorted(rl, key=lambda r: (order.get(r['command'], 99), r.newest_key()))]
    text = '\n'.join(L).rstrip('\n') + '\n'
    return re.sub(r'\n{3,}', '\n\n', text), fl


def load_dirs(dirs):
    out = []
    for d in dirs:
        d = d.rstrip('/') or '/'
        out.append(model.load(d))
    return out


def listed_dirs(text):
    """The run directories of an existing RESULTS.md, in order: its Runs
    list ("- `ID`: COMMAND, DIR"), or the make report command its header
    carried before that list named them."""
    m = re.search(r'make report RUN="([^"]*)"', text.split('\n## ', 1)[0])
    if m:
        return m.group(1).split()
    runs = text.split('\n## Runs\n', 1)[1] if '\n## Runs\n' in text else ''
    out = []
    for line in runs.splitlines():
        m = re.match(r'^- `[^`]+`: .*, (\S+?)( \(from RESULTS\.md\))?$', line)
        if m and '/' in m.group(1):
            out.append(m.group(1))
    return out


def legacy_runs(text, ddir_runs, old_dirs):
    """The runs of an existing RESULTS.md that have no digest: its sections
    of the earlier layout, read back."""
    out = {}
    if '\n## ' not in text:
        return out
    for sec in text.split('\n## ')[1:]:
        lines = ('## ' + sec).rstrip('\n').split('\n')
        if not SECTION_HEAD.match(lines[0]):
            continue
        prov = next((parse_prov(l) for l in lines if l.startswith('Run:')), None)
        if not prov or prov['run'] in ddir_runs:
            continue
        r = model.from_section(lines)
        r['dir'] = next((x for x in old_dirs if os.path.basename(x.rstrip('/')) == r['id']), '')
        out[r['id']] = r
    return out


def publish(out, runs, ddir, plots_dir=None, prune=False):
    current = seriesmod.current()
    plots = plotmod = None
    if plots_dir:
        from cowresults import plots as plotmod
        plots = plotmod.plan(runs, current, plots_dir, os.path.dirname(os.path.abspath(out)))
    text, fl = render(runs, current, plots)
    problems = check_text(text)[0]
    if problems:
        raise BadInput('the rendered %s would not pass check: %s' % (out, problems[0]))
    if plots_dir:
        plotmod.write(fl, plots, plots_dir)
    for r in runs.values():
        store.save(ddir, r)
    if prune:
        store.remove_others(ddir, runs)
    atomic_write(out, text)


def write(out, dirs, ddir, plots_dir=None):
    dirs = [d.rstrip('/') or '/' for d in dirs]
    runs = {r['id']: r for r in load_dirs(dirs)}
    publish(out, runs, ddir, plots_dir, prune=True)


def add(out, new_dirs, ddir, plots_dir=None):
    """Add the runs of NEW_DIRS to OUT (a run it has is replaced); the
    other runs are kept from their digests, or read back from OUT's
    sections when OUT predates the digests."""
    text = read(out)
    if not text:
        raise BadInput('%s: no such file or empty (make report RUN=... writes a new one)' % out)
    problems = (check_text if '\n## Findings\n' in text else legacy_problems)(text)[0]
    if problems:
        raise BadInput('%s does not pass check: %s' % (out, problems[0]))
    runs = store.load_all(ddir)
    # A run known only from a kept section is read back from it again: what
    # the model reads of a section may have grown since.
    for rid, r in list(runs.items()):
        if r.get('source') == 'RESULTS.md section' and r['data'].get('section'):
            runs[rid] = model.from_section(r['data']['section'])
            runs[rid]['dir'] = r.get('dir', '')
    dirs = listed_dirs(text)
    runs.update(legacy_runs(text, runs, dirs))
    for r in load_dirs(new_dirs):
        runs[r['id']] = r
    publish(out, runs, ddir, plots_dir)


# ---- check --------------------------------------------------------------------------
def check_text(text):
    """(problems, sections, run ids) of a RESULTS.md."""
    problems, sections = [], []
    lines = text.splitlines()
    head = text.split('\n## ', 1)[0]
    if not text.startswith('# '):
        problems.append('line 1: not a "# " title')
    if 'make report' not in head or 'not be edited by hand' not in head:
        problems.append('header: does not say it is generated by make report and must not be '
                        'edited by hand')
    # The Findings: three tables within the first FINDINGS_LINES lines.
    fi = [i for i, l in enumerate(lines) if l == '## Findings']
    if not fi:
        problems.append('no "## Findings" section')
    else:
        for what in ('What breaks', 'What it costs', 'How sure'):
            at = [i for i, l in enumerate(lines) if l.startswith('### %s' % what)]
            if not at:
                problems.append('Findings: no "### %s" table' % what)
                continue
            i = at[0]
            end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith('#')), len(lines))
            tab = [j for j in range(i, end) if lines[j].startswith('|')]
            if not tab and not any(lines[j].startswith('No make ') for j in range(i, end)):
                problems.append('Findings: "### %s" has no table' % what)
            elif (tab[-1] if tab else i) + 1 > FINDINGS_LINES:
                problems.append('Findings: the "%s" table ends on line %d, after line %d' % (
                    what, (tab[-1] if tab else i) + 1, FINDINGS_LINES))
    # "123 not ok" reads as failures in a run that passed.
    for n, l in enumerate(lines, 1):
        if re.search(r'\b\d+ not ok\b', l):
            problems.append('line %d: a count of "not ok" (the judge decides; say what it means)' % n)
    cur = tab = None
    hist, listed = [], []
    in_hist = in_runs = False
    for n, line in enumerate(lines, 1):
        if line.startswith('## '):
            in_hist = line == '## History'
            in_runs = line == '## Runs'
            cur = None
            if SECTION_HEAD.match(line):
                cur = {'title': line[3:].strip(), 'prov': None, 'line': n}
                sections.append(cur)
            elif line not in OTHER_HEADS:
                problems.append('line %d: "%s" is neither a run section ("## make ...: RUN") nor '
                                'one of %s' % (n, line, ', '.join(OTHER_HEADS)))
            continue
        if in_hist and line.startswith('- `'):
            hist.append(re.match(r'^- `([^`]+)`', line).group(1))
        if in_runs and line.startswith('- `'):
            listed.append(re.match(r'^- `([^`]+)`', line).group(1))
        if cur is not None and cur['prov'] is None and line.strip():
            f = cur['prov'] = parse_prov(line) if line.startswith('Run:') else None
            empty = [k for k in PROV_KEYS if f is not None and not f[k]]
            if f is None:
                cur['prov'] = {}
                problems.append('line %d: section "%s" does not start with a provenance line ("Run: '
                                '... · date: ... · kernel: ... · commit: ... · accelerator: ... · '
                                'command: ...")' % (n, cur['title']))
            elif empty:
                problems.append('line %d: the provenance line of "%s" has an empty %s' % (
                    n, cur['title'], ', '.join(empty)))
            elif f['command'] not in COMMANDS:
                problems.append('line %d: command "%s" is none of %s' % (
                    n, f['command'], ', '.join(COMMANDS)))
        if not line.startswith('|'):
            tab = None
        elif tab is None:
            tab = {'line': n, 'cols': len(split_row(line)), 'rows': 1}
        else:
            tab['rows'] += 1
            if tab['rows'] == 2 and not DELIM.match(line.strip()):
                problems.append('line %d: the table of line %d has no delimiter row' % (n, tab['line']))
            if len(split_row(line)) != tab['cols']:
                problems.append('line %d: %d columns, the table of line %d has %d' % (
                    n, len(split_row(line)), tab['line'], tab['cols']))
    runs = [s['prov']['run'] for s in sections if s['prov']]
    problems += ['run %s has %d sections' % (r, runs.count(r)) for r in sorted(set(runs)) if runs.count(r) > 1]
    problems += ['run %s has a section and a history line' % r for r in runs if r in hist]
    if not listed:
        problems.append('no "## Runs" list ("- `RUN-ID`: ...")')
    problems += ['Runs: run %s has no section or history line' % r for r in listed
                 if r not in runs and r not in hist]
    problems += ['run %s is not listed under Runs' % r for r in runs + hist if r not in listed]
    cited = re.findall(r'^From run `([^`]+)`', text, re.M)
    problems += ['Findings: run %s is not listed under Runs' % r for r in cited if r not in listed]
    problems += [] if sections else ['no sections ("## make ...: RUN")']
    return problems, sections, runs + hist


def legacy_problems(text):
    """The problems of a RESULTS.md of the layout before the Findings (one
    section per run, the runs listed in the header), which add reads back."""
    problems = []
    head = text.split('\n## ', 1)[0]
    if not text.startswith('# ') or 'make report RUN=' not in head:
        problems.append('header: not a RESULTS.md written by make report')
    listed = re.findall(r'^- `([^`]+)`', head, re.M)
    runs = []
    for sec in text.split('\n## ')[1:]:
        lines = sec.split('\n')
        prov = next((parse_prov(l) for l in lines[1:] if l.strip()), None)
        if prov is None:
            problems.append('section "%s" does not start with a provenance line' % lines[0])
        else:
            runs.append(prov['run'])
    problems += ['header: run %s has no section' % r for r in listed if r not in runs]
    problems += ['run %s has %d sections' % (r, runs.count(r)) for r in sorted(set(runs)) if runs.count(r) > 1]
    return problems, [], runs


def main(argv):
    ddir = plots_dir = None
    while argv and argv[0] in ('--digests', '--plots') and len(argv) > 1:
        if argv[0] == '--digests':
            ddir = argv[1]
        else:
            plots_dir = argv[1]
        argv = argv[2:]
    if len(argv) >= 3 and argv[0] in ('write', 'add'):
        try:
            (write if argv[0] == 'write' else add)(argv[1], argv[2:], ddir or store.default_dir(argv[1]),
                                                   plots_dir)
        except (BadInput, OSError) as e:
            print('results_md: error: %s' % e, file=sys.stderr)
            return 2
        return 0
    if len(argv) == 2 and argv[0] == 'check':
        if not os.path.isfile(argv[1]):
            print('%s: no such file' % argv[1])
            return 1
        problems, sections, runs = check_text(read(argv[1]))
        for p in problems:
            print('%s: %s' % (argv[1], p))
        if not problems:
            print('%s: %d sections, %d history lines, runs: %s' % (
                argv[1], len(sections), len(runs) - len(sections), ' '.join(runs)))
        return 1 if problems else 0
    print('usage: results_md.py [--digests DIR] [--plots DIR] write OUT.md RUNDIR... | '
          'add OUT.md RUNDIR... | check FILE.md', file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
