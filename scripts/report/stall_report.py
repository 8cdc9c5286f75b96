#!/usr/bin/env python3
"""scripts/report/stall_report.py RUN: the table of a make stall-probe run.

Reads RUN/meta.env and each boot's run directory RUN/<variant>-<accel>-<n>/
(its .status, console log and TAP results), writes RUN/report.md and prints
it. Per cell (kernel, accelerator): boots completed and hung, logs with an
int3 or an RCU stall, hung boots whose stalled CPUs stopped at a jump-label
patch site (scripts/report/jump_sites.py against BUILD/obj-<variant>/vmlinux,
cached in RUN/<variant>-<accel>-<n>.sites) and which sites, and the flip
rate of the completed boots. scripts/flow/stall.sh runs it after its boots;
make stall-report RUN=<dir> re-renders an older run. Exit 1 on bad input.
"""
import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: stall_report.py RUN")
    run = sys.argv[1].rstrip("/")
    build = os.environ.get("BUILD") or os.path.join(os.path.dirname(HERE), "..", "build")
    meta = dict(l.split("=", 1) for l in read(os.path.join(run, "meta.env")).splitlines()
                if "=" in l and not l.startswith("#"))
    if meta.get("command") != "make stall-probe":
        sys.exit("stall_report: %s is not a make stall-probe run (no meta.env saying so)" % run)
    boots = {}
    for d in sorted(glob.glob(os.path.join(run, "*-*-[0-9]*"))):
        m = re.match(r"([a-z0-9_]+)-(kvm|tcg|tcg-single|icount)-(\d+)$", os.path.basename(d))
        if m and os.path.isdir(d):
            boots.setdefault((m.group(1), m.group(2)), []).append((int(m.group(3)), d))
    if not boots:
        sys.exit("stall_report: %s has no boot directories <variant>-<accel>-<n>" % run)
    order = meta.get("matrix", "").split() or ["%s:%s" % k for k in sorted(boots)]
    keys = {}
    rows = []
    for e in order:
        v, a = e.split(":", 1)
        done = hung = int3 = rcu = atsite = 0
        rates, where = [], set()
        for i, d in sorted(boots.get((v, a), [])):
            log = read(os.path.join(d, "%s-keyflip.log" % v))
            st = read(os.path.join(d, "%s-keyflip.status" % v)).strip() or "fail no status"
            done += st == "pass"
            int3 += bool(re.search(r"int3|exc_int3", log))
            rcu += bool(re.search(r"rcu: INFO|self-detected stall|rcu_sched detected stalls", log))
            if "timeout" in st:
                hung += 1
                cache = os.path.join(run, "%s-%s-%d.sites" % (v, a, i))
                if not os.path.exists(cache):
                    out = subprocess.run([sys.executable, os.path.join(HERE, "jump_sites.py"),
                                          os.path.join(build, "obj-%s" % v, "vmlinux"),
                                          os.path.join(d, "%s-keyflip.log" % v)],
                                         capture_output=True, text=True)
                    with open(cache, "w") as f:
                        f.write(out.stdout + out.stderr)
                sites = read(cache)
                if re.search(r"^sites=[1-9]", sites, re.M):
                    atsite += 1
                where |= {m.group(1) for m in re.finditer(r"^RIP (?:int3-from:)?(\S+) \S+ site ", sites, re.M)}
            for m in re.finditer(r"# RESULT key=([a-z_]+) .*rate_per_s=(\d+)",
                                 read(os.path.join(d, "%s-keyflip.tap" % v))):
                keys[v] = m.group(1)
                rates.append(m.group(2))
        rows.append((v, a, done, hung, int3, rcu, atsite, where, rates,
                     len(boots.get((v, a), []))))
    L = ["# Jump-label stall probe: %s" % meta.get("run_id", os.path.basename(run)), "",
         "A switch (the key column: a tracepoint's static key, or vm.cow_policy) flipped every 2 ms for %s s under copy-on-write faults "
         "(tests/guest/keyflip.c), %s boots per cell, %s, host %s cores, commit %s, %s." % (
             meta.get("seconds", "?"), meta.get("repeat", "?"), meta.get("qemu", "?"),
             meta.get("host_cpus", "?"), meta.get("project_commit", "?")[:7], meta.get("date", "?")), ""]
    for v in sorted({r[0] for r in rows}):
        L.append("- kernel %s: %s, CONFIG_JUMP_LABEL=%s" % (v, meta.get("kernel_" + v, "?"),
                                                             meta.get("jump_label_" + v, "?")))
    L += ["", "| kernel | accelerator | key | completed | hung (timeout) | int3 in log | "
          "RCU stall in log | hung at a jump-label site | where | flips per second |",
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for v, a, done, hung, int3, rcu, atsite, where, rates, n in rows:
        L.append("| %s | %s | %s | %d/%d | %d/%d | %d | %d | %d/%d | %s | %s |" % (
            v, a, keys.get(v, "?"), done, n, hung, n, int3, rcu, atsite, hung,
            ", ".join(sorted(where)) or "-", " ".join(rates) or "-"))
    L += ["", "*hung at a jump-label site*: of the hung boots, those where a stalled CPU's "
          "RIP (stall backtraces, or the vCPU registers and the int3 frame qemu.sh dumps at "
          "the timeout) is a patch site of the kernel's __jump_table; *where*: those sites. "
          "*key*: what keyflip flipped on that kernel (read from a completed boot)."]
    text = "\n".join(L) + "\n"
    with open(os.path.join(run, "report.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
