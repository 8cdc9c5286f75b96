#!/bin/sh
# scripts/flow/bench.sh (make bench): the A/B copy-on-write microbenchmarks.
# Builds what it needs (make images: the bench image of every kernel in
# BENCH_VARIANTS and all it depends on), then boots each kernel K times per
# mode, each boot with its own seed (QEMU's -seed, the policy order, the
# tick phase: BENCH_SEED + boot - 1), and runs benchmarks/cowbench.c, which
# interleaves the policies in a seeded random order per round. Differences
# are judged across boots (scripts/report/benchstat.py): a figure that holds
# in one boot only is not a result. The raw data go to
# results/bench-<date>-<id>/ (raw.csv, raw.json, meta.json, the console logs);
# scripts/report/benchstat.py renders report.md, the plots and the summary table.
# Running and reporting are separate: make bench-report RUN=<dir> re-renders.
#
# Knobs (environment, or make variables):
#   QUICK=1            smoke run: tiny sizes, 1 measured round, det mode, cow
#                      only, 2 boots
#   BENCH_BOOTS        det mode: boots per kernel, distinct seeds (5)
#   BENCH_BOOTS_WALL   wall mode: boots per kernel (1: wall mode's intervals
#                      are within one boot, and the report says so)
#   BENCH_JOBS         det boots run side by side (their figures do not depend
#                      on host speed): at most this many at once (nproc)
#   BENCH_MODES        "det wall" (det: -icount shift=0,sleep=off, 1 vCPU;
#                      wall: 2 vCPUs, KVM when the probe works, else MTTCG)
#   BENCH_VARIANTS     "cow stock" (stock = unpatched Debian 6.1, the baseline;
#                      nommid, the 6.12 line: the series without the MM owner
#                      tracking, booted with exclusive alone like cowx)
#   BENCH_COW          a benchmark variant (benchmarks/variants/<name>.patch)
#                      that runs in the cow kernel's place and under its
#                      name; make bench-compare then sets it against a run
#                      of the series itself. Or debug: make test's QUICK=1
#                      run on the one kernel make test builds, a check of
#                      the pipeline whose figures are a debug kernel's
#   BENCH_EXCL_ONLY    1: det mode also boots cow with "exclusive" alone
#                      (cowx), the overhead comparison against stock; 0: not
#   BENCH_ROUNDS (15) BENCH_WARMUP (2) BENCH_SEED (1)
#   BENCH_SIZES        fork benchmark sizes in KiB, comma-separated ("256,4096")
#   BENCH_FSIZE        page (fault) benchmark region in KiB (1024)
#   BENCH_MINOPS       wall mode: pages written per sample (1024); forks = MINOPS/256
#   BENCH_MINOPS_DET   det mode: the same (256: one pass over BENCH_FSIZE, so
#                      that most samples contain no timer interrupt and the
#                      median is the interrupt-free instruction count)
#   BENCH_PHASE_DET    det mode: spin a seeded random 0..N-1 loops before each
#                      timed section (1000000, about one 4 ms tick of
#                      instructions), so that timer ticks fall at a random
#                      phase on every kernel; 0 turns it off
#   BENCH_LIST         benchmarks, comma-separated, or "all"
#   BENCH_REAL         real software (stress-ng, Redis; benchmarks/realwork.h):
#                      "all", "none" (skip them), or names (sng-fork,redis-thpnever)
#   BENCH_REAL_ROUNDS (1) BENCH_REAL_WARMUP (1)  their rounds in every boot
#                      of cow and stock (their spread comes from the boots;
#                      cowx runs none: the policies' real-software figures are
#                      cow's, and its microbenchmarks carry the overhead)
#   BENCH_REDIS_MIB (64) BENCH_REDIS_REQ (20000)  Redis dataset and SETs
#   BENCH_SWAP=1       attach a 256 MiB swap disk (swapin benchmark; the
#                      disk I/O makes det mode non-repeatable)
#   BENCH_RUN          results directory (default results/bench-<date>-<id>)
#   BENCH_NOBUILD=1    use the kernels and images as they are
#   BENCH_POLICIES     the policies the cow kernel's boots run (all of them)
#   BENCH_CMDLINE      kernel parameters added to every boot's command line
#                      (e.g. "nosoftlockup": the detectors' effect on det figures)
#   BENCH_INSN=B-S     (make bench-insn) det mode only: count the guest
#                      instructions of every timed section of benchmark B at
#                      S KiB by address with the QEMU plugin
#                      benchmarks/insn/insncount.c (cowbench marks them with
#                      getppid() and getsid(); the other benchmarks run as
#                      always), then scripts/report/insn_report.py writes
#                      insn.md
set -u
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
MAKE=${MAKE:-make}
begin=$(now)
: "${BUILD:=$top/build}" "${RESULTS:=$top/results}" "${PATCHES:=$top/patches/${KERNEL:-6.1}}"
export BUILD RESULTS PATCHES

# BENCH_INSN: one det boot of cow (policy exclusive unless BENCH_POLICIES
# says) and one of stock, no real software; cowx would repeat cow.
if [ -n "${BENCH_INSN:-}" ]; then
	case $BENCH_INSN in
	[a-z]*-[0-9]*) ;;
	*) die "make bench-insn: '$BENCH_INSN' is not <benchmark>-<KiB> (fork-256, copy-1024)" ;;
	esac
	: "${BENCH_MODES:=det}" "${BENCH_VARIANTS:=cow stock}" "${BENCH_BOOTS:=1}"
	: "${BENCH_REAL:=none}" "${BENCH_POLICIES:=exclusive}"
	BENCH_EXCL_ONLY=0
	[ "$BENCH_MODES" = det ] || die "make bench-insn: counts det boots only (BENCH_MODES=det, not '$BENCH_MODES')"
fi
if [ "${QUICK:-0}" = 1 ]; then
	: "${BENCH_MODES:=det}" "${BENCH_VARIANTS:=cow}" "${BENCH_ROUNDS:=1}"
	: "${BENCH_WARMUP:=0}" "${BENCH_SIZES:=64}" "${BENCH_FSIZE:=64}" "${BENCH_MINOPS:=64}"
	: "${BENCH_MINOPS_DET:=64}" "${BENCH_BOOTS:=2}"
	: "${BENCH_REAL_ROUNDS:=1}" "${BENCH_REAL_WARMUP:=0}" "${BENCH_REDIS_MIB:=8}" "${BENCH_REDIS_REQ:=2000}"
fi
: "${BENCH_REAL:=all}" "${BENCH_REAL_ROUNDS:=1}" "${BENCH_REAL_WARMUP:=1}"
: "${BENCH_REDIS_MIB:=64}" "${BENCH_REDIS_REQ:=20000}"
: "${BENCH_MODES:=det wall}" "${BENCH_VARIANTS:=cow stock}"
: "${BENCH_ROUNDS:=15}" "${BENCH_WARMUP:=2}" "${BENCH_SEED:=1}"
: "${BENCH_SIZES:=256,4096}" "${BENCH_FSIZE:=1024}" "${BENCH_MINOPS:=1024}" "${BENCH_LIST:=all}"
: "${BENCH_MINOPS_DET:=256}" "${BENCH_PHASE_DET:=1000000}"
: "${BENCH_SWAP:=0}" "${BENCH_TIMEOUT:=1500}"
: "${BENCH_BOOTS:=5}" "${BENCH_BOOTS_WALL:=1}" "${BENCH_JOBS:=$(nproc)}"
case "$BENCH_BOOTS:$BENCH_BOOTS_WALL:$BENCH_JOBS:$BENCH_SEED" in
*[!0-9:]* | :* | *::* | *:) die "make bench: BENCH_BOOTS, BENCH_BOOTS_WALL, BENCH_JOBS and BENCH_SEED are whole numbers" ;;
esac
[ "$BENCH_BOOTS" -ge 1 ] && [ "$BENCH_BOOTS_WALL" -ge 1 ] && [ "$BENCH_JOBS" -ge 1 ] ||
	die "make bench: BENCH_BOOTS, BENCH_BOOTS_WALL and BENCH_JOBS are at least 1"

# The kernel that runs under a name: BENCH_COW replaces cow (and cowx).
BENCH_COW=${BENCH_COW:-cow}
if [ "$BENCH_COW" != cow ] && [ "$BENCH_COW" != debug ]; then
	case " $("$MAKE" -s --no-print-directory print-ALTS_ALL) " in
	*" $BENCH_COW "*) ;;
	*) die "make bench: BENCH_COW='$BENCH_COW' is not a benchmark variant (benchmarks/variants/: $("$MAKE" -s --no-print-directory print-ALTS_ALL))" ;;
	esac
fi
kname() { case $1 in cow | cowx) echo "$BENCH_COW" ;; *) echo "$1" ;; esac; }
kobj() { "$MAKE" -s --no-print-directory print-obj-"$(kname "$1")"; }

short=$(git rev-parse --short=7 HEAD 2>/dev/null || echo nogit)
run=${BENCH_RUN:-$RESULTS/bench-$(date +%Y%m%d-%H%M%S)-$short}
mkdir -p "$run"
echo "==== make bench: modes '$BENCH_MODES', kernels '$BENCH_VARIANTS', boots det $BENCH_BOOTS wall $BENCH_BOOTS_WALL, $BENCH_ROUNDS measured + $BENCH_WARMUP warm-up rounds, sizes $BENCH_SIZES KiB -> $run"

# ---- build ------------------------------------------------------------------
if [ "${BENCH_NOBUILD:-0}" != 1 ]; then
	# make's stage graph builds the images and what they need.
	"$MAKE" --no-print-directory images MATRIX="$(for v in $BENCH_VARIANTS; do printf '%s:bench ' "$(kname "$v")"; done)" || exit 1
fi

# ---- metadata ---------------------------------------------------------------
load_profile "$top/qemu-profiles" bench
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
{
	echo "run_id=$(basename "$run")"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "command=${BENCH_COMMAND:-make bench}${QUICK:+ QUICK=$QUICK}$([ "$BENCH_COW" = cow ] || echo " BENCH_COW=$BENCH_COW")$([ "${KERNEL:-6.1}" = 6.1 ] || echo " KERNEL=$KERNEL")"
	echo "kernel_line=${KERNEL:-6.1}"
	echo "project_commit=$(git rev-parse HEAD 2>/dev/null || echo none)"
	# shellcheck disable=SC2046 # one patch file per word
	echo "series_hash=$(hash_files "$PATCHES/series" $(series_patches "$PATCHES" | sed "s|^|$PATCHES/|"))"
	# The same series in any clone (series_hash names the files by path).
	echo "series_sha256=$(series_sha256 "$PATCHES")"
	echo "qemu=$(qemu-system-x86_64 --version | head -n 1)"
	echo "host_cpu=$cpu"
	echo "host_cpus=$(nproc)"
	echo "host_kernel=$(uname -r)"
	echo "rounds=$BENCH_ROUNDS"
	echo "warmup=$BENCH_WARMUP"
	echo "seed=$BENCH_SEED"
	echo "boots_det=$BENCH_BOOTS"
	echo "boots_wall=$BENCH_BOOTS_WALL"
	echo "sizes_kib=$BENCH_SIZES"
	echo "fsize_kib=$BENCH_FSIZE"
	echo "minops=det $BENCH_MINOPS_DET, wall $BENCH_MINOPS"
	echo "benches=$BENCH_LIST"
	echo "real=$BENCH_REAL, $BENCH_REAL_ROUNDS measured + $BENCH_REAL_WARMUP warm-up rounds"
	echo "redis_mib=$BENCH_REDIS_MIB"
	echo "redis_req=$BENCH_REDIS_REQ"
	echo "profile=bench"
	echo "kconfig=${KCONFIG_BASE:-tinyconfig} + ${FRAGMENTS_BASE:-configs/lean.config}"
	echo "quick=${QUICK:-0}"
	echo "policies_cow=${BENCH_POLICIES:-all}"
	[ -z "${BENCH_INSN:-}" ] || echo "insn=$BENCH_INSN"
	[ -z "${BENCH_CMDLINE:-}" ] || echo "cmdline_extra=$BENCH_CMDLINE"
	# Seconds from the start to here: the builds (make images), or next to
	# nothing when everything was built.
	echo "build_s=$(($(now) - begin))"
	for v in $BENCH_VARIANTS; do
		obj=$(kobj "$v")
		echo "kernel_$v=$(kernel_release "$obj")$([ "$(kname "$v")" = "$v" ] || echo " (benchmark variant $(kname "$v"))")"
		echo "config_hash_$v=$(sha256sum <"$obj/.config" | cut -c1-16)"
		echo "obj_$v=$obj"
		echo "cowpin_$v=$([ -f "$BUILD/driver/$(kname "$v")/cowpin.ko" ] && echo yes || echo no)"
	done
} >"$run/meta.env"

# Deterministic mode also boots the cow kernel with "exclusive" alone (cowx)
# when stock is measured too: BENCH_EXCL_ONLY=0 leaves it out.
det_extra=""
case " $BENCH_VARIANTS " in *" cow "*)
	case " $BENCH_VARIANTS " in *" stock "*)
		[ "${BENCH_EXCL_ONLY:-1}" = 0 ] || det_extra=cowx ;;
	esac ;;
esac
if [ -n "$det_extra" ]; then
	echo "kernel_cowx=$(kernel_release "$(kobj cow)") ($(kname cow), policy exclusive only)" >>"$run/meta.env"
	echo "config_hash_cowx=$(sha256sum <"$(kobj cow)/.config" | cut -c1-16)" >>"$run/meta.env"
fi

# ---- K boots per (mode, kernel) ---------------------------------------------
# boot MODE VARIANT BOOT: run QEMU in the background, print progress, check
# the log. Boot BOOT (1..K) runs with seed BENCH_SEED + BOOT - 1.
boot() {
	_mode=$1 _v=$2 _k=$2 _b=$3 _pol=""
	_seed=$((BENCH_SEED + _b - 1))
	_id=$_mode-$_v-b$_b
	if [ "$_v" = cowx ]; then
		# The cow kernel running "exclusive" alone, like stock does: the
		# framework-overhead comparison, free of what the other
		# policies' rounds leave behind (page lists, LRU, sticky pins).
		_k=cow _pol=" cowbench.policies=exclusive"
	elif [ "$_v" = nommid ]; then
		# The series without the MM owner tracking (the 6.12 line):
		# exclusive alone, the tracking's cost against cowx.
		_pol=" cowbench.policies=exclusive"
	elif [ "$_v" = cow ] && [ -n "${BENCH_POLICIES:-}" ]; then
		_pol=" cowbench.policies=$BENCH_POLICIES"
	fi
	_obj=$(kobj "$_k")
	_kernel="$_obj/arch/x86/boot/bzImage"
	_initrd="$BUILD/initramfs/$(kname "$_k")-bench.img"
	_log="$run/$_id.log"
	case $_mode in
	det)
		_accel=icount
		_qargs="-smp 1 -seed $_seed -rtc base=2024-01-01T00:00:00,clock=vm"
		;;
	wall)
		_accel=$("$top/scripts/boot/accel.sh" "$_kernel" "$_initrd")
		_qargs="-smp 2"
		;;
	*) die "make bench: unknown mode '$_mode' (det or wall)" ;;
	esac
	if [ -n "${BENCH_INSN:-}" ]; then
		# The plugin's window opens where the kernel's getppid() starts
		# and closes where getsid() does (nokaslr: the addresses in
		# System.map).
		_open=$(awk '$3 == "__x64_sys_getppid" { print "0x" $1 }' "$_obj/System.map")
		_close=$(awk '$3 == "__x64_sys_getsid" { print "0x" $1 }' "$_obj/System.map")
		[ -n "$_open" ] && [ -n "$_close" ] ||
			{ echo "make bench-insn: no __x64_sys_getppid or __x64_sys_getsid in $_obj/System.map" >&2; return 1; }
		_qargs="$_qargs -plugin $BUILD/insn/insncount.so,open=$_open,close=$_close,out=$run/$_id.insn"
		_pol="$_pol cowbench.mark=$BENCH_INSN"
	fi
	_disk=""
	if [ "$BENCH_SWAP" = 1 ]; then
		truncate -s 256M "$run/$_id-swap.img"
		_disk="-drive file=$run/$_id-swap.img,if=virtio,format=raw"
	fi
	_cmd="$KERNEL_CMDLINE${BENCH_CMDLINE:+ $BENCH_CMDLINE} cowtest.groups=bench cowtest.policy=exclusive cowtest.timeout=$BENCH_TIMEOUT"
	_cmd="$_cmd cowbench.rounds=$BENCH_ROUNDS cowbench.warmup=$BENCH_WARMUP cowbench.seed=$_seed"
	_minops=$BENCH_MINOPS
	if [ "$_mode" = det ]; then
		_minops=$BENCH_MINOPS_DET
		_pol="$_pol cowbench.phase=$BENCH_PHASE_DET"
	fi
	_cmd="$_cmd cowbench.sizes=$BENCH_SIZES cowbench.fsize=$BENCH_FSIZE cowbench.minops=$_minops cowbench.benches=$BENCH_LIST$_pol"
	_real=$BENCH_REAL
	[ "$_v" != cowx ] || _real=none
	_cmd="$_cmd cowbench.real=$_real cowbench.realrounds=$BENCH_REAL_ROUNDS cowbench.realwarmup=$BENCH_REAL_WARMUP"
	_cmd="$_cmd cowbench.redismib=$BENCH_REDIS_MIB cowbench.redisreq=$BENCH_REDIS_REQ"
	{
		echo "# make bench boot: mode=$_mode variant=$_v boot=$_b seed=$_seed accel=$_accel"
		echo "# kernel: $_kernel ($(kernel_release "$_obj"))"
		echo "# cmdline: $("$top/scripts/boot/qemu.sh" --print-cmdline --loglevel "$CONSOLE_LOGLEVEL" --console "$_log" K I "$_cmd")"
		echo "# qemu: $(accel_args "$_accel") $_qargs -m 1G $_disk"
	} >"$_log"
	# The first boot's accelerator and arguments stand for the cell (the
	# others differ in -seed only); every boot's seed and time are kept.
	if [ "$_b" = 1 ]; then
		echo "accel_${_mode}_$_v=$_accel" >>"$run/meta.env"
		echo "qemu_args_${_mode}_$_v=$(accel_args "$_accel") $_qargs -m 1G $_disk" >>"$run/meta.env"
	fi
	echo "seed_${_mode}_${_v}_b$_b=$_seed" >>"$run/meta.env"
	_t=$(now)
	# shellcheck disable=SC2086
	"$top/scripts/boot/qemu.sh" --accel "$_accel" --console "$_log" --loglevel "$CONSOLE_LOGLEVEL" \
		--timeout "$((BENCH_TIMEOUT + 120))" --out "$run/$_id.qemu.out" \
		"$_kernel" "$_initrd" "$_cmd" -- $_qargs -m 1G $_disk &
	_pid=$!
	_last=""
	while kill -0 "$_pid" 2>/dev/null; do
		sleep 5
		_p=$(grep -a '# progress' "$_log" 2>/dev/null | tail -n 1 | sed 's/^ *# progress //')
		if [ -n "$_p" ] && [ "$_p" != "$_last" ]; then
			printf '[%4ss] bench %s/%s boot %s: %s\n' "$(($(now) - begin))" "$_mode" "$_v" "$_b" "$_p"
			_last=$_p
		fi
	done
	wait "$_pid"
	_rc=$?
	rm -f "$run/$_id-swap.img"
	tr -d '\r' <"$_log" >"$_log.tmp" && mv "$_log.tmp" "$_log"
	echo "seconds_${_mode}_${_v}_b$_b=$(($(now) - _t))" >>"$run/meta.env"
	_why=""
	grep -q '^COWTEST-STATUS passed=[0-9]* failed=0 ' "$_log" || _why="runner did not pass (rc $_rc)"
	_trouble=$("$top/scripts/boot/scan-log.sh" "$_log" | tr '\n' ' ')
	[ -z "$_trouble" ] || _why="$_why $_trouble"
	if [ -n "$_why" ]; then
		stage "bench $_mode/$_v boot $_b" "FAILED:$_why, log: $_log" "$_t"
		return 1
	fi
	stage "bench $_mode/$_v boot $_b" "ok (accel $_accel, seed $_seed, $(grep -c '^ *BENCH ' "$_log") samples)" "$_t"
}

# The det boots that have ended (see the pool below).
count_done() {
	_n=0
	for _f in "$run"/.det-done-*; do [ -e "$_f" ] && _n=$((_n + 1)); done
	echo "$_n"
}

fail=0
for m in $BENCH_MODES; do
	if [ "$m" = det ]; then
		# The deterministic guest's results do not depend on host speed:
		# its boots share the host's CPUs, a pool of BENCH_JOBS where the
		# next boot starts as soon as any ends (a boot of cow, every
		# policy and the real software, takes several of stock or cowx).
		# Longest first: every boot of the first kernel, then the next.
		# Each boot leaves its exit status in .det-done-<kernel>-<boot>.
		started=0
		for v in $BENCH_VARIANTS $det_extra; do
			b=1
			while [ "$b" -le "$BENCH_BOOTS" ]; do
				while [ "$((started - $(count_done)))" -ge "$BENCH_JOBS" ]; do sleep 1; done
				{ (boot det "$v" "$b"); echo $? >"$run/.det-done-$v-$b"; } &
				started=$((started + 1))
				b=$((b + 1))
			done
		done
		wait
		[ "$(count_done)" = "$started" ] || fail=1
		for f in "$run"/.det-done-*; do
			[ "$(cat "$f" 2>/dev/null)" = 0 ] || fail=1
			rm -f "$f"
		done
	else
		# Wall mode: one boot at a time, the kernels alternating, so
		# that a slow spell of the host does not fall on one kernel.
		b=1
		while [ "$b" -le "$BENCH_BOOTS_WALL" ]; do
			for v in $BENCH_VARIANTS; do boot "$m" "$v" "$b" || fail=1; done
			b=$((b + 1))
		done
	fi
done
echo "elapsed_s=$(($(now) - begin))" >>"$run/meta.env"
[ "$fail" = 0 ] || { echo "make bench: FAILED (see $run)"; exit 1; }

"${SCIPY_PYTHON:-/usr/bin/python3}" "$top/scripts/report/benchstat.py" collect "$run" || exit 1
"${SCIPY_PYTHON:-/usr/bin/python3}" "$top/scripts/report/benchstat.py" report "$run" || exit 1
if [ -n "${BENCH_INSN:-}" ]; then
	"${SCIPY_PYTHON:-/usr/bin/python3}" "$top/scripts/report/insn_report.py" "$run" || exit 1
	cat "$run/insn.md"
	echo "make bench-insn: $(($(now) - begin))s; $run/insn.md"
	exit 0
fi
ln -sfn "$(basename "$run")" "$RESULTS/bench-latest"
cat "$run/summary.txt"
echo "make bench: $(($(now) - begin))s; report $run/report.md, raw data $run/raw.csv"
