#!/bin/sh
# scripts/check/mutants.sh KSRC [NAME...] (make test-mutants [MUTANTS="a b"]):
# the mutation check. Each tests/mutants/NAME.patch is a deliberately broken
# version of the series (see tests/mutants/README): a variant of make's
# stage graph (its own worktree of KSRC at branch cow-policy plus the patch,
# built with its MUTANT_CONFIG; ccache: only the mutated objects compile),
# booted on its MUTANT_PROFILES with make run, and
# judged by scripts/report/mutants_report.py: caught when its failing cells are
# exactly those MUTANT_EXPECT names. Results in results/mutants-<date>/
# (a run directory per mutant, mutants.md: mutant -> failing cells).
# Exit status 1 when a mutant was not caught or could not be built.
set -u
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
MAKE=${MAKE:-make}
ksrc=$1
shift
mdir=$top/tests/mutants
[ -d "$ksrc/.git" ] || die "test-mutants: no tree at $ksrc (run make tree)"
git -C "$ksrc" rev-parse -q --verify cow-policy >/dev/null || die "test-mutants: no branch cow-policy in $ksrc (run make tree)"
# MUTANTS_ALL (the Makefile's): the mutants of this kernel line, whose
# .conf names it in MUTANT_KERNEL (6.1 when absent).
line=${KERNEL:-6.1}
names=${*:-${MUTANTS_ALL:-}}
[ -n "$names" ] || die "test-mutants: no mutant of the $line line in tests/mutants/"
for m in $names; do
	case $m in *[!a-z]*) die "test-mutants: mutant name '$m' is not lower-case letters only" ;; esac
	[ -f "$mdir/$m.patch" ] && [ -f "$mdir/$m.conf" ] ||
		die "test-mutants: no tests/mutants/$m.patch and .conf; have: $(cd "$mdir" && ls ./*.patch | sed 's|^\./||; s|\.patch$||' | tr '\n' ' ')"
	mline=$(sed -n 's/^MUTANT_KERNEL=//p' "$mdir/$m.conf" | tr -d "'\"")
	[ "${mline:-6.1}" = "$line" ] ||
		die "test-mutants: $m is a mutant of the ${mline:-6.1} line (tests/mutants/$m.conf); run it with KERNEL=${mline:-6.1}"
done
# Disk: a mutant not built yet takes about 1.8 GiB (its worktree of the
# tree and its objects); stop now rather than halfway through the list.
new=0
for m in $names; do [ -d "${BUILD:?}/mutants/$m/$(basename "$ksrc")" ] || new=$((new + 1)); done
sh scripts/build/disk.sh "$BUILD" $((new * 1800 + 1024)) || exit 1
t0=$(now)
rid=mutants-$(date +%Y%m%d-%H%M%S)
out="$RESULTS/$rid"
mkdir -p "$out"
# What the results model (scripts/report/cowresults) reads: the run, its
# date, commit and the series the mutants were applied on.
{
	echo "run_id=$rid"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "command=make test-mutants${*:+ MUTANTS=\"$*\"}"
	echo "project_commit=$(git rev-parse HEAD 2>/dev/null || echo none)$(git diff --quiet HEAD 2>/dev/null || echo '+dirty')"
	echo "series_sha256=$(series_sha256 "${PATCHES:-$top/patches/${KERNEL:-6.1}}")"
} >"$out/meta.env"
TIMEOUT=${MUTANT_TIMEOUT:-300}
TEST_TIMEOUT=${MUTANT_TEST_TIMEOUT:-120}
export TIMEOUT TEST_TIMEOUT

for m in $names; do
	MUTANT_DESC='' MUTANT_CONFIG='' MUTANT_PROFILES='' MUTANT_EXPECT=''
	# shellcheck source=/dev/null
	. "$mdir/$m.conf"
	case $MUTANT_CONFIG in
	cow | debug) ;;
	*) die "test-mutants: $m.conf: MUTANT_CONFIG must be cow or debug, not '$MUTANT_CONFIG'" ;;
	esac
	printf '%s\n' "$MUTANT_DESC" >"$out/$m.desc"
	printf '%s\n' "$MUTANT_EXPECT" | sed '/^[[:space:]]*$/d' >"$out/$m.expect"
	start=$(now)
	# make's stage graph builds the mutant (its tree, kernel, driver,
	# images: the Makefile's mutant variants) and runs it; the run's
	# verdict (make run's exit status) is the cell "<profile> run".
	matrix=$(for p in $MUTANT_PROFILES; do printf '%s:%s ' "$m" "$p"; done)
	if ! "$MAKE" --no-print-directory images MATRIX="$matrix"; then
		echo "build failed: see the stage lines above" >"$out/$m.build"
		stage "mutant $m" "FAILED (build)" "$start"
		continue
	fi
	for p in $MUTANT_PROFILES; do
		if "$MAKE" --no-print-directory run VARIANT="$m" PROFILE="$p" RUN_ID="$rid/$m"; then
			echo "$p ok" >>"$out/$m.runs"
		else
			echo "$p FAILED" >>"$out/$m.runs"
		fi
	done
	stage "mutant $m" "built and run ($MUTANT_PROFILES)" "$start"
done
# The run's wall time, build and boots of every mutant (RESULTS.md says it).
{
	echo "elapsed_s=$(($(now) - t0))"
	echo "host_cpus=$(nproc)"
	# shellcheck disable=SC2086 # one mutant name per word
	echo "mutants=$(echo $names | wc -w)"
} >>"$out/meta.env"
python3 "$top/scripts/report/mutants_report.py" "$out" $names
