# qemu-profiles/flip.profile: the flip stress (tests/guest/flipstress.c,
# issue 6): pin + swap in one guest. cowpin.ko loaded (/dev/cowpin), a fresh
# 256 MiB swap disk /dev/vda and a 16 MiB O_DIRECT scratch disk /dev/vdb,
# THP on madvise, KSM available. flipstress sets and restores KSM itself.
PROFILE_DESC="flip: pin + swap + O_DIRECT disk, for the flip stress"
FEATURES="pin swap thp ksm"
QEMU_ARGS="-smp 2 -m 2G"
QEMU_DISKS="swap:256M odirect:16M"
KERNEL_CMDLINE="console=ttyS0 panic=-1 loglevel=7"
GUEST_SETUP='
echo 1 > /proc/sys/kernel/sysrq
insmod /lib/modules/cowpin.ko || { echo "cowpin.ko did not load (make driver?)"; exit 1; }
test -c /dev/cowpin || { echo "no /dev/cowpin"; exit 1; }
mkswap /dev/vda >/dev/null || exit 1
swapon /dev/vda || exit 1
grep -q "^/dev/vda " /proc/swaps || { echo "/dev/vda is not swapping"; exit 1; }
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
grep -E "^(MemTotal|MemAvailable):" /proc/meminfo
'
TEST_GROUPS="flipstress stap"
# flipstress starts from this policy and flips among all three itself.
POLICIES="exclusive"
