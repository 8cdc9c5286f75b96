#!/bin/sh
# scripts/flow/stall.sh (make stall-probe): which side is the jump-label
# stall on, the kernel's or QEMU's? Boots the keyflip profile (a static key
# flipped every 2 ms under copy-on-write faults, tests/guest/keyflip.c) on
# each kernel under each accelerator, STALL_REPEAT times, and tabulates:
# completed, hung (the run's timeout), and what the log shows (an int3
# trap, an RCU stall) and where the stalled CPUs were: the RIPs of the
# stall backtraces and of the vCPU registers qemu.sh dumps before killing a
# hung run, checked against the kernel's jump-label patch sites
# (scripts/report/jump_sites.py). The kernels are the harness's own
# variants, built as configs/ say; the report records each one's
# CONFIG_JUMP_LABEL.
#
#   STALL_MATRIX   "variant:accel ..." (default: stock and cow under
#                  multi-threaded TCG, single-threaded TCG and, for cow,
#                  icount on one vCPU)
#   STALL_REPEAT   boots per cell (3)
#   STALL_SECONDS  seconds of flipping per boot (60)
# Results: results/stall-<date>/: a run directory per boot, meta.env, and
# report.md, the table, written by scripts/report/stall_report.py (make
# stall-report RUN=<dir> re-renders it; make report RUN=<dir> puts it in
# RESULTS.md).
set -u
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
MAKE=${MAKE:-make}
: "${STALL_MATRIX:=stock:tcg stock:tcg-single cow:tcg cow:tcg-single cow:icount}"
: "${STALL_REPEAT:=3}" "${STALL_SECONDS:=60}"
case "$STALL_REPEAT$STALL_SECONDS" in *[!0-9]*) die "stall-probe: STALL_REPEAT and STALL_SECONDS are whole numbers" ;; esac
sid=stall-$(date +%Y%m%d-%H%M%S)
out="$RESULTS/$sid"
mkdir -p "$out"
limit=$((STALL_SECONDS + 180))
variants=$(for e in $STALL_MATRIX; do echo "${e%%:*}"; done | sort -u)
for e in $STALL_MATRIX; do
	accel_args "${e#*:}" >/dev/null || exit 1
done
# shellcheck disable=SC2046
"$MAKE" --no-print-directory images MATRIX="$(for v in $variants; do printf '%s:keyflip ' "$v"; done)" || exit 1

{
	echo "run_id=$sid"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "command=make stall-probe"
	echo "project_commit=$(git rev-parse HEAD 2>/dev/null || echo none)"
	echo "qemu=$(qemu-system-x86_64 --version | head -n 1)"
	echo "host_cpus=$(nproc)"
	echo "repeat=$STALL_REPEAT"
	echo "seconds=$STALL_SECONDS"
	echo "matrix=$STALL_MATRIX"
	for v in $variants; do
		echo "kernel_$v=$(kernel_release "$BUILD/obj-$v")"
		echo "jump_label_$v=$(sed -n 's/^CONFIG_JUMP_LABEL=//p' "$BUILD/obj-$v/.config" | grep . || echo n)"
	done
	for e in $STALL_MATRIX; do echo "accel_${e#*:}=${e#*:}"; done | sort -u
} >"$out/meta.env"
for e in $STALL_MATRIX; do
	v=${e%%:*} a=${e#*:}
	extra="" lim=$limit
	# icount: one vCPU, and guest time runs several times slower than the
	# host's (about 5x here): a longer limit, or a slow boot reads as hung.
	[ "$a" = icount ] && extra="-smp 1" lim=$((STALL_SECONDS * 8 + 180))
	i=1
	while [ "$i" -le "$STALL_REPEAT" ]; do
		rid="$sid/$v-$a-$i"
		ACCEL=$a QEMU_EXTRA=$extra EXTRA_CMDLINE="cowtest.keyflipsec=$STALL_SECONDS" \
			"$MAKE" --no-print-directory run VARIANT="$v" PROFILE=keyflip RUN_ID="$rid" \
			TIMEOUT="$lim" >"$out/$v-$a-$i.out" 2>&1
		st=$(cat "$RESULTS/$rid/$v-keyflip.status" 2>/dev/null || echo "fail no status")
		printf '[%s] stall-probe %s under %s, boot %d: %s\n' "$(date +%H:%M:%S)" "$v" "$a" "$i" "$st" | cut -c1-200
		i=$((i + 1))
	done
done
echo
python3 scripts/report/stall_report.py "$out"
