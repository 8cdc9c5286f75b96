# qemu-profiles/base.profile: sourced by the host (scripts/run-qemu.sh) and
# by the guest runner (guest/init.sh). POSIX sh assignments only.
PROFILE_DESC="base: 2 vCPUs, 2 GiB RAM, multi-threaded TCG (or KVM when it works)"
# What the profile sets up, as the scenario table (tests/expect/backings.tsv)
# names it: thp, hugetlb, swap, ksm, pin.
FEATURES="thp hugetlb ksm"
QEMU_ARGS="-smp 2 -m 2G"
# oops stay non-fatal (the host's log scan fails the run); panic reboots,
# and -no-reboot turns that into QEMU exiting.
KERNEL_CMDLINE="console=ttyS0 panic=-1 loglevel=7"
# Shell lines the runner runs in the guest before the tests.
GUEST_SETUP='
echo 1 > /proc/sys/kernel/sysrq
echo 2 > /proc/sys/vm/nr_hugepages
[ "$(cat /proc/sys/vm/nr_hugepages)" -ge 2 ] || { echo "fewer than 2 hugetlb pages"; exit 1; }
grep -E "^(MemTotal|MemFree):" /proc/meminfo
'
TEST_GROUPS="smoke cow sysctl scn-base"
POLICIES="exclusive refcount mapcount"
