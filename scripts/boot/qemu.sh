#!/bin/sh
# scripts/boot/qemu.sh: the one QEMU launcher. Every boot of the project
# (test runs, make shell, the accelerator probe, make bench in both modes,
# soak and trace, which are test runs) goes through here.
#
#   qemu.sh [options] KERNEL INITRD CMDLINE [-- QEMU-ARGS...]
#     --accel A      kvm: -accel kvm -cpu host
#                    tcg: multi-threaded TCG (thread=multi), -cpu max,la57=off
#                    tcg-single: one host thread for all vCPUs (thread=single)
#                    icount: deterministic TCG, guest time follows executed
#                      instructions (-icount shift=0,sleep=off,align=off)
#     --console F    the guest console (serial) appended to file F; "stdio":
#                    on the terminal with the QEMU monitor (make shell)
#     --timeout S    kill QEMU after S seconds (exit status 124), first
#                    appending every vCPU's registers to the console log
#                    (QMP, scripts/boot/qmp-registers.py)
#     --out F        QEMU's own stdout and stderr to F (removed when empty)
#     --loglevel N   the console loglevel (default 7; at least 5, so that
#                    KERN_WARNING reaches the console)
#     --print        print the QEMU command line instead of running it
#     --print-cmdline  print the kernel command line instead of running it
# CMDLINE is what the caller adds to the command line every boot starts
# with (BOOT_CMDLINE and loglevel=N, scripts/lib.sh: boot_cmdline): the
# one place where console=, panic=, loglevel= and the lockup detectors'
# thresholds are set. A CMDLINE that brings the console loglevel below 5
# (loglevel=, quiet) is refused.
# QEMU-ARGS (memory, vCPUs, disks, ...) are appended as they are. Exit
# status: QEMU's; the guest's qemu-exit N makes it 2N+1.
set -u
. "$(dirname "$0")/../lib.sh"
accel=tcg console='' timeout='' out=/dev/null print='' loglevel=$CONSOLE_LOGLEVEL_DEFAULT
while [ $# -gt 0 ]; do
	case $1 in
	--accel) accel=$2; shift 2 ;;
	--console) console=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--loglevel) loglevel=$2; shift 2 ;;
	--print) print=1; shift ;;
	--print-cmdline) print=cmdline; shift ;;
	--*) die "qemu.sh: unknown option $1" ;;
	*) break ;;
	esac
done
[ $# -ge 3 ] || die "usage: qemu.sh [--accel A] [--console F|stdio] [--timeout S] [--out F] [--loglevel N] KERNEL INITRD CMDLINE [-- QEMU-ARGS...]"
kernel=$1 initrd=$2
case $loglevel in '' | *[!0-9]*) die "qemu.sh: --loglevel '$loglevel' is not a number" ;; esac
cmdline=$(boot_cmdline "$loglevel" "$3")
lvl=$(cmdline_loglevel "$cmdline")
[ "$lvl" -ge "$CONSOLE_LOGLEVEL_MIN" ] ||
	die "qemu.sh: console loglevel $lvl hides kernel warnings (at least $CONSOLE_LOGLEVEL_MIN): $cmdline"
if [ "$print" = cmdline ]; then
	printf '%s\n' "$cmdline"
	exit 0
fi
shift 3
[ "${1:-}" != -- ] || shift
accel_args=$(accel_args "$accel") || exit 1
[ -n "$console" ] || die "qemu.sh: --console is required"

set -- -nodefaults -no-reboot -display none \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline" "$@"
if [ "$console" = stdio ]; then
	set -- -serial mon:stdio "$@"
else
	set -- -chardev "file,id=console,path=$console,append=on" -serial chardev:console "$@"
fi
if [ -n "$print" ]; then
	# shellcheck disable=SC2086 # the accelerator's words
	echo qemu-system-x86_64 $accel_args "$@"
	exit 0
fi
if [ "$console" = stdio ]; then
	# shellcheck disable=SC2086
	exec qemu-system-x86_64 $accel_args "$@"
fi
if [ -n "$timeout" ]; then
	# At the timeout, before killing QEMU, its monitor (QMP on a private
	# socket) dumps every vCPU's registers into the console log: a hung
	# guest then still says where its CPUs were. Exit status 124 then, as
	# timeout(1) gives.
	sock=$(mktemp -u "${TMPDIR:-/tmp}/cowqmp.XXXXXX")
	flag=$sock.timedout
	# shellcheck disable=SC2086
	qemu-system-x86_64 $accel_args "$@" -qmp "unix:$sock,server=on,wait=off" </dev/null >"$out" 2>&1 &
	qpid=$!
	(
		i=0
		while [ "$i" -lt "$timeout" ]; do
			sleep 1
			kill -0 "$qpid" 2>/dev/null || exit 0
			i=$((i + 1))
		done
		: >"$flag"
		timeout 30 python3 "$(dirname "$0")/qmp-registers.py" "$sock" >>"$console" 2>&1
		kill -TERM "$qpid" 2>/dev/null
		sleep 10
		kill -KILL "$qpid" 2>/dev/null
	) &
	wpid=$!
	wait "$qpid"
	rc=$?
	kill "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	[ ! -f "$flag" ] || rc=124
	rm -f "$sock" "$flag"
	[ "$out" = /dev/null ] || [ -s "$out" ] || rm -f "$out"
	exit $rc
else
	# shellcheck disable=SC2086
	qemu-system-x86_64 $accel_args "$@" </dev/null >"$out" 2>&1
fi
rc=$?
[ "$out" = /dev/null ] || [ -s "$out" ] || rm -f "$out"
exit $rc
