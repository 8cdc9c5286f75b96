#!/usr/bin/env python3
"""scripts/report/critical_path.py RUNDIR [--cores N] [--serial F]: what a
make test run would take on a machine with N cores, on paper.

Reads RUNDIR/stages.txt (every stage line of a make test: "[  12s] NAME:
STATUS") and RUNDIR/meta.env (host_cpus), rebuilds make test's stage graph
(the Makefile's; see docs/harness.md) and schedules it on N cores:

  - kernel builds run one at a time (the build lock) and take every core:
    a build measured at d seconds on the measuring host's C cores takes
    d * (F + (1 - F) * C / N), F the part that does not parallelise
    (link, modpost, depmod; --serial, default 0.25);
  - the other host stages (tree, drivers, stap, guest programs, selftests,
    images) scale the same way but run beside each other;
  - a guest run keeps its measured time (a TCG guest's vCPUs are host
    threads: more cores run more guests at once, not one guest faster)
    and takes 2 cores (2 vCPUs); any other stage takes 1 core;
  - stages start in make's order when their prerequisites are done and
    their cores are free (event-driven list scheduling).

Prints the estimate, the measured total for comparison, and the chain of
stages that decides the estimate (the critical path). A stage the run did
not record (up to date, or failed) counts as 0 s and is named.
"""
import argparse
import os
import re
import sys

LINE = re.compile(r'^\[\s*(\d+)s\] ([^:]+): (.*)$')


def read_stages(rdir):
    path = os.path.join(rdir, 'stages.txt')
    if not os.path.exists(path):
        sys.exit('critical_path: no %s (a make test run directory)' % path)
    d = {}
    for line in open(path):
        m = LINE.match(line.strip())
        if m:
            d[m.group(2)] = d.get(m.group(2), 0) + int(m.group(1))
    return d


def read_meta(rdir):
    meta = {}
    path = os.path.join(rdir, 'meta.env')
    if os.path.exists(path):
        for line in open(path):
            if '=' in line:
                k, v = line.rstrip('\n').split('=', 1)
                meta[k] = v
    return meta


def graph(stages, matrix):
    """Tasks: name -> (kind, duration, prerequisites)."""
    g = {}
    missing = []

    def dur(*names):
        t = 0
        for n in names:
            if n in stages:
                t += stages[n]
            else:
                missing.append(n)
        return t
    g['tree'] = ('host', dur('unpack', 'patch'), [])
    variants = sorted({vp.split(':')[0] for vp in matrix})
    for v in variants:
        g['kernel ' + v] = ('kbuild', dur('config ' + v, 'kernel ' + v, 'modules ' + v), ['tree'])
        g['driver ' + v] = ('host', dur('driver ' + v), ['kernel ' + v])
    # The kernels that carry the systemtap module, and the one bench QUICK=1
    # boots: as the run's stage lines name them.
    stap = sorted({n.split(' ', 1)[1] for n in stages if n.startswith('stap ')} & set(variants))
    for v in stap:
        g['stap ' + v] = ('host', dur('stap ' + v), ['kernel ' + v])
    benchk = sorted({n[len('initramfs '):-len('-bench')] for n in stages
                     if n.startswith('initramfs ') and n.endswith('-bench')} & set(variants)) or variants[:1]
    g['guest programs'] = ('host', dur('guest programs'), [])
    g['upstream tests'] = ('host', dur('upstream tests'), ['tree'])
    g['vm selftests'] = ('host', dur('vm selftests'), ['tree'])
    common = ['guest programs', 'upstream tests', 'vm selftests']
    for vp in matrix + [b + ':bench' for b in benchk]:
        v, p = vp.split(':')
        pre = ['kernel ' + v, 'driver ' + v] + common + (['stap ' + v] if v in stap else [])
        g['initramfs %s-%s' % (v, p)] = ('host', dur('initramfs %s-%s' % (v, p)), pre)
        if p != 'bench':
            g['run %s-%s' % (v, p)] = ('guest', dur('run %s-%s' % (v, p)), ['initramfs %s-%s' % (v, p)])
    bench = [n for n in stages if n.startswith('bench det/')]
    g['bench QUICK=1'] = ('guest', dur(*bench) if bench else 0, ['initramfs %s-bench' % benchk[0]])
    g['check'] = ('host', dur('check'), [])
    return g, sorted(set(missing))


def schedule(g, cores, measured_cores, serial, vorder):
    """Event-driven list scheduling on `cores` cores: a kernel build takes
    every core (and the build lock), a guest 2, any other stage 1."""
    def scaled(kind, d):
        if kind in ('kbuild', 'host'):
            return d * (serial + (1 - serial) * measured_cores / cores)
        return d

    def need(kind):
        return cores if kind == 'kbuild' else min(2, cores) if kind == 'guest' else 1
    start, finish, why = {}, {}, {}
    running = []                 # (finish time, name, cores)
    pending = dict(g)
    t, free, last_done = 0.0, cores, None
    while pending or running:
        ready = [n for n, (k, d, pre) in pending.items() if all(p in finish and finish[p] <= t for p in pre)]
        ready.sort(key=lambda n: (0 if pending[n][0] == 'kbuild' else 1,
                                  vorder.index(n.split()[1]) if pending[n][0] == 'kbuild'
                                  else -pending[n][1], n))
        for n in ready:
            kind, d, pre = pending[n]
            if need(kind) > free:
                continue
            if kind == 'kbuild' and any(g[r[1]][0] == 'kbuild' for r in running):
                continue
            free -= need(kind)
            start[n], finish[n] = t, t + scaled(kind, d)
            # What it waited for last: a prerequisite, or the task whose end
            # freed the cores it needed.
            latest = max(pre, key=lambda p: finish[p]) if pre else None
            why[n] = latest if latest and finish[latest] >= t else last_done
            running.append((finish[n], n, need(kind)))
            del pending[n]
        if not running:
            sys.exit('critical_path: the graph has a cycle or an unknown prerequisite: %s'
                     % ', '.join(sorted(pending)))
        running.sort()
        t, last_done, c = running.pop(0)
        free += c
        while running and running[0][0] <= t:
            free += running.pop(0)[2]
    return start, finish, why


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('rundir')
    ap.add_argument('--cores', type=int, default=16)
    ap.add_argument('--serial', type=float, default=0.25)
    a = ap.parse_args()
    stages = read_stages(a.rundir)
    meta = read_meta(a.rundir)
    measured_cores = int(meta.get('host_cpus', '2'))
    matrix = meta.get('test_matrix', '').split()
    if not matrix:
        matrix = sorted({n[len('run '):].replace('-', ':', 1) for n in stages if n.startswith('run ')})
    g, missing = graph(stages, matrix)
    vorder = []
    for vp in matrix:
        if vp.split(':')[0] not in vorder:
            vorder.append(vp.split(':')[0])
    start, finish, why = schedule(g, a.cores, measured_cores, a.serial, vorder)
    end = max(finish, key=lambda n: finish[n])
    chain, n = [], end
    while n:
        chain.append(n)
        n = why.get(n)
    total = meta.get('elapsed_s')
    print('critical path: %d cores -> about %d min (measured on %d cores: %s); host stages '
          'scale with a serial part of %.2f, guest runs keep their time'
          % (a.cores, round(finish[end] / 60), measured_cores,
             '%d min' % round(int(total) / 60) if total else
             'total %d min of stage time' % round(sum(stages.values()) / 60), a.serial))
    print('chain: ' + ' <- '.join('%s (%ds)' % (c, round(finish[c] - start[c])) if c in finish
                                   else c for c in chain))
    if missing:
        print('not in stages.txt (counted 0 s): ' + ', '.join(missing))
    return 0


if __name__ == '__main__':
    sys.exit(main())
