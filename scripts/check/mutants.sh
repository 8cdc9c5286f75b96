#!/bin/sh
# scripts/check/mutants.sh KSRC [NAME...] (make test-mutants [MUTANTS="a b"]):
# the mutation check. Each tests/mutants/NAME.patch is a deliberately broken
# version of the series (see tests/mutants/README): applied in a worktree of
# KSRC at branch cow-policy, built with its MUTANT_CONFIG (ccache: only the
# mutated objects compile), booted on its MUTANT_PROFILES like make run, and
# judged by scripts/report/mutants_report.py: caught when its failing cells are
# exactly those MUTANT_EXPECT names. Results in results/mutants-<date>/
# (a run directory per mutant, mutants.md: mutant -> failing cells).
# Exit status 1 when a mutant was not caught or could not be built.
set -u
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
ksrc=$1
shift
mdir=$top/tests/mutants
[ -d "$ksrc/.git" ] || die "test-mutants: no tree at $ksrc (run make tree)"
git -C "$ksrc" rev-parse -q --verify cow-policy >/dev/null || die "test-mutants: no branch cow-policy in $ksrc (run make tree)"
names=${*:-$(cd "$mdir" && ls ./*.patch | sed 's|^\./||; s|\.patch$||')}
for m in $names; do
	case $m in *[!a-z]*) die "test-mutants: mutant name '$m' is not lower-case letters only" ;; esac
	[ -f "$mdir/$m.patch" ] && [ -f "$mdir/$m.conf" ] ||
		die "test-mutants: no tests/mutants/$m.patch and .conf; have: $(cd "$mdir" && ls ./*.patch | sed 's|^\./||; s|\.patch$||' | tr '\n' ' ')"
done
rid=mutants-$(date +%Y%m%d-%H%M%S)
out="$RESULTS/$rid"
mkdir -p "$out"
TIMEOUT=${MUTANT_TIMEOUT:-300}
TEST_TIMEOUT=${MUTANT_TEST_TIMEOUT:-60}
export TIMEOUT TEST_TIMEOUT

for m in $names; do
	MUTANT_DESC='' MUTANT_CONFIG='' MUTANT_PROFILES='' MUTANT_EXPECT=''
	# shellcheck source=/dev/null
	. "$mdir/$m.conf"
	case $MUTANT_CONFIG in
	cow) frags="configs/lean.config configs/cow.config" ;;
	debug) frags="configs/lean.config configs/cow.config configs/debug.config" ;;
	*) die "test-mutants: $m.conf: MUTANT_CONFIG must be cow or debug, not '$MUTANT_CONFIG'" ;;
	esac
	printf '%s\n' "$MUTANT_DESC" >"$out/$m.desc"
	printf '%s\n' "$MUTANT_EXPECT" | sed '/^[[:space:]]*$/d' >"$out/$m.expect"
	# The worktree and object dir sit side by side under their own parent,
	# named as the main build's are (linux-source-6.1, obj-cow or
	# obj-debug): kernel.sh's CCACHE_BASEDIR makes every path relative to
	# that parent, so ccache hits the main build's objects and only what
	# the mutant changes compiles.
	wt="$BUILD/mutants/$m/linux-source-6.1"
	obj="$BUILD/mutants/$m/obj-$MUTANT_CONFIG"
	mkdir -p "$BUILD/mutants/$m"
	start=$(now)
	[ -d "$wt" ] || git -C "$ksrc" worktree add -q --detach "$wt" cow-policy
	git -C "$wt" checkout -q --detach -f cow-policy && git -C "$wt" clean -q -fdx
	if ! git -C "$wt" apply "$mdir/$m.patch"; then
		echo "build failed: $m.patch does not apply on cow-policy" >"$out/$m.build"
		stage "mutant $m" "FAILED (patch does not apply)" "$start"
		continue
	fi
	# shellcheck disable=SC2086
	if ! (cd "$top" && sh scripts/build/kconfig.sh "$m" "$wt" "$obj" configs/pending.txt $frags &&
		sh scripts/build/kernel.sh "$m" "$wt" "$obj" && sh scripts/build/driver.sh "$m" "$wt" "$obj"); then
		echo "build failed: see $obj/build.log" >"$out/$m.build"
		stage "mutant $m" "FAILED (build)" "$start"
		continue
	fi
	for p in $MUTANT_PROFILES; do
		sh "$top/scripts/build/initramfs.sh" "$m" "$p" "$obj" || { echo "$p initramfs failed" >>"$out/$m.build"; continue; }
		# The run's verdict (make run's exit status) is the cell "<profile> run".
		if RUN_ID="$rid/$m" sh "$top/scripts/boot/run-qemu.sh" "$m" "$p" "$obj"; then
			echo "$p ok" >>"$out/$m.runs"
		else
			echo "$p FAILED" >>"$out/$m.runs"
		fi
	done
	stage "mutant $m" "built and run ($MUTANT_PROFILES)" "$start"
done
python3 "$top/scripts/report/mutants_report.py" "$out" $names
