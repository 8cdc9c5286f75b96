"""cowresults.model: one results model of every kind of run.

load(DIR) reads a run directory once and returns a Run: what every view
(RESULTS.md's sections and Findings, the plots, the RFC cover letter, the
document checks) needs, and nothing it would have to parse again. A Run is
a dict (JSON as it is: cowresults.store commits it as the run's digest, so
that a machine without the run directory still has the run) with

  id, command    the run id and the command whose section it is ("make
                 test", "make bench", "make bench-insn", "make
                 test-mutants", "make stall-probe", "make soak")
  group          what "the newest run of each kind" means: the command with
                 what makes two runs of it incomparable ("make bench
                 QUICK=1", "make bench-distro", "make bench BENCH_COW=x",
                 "make bench-insn copy-1024", "make test-mutants a b")
  date, commit   ISO date; the project commit (+dirty when it was)
  kernels        "RELEASE (VARIANTS)[, ...]" as the provenance line says it
  accel          the accelerators, ", "-joined
  lines          the kernel lines of its kernels (["6.1"]): runs and
                 cells are keyed by kernel line, so that a 6.12 run is
                 never the newest 6.1 one
  series         {sha256, changed_by, source} (cowresults.series)
  verdict        one line: what the run says
  source         "run directory", or "RESULTS.md section" for a run known
                 only from the committed RESULTS.md (data.section holds the
                 section as it was)
  data           the kind's own: see load_test(), load_bench(), ...

Run directories are told apart by content (kind()). Bad input raises
BadInput with one line.
"""
import collections
import glob
import json
import os
import re

from . import bench as benchdata
from . import insn as insndata
from . import series as seriesmod
from .util import (POLICIES, BadInput, cells_of, first_line, kernel_line, log_meta, read,
                   read_env, run_name, split_row, table, table_dicts, tables_under)

COMMANDS = ('make test', 'make bench', 'make test-mutants', 'make stall-probe', 'make soak',
            'make bench-insn')
CELL = ('run', 'policy', 'program', 'case', 'suite', 'verdict')
SCHEMA = 1
# The benchmarks of the Findings' cost table, in its order: the fault
# paths, fork, the real software.
FAULT = ('copy', 'reuse', 'softdirty', 'wprt', 'thpcopy', 'thpreuse', 'ksm', 'swapin', 'gupfp',
         'mthpcopy16', 'mthpreuse16', 'mthpcopy64', 'mthpreuse64')
FORK = ('fork', 'forkthp', 'forkpin', 'forkmthp16', 'forkmthp64', 'munmapmthp16', 'munmapmthp64')
REAL = ('redis-thpnever', 'redis-thpalways', 'redis-mthp64')


class Run(dict):
    """A run of the model: a dict with attribute access."""
    __getattr__ = dict.get

    def newest_key(self):
        return (self.get('date') or '').rstrip('Z')


# ---- kinds ----------------------------------------------------------------------
def kind(d):
    if not os.path.isdir(d):
        raise BadInput('%s: %s' % (d, 'not a directory' if os.path.exists(d) else 'no such directory'))
    has = lambda *names: any(os.path.exists(os.path.join(d, n)) for n in names)  # noqa: E731
    cmd = read_env(os.path.join(d, 'meta.env')).get('command', '')
    if has('mutants.md') or glob.glob(os.path.join(d, '*.runs')):
        return 'make test-mutants'
    if cmd == 'make stall-probe':
        return 'make stall-probe'
    if cmd.startswith('make soak'):
        return 'make soak'
    if cmd.startswith('make bench-insn'):
        return 'make bench-insn'
    if has('meta.env') and has('report.md', 'raw.json', 'raw.csv'):
        return 'make bench'
    if has('judgement.jsonl', 'judge.txt', 'summary.txt'):
        return 'make test'
    raise BadInput('%s: not a run directory of make test (judgement.jsonl, judge.txt, summary.txt), '
                   'make bench (meta.env and report.md or raw.json) or make test-mutants '
                   '(mutants.md)' % d)


def load(d, repo=seriesmod.TOP):
    """The Run of run directory D."""
    d = d.rstrip('/') or '/'
    cmd = kind(d)
    run = LOADERS[cmd](d)
    run['source'] = 'run directory'
    run['dir'] = os.path.abspath(d)
    run['schema'] = SCHEMA
    env = read_env(os.path.join(d, 'meta.env'))
    # A run's series is its kernel line's (one line per run directory).
    run['series'] = seriesmod.identity(env, run['commit'], repo,
                                       (run.get('lines') or [seriesmod.LINE_DEFAULT])[0])
    return run


# ---- provenance -----------------------------------------------------------------
def provenance(d, env, command, commit, logs=(), accels=()):
    """The common fields of a run from its meta.env, else from its id (the
    date), its logs' banners and accel.txt."""
    rid = env.get('run_id') or os.path.basename(os.path.normpath(d))
    parent = os.path.basename(os.path.dirname(os.path.normpath(d)))
    if rid in ('bench-quick', 'bench-insn') and re.match(r'^\d{8}-\d{6}$', parent):
        rid = '%s-%s' % (parent, rid)   # make test's own: one per make test run
    m = re.search(r'(\d{4})(\d\d)(\d\d)-(\d\d)(\d\d)(\d\d)', rid)
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
    lines = sorted({kernel_line(rel) for rel in by} - {''})
    return Run(id=rid, command=command, group=command, date=date, commit=commit,
               kernels=kernels or 'unknown (not recorded)',
               accel=', '.join(sorted(acc)) or 'unknown (not recorded)', lines=lines, data={})


# ---- make test ------------------------------------------------------------------
def load_jsonl(path, what):
    out = []
    for n, l in enumerate(read(path).splitlines(), 1):
        if not l.strip():
            continue
        try:
            out.append(json.loads(l))
        except json.JSONDecodeError as e:
            raise BadInput('%s:%d: not JSON lines (%s)' % (path, n, e))
    return out


def log_kernel(path):
    """The kernel release (uname -r in the guest) of one run's console log:
    the runner's COWTEST-BOOT banner, else the header run-qemu.sh writes
    ("# kernel: <bzImage> (<release>)"); None when neither says. The judge
    keys its rows by it (scripts/report/judge.py)."""
    text = read(path)
    m = re.search(r'COWTEST-BOOT kernel=(\S+)', text) or \
        re.search(r'^# kernel: .* \((\S+)\)$', text, re.M)
    return m.group(1) if m else None


def guest_kernels(d):
    """{guest run: kernel release} from the console logs (log_kernel())."""
    out = {}
    for p in sorted(glob.glob(os.path.join(d, '*.log'))):
        k = log_kernel(p)
        if k:
            out[os.path.basename(p)[:-4]] = k
    return out


def load_test(d):
    env = read_env(os.path.join(d, 'meta.env'))
    commit = env.get('project_commit') or (
        'unknown (not in meta.env)' if env else 'unknown (run predates meta.env)')
    run = provenance(d, env, 'make test', commit, sorted(glob.glob(os.path.join(d, '*.log'))),
                     [os.path.join(d, 'accel.txt')])
    data = run['data']
    data['lines'] = {name: first_line(os.path.join(d, name + '.txt'))
                     for name in ('summary', 'judge', 'cases')}
    data['wall'] = {k: env.get(k, '') for k in ('elapsed_s', 'command', 'host_cpus', 'build_state', 'ccache_mib')}
    cells = load_jsonl(os.path.join(d, 'judgement.jsonl'), 'judgement')
    if not all(isinstance(c, dict) and set(CELL) <= set(c) for c in cells):
        raise BadInput('%s/judgement.jsonl: a cell without one of %s' % (d, ', '.join(CELL)))
    fails = [c for c in cells if c.get('verdict') == 'fail']
    data['nfail'] = len(fails)
    data['fails'] = [[run_name(c['run']), c['policy'], c['program'], c['case'], c.get('why', '')]
                     for c in fails[:30]]
    kernels = guest_kernels(d)
    default = env.get('kernel_cow') or next(iter(kernels.values()), '')
    # What each scenario cell observed (results.jsonl, the one parse of the
    # TAP), joined to its verdict and reason (judgement.jsonl).
    obs = {}
    upstream = collections.OrderedDict()
    for c in load_jsonl(os.path.join(d, 'results.jsonl'), 'results'):
        res = c.get('result') or {}
        if c.get('kind') != 'case':
            continue
        grun = '%s-%s' % (c['variant'], c['profile'])
        if 'scenario' in res and 'outcome' in res:
            obs[(res['scenario'], grun, c['policy'])] = (
                res['outcome'], {k[4:]: int(v) for k, v in sorted(res.items())
                                 if k.startswith('cow_') and v.lstrip('-').isdigit() and v != '0'})
        elif c['program'].startswith('upstream_suite'):
            upstream.setdefault(grun, collections.OrderedDict()).setdefault(
                (res.get('suite', '?'), c['name']), {})[c['policy']] = res.get('result', '?')
    why = {(c['run'], c['policy'], c['suite'], c['case']): c for c in cells}
    data['scenario'] = []
    for c in cells:
        if c['suite'] != 'scenario':
            continue
        o = obs.get((c['case'], c['run'], c['policy']))
        rel = kernels.get(c['run'], default)
        data['scenario'].append({'case': c['case'], 'run': c['run'], 'policy': c['policy'],
                                 'verdict': c['verdict'], 'why': c.get('why', ''),
                                 'outcome': o[0] if o else None, 'counters': o[1] if o else {},
                                 'line': kernel_line(rel) or '6.1'})
    data['upstream'] = []
    for grun, cases in upstream.items():
        for p in POLICIES:
            for suite in ('cow', 'gup_longterm'):
                mine = {n: r[p] for (s, n), r in cases.items() if s == suite and p in r}
                if not mine:
                    continue
                cnt = collections.Counter(mine.values())
                failing = []
                for n, r in mine.items():
                    if r == 'fail':
                        v = why.get((grun, p, 'upstream/' + suite, n), {})
                        failing.append([n, v.get('verdict', '?'), v.get('why', '')])
                data['upstream'].append({'run': grun, 'policy': p, 'suite': suite,
                                         'line': kernel_line(kernels.get(grun, default)) or '6.1',
                                         'counts': {k: cnt[k] for k in ('pass', 'fail', 'skip', 'xfail')},
                                         'failing': failing})
    mx = read(os.path.join(d, 'matrix.md'))
    data['matrix_tables'] = [t for _, t in tables_under(mx, r'# Scenario matrix')]
    up = read(os.path.join(d, 'upstream.md'))
    tabs = tables_under(up, r'## ') if up else tables_under(mx, r'## Upstream')
    data['upstream_tables'] = [t for _, t in tabs]
    data['upstream_captions'] = ['Run %s:' % h for h, _ in tabs] if up else []
    vm = read(os.path.join(d, 'vm-selftests.md'))
    tabs = tables_under(vm, r'# ') if vm else tables_under(mx, r'## 6\.1 mm selftests')
    data['vm_tables'] = [t for _, t in tabs]
    ln = data['lines']
    run['verdict'] = ln['summary'] or re.sub(r'^judge: ', '', ln['judge']) or 'no summary'
    return run


# ---- make bench -----------------------------------------------------------------
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


def bench_group(env, command, rid=''):
    cmd = env.get('command', command)
    if 'bench-distro' in cmd or rid.startswith('bench-distro-'):
        return 'make bench-distro'
    g = 'make bench'
    # Runs before BENCH_COW was in the command name their variant in the id.
    m = re.search(r'BENCH_COW=(\S+)', cmd) or re.match(r'^bench-([a-z]+)-\d{8}-', rid)
    g += ' BENCH_COW=%s' % m.group(1) if m else ''
    g += ' QUICK=1' if env.get('quick') == '1' or 'QUICK=1' in cmd else ''
    return g


def split_bench(name):
    """'copy-1024K' -> ('copy', 1024)."""
    m = re.match(r'^(.*)-(\d+)K?$', name)
    return (m.group(1), int(m.group(2))) if m else (name, 0)


def cost_from_tables(overhead, summary_md):
    """The cost rows of a run known by its report's tables only (a canned
    run, or one RESULTS.md keeps): exclusive against stock from the
    framework-overhead table, the other policies against exclusive in the
    same boots from the summary, each with the mark its run gave it."""
    rows = collections.OrderedDict()
    for t in overhead:
        for r in table_dicts(t):
            mode, bench = r.get('mode', ''), r.get('benchmark', '')
            dtext = next((v for k, v in r.items() if k.startswith('Δ') and '[95%]' in k), None) \
                or next((v for k, v in r.items() if k.startswith('Δ')), '')
            stock = next((v for k, v in r.items() if k.startswith('stock median')), '')
            b, size = split_bench(bench)
            rows[(mode, bench)] = {'mode': mode, 'bench': b, 'size': size, 'stock': stock,
                                   'policies': {'exclusive': {'text': dtext, 'ref': 'stock',
                                                              'mark': r.get('significance', '')}}}
    mode = None
    for line in summary_md:
        m = re.match(r'^Mode (\w+):', line)
        if m:
            mode = m.group(1)
            continue
        if not line.startswith('|') or mode is None or DELIM_ROW.match(line):
            continue
        c = cells_of(line)
        if c[0] == 'benchmark' or len(c) < 6:
            continue
        b, size = split_bench(c[0])
        row = rows.setdefault((mode, c[0]), {'mode': mode, 'bench': b, 'size': size,
                                             'stock': c[1], 'policies': {}})
        if 'exclusive' not in row['policies'] and c[3] not in ('-', ''):
            row['policies']['exclusive'] = {'text': c[3].replace('\\*', '*'), 'ref': 'stock', 'mark': ''}
        for p, v in (('refcount', c[4]), ('mapcount', c[5])):
            if v not in ('-', ''):
                row['policies'][p] = {'text': v.replace('\\*', '*'), 'ref': 'exclusive', 'mark': ''}
    return list(rows.values())


DELIM_ROW = re.compile(r'^\|(\s*:?-+:?\s*\|)+\s*$')


def redis_from_tables(tabs):
    """The Redis rows of a report's Redis table: {mode, label, thp, boots,
    figures: {column: [median, lo, hi]}}."""
    out = []
    for t in tabs:
        for r in table_dicts(t):
            figs = {}
            for k, v in r.items():
                m = re.match(r'^([-\d.]+)(?: \[([-\d.]+)\.\.([-\d.]+)\])?$', v)
                if m and k not in ('boots',):
                    x = float(m.group(1))
                    figs[k] = [x, float(m.group(2) or x), float(m.group(3) or x)]
            out.append({'mode': r.get('mode', ''), 'label': r.get('kernel/policy', ''),
                        'thp': r.get('THP', ''), 'boots': r.get('boots', ''), 'figures': figs})
    return out


def cost_from_raw(d, data):
    """The cost rows of a run with its samples (raw.json): every policy
    against the unpatched kernel, across boots (benchstat's tests: an exact
    permutation test over boots and the interval that inverts it; "same in
    every boot" when each boot gave one figure), Holm over each mode's
    rows (the Findings' cost table is that family); and {mode: {n, min_p,
    marked}} of the family. None when scipy is missing (benchstat cannot
    be imported)."""
    try:
        import benchstat as bs
    except (ImportError, SystemExit):
        return None
    cs = benchdata.cells(data)
    keys = sorted(cs, key=bs.order_key)
    out = []
    holm = {}
    for mode in ('det', 'wall'):
        fam, rows = [], []
        for (m, v, b, size, p) in keys:
            if m != mode or v != 'stock' or p != 'exclusive':
                continue
            st = cs[(m, 'stock', b, size, 'exclusive')]
            row = {'mode': mode, 'bench': b, 'size': size,
                   'stock': bs.fmt(bs.median(list(benchdata.boot_medians(st).values()))),
                   'boots_stock': len(benchdata.boot_medians(st)), 'policies': {}}
            for pol in POLICIES:
                k = (m, 'cowx', b, size, pol) if pol == 'exclusive' and (m, 'cowx', b, size, pol) in cs \
                    else (m, 'cow', b, size, pol)
                if k not in cs:
                    continue
                x = bs.compare_rows(st, cs[k], mode)
                if not x:
                    continue
                bm = benchdata.boot_medians(cs[k])
                row['policies'][pol] = x
                x['ref'] = 'stock'
                x['boots'] = len(bm)
                x['median'] = bs.fmt(bs.median(list(bm.values())))
                fam.append(x)
            # The MM owner tracking's cost (6.12): the cow kernel's
            # exclusive against the series built without it (nommid).
            kn = (m, 'nommid', b, size, 'exclusive')
            kc = (m, 'cowx', b, size, 'exclusive')
            kc = kc if kc in cs else (m, 'cow', b, size, 'exclusive')
            if kn in cs and kc in cs:
                x = bs.compare_rows(cs[kn], cs[kc], mode)
                if x:
                    bm = benchdata.boot_medians(cs[kc])
                    x['ref'], x['boots'] = 'nommid', len(bm)
                    x['median'] = bs.fmt(bs.median(list(bm.values())))
                    row['policies']['tracking'] = x
                    fam.append(x)
            # The series built without the tracking against stock: with the
            # tracking's row, what the default policy's cost is made of (the
            # Findings' attribution). Not a column, not in the Holm family.
            if kn in cs:
                x = bs.compare_rows(st, cs[kn], mode)
                if x:
                    row['nommid'] = {'text': x['text'], 'd': x['d'], 'lo': _finite(x.get('lo')),
                                     'hi': _finite(x.get('hi')), 'exact': bool(x.get('exact')),
                                     'boots': len(benchdata.boot_medians(cs[kn]))}
            rows.append(row)
        bs.judge(fam)
        tested = [x for x in fam if x.get('p') is not None]
        if tested:
            holm[mode] = {'n': len(tested), 'min_p': min(x['p'] for x in tested),
                          'marked': sum(1 for x in tested if x['mark'] in ('*', '**', '***'))}
        for row in rows:
            for pol, x in list(row['policies'].items()):
                row['policies'][pol] = {
                    'text': x['text'], 'ref': x['ref'], 'mark': x['mark'],
                    'd': x['d'], 'lo': _finite(x.get('lo')), 'hi': _finite(x.get('hi')),
                    'p': x.get('p'), 'p_adj': x.get('p_adj'), 'exact': bool(x.get('exact')),
                    'boots': x['boots'], 'median': x['median']}
        out += rows
    return out, holm


def _finite(v):
    if v is None:
        return None
    return v if v == v and abs(v) != float('inf') else ('inf' if v > 0 else '-inf')


def redis_from_raw(data):
    """Redis BGSAVE cells of raw.json: per (mode, kernel/policy, THP) the
    median of the boot medians of each of Redis's figures, and their range."""
    cs = benchdata.cells(data)
    out = []
    for (m, v, b, size, p), rows in sorted(cs.items()):
        if not b.startswith('redis-'):
            continue
        figs = {}
        for f, title in (('ns_per_op', 'BGSAVE'),) + benchdata.REDIS_FIGURES:
            bm = list(benchdata.boot_medians(rows, lambda r, f=f: r.get(f, 0) or 0).values())
            figs[title] = [benchdata.median(bm), min(bm), max(bm)]
        bm = list(benchdata.boot_medians(rows, lambda r: sum(r.get(c, 0) or 0
                                                              for c in benchdata.COPY_COUNTERS)).values())
        figs['copies'] = [benchdata.median(bm), min(bm), max(bm)]
        out.append({'mode': m, 'label': 'stock (unpatched)' if v == 'stock' else '%s/%s' % (v, p),
                    'thp': b[len('redis-thp'):], 'boots': str(len(bm)), 'figures': figs})
    return out


def load_bench(d):
    env = read_env(os.path.join(d, 'meta.env'))
    report, summary = read(os.path.join(d, 'report.md')), read(os.path.join(d, 'summary.txt'))
    if not report and not summary:
        raise BadInput('%s: a make bench run without report.md or summary.txt '
                       '(make bench-report RUN=%s)' % (d, d))
    run = provenance(d, env, 'make bench', env.get('project_commit') or 'unknown (not in meta.env)')
    run['group'] = bench_group(env, 'make bench', run['id'])
    data = run['data']
    data['quick'] = env.get('quick') == '1'
    data['command'] = env.get('command', 'make bench')
    data['how'] = ', '.join('%s %s' % (k, env[k]) for k in (
        'kconfig', 'rounds', 'warmup', 'sizes_kib', 'seed', 'boots_det', 'boots_wall', 'real', 'qemu',
        'host_cpu', 'host_cpus') if env.get(k))
    data['kconfig'] = env.get('kconfig', '')
    data['elapsed_s'], data['build_s'] = env.get('elapsed_s', ''), env.get('build_s', '')
    data['overhead'] = [t for _, t in tables_under(report, r'## Framework overhead')]
    data['falsepos'] = [t for _, t in tables_under(report, r'## False-positive')]
    data['redis_tables'] = [t for _, t in tables_under(report, r'## Redis BGSAVE')]
    data['summary_md'] = summary_tables(d, summary) if summary else []
    data['compares'] = [[os.path.basename(f), read(f)]
                        for f in sorted(glob.glob(os.path.join(d, 'compare-*.txt')))]
    data['accel'] = {k[6:]: v for k, v in env.items() if k.startswith('accel_')}
    raw = None
    if os.path.exists(os.path.join(d, 'raw.json')):
        try:
            with open(os.path.join(d, 'raw.json')) as f:
                raw = json.load(f)
        except (OSError, ValueError) as e:
            raise BadInput('%s/raw.json: %s' % (d, e))
    cost = cost_from_raw(d, raw) if raw else None
    data['cost_source'] = 'samples' if cost is not None else 'tables'
    data['cost'] = cost[0] if cost is not None else cost_from_tables(data['overhead'], data['summary_md'])
    data['cost_holm'] = cost[1] if cost is not None else {}
    data['redis'] = redis_from_raw(raw) if raw else redis_from_tables(data['redis_tables'])
    run['verdict'] = bench_verdict(data)
    return run


def bench_verdict(data):
    if data.get('quick'):
        return 'QUICK smoke run, not a measurement'
    det = [r for r in data.get('cost', []) if r['mode'] == 'det' and r['bench'] in FAULT]
    ex = [r['policies']['exclusive']['text'] for r in det if 'exclusive' in r['policies']]
    return ('exclusive against stock on the fault paths (det): %s' % ', '.join(
        '%s %s' % (r['bench'], r['policies']['exclusive']['text'].split(' (')[0].split(' [')[0])
        for r in det if 'exclusive' in r['policies'])) if ex else 'no exclusive-against-stock figures'


# ---- make bench-insn ----------------------------------------------------------------
def load_insn(d):
    env = read_env(os.path.join(d, 'meta.env'))
    text = read(os.path.join(d, 'insn.md'))
    tabs = [t for _, t in tables_under(text, r'# Instructions per', empty=True)]
    parsed = insndata.parse_md(text)
    if len(tabs) != 2 or parsed is None:
        raise BadInput('%s: a make bench-insn run without its two tables in insn.md' % d)
    run = provenance(d, env, 'make bench-insn', env.get('project_commit') or 'unknown')
    bench = env.get('insn') or parsed['bench'].rstrip('K')
    run['group'] = 'make bench-insn %s%s' % (bench, ' QUICK=1' if env.get('quick') == '1' else '')
    data = run['data']
    data.update(insn=bench, command=env.get('command', 'make bench-insn'),
                policy=env.get('policies_cow', '?'), seed=env.get('seed', '?'),
                kconfig=env.get('kconfig', ''), tables=tabs, parsed=parsed)
    run['verdict'] = insn_verdict(parsed)
    return run


def insn_verdict(parsed):
    t = parsed.get('total') if parsed else None
    if not t or t[2] is None:
        return 'no total'
    return 'cow - stock: %+.1f instructions per %s of %s' % (t[2], parsed['unit'], parsed['bench'])


# ---- make test-mutants ----------------------------------------------------------------
def load_mutants(d):
    md = read(os.path.join(d, 'mutants.md'))
    if not md:
        raise BadInput('%s: a make test-mutants run without mutants.md '
                       '(scripts/report/mutants_report.py %s NAME...)' % (d, d))
    env = read_env(os.path.join(d, 'meta.env'))
    m = re.search(r'\bat commit (\w+)', md)
    commit = env.get('project_commit') or (m.group(1) if m else 'unknown (mutants.md names none)')
    run = provenance(d, env, 'make test-mutants', commit,
                     sorted(glob.glob(os.path.join(d, '*', '*.log'))),
                     sorted(glob.glob(os.path.join(d, '*', 'accel.txt'))))
    data = run['data']
    data['tables'] = [t for _, t in tables_under(md, r'# ')]
    data['mutants'] = mutant_rows(data['tables'])
    data['wall'] = {k: env.get(k, '') for k in ('elapsed_s', 'host_cpus', 'mutants')}
    run['group'] = 'make test-mutants ' + ' '.join(sorted(data['mutants']))
    run['verdict'] = mutants_verdict(data['mutants'])
    return run


def mutant_rows(tabs):
    """{mutant: verdict} of a mutants.md's first table."""
    if not tabs:
        return {}
    head = [c.strip() for c in split_row(tabs[0][0])]
    if 'verdict' not in head or 'mutant' not in head:
        return {}
    out = collections.OrderedDict()
    for r in tabs[0][2:]:
        c = split_row(r)
        out[c[head.index('mutant')].strip().strip('`')] = c[head.index('verdict')].strip()
    return out


def mutants_verdict(rows):
    return '%d of %d mutants caught' % (sum(1 for v in rows.values() if v == 'caught'), len(rows))


# ---- make stall-probe, make soak ----------------------------------------------------------
def load_stall(d):
    env = read_env(os.path.join(d, 'meta.env'))
    tabs = [t for _, t in tables_under(read(os.path.join(d, 'report.md')), r'# ')]
    if not tabs:
        raise BadInput('%s: a make stall-probe run without a table in report.md' % d)
    if env.get('matrix'):  # the accelerators of the cells that ran
        ran = {e.split(':', 1)[-1] for e in env['matrix'].split()}
        env = {k: v for k, v in env.items() if not k.startswith('accel_') or v in ran}
    run = provenance(d, env, 'make stall-probe', env.get('project_commit') or 'unknown')
    jl = ', '.join('%s %s' % (k[11:], v) for k, v in sorted(env.items()) if k.startswith('jump_label_'))
    run['data'].update(seconds=env.get('seconds', '?'), repeat=env.get('repeat', '?'),
                       qemu=env.get('qemu', '?'), jump_label=jl or '?', tables=tabs)
    run['verdict'] = 'jump-label stall probe, %d rows' % (len(tabs[0]) - 2)
    return run


def load_soak(d):
    env = read_env(os.path.join(d, 'meta.env'))
    taps = sorted(glob.glob(os.path.join(d, '*-flip.tap')))
    if not taps:
        raise BadInput('%s: a make soak run without a <variant>-flip.tap' % d)
    run = provenance(d, env, 'make soak', env.get('project_commit') or 'unknown')
    lines = [re.sub(r'^\s+', '', l) for l in read(taps[0]).splitlines()
             if re.match(r'\s*(# (flipstress|ran|flips|pins|memory|vmstat|[a-z]+ +ops)|(not )?ok \d+ - flipstress)', l)]
    verdict = first_line(taps[0][:-len('.tap')] + '.judge.txt') or 'no verdict (no judge.txt)'
    run['data'].update(minutes=env.get('minutes', '?'), command=env.get('command', 'make soak'),
                       judge=verdict, lines=lines)
    run['verdict'] = re.sub(r'^judge: ', '', verdict)
    return run


LOADERS = {'make test': load_test, 'make bench': load_bench, 'make test-mutants': load_mutants,
           'make stall-probe': load_stall, 'make soak': load_soak, 'make bench-insn': load_insn}


# ---- a run known only from the committed RESULTS.md --------------------------------------
PROV_KEYS = ('run', 'date', 'kernel', 'commit', 'accelerator', 'command')


def parse_prov(line):
    """The fields of a provenance line, or None when it is not one."""
    parts = line.split('·')
    ms = [re.match(r'%s:(.*)$' % k, p.strip(), re.I) for k, p in zip(PROV_KEYS, parts)]
    if len(parts) != len(PROV_KEYS) or not all(ms):
        return None
    return {k: m.group(1).strip() for k, m in zip(PROV_KEYS, ms)}


def from_section(lines, repo=seriesmod.TOP):
    """The Run of a section of a committed RESULTS.md ("## COMMAND: ID",
    its provenance line, its body), for a run whose directory this machine
    does not have: the section is kept as it is (data.section) and what the
    views need is read back from its tables."""
    prov = next((parse_prov(l) for l in lines if l.startswith('Run:')), None)
    if prov is None:
        raise BadInput('a section without a provenance line: %s' % (lines[0] if lines else ''))
    text = '\n'.join(lines)
    rels = re.findall(r'(\d+\.\d+)\.\d+\S*', prov['kernel'])
    run = Run(id=prov['run'], command=prov['command'], group=prov['command'], date=prov['date'],
              commit=prov['commit'], kernels=prov['kernel'], accel=prov['accelerator'],
              lines=sorted(set(rels)), data={'section': list(lines)}, source='RESULTS.md section',
              dir='', schema=SCHEMA)
    data = run['data']
    cmd = prov['command']
    if cmd == 'make test':
        m = re.search(r'^- Summary: (.*)$', text, re.M) or re.search(r'^- Judge: (.*)$', text, re.M)
        run['verdict'] = m.group(1) if m else 'no summary'
        data['scenario'] = scenario_from_matrix(text)
    elif cmd == 'make bench':
        m = re.search(r'^Produced by `([^`]*)`(?:: (.*)\.)?$', text, re.M)
        data['how'] = m.group(2) or '' if m else ''
        env = {'command': m.group(1) if m else 'make bench',
               'quick': '1' if 'QUICK smoke run' in text else '0'}
        run['group'] = bench_group(env, 'make bench', run['id'])
        data['quick'] = env['quick'] == '1'
        m = re.search(r'kconfig ([^,]*)', text)
        data['kconfig'] = m.group(1) if m else ''
        over = [t for _, t in tables_under(text, r'### Framework overhead')]
        summ = []
        grab = False
        for l in lines:
            if l.startswith('### '):
                grab = l.startswith('### Summary')
            elif grab:
                summ.append(l)
        data['cost_source'] = 'tables'
        data['cost'] = cost_from_tables(over, summ)
        data['redis'] = redis_from_tables([t for _, t in tables_under(text, r'### Redis BGSAVE')])
        data['accel'] = {}
        run['verdict'] = bench_verdict(data)
    elif cmd == 'make bench-insn':
        m = re.search(r"Instructions of `([^`]*)`'s timed sections", text)
        data['insn'] = m.group(1) if m else '?'
        run['group'] = 'make bench-insn %s' % data['insn']
        tabs = [t for _, t in tables_under(text, r'### Instructions per', empty=True)]
        parsed = None
        if len(tabs) == 2:
            fake = '# Instructions per %s of %s: cow against stock\n\n%s\n\n%s\n' % (
                _unit(tabs[0]), data['insn'] + 'K', '\n'.join(tabs[0]), '\n'.join(tabs[1]))
            parsed = insndata.parse_md(fake)
        data['parsed'] = parsed
        run['verdict'] = insn_verdict(parsed)
    elif cmd == 'make test-mutants':
        data['mutants'] = mutant_rows([t for _, t in tables_under(text, r'### Mutants')])
        run['group'] = 'make test-mutants ' + ' '.join(sorted(data['mutants']))
        run['verdict'] = mutants_verdict(data['mutants'])
    elif cmd == 'make soak':
        m = re.search(r'^The flip stress for .*?\): (.*)\.$', text, re.M)
        run['verdict'] = re.sub(r'^judge: ', '', m.group(1)) if m else 'no verdict'
    else:
        tabs = tables_under(text, r'### ')
        run['verdict'] = '%s, %d rows' % (cmd[5:], len(tabs[0][1]) - 2) if tabs else cmd[5:]
    run['series'] = seriesmod.identity({}, run['commit'], repo,
                                       (run.get('lines') or [seriesmod.LINE_DEFAULT])[0])
    return run


def _unit(tab):
    for l in tab:
        m = re.search(r'instructions per (\w+) \(plugin\)', l)
        if m:
            return m.group(1)
    return 'op'


def scenario_from_matrix(text):
    """The scenario cells of a rendered scenario matrix (a kept section):
    outcome and counters as "ok <sub>copy_refcount=16</sub>"."""
    out = []
    for _, t in tables_under(text, r'### Scenario matrix'):
        head = cells_of(t[0])
        if head[:2] != ['scenario', 'run']:
            continue
        for l in t[2:]:
            c = cells_of(l)
            for p, v in zip(head[2:], c[2:]):
                if v in ('-', ''):
                    continue
                fail = v.startswith('**FAIL**')
                v = re.sub(r'^\*\*FAIL\*\* ', '', v)
                m = re.match(r'^(\S+)(?: <sub>(.*)</sub>)?', v)
                cnt = dict((k, int(x)) for k, x in re.findall(r'(\w+)=(-?\d+)', m.group(2) or ''))
                out.append({'case': c[0], 'run': c[1], 'policy': p,
                            'verdict': 'fail' if fail else 'pass', 'why': '',
                            'outcome': m.group(1), 'counters': cnt, 'line': '6.1'})
    return out
