# qemu-profiles/pin.profile: base + the cowpin pinning driver (driver/cowpin/,
# built by make driver) loaded, /dev/cowpin present. Same format as base.
PROFILE_DESC="pin: base + cowpin.ko loaded (/dev/cowpin, RDMA-like page pinning)"
FEATURES="pin thp hugetlb ksm"
QEMU_ARGS="-smp 2 -m 2G"
KERNEL_CMDLINE="console=ttyS0 panic=-1 loglevel=7"
GUEST_SETUP='
echo 1 > /proc/sys/kernel/sysrq
insmod /lib/modules/cowpin.ko || { echo "cowpin.ko did not load (make driver?)"; exit 1; }
test -c /dev/cowpin || { echo "no /dev/cowpin"; exit 1; }
ls -l /dev/cowpin
echo 4 > /proc/sys/vm/nr_hugepages
[ "$(cat /proc/sys/vm/nr_hugepages)" -ge 4 ] || { echo "fewer than 4 hugetlb pages"; exit 1; }
grep -E "^(MemTotal|MemFree):" /proc/meminfo
'
TEST_GROUPS="pin scn-pin"
POLICIES="exclusive refcount mapcount"
