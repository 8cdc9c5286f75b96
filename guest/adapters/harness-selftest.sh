#!/bin/sh
# harness-selftest panic|hang|warn: deliberately break the guest so the
# host harness can show it catches it (make test-harness-failures).
case ${1:-} in
panic)
	echo "harness-selftest: crashing the kernel via sysrq-c"
	echo c >/proc/sysrq-trigger
	;;
hang)
	echo "harness-selftest: hanging forever"
	while :; do sleep 3600; done
	;;
warn)
	echo "harness-selftest: provoking a kernel WARNING via lkdtm"
	modprobe lkdtm || exit 1
	echo WARNING >/sys/kernel/debug/provoke-crash/DIRECT
	exit 0
	;;
*)
	echo "usage: harness-selftest panic|hang|warn" >&2
	exit 2
	;;
esac
