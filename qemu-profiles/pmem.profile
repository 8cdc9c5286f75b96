# qemu-profiles/pmem.profile: 512 MiB of the guest's RAM at 1 GiB turned into
# emulated persistent memory (memmap=512M!1G -> /dev/pmem0), ext2 on it
# mounted -o dax on /mnt/dax. Tests copy their DAX programs there.
PROFILE_DESC="pmem: base + memmap=512M!1G pmem0, ext2 -o dax on /mnt/dax"
FEATURES="thp ksm"
QEMU_ARGS="-smp 2 -m 2G"
KERNEL_CMDLINE="console=ttyS0 panic=-1 loglevel=7 memmap=512M!1G"
GUEST_SETUP='
echo 1 > /proc/sys/kernel/sysrq
test -b /dev/pmem0 || { echo "no /dev/pmem0"; exit 1; }
# e2fsprogs mke2fs (the full path: busybox sh would run its own applet).
/usr/sbin/mke2fs -q -b 4096 /dev/pmem0 || exit 1
mkdir -p /mnt/dax
mount -t ext2 -o dax /dev/pmem0 /mnt/dax || exit 1
grep " /mnt/dax " /proc/mounts
grep -q " /mnt/dax .*dax" /proc/mounts || { echo "DAX is not active on /mnt/dax"; exit 1; }
'
TEST_GROUPS="pmem scn-pmem"
POLICIES="exclusive refcount mapcount"
