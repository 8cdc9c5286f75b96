#!/bin/sh
# scripts/boot/scan-log.sh LOG: look for kernel trouble in a guest console log.
# Prints one line per kind of trouble found (with its first occurrence) and
# exits 1 if any was found, 0 if the log is clean.
# scripts/boot/scan-log.sh --hang-kinds: the kinds that mean a CPU stopped
# making progress (stalls, lockups, hung tasks), one per line: what
# run-qemu.sh and hang-where.sh look for before explaining a hang.
# scripts/boot/scan-log.sh --patterns: every pattern, one per line.
set -u
# One list: a stuck CPU or task. Only what a kernel of the matrix can
# print: the lean kernels have the soft-lockup and hung-task detectors
# (configs/lean.config) but no hard-lockup detector, which needs a PMU's
# NMI that TCG does not emulate, so "Watchdog detected hard LOCKUP" is
# not looked for (docs/harness.md).
hang_kinds='soft lockup
self-detected stall
detected stalls on CPUs
detected expedited stalls
detected stalls on tasks
blocked for more than'
# BUG() and VM_BUG_ON() print "kernel BUG at" and "invalid opcode:", not
# "BUG:"; a dump_page() says why it dumped; die() names the trap
# ("divide error: 0000 [#1]", "stack segment:", "Bad pagetable:"; a user
# program's own trap prints "trap divide error ip:" instead); a WARN or
# BUG whose report was cut short leaves its "[ cut here ]" line.  Memory
# trouble that is not a BUG: the OOM killer and its "Out of memory:" verdict,
# a failed allocation's warning, kmemleak's report, a hardware-error (MCE)
# or memory-failure (hwpoison) line; a user program killed by an unhandled
# fault ("segfault at"); and a stack dump whose header was lost or that
# came from dump_stack() alone ("Call Trace:", "Hardware name:").  Each
# pattern has its own canned log in tests/host/logs.
pats="WARNING:
BUG:
Oops
general protection fault
Kernel panic
kernel BUG at
invalid opcode:
divide error:
stack segment:
Bad pagetable:
[ cut here ]
page dumped because
refcount_t:
UBSAN:
list_add corruption
list_del corruption
Bad swap file entry
Bad swap offset entry
Unused swap file entry
Unused swap offset entry
invoked oom-killer:
Out of memory:
out of memory: Killed process
page allocation failure:
new suspected memory leaks
[Hardware Error]:
Memory failure:
segfault at
Call Trace:
Hardware name:
possible circular locking
possible recursive locking
inconsistent lock state
INFO: lockdep
suspicious RCU usage
$hang_kinds"
# Extended regular expressions, for reports whose words vary: SLUB's
# "BUG <cache> (<taint>): <what>" (slab_bug(), no colon after BUG) and the
# page-table entry checks' "<file>:<line>: bad pmd ..." (pmd_ERROR() and
# its siblings, arch/x86/include/asm/pgtable_64.h). And a guest that keeps
# time in jiffies: with TCG's TSC marked unstable and no HPET or ACPI PM
# timer (a kernel without ACPI), clocks and trace timestamps tick in 4 ms
# steps, and flipstress's trace order, the timeouts and every timing
# break without a kernel report.
eres='BUG [^ ]+ \((Not tainted|Tainted: [^)]*)\):
:[0-9]+: bad (pgd|p4d|pud|pmd|pte)[[:space:]]
clocksource: Switched to clocksource (refined-)?jiffies'
case ${1:-} in
--hang-kinds)
	printf '%s\n' "$hang_kinds"
	exit 0
	;;
--patterns)
	# Every pattern, fixed strings first (make check: each has a canned log).
	printf '%s\n' "$pats" "$eres"
	exit 0
	;;
esac
log=$1
[ -f "$log" ] || { echo "scan-log: no such log: $log" >&2; exit 2; }
# One report is asked for: 6.1's gup_test selftest (vmtests profile,
# "gup_test -ct -F 0x1") has gup_test.c's DUMP_USER_PAGES_TEST dump pages
# with exactly this reason, which nothing else prints.  Those lines, and
# only those, are blanked (line numbers kept); any other dump_page() still
# fails the log.
scan=$(mktemp)
trap 'rm -f "$scan"' EXIT
sed 's/page dumped because: gup_test: dump_pages() test\(\r\{0,1\}\)$/(page dump requested by the gup_test selftest)\1/' "$log" >"$scan"
log=$scan
found=0
# scan FLAG PATTERNS: grep -FLAG for each pattern, one line per hit.
scan() {
	while IFS= read -r pat; do
		hit=$(grep -n "$1" -m 1 -- "$pat" "$log" | tr -d '\r' | cut -c1-160)
		[ -n "$hit" ] || continue
		echo "kernel log has '$pat' (line ${hit%%:*}: ${hit#*:})"
		found=1
	done <<EOP
$2
EOP
}
scan -F "$pats"
scan -E "$eres"
exit $found
