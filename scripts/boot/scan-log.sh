#!/bin/sh
# scripts/boot/scan-log.sh LOG: look for kernel trouble in a guest console log.
# Prints one line per kind of trouble found (with its first occurrence) and
# exits 1 if any was found, 0 if the log is clean.
# scripts/boot/scan-log.sh --hang-kinds: the kinds that mean a CPU stopped
# making progress (stalls, lockups, hung tasks), one per line: what
# run-qemu.sh and hang-where.sh look for before explaining a hang.
set -u
# One list: a stuck CPU or task.
hang_kinds='soft lockup
hard LOCKUP
self-detected stall
detected stalls on CPUs
blocked for more than'
if [ "${1:-}" = --hang-kinds ]; then
	printf '%s\n' "$hang_kinds"
	exit 0
fi
log=$1
[ -f "$log" ] || { echo "scan-log: no such log: $log" >&2; exit 2; }
found=0
# BUG() and VM_BUG_ON() print "kernel BUG at" and "invalid opcode:", not
# "BUG:"; a dump_page() says why it dumped.  Each pattern has its own canned
# log in tests/host/logs.
pats="WARNING:
BUG:
Oops
general protection fault
Kernel panic
kernel BUG at
invalid opcode:
page dumped because
UBSAN:
list_add corruption
list_del corruption
possible circular locking
possible recursive locking
inconsistent lock state
INFO: lockdep
suspicious RCU usage
$hang_kinds"
while IFS= read -r pat; do
	hit=$(grep -n -F -m 1 -- "$pat" "$log" | tr -d '\r' | cut -c1-160)
	if [ -n "$hit" ]; then
		echo "kernel log has '$pat' (line ${hit%%:*}: ${hit#*:})"
		found=1
	fi
done <<EOF
$pats
EOF
exit $found
