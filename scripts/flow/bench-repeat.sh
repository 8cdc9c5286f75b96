#!/bin/sh
# scripts/flow/bench-repeat.sh (make bench-repeatability): acceptance 2 of make
# bench. Two consecutive deterministic-mode runs of the cow kernel (same
# settings, two boots), then scripts/report/benchstat.py repeat: every fault
# benchmark's median must agree within 0.1% between the two runs.
# BENCH_* knobs as for make bench (BENCH_SEED2: seed of the second run,
# default the same seed; a different seed changes the policy order).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
: "${RESULTS:=$top/results}"
export RESULTS
stamp=$(date +%Y%m%d-%H%M%S)-$(git rev-parse --short=7 HEAD 2>/dev/null || echo nogit)
a="$RESULTS/bench-$stamp-repeat-A"
b="$RESULTS/bench-$stamp-repeat-B"
seed=${BENCH_SEED:-1}
BENCH_MODES=det BENCH_VARIANTS=cow BENCH_SEED=$seed BENCH_RUN=$a \
	"$top/scripts/flow/bench.sh" || exit 1
BENCH_MODES=det BENCH_VARIANTS=cow BENCH_SEED=${BENCH_SEED2:-$seed} BENCH_RUN=$b \
	BENCH_NOBUILD=1 "$top/scripts/flow/bench.sh" || exit 1
"${SCIPY_PYTHON:-/usr/bin/python3}" "$top/scripts/report/benchstat.py" repeat "$a" "$b" | tee "$b/repeatability.txt"
