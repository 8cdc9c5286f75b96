#!/bin/sh
# scripts/check/harness-failures.sh (make test-harness-failures): boot guests that
# panic, hang and print a kernel WARNING, and show that each run FAILS with
# a clear message and a kept log (the hung one with every vCPU's registers,
# dumped by qemu.sh at the timeout, and hang-where.sh's diagnosis in its
# output), and a profile that lost its boot-time trace event (the sysctl
# test must fail, not switch the event on itself and patch kernel text).
# Passes when all four are caught.
set -u
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
MAKE=${MAKE:-make}
"$MAKE" --no-print-directory initramfs VARIANT=cow PROFILE=base || exit 1
"$MAKE" --no-print-directory initramfs VARIANT=cow PROFILE=bootparam || exit 1
unset COWTEST_COUNTS COWTEST_STAGES
RUN_ID=$(date +%Y%m%d-%H%M%S)-harness-failures
export RUN_ID
pass=0 fail=0
for mode in panic hang warn notrace; do
	profile=base selftest=$mode extra=
	case $mode in
	panic) expect='Kernel panic' t=$TIMEOUT ;;
	hang) expect='timeout after' t=${HANG_TIMEOUT:-60} ;;
	warn) expect="'WARNING:'" t=$TIMEOUT ;;
	# The last trace_event= wins: an empty one turns the profile's off.
	notrace) expect='1 tests failed' t=$TIMEOUT profile=bootparam selftest='' extra=trace_event= ;;
	esac
	echo "---- $([ "$mode" = notrace ] && echo "EXTRA_CMDLINE=$extra" || echo "HARNESS_SELFTEST=$mode"): this run must FAIL ----"
	out=$(RUN_NAME=cow-$profile-$mode HARNESS_SELFTEST=$selftest EXTRA_CMDLINE=$extra TIMEOUT=$t \
		scripts/boot/run-qemu.sh cow $profile "$BUILD/obj-cow" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/  | /'
	log=$RESULTS/$RUN_ID/cow-$profile-$mode.log
	# notrace: the sysctl test's own check is what failed.
	[ "$mode" != notrace ] ||
		grep -q '^ *not ok [0-9]* - cow:cow_policy_change is on from boot' "$log" || rc=0
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
