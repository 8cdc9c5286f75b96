#!/bin/sh
# scripts/flow/test.sh (make test): deps, tree, check, kernels, guest programs,
# initramfs images and one QEMU run per TEST_MATRIX entry (variant:profile).
# Prints every stage line again at the end and, as the very last line,
# "N passed, N failed, N skipped". Exit status 1 when anything failed.
set -u
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
MAKE=${MAKE:-make}
RUN_ID=$(date +%Y%m%d-%H%M%S)
rdir="$RESULTS/$RUN_ID"
mkdir -p "$rdir"
COWTEST_STAGES="$rdir/stages.txt"
COWTEST_COUNTS="$rdir/counts.txt"
: >"$COWTEST_STAGES"
: >"$COWTEST_COUNTS"
export RUN_ID COWTEST_STAGES COWTEST_COUNTS
begin=$(now)

# step NAME MAKE-ARGS...: one make target; a failure counts as a failed test
# (and gets a stage line if the target died before printing its own).
step() {
	_name=$1
	shift
	_lines=$(wc -l <"$COWTEST_STAGES")
	_t=$(now)
	if "$MAKE" --no-print-directory "$@"; then return 0; fi
	record fail "stage $_name"
	[ "$(wc -l <"$COWTEST_STAGES")" != "$_lines" ] || stage "$_name" "FAILED" "$_t"
	return 1
}

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
	echo "$line"
	[ "$fail" = 0 ] && [ "$pass" != 0 ]
	exit $?
}

step deps deps || summary
step tree tree || summary
step check check
step test-bad-input test-bad-input

# Variants: TEST_VARIANTS plus any variant named in TEST_MATRIX.
variants=$TEST_VARIANTS
for vp in $TEST_MATRIX; do
	case " $variants " in *" ${vp%%:*} "*) ;; *) variants="$variants ${vp%%:*}" ;; esac
done
built=""
for v in $variants; do
	step "kernel $v" kernel VARIANT="$v" SKIP_TREE=1 && built="$built $v" &&
		step "driver $v" driver VARIANT="$v" &&
		case $v in cow) step "stap $v" stap VARIANT="$v" SCRIPT=cow_decisions ;; esac
done
step guest guest || summary

for vp in $TEST_MATRIX; do
	v=${vp%%:*} p=${vp#*:}
	case " $built " in
	*" $v "*) ;;
	*)
		record fail "run $v-$p (kernel $v did not build)"
		continue
		;;
	esac
	step "initramfs $v-$p" initramfs VARIANT="$v" PROFILE="$p" || continue
	run_counted "$v" "$p"
done
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
# make bench QUICK=1: one tiny deterministic round of every benchmark on the
# cow kernel, through collect, report and plots: proves the bench pipeline
# (no timing assertions). Raw data and report in $rdir/bench-quick/.
case " $built " in
*" cow "*)
	step "initramfs cow-bench" initramfs VARIANT=cow PROFILE=bench &&
		step "bench QUICK=1" bench QUICK=1 BENCH_NOBUILD=1 BENCH_RUN="$rdir/bench-quick" &&
		record pass "bench QUICK=1 ($rdir/bench-quick/report.md)"
	;;
*) record fail "bench QUICK=1 (kernel cow did not build)" ;;
esac
summary
