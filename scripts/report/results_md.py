#!/usr/bin/env python3
"""scripts/report/results_md.py: RESULTS.md, the committed summary of runs.

  write OUT.md RUNDIR...   render the runs into OUT.md (make report RUN="...")
  add OUT.md RUNDIR...     render the runs into the existing OUT.md, keeping its
                           other sections (make report ADD="..."): the runs
                           behind a committed RESULTS.md need not be here
  check FILE.md            validate a RESULTS.md

A RUNDIR is told apart by content: make test (judgement.jsonl, judge.txt or
summary.txt), make bench (meta.env with report.md or raw.json: benchstat.py),
make test-mutants (mutants.md or NAME.runs: mutants_report.py), make
stall-probe (meta.env saying so, report.md: scripts/flow/stall.sh). Each run is a
section "## COMMAND: RUN-ID" whose first line is its provenance,

  Run: ID · date: ISO · kernel: RELEASE (VARIANTS)[, ...] · commit: C · accelerator: A[, ...] · command: COMMAND

from meta.env, else from the run id (date), the logs' "# kernel: PATH
(RELEASE)" and "accel=" lines and accel.txt. Variant "base" is shown as
"stock". Only summary lines and tables are copied, never logs, and nothing
depends on the time of rendering. write checks what it rendered as check
does and replaces OUT.md atomically; bad input: one error line, exit 2, OUT.md
untouched. check: "FILE: N sections, runs: ID..." and exit 0, or every
problem and exit 1.
"""
import collections
import glob
import json
import os
import re
import sys
import tempfile

POLICIES = ('exclusive', 'refcount', 'mapcount')
COMMANDS = ('make test', 'make bench', 'make test-mutants', 'make stall-probe', 'make soak', 'make bench-insn')
CELL = ('run', 'policy', 'program', 'case', 'suite', 'verdict')
PROV_KEYS = ('run', 'date', 'kernel', 'commit', 'accelerator', 'command')
DELIM = re.compile(r'^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$')


class BadInput(Exception):
    pass


def read(path):
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            return f.read()
    except (FileNotFoundError, IsADirectoryError):
        return ''


def first_line(path):
    lines = read(path).strip().splitlines()
    return lines[0].strip() if lines else ''


def read_env(path):
    """The KEY=VALUE lines of a meta.env."""
    pairs = (l.split('=', 1) for l in read(path).splitlines() if '=' in l and not l.startswith('#'))
    return {k.strip(): v.strip() for k, v in pairs}


def run_name(run):
    """A variant or guest run VARIANT-PROFILE as shown: base is now stock."""
    v, dash, p = run.partition('-')
    return ('stock' if v == 'base' else v) + dash + p


def table(header, rows):
    esc = lambda c: str(c).replace('\n', ' ').replace('|', '\\|')  # noqa: E731
    return (['| ' + ' | '.join(header) + ' |', '|' + ' --- |' * len(header)] +
            ['| ' + ' | '.join(esc(c) for c in r) + ' |' for r in rows] + [''])


def split_row(line):
    s = line.strip()
    s = s[1:] if s.startswith('|') else s
    s = s[:-1] if s.endswith('|') and not s.endswith('\\|') else s
    return re.split(r'(?<!\\)\|', s)


def tables_under(text, heading):
    """(heading text, lines) of each table of markdown TEXT that has a data
    row and whose nearest heading above matches the regular expression
    HEADING."""
    found, head, cur = [], '', None
    for line in text.splitlines():
        head = line if line.startswith('#') else head
        if not line.startswith('|'):
            cur = None
        elif cur is None:
            cur = [line.rstrip()]
            if re.match(heading, head):
                found.append((head.lstrip('# ').strip(), cur))
        else:
            cur.append(line.rstrip())
    return [(h, t) for h, t in found if len(t) > 2]


def embed(title, tabs, captions=()):
    """A "### TITLE" subsection of the tables TABS, or nothing."""
    L = ['### ' + title, ''] if tabs else []
    for i, t in enumerate(tabs):
        L += ([captions[i], ''] if i < len(captions) else []) + t + ([''] if t[-1] else [])
    return L


def log_meta(path):
    """(variant, kernel release, accelerator) from a console log's banners."""
    text = read(path)
    v = re.search(r'^# cow-policy run .*\bvariant=(\S+)', text, re.M)
    k = (re.search(r'^# kernel: .*\((\S+)\)\s*$', text, re.M) or
         re.search(r'COWTEST-BOOT kernel=(\S+)', text))
    a = re.search(r'^# cow-policy run .*\baccel=(\S+)', text, re.M)
    return (v.group(1) if v else os.path.basename(path).split('-')[0],
            k.group(1) if k else '', a.group(1) if a else '')


def provenance(d, env, command, commit, logs=(), accels=()):
    """The run id, and the heading and provenance lines of its section."""
    run = env.get('run_id') or os.path.basename(os.path.normpath(d))
    m = re.search(r'(\d{4})(\d\d)(\d\d)-(\d\d)(\d\d)(\d\d)', run)
    date = env.get('date') or ('%s-%s-%sT%s:%s:%s' % m.groups() if m else 'unknown')
    kern = [(k[7:], v) for k, v in env.items() if k.startswith('kernel_') and v]
    acc = {v for k, v in env.items() if (k == 'accel' or k.startswith('accel_')) and v}
    metas = [log_meta(p) for p in logs] if not (kern and acc) else []
    kern = kern or [(v, k) for v, k, _ in metas if k]
    acc = acc or ({a for _, _, a in metas if a} | {first_line(p) for p in accels}) - {''}
    by = {}
    for v, rel in kern:
        by.setdefault(rel, set()).add(run_name(v))
    kernels = ', '.join('%s (%s)' % (rel, ' '.join(sorted(vs))) for rel, vs in sorted(by.items()))
    return run, ['## %s: %s' % (command, run), '',
                 'Run: %s · date: %s · kernel: %s · commit: %s · accelerator: %s · command: %s' % (
                     run, date, kernels or 'unknown (not recorded)', commit,
                     ', '.join(sorted(acc)) or 'unknown (not recorded)', command), '']


def compact_matrix(cells):
    """Scenarios by policies from judgement.jsonl, for a run without matrix.md."""
    scn = [c for c in cells if c.get('suite') == 'scenario']
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


def test_section(d):
    env = read_env(os.path.join(d, 'meta.env'))
    commit = env.get('project_commit') or (
        'unknown (not in meta.env)' if env else 'unknown (run predates meta.env)')
    run, L = provenance(d, env, 'make test', commit, sorted(glob.glob(os.path.join(d, '*.log'))),
                        [os.path.join(d, 'accel.txt')])
    for name, what in (('summary.txt', 'Summary'), ('judge.txt', 'Judge'), ('cases.txt', 'Cases')):
        line = first_line(os.path.join(d, name))
        L += ['- %s: %s' % (what, re.sub(r'^judge: ', '', line))] if line else []
    if env.get('elapsed_s', '').isdigit():
        s = int(env['elapsed_s'])
        L += ['- Wall time: %d min %02d s (`%s`, %s host cores, from a %s)' % (
            s // 60, s % 60, env.get('command', 'make test'), env.get('host_cpus', '?'),
            env.get('build_state', 'build directory as it was'))]
    try:
        cells = [json.loads(l) for l in read(os.path.join(d, 'judgement.jsonl')).splitlines() if l.strip()]
    except json.JSONDecodeError as e:
        raise BadInput('%s/judgement.jsonl: not JSON lines (%s)' % (d, e))
    if not all(isinstance(c, dict) and set(CELL) <= set(c) for c in cells):
        raise BadInput('%s/judgement.jsonl: a cell without one of %s' % (d, ', '.join(CELL)))
    mx = read(os.path.join(d, 'matrix.md'))
    tabs = [t for _, t in tables_under(mx, r'# Scenario matrix')]
    L += ['', '### Scenario matrix', '']
    if tabs:
        L += ['From matrix.md (scripts/report/judge.py): one row per scenario and guest run, one '
              'column per policy; counters are /proc/vmstat deltas without the `cow_` prefix.', '']
        L += [line for t in tabs for line in t + ['']]
    else:
        L += compact_matrix(cells)
    fails = [c for c in cells if c.get('verdict') == 'fail']
    L += embed('Judged failures (%d%s)' % (len(fails), ', the first 30' if len(fails) > 30 else ''), [
        table(['run', 'policy', 'program', 'case', 'why'],
              [[run_name(c['run']), c['policy'], c['program'], c['case'], c.get('why', '')]
               for c in fails[:30]])] if fails else [])
    up = read(os.path.join(d, 'upstream.md'))
    tabs = tables_under(up, r'## ') if up else tables_under(mx, r'## Upstream')
    L += embed('Upstream COW selftests (linux-source-6.12 cow.c, gup_longterm.c)',
               [t for _, t in tabs], ['Run %s:' % h for h, _ in tabs] if up else ())
    vm = read(os.path.join(d, 'vm-selftests.md'))
    tabs = tables_under(vm, r'# ') if vm else tables_under(mx, r'## 6\.1 mm selftests')
    return run, L + embed('6.1 mm selftests: unpatched 6.1 against each policy', [t for _, t in tabs])


def summary_tables(d, text):
    """benchstat.py's fixed-width summary.txt as markdown tables."""
    L, head, rows = [], None, []
    for n, line in enumerate(text.splitlines() + ['-- mode '], 1):
        if line.startswith('-- mode '):
            L += table(head, rows) if head else []
            L += ['Mode %s:' % line[8:], ''] if line[8:] else []
            head, rows = None, []
        elif line.startswith('===='):
            m = re.search(r'\((.*)\)\s*$', line)
            L += ['Summary (summary.txt): %s.' % m.group(1).replace('*', '\\*'), ''] if m else []
        elif line.strip():
            toks = [t.replace('*', '\\*') for t in re.findall(r'\S+(?: ~)?', line)]
            if head is None:  # old runs name the unpatched kernel "base"
                head = [re.sub(r'\bbase\b', 'stock', t) for t in toks]
            elif len(toks) != len(head):
                raise BadInput('%s/summary.txt:%d: %d columns, its header has %d' % (
                    d, n, len(toks), len(head)))
            else:
                rows.append(toks)
    return L


def bench_section(d):
    env = read_env(os.path.join(d, 'meta.env'))
    report, summary = read(os.path.join(d, 'report.md')), read(os.path.join(d, 'summary.txt'))
    if not report and not summary:
        raise BadInput('%s: a make bench run without report.md or summary.txt '
                       '(make bench-report RUN=%s)' % (d, d))
    run, L = provenance(d, env, 'make bench', env.get('project_commit') or 'unknown (not in meta.env)')
    L += ['**QUICK smoke run: not a measurement.**', ''] if env.get('quick') == '1' else []
    how = ', '.join('%s %s' % (k, env[k]) for k in ('kconfig', 'rounds', 'warmup', 'sizes_kib', 'seed', 'boots_det', 'boots_wall',
                                                      'real', 'qemu', 'host_cpu', 'host_cpus') if env.get(k))
    L += ['Produced by `%s`%s.' % (env.get('command', 'make bench'), how and ': ' + how), '']
    if env.get('elapsed_s', '').isdigit():
        s, b = int(env['elapsed_s']), env.get('build_s', '')
        L += ['Wall time: %d min %02d s from the start of `make bench`%s.' % (
            s // 60, s % 60, ', of which %d min %02d s building' % (int(b) // 60, int(b) % 60)
            if b.isdigit() else ' (builds included when it built)'), '']
    over = [t for _, t in tables_under(report, r'## Framework overhead')]
    L += embed('Framework overhead: cow kernel (exclusive) against unpatched 6.1', over) or [
        'No overhead table: the run has no unpatched (stock) kernel to compare with.', '']
    L += embed('False-positive COW under concurrent GUP',
               [t for _, t in tables_under(report, r'## False-positive')])
    L += embed('Redis BGSAVE under a write load (Redis\'s own figures, medians of the boot medians '
               '[min..max of the boot medians])',
               [t for _, t in tables_under(report, r'## Redis BGSAVE')])
    L += ['### Summary', ''] + summary_tables(d, summary) if summary else []
    # make bench-compare A=<run> B=<this run> leaves compare-<A>.txt here.
    for f in sorted(glob.glob(os.path.join(d, 'compare-*.txt'))):
        L += ['### Against %s (make bench-compare, %s)' % (os.path.basename(f)[8:-4], os.path.basename(f)), '',
              '```'] + read(f).rstrip('\n').splitlines() + ['```', '']
    return run, L


def mutants_section(d):
    md = read(os.path.join(d, 'mutants.md'))
    if not md:
        raise BadInput('%s: a make test-mutants run without mutants.md '
                       '(scripts/report/mutants_report.py %s NAME...)' % (d, d))
    env = read_env(os.path.join(d, 'meta.env'))
    m = re.search(r'\bat commit (\w+)', md)
    commit = env.get('project_commit') or (m.group(1) if m else 'unknown (mutants.md names none)')
    run, L = provenance(d, env, 'make test-mutants', commit,
                        sorted(glob.glob(os.path.join(d, '*', '*.log'))),
                        sorted(glob.glob(os.path.join(d, '*', 'accel.txt'))))
    tabs = [t for _, t in tables_under(md, r'# ')]
    head = [c.strip() for c in split_row(tabs[0][0])] if tabs else []
    if 'verdict' in head:
        vs = [split_row(r)[head.index('verdict')].strip() for r in tabs[0][2:]]
        L += ['**%d of %d mutants caught.**' % (vs.count('caught'), len(vs)), '']
    return run, L + embed('Mutants', tabs, ['Each mutant, what it breaks, and the cells that caught it:',
                                             'Failing cells by program:'])


def stall_section(d):
    """make stall-probe (scripts/flow/stall.sh): its table, as report.md has it."""
    env = read_env(os.path.join(d, 'meta.env'))
    tabs = [t for _, t in tables_under(read(os.path.join(d, 'report.md')), r'# ')]
    if not tabs:
        raise BadInput('%s: a make stall-probe run without a table in report.md' % d)
    if env.get('matrix'):  # the accelerators of the cells that ran
        ran = {e.split(':', 1)[-1] for e in env['matrix'].split()}
        env = {k: v for k, v in env.items() if not k.startswith('accel_') or v in ran}
    run, L = provenance(d, env, 'make stall-probe', env.get('project_commit') or 'unknown')
    jl = ', '.join('%s %s' % (k[11:], v) for k, v in sorted(env.items()) if k.startswith('jump_label_'))
    L += ['A switch (the key column) flipped every 2 ms for %s s under copy-on-write faults '
          '(tests/guest/keyflip.c), %s boots per cell; %s; CONFIG_JUMP_LABEL: %s.' % (
              env.get('seconds', '?'), env.get('repeat', '?'), env.get('qemu', '?'), jl or '?'), '']
    return run, L + embed('Jump-label stall probe', tabs)


def soak_section(d):
    """make soak (scripts/flow/soak.sh): the flip stress's closing figures
    from the run's results channel, and the judge's verdict."""
    env = read_env(os.path.join(d, 'meta.env'))
    taps = sorted(glob.glob(os.path.join(d, '*-flip.tap')))
    if not taps:
        raise BadInput('%s: a make soak run without a <variant>-flip.tap' % d)
    run, L = provenance(d, env, 'make soak', env.get('project_commit') or 'unknown')
    lines = [re.sub(r'^\s+', '', l) for l in read(taps[0]).splitlines()
             if re.match(r'\s*(# (flipstress|ran|flips|pins|memory|vmstat|[a-z]+ +ops)|(not )?ok \d+ - flipstress)', l)]
    verdict = first_line(taps[0][:-len('.tap')] + '.judge.txt') or 'no verdict (no judge.txt)'
    L += ['The flip stress for %s minutes (`%s`): %s.' % (env.get('minutes', '?'), env.get('command', 'make soak'),
                                                       verdict.replace('*', '\\*')), '', '```'] + lines + ['```', '']
    return run, L


def insn_section(d):
    """make bench-insn (scripts/report/insn_report.py): the per-kernel table
    and the first INSN_ROWS rows of the per-function one, from insn.md."""
    env = read_env(os.path.join(d, 'meta.env'))
    tabs = [t for _, t in tables_under(read(os.path.join(d, 'insn.md')), r'# Instructions per')]
    if len(tabs) != 2:
        raise BadInput('%s: a make bench-insn run without its two tables in insn.md' % d)
    run, L = provenance(d, env, 'make bench-insn', env.get('project_commit') or 'unknown')
    L += ['Instructions of `%s`\'s timed sections counted per guest address by the QEMU plugin '
          'benchmarks/insn/insncount.c (`%s`), cow (policy %s) against stock, one boot each '
          '(seed %s), every benchmark run as in a make bench det boot; the functions whose '
          'count per operation differs most (the whole list is in the run\'s insn.md).' % (
              env.get('insn', '?'), env.get('command', 'make bench-insn'),
              env.get('policies_cow', '?'), env.get('seed', '?')), '']
    return run, L + embed('Instructions per operation', [tabs[0], tabs[1][:2 + INSN_ROWS]])


INSN_ROWS = 12

SECTIONS = {'make test': test_section, 'make bench': bench_section,
            'make test-mutants': mutants_section, 'make stall-probe': stall_section,
            'make soak': soak_section, 'make bench-insn': insn_section}


def kind(d):
    if not os.path.isdir(d):
        raise BadInput('%s: %s' % (d, 'not a directory' if os.path.exists(d) else 'no such directory'))
    has = lambda *names: any(os.path.exists(os.path.join(d, n)) for n in names)  # noqa: E731
    if has('mutants.md') or glob.glob(os.path.join(d, '*.runs')):
        return 'make test-mutants'
    if read_env(os.path.join(d, 'meta.env')).get('command') == 'make stall-probe':
        return 'make stall-probe'
    if read_env(os.path.join(d, 'meta.env')).get('command', '').startswith('make soak'):
        return 'make soak'
    if read_env(os.path.join(d, 'meta.env')).get('command', '').startswith('make bench-insn'):
        return 'make bench-insn'
    if has('meta.env') and has('report.md', 'raw.json', 'raw.csv'):
        return 'make bench'
    if has('judgement.jsonl', 'judge.txt', 'summary.txt'):
        return 'make test'
    raise BadInput('%s: not a run directory of make test (judgement.jsonl, judge.txt, summary.txt), '
                   'make bench (meta.env and report.md or raw.json) or make test-mutants '
                   '(mutants.md)' % d)


def render(out, dirs, runs, body):
    """Write the header (dirs, the runs list) and the sections to OUT,
    checked, atomically."""
    text = '\n'.join([
        '# Results of cow-policy runs', '',
        'Generated by `make report RUN="%s"` (scripts/report/results_md.py) from the run '
        'directories below; it must not be edited by hand: change the runs or the generator '
        'and run make report again.' % ' '.join(dirs), '', 'Runs:', ''] + runs + [''] + body)
    text = text.rstrip('\n') + '\n'
    problems = check_text(text)[0]
    if problems:
        raise BadInput('the rendered %s would not pass check: %s' % (out, problems[0]))
    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(out)), prefix='.results_md.')
    except OSError as e:
        raise BadInput('cannot write %s: %s' % (out, e.strerror))
    try:
        with os.fdopen(fd, 'w', encoding='utf-8') as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise


def write(out, dirs):
    dirs = [d.rstrip('/') or '/' for d in dirs]
    runs, body = [], []
    for d in dirs:
        cmd = kind(d)
        run, lines = SECTIONS[cmd](d)
        runs.append('- `%s`: %s, %s' % (run, cmd, d))
        body += lines
    render(out, dirs, runs, body)


def add(out, new_dirs):
    """Render DIRS into an existing RESULTS.md (OUT): a run already in it
    is replaced in place, a new one goes after the last section of the same
    command (or at the end). The other sections are kept as committed: the
    run directories behind them (results/ is not committed) need not exist
    on this machine. The RUN list of the header records every directory."""
    text = read(out)
    if not text:
        raise BadInput('%s: no such file or empty (make report RUN=... writes a new one)' % out)
    problems, _, _ = check_text(text)
    if problems:
        raise BadInput('%s does not pass check: %s' % (out, problems[0]))
    head, rest = text.split('\n## ', 1)
    m = re.search(r'make report RUN="([^"]*)"', head)
    old_dirs = m.group(1).split() if m else []
    runs = re.findall(r'^- `[^`]+`.*$', head, re.M)
    sections = []  # [run id, command, lines]
    for sec in rest.split('\n## '):
        lines = ('## ' + sec).rstrip('\n').split('\n') + ['']
        prov = next(parse_prov(l) for l in lines if l.startswith('Run:'))
        sections.append([prov['run'], prov['command'], lines])
    dirs = list(old_dirs)
    for d in (d.rstrip('/') or '/' for d in new_dirs):
        cmd = kind(d)
        run, lines = SECTIONS[cmd](d)
        entry = '- `%s`: %s, %s' % (run, cmd, d)
        at = [i for i, sec in enumerate(sections) if sec[0] == run]
        if at:
            sections[at[0]] = [run, cmd, lines]
            runs = [entry if r.startswith('- `%s`:' % run) else r for r in runs]
            old = [x for x in dirs if os.path.basename(x) == os.path.basename(d)]
            dirs = [d if x in old else x for x in dirs] + ([] if old else [d])
            continue
        same = [i for i, sec in enumerate(sections) if sec[1] == cmd]
        sections.insert(same[-1] + 1 if same else len(sections), [run, cmd, lines])
        same = [i for i, r in enumerate(runs) if r.split(': ', 1)[-1].startswith(cmd + ',')]
        runs.insert(same[-1] + 1 if same else len(runs), entry)
        dirs.append(d)
    render(out, dirs, runs, [l for sec in sections for l in sec[2]])


def parse_prov(line):
    """The fields of a provenance line, or None when it is not one."""
    parts = line.split('·')
    ms = [re.match(r'%s:(.*)$' % k, p.strip(), re.I) for k, p in zip(PROV_KEYS, parts)]
    if len(parts) != len(PROV_KEYS) or not all(ms):
        return None
    return {k: m.group(1).strip() for k, m in zip(PROV_KEYS, ms)}


def check_text(text):
    """(problems, sections, run ids) of a RESULTS.md."""
    problems, sections = [], []
    head = text.split('\n## ', 1)[0]
    if not text.startswith('# '):
        problems.append('line 1: not a "# " title')
    if 'make report RUN=' not in head or 'not be edited by hand' not in head:
        problems.append('header: does not say it is generated by make report RUN=... '
                        'and must not be edited by hand')
    listed = re.findall(r'^- `([^`]+)`', head, re.M)
    if not listed:
        problems.append('header: lists no runs ("- `RUN-ID`: ...")')
    cur = tab = None
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith('## '):
            cur = {'title': line[3:].strip(), 'prov': None}
            sections.append(cur)
        elif cur is not None and cur['prov'] is None and line.strip():
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
    problems += ['section "%s": no provenance line' % s['title'] for s in sections if s['prov'] is None]
    runs = [s['prov']['run'] for s in sections if s['prov']]
    problems += ['run %s has %d sections' % (r, runs.count(r)) for r in sorted(set(runs)) if runs.count(r) > 1]
    problems += ['header: run %s has no section' % r for r in listed if r not in runs]
    problems += ['section of run %s: not listed in the header' % r for r in runs if r not in listed]
    problems += [] if sections else ['no sections ("## ...")']
    return problems, sections, runs


def main(argv):
    if len(argv) >= 3 and argv[0] in ('write', 'add'):
        try:
            (write if argv[0] == 'write' else add)(argv[1], argv[2:])
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
            print('%s: %d sections, runs: %s' % (argv[1], len(sections), ' '.join(runs)))
        return 1 if problems else 0
    print('usage: results_md.py write OUT.md RUNDIR... | add OUT.md RUNDIR... | check FILE.md', file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
