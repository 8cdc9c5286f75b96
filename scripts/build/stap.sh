#!/bin/sh
# scripts/build/stap.sh VARIANT OBJ SCRIPT...: compile benchmarks/stap/<SCRIPT>.stp
# on the host into $BUILD/stap/<variant>/<SCRIPT>.ko for the guest kernel
# in OBJ (/work/shared/probes/README.md): Debian's systemtap 4.8 runtime
# is copied to $BUILD/stap/runtime and fixed there (6.1.192 renamed
# task_work_cancel(task, func) to task_work_cancel_func()); the installed
# runtime is never edited. A second fix there: the runtime walks
# kallsyms_on_each_symbol() under preempt_disable() to turn symbol+offset
# probes into address probes, but 6.1's walk calls cond_resched() after
# every symbol (kernel/kallsyms.c), so on a kernel with
# DEBUG_ATOMIC_SLEEP (the debug kernel, which make test boots) registering
# the module logged "BUG: sleeping function called from invalid context".
# The walk reads only vmlinux's own, static tables: the copy calls it
# preemptible, as its own cond_resched() requires.
# scripts/build/initramfs.sh puts the modules, staprun
# and stapio with their libraries into the images of that variant.
set -eu
. "$(dirname "$0")/../lib.sh"
cd "$(dirname "$0")/../.."
variant=$1 obj=$(cd "$2" && pwd)
shift 2
start=$(now)
# newer A B: file A exists and is newer than B
newer() { [ -n "$(find "$1" -newer "$2" 2>/dev/null)" ]; }
command -v stap >/dev/null 2>&1 || die "stap: systemtap is not installed (make deps installs package systemtap)"
sys=/usr/share/systemtap/runtime
rt="$BUILD/stap/runtime"
if [ ! -f "$rt/.cow-policy-fixed" ] || newer "$0" "$rt/.cow-policy-fixed" || newer "$sys/stp_task_work.c" "$rt/.cow-policy-fixed"; then
	rm -rf "$rt"
	mkdir -p "$BUILD/stap"
	cp -a "$sys" "$rt"
	sed -i -e 's/typeof(&task_work_cancel)/typeof(\&task_work_cancel_func)/' \
		-e 's/kallsyms_lookup_name("task_work_cancel")/kallsyms_lookup_name("task_work_cancel_func")/' \
		"$rt/stp_task_work.c"
	[ "$(grep -c task_work_cancel_func "$rt/stp_task_work.c")" = 2 ] ||
		die "stap: the task_work_cancel_func fix did not apply to $rt/stp_task_work.c"
	k="$rt/linux/kprobes.c"
	awk '{ l[NR] = $0 }
		END {
			for (i = 1; i <= NR; i++) {
				if (l[i] ~ /^[ \t]*preempt_disable\(\);$/ && l[i + 1] ~ /kallsyms_on_each_symbol\(stapkp_symbol_callback/) continue
				if (l[i] ~ /^[ \t]*preempt_enable\(\);$/ && l[i - 1] ~ /kallsyms_on_each_symbol\(stapkp_symbol_callback/) continue
				print l[i]
			}
		}' "$k" >"$k.tmp" && mv "$k.tmp" "$k"
	[ "$(grep -c 'kallsyms_on_each_symbol(stapkp_symbol_callback' "$k")" = 2 ] &&
		! grep -B1 -A1 'kallsyms_on_each_symbol(stapkp_symbol_callback' "$k" | grep -q preempt_ ||
		die "stap: the kallsyms walk fix did not apply to $k"
	touch "$rt/.cow-policy-fixed"
fi
[ -f "$obj/Module.symvers" ] || die "stap: no $obj/Module.symvers (make kernel VARIANT=$variant)"
out="$BUILD/stap/$variant"
mkdir -p "$out"
# shellcheck disable=SC2046
[ $# -gt 0 ] || set -- $(cd benchmarks/stap && ls ./*.stp | sed 's|^\./||; s|\.stp$||')
for s in "$@"; do
	src="benchmarks/stap/$s.stp"
	[ -f "$src" ] || die "stap: no script $src; have: $(cd benchmarks/stap && ls ./*.stp | sed 's|^\./||; s|\.stp$||' | tr '\n' ' ')"
	ko="$out/$s.ko"
	if newer "$ko" "$src" && newer "$ko" "$obj/vmlinux" && newer "$ko" "$rt/.cow-policy-fixed"; then continue; fi
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/cow-stap.XXXXXX")
	if ! (cd "$tmp" && stap -p4 -R "$(cd "$rt" && pwd)" -r "$obj" -m "$s" "$OLDPWD/$src") >"$out/$s.log" 2>&1; then
		tail -n 20 "$out/$s.log" >&2
		rm -rf "$tmp"
		stage "stap $variant" "FAILED ($src, log: $out/$s.log)" "$start"
		exit 1
	fi
	mv "$tmp/$s.ko" "$ko"
	rm -rf "$tmp"
done
stage "stap $variant" "ok ($* -> $out)" "$start"
