#!/usr/bin/env python3
"""tests/host/fake_run.py OUT VARIANT PROFILE [MUTATION...]: a made-up
guest run for make check (scripts/check/check.sh), written as the results disk
holds it: OUT/VARIANT-PROFILE.tap and a console log with the banners.

Every program the profile plans prints one passing point; every scenario
cell the judge requires of the run (judge.scenario_cells(): the rows of
tests/expect/scenarios.tsv for the profile, and the "*" rows whose program
it runs) prints a RESULT line with exactly the expected outcome and every
cow_* counter (tests/expect/counters.txt, zeros included), so the run is
clean as made.
A MUTATION reopens one hole ("A+B": two at once):

  drop=SCENARIO[/POLICY] the cell never ran (under POLICY only, if given)
  outcome=SCENARIO:X     the cell observed X
  counter=SCENARIO:N=V   counter N moved by V in that cell
  counters=missing       the kernel had no cow_* counters (a cow variant)
  noprog=PROGRAM         the program never ran under any policy
  skip=PROGRAM           the program skipped its one case, with no rule
  vmfail=INVOCATION:RC   a selftest expected to fail exited with RC
  vmresult=INVOCATION:R  a selftest's result was R (on a kernel with the sysctl)
  upstream=NAME          an upstream cow case that ran under exclusive only
  upresult=NAME:R        the upstream cow case NAME (added if need be) had
                         result R under every policy
  stockresult=NAME:R     on a kernel without the sysctl (stock, nocow), the
                         upstream cow case NAME had result R
  needs=SCENARIO:FEATURE the cell was skipped with "needs FEATURE" (the
                         scenario table's skip, tests/guest/scn_backings.c)
  cmdline=WORDS          the host booted the run with WORDS (comma for
                         space) as its command line (OUT/<run>.cmdline)
  taint=PROGRAM:B:A      the runner's "# TAINT" line for PROGRAM under the
                         first policy: /proc/sys/kernel/tainted went from
                         B to A while it ran
  nocounter=SCENARIO:N   counter N is absent from that cell's RESULT line
  slack=S                every RESULT line says slack=S, as the guests
                         before the host's slack did
  kernel=RELEASE         the guest's uname -r (COWTEST-BOOT), 6.1.0-fake
                         by default; the rows of its kernel line report
  kpolicy=POLICY:X       the kernel reported policy X (X "-": nothing) before
                         every program the runner ran under POLICY
  rpolicy=SCENARIO:X     that cell's RESULT line says policy=X
  expect=DIR             the image's expectations are DIR's, not
                         tests/expect (the guest runs a case only where
                         its own copy has a row)
"""
import os
import subprocess
import sys

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(top, 'scripts', 'report'))
import judge  # noqa: E402


def kernel_policy(mut, variant):
    """The runner's " kernel_policy=" field for a block of POLICY."""
    def f(policy):
        want, _, x = mut.get('kpolicy', '').partition(':')
        if want == policy:
            return '' if x == '-' else ' kernel_policy=' + x
        return ' kernel_policy=' + ('none' if variant in judge.NO_SYSCTL else policy)
    return f


def main():
    out, variant, profile = sys.argv[1:4]
    mut = {}
    for m in (part for a in sys.argv[4:] for part in a.split('+')):
        k, _, v = m.partition('=')
        mut[k] = v
    exp = judge.load_expect(mut.get('expect') or os.path.join(top, 'tests', 'expect'))
    kpol = kernel_policy(mut, variant)
    cmdline = mut.get('cmdline', '').replace(',', ' ') or None
    if cmdline:
        with open(os.path.join(out, '%s-%s.cmdline' % (variant, profile)), 'w') as f:
            f.write(cmdline + '\n')
    groups, pols = judge.profile_plan(profile, cmdline)
    release = mut.get('kernel', '6.1.0-fake')
    line = '.'.join(release.split('.')[:2])
    tap = ['TAP version 13']
    n = 0
    for p in pols:
        for g in groups:
            for cmd in judge.group_commands(g):
                prog = cmd.replace(' ', '_')
                if prog == mut.get('noprog'):
                    continue
                n += 1
                if variant in judge.NO_SYSCTL and p != 'exclusive':
                    tap.append('ok %d - %s/%s # SKIP no cow_policy' % (n, p, prog))
                    continue
                body = []
                if prog.startswith('vm_selftest_'):
                    inv = cmd[len('vm_selftest '):]
                    r = judge.lookup(exp, 'vm-selftest', inv, variant, profile, p, line)
                    res, rc = (r['outcome'], {'fail': '1', 'skip': '4'}.get(r['outcome'], '0')) \
                        if r else ('pass', '0')
                    vr = mut.get('vmresult', '')
                    if vr and vr.rsplit(':', 1)[0] == inv and variant not in judge.NO_SYSCTL:
                        res = vr.rsplit(':', 1)[1]
                    vf = mut.get('vmfail', '')
                    if vf and vf.rsplit(':', 1)[0] == inv:
                        rc = vf.rsplit(':', 1)[1]
                    body.append('# VMSELFTEST policy=%s sysctl=%s result=%s expected=%s '
                                'rc=%s secs=1 name=%s' % (p, 'no' if variant in judge.NO_SYSCTL else 'yes',
                                                          res, res, rc, inv))
                elif prog.startswith('upstream_suite_'):
                    suite = cmd[len('upstream_suite '):]
                    names = sorted({r['case'] for r in exp if r['suite'] == 'upstream/' + suite}) \
                        + ['a passing case']
                    if p == 'exclusive' and mut.get('upstream'):
                        names.append(mut['upstream'])
                    forced = {}
                    for k in ('upresult', 'stockresult'):
                        if mut.get(k) and suite == 'cow' and \
                                (k == 'upresult' or variant in judge.NO_SYSCTL):
                            nm, res = mut[k].rsplit(':', 1)
                            forced[nm] = res
                            if nm not in names:
                                names.append(nm)
                    for name in names:
                        r = judge.lookup(exp, 'upstream/' + suite, name, variant, profile, p, line)
                        res = forced.get(name, r['outcome'] if r else 'pass')
                        body.append('# UPSTREAM-CASE suite=%s policy=%s result=%s expected=%s name=%s'
                                    % (suite, p, res, 'yes' if r else 'no', name))
                else:
                    body += ['TAP version 13', '1..1']
                    body.append('ok 1 - %s # SKIP fake' % prog if prog == mut.get('skip')
                                else 'ok 1 - %s' % prog)
                tap.append('# policy=%s test=%s%s' % (p, prog, kpol(p)))
                tap += ['    ' + b for b in body]
                tn, _, tv = mut.get('taint', '').partition(':')
                if tn == prog and p == pols[0]:
                    tb, _, ta = tv.partition(':')
                    tap.append('# TAINT policy=%s test=%s before=%s after=%s' % (p, prog, tb, ta))
                tap.append('ok %d - %s/%s' % (n, p, prog))
        if variant in judge.NO_SYSCTL and p != 'exclusive':
            continue
        # Every scenario row of this profile, as one program "scn_fake".
        body, k = ['TAP version 13'], 0
        need_sc, _, need_f = mut.get('needs', '').partition(':')
        skipped_sc = set()
        for r in judge.scenario_cells(exp, variant, profile, line, groups, [p]):
            sc = r['case']
            if mut.get('drop') in (sc, '%s/%s' % (sc, p)):
                continue
            if sc == need_sc:
                # The guest's skip for a cell whose need it lacks.
                skipped_sc.add(sc)
                k += 1
                body.append('ok %d - %s # SKIP needs %s' % (k, sc, need_f))
                continue
            o = r['outcome']
            if mut.get('outcome', '').startswith(sc + ':'):
                o = mut['outcome'].split(':', 1)[1]
            cnt = {}
            if variant not in judge.NO_SYSCTL:
                cnt = {c: 0 for c in exp.counters if exp.counters.on(c, line, variant)}
                for name, _, v in r['constraints']:
                    cnt[name] = v
            if mut.get('counter', '').startswith(sc + ':'):
                name, v = mut['counter'].split(':', 1)[1].split('=')
                cnt[name] = int(v)
            if mut.get('nocounter', '').startswith(sc + ':'):
                cnt.pop(mut['nocounter'].split(':', 1)[1], None)
            has = 'no' if variant in judge.NO_SYSCTL else 'yes'
            if mut.get('counters') == 'missing':
                has, cnt = 'missing', {}
            rp = p
            if mut.get('rpolicy', '').startswith(sc + ':'):
                rp = mut['rpolicy'].split(':', 1)[1]
            body.append('# RESULT scenario=%s profile=%s policy=%s outcome=%s%s counters=%s%s'
                        % (sc, profile, rp, o, ' slack=%s' % mut['slack'] if 'slack' in mut else '',
                           has, ''.join(' %s=%d' % kv for kv in cnt.items())))
            k += 1
            body.append('ok %d - %s: observed %s' % (k, sc, o))
        if need_sc and need_sc not in skipped_sc:
            # A cell of a profile without the feature: no row, the skip only.
            k += 1
            body.append('ok %d - %s # SKIP needs %s' % (k, need_sc, need_f))
        body.append('1..%d' % k)
        n += 1
        tap.append('# policy=%s test=scn_fake%s' % (p, kpol(p)))
        tap += ['    ' + b for b in body]
        tap.append('ok %d - %s/scn_fake' % (n, p))
    tap += ['1..%d' % n, 'COWTEST-STATUS passed=%d failed=0 skipped=0' % n]
    name = '%s-%s' % (variant, profile)
    with open(os.path.join(out, name + '.tap'), 'w') as f:
        f.write('\n'.join(tap) + '\n')
    with open(os.path.join(out, name + '.log'), 'w') as f:
        f.write('# cow-policy run fake: variant=%s profile=%s accel=tcg timeout=1s\n'
                'COWTEST-BOOT kernel=%s variant=%s profile=%s boot_to_runner_s=1\n'
                % (variant, profile, release, variant, profile))
    subprocess.run([sys.executable, os.path.join(top, 'scripts', 'report', 'results.py'), out],
                   stdout=subprocess.DEVNULL, check=False)


if __name__ == '__main__':
    main()
