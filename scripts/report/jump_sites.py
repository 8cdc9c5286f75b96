#!/usr/bin/env python3
"""scripts/report/jump_sites.py VMLINUX LOG...: where did the stalled CPUs stop?

For every "RIP: 0010:SYMBOL+0xOFF/0xLEN" line of the console LOGs (the RCU
stall and NMI backtraces of a hung guest) and every "RIP=ADDRESS" of the
vCPU registers scripts/boot/qemu.sh dumps when it kills a hung run (lines
"# qemu-registers: "), the address, and whether it is
a jump-label patch site of VMLINUX: the code address of an entry of its
__jump_table (x86 relative entries: s32 code, s32 target, long key; code
relative to the entry). A CPU that keeps coming back to a patch site
whose text no longer holds an int3 is what a stale translated block of
QEMU's multi-threaded TCG looks like (scripts/flow/stall.sh). A CPU found
at the int3 entry (asm_exc_int3, nothing pushed yet) also names the place
the int3 was taken at, from the word on top of its stack (qemu.sh dumps
it): "int3-from:SYMBOL+0xOFF".

Prints one line per distinct RIP:
  RIP SYMBOL+0xOFF ADDRESS site|not-a-site COUNT [key=KEY+0xOFF]
with the static key a site's jump_entry names (a tracepoint's key is
__tracepoint_NAME+0x8), and a last line "sites=N rips=M". jump_sites.py --list VMLINUX prints the
patch sites' addresses instead. Exit 1 on bad input.
"""
import re
import struct
import subprocess
import sys


def die(msg):
    sys.exit("jump_sites: " + msg)


def symbols(vmlinux):
    """({name: address}, sorted [(address, name)] of the text symbols,
    sorted [(address, name)] of all symbols)."""
    out = subprocess.run(["nm", vmlinux], capture_output=True, text=True)
    if out.returncode:
        die("nm %s failed: %s" % (vmlinux, out.stderr.strip()))
    syms, text, every = {}, [], []
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) == 3:
            syms.setdefault(f[2], int(f[0], 16))
            every.append((int(f[0], 16), f[2]))
            if f[1] in "tT":
                text.append((int(f[0], 16), f[2]))
    return syms, sorted(text), sorted(every)


def symbolize(text, addr):
    """(name, offset) of the text symbol at or below addr, or (None, 0)."""
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi) // 2
        if text[mid][0] <= addr:
            lo = mid + 1
        else:
            hi = mid
    return (text[lo - 1][1], addr - text[lo - 1][0]) if lo else (None, 0)


def sections(vmlinux):
    out = subprocess.run(["readelf", "-S", "-W", vmlinux], capture_output=True, text=True)
    if out.returncode:
        die("readelf %s failed: %s" % (vmlinux, out.stderr.strip()))
    secs = []
    for m in re.finditer(r"\]\s+(\S+)\s+\S+\s+([0-9a-f]{16})\s+([0-9a-f]+)\s+([0-9a-f]+)", out.stdout):
        secs.append((int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16)))
    return secs


def jump_sites(vmlinux, syms):
    start, stop = syms.get("__start___jump_table"), syms.get("__stop___jump_table")
    if start is None or stop is None:
        die("%s has no __jump_table (CONFIG_JUMP_LABEL off?)" % vmlinux)
    for addr, off, size in sections(vmlinux):
        if addr and addr <= start and stop <= addr + size:
            with open(vmlinux, "rb") as f:
                f.seek(off + start - addr)
                data = f.read(stop - start)
            break
    else:
        die("no section of %s holds the __jump_table" % vmlinux)
    sites = {}
    for i in range(0, len(data) - 15, 16):
        code, _target, key = struct.unpack_from("<iiq", data, i)
        # The key is relative to its own field; its low two bits are flags.
        sites[start + i + code] = (start + i + 8 + key) & ~3
    return sites


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--list":
        syms, _, _ = symbols(sys.argv[2])
        for a in sorted(jump_sites(sys.argv[2], syms)):
            print("%x" % a)
        return
    if len(sys.argv) < 3:
        die("usage: jump_sites.py VMLINUX LOG... | --list VMLINUX")
    vmlinux = sys.argv[1]
    syms, text_syms, all_syms = symbols(vmlinux)
    sites = jump_sites(vmlinux, syms)
    rips, int3_from = {}, {}
    for log in sys.argv[2:]:
        try:
            text = open(log, errors="replace").read()
        except OSError as e:
            die("%s: %s" % (log, e.strerror))
        for m in re.finditer(r"RIP: 0010:([A-Za-z0-9_.]+)\+0x([0-9a-f]+)/0x[0-9a-f]+", text):
            key = (m.group(1), int(m.group(2), 16))
            rips[key] = rips.get(key, 0) + 1
        cpu, cpu_rip, stack0 = None, {}, {}
        for m in re.finditer(r"# qemu-registers: (?:CPU#(\d+)\s*$|RIP=([0-9a-f]{16})"
                             r"|CPU#(\d+) stack [0-9a-f]+: 0x([0-9a-f]{16}))", text, re.M):
            if m.group(1):
                cpu = m.group(1)
            elif m.group(2):
                name, off = symbolize(text_syms, int(m.group(2), 16))
                key = (name or m.group(2), off)
                rips[key] = rips.get(key, 0) + 1
                cpu_rip[cpu] = (name, off)
            elif m.group(3) not in stack0:
                stack0[m.group(3)] = int(m.group(4), 16)
        # A CPU at the int3 entry, before it pushed anything: the word on
        # top of its stack is the RIP after the int3 it took.
        for c, (name, off) in sorted(cpu_rip.items(), key=lambda x: str(x[0])):
            if name == "asm_exc_int3" and off < 16 and c in stack0:
                at = stack0[c] - 1
                n, o = symbolize(text_syms, at)
                key = ("int3-from:%s" % (n or "?"), o)
                rips[key] = rips.get(key, 0) + 1
                int3_from[key] = at
    n_site = 0
    for (sym, off), count in sorted(rips.items()):
        base = syms.get(sym)
        addr = int3_from.get((sym, off), base + off if base is not None else None)
        site = addr in sites
        n_site += site
        key = ""
        if site:
            kname, koff = symbolize(all_syms, sites[addr])
            key = " key=%s+0x%x" % (kname, koff) if kname else " key=%x" % sites[addr]
        print("RIP %s+0x%x %s %s %d%s" % (sym, off, "%x" % addr if addr else "?",
                                           "site" if site else "not-a-site", count, key))
    print("sites=%d rips=%d" % (n_site, len(rips)))


if __name__ == "__main__":
    main()
