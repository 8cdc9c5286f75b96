#!/bin/sh
# scripts/bench.sh (make bench): PLACEHOLDER benchmark until the real A/B
# benchmark lands. Boots cow x base and runs guest/bench-fork.c (fork, the
# child writes 16 MiB, 5 times) under every policy; prints the medians.
set -u
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
MAKE=${MAKE:-make}
echo "==== PLACEHOLDER benchmark (not the real A/B benchmark): fork + write 16 MiB, 5 runs per policy ===="
for t in deps "kernel VARIANT=cow" guest "initramfs VARIANT=cow PROFILE=base"; do
	# shellcheck disable=SC2086
	"$MAKE" --no-print-directory $t || exit 1
done
RUN_ID=$(date +%Y%m%d-%H%M%S)-bench
export RUN_ID
RUN_GROUPS=bench "$MAKE" --no-print-directory run VARIANT=cow PROFILE=base || exit 1
log="$RESULTS/$RUN_ID/cow-base.log"
out="$RESULTS/$RUN_ID/bench.txt"
{
	echo "PLACEHOLDER benchmark, kernel cow, profile base, accel $(cat "$RESULTS/$RUN_ID/accel.txt")"
	sed -n 's/^ *# BENCH //p' "$log"
} >"$out"
cat "$out"
echo "bench results: $out"
