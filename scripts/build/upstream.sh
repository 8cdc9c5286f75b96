#!/bin/sh
# scripts/build/upstream.sh KSRC: build upstream's COW selftests.
#
# Unpacks only what cow.c and gup_longterm.c need from Debian's
# linux-source-6.12 (/usr/src/linux-source-6.12.tar.xz) into
# $BUILD/upstream/src, installs the KSRC tree's uapi headers (6.1's; on the
# 6.12 line 6.12's own, so the tests build natively there) into
# $BUILD/upstream/usr, and builds both tests UNMODIFIED and statically (with
# liburing, so the io_uring cases run) into $BUILD/guest/bin as upstream_cow
# and upstream_gup_longterm. The only additions are build shims from
# tests/upstream/: a generated local_config.h and shim.h (definitions that
# 6.1's uapi headers lack), given with -include; only where the tree's uapi
# lacks them (6.1): 6.12's own headers have them, and the shim, included
# first, would define them twice. Nothing of upstream's code
# is kept in the repository.
set -eu
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
ksrc=$1
UPSTREAM_TAR=${UPSTREAM_TAR:-/usr/src/linux-source-6.12.tar.xz}
start=$(now)
dir="$BUILD/upstream"
src="$dir/src"
out="$BUILD/guest/bin"
top_in_tar=linux-source-6.12
sel=tools/testing/selftests
files="mm/gup_test.h $sel/kselftest.h $sel/mm/cow.c $sel/mm/gup_longterm.c
$sel/mm/vm_util.c $sel/mm/vm_util.h $sel/mm/thp_settings.c $sel/mm/thp_settings.h"

[ -f "$UPSTREAM_TAR" ] || die "upstream: missing $UPSTREAM_TAR (make deps installs linux-source-6.12)"
[ -f /usr/include/liburing.h ] || die "upstream: missing liburing.h (make deps installs liburing-dev)"
[ -d "$ksrc/.git" ] || die "upstream: no kernel tree at $ksrc (run make tree)"

# 1. unpack the few files, once per tarball.
key=$(ls -l --time-style=+%s "$UPSTREAM_TAR" | awk '{ print $5 "-" $6 }')
if [ "$(cat "$src/.stamp" 2>/dev/null)" != "$key" ]; then
	rm -rf "$src" "$src.tmp" && mkdir -p "$src.tmp"
	# shellcheck disable=SC2046
	tar -xJf "$UPSTREAM_TAR" -C "$src.tmp" $(for f in $files; do echo "$top_in_tar/$f"; done)
	mv "$src.tmp/$top_in_tar" "$src" && rmdir "$src.tmp"
	echo "$key" >"$src/.stamp"
fi

# 2. the tree's uapi headers (redone when the tree's HEAD moves).
uapi_headers "$ksrc" "$dir"

# 3. build shims: local_config.h as upstream's check_config.sh would write it.
mkdir -p "$dir/shim" "$out"
echo "#define LOCAL_CONFIG_HAVE_LIBURING 1" >"$dir/shim/local_config.h"
cp "$top/tests/upstream/shim.h" "$dir/shim/shim.h"

mm="$src/$sel/mm"
CFLAGS="-O2 -static -Wall -Wno-unused-result"
INC="-I$dir/shim -isystem $dir/usr/include"
shim="no shim"
if ! grep -q 'define PAGEMAP_SCAN' "$dir/usr/include/linux/fs.h"; then
	INC="-I$dir/shim -include $dir/shim/shim.h -isystem $dir/usr/include"
	shim="shim.h"
fi
log="$dir/build.log"
: >"$log"
# Relative source names, as upstream's Makefile builds them: gup_longterm.c
# names its "local tmpfile" after __FILE__ in the current directory.
for t in cow gup_longterm; do
	extra=""
	[ $t = cow ] && extra="thp_settings.c"
	# shellcheck disable=SC2086
	if ! (cd "$mm" && gcc $CFLAGS $INC -o "$out/upstream_$t" "$t.c" vm_util.c $extra \
		-luring -lpthread) >>"$log" 2>&1; then
		grep -E 'error' "$log" | head -n 20 >&2
		stage "upstream tests" "FAILED (log: $log)" "$start"
		exit 1
	fi
done
stage "upstream tests" "ok (cow, gup_longterm of linux-source-6.12 against $(basename "$ksrc") uapi ($shim), liburing; $out/upstream_*)" "$start"
