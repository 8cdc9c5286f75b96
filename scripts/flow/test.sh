#!/bin/sh
# scripts/flow/test.sh (make test): deps, then per kernel line of
# TEST_KERNELS (6.1 6.12) make's stage graph (test-graph: check,
# test-bad-input, kernels, guest programs, images, one QEMU run per entry of
# the line's TEST_MATRIX, bench QUICK=1), then the one judge over the line's
# runs. The first line's runs go to results/<run-id>/ as before the kernel
# axis, each further line's to results/<run-id>/<line>/, a results
# directory of its own (one line per directory: runs are named
# <variant>-<profile>, and the judge compares a line's exclusive with its
# own unpatched kernel). make check and test-bad-input run once, with the
# first line. Prints every stage line again at the end and, as the very
# last line, "N passed, N failed, N skipped" over all lines (a further
# line's counts say "<line>: "). Exit status 1 when anything failed.
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
lines=${TEST_KERNELS:-${KERNEL:-6.1}}
first=${lines%% *}
# line_rdir LINE: where the line's runs go.
line_rdir() { if [ "$1" = "$first" ]; then echo "$rdir"; else echo "$rdir/$1"; fi; }

summary() {
	pass=$(grep -c '^pass ' "$COWTEST_COUNTS")
	fail=$(grep -c '^fail ' "$COWTEST_COUNTS")
	skip=$(grep -c '^skip ' "$COWTEST_COUNTS")
	echo
	echo "==== make test: results in $rdir (total $(($(now) - begin))s) ===="
	for l in $lines; do
		lr=$(line_rdir "$l")
		[ -s "$lr/stages.txt" ] || continue
		[ "$lines" = "$first" ] || echo "---- kernel line $l ($lr) ----"
		cat "$lr/stages.txt"
	done
	if [ "$fail" != 0 ]; then
		echo "failed:"
		sed -n 's/^fail /  /p' "$COWTEST_COUNTS"
		# The judge's reasons, again: the end of the output is what a
		# CI log keeps.
		for l in $lines; do
			lr=$(line_rdir "$l")
			[ ! -s "$lr/judge.txt" ] || sed -n "s/^fail: /  judge$([ "$l" = "$first" ] || echo " ($l)"): /p" "$lr/judge.txt" | head -n 20
		done
	fi
	for l in $lines; do
		lr=$(line_rdir "$l")
		[ ! -s "$lr/cases.txt" ] || sed "s/^/guest cases$([ "$lines" = "$first" ] || echo " ($l)"): /" "$lr/cases.txt"
	done
	line="$pass passed, $fail failed, $skip skipped"
	echo "$line" >"$rdir/summary.txt"
	echo "elapsed_s=$(($(now) - begin))" >>"$rdir/meta.env"
	echo "build_mib=$(du -sm "$BUILD" 2>/dev/null | cut -f1)" >>"$rdir/meta.env"
	echo "$line"
	[ "$fail" = 0 ] && [ "$pass" != 0 ]
	exit $?
}

run_stage deps "$MAKE" --no-print-directory deps || summary
# shellcheck disable=SC2086 # DISK_LINES: one TREE=MIB word per line
run_stage disk scripts/build/disk.sh "$BUILD_ROOT" "${DISK_WARM_MIB:-1024}" ${DISK_LINES:-} || summary

# lmake LINE ARGS...: make on kernel line LINE. What make test's own make
# exported for its line (tree, series, matrix, fragments) is dropped, so
# that the line's make sets its own.
lmake() {
	_l=$1
	shift
	env -u KSRC -u KTAR -u PATCHES -u STOCK_TREE -u TEST_MATRIX -u TEST_VARIANTS \
		-u FRAGMENTS_BASE -u LINE_TREES -u BUILD "$MAKE" --no-print-directory KERNEL="$_l" "$@"
}

# The lines whose tree is not there yet: a cold build (meta.env).
cold=""
for line in $lines; do
	[ -e "$(lmake "$line" -s print-KSRC)/.git" ] || cold="$cold $line"
done
# Every further line's tree first: make check, in the first line's graph,
# runs each line's checkpatch.pl on its series.
for line in $lines; do
	[ "$line" != "$first" ] || continue
	mkdir -p "$rdir/$line"
	: >"$rdir/$line/stages.txt"
	COWTEST_LINE=$line COWTEST_STAGES="$rdir/$line/stages.txt" \
		lmake "$line" "$(lmake "$line" -s print-STAMPS)/tree.id" || true
done

# test_line LINE: the line's stage graph, then its results, judge and
# reports. The lines run side by side (TEST_SIDE_BY_SIDE=yes, the default
# with more than one line): each line's make graph is serial, the kernel
# builds of all lines take turns under scripts/build/kernel.sh's lock at
# nice 19, and the guest runs, bench boots and test-bad-input of all lines
# take turns under COWTEST_GUEST_LOCK. So one guest runs beside one kernel
# build: a cold make test builds one line's kernels while the other line's
# guests run, where one after the other left a core idle during every
# guest run. TEST_SIDE_BY_SIDE=no: one line after the other.
COWTEST_GUEST_LOCK="$rdir/.guest.lock"
COWTEST_GUEST_SPANS="$rdir/guest-spans.txt"
: >"$COWTEST_GUEST_SPANS"
export COWTEST_GUEST_LOCK COWTEST_GUEST_SPANS
test_line() {
	line=$1
	lrdir=$(line_rdir "$line")
	mkdir -p "$lrdir"
	if [ "$line" = "$first" ]; then
		lrun=$RUN_ID
		unset COWTEST_LINE
	else
		lrun=$RUN_ID/$line
		COWTEST_LINE=$line
		COWTEST_STAGES="$lrdir/stages.txt"
		export COWTEST_LINE COWTEST_STAGES
		echo "==== make test: kernel line $line -> $lrdir ===="
	fi
	matrix=$(lmake "$line" -s print-TEST_MATRIX)
	lbuild=$(lmake "$line" -s print-BUILD)
	{
		echo "run_id=$lrun"
		echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "command=make test"
		echo "jobs=${JOBS:-1}"
		echo "kernel_line=$line"
		echo "lines_side_by_side=$side"
		echo "project_commit=$(git rev-parse HEAD 2>/dev/null || echo none)$(git diff --quiet HEAD 2>/dev/null || echo '+dirty')"
		# The series tested (scripts/report/cowresults/series.py): Findings and
		# RESULTS.md's history say whether it is still the current one.
		echo "series_sha256=$(series_sha256 "$(lmake "$line" -s print-PATCHES)")"
		echo "qemu=$(qemu-system-x86_64 --version | head -n 1)"
		echo "host_cpus=$(nproc)"
		echo "test_matrix=$matrix"
		# What the build directory held when the run began.
		case "$cold " in
		*" $line "*) echo "build_state=fresh build directory (cold; ccache as it was)" ;;
		*) echo "build_state=build directory with a tree" ;;
		esac
		# And what ccache held (MiB): an empty cache is a cold build.
		echo "ccache_mib=$(du -sm "$(ccache -k cache_dir 2>/dev/null || echo /nonexistent)" 2>/dev/null | cut -f1)"
	} >"$lrdir/meta.env"

	# The stage graph (Makefile, test-graph): check and test-bad-input
	# (first line only), every build stage, every run of the line's
	# TEST_MATRIX, bench QUICK=1 and bench-insn (the lines of
	# TEST_BENCH_LINES). -k: a failed stage stops only what depends on it;
	# every run that can run, runs. JOBS=N (or make -jN test): N jobs side
	# by side.
	t=$(now)
	RUN_ID=$lrun lmake "$line" -k ${JOBS:+-j"$JOBS"} test-graph RUN_ID="$lrun" \
		TEST_ONCE="$([ "$line" = "$first" ] && echo yes)" || true
	stage "stage graph" "done ($(grep -c . "$COWTEST_STAGES") stage lines)" "$t"
	# Every build stage of the graph that printed no line ran no recipe: make
	# found it up to date. Said only when no stage failed (a stage after a
	# failed one did not run either).
	if ! grep -v '] run ' "$COWTEST_STAGES" | grep -q ': FAILED'; then
		for bt in $(lmake "$line" -s print-build-targets); do
			name=$(echo "${bt%%=*}" | tr _ ' ')
			pat=$name
			[ "$name" != tree ] || pat='(unpack|patch)'
			grep -Eq "^\[ *[0-9]+s\] $pat: " "$COWTEST_STAGES" || stage "$name" "up to date (not rebuilt)" "$(now)"
		done
	fi
	for vp in $matrix; do
		st="$lrdir/${vp%%:*}-${vp#*:}.status"
		[ -s "$st" ] || record fail "run ${vp%%:*}-${vp#*:} (not run: a stage it needs failed)"
	done
	for b in $(lmake "$line" -s print-TEST_BENCH); do
		case $b in
		*/bench-quick.status) [ -s "$lrdir/bench-quick.status" ] || record fail "bench QUICK=1 (not run: a stage it needs failed)" ;;
		*/bench-insn.status) [ -s "$lrdir/bench-insn.status" ] || record fail "bench-insn copy-64 (not run: a stage it needs failed)" ;;
		esac
	done
	for v in $(echo " $matrix" | sed 's/:[^ ]*//g' | tr ' ' '\n' | sort -u); do
		[ ! -f "$lbuild/obj-$v/include/config/kernel.release" ] ||
			echo "kernel_$v=$(cat "$lbuild/obj-$v/include/config/kernel.release")" >>"$lrdir/meta.env"
	done
	echo "accel=$(cat "$lrdir/accel.txt" 2>/dev/null || echo none)" >>"$lrdir/meta.env"

	# A line with nothing to run (TEST_MATRIX empty) proves nothing: it
	# fails by name, as a run that plans nothing does in the judge.
	if [ -z "$matrix" ]; then
		record fail "kernel line $line: no runs (its TEST_MATRIX is empty)"
		return 0
	fi
	# Every case of every guest run, parsed once (scripts/report/results.py) into
	# $lrdir/results.jsonl; a program whose TAP cannot be trusted (no plan, a
	# plan that disagrees with its points, nothing printed) fails here.
	if res=$(python3 scripts/report/results.py "$lrdir" 2>&1); then
		record pass "results.jsonl: $(echo "$res" | head -n 1)"
	else
		record fail "results.jsonl: $(echo "$res" | tr '\n' ' ' | cut -c1-400)"
	fi
	echo "$res" | head -n 1 >"$lrdir/cases.txt"
	# The one judge (scripts/report/judge.py): results.jsonl against tests/expect/, on
	# the host; every run of the line's TEST_MATRIX, every program its profile plans,
	# every scenario cell, selftest invocation and upstream case must be there
	# and as expected; rows apply to runs of their own kernel line. Writes
	# judgement.jsonl and the scenario matrix.md.
	jg=$(python3 scripts/report/judge.py "$lrdir" --runs "$matrix" 2>&1)
	jrc=$?
	echo "$jg" >"$lrdir/judge.txt"
	if [ $jrc = 0 ]; then
		record pass "$(echo "$jg" | head -n 1)"
	else
		record fail "$(echo "$jg" | head -n 1) (fails: $lrdir/judge.txt)"
		echo "$jg" | sed '1d'
	fi
	echo "$jg" | head -n 1 >>"$lrdir/cases.txt"
	# Reports of the upstream selftests (upstream.md) and of 6.1's own
	# (vm-selftests.md), from results.jsonl and judgement.jsonl: the judge above
	# already decided every case, these only report.
	for r in upstream vmtests; do
		if ls "$lrdir"/*-$r.tap >/dev/null 2>&1; then
			echo "$r report: $(python3 "scripts/report/${r}_report.py" "$lrdir" | tr '\n' ' ')"
		fi
	done
}
side=${TEST_SIDE_BY_SIDE:-yes}
[ "$lines" != "$first" ] || side=no
for line in $lines; do
	if [ "$side" = yes ]; then
		(test_line "$line") &
	else
		(test_line "$line")
	fi
done
wait
# The guest runs took turns (scripts/boot/run-qemu.sh's QEMU spans): two
# side by side would have shared the cores, which no guest's timeouts
# were measured for.
if [ -s "$COWTEST_GUEST_SPANS" ]; then
	ov=$(guest_overlap "$COWTEST_GUEST_SPANS")
	if [ -n "$ov" ]; then
		record fail "guest runs took turns: $ov ran side by side"
	else
		record pass "guest runs took turns ($(grep -c . "$COWTEST_GUEST_SPANS") QEMU runs, none side by side)"
	fi
fi
# results/latest: the make test directory, not its last line's.
[ "$lines" = "$first" ] || ln -sfn "$RUN_ID" "$RESULTS/latest"
summary
