#!/bin/sh
# scripts/build/guest.sh: build the static guest programs into $BUILD/guest/bin:
# every tests/guest/*.c (linked with tests/guest/lib/*.c if present) and
# every guest/*.c helper (qemu-exit, ...) and every benchmarks/*.c
# benchmark (make bench; with tests/guest/lib on the include path). Test adapters guest/adapters/*.sh are
# copied without their .sh suffix (except init.sh, the runner).
set -eu
. "$(dirname "$0")/../lib.sh"
cd "$(dirname "$0")/../.."
start=$(now)
out="$BUILD/guest/bin"
mkdir -p "$out"
CFLAGS="-O2 -static -Wall -Wextra -Werror"
libsrc=""
libinc=""
if [ -d tests/guest/lib ]; then
	libsrc=$(find tests/guest/lib -maxdepth 1 -name '*.c' | sort)
	libinc="-Itests/guest/lib"
fi
n=0
for src in tests/guest/*.c guest/*.c benchmarks/*.c; do
	[ -f "$src" ] || continue
	name=$(basename "$src" .c)
	case $src in tests/*) extra="$libinc $libsrc" ;; benchmarks/*) extra="$libinc" ;; *) extra="" ;; esac
	# shellcheck disable=SC2086
	if ! gcc $CFLAGS $extra -o "$out/$name" "$src" -lpthread; then
		stage "guest programs" "FAILED ($src)" "$start"
		exit 1
	fi
	n=$((n + 1))
done
for sh in guest/adapters/*.sh; do
	[ -f "$sh" ] || continue
	cp "$sh" "$out/$(basename "$sh" .sh)"
	chmod +x "$out/$(basename "$sh" .sh)"
done
# A program whose source is gone (renamed, removed) must not linger in the
# images: drop what the previous build listed and this one did not build.
built=$(for src in tests/guest/*.c guest/*.c benchmarks/*.c guest/adapters/*.sh; do
	[ -f "$src" ] && basename "${src%.*}"
done | sort)
if [ -f "$out/.built" ]; then
	echo "$built" | comm -13 - "$out/.built" | while read -r gone; do
		rm -f "${out:?}/$gone"
	done
fi
echo "$built" >"$out/.built"
stage "guest programs" "ok ($n static programs in $out)" "$start"
