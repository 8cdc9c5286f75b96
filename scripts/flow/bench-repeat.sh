#!/bin/sh
# scripts/flow/bench-repeat.sh (make bench-repeatability): how far the
# deterministic mode's figures move between boots, and whether one seed
# repeats.
#   1. spread: one det-mode run of the cow kernel with BENCH_BOOTS boots
#      (default 5), each with its own seed (QEMU's -seed, the policy order,
#      the tick phase); benchstat.py spread lists every cell's boot medians
#      and their spread (max - min, % of the median). This is the variation
#      make bench's across-boot intervals contain.
#   2. determinism: a second run of boot 1 alone (the same seed); benchstat.py
#      repeat requires every fault benchmark's median to agree within 0.1%
#      with boot 1 of the first run. It shows the measure is deterministic,
#      not that a figure holds on another boot: that is what 1 shows.
# BENCH_* knobs as for make bench.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
: "${RESULTS:=$top/results}"
export RESULTS
stamp=$(date +%Y%m%d-%H%M%S)-$(git rev-parse --short=7 HEAD 2>/dev/null || echo nogit)
a="$RESULTS/bench-$stamp-seeds"
b="$RESULTS/bench-$stamp-seed1-again"
py=${SCIPY_PYTHON:-/usr/bin/python3}
BENCH_MODES=det BENCH_VARIANTS=cow BENCH_BOOTS=${BENCH_BOOTS:-5} BENCH_RUN=$a \
	"$top/scripts/flow/bench.sh" || exit 1
"$py" "$top/scripts/report/benchstat.py" spread "$a" || exit 1
BENCH_MODES=det BENCH_VARIANTS=cow BENCH_BOOTS=1 BENCH_RUN=$b \
	BENCH_NOBUILD=1 "$top/scripts/flow/bench.sh" || exit 1
"$py" "$top/scripts/report/benchstat.py" repeat "$a" "$b" | tee "$b/repeatability.txt"
