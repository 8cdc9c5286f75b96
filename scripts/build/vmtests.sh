#!/bin/sh
# scripts/build/vmtests.sh KSRC: build 6.1's own mm selftests from the
# unpacked tree, with the tree's own Makefile, statically.
#
# The programs of KSRC/tools/testing/selftests/vm that exercise the paths the
# COW policy decides (userfaultfd, soft-dirty, ksm_tests, gup_test,
# madv_populate, khugepaged, split_huge_page_test, mremap_test) are built by
# `make -C .../selftests/vm OUTPUT=$BUILD/vmtests/out /full/path ...` (the
# form that Makefile supports for single targets) against the tree's uapi
# headers, with EXTRA_CFLAGS=-static (libnuma.a from libnuma-dev for
# ksm_tests), and installed stripped as $BUILD/guest/bin/vm61_NAME, so every
# initramfs carries them. guest/adapters/vm_selftest.sh runs them in the guest; the
# invocations are tests/groups/vmtests.list, the expectations
# tests/expect/vm-selftests.tsv.
#
# The programs are built from a copy of the files they need (the vm
# directory, lib.mk and the kselftest headers, the two kernel headers they
# include), in $BUILD/vmtests/src, with the fixes of tests/vm-selftests/*.patch
# applied in name order: bugs of the tests themselves, each explained in its
# patch. The tree stays as the series left it; no selftest source is kept in
# the repository, only those patches.
set -eu
. "$(dirname "$0")/../lib.sh"
ksrc=$1
start=$(now)
VMTESTS=${VMTESTS:-userfaultfd soft-dirty ksm_tests gup_test madv_populate khugepaged split_huge_page_test mremap_test}
dir="$BUILD/vmtests"
out="$dir/out"
bin="$BUILD/guest/bin"
sel="$ksrc/tools/testing/selftests/vm"
top=$(cd "$(dirname "$0")/../.." && pwd)
src="$dir/src"

[ -d "$ksrc/.git" ] || die "vmtests: no kernel tree at $ksrc (run make tree)"
[ -f "$sel/Makefile" ] || die "vmtests: $sel/Makefile missing: the unpacked tree has no vm selftests"
[ -f /usr/lib/x86_64-linux-gnu/libnuma.a ] || die "vmtests: missing libnuma.a (make deps installs libnuma-dev)"
mkdir -p "$out" "$bin"
uapi_headers "$ksrc" "$dir"

# The copy and the programs are made afresh every time, so a fix removed
# from tests/vm-selftests is removed from the programs too.
rm -rf "$src" "$out"
mkdir -p "$src" "$out"
st=tools/testing/selftests
for f in $st/vm $st/lib.mk $st/kselftest.h $st/kselftest_harness.h \
	$st/x86/check_cc.sh $st/x86/trivial_program.c $st/x86/trivial_32bit_program.c \
	$st/x86/trivial_64bit_program.c mm/gup_test.h include/vdso/time64.h lib/test_hmm_uapi.h; do
	[ -e "$ksrc/$f" ] || die "vmtests: $ksrc/$f missing: is this a 6.1 tree?"
	(cd "$ksrc" && cp -a --parents "$f" "$src/") || die "vmtests: cannot copy $f"
done
fixes=""
for p in "$top"/tests/vm-selftests/*.patch; do
	[ -f "$p" ] || continue
	patch -s -p1 -N -d "$src" <"$p" >"$dir/patch.log" 2>&1 ||
		die "vmtests: $(basename "$p") does not apply to $(basename "$ksrc")'s selftests: $(head -n 3 "$dir/patch.log")"
	fixes="$fixes $(basename "$p")"
done
sel="$src/$st/vm"

targets=""
for t in $VMTESTS; do
	[ -f "$sel/$t.c" ] || die "vmtests: $sel/$t.c missing: is this a 6.1 tree?"
	targets="$targets $out/$t"
done
log="$dir/build.log"
# shellcheck disable=SC2086
if ! MAKEFLAGS='' make -C "$sel" OUTPUT="$out" KHDR_INCLUDES="-isystem $dir/usr/include" \
	EXTRA_CFLAGS="-static -O2" $targets >"$log" 2>&1; then
	grep -E 'error|Error' "$log" | head -n 20 >&2
	stage "vm selftests" "FAILED (log: $log)" "$start"
	exit 1
fi
for t in $VMTESTS; do
	strip -o "$bin/vm61_$t" "$out/$t"
done
set -- $VMTESTS
stage "vm selftests" "ok ($# programs of $(basename "$ksrc")/tools/testing/selftests/vm, fixes of tests/vm-selftests: $(echo $fixes | wc -w); $bin/vm61_*)" "$start"
