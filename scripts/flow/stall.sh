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
# Results: results/stall-<date>/: a run directory per boot, report.md and
# meta.env (make report RUN=results/stall-<date> puts the table in RESULTS.md).
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
	for v in $variants; do
		echo "kernel_$v=$(kernel_release "$BUILD/obj-$v")"
		echo "jump_label_$v=$(sed -n 's/^CONFIG_JUMP_LABEL=//p' "$BUILD/obj-$v/.config" | grep . || echo n)"
	done
	for e in $STALL_MATRIX; do echo "accel_${e#*:}=${e#*:}"; done | sort -u
} >"$out/meta.env"
{
	echo "# Jump-label stall probe: $sid"
	echo
	echo "A static key flipped every 2 ms for $STALL_SECONDS s under copy-on-write faults"
	echo "(tests/guest/keyflip.c), $STALL_REPEAT boots per cell, $(qemu-system-x86_64 --version | head -n 1),"
	echo "host $(nproc) cores, commit $(git rev-parse --short HEAD 2>/dev/null || echo none), $(date -u +%Y-%m-%dT%H:%M:%SZ)."
	echo
	for v in $variants; do
		echo "- kernel $v: $(kernel_release "$BUILD/obj-$v"), $(grep -E '^(# )?CONFIG_JUMP_LABEL[= ]' "$BUILD/obj-$v/.config" | head -n 1)"
	done
	echo
	echo "| kernel | accelerator | key | completed | hung (timeout) | int3 in log | RCU stall in log | hung at a jump-label site | flips per second |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
} >"$out/report.md"

for e in $STALL_MATRIX; do
	v=${e%%:*} a=${e#*:}
	extra="" lim=$limit
	# icount: one vCPU, and guest time runs several times slower than the
	# host's (about 5x here): a longer limit, or a slow boot reads as hung.
	[ "$a" = icount ] && extra="-smp 1" lim=$((STALL_SECONDS * 8 + 180))
	done_n=0 hung=0 int3=0 rcu=0 atsite=0 rates="" key=""
	i=1
	while [ "$i" -le "$STALL_REPEAT" ]; do
		rid="$sid/$v-$a-$i"
		ACCEL=$a QEMU_EXTRA=$extra EXTRA_CMDLINE="cowtest.keyflipsec=$STALL_SECONDS" \
			"$MAKE" --no-print-directory run VARIANT="$v" PROFILE=keyflip RUN_ID="$rid" \
			TIMEOUT="$lim" >"$out/$v-$a-$i.out" 2>&1
		log="$RESULTS/$rid/$v-keyflip.log"
		st=$(cat "$RESULTS/$rid/$v-keyflip.status" 2>/dev/null || echo "fail no status")
		case $st in pass) done_n=$((done_n + 1)) ;; esac
		case $st in *timeout*)
			hung=$((hung + 1))
			python3 scripts/report/jump_sites.py "$BUILD/obj-$v/vmlinux" "$log" >"$out/$v-$a-$i.sites" 2>&1
			grep -q '^sites=[1-9]' "$out/$v-$a-$i.sites" && atsite=$((atsite + 1))
			;;
		esac
		grep -qE 'int3|exc_int3' "$log" 2>/dev/null && int3=$((int3 + 1))
		grep -qE 'rcu: INFO|self-detected stall|rcu_sched detected stalls' "$log" 2>/dev/null && rcu=$((rcu + 1))
		r=$(sed -n 's/.*# RESULT key=\([a-z_]*\) .*rate_per_s=\([0-9]*\).*/\1 \2/p' "$RESULTS/$rid/$v-keyflip.tap" 2>/dev/null | head -n 1)
		[ -z "$r" ] || { key=${r% *}; rates="$rates ${r#* }"; }
		printf '[%s] stall-probe %s under %s, boot %d: %s\n' "$(date +%H:%M:%S)" "$v" "$a" "$i" "$st" | cut -c1-200
		i=$((i + 1))
	done
	echo "| $v | $a | ${key:-?} | $done_n/$STALL_REPEAT | $hung/$STALL_REPEAT | $int3 | $rcu | $atsite/$hung | ${rates:- -} |" >>"$out/report.md"
done
{
	echo
	echo "*hung at a jump-label site*: of the hung boots, those where a stalled CPU's RIP"
	echo "(stall backtraces, or the vCPU registers dumped at the timeout) is a patch"
	echo "site of the kernel's __jump_table; <variant>-<accel>-<n>.sites lists them."
} >>"$out/report.md"
echo
cat "$out/report.md"
