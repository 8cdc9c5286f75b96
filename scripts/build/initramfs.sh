#!/bin/sh
# scripts/build/initramfs.sh VARIANT PROFILE OBJ: build the dracut image of one
# (variant, profile) into $BUILD/initramfs/VARIANT-PROFILE.img. It holds the
# runner as /init, busybox and strace (with their libraries), the guest
# programs, the variant's kernel modules and the per-run files (profile,
# run.conf, test group lists), compressed with zstd -9 (46 MiB to 8 MiB
# at about 1 s: the kernel's own decompressor unpacks it at boot).
set -eu
. "$(dirname "$0")/../lib.sh"
variant=$1 profile=$2 obj=$3
top=$(cd "$(dirname "$0")/../.." && pwd)
start=$(now)
load_profile "$top/qemu-profiles" "$profile"
kver=$(kernel_release "$obj")
[ -x "$BUILD/guest/bin/qemu-exit" ] || die "initramfs: no guest programs (run make guest)"

dir="$BUILD/initramfs"
stagedir="$dir/$variant-$profile.d"
img="$dir/$variant-$profile.img"
rm -rf "$stagedir" "$dir/empty-confdir"
mkdir -p "$stagedir/usr/bin" "$stagedir/etc/cowtest/groups" "$dir/empty-confdir"
cp "$top/guest/init.sh" "$stagedir/init"
chmod 755 "$stagedir/init"
cp "$BUILD/guest/bin/"* "$stagedir/usr/bin/"
cp "$top/qemu-profiles/$profile.profile" "$stagedir/etc/cowtest/profile"
mkdir -p "$stagedir/etc/cowtest/features"
cp "$top"/qemu-profiles/features/*.setup "$stagedir/etc/cowtest/features/"
for l in "$top"/tests/groups/*.list "$top"/guest/groups/*.list; do
	[ -f "$l" ] && cp "$l" "$stagedir/etc/cowtest/groups/"
done
# Expectations of the scenario tests (tests/expect/scenarios.tsv).
mkdir -p "$stagedir/etc/cowtest/expect"
cp "$top"/tests/expect/*.tsv "$stagedir/etc/cowtest/expect/" 2>/dev/null || true
# MM_ID: whether the variant's kernel has the MM owner tracking of large
# folios (CONFIG_COW_POLICY_MM_ID, patches/6.12/0013-0014), without which
# it refuses the largefolio policy; guest/init.sh passes it to the tests
# as COWTEST_MM_ID.
[ -f "$obj/.config" ] || die "initramfs $variant-$profile: no $obj/.config"
mm_id=n
grep -qx 'CONFIG_COW_POLICY_MM_ID=y' "$obj/.config" && mm_id=y
cat >"$stagedir/etc/cowtest/run.conf" <<EOC
VARIANT=$variant
PROFILE=$profile
KERNEL=${KERNEL:-6.1}
MM_ID=$mm_id
EOC
if [ -d "$obj/modinst/lib/modules/$kver" ]; then
	mkdir -p "$stagedir/usr/lib/modules"
	cp -a "$obj/modinst/lib/modules/$kver" "$stagedir/usr/lib/modules/"
	rm -f "$stagedir/usr/lib/modules/$kver/build" "$stagedir/usr/lib/modules/$kver/source"
fi

# The cowpin driver (make driver), when built for this variant.
if [ -f "$BUILD/driver/$variant/cowpin.ko" ]; then
	mkdir -p "$stagedir/usr/lib/modules"
	cp "$BUILD/driver/$variant/cowpin.ko" "$stagedir/usr/lib/modules/cowpin.ko"
fi

# systemtap modules (scripts/build/stap.sh, make stap) for this variant: the
# modules in /usr/lib/stap, staprun and stapio with their libraries.
install="strace busybox mke2fs"
if ls "$BUILD/stap/$variant/"*.ko >/dev/null 2>&1 && command -v staprun >/dev/null 2>&1; then
	mkdir -p "$stagedir/usr/lib/stap"
	cp "$BUILD/stap/$variant/"*.ko "$stagedir/usr/lib/stap/"
	install="$install staprun /usr/lib/systemtap/stapio"
fi

# Host programs the profile's tests run (GUEST_INSTALL), with their
# libraries; Debian's redis-tools ships the server as redis-check-rdb,
# which serves when it is called redis-server (as the redis-server
# package's symlink does).
for p in $GUEST_INSTALL; do
	command -v "$p" >/dev/null 2>&1 || die "initramfs $variant-$profile: profile wants $p, which is not installed (make deps)"
	install="$install $(command -v "$p")"
done
case " $GUEST_INSTALL " in *" redis-check-rdb "*) ln -sf redis-check-rdb "$stagedir/usr/bin/redis-server" ;; esac

log="$dir/$variant-$profile.dracut.log"
if ! dracut --conf /dev/null --confdir "$dir/empty-confdir" -N --no-kernel \
	--no-early-microcode --compress "zstd -9 -q" -m bash \
	--include "$stagedir" / --install "$install" \
	-f "$img" "$kver" >"$log" 2>&1; then
	tail -n 20 "$log" >&2
	stage "initramfs $variant-$profile" "FAILED (log: $log)" "$start"
	exit 1
fi
# The staging directory is dracut's input only: drop it (about 32 MiB an
# image, 25 images in make test).
rm -rf "$stagedir"
size=$(du -k "$img" | cut -f1)
stage "initramfs $variant-$profile" "ok ($img, ${size} KiB)" "$start"
