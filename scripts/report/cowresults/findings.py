"""cowresults.findings: "the findings, on one page".

build() picks, per kernel line, the newest run of each kind of the current
series (the newest of any series, said as such, where the current one has
none) and makes three tables of them:

  breaks   one row per scenario shape where the policies differ, one
           column per policy: each cell the observed outcomes with the
           seed/commit of their reason (the judged row of
           tests/expect/scenarios.tsv), and upstream's cow.c and
           gup_longterm.c failures per policy
  costs    per policy against the unpatched kernel, per fault path, fork
           and real software, across boots, with the units, and the exact
           instruction difference of make bench-insn where there is one
  sure     the method and its caveats

md() renders them for RESULTS.md, text() for an e-mail (the RFC cover
letter). Both are views of the same tables.
"""
import collections
import os
import re

from . import series as seriesmod
from .model import FAULT, FORK, REAL
from .util import POLICIES, esc

BAD = ('leak', 'stale-pin', 'lost-read', 'lost-write', 'hang')
SHAPES = (
    ('vmsplice / FOLL_GET reference after fork (CVE-2020-29374)', r'^vmsplice-(?!early-)'),
    ('vmsplice / FOLL_GET reference before fork (upstream cow.c, RDMA without pins)',
     r'^vmsplice-early-|^rdma-get-fork-|^flip-gupref'),
    ('RDMA pins across fork', r'^rdma-fork-|^fork-write-pinned$'),
    ('O_DIRECT and GUP references under clear_refs', r'clear-refs'),
    ('R/O long-term pins', r'^ro-pin-|^gup-(fast-only|nofault)-shared$|^pin-mprotect$|^flip-ro-pin'),
    ('uffd-wp', r'^uffd-wp'),
    ('swap', r'^swap|^swapin|-swapped$'),
    ('KSM', r'ksm'),
    ('THP', r'thp'),
    ('hugetlb', r'hugetlb'),
    ('DAX', r'dax'),
    ('a policy switch with pins or references live', r'^flip-'),
)
LEGEND_OUTCOMES = (
    ('ok', 'nothing lost or leaked'),
    ('leak', 'another process reads data written after it lost access'),
    ('stale-pin', 'a pin and the CPU see different pages'),
    ('lost-read', "an O_DIRECT read's data was lost"),
    ('lost-write', 'a write by the CPU or a device did not land where the program looks'),
    ('reuse / copy', 'a write fault kept / replaced the page'),
    ('A-B', 'flip-next-fault: the exclusive half, then the shared-once half'),
    ('hang', 'the program did not finish'),
    ('rmap-lost', 'an rmap walk (split, migration, reclaim) missed a PTE that maps the folio'),
)
UNITS = {'det': 'guest instructions per operation under QEMU icount (shift=0: 1 "ns" is '
                'one instruction), not time',
         'wall': 'guest wall-clock ns per operation'}
METHOD = ("Every scenario is a reproducer that reports what it observed (TAP and counter deltas) "
          "in a QEMU guest under each policy, and one judge on the host decides each cell "
          "against tests/expect/, where every expected outcome carries its reason. "
          "Costs are make bench's cowbench cells, each boot with its own seed, compared across "
          "boots (exact permutation test between kernels, interval by inverting it), in det mode "
          "a count of guest instructions. "
          "make bench-insn attributes a difference to kernel functions by counting the "
          "instructions of the timed sections per address (QEMU plugin), one boot a kernel.")


REF = re.compile(r'seed \d{3}(?:/\d{3})?|\b[0-9a-f]{12}\b|\bv\d+\.\d+\b|patch \d+|\b6\.12?\b|'
                 r'cow_policy\.rst')


def refs_of(why):
    """The seed and commit references of a reason, in order: 'seed 010', a
    12-digit commit, 'patch 5', 'v5.19', '6.1' or '6.12' (the kernel's own
    rule), 'cow_policy.rst'."""
    out = []
    for m in REF.finditer(why or ''):
        if m.group(0) not in out:
            out.append(m.group(0))
    return out


def short_reason(why, n=2):
    """A reason's seed and commit references; else its first words."""
    refs = refs_of(why)
    if refs:
        return ', '.join(refs[:n])
    w = (why or '').split(':')[0].strip()
    return (w[:40] + '...') if len(w) > 43 else w


def expect_reasons(top=seriesmod.TOP):
    """{(scenario, profile, policy): reason} of the current
    tests/expect/scenarios.tsv (for a run whose judgement lacks them)."""
    out = {}
    path = os.path.join(top, 'tests', 'expect', 'scenarios.tsv')
    cols = None
    try:
        lines = open(path, encoding='utf-8').read().splitlines()
    except OSError:
        return out
    for line in lines:
        if not line or line.startswith('#'):
            continue
        f = line.split('\t')
        if f[0] == 'scenario':
            cols = f
            continue
        d = dict(zip(cols or ('scenario', 'profile', 'policy', 'outcome', 'counters', 'reason'), f))
        out[(d.get('scenario'), d.get('profile'), d.get('policy'))] = d.get('reason', '')
    return out


def pick(runs, group, current, line, want=None):
    """(run, same series?) the newest run of GROUP on kernel line LINE of the
    current series, else the newest of any; (None, False) when none."""
    cand = [r for r in runs if (r.get('group') or r['command']) == group and
            (not r.get('lines') or line in r['lines']) and (want is None or want(r))]
    if not cand:
        return None, False
    same = [r for r in cand if current.get('sha256') and r['series'].get('sha256') == current['sha256']]
    best = max(same or cand, key=lambda r: r.newest_key())
    return best, bool(same)


def series_note(run, current, line='6.1'):
    s = run.get('series') or {}
    cur = current.get('changed_by', '')[:7] or '?'
    if not s.get('sha256'):
        return 'series unknown (commit %s not in this history)' % run['commit'][:12]
    mine = (s.get('changed_by') or '')[:7] or s['sha256'][:12]
    how = 'recorded in the run' if s.get('source') == 'recorded' else 'derived from its commit with git'
    if current.get('sha256') and s['sha256'] == current['sha256']:
        return 'the current series (%s; %s)' % (mine, how)
    note = '**the series changed since**: the run tested %s, the current series is %s (%s)' % (
        mine, cur, how)
    files = doc_only(run, line)
    if files:
        note += '; only its documentation changed (%s): the code is the one the run tested' % (
            ', '.join(files))
    return note


def doc_only(run, line='6.1'):
    """The files the line's series changed since RUN's, when they are all
    under Documentation/ (the code RUN tested is the current code); else
    None. A run whose series git knows (its recorded identity is that of the
    patches at its commit) can say; another cannot."""
    s = run.get('series') or {}
    g = seriesmod.at_commit(run.get('commit') or '', line=line)
    if not (g and s.get('sha256') and g['sha256'] == s['sha256']):
        return None
    files = seriesmod.changed_files(run['commit'], line=line)
    return files if files and all(f.startswith('Documentation/') for f in files) else None


def provenance(run):
    return 'run `%s` (%s, %s, kernel %s, commit %s, accelerator %s)' % (
        run['id'], run['command'], run['date'], run['kernels'], run['commit'][:12], run['accel'])


# ---- what breaks ----------------------------------------------------------------------
def test_cells(run, line, key='scenario'):
    """The cells of RUN's line from the kernel make test boots for it: the
    cow kernel's runs, or where the line boots its debug kernel alone (6.12
    since the largefolio series) the debug kernel's."""
    cells = [c for c in run['data'].get(key, []) if c.get('line', '6.1') == line]
    for v in ('cow', 'debug'):
        mine = [c for c in cells if c['run'].split('-', 1)[0] == v]
        if mine:
            return mine
    return []


def line_policies(run, line):
    """The policies a make test run judged on LINE, in POLICIES' order (6.1
    has three; 6.12's series adds largefolio); the first three without
    such a run."""
    seen = {c['policy'] for c in test_cells(run, line)} if run else set()
    return [p for p in POLICIES if p in seen] or list(POLICIES[:3])


def breaks(run, line, reasons):
    """Rows [shape, {policy: cell}] of the scenario shapes where the policies
    differ, from the guest runs of RUN's test kernel (test_cells())."""
    cells = test_cells(run, line)
    pols_of_line = line_policies(run, line)
    by = collections.OrderedDict()
    for c in cells:
        by.setdefault(c['case'], {}).setdefault(c['policy'], []).append(c)
    rows, same = [], []
    for title, rx in SHAPES:
        diff, agree = [], collections.OrderedDict()
        for case, pols in by.items():
            if not re.search(rx, case):
                continue
            outs = {p: tuple(sorted({c['outcome'] or 'not run' for c in pols.get(p, [])}))
                    for p in pols_of_line}
            if len(set(outs.values())) > 1:
                diff.append(case)
            else:
                agree.setdefault('/'.join(outs[pols_of_line[0]]), []).append(case)
        if not diff:
            if agree:
                same.append('%s (%s)' % (title, '; '.join('%s: %s' % (o, ', '.join(cs)) for o, cs in agree.items())))
            continue
        row = {}
        for p in pols_of_line:
            # One group per outcome: its scenarios and the seeds and commits
            # of their reasons (the first words of one when none has any).
            groups = collections.OrderedDict()
            for case in diff:
                for c in by[case].get(p, []):
                    prof = c['run'].split('-', 1)[1]
                    why = c.get('why') or reasons.get((case, prof, p)) or reasons.get((case, '*', p), '')
                    if c['verdict'] == 'fail':
                        out = '**FAIL** %s (%s)' % (c['outcome'] or 'not run', c.get('why', ''))
                    else:
                        out = c['outcome'] or 'judged %s' % c['verdict']
                    g = groups.setdefault(out, {'cases': [], 'refs': [], 'words': ''})
                    if case not in g['cases']:
                        g['cases'].append(case)
                    g['refs'] += [r for r in refs_of(why) if r not in g['refs']]
                    g['words'] = g['words'] or short_reason(why)
            parts = []
            for out, g in sorted(groups.items(), key=lambda kv: (kv[0] not in BAD, kv[0])):
                o = '**%s**' % out if out in BAD else out
                why = ', '.join(g['refs'][:4]) if g['refs'] else g['words']
                parts.append('%s: %s%s' % (o, ', '.join(g['cases']), ' (%s)' % why if why else ''))
            row[p] = '; '.join(parts) or '-'
        rows.append((title, row))
    return rows, same


def upstream_row(run, line):
    """{policy: cell} of upstream's cow.c and gup_longterm.c failures, of
    the cow kernel's run (make test also runs the suite on the debug
    kernel and on the unpatched one, whose cases would count twice),
    else of the kernels with the sysctl."""
    ups = [u for u in run['data'].get('upstream', []) if u.get('line', '6.1') == line]
    ups = [u for u in ups if u['run'].split('-', 1)[0] == 'cow'] or \
        [u for u in ups if u['run'].split('-', 1)[0] == 'debug'] or \
        [u for u in ups if u['run'].split('-', 1)[0] not in ('stock', 'nocow', 'base', 'nommid')]
    if not ups:
        return None
    row = {}
    for p in POLICIES:
        mine = [u for u in ups if u['policy'] == p]
        if not mine:
            row[p] = '-'
            continue
        fails = [f for u in mine for f in u['failing']]
        npass = sum(u['counts'].get('pass', 0) for u in mine)
        # XFAIL: a leak upstream's test detected and expects; a leak.
        nxfail = sum(u['counts'].get('xfail', 0) for u in mine)
        bad = [f for f in fails if f[1] == 'fail']
        base = [f for f in fails if f[2].startswith('6.1 base')]
        cat = collections.Counter()
        for f in fails:
            if f in base or f in bad:
                continue
            m = re.match(r'^\w+ — ([^:]*)', f[2])
            c = m.group(1) if m else f[2].split(':')[0]
            cat[c if len(c) <= 60 else c[:57].rsplit(' ', 1)[0] + ' ...'] += 1
        txt = '%d pass, %d fail' % (npass, len(fails)) + (
            ', **%d leak** (XFAIL: upstream expects it)' % nxfail if nxfail else '')
        sub = []
        if base:
            sub.append('%d as unpatched 6.1' % len(base))
        sub += ['%d %s' % (n, c) for c, n in cat.most_common()]
        if sub:
            txt += ': ' + '; '.join(sub)
        txt += ', **%d unexpected**' % len(bad) if bad else ' (all expected)'
        row[p] = txt
    return row


# ---- what it costs ------------------------------------------------------------------------
# benchstat's "(same in all N boots)" and "(the same difference in all ...)",
# which the Findings say as "same in every boot".
SAME_IN_ALL = r'\s*\((same in all|the same difference in all)[^)]*\)'

def cost_cell(x):
    if not x:
        return '-'
    t = x.get('text', '')
    if x.get('exact') or '(same in all' in t or 'the same difference in all' in t:
        t = re.sub(SAME_IN_ALL, '', t) + ' (same in every boot)'
    mark = x.get('mark', '')
    m = mark if mark in ('*', '**', '***') else ''
    if not m and mark.startswith('same in every boot'):
        m = '='
    if x.get('ref') in ('exclusive', 'nommid'):
        t += ' vs ' + x['ref']
    return t + (' ' + m if m else '')


def costs(run, insns, mode='det', current=None):
    """Rows [label, unit, stock, {policy: cell}, insn cell] of a bench run's
    cost rows in MODE: the fault paths, fork, Redis; stress-ng in one row."""
    rows = []
    cost = [r for r in run['data'].get('cost', []) if r['mode'] == mode]
    order = {b: i for i, b in enumerate(FAULT + FORK + REAL)}
    for r in sorted([r for r in cost if r['bench'] in order],
                    key=lambda r: (order[r['bench']], r['size'])):
        name = '%s-%dK' % (r['bench'], r['size']) if r['size'] else r['bench']
        unit = ('munmap' if r['bench'].startswith('munmap') else 'fork' if r['bench'] in FORK
                else 'BGSAVE' if r['bench'] in REAL else 'page')
        ins = insns.get('%s-%d' % (r['bench'], r['size']))
        icell = '-'
        if ins is not None and ins['data'].get('parsed') and ins['data']['parsed'].get('total'):
            t = ins['data']['parsed']['total']
            old = current and current.get('sha256') and ins['series'].get('sha256') not in ('', current['sha256'])
            if old and doc_only(ins):
                old = ', series %s: same code' % (ins['series'].get('changed_by') or '')[:7]
            elif old:
                old = ', an older series'
            # The row's unit: insn reports before 2026-12-08 said "page"
            # for forkmthp and munmapmthp, whose operation is a fork or a
            # munmap() (cowbench counts ops; the figure is per op).
            icell = '%+.1f insn/%s (`%s`%s)' % (t[2], unit, ins['id'], old or '')
        rows.append([name, unit, r['stock'], {p: cost_cell(r['policies'].get(p))
                                              for p in POLICIES + ('tracking',)}, icell])
    sng = [r for r in cost if r['bench'].startswith('sng-')]
    if sng:
        cell = {}
        for p in POLICIES:
            xs = [(r['bench'][4:], r['policies'][p]) for r in sng if p in r['policies']]
            ds = [x.get('d') for _, x in xs if isinstance(x.get('d'), (int, float))]
            if not ds:
                ds = [float(m.group(0).rstrip('%')) for _, x in xs
                      for m in [re.match(r'^[-+]\d+\.\d+%', x.get('text', ''))] if m]
            marked = [n for n, x in xs if x.get('mark') in ('*', '**', '***')]
            if len(xs) == 1:
                cell[p] = cost_cell(xs[0][1])
                continue
            cell[p] = ('%+.2f%% .. %+.2f%%; marked: %s' % (min(ds), max(ds), ', '.join(marked) or 'none')
                       if ds else '-') + (' vs exclusive' if xs and xs[0][1].get('ref') == 'exclusive' else '')
        rows.append(['stress-ng, %d stressor%s' % (len(sng), 's' if len(sng) > 1 else ''), 'bogo op',
                     '-' if len(sng) > 1 else sng[0]['stock'], cell, '-'])
    return rows


# ---- the page ----------------------------------------------------------------------------
def build(runs, current, line='6.1', top=seriesmod.TOP):
    runs = list(runs)
    test, t_same = pick(runs, 'make test', current, line, lambda r: r['data'].get('scenario'))
    bench, b_same = pick(runs, 'make bench', current, line, lambda r: r['data'].get('cost'))
    distro, _ = pick(runs, 'make bench-distro', current, line)
    insns = {}
    for g in sorted({r.get('group', '') for r in runs if r['command'] == 'make bench-insn'
                     and not r.get('group', '').endswith('QUICK=1')}):
        r, _ = pick(runs, g, current, line, lambda r: r['data'].get('parsed'))
        if r:
            insns[r['data'].get('insn', g.split()[-1])] = r
    mut = {}
    for r in sorted((r for r in runs if r['command'] == 'make test-mutants'), key=lambda r: r.newest_key()):
        for m, v in r['data'].get('mutants', {}).items():
            mut[m] = (v, r['id'])
    reasons = expect_reasons(top)
    f = {'line': line, 'current': current, 'test': test, 'bench': bench, 'distro': distro,
         'insns': insns, 'mutants': mut}
    f['policies'] = line_policies(test, line)
    if bench:
        f['policies'] += [p for p in POLICIES if p not in f['policies'] and any(
            p in r['policies'] for r in bench['data'].get('cost', []))]
        f['policies'].sort(key=POLICIES.index)
    # The cost table's columns: the policies, and where the run has it the
    # MM owner tracking's cost (cow's exclusive against nommid).
    f['cost_cols'] = f['policies'] + (['tracking'] if bench and any(
        'tracking' in r['policies'] for r in bench['data'].get('cost', [])) else [])
    f['breaks'], f['same'] = breaks(test, line, reasons) if test else ([], [])
    f['upstream'] = upstream_row(test, line) if test else None
    f['costs'] = costs(bench, insns, current=current) if bench else []
    f['attribution'] = attribution(bench) if bench else []
    f['cost_source'] = bench['data'].get('cost_source') if bench else None
    f['insn_only'] = [(k, r) for k, r in sorted(insns.items())
                      if not any('(`%s`' % r['id'] in row[4] for row in f['costs'])]
    return f


def sure_rows(f):
    rows = [['method', METHOD]]
    t, b = f['test'], f['bench']
    acc = []
    if t:
        acc.append('make test ran under %s: outcomes are decisions and data, not timing; a racy '
                   'scenario (odirect-clear-refs, uffd-wp-race) runs on a budget and may find '
                   'no race' % t['accel'])
    if b:
        acc.append('make bench det figures are instruction counts under icount; wall figures '
                   'under TCG are indicative only')
    rows.append(['accelerator', '; '.join(acc) or 'no run'])
    d = f['distro']
    if d:
        det = [r for r in d['data'].get('cost', []) if r['mode'] == 'det' and r['bench'] in FAULT]
        txt = ', '.join('%s %s' % (r['bench'], cost_cell(r['policies'].get('exclusive')))
                        for r in det if r['policies'].get('exclusive'))
        rows.append(['configuration', 'the lean kernels are tinyconfig-based (-Os); `%s` (%s, commit '
                     '%s) built cow and stock from Debian\'s own configuration: exclusive against '
                     'stock %s' % (d['id'], d['date'][:10], d['commit'][:7], txt or d['verdict'])])
    h = (b['data'].get('cost_holm') or {}).get('det') if b else None
    if h:
        holm = ('this cost table is one family: %d comparisons, %d marked; its smallest p, %.4f, would '
                'need a family of at most %d to reach 0.05, so with this many boots a side an '
                'unmarked row may still differ, as its interval says' % (
                    h['n'], h['marked'], h['min_p'], int(0.05 / h['min_p']) if h['min_p'] else 0))
    elif b:
        holm = ('the marks above are those of the run\'s own tables: the run predates the samples this '
                'page tests itself')
    else:
        holm = 'no bench run'
    rows.append(['multiple comparisons', 'Holm\'s correction per table (%s); a mark (* ** ***) only '
                 'from a test across boots (two boots or more a side), never from the rounds of one '
                 'boot; intervals are each comparison\'s own 95%%' % holm])
    if f['mutants'] and f['line'] != '6.1':
        rows.append(['mutation check', 'none of the Linux %s series yet: make test-mutants breaks '
                     'the 6.1 series (tests/mutants/)' % f['line']])
    elif f['mutants']:
        caught = sum(1 for v, _ in f['mutants'].values() if v == 'caught')
        rows.append(['mutation check', '%d of %d deliberately broken series caught in exactly their '
                     'cells (make test-mutants, runs %s)' % (
                         caught, len(f['mutants']),
                         ', '.join(sorted({'`%s`' % r for _, r in f['mutants'].values()})))])
    drift = [(k, r) for k, r in (('make test', t), ('make bench', b)) if r and not
             (f['current'].get('sha256') and r['series'].get('sha256') == f['current']['sha256'])]
    if drift:
        rows.append(['series', '; '.join('%s `%s` tested %s' % (k, r['id'], (
            r['series'].get('changed_by') or '')[:7] or 'an unknown series') for k, r in drift) +
            '; the current series is %s: its figures may differ' % (
                f['current'].get('changed_by', '')[:7] or '?')])
    rows.append(['kernel line', 'Linux %s (each line apart: its runs, its unpatched kernel, its '
                 'expectation rows)' % f['line']])
    return rows


# A default-policy cost (exclusive against stock, det) at least this large, in
# percent, is attributed in the Findings: the series without the MM owner
# tracking (nommid) against stock, and the tracking (exclusive against nommid).
ATTRIBUTE_PCT = 0.5


def attribution(run, mode='det'):
    """[(benchmark, exclusive cell, nommid cell, tracking cell)] of a bench
    run's rows where exclusive differs from stock by ATTRIBUTE_PCT or more
    and the run measured nommid (6.12)."""
    out = []
    for r in run['data'].get('cost', []):
        ex, tr, nm = r['policies'].get('exclusive'), r['policies'].get('tracking'), r.get('nommid')
        if r['mode'] != mode or not (ex and tr and nm) or abs(ex.get('d', 0)) < ATTRIBUTE_PCT:
            continue
        name = '%s-%dK' % (r['bench'], r['size']) if r['size'] else r['bench']
        out.append((name, ex, nm, tr))
    return out


def attribution_text(f):
    """One sentence: where the default policy's cost comes from, row by row
    (nommid within ATTRIBUTE_PCT of stock: the tracking's; else the
    series' own, said as such)."""
    if not f.get('attribution'):
        return []
    parts = []
    for name, ex, nm, tr in f['attribution']:
        own = abs(nm['d']) < ATTRIBUTE_PCT
        parts.append('%s %s, of which the series without it %s and the tracking %s: %s' % (
            name, strip_boots(ex['text']), strip_boots(nm['text']), strip_boots(tr['text']),
            'the tracking\'s' if own else 'the series\' own %+.2f%% is not the tracking\'s' % nm['d']))
    return ['Attribution of the default policy\'s cost where exclusive is %.1f%% or more from stock '
            '(exclusive against stock, the series built without the MM owner tracking (nommid) '
            'against stock, the tracking (exclusive against nommid); v6.15\'s tracking is built in '
            'for largefolio): %s.' % (ATTRIBUTE_PCT, '; '.join(parts)), '']


def strip_boots(t):
    return re.sub(SAME_IN_ALL, ' (same in every boot)', t)


def largefolio_context(f):
    """What the largefolio and tracking columns measure, with the v6.15
    cover letter's own figures as context (its wall time on a Xeon, not
    this table's unit: a comparison, not an agreement)."""
    L = []
    if 'largefolio' in f['cost_cols']:
        L += ['largefolio: v6.15\'s reuse of PTE-mapped large folios (patches/6.12/0014) against '
              'stock, which copies; on mthpreuse (fork, the child exits, the parent writes every '
              'page) it reuses what exclusive and stock copy. For context, not in this unit: '
              'the v6.15 series\' cover letter reports the reuse benchmark\'s runtime '
              '−64…−66% (Xeon, wall time).', '']
    if 'tracking' in f['cost_cols']:
        L += ['tracking: the cow kernel\'s exclusive (built with CONFIG_COW_POLICY_MM_ID) '
              'against the same series built without it (nommid), both running exclusive: '
              'what carrying the fourth policy costs under the default one. For context: '
              'the v6.15 cover letter reports fork/munmap +0…4% for the tracking, and the '
              'kernel test robot a 7.8% vm-scalability regression from 6af8cb80d3a9 on a '
              '256-thread machine.', '']
    return L


def md(f, plots=()):
    """The Findings of one kernel line as markdown lines."""
    L = []
    t, b = f['test'], f['bench']
    L += ['### What breaks (Linux %s)' % f['line'], '']
    if t:
        L += ['From %s; %s. Each cell: the observed outcome of every scenario of the shape whose '
              'outcome differs between the policies, with the seed or commit of its expected '
              'outcome (tests/expect/scenarios.tsv); **bold**: data lost, leaked or stale.' % (
                  provenance(t), series_note(t, f['current'], f['line'])), '']
        rows = [[title] + [row.get(p, '-') for p in f['policies']] for title, row in f['breaks']]
        if f['upstream']:
            rows.append(['upstream cow.c, gup_longterm.c (6.12 selftests)'] +
                         [f['upstream'][p] for p in f['policies']])
        L += ['| shape | ' + ' | '.join(f['policies']) + ' |', '|' + ' --- |' * (1 + len(f['policies']))]
        L += ['| ' + ' | '.join(esc(c) for c in r) + ' |' for r in rows] + ['']
        if f['same']:
            L += ['The same under every policy: ' + '; '.join(f['same']) + '.', '']
        L += ['Outcomes: ' + '; '.join('%s: %s' % kv for kv in LEGEND_OUTCOMES) + '.', '']
    else:
        L += ['No make test run of Linux %s.' % f['line'], '']
    L += ['### What it costs (Linux %s)' % f['line'], '']
    if b:
        L += ['From %s; %s. Each policy against the unpatched kernel (stock), %s; Δ = (policy − '
              'stock) / stock, positive is slower; [95%% interval] across boots, or "same in '
              'every boot"; marks after Holm (legend below). insn: make bench-insn\'s exact '
              'difference cow (exclusive) − stock, same unit, from the newest run of the benchmark '
              '(of the current series where there is one).' % (
                  provenance(b), series_note(b, f['current'], f['line']), 'det mode: ' + UNITS['det']), '']
        L += ['| benchmark | unit | stock | ' + ' | '.join(f['cost_cols']) + ' | insn (run) |',
              '|' + ' --- |' * (4 + len(f['cost_cols']))]
        L += ['| ' + ' | '.join(esc(c) for c in [r[0], r[1], r[2]] + [r[3][p] for p in f['cost_cols']] + [r[4]]) +
              ' |' for r in f['costs']] + ['']
        L += attribution_text(f)
        L += largefolio_context(f)
    else:
        L += ['No make bench run of Linux %s.' % f['line'], '']
    if f['insn_only']:
        L += ['make bench-insn (cow exclusive − stock, instructions per operation): ' + '; '.join(
            '%s %+.1f (`%s`)' % (k, r['data']['parsed']['total'][2], r['id'])
            for k, r in f['insn_only'] if r['data']['parsed'].get('total')) + '.', '']
    if plots:
        L += ['Plots: ' + ' · '.join('[%s](%s)' % (t_, p) for t_, p in plots) + '.', '']
    L += ['### How sure (Linux %s)' % f['line'], '', '| | |', '| --- | --- |']
    L += ['| %s | %s |' % (esc(a), esc(b_)) for a, b_ in sure_rows(f)] + ['']
    return L


def text(f, width=72):
    """The same tables as plain text, for an e-mail: each table a list of
    rows, each cell on its own indented line (mail clients wrap long
    lines; a fixed-width grid of long cells would not survive)."""
    import textwrap
    out = []

    def plain(s):
        # markdown's bold and code marks, not the significance marks
        return re.sub(r'\*\*([A-Za-z][^*]*?)\*\*', r'\1', s).replace('`', '')

    def para(s):
        out.extend(textwrap.wrap(plain(s), width, break_on_hyphens=False) + [''])

    def rows_(rows, header):
        for r in rows:
            out.append('  ' + r[0])
            for h, c in zip(header[1:], r[1:]):
                out.extend(textwrap.wrap(plain('%s: %s' % (h, c)), width - 4, break_on_hyphens=False,
                                         initial_indent='    ', subsequent_indent='      '))
        out.append('')
    t, b = f['test'], f['bench']
    out += ['What breaks (Linux %s)' % f['line'], '-' * 24, '']
    if t:
        para('From %s; %s.' % (provenance(t), series_note(t, f['current'], f['line'])))
        rows = [[title] + [row.get(p, '-') for p in f['policies']] for title, row in f['breaks']]
        if f['upstream']:
            rows.append(['upstream cow.c, gup_longterm.c'] + [f['upstream'][p] for p in f['policies']])
        rows_(rows, ['shape'] + f['policies'])
        if f['same']:
            para('The same under every policy: ' + '; '.join(f['same']) + '.')
    out += ['What it costs (Linux %s)' % f['line'], '-' * 25, '']
    if b:
        para('From %s; %s. Each policy against the unpatched kernel, in %s; Delta = (policy - '
             'stock) / stock, positive is slower; [95%%] across boots; * ** *** after Holm.' % (
                 provenance(b), series_note(b, f['current'], f['line']), UNITS['det']))
        rows_([[r[0] + ' (per %s; stock %s)' % (r[1], r[2])] + [r[3][p] for p in f['cost_cols']] + [r[4]]
               for r in f['costs']], ['benchmark'] + f['cost_cols'] + ['bench-insn'])
        for s in attribution_text(f):
            if s:
                para(s)
    out += ['How sure', '-' * 8, '']
    for a, b_ in sure_rows(f):
        para('%s: %s' % (a[0].upper() + a[1:], b_))
    return out
