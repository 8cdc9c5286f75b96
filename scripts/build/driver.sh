#!/bin/sh
# scripts/build/driver.sh VARIANT KSRC OBJ: build the out-of-tree cowpin module
# (driver/cowpin/) against a built kernel object dir. The sources are copied
# to $BUILD/driver/VARIANT/ and built there with M=, so the repo stays clean;
# the result, $BUILD/driver/VARIANT/cowpin.ko, goes into every initramfs of
# that variant (scripts/build/initramfs.sh). A module build is light: no lock.
set -eu
. "$(dirname "$0")/../lib.sh"
variant=$1
ksrc=$(cd "$2" && pwd) || die "driver: no kernel tree $2"
obj=$(cd "$3" && pwd) || die "driver: no object dir $3 (run make kernel VARIANT=$variant)"
top=$(cd "$(dirname "$0")/../.." && pwd)
start=$(now)
[ -f "$obj/Module.symvers" ] || die "driver: no $obj/Module.symvers (run make kernel VARIANT=$variant)"
dir="$BUILD/driver/$variant"
log="$dir/build.log"
mkdir -p "$dir"
# Copy only changed files, so that an unchanged driver is not rebuilt.
for f in "$top"/driver/cowpin/*.c "$top"/driver/cowpin/*.h "$top"/driver/cowpin/Kbuild; do
	cmp -s "$f" "$dir/$(basename "$f")" || cp "$f" "$dir/"
done
# MAKEFLAGS cleared: under make -j the caller's jobserver is not passed to
# this recipe, and kbuild's make would only warn about it.
if ! MAKEFLAGS='' make -C "$ksrc" O="$obj" M="$dir" CC="ccache gcc" W=1 modules >"$log" 2>&1; then
	grep -E 'error|warning' "$log" | head -n 20 >&2 || true
	stage "driver $variant" "FAILED (log: $log)" "$start"
	exit 1
fi
# The compiler's warnings (file:line:col: warning: ...), not make's.
if grep -qE '^[^ ]+:[0-9]+:([0-9]+:)? warning:' "$log"; then
	grep -E '^[^ ]+:[0-9]+:([0-9]+:)? warning:' "$log" >&2
	stage "driver $variant" "FAILED (compiler warnings, log: $log)" "$start"
	exit 1
fi
# A kernel that signs its modules (Debian's configuration, make
# bench-distro) gets cowpin signed with the build's own key, as its own
# modules are: a module that fails verification taints the kernel.
if grep -q '^CONFIG_MODULE_SIG=y' "$obj/.config" && [ -f "$obj/certs/signing_key.pem" ] &&
	! tail -c 28 "$dir/cowpin.ko" | grep -q 'Module signature appended'; then
	hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"$/\1/p' "$obj/.config")
	"$obj/scripts/sign-file" "${hash:-sha256}" "$obj/certs/signing_key.pem" \
		"$obj/certs/signing_key.x509" "$dir/cowpin.ko" >>"$log" 2>&1 ||
		{ stage "driver $variant" "FAILED (sign-file, log: $log)" "$start"; exit 1; }
fi
write_id "$dir/driver.id" "$(sha256sum <"$dir/cowpin.ko" | cut -d' ' -f1)"
stage "driver $variant" "ok ($dir/cowpin.ko)" "$start"
