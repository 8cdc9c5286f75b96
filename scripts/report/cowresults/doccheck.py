"""cowresults.doccheck: documents against the results model.

readme(text, runs)  the default path's cost a document states in the form

      run `insn-ID` (BENCH): +N instructions per UNIT in all, of which
      `function` +N, `function` +N and `function` +N

    (one or more such statements, wrapped as the text likes) against the
    run's model: the run must be the newest make bench-insn run of BENCH
    the model has, its whole difference (cow - stock per operation) and
    each function's must be the stated ones at the precision stated.

rst(text, rows, runs)  the per-policy outcome table of the kernel's
    documentation (sysctl-docs/cow_policy.rst, "What each policy gets right
    and wrong") against the scenario matrix of the newest make test run:
    ROWS (scripts/check/cow_policy-rows.tsv) maps each row of the table to
    the scenario that observes it and says whether the table states its
    outcome (ok, leak, stale pin, ...) or the write fault's decision (copy,
    reuse: from the cell's cow_* counters). A row may be marked pending (the
    document's fix is due): it must still disagree, and is reported as such.

Each returns (problems, notes): problems fail the check, one line each.
"""
import re

from .util import POLICIES

WORD = {'no leak': 'ok', 'coherent': 'ok', 'ok': 'ok', 'leak': 'leak', 'read lost': 'lost-read',
        'stale pin': 'stale-pin', 'lost write': 'lost-write', 'copy': 'copy', 'reuse': 'reuse'}
STATEMENT = re.compile(
    r'run `(insn-[^`]+)` \(([a-z]+-\d+)K?\): ([-+]\d+(?:\.\d+)?) instructions per (\w+)(?: in all)?'
    r'(?:, of which ((?:`[^`]+` [-+]\d+(?:\.\d+)?(?:, | and )?)+))?')
ITEM = re.compile(r'`([^`]+)` ([-+]\d+(?:\.\d+)?)')


def _same(stated, value):
    """Whether VALUE is STATED at STATED's precision (its decimals)."""
    if value is None:
        return False
    dec = len(stated.split('.', 1)[1]) if '.' in stated else 0
    return abs(float(stated) - value) <= 0.5 * 10 ** -dec + 1e-9


def newest_insn(runs, bench):
    cand = [r for r in runs if r['command'] == 'make bench-insn' and
            (r.get('group') or '') == 'make bench-insn %s' % bench]
    return max(cand, key=lambda r: r.newest_key()) if cand else None


def readme(text, runs, what='README.md'):
    runs = list(runs)
    flat = re.sub(r'\s+', ' ', text)
    problems, notes = [], []
    found = list(STATEMENT.finditer(flat))
    if not found:
        return ['%s: states no make bench-insn cost ("run `insn-...` (BENCH): +N instructions per '
                'UNIT in all, of which `function` +N ...")' % what], notes
    byid = {r['id']: r for r in runs}
    for m in found:
        rid, bench, total, unit, items = m.groups()
        r = byid.get(rid)
        if r is None:
            problems.append('%s cites %s, which the results model (digests/) does not have' % (what, rid))
            continue
        if r['command'] != 'make bench-insn':
            problems.append('%s cites %s as a make bench-insn run; it is a %s run' % (what, rid, r['command']))
            continue
        if (r['data'].get('insn') or '') != bench:
            problems.append('%s: %s ran %s, not %s' % (what, rid, r['data'].get('insn'), bench))
            continue
        new = newest_insn(runs, bench)
        if new is not None and new['id'] != rid:
            t = (new['data'].get('parsed') or {}).get('total') or [None] * 3
            problems.append('%s cites %s for %s; the newest make bench-insn run of %s is %s (%s)' % (
                what, rid, bench, bench, new['id'],
                '%+.1f instructions per %s in all' % (t[2], new['data']['parsed']['unit'])
                if t[2] is not None else 'no total'))
        p = r['data'].get('parsed') or {}
        t = p.get('total') or [None] * 3
        if p.get('unit') and unit != p['unit']:
            problems.append('%s: %s counts per %s, not per %s' % (what, rid, p['unit'], unit))
        if not _same(total, t[2]):
            problems.append('%s: %s %s: states %s instructions per %s in all, the run says %s' % (
                what, rid, bench, total, unit, '%+.1f' % t[2] if t[2] is not None else 'none'))
        funcs = {f[0]: f[3] for f in p.get('functions', [])}
        for fn, v in ITEM.findall(items or ''):
            if fn not in funcs:
                problems.append('%s: %s %s: `%s` is not among the run\'s functions that differ' % (
                    what, rid, bench, fn))
            elif not _same(v, funcs[fn]):
                problems.append('%s: %s %s: states `%s` %s, the run says %+.1f' % (
                    what, rid, bench, fn, v, funcs[fn]))
        notes.append('%s %s: %s in all, %d functions' % (rid, bench, total, len(ITEM.findall(items or ''))))
    return problems, notes


# ---- the kernel document's table ---------------------------------------------------------
def rst_table(text, title='What each policy gets right and wrong'):
    """{row label: [cell per policy]} of the simple table under TITLE."""
    i = text.find(title)
    if i < 0:
        return None
    lines = text[i:].splitlines()
    rules = [n for n, l in enumerate(lines) if re.match(r'^=+( +=+)+\s*$', l)]
    if len(rules) < 3:
        return None
    cols = [m.span() for m in re.finditer(r'=+', lines[rules[0]])]
    head = [lines[rules[0] + 1][a:b if k + 1 < len(cols) else None].strip() for k, (a, b) in enumerate(cols)]
    out = {}
    for l in lines[rules[1] + 1:rules[2]]:
        if not l.strip():
            continue
        cells = [l[a:(cols[k + 1][0] if k + 1 < len(cols) else None)].strip() for k, (a, _) in enumerate(cols)]
        out[cells[0]] = dict(zip(head[1:], cells[1:]))
    return out


def load_rows(tsv_text):
    """scripts/check/cow_policy-rows.tsv: [(label, scenario, compare, pending, why)]."""
    out = []
    for line in tsv_text.splitlines():
        if not line.strip() or line.startswith('#'):
            continue
        f = line.split('\t')
        if f[0] == 'row':
            continue
        f += [''] * (5 - len(f))
        out.append((f[0], f[1], f[2], f[3] == 'pending', f[4]))
    return out


def decision(counters):
    """copy or reuse: the write faults' decision a cell's cow_* counters
    count (cow_copy_*; cow_reuse_*, cow_pmd_reuse), the one that counts at
    least twice the other: a program's own few decisions (its stack, libc
    data after a fork) are in the window too; copy+reuse when neither
    dominates, none when nothing was decided."""
    c = sum(v for k, v in counters.items() if k.startswith('copy_'))
    r = sum(v for k, v in counters.items() if k.startswith('reuse_') or k == 'pmd_reuse')
    if not c and not r:
        return 'none'
    return 'copy' if c >= 2 * r else 'reuse' if r >= 2 * c else 'copy+reuse'


def newest_test(runs, line='6.1'):
    cand = [r for r in runs if r.get('group') == 'make test' and
            any(c.get('outcome') for c in r['data'].get('scenario', []))
            and (not r.get('lines') or line in r['lines'])]
    return max(cand, key=lambda r: r.newest_key()) if cand else None


def rst(text, rows, runs, what='sysctl-docs/cow_policy.rst'):
    problems, notes = [], []
    tab = rst_table(text)
    if tab is None:
        return ['%s: no table "What each policy gets right and wrong"' % what], notes
    run = newest_test(list(runs))
    if run is None:
        return ['the results model has no make test run with a scenario matrix'], notes
    # The series' kernels: cow, and debug (cow with DEBUG_VM, which make
    # test boots).
    cells = {}
    for c in run['data']['scenario']:
        if c['run'].split('-', 1)[0] in ('cow', 'debug') and c.get('outcome'):
            cells.setdefault(c['case'], {}).setdefault(c['policy'], []).append(c)
    mapped = {r[0] for r in rows}
    for label in tab:
        if label not in mapped:
            problems.append('%s: row "%s" is not in scripts/check/cow_policy-rows.tsv' % (what, label))
    for label, scn, cmp_, pending, why in rows:
        if label not in tab:
            problems.append('cow_policy-rows.tsv: row "%s" is not in %s\'s table' % (label, what))
            continue
        if scn == '-':
            notes.append('"%s": no scenario observes it (%s)' % (label, why or 'not checked'))
            continue
        if scn not in cells:
            problems.append('"%s": scenario %s is not in the matrix of run %s' % (label, scn, run['id']))
            continue
        diff = []
        for p in POLICIES:
            if p not in tab[label]:     # a policy the table has no column for
                continue
            doc = tab[label][p]
            want = WORD.get(doc)
            if want is None:
                diff.append('%s: "%s" is no outcome or decision this check knows' % (p, doc))
                continue
            for c in cells[scn].get(p, []):
                got = decision(c['counters']) if cmp_ == 'decision' else c['outcome']
                if got != want:
                    diff.append('%s: the document says %s, %s observed %s%s' % (
                        p, doc, c['run'], got, ' (decision, from its counters)' if cmp_ == 'decision' else ''))
        if diff and not pending:
            problems.append('"%s" (%s) disagrees with run %s: %s' % (label, scn, run['id'], '; '.join(diff)))
        elif diff:
            notes.append('pending: "%s" (%s) disagrees with run %s: %s' % (label, scn, run['id'], '; '.join(diff)))
        elif pending:
            problems.append('"%s" (%s) agrees with run %s now: drop its pending mark in '
                            'scripts/check/cow_policy-rows.tsv' % (label, scn, run['id']))
    return problems, notes
