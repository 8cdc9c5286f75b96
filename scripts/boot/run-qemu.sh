#!/bin/sh
# scripts/boot/run-qemu.sh [--shell] VARIANT PROFILE OBJ
# Boot one (variant, profile) in QEMU with its initramfs. Test mode: serial
# console to results/<run-id>/VARIANT-PROFILE.log under a timeout, the
# runner's TAP carried out on a results disk (VARIANT-PROFILE.tap), then
# decide: FAILED on timeout, no results or no final status line on the
# results disk, a non-zero guest exit status, or kernel trouble in the log
# (see scan-log.sh). --shell: interactive, console on stdio, no timeout.
# Env: TIMEOUT POLICY HARNESS_SELFTEST RUN_GROUPS RUN_ID RUN_NAME ACCEL EXTRA_CMDLINE
# QEMU_EXTRA (QEMU arguments after the profile's, e.g. -smp 1 for icount).
set -u
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
mode='test'
if [ "${1:-}" = --shell ]; then mode=shell; shift; fi
variant=$1 profile=$2 obj=$3
load_profile "$top/qemu-profiles" "$profile"
QEMU_ARGS="$QEMU_ARGS ${QEMU_EXTRA:-}"
kernel="$obj/arch/x86/boot/bzImage"
initrd="$BUILD/initramfs/$variant-$profile.img"
[ -f "$kernel" ] || die "run: no kernel $kernel (run make kernel VARIANT=$variant)"
[ -f "$initrd" ] || die "run: no initramfs $initrd (run make initramfs VARIANT=$variant PROFILE=$profile)"

accel=$("$top/scripts/boot/accel.sh" "$kernel" "$initrd")
# TCG_MODE (profile): the TCG mode for a profile whose tests patch kernel
# text all the time (a static key flipped every few ms). Multi-threaded TCG
# in QEMU before 8.1 can run a stale translated block after such a patch
# (make stall-probe); a profile that says TCG_MODE=tcg-single runs
# single-threaded there instead. An ACCEL given by the caller wins; the
# mode is recorded in accel.txt like any other.
if [ "$accel" = tcg ] && [ -z "${ACCEL:-}" ] && [ -n "${TCG_MODE:-}" ] && qemu_tcg_stale_tb; then
	accel_args "$TCG_MODE" >/dev/null || die "run: profile $profile: TCG_MODE=$TCG_MODE"
	accel=$TCG_MODE
fi

# QEMU_DISKS="name:size[:drive-options] ..." (profile): a fresh sparse raw
# image per disk, attached in order as virtio disks (/dev/vda, /dev/vdb,
# ...), with the options appended to its -drive (e.g. throttling.bps-write=
# 4096); a test run deletes them at the end.
disk_args="" disk_files=""
make_disks() { # DIR PREFIX
	mkdir -p "$1"
	for _d in $QEMU_DISKS; do
		case $_d in *:?*) ;; *) die "run: QEMU_DISKS entry '$_d' is not name:size[:options]" ;; esac
		_f="$1/$2disk-${_d%%:*}.img"
		_rest=${_d#*:} _opts=
		case $_rest in *:*) _opts=",${_rest#*:}" _rest=${_rest%%:*} ;; esac
		rm -f "$_f"
		truncate -s "$_rest" "$_f" || die "run: cannot create disk image $_f"
		# -device, in order: PCI slots, hence vda, vdb, ..., follow it
		# (the results disk comes last; see below).
		_id=d$(echo "$disk_files" | wc -w)
		disk_args="$disk_args -drive file=$_f,if=none,id=$_id,format=raw$_opts -device virtio-blk-pci,drive=$_id"
		disk_files="$disk_files $_f"
	done
}

cmdline="$KERNEL_CMDLINE cowtest.timeout=${TEST_TIMEOUT:-120} ${EXTRA_CMDLINE:-}"
[ -z "${POLICY:-}" ] || cmdline="$cmdline cowtest.policy=$POLICY"
case ${HARNESS_SELFTEST:-} in
'') ;;
panic | hang | warn) cmdline="$cmdline cowtest.groups=harness-$HARNESS_SELFTEST" ;;
*) die "run: HARNESS_SELFTEST must be panic, hang or warn" ;;
esac
[ -z "${RUN_GROUPS:-}" ] || cmdline="$cmdline cowtest.groups=$RUN_GROUPS"

if [ $mode = shell ]; then
	echo "make shell: $variant kernel, profile $profile ($PROFILE_DESC), accel $accel"
	echo "make shell: Ctrl-A X quits QEMU; Ctrl-A C is the QEMU monitor"
	make_disks "$BUILD/disks" "$variant-$profile-"
	# shellcheck disable=SC2086
	"$top/scripts/boot/qemu.sh" --accel "$accel" --console stdio --loglevel "$CONSOLE_LOGLEVEL" \
		"$kernel" "$initrd" "$cmdline cowtest.shell=1" -- $QEMU_ARGS $disk_args
	rc=$?
	# qemu-exit 0 from the guest is QEMU status 1.
	[ $rc = 1 ] || [ $rc = 0 ] || die "make shell: qemu exit status $rc"
	exit 0
fi

# A profile whose runs are long sets RUN_TIMEOUT: the run gets the larger
# of it and TIMEOUT.
if [ -n "$RUN_TIMEOUT" ] && [ "$RUN_TIMEOUT" -gt "$TIMEOUT" ]; then TIMEOUT=$RUN_TIMEOUT; fi

start=$(now)
RUN_ID=${RUN_ID:-$(date +%Y%m%d-%H%M%S)}
rdir="$RESULTS/$RUN_ID"
mkdir -p "$rdir"
rm -f "$rdir/${RUN_NAME:-$variant-$profile}.status"
ln -sfn "$RUN_ID" "$RESULTS/latest"
echo "$accel" >"$rdir/accel.txt"
name=${RUN_NAME:-$variant-$profile}
log="$rdir/$name.log"
tap="$rdir/$name.tap"
make_disks "$rdir" "$name-"
# The command line this run boots with, whole (qemu.sh puts the common
# part first): the judge plans the run from it (RUN_GROUPS, POLICY and
# EXTRA_CMDLINE narrow or change the profile's).
fullcmd=$("$top/scripts/boot/qemu.sh" --print-cmdline --loglevel "$CONSOLE_LOGLEVEL" --console "$log" \
	"$kernel" "$initrd" "$cmdline") || exit 1
printf '%s\n' "$fullcmd" >"$rdir/$name.cmdline"
# The results channel (guest/init.sh): a raw disk, serial cowtest-results,
# attached after the profile's disks (which keep /dev/vda, /dev/vdb, ...).
# The guest copies its TAP there; it becomes $tap below.
resimg="$rdir/$name.results.img"
rm -f "$resimg"
truncate -s 8M "$resimg" || die "run: cannot create $resimg"
disk_args="$disk_args -drive file=$resimg,if=none,format=raw,id=cowres -device virtio-blk-pci,drive=cowres,serial=cowtest-results"
{
	echo "# cow-policy run $RUN_ID: variant=$variant profile=$profile accel=$accel timeout=${TIMEOUT}s"
	echo "# kernel: $kernel ($(kernel_release "$obj"))"
	echo "# initrd: $initrd"
	echo "# cmdline: $fullcmd"
	# shellcheck disable=SC2086
	echo "# qemu: $("$top/scripts/boot/qemu.sh" --print --accel "$accel" --console "$log" --loglevel "$CONSOLE_LOGLEVEL" "$kernel" "$initrd" "..." -- $QEMU_ARGS $disk_args)"
} >"$log"
qemu_start=$(now)
# shellcheck disable=SC2086
"$top/scripts/boot/qemu.sh" --accel "$accel" --console "$log" --timeout "$TIMEOUT" --loglevel "$CONSOLE_LOGLEVEL" \
	--out "$rdir/$name.qemu.out" "$kernel" "$initrd" "$cmdline" -- $QEMU_ARGS $disk_args
rc=$?
# When QEMU ran (make test: COWTEST_GUEST_SPANS; its guests take turns).
[ -z "${COWTEST_GUEST_SPANS:-}" ] || echo "$qemu_start $(now) $RUN_ID/$name" >>"$COWTEST_GUEST_SPANS"
# shellcheck disable=SC2086
[ -z "$disk_files" ] || rm -f $disk_files
tr -d '\r' <"$log" >"$log.tmp" && mv "$log.tmp" "$log"

# The runner's TAP, from the results disk (NUL padding dropped); the
# console's copy (from "TAP version" to the status line, printk lines
# dropped) goes to $name.console.tap for comparison by people.
tr -d '\000' <"$resimg" >"$tap"
rm -f "$resimg"
awk '/^TAP version/ { on = 1 } on && !/^\[ *[0-9]+\.[0-9]+\]/ { print } /^COWTEST-STATUS/ { on = 0 }' "$log" >"$rdir/$name.console.tap"
grep -E '^(ok|not ok) [0-9]+ ' "$tap" | sed 's/^/  /'
status=$(grep -m 1 '^COWTEST-STATUS ' "$tap" || true)
gfailed=$(printf '%s\n' "$status" | sed -n 's/.*failed=\([0-9]*\).*/\1/p')
boot=$(sed -n 's/^COWTEST-BOOT .*boot_to_runner_s=\([0-9.]*\).*/\1/p' "$log" | head -n 1)
# The CPUs the guest brought up, against the last -smp QEMU was given: a
# kernel that finds fewer (a lean kernel without ACPI takes them from the
# BIOS's MP table, which lists one CPU per package) would run the race
# tests on one CPU, and every test would still pass.
cpus=$(sed -n 's/^COWTEST-BOOT .* cpus=\([0-9]*\).*/\1/p' "$log" | head -n 1)
smp=$(sed -n '/^# qemu: /{s/.* -smp \([0-9]*\).*/\1/p;q}' "$log")

grep -E '^(ok|not ok) [0-9]+ ' "$tap" | while read -r line; do
	case $line in
	not\ ok*) record fail "$name: ${line#not ok }" ;;
	*'# SKIP'*) record skip "$name: ${line#ok }" ;;
	*) record pass "$name: ${line#ok }" ;;
	esac
done

reasons=""
add() { reasons="${reasons:+$reasons; }$1"; }
case $rc in
124 | 137) add "timeout after ${TIMEOUT}s (guest hung)" ;;
esac
if [ -z "$boot" ]; then
	why=""
	[ ! -s "$rdir/$name.qemu.out" ] || why=": qemu: $(head -n 2 "$rdir/$name.qemu.out" | tr '\n' ' ' | cut -c1-200)"
	add "the guest never reached its runner (no COWTEST-BOOT line; kernel $kernel)$why"
fi
if [ -n "$boot" ] && [ -n "$smp" ] && [ "${cpus:-0}" != "$smp" ]; then
	add "the guest brought up ${cpus:-no} CPUs of the $smp QEMU gave it (-smp)"
fi
if [ ! -s "$tap" ]; then
	add "no results on the results disk (the guest runner wrote none)"
elif [ -z "$status" ]; then
	add "no final runner status line (COWTEST-STATUS) on the results disk"
fi
# The guest observes, the host judges: this run's results against
# tests/expect/ (scripts/report/judge.py); a failed cell fails the run.
# A run under another RUN_NAME (make test-harness-failures' deliberately
# failing runs) has no cells to judge: it says so instead.
if [ -s "$tap" ] && [ "$name" != "$variant-$profile" ]; then
	echo "  judge: not judged (run name $name is not $variant-$profile)"
elif [ -s "$tap" ]; then
	python3 "$top/scripts/report/results.py" "$rdir" --only "$name" >/dev/null 2>&1
	judged=$(python3 "$top/scripts/report/judge.py" "$rdir" --only "$variant:$profile" 2>&1)
	jrc=$?
	echo "$judged" >"$rdir/$name.judge.txt"
	echo "$judged" | sed 's/^/  /'
	[ $jrc = 0 ] || add "judge: $(echo "$judged" | head -n 1 | sed 's/^judge: //') ($rdir/$name.judge.txt)"
fi
trouble=$("$top/scripts/boot/scan-log.sh" "$log" | tr '\n' ';' | sed 's/;$//; s/;/; /g')
[ -z "$trouble" ] || add "$trouble"
case $rc in
1) [ "${gfailed:-0}" = 0 ] || add "runner reported failed=$gfailed but exit status 0" ;;
3) add "guest exit status 1 (${gfailed:-?} tests failed)" ;;
124 | 137) ;;
0) [ -n "$reasons" ] || add "guest ended without an exit status (qemu exit 0)" ;;
*) add "qemu exit status $rc (see $rdir/$name.qemu.out)" ;;
esac

# The run's verdict as data, for make (the .status target) and for people.
if [ -n "$reasons" ]; then
	record fail "run $name"
	echo "fail $reasons" >"$rdir/$name.status"
	echo "FAILED: $reasons, log: $log"
	# A hung or stalled guest: say where, in the output itself (a CI log
	# may be all a reader gets): scripts/boot/hang-where.sh.
	# ($trouble is scan-log.sh's output, which quotes each kind it found.)
	if [ "$rc" = 124 ] || [ "$rc" = 137 ] ||
		printf '%s\n' "$trouble" | grep -q -F -- "$("$top/scripts/boot/scan-log.sh" --hang-kinds)"; then
		"$top/scripts/boot/hang-where.sh" "$log" "$obj" | sed 's/^/  /'
	fi
	stage "run $name" "FAILED (accel $accel, log: $log)" "$start"
	exit 1
fi
record pass "run $name"
echo "pass" >"$rdir/$name.status"
summary=$(printf '%s\n' "$status" | sed 's/^COWTEST-STATUS //')
stage "run $name" "ok (accel $accel, boot-to-runner ${boot:-?}s, $summary, log: $log)" "$start"
