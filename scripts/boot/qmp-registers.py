#!/usr/bin/env python3
"""scripts/boot/qmp-registers.py SOCKET: every vCPU's registers, from a
running QEMU's QMP socket (human-monitor-command "info registers -a"),
printed as "# qemu-registers: LINE" lines. scripts/boot/qemu.sh appends them
to the console log of a run it is about to kill for its timeout, so that a
hung guest still says where its CPUs were (scripts/report/jump_sites.py
reads the RIP= fields). Exit 1 with one line when QEMU does not answer."""
import json
import re
import socket
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: qmp-registers.py SOCKET")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    try:
        s.connect(sys.argv[1])
        f = s.makefile("rw")
        f.readline()                                   # the greeting

        def call(cmd, **args):
            f.write(json.dumps({"execute": cmd, "arguments": args}) + "\n")
            f.flush()
            while True:                                # skip events
                r = json.loads(f.readline())
                if "return" in r or "error" in r:
                    return r
        call("qmp_capabilities")
        r = call("human-monitor-command", **{"command-line": "info registers -a"})
    except (OSError, ValueError) as e:
        print("# qemu-registers: QEMU did not answer on %s: %s" % (sys.argv[1], e))
        return 1
    if "error" in r:
        print("# qemu-registers: %s" % r["error"].get("desc", r["error"]))
        return 1
    print("# qemu-registers: vCPU registers when the run timed out (info registers -a)")
    regs = r["return"]
    for line in regs.splitlines():
        print("# qemu-registers: " + line)
    # The top of each CPU's stack: a CPU caught at an exception entry has
    # the hardware frame there (the interrupted RIP first), which says
    # where an int3 it keeps taking came from.
    for cpu, rsp in re.findall(r"CPU#(\d+)[^#]*?RSP=([0-9a-f]{16})", regs, re.S):
        try:
            call("human-monitor-command", **{"command-line": "cpu %s" % cpu})
            x = call("human-monitor-command", **{"command-line": "x /5gx 0x%s" % rsp})
        except (OSError, ValueError):
            break
        for line in x.get("return", "").splitlines():
            print("# qemu-registers: CPU#%s stack %s" % (cpu, line.strip()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
