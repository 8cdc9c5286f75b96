#!/bin/sh
# scripts/boot/accel.sh KERNEL INITRD: print the QEMU accelerator to use, "kvm"
# or "tcg". KVM only when /dev/kvm is usable and a probe boot with it reaches
# the runner within 20 s; the answer is cached in $BUILD/accel (delete it, or
# set ACCEL=kvm|tcg, to choose again).
set -u
. "$(dirname "$0")/../lib.sh"
kernel=$1 initrd=$2
cache="$BUILD/accel"
if [ -n "${ACCEL:-}" ]; then echo "$ACCEL"; exit 0; fi
if [ -f "$cache" ]; then cat "$cache"; exit 0; fi
accel=tcg
if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
	out=$(mktemp)
	"$(dirname "$0")/qemu.sh" --accel kvm --console "$out" --timeout 20 \
		"$kernel" "$initrd" "cowtest.probe=1" -- -smp 1 -m 512M
	if grep -q 'COWTEST-PROBE ok' "$out"; then accel=kvm; fi
	rm -f "$out"
fi
# Two runs started side by side (make -j) may both probe: same answer.
echo "$accel" >"$cache.$$" && mv "$cache.$$" "$cache"
echo "$accel"
