#!/usr/bin/env python3
"""scripts/report/judge.py RUNDIR [--runs "V:P ..."] [--expect DIR]: the one judge.

Joins a run's results (RUNDIR/results.jsonl, written by scripts/report/results.py
from the guests' TAP) with the expectations (tests/expect/), on the host,
once.  The guest programs observe and report; nothing in the image decides
whether an outcome was the expected one, so editing an expectation needs no
image rebuild (adding a scenario row does: the guest runs a scenario only
where a row names it, see tests/guest/lib/scn.c).

The expectation schema (one record per row, whatever file it comes from):

  suite     "scenario" (tests/expect/scenarios.tsv), "upstream/cow" or
            "upstream/gup_longterm" (tests/expect/upstream.tsv: the cases
            expected to FAIL), "vm-selftest" (tests/expect/vm-selftests.tsv:
            the invocations whose result is not "pass"), "skip"
            (tests/expect/skips.tsv: the skips that are not failures)
  case      scenario name, upstream "[RUN]" line, selftest invocation, or
            for "skip" a regular expression over "<policy>/<program>: <case>"
  profile   profile name or "*" (a scenario row: every profile whose
            TEST_GROUPS run the scenario's program, tests/expect/programs.tsv)
  policy    exclusive, refcount, mapcount or "*" (the files' "all"; a
            scenario row names one)
  variant   kernel variant or "*" (only skips.tsv names one)
  kernel    the kernel line a row is for ("6.1"; scenarios.tsv may say
            otherwise in an optional "kernel" column, upstream.tsv and
            skips.tsv in an optional last column after the reason): a run
            is judged by the rows of its own (uname -r, from its log)
  outcome   expected outcome ("fail" for an upstream row, the result for a
            selftest row, "skip" for a skip row)
  counters  scenario counter constraints: "-" or name=N (N..N+slack),
            name>=N, name<=N and slack=S (the row's slack, default 0, below
            the count it guards), comma-separated (/proc/vmstat deltas of
            the kernel's cow_* counters, tests/expect/counters.txt)
  reason    why (seed, commit)

Two rows (skips excepted) that could decide the same cell are refused, as
are unknown counters, a slack not below its count, and a scenario row whose
scenario is no program's or whose profile does not run its program.

The full expected set is known before the run: every run of --runs (make
test passes TEST_MATRIX), every (policy, program) of each run's profile
(its TEST_GROUPS and POLICIES, cowtest.* on its command line), every
scenario row of the run's kernel line for its profile, or "*" where its
groups run the row's program, and policies, every selftest invocation
of tests/groups/vmtests.list, every upstream case that any policy of the run
ran.  Anything of it that is missing is a failure with its name, as is a
skip that no rule expects, and a program while which the kernel got a new
taint bit (the runner's "# TAINT" line; O and E, the project's own
modules, excepted).  Across runs: exclusive gives on every 6.1
selftest and every upstream case what unpatched 6.1 gives (the kernel
runs 6.1's own rule), so that what a row calls 6.1's own is 6.1's.

Writes RUNDIR/judgement.jsonl (one object per judged cell: run, policy,
program, case, suite, verdict pass|fail|skip, why) and RUNDIR/matrix.md
(the scenario matrix); with --only V:P, RUNDIR/V-P.judgement.jsonl only.  Prints one summary line, then "fail: CELL: WHY"
per failure; exit status 1 when anything failed.
"""
import argparse
import datetime
import functools
import json
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# A run's logs are read as the results model reads them.
from cowresults.model import log_kernel  # noqa: E402
from cowresults.util import log_meta  # noqa: E402
import results  # noqa: E402  (the one parser: tap_lines)
POLICIES = ('exclusive', 'refcount', 'mapcount', 'largefolio')
# The decisions one write fault (or PMD fault) makes: a scenario's total of
# them is bounded by the decision counters its row names (see
# decision_bounds()).  The PTE-level list is tests/guest/lib/cowtest.c's
# cow_decision_counters[]; make check keeps the two equal.
# cow_ksm is the kernel's own count of KSM copies, which the series does
# not count again.  cow_copy_large: the 6.12 line's (a page of a large folio
# that is not exclusive, copied under "exclusive"), and so are the
# largefolio policy's cow_reuse_owner, cow_copy_shared and cow_copy_single,
# which a kernel built without CONFIG_COW_POLICY_MM_ID (variant nommid) does
# not have; tests/expect/counters.txt says which kernels have which counter.
DECISIONS = ('cow_reuse_exclusive', 'cow_reuse_refcount', 'cow_reuse_mapcount',
             'cow_reuse_ksm', 'cow_copy_mapcount', 'cow_copy_refcount',
             'cow_ksm', 'cow_copy_swap', 'cow_copy_locked', 'cow_copy_large',
             'cow_reuse_owner', 'cow_copy_shared', 'cow_copy_single')
PMD_DECISIONS = ('cow_pmd_reuse', 'cow_pmd_split')
NO_SYSCTL = ('stock', 'nocow')     # variants without vm.cow_policy (exclusive rule)
# The policies under which a 6.1 selftest invocation may be omitted
# (tests/expect/vm-selftests.tsv, result "omitted"): never exclusive.
OMITTABLE = ('refcount', 'mapcount')
# The profiles whose exclusive results must equal the unpatched kernel's
# (variant stock), case by case (Judge.unpatched_agrees()), and the suite
# of each. The comparison is made when the runs judged name stock:<profile>
# (a named run without results fails as every run does); when they do not
# (6.1's make test without TEST_STOCK=yes, make test-mutants), each run with
# the sysctl gets a skip cell that says so.
UNPATCHED_PROFILES = {'vmtests': 'vm-selftest', 'upstream': 'upstream'}
# The kernel's taint flags (kernel/panic.c, taint_flags[]: bit n is letter n).
# A bit that appears while a program runs fails it (the runner's "# TAINT"
# line, guest/init.sh), except those the project's own modules set:
# cowpin.ko and the systemtap modules are out-of-tree (O) and, on a kernel
# that checks signatures, unsigned (E).
TAINT_LETTERS = 'PFSRMBUDAWCIOELKXTN'
TAINT_ALLOWED = (1 << 12) | (1 << 13)
KV = re.compile(r'(\w+)=(\S+)')
LIST_MAX = 40                     # failures printed; judgement.jsonl has all
QUOTE_PROGRAMS = 3                # failing programs whose guest output is quoted
QUOTE_LINES = 15                  # lines quoted of each


def load_jsonl(path):
    """The records of a .jsonl file, or [] when there is none."""
    return [json.loads(l) for l in open(path) if l.strip()] if os.path.exists(path) else []


def tsv_lines(path, ncols):
    """The data lines of one expectation file: (line number, fields), each
    with >= ncols fields."""
    rows = []
    for n, line in enumerate(open(path, encoding='utf-8'), 1):
        line = line.rstrip('\n')
        if not line or line.startswith('#'):
            continue
        f = line.split('\t')
        if len(f) < ncols:
            sys.exit('judge: %s:%d: %d columns, want %d' % (path, n, len(f), ncols))
        rows.append((n, f))
    return rows


def tsv_rows(path, ncols):
    """The data rows of one expectation file: lists of >= ncols fields."""
    return [f for _, f in tsv_lines(path, ncols)]


def star(x):
    return '*' if x == 'all' else x


def shown(path):
    """A path as messages name it: relative to the repository when inside."""
    rel = os.path.relpath(os.path.abspath(path), TOP)
    return path if rel.startswith('..') else rel


class Expect(list):
    """The expectation records (load_expect()), with what the scenario rows
    need besides: programs (scenario -> the command of tests/groups/*.list
    that reports it), backings (tests/expect/backings.tsv) and counters
    (the kernel's cow_* names, tests/expect/counters.txt)."""
    programs, backings, counters = {}, {'case': {}, 'backing': {}}, ()


# The kernel line a row is for when it does not say (scenarios.tsv's
# optional "kernel" column): the run's is its kernel release's first two
# numbers (run_kernel()).
KERNEL_DEFAULT = '6.1'
# scenarios.tsv's columns, as its header line names them; "kernel" may be
# added anywhere.
SCENARIO_COLUMNS = ('scenario', 'profile', 'policy', 'outcome', 'counters', 'reason')
CONSTRAINT = re.compile(r'^(\w+)(>=|<=|=)(-?\d+)$')


def scenario_lines(path):
    """scenarios.tsv as (where, {column: value}), columns named by its header
    line (without one, SCENARIO_COLUMNS in that order)."""
    cols, out = list(SCENARIO_COLUMNS), []
    for n, f in tsv_lines(path, 5):
        where = '%s:%d' % (shown(path), n)
        if f[0] == 'scenario':
            bad = [c for c in f if c not in SCENARIO_COLUMNS + ('kernel',)] + \
                [c for c in SCENARIO_COLUMNS if c not in f]
            if bad or len(set(f)) != len(f):
                sys.exit('judge: %s: header %r: want the columns %s and optionally kernel, once each'
                         % (where, '\t'.join(f), ', '.join(SCENARIO_COLUMNS)))
            cols = f
            continue
        # reason may be empty, and a last kernel column left out (6.1).
        need = max(i for i, c in enumerate(cols)
                   if c != 'reason' and not (c == 'kernel' and i == len(cols) - 1)) + 1
        if len(f) < need:
            sys.exit('judge: %s: %d columns, want %d (%s)' % (where, len(f), need, ' '.join(cols)))
        out.append((where, dict(zip(cols, f))))
    return out


def parse_counters(spec, where, known):
    """A row's counters column: (constraints [(name, op, N)], slack).
    "slack=S" is the row's slack (default 0): a "name=N" counter may move
    by N..N+S and the total of decisions by up to S more than the row's
    decision counters say.  Every name must be a counter of known."""
    cons, slack = [], 0
    if spec in ('-', ''):
        return cons, slack
    for item in spec.split(','):
        item = item.strip()
        m = re.match(r'^slack=(\d+)$', item)
        if m:
            slack = int(m.group(1))
            continue
        m = CONSTRAINT.match(item)
        if not m:
            sys.exit('judge: %s: bad counter constraint %r' % (where, item))
        if m.group(1) not in known:
            sys.exit('judge: %s: unknown counter %s (not one of tests/expect/counters.txt, the '
                     'kernel\'s cow_* counters)' % (where, m.group(1)))
        cons.append((m.group(1), m.group(2), int(m.group(3))))
    if slack:
        guard = slack_guard(cons)
        if guard is None:
            sys.exit('judge: %s: slack=%d guards no count (no name=N, and the total of '
                     'decisions is open)' % (where, slack))
        if slack >= guard[1]:
            sys.exit('judge: %s: slack %d is not smaller than the count it guards (%s)'
                     % (where, slack, guard[0]))
    return cons, slack


def slack_guard(cons):
    """What a row's slack widens, as (shown, count): its smallest "name=N"
    that the slack widens (a PMD decision is exact, see check_counters),
    else the total of decisions its "<=" bounds allow; None when nothing is
    bounded (a "-" row, or a ">=" on a decision counter)."""
    eq = [(n, w) for n, o, w in cons if o == '=' and n not in PMD_DECISIONS]
    if eq:
        n, w = min(eq, key=lambda x: x[1])
        return '%s=%d' % (n, w), w
    if not cons or any(o == '>=' and n in DECISIONS + PMD_DECISIONS for n, o, w in cons):
        return None
    hi = sum(w for n, o, w in cons if o == '<=' and n in DECISIONS + PMD_DECISIONS)
    return 'at most %d decisions in all' % hi, hi


class Counters(tuple):
    """The counter names of counters.txt; .lines: name -> the kernel lines
    that have it (None: every line); .without: name -> the variants of
    those lines that do not."""
    lines = {}
    without = {}

    def on(self, name, kernel, variant=None):
        """Whether a kernel of line KERNEL (and VARIANT) has counter NAME."""
        ls = self.lines.get(name)
        return (ls is None or kernel in ls) and variant not in self.without.get(name, ())


def load_counters(edir):
    """tests/expect/counters.txt: the kernel's cow_* counters, one a line,
    each optionally followed by the kernel lines that alone have it and by
    not:VARIANT for a variant of those lines built without it."""
    path = os.path.join(edir, 'counters.txt')
    if not os.path.exists(path):
        sys.exit('judge: no %s (the kernel\'s cow_* counters)' % shown(path))
    rows = [l.split('#', 1)[0].split() for l in open(path)]
    rows = [r for r in rows if r]
    names = [r[0] for r in rows]
    bad = [n for n in names if not re.match(r'^cow_[a-z0-9_]+$', n)] + \
        sorted({n for n in names if names.count(n) > 1}) + \
        [l for r in rows for l in r[1:] if not re.match(r'^(\d+\.\d+|not:[a-z0-9]+)$', l)]
    if bad:
        sys.exit('judge: %s: not one cow_* name a line (and kernel lines): %s'
                 % (shown(path), ' '.join(bad)))
    missing = [n for n in DECISIONS + PMD_DECISIONS if n not in names]
    if missing:
        sys.exit('judge: %s lacks the decision counters %s' % (shown(path), ' '.join(missing)))
    out = Counters(names)
    out.lines = {r[0]: tuple(l for l in r[1:] if not l.startswith('not:'))
                 for r in rows if len(r) > 1}
    out.without = {r[0]: tuple(l[4:] for l in r[1:] if l.startswith('not:'))
                   for r in rows if len(r) > 1}
    return out


def all_group_commands():
    """Every command of every tests/groups/*.list, with the groups it is in."""
    d = os.path.join(TOP, 'tests', 'groups')
    out = {}
    for f in sorted(os.listdir(d)):
        if f.endswith('.list'):
            for c in group_commands(f[:-len('.list')]) or []:
                out.setdefault(c, []).append(f[:-len('.list')])
    return out


def load_programs(edir, backings):
    """scenario -> the command (as tests/groups/*.list has it) of the program
    that reports it: tests/expect/programs.tsv, and scn_backings for every
    cell "<case>-<backing>" of tests/expect/backings.tsv."""
    path = os.path.join(edir, 'programs.tsv')
    out = {'%s-%s' % (c, b): 'scn_backings' for c in backings['case'] for b in backings['backing']}
    if not os.path.exists(path):
        sys.exit('judge: no %s (which program reports each scenario)' % shown(path))
    cmds = all_group_commands()
    for n, f in tsv_lines(path, 2):
        where = '%s:%d' % (shown(path), n)
        if f[0] == 'scenario':
            continue
        if f[0] in out:
            sys.exit('judge: %s: scenario %s has a program already (%s)' % (where, f[0], out[f[0]]))
        if f[1] not in cmds:
            sys.exit('judge: %s: program %r is in no tests/groups/*.list' % (where, f[1]))
        out[f[0]] = f[1]
    return out


def overlap(a, b):
    """Whether two rows of one suite can decide the same cell (case,
    profile, policy, variant, kernel line): "*" matches anything."""
    same = lambda x, y: x == y or '*' in (x, y)  # noqa: E731
    return a['case'] == b['case'] and a['kernel'] == b['kernel'] and \
        same(a['profile'], b['profile']) and same(a['policy'], b['policy']) and \
        same(a['variant'], b['variant'])


def row_kernel(f, ncols, where):
    """The kernel line of a row of a positional file (upstream.tsv,
    skips.tsv): its optional column after the NCOLS ones, else 6.1."""
    if len(f) > ncols + 1:
        sys.exit('judge: %s: %d columns, want %d and optionally a kernel line' % (where, len(f), ncols))
    return f[ncols] if len(f) > ncols and f[ncols] else KERNEL_DEFAULT


def load_expect(edir):
    """Every expectation file, as records of the one schema (an Expect)."""
    rec = Expect()
    rec.backings = load_backings(edir)
    rec.counters = load_counters(edir)
    rec.programs = load_programs(edir, rec.backings)
    for where, d in scenario_lines(os.path.join(edir, 'scenarios.tsv')):
        cons, slack = parse_counters(d['counters'], where, rec.counters)
        rec.append(dict(suite='scenario', case=d['scenario'], profile=d['profile'],
                        policy=d['policy'], variant='*', kernel=d.get('kernel', KERNEL_DEFAULT),
                        outcome=d['outcome'], counters=d['counters'], constraints=cons,
                        slack=slack, reason=d.get('reason', ''), where=where))
    # upstream.tsv: the cases expected to fail; upstream-xfail.tsv: those
    # expected to XFAIL (a leak upstream's test knows of and reports as an
    # expected failure: an observation like a failure, never a pass).
    for fname, outcome in (('upstream.tsv', 'fail'), ('upstream-xfail.tsv', 'xfail')):
        path = os.path.join(edir, fname)
        if outcome == 'xfail' and not os.path.exists(path):
            continue
        for n, f in tsv_lines(path, 4):
            where = '%s:%d' % (shown(path), n)
            rec.append(dict(suite='upstream/' + f[1], case=f[2], profile='*', policy=star(f[0]),
                            variant='*', kernel=row_kernel(f, 4, where), outcome=outcome,
                            counters='-', reason=f[3], where=where))
    path = os.path.join(edir, 'vm-selftests.tsv')
    for n, f in tsv_lines(path, 4):
        rec.append(dict(suite='vm-selftest', case=f[1], profile='*', policy=star(f[0]),
                        variant='*', kernel=KERNEL_DEFAULT, outcome=f[2], counters='-',
                        reason=f[3], where='%s:%d' % (shown(path), n)))
    for r in rec:
        # An invocation may be omitted (not run, for time) under a policy
        # only where the row says why that policy cannot change its
        # result; exclusive, whose result unpatched 6.1 must match, and
        # the kernels without the sysctl always run it.
        if r['suite'] == 'vm-selftest' and r['outcome'] == 'omitted' and \
                r['policy'] not in OMITTABLE:
            sys.exit('judge: %s: vm-selftest expectation %r: only a %s row may say "omitted", not %s'
                     % (r['where'], r['case'], ' or '.join(OMITTABLE),
                        'all' if r['policy'] == '*' else r['policy']))
    path = os.path.join(edir, 'skips.tsv')
    if os.path.exists(path):
        for n, f in tsv_lines(path, 5):
            try:
                re.compile(f[3])
            except re.error as e:
                sys.exit('judge: %s: bad regular expression %r: %s' % (path, f[3], e))
            where = '%s:%d' % (shown(path), n)
            rec.append(dict(suite='skip', case=f[3], variant=f[0], profile=f[1],
                            policy=star(f[2]), kernel=row_kernel(f, 5, where), outcome='skip',
                            counters='-', reason=f[4], where=where))
    profiles = {f[:-len('.profile')] for f in os.listdir(os.path.join(TOP, 'qemu-profiles'))
                if f.endswith('.profile')}
    cmds = all_group_commands()
    for r in rec:
        where = '%s: %s expectation %r' % (r['where'], r['suite'], r['case'])
        if r['policy'] not in POLICIES + ('*',):
            sys.exit('judge: %s: unknown policy %r' % (where, r['policy']))
        if r['profile'] != '*' and r['profile'] not in profiles:
            sys.exit('judge: %s: no profile qemu-profiles/%s.profile' % (where, r['profile']))
        if not re.match(r'^\d+\.\d+$', r['kernel']):
            sys.exit('judge: %s: kernel line %r is not like %s' % (where, r['kernel'], KERNEL_DEFAULT))
        if r['suite'] != 'scenario':
            continue
        if r['policy'] == '*':
            sys.exit('judge: %s: a scenario row names one policy, not *' % where)
        prog = rec.programs.get(r['case'])
        if prog is None:
            sys.exit('judge: %s: scenario %s is no program\'s (tests/expect/programs.tsv, or a '
                     'cell of tests/expect/backings.tsv)' % (where, r['case']))
        if r['profile'] != '*':
            groups = (profile_vars(r['profile'], r['kernel']) or {}).get('TEST_GROUPS', '').split()
            if not set(groups) & set(cmds[prog]):
                sys.exit('judge: %s: profile %s does not run %s (its TEST_GROUPS: %s; %s is in %s)'
                         % (where, r['profile'], prog, ' '.join(groups) or 'none', prog,
                            ' '.join(cmds[prog])))
    # Overlapping rows: lookup() would take whichever comes first, so that
    # a "*" row before a profile's own row silently replaced it.
    by = {}
    for r in rec:
        if r['suite'] != 'skip':
            by.setdefault((r['suite'], r['case']), []).append(r)
    for rows in by.values():
        for i, a in enumerate(rows):
            for b in rows[i + 1:]:
                if overlap(a, b):
                    sys.exit('judge: %s and %s: overlapping rows: both decide %s %s on profile %s, '
                             'policy %s, kernel %s' % (
                                 a['where'], b['where'], a['suite'], a['case'],
                                 b['profile'] if a['profile'] == '*' else a['profile'],
                                 b['policy'] if a['policy'] == '*' else a['policy'], a['kernel']))
    check_features(rec, rec.backings)
    return rec


def profile_features(profile):
    """The FEATURES a profile declares (what it sets up: thp, hugetlb,
    swap, ksm, pin), as a set; None when there is no such profile."""
    v = profile_vars(profile)
    return None if v is None else set(v['FEATURES'].split())


def load_backings(edir):
    """tests/expect/backings.tsv: {'case': {name: needs}, 'backing': {...}},
    needs a set of features; empty when there is no such file."""
    out = {'case': {}, 'backing': {}}
    path = os.path.join(edir, 'backings.tsv')
    if not os.path.exists(path):
        return out
    for f in tsv_rows(path, 3):
        if f[0] == 'kind':
            continue
        if f[0] not in out:
            sys.exit('judge: %s: kind %r is neither case nor backing' % (path, f[0]))
        if f[1] in out[f[0]]:
            sys.exit('judge: %s: two lines for %s %s' % (path, f[0], f[1]))
        if not re.match(r'^(-|[a-z0-9-]+(,[a-z0-9-]+)*)$', f[2]):
            sys.exit('judge: %s: %s %s: bad needs %r' % (path, f[0], f[1], f[2]))
        out[f[0]][f[1]] = set() if f[2] == '-' else set(f[2].split(','))
    return out


def cell_needs(backings, scenario):
    """What a scenario cell "<case>-<backing>" of the table needs, or None
    when the scenario is not one of the table's cells."""
    for case, cneeds in backings['case'].items():
        b = scenario[len(case) + 1:]
        if scenario.startswith(case + '-') and b in backings['backing']:
            return cneeds | backings['backing'][b]
    return None


def known_features():
    """The features with a setup snippet, qemu-profiles/features/*.setup."""
    d = os.path.join(TOP, 'qemu-profiles', 'features')
    return {f[:-len('.setup')] for f in os.listdir(d) if f.endswith('.setup')} \
        if os.path.isdir(d) else set()


def check_features(rec, backings):
    """A table cell's row may only name a profile that has what it needs;
    what backings.tsv needs is a feature with a setup snippet."""
    known = known_features()
    for kind in ('case', 'backing'):
        for name, needs in backings[kind].items():
            if needs - known:
                sys.exit('judge: tests/expect/backings.tsv: %s %s needs %s, which has no '
                         'qemu-profiles/features/<feature>.setup'
                         % (kind, name, ' '.join(sorted(needs - known))))
    feats = {}
    for r in rec:
        if r['suite'] != 'scenario' or r['profile'] == '*':
            continue
        needs = cell_needs(backings, r['case'])
        if needs is None:
            continue
        if r['profile'] not in feats:
            feats[r['profile']] = profile_features(r['profile']) or set()
        lack = needs - feats[r['profile']]
        if lack:
            sys.exit('judge: scenario expectation %r: profile %s lacks %s (its FEATURES: %s; '
                     'needs from tests/expect/backings.tsv)'
                     % (r['case'], r['profile'], ' '.join(sorted(lack)),
                        ' '.join(sorted(feats[r['profile']])) or 'none'))


def lookup(exp, suite, case, variant, profile, policy, kernel=KERNEL_DEFAULT):
    """The expectation of suite that names this case (exact or wildcard
    profile, policy and variant) on this kernel line: at most one, since
    load_expect() refuses rows that overlap (skips, regular expressions,
    excepted: the first that matches)."""
    for r in exp:
        if r['suite'] != suite or r.get('kernel', KERNEL_DEFAULT) != kernel:
            continue
        if suite == 'skip':
            if not re.search(r['case'], case):
                continue
        elif r['case'] != case:
            continue
        if r['profile'] in ('*', profile) and r['policy'] in ('*', policy) and \
                r['variant'] in ('*', variant):
            return r
    return None


def scenario_cells(exp, variant, profile, kernel, groups, pols):
    """The scenario rows a run must report, the set known before its results
    are read: the rows of its kernel line, for its profile or "*", under a
    policy it runs, whose program (exp.programs) its groups run; a "*" row
    only where the profile has what the cell needs (backings.tsv); on a
    kernel without the sysctl, the exclusive rows but the flips."""
    cmds = {c for g in groups for c in (group_commands(g) or [])}
    feats = None
    out = []
    for r in exp:
        if r['suite'] != 'scenario' or r['kernel'] != kernel or r['policy'] not in pols or \
                r['profile'] not in (profile, '*') or exp.programs.get(r['case']) not in cmds:
            continue
        if r['profile'] == '*':
            needs = cell_needs(exp.backings, r['case'])
            if needs:
                feats = feats if feats is not None else (profile_features(profile) or set())
                if needs - feats:
                    continue
        if variant in NO_SYSCTL and (r['policy'] != 'exclusive' or r['case'].startswith('flip-')):
            continue
        out.append(r)
    return out


def taint_problem(taint):
    """Why the taint flags a program saw appear fail it, or None."""
    try:
        before, after = int(taint['before']), int(taint['after'])
    except (KeyError, TypeError, ValueError):
        return 'unreadable taint line %r' % (taint,)
    new = after & ~before & ~TAINT_ALLOWED
    if not new:
        return None
    flags = ''.join(c for i, c in enumerate(TAINT_LETTERS) if new & (1 << i))
    return 'the kernel was tainted while it ran: %s (new bits 0x%x; tainted %d -> %d)' % (
        flags or '?', new, before, after)


def kernel_policy_problem(pr, policy, variant):
    """Why a program record's policy cannot be trusted: the kernel
    reported (guest/init.sh, "kernel_policy=") another policy than the
    runner set, or nothing at all; None when they agree."""
    kp = pr.get('kernel_policy')
    if kp is None:
        return 'the runner did not report the kernel\'s policy (an image older than the judge?)'
    if kp == policy or (kp == 'none' and variant in NO_SYSCTL and policy == 'exclusive'):
        return None
    return 'the runner set %s, the kernel reported %s' % (policy, kp)


def check_counters(row, result, known, variant=None):
    """Problems of one scenario's counter deltas (its RESULT line) against
    its row: the constraints, within the row's slack, and the total of
    decisions.  A counter the row names, or a decision counter, that the
    line lacks is a problem, not 0: the guest prints every cow_* counter."""
    bad = []
    lo = hi = 0
    open_ = False
    slack = row['slack']
    line = row.get('kernel', KERNEL_DEFAULT)
    absent = [c for c in DECISIONS + PMD_DECISIONS if c not in result and known.on(c, line, variant)]
    absent += [n for n, _, _ in row['constraints'] if n not in result and n not in absent]
    if absent:
        bad.append('%s absent from the RESULT line (the guest prints every cow_* counter: '
                   'an image older than the judge?)' % ' '.join(absent))
    stray = sorted(k for k in result if k.startswith('cow_') and k not in known)
    if stray:
        bad.append('the kernel has %s, which tests/expect/counters.txt does not list'
                   % ' '.join(stray))
    total = sum(int(result.get(c, 0)) for c in DECISIONS + PMD_DECISIONS)
    for name, op, want in row['constraints']:
        if name in DECISIONS + PMD_DECISIONS:
            if op == '>=':
                lo += want
                open_ = True
            elif op == '<=':
                hi += want
            else:
                lo += want
                hi += want
        if name not in result:
            continue
        d = int(result[name])
        if op == '>=':
            ok, want_s = d >= want, '>= %d' % want
        elif op == '<=':
            ok, want_s = d <= want, '<= %d' % want
        elif name in PMD_DECISIONS:
            # The slack covers the program's own stray faults (stack, libc
            # data after a fork): 4 KiB PTE faults, never a PMD decision.
            ok, want_s = d == want, '%d..%d' % (want, want)
        else:
            ok, want_s = want <= d <= want + slack, '%d..%d' % (want, want + slack)
        if not ok:
            bad.append('%s %+d (want %s)' % (name, d, want_s))
    # Every decision the case caused: a policy that decides a page twice, or
    # under a counter the row does not name, fails here even when every
    # named counter moved as stated.
    if open_ and total < lo:
        bad.append('%d decisions in all (want >= %d)' % (total, lo))
    elif not open_ and not lo <= total <= hi + slack:
        bad.append('%d decisions in all (want %d..%d)' % (total, lo, hi + slack))
    return bad


PROFILE_VARS = ('TEST_GROUPS', 'POLICIES', 'KERNEL_CMDLINE', 'FEATURES')


@functools.lru_cache(maxsize=None)
def profile_vars(profile, kernel=KERNEL_DEFAULT, mm_id='n'):
    """The PROFILE_VARS of qemu-profiles/PROFILE.profile as the shell sees
    them after sourcing it with KERNEL set to the kernel line and MM_ID to
    whether the kernel has CONFIG_COW_POLICY_MM_ID (y: the largefolio
    policy runs; one sh per profile, line and MM_ID), or None."""
    path = os.path.join(TOP, 'qemu-profiles', profile + '.profile')
    if not os.path.exists(path):
        return None
    out = subprocess.run(['sh', '-c', '%s; . "$1"; printf "%%s\\n" %s'
                          % (' '.join(v + '=' for v in PROFILE_VARS),
                             ' '.join('"$%s"' % v for v in PROFILE_VARS)),
                          'sh', path], capture_output=True, text=True, check=False,
                         env=dict(os.environ, KERNEL=kernel, MM_ID=mm_id)).stdout
    return dict(zip(PROFILE_VARS, out.split('\n') + [''] * len(PROFILE_VARS)))


def profile_plan(profile, cmdline=None, kernel=KERNEL_DEFAULT, mm_id='n'):
    """(TEST_GROUPS, POLICIES) of a profile, with its command line's
    cowtest.groups= and cowtest.policy=, as guest/init.sh reads them (the
    last one wins). cmdline: the command line the host booted the run with
    (RUNDIR/<run>.cmdline, which scripts/boot/run-qemu.sh writes: make soak
    and make trace run only some of a profile's groups)."""
    v = profile_vars(profile, kernel, mm_id)
    if v is None:
        return None
    groups, pols = v['TEST_GROUPS'], v['POLICIES'] or ' '.join(POLICIES)
    for w in (v['KERNEL_CMDLINE'] + ' ' + (cmdline or '')).split():
        if w.startswith('cowtest.groups='):
            groups = w.split('=', 1)[1].replace(',', ' ')
        elif w.startswith('cowtest.policy='):
            pols = w.split('=', 1)[1]
    return groups.split(), pols.split()


def group_commands(group):
    """The "program args" lines of a group list, or None."""
    path = os.path.join(TOP, 'tests', 'groups', group + '.list')
    if not os.path.exists(path):
        return None
    return [s for s in (line.split('#', 1)[0].strip() for line in open(path)) if s]


def group_programs(group):
    """The runner's names of a group's programs ("prog args" with spaces as _)."""
    cmds = group_commands(group)
    return None if cmds is None else [c.replace(' ', '_') for c in cmds]


class Judge:
    def __init__(self, exp, recs, rundir=None):
        self.exp, self.recs, self.out, self.rundir = exp, recs, [], rundir
        self.kernel = KERNEL_DEFAULT

    def cell(self, run, policy, program, case, suite, verdict, why=''):
        self.out.append(dict(run=run, policy=policy, program=program, case=case,
                             suite=suite, verdict=verdict, why=why))

    def skip_rule(self, run, variant, profile, policy, program, case, why):
        """A skip is a pass only when a rule expects it."""
        key = '%s/%s: %s' % (policy, program, case)
        r = lookup(self.exp, 'skip', key, variant, profile, policy, self.kernel)
        if r:
            self.cell(run, policy, program, case, 'skip', 'skip', r['reason'])
        else:
            self.cell(run, policy, program, case, 'skip', 'fail',
                      'skipped (%s) and no rule in tests/expect/skips.tsv expects it' % why)

    def scenario(self, run, variant, profile, policy, program, c):
        res = c['result']
        sc = res['scenario']
        row = lookup(self.exp, 'scenario', sc, variant, profile, policy, self.kernel)
        if not row:
            self.cell(run, policy, program, sc, 'scenario', 'fail',
                      'no expectation row for %s (profile %s, policy %s)' % (sc, profile, policy))
            return
        bad = []
        if res.get('policy') != policy:
            bad.append('the RESULT line says policy %s, its program ran under %s'
                       % (res.get('policy'), policy))
        if res.get('outcome') != row['outcome']:
            bad.append('outcome %s (expected %s)' % (res.get('outcome'), row['outcome']))
        if row['constraints']:
            has = res.get('counters')
            if variant in NO_SYSCTL:
                pass            # CONFIG_COW_POLICY=n: no cow_* counters to check
            elif has != 'yes':
                bad.append('counters %s: the kernel reported no cow_* counters' % row['counters'])
            else:
                # The slack is the row's (slack=), whatever the guest says.
                bad += check_counters(row, res, self.exp.counters, variant)
        self.cell(run, policy, program, sc, 'scenario', 'fail' if bad else 'pass',
                  '; '.join(bad) if bad else row['reason'])

    def judge_run(self, variant, profile):
        run = '%s-%s' % (variant, profile)
        recs = [r for r in self.recs if r['variant'] == variant and r['profile'] == profile]
        if not recs:
            self.cell(run, '-', '-', '-', 'run', 'fail',
                      'no results: the run did not start, or its TAP is empty')
            return
        # The rows of the run's kernel line: uname -r, as its log says.
        release = run_kernel(self.rundir, run) if self.rundir else KERNEL_DEFAULT + '.0'
        m = re.match(r'^(\d+\.\d+)', release or '')
        if not m:
            self.cell(run, '-', '-', '-', 'run', 'fail',
                      'no kernel release in %s.log (COWTEST-BOOT kernel=, or the header\'s '
                      '"# kernel:"): which rows apply is unknown' % run)
            return
        self.kernel = m.group(1)
        cmdline = None
        if self.rundir and os.path.exists(os.path.join(self.rundir, run + '.cmdline')):
            with open(os.path.join(self.rundir, run + '.cmdline')) as f:
                cmdline = f.read()
        plan = profile_plan(profile, cmdline, self.kernel, run_mm_id(self.rundir, run))
        if plan is None:
            self.cell(run, '-', '-', '-', 'run', 'fail', 'no profile qemu-profiles/%s.profile' % profile)
            return
        groups, pols = plan
        # A run that plans nothing proves nothing: no group, no policy, or
        # groups without a program.
        if not pols or not any(group_programs(g) for g in groups):
            self.cell(run, '-', '-', '-', 'run', 'fail',
                      'the run plans nothing (profile %s: groups "%s", policies "%s")'
                      % (profile, ' '.join(groups), ' '.join(pols)))
        progs = {(r['policy'], r['program']): r for r in recs if r['kind'] == 'program'}
        runner = {r['name']: r for r in recs if r['kind'] == 'runner'}
        for r in runner.values():
            m = re.match(r'^(\w+)/(\S+)', r['name'])
            why = taint_problem(r['taint']) if 'taint' in r else None
            if why:
                self.cell(run, '-', '-', r['name'], 'runner', 'fail', why)
            if r['status'] == 'fail':
                self.cell(run, m.group(1) if m else '-', m.group(2) if m else '-', r['name'],
                          'runner', 'fail', r.get('problem') or 'the runner failed it')
            elif r['status'] == 'skip':
                if m and variant in NO_SYSCTL and m.group(1) != 'exclusive' and \
                        r['skip_reason'] == 'no cow_policy':
                    self.cell(run, m.group(1), m.group(2), '-', 'runner', 'skip',
                              'no vm.cow_policy on %s: only exclusive runs' % variant)
                else:
                    self.skip_rule(run, variant, profile, m.group(1) if m else '-',
                                   m.group(2) if m else '-', r['name'], r['skip_reason'])
        # A program while which the kernel got a new taint bit fails.
        for (p, n), pr in sorted(progs.items()):
            why = taint_problem(pr['taint']) if 'taint' in pr else None
            if why:
                self.cell(run, p, n, 'taint', 'taint', 'fail', why)
        # Every (policy, program) the profile plans.
        for g in groups:
            names = group_programs(g)
            if names is None:
                self.cell(run, '-', '-', g, 'run', 'fail', 'no group tests/groups/%s.list' % g)
                continue
            for p in pols:
                for n in names:
                    pr = progs.get((p, n))
                    kpol = kernel_policy_problem(pr, p, variant) if pr is not None else None
                    skipped = '%s/%s' % (p, n) in runner and runner['%s/%s' % (p, n)]['status'] == 'skip'
                    failed = any(x.startswith('%s/%s ' % (p, n)) for x in runner)
                    if pr is None and not skipped and not failed:
                        self.cell(run, p, n, '-', 'program', 'fail', 'planned by the profile, did not run')
                    elif kpol:
                        self.cell(run, p, n, '-', 'program', 'fail', kpol)
                    elif pr is not None and pr['status'] == 'fail':
                        why = '; '.join(pr['problems']) or 'failed in the guest (%s)' % pr['runner_point']
                        self.cell(run, p, n, '-', 'program', 'fail', why)
                    elif pr is not None:
                        self.cell(run, p, n, '-', 'program', 'pass')
        # Cases.
        seen_sc, upstream = set(), {}
        for c in (r for r in recs if r['kind'] == 'case'):
            p, prog, res = c['policy'], c['program'], c.get('result') or {}
            if 'scenario' in res and 'outcome' in res:
                seen_sc.add((res['scenario'], p))
                self.scenario(run, variant, profile, p, prog, c)
            elif prog.startswith('upstream_suite'):
                suite = 'upstream/' + res.get('suite', '?')
                upstream.setdefault(suite, {}).setdefault(p, set()).add(c['name'])
                self.upstream(run, variant, profile, p, prog, suite, c['name'], res)
                continue
            elif prog.startswith('vm_selftest'):
                self.vmtest(run, variant, profile, p, prog, c['name'], res)
                continue
            if c['status'] == 'fail':
                self.cell(run, p, prog, c['name'], 'case', 'fail', 'the program asserted it')
            elif c['status'] == 'skip':
                self.case_skip(run, variant, profile, p, prog, c)
            elif 'scenario' not in res:
                self.cell(run, p, prog, c['name'], 'case', 'pass')
        # Every scenario cell of this run must have run: a "*" row on every
        # profile whose groups run its program (scenario_cells()).
        for r in scenario_cells(self.exp, variant, profile, self.kernel, groups, pols):
            if (r['case'], r['policy']) not in seen_sc:
                seen_sc.add((r['case'], r['policy']))
                self.cell(run, r['policy'], '-', r['case'], 'scenario', 'fail',
                          'expected %s, did not run' % r['outcome'])
        # Upstream: every case one policy ran, every policy ran; every
        # expected failure ran.
        for suite, by_pol in upstream.items():
            union = set().union(*by_pol.values())
            for p in pols:
                if variant in NO_SYSCTL and p != 'exclusive':
                    continue
                for name in sorted(union - by_pol.get(p, set())):
                    self.cell(run, p, suite, name, suite, 'fail', 'ran under another policy, not this one')
                for r in self.exp:
                    if r['suite'] == suite and r['policy'] in ('*', p) and r['kernel'] == self.kernel and \
                            r['case'] not in by_pol.get(p, set()):
                        self.cell(run, p, suite, r['case'], suite, 'fail',
                                  'expected to %s, did not run' % ('XFAIL' if r['outcome'] == 'xfail' else 'fail'))
        # 6.1 selftests: every invocation of the list, every policy.
        if 'vmtests' in groups:
            listed = [n for n in group_programs('vmtests') if n.startswith('vm_selftest_')]
            for p in pols:
                if variant in NO_SYSCTL and p != 'exclusive':
                    continue
                for n in listed:
                    if not any(c['program'] == n and c['policy'] == p for c in recs if c['kind'] == 'case'):
                        if (p, n) in progs:
                            self.cell(run, p, n, '-', 'vm-selftest', 'fail', 'printed no VMSELFTEST line')

    def unpatched_agrees(self, runs):
        """Exclusive, on every kernel with the sysctl, gives what the
        unpatched kernel of its line (variant stock) gives, case by case: on 6.1's selftests
        (profile vmtests) every invocation, and on upstream's suite
        (profile upstream) every case, so that a failure or skip the
        expectations call 6.1's own (upstream.tsv's "all" rows, the skips
        of skips.tsv for every variant) is unpatched 6.1's too.  A case
        unpatched 6.1 skipped by a rule of its own (skips.tsv, variant
        stock: it lacks a test interface of the series) is not compared,
        and says so with the claim it leaves unmeasured.  With no
        unpatched run among the runs judged there is nothing to compare,
        and that is a skip that says so, not a pass."""
        for profile, suite in UNPATCHED_PROFILES.items():
            res = {}
            for c in self.recs:
                if c['kind'] == 'case' and c['profile'] == profile and c['policy'] == 'exclusive' and \
                        c['program'].startswith('vm_selftest' if profile == 'vmtests' else 'upstream_suite'):
                    key = c['name'] if profile == 'vmtests' else '%s: %s' % (c['program'], c['name'])
                    res.setdefault(c['variant'], {})[key] = (c['result'].get('result', '?'), c)
            mine = [v for v, p in runs if p == profile and v not in NO_SYSCTL]
            if not mine:
                continue
            base = res.get('stock')
            unpatched = 'unpatched ' + self.kernel
            for v in mine:
                run = '%s-%s' % (v, profile)
                if ('stock', profile) not in runs:
                    self.cell(run, 'exclusive', '-', '-', suite + '/unpatched', 'skip',
                              'not compared with the unpatched kernel: stock:%s is not among the runs '
                              'judged (make test-stock boots it); exclusive is judged against the '
                              'expectation rows alone' % profile)
                    continue
                if base is None:
                    self.cell(run, 'exclusive', '-', '-', suite + '/unpatched', 'fail',
                              'not compared with %s: no stock:%s results' % (unpatched, profile))
                    continue
                for key in sorted(set(base) | set(res.get(v, {}))):
                    a = res.get(v, {}).get(key, ('did not run', None))
                    b = base.get(key, ('did not run', None))
                    claim = self.claim_61(profile, v, key, a[1] or b[1])
                    rule = self.stock_rule(profile, key, b)
                    if a[0] == b[0]:
                        verdict, why = 'pass', 'exclusive %s, %s %s' % (a[0], unpatched, b[0])
                    elif rule:
                        verdict, why = 'skip', 'not compared: %s skipped it (%s)' % (unpatched, rule['reason'])
                    else:
                        verdict, why = 'fail', 'exclusive %s, %s %s' % (a[0], unpatched, b[0])
                    if claim:
                        why += '; %s claims: %s' % (claim['where'], claim['reason'])
                    self.cell(run, 'exclusive', '-', key, suite + '/unpatched', verdict, why)

    def claim_61(self, profile, variant, key, c):
        """The row that calls a case's result 6.1's own, or None: on
        upstream's suite an expected failure of every policy, or a skip
        rule of every variant."""
        if profile != 'upstream' or c is None:
            return None
        prog, name = key.split(': ', 1)
        r = lookup(self.exp, 'upstream/' + c['result'].get('suite', '?'), name, variant, profile, 'exclusive',
                   self.kernel)
        if r and r['policy'] == '*':
            return r
        r = lookup(self.exp, 'skip', 'exclusive/%s' % key, variant, profile, 'exclusive', self.kernel)
        return r if r and r['variant'] == '*' else None

    def stock_rule(self, profile, key, b):
        """The skip rule of unpatched 6.1's own that let it skip this case
        (skips.tsv, variant stock), or None."""
        if b[0] != 'skip' or profile != 'upstream':
            return None
        r = lookup(self.exp, 'skip', 'exclusive/%s' % key, 'stock', profile, 'exclusive', self.kernel)
        return r if r and r['variant'] == 'stock' else None

    def case_skip(self, run, variant, profile, p, prog, c):
        name, why = c['name'], c.get('skip_reason', '')
        m = re.match(r'^(\S+) \(profile \S+, policy \S+\)$', name)
        if why == 'no expectation' and m:
            # The image has no row for this cell: it is not in this
            # profile's set unless tests/expect has one (then it is a
            # cell that did not run: rebuild the image).
            if lookup(self.exp, 'scenario', m.group(1), variant, profile, p, self.kernel):
                self.cell(run, p, prog, m.group(1), 'scenario', 'fail',
                          'tests/expect has a row, the image did not (make initramfs)')
            return
        if why.startswith('needs '):
            # The scenario table's cell whose needs the profile lacks
            # (tests/expect/backings.tsv against its FEATURES).
            feat = why[len('needs '):]
            if feat in (profile_features(profile) or set()):
                self.cell(run, p, prog, name, 'scenario', 'fail',
                          'skipped (%s), but profile %s has %s (FEATURES): a stale image?'
                          % (why, profile, feat))
            else:
                self.cell(run, p, prog, name, 'scenario', 'skip',
                          'profile %s lacks %s (tests/expect/backings.tsv)' % (profile, feat))
            return
        if why.startswith('no cow_* counters') and variant in NO_SYSCTL:
            self.cell(run, p, prog, name, 'case', 'skip', 'CONFIG_COW_POLICY=n: no counters')
            return
        self.skip_rule(run, variant, profile, p, prog, name, why)

    def upstream(self, run, variant, profile, p, prog, suite, name, res):
        r = res.get('result', '?')
        exp = lookup(self.exp, suite, name, variant, profile, p, self.kernel)
        want = exp['outcome'] if exp else 'pass'
        if r == 'skip':
            self.skip_rule(run, variant, profile, p, prog, name, 'upstream skipped it')
        elif r not in ('pass', 'fail', 'xfail'):
            self.cell(run, p, prog, name, suite, 'fail', 'result %s' % r)
        elif r != want and r == 'xfail':
            self.cell(run, p, prog, name, suite, 'fail',
                      'XFAIL (a leak upstream\'s test expects) with no upstream-xfail.tsv row: '
                      'a detected leak is an observation%s' % (
                          ', the row expects it to fail' if want == 'fail' else ''))
        elif r != want:
            self.cell(run, p, prog, name, suite, 'fail',
                      'failed, not expected to' if want == 'pass' else
                      'expected to %s (%s), %s' % ('XFAIL' if want == 'xfail' else 'fail',
                                                   exp['reason'], 'failed' if r == 'fail' else 'did not'))
        else:
            self.cell(run, p, prog, name, suite, 'pass',
                      ('leak, as expected: ' if r == 'xfail' else '') + (exp['reason'] if exp else ''))

    def vmtest(self, run, variant, profile, p, prog, name, res):
        r = res.get('result', '?')
        exp = lookup(self.exp, 'vm-selftest', name, variant, profile, p, self.kernel)
        want = exp['outcome'] if exp else 'pass'
        rc = res.get('rc', '?')
        if want == 'omitted' and r == 'omitted':
            self.cell(run, p, prog, name, 'vm-selftest', 'skip', 'omitted: ' + exp['reason'])
        elif r != want:
            self.cell(run, p, prog, name, 'vm-selftest', 'fail', 'result %s (rc %s), expected %s' % (r, rc, want))
        elif want == 'fail' and rc != '1':
            # An expected failure is the test's own: exit status 1, not a
            # signal or a crash.
            self.cell(run, p, prog, name, 'vm-selftest', 'fail',
                      'expected failure, but exit status %s is not the test\'s own (1)' % rc)
        elif r == 'skip':
            self.cell(run, p, prog, name, 'vm-selftest', 'skip', exp['reason'])
        else:
            self.cell(run, p, prog, name, 'vm-selftest', 'pass', exp['reason'] if exp else '')


def run_kernel(rdir, run):
    """The kernel release of one run (uname -r in the guest), from its console
    log, as the results model reads it (cowresults.model.log_kernel()); None
    when the log does not say."""
    return log_kernel(os.path.join(rdir, run + '.log'))


def run_mm_id(rdir, run):
    """Whether a run's kernel has the MM owner tracking (y or n), from the
    COWTEST-BOOT banner's mm_id=; n where the banner predates it (no
    largefolio policy then) or there is no log."""
    path = os.path.join(rdir, run + '.log') if rdir else None
    if not path or not os.path.exists(path):
        return 'n'
    with open(path, errors='replace') as f:
        m = re.search(r'COWTEST-BOOT .*\bmm_id=([yn])\b', f.read())
    return m.group(1) if m else 'n'


def run_meta(rdir, run):
    """kernel and accelerator of one run, from its console log's banners."""
    path = os.path.join(rdir, run + '.log')
    accel = log_meta(path)[2] if os.path.exists(path) else ''
    return log_kernel(path) or '?', accel or '?'


def write_matrix(rdir, recs, cells, exp):
    """matrix.md: one row per scenario and run, one column per policy."""
    obs = {}
    for c in recs:
        res = c.get('result') or {}
        if c['kind'] == 'case' and 'scenario' in res and 'outcome' in res:
            run = '%s-%s' % (c['variant'], c['profile'])
            cnt = ' '.join('%s=%s' % (k[4:], v) for k, v in sorted(res.items())
                           if k.startswith('cow_') and v != '0')
            obs[(res['scenario'], run, c['policy'])] = res['outcome'] + (' <sub>%s</sub>' % cnt if cnt else '')
    verdict = {}
    for c in cells:
        if c['suite'] == 'scenario':
            verdict[(c['case'], c['run'], c['policy'])] = c
    order = {}
    for r in exp:
        if r['suite'] == 'scenario':
            order.setdefault(r['case'], len(order))
    rows = sorted({(k[0], k[1]) for k in verdict}, key=lambda k: (order.get(k[0], 9999), k[1]))
    runs = sorted({k[1] for k in rows})
    meta = ', '.join('%s: kernel %s, accel %s' % ((r,) + run_meta(rdir, r)) for r in runs)
    try:
        commit = subprocess.run(['git', '-C', TOP, 'describe', '--always', '--dirty'],
                                capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        commit = '?'
    nbad = sum(1 for v in verdict.values() if v['verdict'] == 'fail')
    lines = ['# Scenario matrix, run %s' % os.path.basename(os.path.normpath(rdir)), '',
             'Judged %s at commit %s (scripts/report/judge.py). %s.' % (
                 datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC'),
                 commit or '?', meta),
             '%d cells, %d failed. Expectations: `tests/expect/scenarios.tsv`; counters are '
             '/proc/vmstat deltas without the `cow_` prefix.' % (len(verdict), nbad), '',
             '| scenario | run | ' + ' | '.join(POLICIES) + ' |',
             '| --- | --- |' + ' --- |' * len(POLICIES)]
    for sc, run in rows:
        out = []
        for p in POLICIES:
            v = verdict.get((sc, run, p))
            o = obs.get((sc, run, p))
            if v is None:
                out.append('-')
            elif v['verdict'] == 'fail':
                out.append('**FAIL** %s (%s)' % (o or 'not run', v['why']))
            else:
                out.append(o or '?')
        lines.append('| %s | %s | %s |' % (sc, run, ' | '.join(out)))
    with open(os.path.join(rdir, 'matrix.md'), 'w') as f:
        f.write('\n'.join(lines) + '\n')


def main():
    ap = argparse.ArgumentParser(description='the one judge of a run directory')
    ap.add_argument('rundir')
    ap.add_argument('--runs', default=None,
                    help='the runs expected, "variant:profile ..." (default: those present)')
    ap.add_argument('--only', default=None,
                    help='judge this one run, "variant:profile", and nothing else of RUNDIR '
                         '(scripts/boot/run-qemu.sh after each run)')
    ap.add_argument('--expect', default=os.path.join(TOP, 'tests', 'expect'))
    a = ap.parse_args()
    path = os.path.join(a.rundir, 'results.jsonl')
    if a.only and ':' in a.only:
        # One run's records (results.py --only), when it wrote them.
        own = os.path.join(a.rundir, '%s-%s.results.jsonl' % tuple(a.only.split(':', 1)))
        if os.path.exists(own):
            path = own
    if not os.path.exists(path):
        sys.exit('judge: no %s (run scripts/report/results.py %s first)' % (path, a.rundir))
    recs = load_jsonl(path)
    exp = load_expect(a.expect)
    if a.runs is None:
        # The runs present: those with records, and every guest run's TAP
        # file (one without records fails as "no results").
        taps = {tuple(m.groups()) for m in (re.match(r'^([a-z0-9]+)-([a-z0-9]+)\.tap$', f)
                                            for f in os.listdir(a.rundir)) if m}
        runs = sorted({(r['variant'], r['profile']) for r in recs} | taps)
    else:
        runs = []
        for vp in a.runs.split():
            if ':' not in vp:
                sys.exit('judge: --runs: %r is not variant:profile' % vp)
            runs.append(tuple(vp.split(':', 1)))
    if a.only:
        if ':' not in a.only:
            sys.exit('judge: --only: %r is not variant:profile' % a.only)
        runs = [tuple(a.only.split(':', 1))]
        recs = [r for r in recs if (r['variant'], r['profile']) == runs[0]]
    j = Judge(exp, recs, a.rundir)
    for v, p in runs:
        j.judge_run(v, p)
    if not a.only:
        j.unpatched_agrees(runs)
    for v, p in sorted({(r['variant'], r['profile']) for r in recs} - set(runs)):
        j.cell('%s-%s' % (v, p), '-', '-', '-', 'run', 'fail', 'not in the expected runs')
    # One run's judgement beside its TAP; the whole directory's in
    # judgement.jsonl with the scenario matrix.
    out = os.path.join(a.rundir, ('%s-%s.judgement.jsonl' % runs[0]) if a.only else 'judgement.jsonl')
    with open(out + '.tmp', 'w') as f:
        for c in j.out:
            f.write(json.dumps(c, sort_keys=True) + '\n')
    os.replace(out + '.tmp', out)
    if not a.only:
        write_matrix(a.rundir, recs, j.out, exp)
    n = {v: sum(1 for c in j.out if c['verdict'] == v) for v in ('pass', 'fail', 'skip')}
    by = {}
    for c in j.out:
        s = c['suite'].split('/')[0]
        by[s] = by.get(s, 0) + 1
    print('judge: %d cells (%d passed, %d failed, %d skipped by rule) in %d runs: %s'
          % (len(j.out), n['pass'], n['fail'], n['skip'], len(runs),
             ', '.join('%s %d' % kv for kv in sorted(by.items()))))
    fails = [c for c in j.out if c['verdict'] == 'fail']
    for c in fails[:LIST_MAX]:
        print('fail: %s %s/%s: %s: %s' % (c['run'], c['policy'], c['program'], c['case'], c['why']))
    if len(fails) > LIST_MAX:
        print('fail: ... %d more in %s' % (len(fails) - LIST_MAX,
                                          os.path.join(a.rundir, 'judgement.jsonl')))
    for line in quote_failures(a.rundir, recs, fails):
        print(line)
    if not j.out:
        print('judge: nothing was judged (no run, no cell): a run that proves nothing fails')
        return 1
    return 1 if n['fail'] else 0


def quote_failures(rundir, recs, fails):
    """What the guest printed for the first QUOTE_PROGRAMS programs with a
    failed cell: QUOTE_LINES lines of the program's block in its run's TAP
    (scripts/report/results.py's "lines"), ending at the failed case's own
    line where the block names it, else at the block's end. A CI log is
    often all a reader gets: a verdict alone does not say which check of
    the program failed."""
    progs = {('%s-%s' % (r['variant'], r['profile']), r['policy'], r['program']): r
             for r in recs if r['kind'] == 'program' and r.get('lines')}
    out, seen = [], []
    for c in fails:
        key = (c['run'], c['policy'], c['program'])
        if key in seen or key not in progs:
            continue
        seen.append(key)
        if len(seen) > QUOTE_PROGRAMS:
            break
        tap = os.path.join(rundir, '%s.tap' % c['run'])
        first, last = progs[key]['lines']
        try:
            block = [(n, line) for n, line in results.tap_lines(tap) if first <= n <= last]
        except OSError:
            continue
        end = len(block)
        name = str(c['case'])
        for i, (_, line) in enumerate(block):
            if name and name != '-' and (line.endswith(' ' + name) or 'name=' + name in line):
                end = i + 1
        shown = block[max(0, end - QUOTE_LINES):end]
        if not shown:
            continue
        out.append('output of %s %s/%s (%s lines %d-%d):'
                   % (c['run'], c['policy'], c['program'], os.path.basename(tap),
                      shown[0][0], shown[-1][0]))
        out += ['  | ' + line.strip() for _, line in shown]
    return out


if __name__ == '__main__':
    sys.exit(main())
