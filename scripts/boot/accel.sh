#!/bin/sh
# scripts/boot/accel.sh KERNEL INITRD: print the QEMU accelerator to use, "kvm"
# or "tcg". KVM only when /dev/kvm is usable and a probe boot with it reaches
# the runner within 20 s; the answer is cached in $BUILD/accel (delete it, or
# set ACCEL=kvm|tcg, to choose again).
set -u
kernel=$1 initrd=$2
cache="$BUILD/accel"
if [ -n "${ACCEL:-}" ]; then echo "$ACCEL"; exit 0; fi
if [ -f "$cache" ]; then cat "$cache"; exit 0; fi
accel=tcg
if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
	out=$(mktemp)
	timeout -k 5 20 qemu-system-x86_64 -nodefaults -no-reboot -display none \
		-serial "file:$out" -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-accel kvm -cpu host -smp 1 -m 512M -kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 cowtest.probe=1" </dev/null >/dev/null 2>&1
	if grep -q 'COWTEST-PROBE ok' "$out"; then accel=kvm; fi
	rm -f "$out"
fi
echo "$accel" >"$cache"
echo "$accel"
