"""cowresults.insn: a make bench-insn run, parsed once.

The boot's own files (cowbench's BENCH lines in det-<v>-b1.log, the QEMU
plugin's counts in det-<v>-b1.insn, the kernel's System.map) are read by
the functions below, which scripts/report/insn_report.py uses to write
insn.md; the model (cowresults.model) reads a run's figures from its
insn.md with parse_md(), so that a run whose System.map is gone (the
object directory of another clone) is still a run.
"""
import bisect
import re

from .util import cells_of, tables_under

KERNEL_BASE = 0xffff800000000000


def read_log(path):
    """The marked BENCH lines' (those with sections=) ops, ns and sections,
    summed, the benchmarks they name, and their ns per op."""
    benches, ops, ns, samples, sections, per_op = set(), 0, 0, 0, 0, []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("BENCH "):
                continue
            kv = dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
            if "sections" not in kv:
                continue
            per_op.append(int(kv["ns"]) / int(kv["ops"]))
            benches.add("%s-%sK" % (kv["bench"], kv["size_kib"]))
            ops += int(kv["ops"])
            ns += int(kv["ns"])
            samples += 1
            sections += int(kv["sections"])
    return benches, ops, ns, samples, sections, per_op


def read_insn(path):
    head, counts = None, {}
    with open(path) as f:
        for line in f:
            m = re.match(r"# insncount opens=(\d+) closes=(\d+) windows=(\d+)", line)
            if m:
                head = tuple(int(x) for x in m.groups())
                continue
            addr, n = line.split()
            counts[int(addr, 16)] = int(n)
    return head, counts


def symbols(system_map):
    """Text symbols of the kernel's System.map (nm -n of vmlinux), sorted:
    (addresses, names)."""
    addrs, names = [], []
    with open(system_map) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[1] in "tTwW":
                addrs.append(int(parts[0], 16))
                names.append(parts[2])
    return addrs, names


def by_function(counts, syms):
    addrs, names = syms
    funcs = {}
    for a, n in counts.items():
        if a < KERNEL_BASE:
            key = "[user space]"
        else:
            i = bisect.bisect_right(addrs, a) - 1
            key = names[i] if i >= 0 and a - addrs[i] < 0x100000 else "[kernel, outside vmlinux]"
        funcs[key] = funcs.get(key, 0) + n
    return funcs



def _num(s):
    try:
        return float(s.replace('+', '').replace('−', '-'))
    except ValueError:
        return None


def parse_md(text):
    """insn.md -> {bench, unit, per_kernel: {label: [cow, stock, diff]},
    total: [cow, stock, diff] (instructions per op, plugin), functions:
    [[name, cow, stock, diff], ...]}; None when it is not one."""
    m = re.search(r'^# Instructions per (\S+) of (\S+): cow against stock', text, re.M)
    tabs = [t for _, t in tables_under(text, r'# Instructions per', empty=True)]
    if not m or len(tabs) != 2:
        return None
    per, total = {}, None
    for line in tabs[0][2:]:
        c = cells_of(line)
        if len(c) != 4:
            continue
        per[c[0]] = [_num(x) if x else None for x in c[1:]]
        if c[0].startswith('instructions per') and c[0].endswith('(plugin)'):
            total = per[c[0]]
    funcs = []
    for line in tabs[1][2:]:
        c = cells_of(line)
        if len(c) == 4:
            funcs.append([c[0].strip('`')] + [_num(x) for x in c[1:]])
    return {'unit': m.group(1), 'bench': m.group(2), 'per_kernel': per, 'total': total,
            'functions': funcs}
