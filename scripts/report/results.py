#!/usr/bin/env python3
"""scripts/report/results.py RUNDIR [--only V-P]: one parser for the guest runs' TAP.

Reads every <variant>-<profile>.tap of a run (the runner's TAP that
scripts/boot/run-qemu.sh cut from the console: one top-level point per
(policy, program), each program's own TAP indented by four spaces under
"# policy=P test=T") and writes RUNDIR/results.jsonl, one JSON object per
line:

  {"kind": "case", "run", "variant", "profile", "policy", "program",
   "n", "name", "status": "pass"|"fail"|"skip"|"xfail", "skip_reason",
   "result": {key: value, ...}}       one test point of a program; "result"
                                       holds the "# RESULT k=v ..." line
                                       printed just before it, if any
  {"kind": "program", "run", "variant", "profile", "policy", "program",
   "status", "planned", "cases", "problems": [...], "lines": [FIRST, LAST],
   "kernel_policy"}
                                       one program run (the runner's point);
                                       "lines": where its output lies in
                                       the TAP file (1-based, inclusive),
                                       which the judge quotes when it fails
                                       a cell of it; "kernel_policy": what
                                       /proc/sys/vm/cow_policy said before
                                       it ran ("none": no such file; null:
                                       an image that did not say)
  {"kind": "runner", "run", "variant", "profile", "n", "name", "status"}
                                       a runner point that is no program
                                       (guest setup, a missing group)

A program or runner record has "taint": {"before": N, "after": N} when the
runner printed "# TAINT ... before=N after=N" just before its point: the
kernel's taint flags (/proc/sys/kernel/tainted) changed while it ran.

A program is "fail" when the runner failed it or when its own TAP cannot
be trusted: no plan, a plan that disagrees with the points it printed,
points out of sequence, or nothing at all.  Statuses are what the guest
observed (an upstream case expected to fail is "fail" here); the verdict
is scripts/report/judge.py's.  Prints one line, "N cases observed (P ok, F not
ok, S skipped) of G program runs in R guest runs", then one "problem: ..."
line per program with a problem; exits 1 when there is one.
"""
import json
import os
import re
import sys

# A test point as TAP 13 and KTAP write it: the number may be left out (it
# is then the next one), the description's dash too, and a directive is
# case-insensitive ("# skip", "# SKIP", "# Skipped: why").
POINT = re.compile(r'^(not ok|ok)(?=\s|$)(?: +(\d+))?(?: *-? *(.*?))?(?: *# *(SKIP|TODO)\S* *(.*))?$', re.I)
BAIL = re.compile(r'^Bail out!\s*(.*)$')
PLAN = re.compile(r'^1\.\.(\d+)')
PROG = re.compile(r'^# policy=(\S+) test=(\S+)(?: kernel_policy=(\S+))?')
TAINT = re.compile(r'^# TAINT (.*)$')
KV = re.compile(r'(\w+)=(\S+)')


ADAPTER = re.compile(r'^# (UPSTREAM-CASE|VMSELFTEST) (.*)$')


def adapter_case(kind, text):
    """One case line of an adapter, as observed: whether a failure was the
    expected one is scripts/report/judge.py's business."""
    head, _, name = text.partition(' name=')
    kv = dict(KV.findall(head))
    r = kv.get('result', '?')
    # XFAIL: the upstream test detected what it knows to go wrong (a leak)
    # and said so; an observation of its own, never a pass.
    status = {'skip': 'skip', 'pass': 'pass', 'xfail': 'xfail'}.get(r, 'fail')
    case = {'n': 0, 'name': name, 'status': status, 'result': kv}
    if status == 'skip':
        case['skip_reason'] = 'the upstream program skipped (%s)' % kind
    return case


def point_fields(m):
    """(ok, number or None, description, directive in capitals or None,
    reason) of a POINT match."""
    ok, n, name, directive, why = m.groups()
    return (ok.lower(), int(n) if n else None, name,
            directive.upper() if directive else None, why)


def parse_program(lines):
    """The indented TAP of one program: (cases, planned, problems)."""
    cases, planned, problems, result, adapted = [], None, [], None, []
    for raw in lines:
        line = raw[4:] if raw.startswith('    ') else raw.lstrip()
        m = PLAN.match(line)
        if m:
            if planned is not None:
                problems.append('two plans')
            planned = int(m.group(1))
            continue
        if line.startswith('# RESULT '):
            result = dict(KV.findall(line[len('# RESULT '):]))
            continue
        m = ADAPTER.match(line)
        if m:
            adapted.append(adapter_case(m.group(1), m.group(2)))
            continue
        m = BAIL.match(line)
        if m:
            problems.append('bailed out%s' % (': ' + m.group(1) if m.group(1) else ''))
            continue
        m = POINT.match(line)
        if not m:
            continue
        ok, n, name, directive, why = point_fields(m)
        status = 'fail' if ok == 'not ok' else ('skip' if directive == 'SKIP' else 'pass')
        n = len(cases) + 1 if n is None else n
        if n != len(cases) + 1:
            problems.append('point %s out of sequence (expected %d)' % (n, len(cases) + 1))
        case = {'n': n, 'name': name or '', 'status': status}
        if status == 'skip':
            case['skip_reason'] = why or ''
        if result is not None:
            case['result'] = result
            result = None
        cases.append(case)
    if adapted and not cases and planned is None:
        # an adapter (guest/adapters/upstream_suite.sh, guest/adapters/vm_selftest.sh): the
        # upstream program's TAP is nested deeper; its case lines are ours
        for k, case in enumerate(adapted):
            case['n'] = k + 1
        return adapted, len(adapted), problems
    if not cases and planned is None:
        problems.append('printed no TAP')
    elif planned is None:
        problems.append('no plan (%d points)' % len(cases))
    elif planned != len(cases):
        problems.append('planned %d points, printed %d' % (planned, len(cases)))
    return cases, planned, problems


def tap_lines(path):
    """(line number, line) of a TAP file: numbered as sed and editors number
    them (a lone carriage return, a program's progress meter, splits a line
    for the parser but does not count)."""
    with open(path, errors='replace', newline='') as f:
        for lineno, physical in enumerate(f.read().split('\n'), 1):
            for raw in physical.splitlines():
                yield lineno, raw


def parse_tap(path, run, variant, profile):
    """Records of one guest run's TAP file."""
    recs, prog, body, taint, first = [], None, [], None, 0
    base = {'run': run, 'variant': variant, 'profile': profile}
    plan, points, bail, kpol = None, 0, None, None
    for lineno, raw in tap_lines(path):
        m = PROG.match(raw)
        if m:
            prog, body, first = m.groups()[:2], [], lineno
            kpol = m.group(3)
            continue
        m = TAINT.match(raw)
        if m:
            kv = dict(KV.findall(m.group(1)))
            taint = {'before': kv.get('before', '?'), 'after': kv.get('after', '?')}
            continue
        if raw.startswith('    ') or raw.startswith('\t'):
            body.append(raw)
            continue
        m = PLAN.match(raw)
        if m:
            plan = int(m.group(1)) if plan is None else -1
            continue
        m = BAIL.match(raw)
        if m and bail is None:
            bail = m.group(1) or 'no reason given'
            continue
        m = POINT.match(raw)
        if not m:
            continue
        ok, n, name, directive, why = point_fields(m)
        points += 1
        n = points if n is None else n
        status = 'fail' if ok == 'not ok' else ('skip' if directive == 'SKIP' else 'pass')
        if prog and name and name.startswith(prog[0] + '/' + prog[1]):
            policy, program = prog
            cases, planned, problems = parse_program(body)
            for c in cases:
                recs.append(dict(base, kind='case', policy=policy, program=program, **c))
            if problems and status == 'pass':
                status = 'fail'
            recs.append(dict(base, kind='program', policy=policy, program=program,
                             status=status, planned=planned, cases=len(cases),
                             problems=problems, runner_point=name,
                             lines=[first, lineno], kernel_policy=kpol))
        else:
            recs.append(dict(base, kind='runner', n=n, name=name or '', status=status,
                             skip_reason=why or '' if status == 'skip' else ''))
        if taint is not None:
            recs[-1]['taint'] = taint
        prog, body, taint = None, [], None
    # The runner's own TAP: a bail-out, or a plan that is missing, given
    # twice or not the number of points, is a failed runner point.
    why = None
    if bail is not None:
        why = 'the runner bailed out: %s' % bail
    elif plan is None:
        why = 'the runner printed no plan (%d points)' % points
    elif plan < 0:
        why = 'the runner printed two plans'
    elif plan != points:
        why = 'the runner planned %d points, printed %d' % (plan, points)
    if why:
        recs.append(dict(base, kind='runner', n=points + 1, name='runner', status='fail',
                         skip_reason='', problem=why))
    return recs


def main():
    args = sys.argv[1:]
    only = None
    if len(args) == 3 and args[1] == '--only':
        only = args[2]
    elif len(args) != 1:
        args = []
    if not args or not os.path.isdir(args[0]):
        sys.exit('usage: results.py RUNDIR [--only VARIANT-PROFILE] '
                 '(a directory of <variant>-<profile>.tap files)')
    rdir = args[0]
    run = os.path.basename(os.path.normpath(rdir))
    recs, guests = [], 0
    for f in sorted(os.listdir(rdir)):
        m = re.match(r'^([a-z0-9]+)-([a-z0-9]+)\.tap$', f)
        if not m or (only and '%s-%s' % m.groups() != only):
            continue
        guests += 1
        recs += parse_tap(os.path.join(rdir, f), run, m.group(1), m.group(2))
    # --only: one run's records beside its TAP, so that runs finishing side
    # by side (make -j) never write the same file.
    name = '%s.results.jsonl' % only if only else 'results.jsonl'
    tmp = os.path.join(rdir, name + '.tmp')
    with open(tmp, 'w') as out:
        for r in recs:
            out.write(json.dumps(r, sort_keys=True) + '\n')
    os.replace(tmp, os.path.join(rdir, name))
    cases = [r for r in recs if r['kind'] == 'case']
    progs = [r for r in recs if r['kind'] == 'program']
    count = {s: sum(1 for c in cases if c['status'] == s) for s in ('pass', 'fail', 'skip', 'xfail')}
    print('%d cases observed (%d ok, %d not ok, %d skipped%s) of %d program runs in %d guest runs'
          % (len(cases), count['pass'], count['fail'], count['skip'],
             ', %d XFAIL' % count['xfail'] if count['xfail'] else '', len(progs), guests))
    bad = [p for p in progs if p['problems']]
    for p in bad:
        print('problem: %s-%s %s/%s: %s' % (p['variant'], p['profile'], p['policy'],
                                           p['program'], '; '.join(p['problems'])))
    runner = [r for r in recs if r['kind'] == 'runner' and r.get('problem')]
    for r in runner:
        print('problem: %s-%s: %s' % (r['variant'], r['profile'], r['problem']))
    return 1 if bad or runner or not guests else 0


if __name__ == '__main__':
    sys.exit(main())
