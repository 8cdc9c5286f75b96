#!/bin/sh
# scripts/check-series-quick.sh KSRC PATCHDIR BUILD: a fast bisectability
# check for working on the series.  Like check-series.sh it applies
# patches/series one patch at a time onto "base" in a separate worktree, with
# CONFIG_COW_POLICY=y and =n, but instead of bzImage it compiles only the
# objects built from the files the series touches and the mm/ users of its
# headers (minutes instead of most of an hour).  A compiler warning fails the
# step.  It does not replace make check-series, which builds every prefix
# whole.  Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
ksrc=$1 patchdir=$2 build=$3
wt=${QS_WORKTREE:-$build/series-quick}
objs="mm/cow_policy.o mm/memory.o mm/gup.o mm/huge_memory.o mm/mprotect.o
mm/ksm.o mm/hugetlb.o mm/gup_test.o mm/vmstat.o mm/rmap.o mm/swapfile.o
mm/migrate.o fs/proc/task_mmu.o kernel/fork.o"
pass=0 fail=0
[ -d "$ksrc/.git" ] || die "check-series-quick: no tree at $ksrc (run make tree)"
[ -d "$wt" ] || git -C "$ksrc" worktree add -q --detach "$wt" base
git -C "$wt" am --abort >/dev/null 2>&1 || true
git -C "$wt" checkout -q --detach -f base
k=0
for p in $(series_patches "$patchdir"); do
	k=$((k + 1))
	if ! git -C "$wt" -c user.name=cow-policy -c user.email=cow-policy@localhost \
		am -q --no-3way "$(cd "$patchdir" && pwd)/$p" >/dev/null 2>&1; then
		git -C "$wt" am --abort >/dev/null 2>&1 || true
		echo "not ok - $k $p: does not apply"
		fail=$((fail + 1))
		break
	fi
	for setting in cow nocow; do
		obj=${QS_OBJ_PREFIX:-$build/obj-series-quick-}$setting
		start=$(now)
		if ! sh "$top/scripts/kconfig.sh" "series-quick-$setting" "$wt" "$obj" \
			"$top/configs/pending.txt" "$top/configs/lean.config" \
			"$top/configs/$setting.config" >/dev/null 2>&1; then
			echo "not ok - $k $p ($setting): config failed"
			fail=$((fail + 1))
			continue
		fi
		list=""
		for o in $objs; do
			[ -f "$wt/${o%.o}.c" ] || continue
			# cow_policy.c is only built with CONFIG_COW_POLICY=y.
			[ "$o" != mm/cow_policy.o ] || [ "$setting" = cow ] || continue
			list="$list $o"
		done
		# shellcheck disable=SC2086
		if make -C "$wt" O="$obj" -j"${JOBS:-2}" CC="ccache gcc" $list >"$obj/quick.log" 2>&1 &&
			! grep -q 'warning:' "$obj/quick.log"; then
			echo "ok - $k $p ($setting, $(($(now) - start))s)"
			pass=$((pass + 1))
		else
			echo "not ok - $k $p ($setting): see $obj/quick.log"
			grep -E 'error|warning' "$obj/quick.log" | head -n 5 | sed 's/^/    /'
			fail=$((fail + 1))
		fi
	done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
