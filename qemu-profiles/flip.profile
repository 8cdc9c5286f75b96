# qemu-profiles/flip.profile: the flip stress (tests/guest/flipstress.c,
# the flip stress): pin + swap in one guest. cowpin.ko loaded (/dev/cowpin), a fresh
# 256 MiB swap disk /dev/vda and a 16 MiB O_DIRECT scratch disk /dev/vdb,
# THP on madvise, KSM available. flipstress sets and restores KSM itself.
PROFILE_DESC="flip: pin + swap + O_DIRECT disk, for the flip stress"
FEATURES="pin swap thp ksm"
THP_ENABLED=madvise
QEMU_ARGS="-smp 2 -m 2G"
# flipstress flips vm.cow_policy every few ms on two vCPUs. The policy's
# slow path is an atomic count, not a static key, so a flip patches no
# kernel text and multi-threaded TCG is safe even before QEMU 8.1 (while
# it was a key, such a QEMU ran stale translated blocks and trapped on
# int3s that were no longer patch sites: make stall-probe). No TCG_MODE.
QEMU_DISKS="swap:256M odirect:16M"
# trace_event=cow:cow_policy_change: the event the sysctl and flipstress test reads is on
# from boot, before the secondary CPUs start. A test that switched it on
# would patch kernel text (the event's key, and sched_switch's for ftrace's
# comm recording), which hung multi-threaded TCG in QEMU 7.2 (README,
# Known problems).
KERNEL_CMDLINE="trace_event=cow:cow_policy_change"
GUEST_SETUP='
grep -E "^(MemTotal|MemAvailable):" /proc/meminfo
'
# 6.1: the flip stress and the systemtap check of cow_decisions. 6.12: the
# flip stress with mTHP sizes enabled (feature mthp; flipstress --mthp
# requires mTHP faults while it runs); no systemtap module (Debian 12's
# systemtap 4.8 predates 6.12, Makefile STAP_VARIANTS_6.12).
case ${KERNEL:-6.1} in
6.1) TEST_GROUPS="flipstress stap" ;;
*) TEST_GROUPS="flipmthp" FEATURES="$FEATURES mthp" MTHP_SIZES="16 64" ;;
esac
# flipstress's stressng worker runs stress-ng's COW-relevant stressors.
GUEST_INSTALL="stress-ng"
# flipstress starts from this policy and flips among all of them itself (four
# with largefolio where the kernel has CONFIG_COW_POLICY_MM_ID).
POLICIES="exclusive"
