#!/bin/sh
# scripts/check/check-series.sh KSRC PATCHDIR BUILD
# Bisectability: apply PATCHDIR/series (patches/<line>/series) one patch at
# a time onto "base" in a separate worktree and build bzImage after each,
# with CONFIG_COW_POLICY=y (configs/cow.config, plus the line's FRAGMENTS_COW
# from the first patch that defines their options: 6.12's
# CONFIG_COW_POLICY_MM_ID from 0013) and =n (configs/nocow.config)
# on the line's lean config (FRAGMENTS_BASE: configs/lean.config and the
# line's own, from the Makefile).
# Object dirs are kept per setting, so each step rebuilds what changed
# (through ccache).  Prints one TAP-like line per (prefix, setting) and ends
# with "N passed, N failed".  Slow: expect about 40 minutes on 2 cores.
# QUICK=1 (make check-series-quick): compile only the objects built from the
# files the series touches and the mm/ users of its headers instead of
# bzImage, in obj-series-quick-<setting> (minutes; not a substitute).
set -eu
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
ksrc=$1 patchdir=$2 build=$3
KBUILD_JOBS=${KBUILD_JOBS:-$(($(nproc) + 1))}
wt="$build/series-check"
QUICK=${QUICK:-}
quick_objs="mm/cow_policy.o mm/memory.o mm/gup.o mm/huge_memory.o mm/mprotect.o
mm/ksm.o mm/hugetlb.o mm/gup_test.o mm/vmstat.o mm/rmap.o mm/swapfile.o
mm/migrate.o fs/proc/task_mmu.o kernel/fork.o"
lock=${KBUILD_LOCK:-/run/lock/cow-policy-kernel-build.lock}
pass=0 fail=0

[ -d "$ksrc/.git" ] || die "check-series: no tree at $ksrc (run make tree)"
if [ ! -d "$wt" ]; then
	git -C "$ksrc" worktree add -q --detach "$wt" base
fi
git -C "$wt" am --abort >/dev/null 2>&1 || true
git -C "$wt" checkout -q --detach -f base

k=0
for p in $(series_patches "$patchdir"); do
	k=$((k + 1))
	abs=$(cd "$patchdir" && pwd)/$p
	if ! git -C "$wt" -c user.name=cow-policy -c user.email=cow-policy@localhost \
		am -q --no-3way "$abs" >/dev/null 2>&1; then
		git -C "$wt" am --abort >/dev/null 2>&1 || true
		echo "not ok - $k $p: does not apply"
		fail=$((fail + 1))
		break
	fi
	for setting in cow nocow; do
		start=$(now)
		obj="$build/obj-series-${QUICK:+quick-}$setting"
		# =y also takes the line's own COW fragments (FRAGMENTS_COW: 6.12's
		# mmid.config) from the prefix on whose Kconfig has their options.
		extra=""
		if [ "$setting" = cow ]; then
			for f in ${FRAGMENTS_COW:-}; do
				case $f in /*) ;; *) f=$top/$f ;; esac
				have=1
				for sym in $(sed -n 's/^CONFIG_\([A-Z0-9_]*\)=.*/\1/p' "$f"); do
					grep -rqx --include='Kconfig*' "config $sym" "$wt" || have=0
				done
				[ $have = 0 ] || extra="$extra $f"
			done
		fi
		# shellcheck disable=SC2046 # one fragment per word
		if ! sh "$top/scripts/build/kconfig.sh" "series-$setting" "$wt" "$obj" \
			"$top/configs/pending.txt" $(for f in ${FRAGMENTS_BASE:-configs/lean.config}; do case $f in /*) echo "$f" ;; *) echo "$top/$f" ;; esac; done) \
			"$top/configs/$setting.config" $extra >/dev/null; then
			echo "not ok - $k $p ($setting): config failed, see $obj/config.log"
			fail=$((fail + 1))
			continue
		fi
		log="$obj/series-build.log"
		targets=bzImage
		if [ -n "$QUICK" ]; then
			targets=""
			for o in $quick_objs; do
				[ -f "$wt/${o%.o}.c" ] || continue
				# cow_policy.c is only built with CONFIG_COW_POLICY=y.
				[ "$o" != mm/cow_policy.o ] || [ "$setting" = cow ] || continue
				targets="$targets $o"
			done
		fi
		# A warning in a file the series touched fails the step too.
		touched=$(git -C "$wt" diff --name-only base HEAD | sed 's/[.]/[.]/g' | paste -sd'|' -)
		# shellcheck disable=SC2086
		if flock "$lock" make -C "$wt" O="$obj" -j"$KBUILD_JOBS" CC="ccache gcc" \
			KBUILD_BUILD_TIMESTAMP='2024-01-01' KBUILD_BUILD_USER=cow \
			KBUILD_BUILD_HOST=cow $targets >"$log" 2>&1 &&
			! grep -E "($touched):[0-9]+:[0-9]+: warning:" "$log"; then
			echo "ok - $k $p ($setting, $(($(now) - start))s)"
			pass=$((pass + 1))
		else
			echo "not ok - $k $p ($setting): see $log"
			grep -E 'error|warning' "$log" | head -n 10 | sed 's/^/    /'
			fail=$((fail + 1))
		fi
	done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
