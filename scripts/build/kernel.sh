#!/bin/sh
# scripts/build/kernel.sh VARIANT TREE OBJ
# Build bzImage and modules of a configured object dir (ccache, fixed build
# timestamp), then install the modules into OBJ/modinst for the initramfs.
# Holds a lock so that only one kernel build runs on the machine at a time.
# OBJ/kernel.id (the Makefile's) names the bzImage and modules built; it is
# rewritten only when they change, so an unchanged rebuild rebuilds nothing
# after it.
set -eu
. "$(dirname "$0")/../lib.sh"
variant=$1 tree=$2 obj=$3
KBUILD_JOBS=${KBUILD_JOBS:-$(($(nproc) + 1))}
log="$obj/build.log"
# Machine-wide (not per BUILD dir): two kernel builds on 2 cores only slow
# each other down. KBUILD_LOCK overrides.
lock=${KBUILD_LOCK:-/run/lock/cow-policy-kernel-build.lock}

# ccache keys on absolute paths; rewrite those under the common parent of
# tree and object dir so that a fresh clone elsewhere hits the same cache.
CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(cd "$tree/.." && pwd -P)}
CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
export CCACHE_BASEDIR CCACHE_NOHASHDIR

# At nice 19 (KBUILD_NICE): make test boots one guest beside one kernel
# build (scripts/flow/test.sh), and a guest that waits for the CPU sees its
# clocks jump (RCU stall and soft-lockup reports); alone, it changes nothing.
kmake() {
	MAKEFLAGS='' nice -n "${KBUILD_NICE:-19}" make -C "$tree" O="$obj" -j"$KBUILD_JOBS" CC="ccache gcc" \
		KBUILD_BUILD_TIMESTAMP='2024-01-01' KBUILD_BUILD_USER=cow \
		KBUILD_BUILD_HOST=cow "$@" >>"$log" 2>&1
}
fail() {
	grep -E 'error|Error|ERROR' "$log" | head -n 20 >&2 || true
	tail -n 15 "$log" >&2
	stage "$1" "FAILED (log: $log)" "$2"
	exit 1
}

# Take the lock for the whole script (fd 9); stage times exclude the wait.
exec 9>"$lock"
if ! flock -n 9; then
	echo "kernel $variant: waiting for another kernel build to finish ($lock)"
	flock 9
fi
: >"$log"
start=$(now)
kmake bzImage || fail "kernel $variant" "$start"
stage "kernel $variant" "ok ($(kernel_release "$obj"), $obj/arch/x86/boot/bzImage)" "$start"

start=$(now)
kmake modules || fail "modules $variant" "$start"
rm -rf "$obj/modinst"
kmake INSTALL_MOD_PATH="$obj/modinst" INSTALL_MOD_STRIP=1 DEPMOD=/sbin/depmod modules_install ||
	fail "modules $variant" "$start"
n=$(find "$obj/modinst" -name '*.ko' | wc -l)
stage "modules $variant" "ok ($n modules)" "$start"
write_id "$obj/kernel.id" "$(sha256sum <"$obj/arch/x86/boot/bzImage" | cut -d' ' -f1) $(hash_tree "$obj/modinst")"
