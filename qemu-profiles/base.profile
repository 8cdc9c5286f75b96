# qemu-profiles/base.profile: sourced by the host (scripts/boot/run-qemu.sh) and
# by the guest runner (guest/init.sh). POSIX sh assignments only.
PROFILE_DESC="base: 2 vCPUs, 2 GiB RAM, multi-threaded TCG (or KVM when it works)"
# FEATURES: what the profile sets up, each from its one snippet in
# qemu-profiles/features/<feature>.setup (run by guest/init.sh before
# GUEST_SETUP, with the profile's variables: HUGETLB_PAGES, THP_ENABLED,
# THP_DEFRAG); the scenario table's needs (tests/expect/backings.tsv) are
# checked against them.
FEATURES="thp hugetlb ksm"
HUGETLB_PAGES=2
QEMU_ARGS="-smp 2 -m 2G"
# oops stay non-fatal (the host's log scan fails the run); panic reboots,
# and -no-reboot turns that into QEMU exiting.
KERNEL_CMDLINE="console=ttyS0 panic=-1 loglevel=7"
# Shell lines the runner runs in the guest before the tests.
GUEST_SETUP='
grep -E "^(MemTotal|MemFree):" /proc/meminfo
'
TEST_GROUPS="smoke cow sysctl scn-base"
POLICIES="exclusive refcount mapcount"
