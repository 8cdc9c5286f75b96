#!/bin/sh
# scripts/boot/hang-where.sh LOG OBJ: where a hung or stalled guest was, in
# a few lines, for the output of a failed run (run-qemu.sh prints them: a
# CI log may be all a reader gets, the console log stays behind).
#   running:          the runner's last "# policy=... test=..." line
#                     before the first stall report: the test that ran;
#   last runner line: its last line of output (not a printk line) there;
#   stall:            the first stall or lockup report's RIP and its first
#                     call-trace entries;
#   cpu:              every distinct RIP of the stall backtraces and of the
#                     vCPU registers qemu.sh dumped at the timeout, and
#                     whether it is a jump-label patch site of OBJ/vmlinux
#                     (scripts/report/jump_sites.py): a CPU stuck at a
#                     patch site or in the int3 entry is QEMU's stale
#                     translated block (README, Known problems), anything
#                     else is the kernel's.
# Prints nothing it cannot find; always exits 0 (a diagnosis, not a check).
set -u
log=$1 obj=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
[ -f "$log" ] || { echo "hang-where: no log $log"; exit 0; }
# The hang kinds are scan-log.sh's (one list); none is a regex character.
pat=$("$top/scripts/boot/scan-log.sh" --hang-kinds | paste -s -d '|')
first=$(grep -n -E -m 1 "$pat" "$log" | cut -d: -f1)
before=$(head -n "${first:-999999}" "$log" | grep -v -E '^\[ *[0-9]+\.[0-9]+\]')
running=$(printf '%s\n' "$before" | grep '^# policy=' | tail -n 1 | cut -c1-160)
last=$(printf '%s\n' "$before" | grep -v -E '^# |^COWTEST-' | grep . | tail -n 1 | cut -c1-160)
[ -z "$running" ] || printf "running: %s\n" "$running"
[ -z "$last" ] || printf "last runner line: %s\n" "$last"
if [ -n "$first" ]; then
	tail -n "+$first" "$log" | sed 's/^\[ *[0-9.]*\] //' |
		awk 'NR == 1 { print "stall: " substr($0, 1, 140); next }
		/^RIP: / && !rip { print "stall: " $0; rip = 1; next }
		/^Call Trace:/ { on = 1; next }
		on && /^ *(\? )?[A-Za-z_][A-Za-z0-9_.]*\+0x/ { print "stall:   " $0; if (++n == 8) exit; next }
		on && n { exit }'
fi
vml=$obj/vmlinux
if [ -f "$vml" ] && grep -q '^CONFIG_JUMP_LABEL=y' "$obj/.config" 2>/dev/null; then
	python3 "$top/scripts/report/jump_sites.py" "$vml" "$log" 2>&1 |
		awk '/^RIP / { if (++n <= 8) print "cpu: " $2 " " $4 " (seen " $5 "x)" ($6 ? " " $6 : ""); next }
		{ print "cpu: " $0 }'
fi
exit 0
