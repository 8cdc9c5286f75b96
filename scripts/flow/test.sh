#!/bin/sh
# scripts/flow/test.sh (make test): deps, then make's stage graph (test-graph:
# check, test-bad-input, kernels, guest programs, images, one QEMU run per
# TEST_MATRIX entry, bench QUICK=1), then the one judge over all runs.
# Prints every stage line again at the end and, as the very last line,
# "N passed, N failed, N skipped". Exit status 1 when anything failed.
set -u
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
MAKE=${MAKE:-make}
RUN_ID=${RUN_ID:-$(date +%Y%m%d-%H%M%S)}
rdir="$RESULTS/$RUN_ID"
mkdir -p "$rdir"
COWTEST_STAGES="$rdir/stages.txt"
COWTEST_COUNTS="$rdir/counts.txt"
: >"$COWTEST_STAGES"
: >"$COWTEST_COUNTS"
export RUN_ID COWTEST_STAGES COWTEST_COUNTS
begin=$(now)

summary() {
	pass=$(grep -c '^pass ' "$COWTEST_COUNTS")
	fail=$(grep -c '^fail ' "$COWTEST_COUNTS")
	skip=$(grep -c '^skip ' "$COWTEST_COUNTS")
	echo
	echo "==== make test: results in $rdir (total $(($(now) - begin))s) ===="
	cat "$COWTEST_STAGES"
	if [ "$fail" != 0 ]; then
		echo "failed:"
		sed -n 's/^fail /  /p' "$COWTEST_COUNTS"
		# The judge's reasons, again: the end of the output is what a
		# CI log keeps.
		[ ! -s "$rdir/judge.txt" ] || sed -n 's/^fail: /  judge: /p' "$rdir/judge.txt" | head -n 20
	fi
	[ ! -s "$rdir/cases.txt" ] || sed 's/^/guest cases: /' "$rdir/cases.txt"
	line="$pass passed, $fail failed, $skip skipped"
	echo "$line" >"$rdir/summary.txt"
	echo "elapsed_s=$(($(now) - begin))" >>"$rdir/meta.env"
	echo "build_mib=$(du -sm "$BUILD" 2>/dev/null | cut -f1)" >>"$rdir/meta.env"
	echo "$line"
	[ "$fail" = 0 ] && [ "$pass" != 0 ]
	exit $?
}

run_stage deps "$MAKE" --no-print-directory deps || summary
run_stage disk scripts/build/disk.sh "$BUILD" "${DISK_FRESH_MIB:-4864}" "${DISK_WARM_MIB:-1024}" || summary
{
	echo "run_id=$RUN_ID"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "command=make test${JOBS:+ JOBS=$JOBS}"
	echo "project_commit=$(git rev-parse HEAD 2>/dev/null || echo none)$(git diff --quiet HEAD 2>/dev/null || echo '+dirty')"
	# The series tested (scripts/report/cowresults/series.py): Findings and
	# RESULTS.md's history say whether it is still the current one.
	echo "series_sha256=$(series_sha256 "${PATCHES:-$top/patches}")"
	echo "qemu=$(qemu-system-x86_64 --version | head -n 1)"
	echo "host_cpus=$(nproc)"
	echo "test_matrix=$TEST_MATRIX"
	# What the build directory held when the run began.
	if [ -e "$KSRC/.git" ]; then echo "build_state=build directory with a tree"; else echo "build_state=fresh build directory (cold; ccache as it was)"; fi
	# And what ccache held (MiB): an empty cache is a cold build.
	echo "ccache_mib=$(du -sm "$(ccache -k cache_dir 2>/dev/null || echo /nonexistent)" 2>/dev/null | cut -f1)"
} >"$rdir/meta.env"

# The stage graph (Makefile, test-graph): check, test-bad-input, every
# build stage, every run of TEST_MATRIX, bench QUICK=1 and bench-insn. -k: a failed
# stage stops only what depends on it; every run that can run, runs.
# JOBS=N (or make -jN test): N jobs side by side.
t=$(now)
"$MAKE" --no-print-directory -k ${JOBS:+-j"$JOBS"} test-graph || true
stage "stage graph" "done ($(grep -c . "$COWTEST_STAGES") stage lines)" "$t"
# Every build stage of the graph that printed no line ran no recipe: make
# found it up to date. Said only when no stage failed (a stage after a
# failed one did not run either).
if ! grep -v '] run ' "$COWTEST_STAGES" | grep -q ': FAILED'; then
	for bt in $("$MAKE" --no-print-directory -s print-build-targets); do
		name=$(echo "${bt%%=*}" | tr _ ' ')
		pat=$name
		[ "$name" != tree ] || pat='(unpack|patch)'
		grep -Eq "^\[ *[0-9]+s\] $pat: " "$COWTEST_STAGES" || stage "$name" "up to date (not rebuilt)" "$(now)"
	done
fi
for vp in $TEST_MATRIX; do
	st="$rdir/${vp%%:*}-${vp#*:}.status"
	[ -s "$st" ] || record fail "run ${vp%%:*}-${vp#*:} (not run: a stage it needs failed)"
done
[ -s "$rdir/bench-quick.status" ] || record fail "bench QUICK=1 (not run: a stage it needs failed)"
[ -s "$rdir/bench-insn.status" ] || record fail "bench-insn copy-64 (not run: a stage it needs failed)"
for v in $(echo " $TEST_MATRIX" | sed 's/:[^ ]*//g' | tr ' ' '\n' | sort -u); do
	[ ! -f "$BUILD/obj-$v/include/config/kernel.release" ] ||
		echo "kernel_$v=$(cat "$BUILD/obj-$v/include/config/kernel.release")" >>"$rdir/meta.env"
done
echo "accel=$(cat "$rdir/accel.txt" 2>/dev/null || echo none)" >>"$rdir/meta.env"

# Every case of every guest run, parsed once (scripts/report/results.py) into
# $rdir/results.jsonl; a program whose TAP cannot be trusted (no plan, a
# plan that disagrees with its points, nothing printed) fails here.
if res=$(python3 scripts/report/results.py "$rdir" 2>&1); then
	record pass "results.jsonl: $(echo "$res" | head -n 1)"
else
	record fail "results.jsonl: $(echo "$res" | tr '\n' ' ' | cut -c1-400)"
fi
echo "$res" | head -n 1 >"$rdir/cases.txt"
# The one judge (scripts/report/judge.py): results.jsonl against tests/expect/, on
# the host; every run of TEST_MATRIX, every program its profile plans,
# every scenario cell, selftest invocation and upstream case must be there
# and as expected. Writes judgement.jsonl and the scenario matrix.md.
jg=$(python3 scripts/report/judge.py "$rdir" --runs "$TEST_MATRIX" 2>&1)
jrc=$?
echo "$jg" >"$rdir/judge.txt"
if [ $jrc = 0 ]; then
	record pass "$(echo "$jg" | head -n 1)"
else
	record fail "$(echo "$jg" | head -n 1) (fails: $rdir/judge.txt)"
	echo "$jg" | sed -n '2,21p'
fi
echo "$jg" | head -n 1 >>"$rdir/cases.txt"
# Reports of the upstream selftests (upstream.md) and of 6.1's own
# (vm-selftests.md), from results.jsonl and judgement.jsonl: the judge above
# already decided every case, these only report.
for r in upstream vmtests; do
	if ls "$rdir"/*-$r.tap >/dev/null 2>&1; then
		echo "$r report: $(python3 "scripts/report/${r}_report.py" "$rdir" | tr '\n' ' ')"
	fi
done
summary
