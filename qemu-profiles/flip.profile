# qemu-profiles/flip.profile: the flip stress (tests/guest/flipstress.c,
# the flip stress): pin + swap in one guest. cowpin.ko loaded (/dev/cowpin), a fresh
# 256 MiB swap disk /dev/vda and a 16 MiB O_DIRECT scratch disk /dev/vdb,
# THP on madvise, KSM available. flipstress sets and restores KSM itself.
PROFILE_DESC="flip: pin + swap + O_DIRECT disk, for the flip stress"
FEATURES="pin swap thp ksm"
THP_ENABLED=madvise
QEMU_ARGS="-smp 2 -m 2G"
# flipstress flips vm.cow_policy, a static key, every few ms on two vCPUs.
# Multi-threaded TCG before QEMU 8.1 can then run a stale translated block
# and trap on an int3 that is no longer a patch site (make stall-probe:
# the unpatched kernel hangs the same way with a tracepoint key), so
# under TCG this profile runs single-threaded; with KVM it does not matter.
TCG_MODE=tcg-single
QEMU_DISKS="swap:256M odirect:16M"
KERNEL_CMDLINE="console=ttyS0 panic=-1 loglevel=7"
GUEST_SETUP='
grep -E "^(MemTotal|MemAvailable):" /proc/meminfo
'
TEST_GROUPS="flipstress stap"
# flipstress's stressng worker runs stress-ng's COW-relevant stressors.
GUEST_INSTALL="stress-ng"
# flipstress starts from this policy and flips among all three itself.
POLICIES="exclusive"
