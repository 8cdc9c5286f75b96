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
# tests/expect/vm-selftests.tsv. No selftest source is kept in the repository.
set -eu
. "$(dirname "$0")/../lib.sh"
ksrc=$1
start=$(now)
VMTESTS=${VMTESTS:-userfaultfd soft-dirty ksm_tests gup_test madv_populate khugepaged split_huge_page_test mremap_test}
dir="$BUILD/vmtests"
out="$dir/out"
bin="$BUILD/guest/bin"
sel="$ksrc/tools/testing/selftests/vm"

[ -d "$ksrc/.git" ] || die "vmtests: no kernel tree at $ksrc (run make tree)"
[ -f "$sel/Makefile" ] || die "vmtests: $sel/Makefile missing: the unpacked tree has no vm selftests"
[ -f /usr/lib/x86_64-linux-gnu/libnuma.a ] || die "vmtests: missing libnuma.a (make deps installs libnuma-dev)"
mkdir -p "$out" "$bin"
uapi_headers "$ksrc" "$dir"

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
stage "vm selftests" "ok ($# programs of $(basename "$ksrc")/tools/testing/selftests/vm; $bin/vm61_*)" "$start"
