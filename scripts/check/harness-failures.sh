#!/bin/sh
# scripts/check/harness-failures.sh (make test-harness-failures): boot guests that
# panic, hang and print a kernel WARNING, and show that each run FAILS with
# a clear message and a kept log (the hung one with every vCPU's registers,
# dumped by qemu.sh at the timeout, and hang-where.sh's diagnosis in its
# output). Passes when all three are caught.
set -u
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
MAKE=${MAKE:-make}
"$MAKE" --no-print-directory initramfs VARIANT=cow PROFILE=base || exit 1
unset COWTEST_COUNTS COWTEST_STAGES
RUN_ID=$(date +%Y%m%d-%H%M%S)-harness-failures
export RUN_ID
pass=0 fail=0
for mode in panic hang warn; do
	case $mode in
	panic) expect='Kernel panic' t=$TIMEOUT ;;
	hang) expect='timeout after' t=${HANG_TIMEOUT:-60} ;;
	warn) expect="'WARNING:'" t=$TIMEOUT ;;
	esac
	echo "---- HARNESS_SELFTEST=$mode: this run must FAIL ----"
	out=$(RUN_NAME=cow-base-$mode HARNESS_SELFTEST=$mode TIMEOUT=$t scripts/boot/run-qemu.sh cow base "$BUILD/obj-cow" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/  | /'
	log=$RESULTS/$RUN_ID/cow-base-$mode.log
	# A hung run also says where its CPUs were: qemu.sh dumps every vCPU's
	# registers into the log before it kills QEMU.
	# And its output says so (scripts/boot/hang-where.sh): the test that
	# ran and every CPU's RIP against the jump-label patch sites.
	regs=yes
	[ "$mode" != hang ] || grep -q '^# qemu-registers: RIP=' "$log" 2>/dev/null || regs=no
	[ "$mode" != hang ] || { printf '%s\n' "$out" | grep -q '^  running: # policy=.* test=harness' &&
		printf '%s\n' "$out" | grep -q '^  cpu: sites=[0-9]* rips=[1-9]'; } || regs=no
	if [ $rc != 0 ] && [ $regs = yes ] && printf '%s\n' "$out" | grep '^FAILED: ' | grep -qF "$expect"; then
		echo "ok - $mode: the run failed as it must ($expect$([ "$mode" = hang ] && echo ', vCPU registers in the log')), log kept: $log"
		pass=$((pass + 1))
	else
		echo "not ok - $mode: the harness did not report the expected failure ($expect$([ $regs = no ] && echo '; no vCPU registers in the log or no diagnosis in the output'))"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
