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
# console=, panic= and loglevel= come from scripts/boot/qemu.sh (the
# common part of every command line, scripts/lib.sh BOOT_CMDLINE): oops
# stay non-fatal (the host's log scan fails the run); panic reboots, and
# -no-reboot turns that into QEMU exiting.
# trace_event=cow:cow_policy_change: the event the sysctl test reads is on
# from boot, before the secondary CPUs start. A test that switched it on
# would patch kernel text (the event's key, and sched_switch's for ftrace's
# comm recording), which hung multi-threaded TCG in QEMU 7.2 (README,
# Known problems).
KERNEL_CMDLINE="trace_event=cow:cow_policy_change"
# Shell lines the runner runs in the guest before the tests.
GUEST_SETUP='
grep -E "^(MemTotal|MemFree):" /proc/meminfo
'
TEST_GROUPS="smoke cow sysctl scn-base"
POLICIES="exclusive refcount mapcount"
# The 6.12 series' fourth policy, v6.15's large-folio rule
# (patches/6.12/0014), where the kernel has its MM owner tracking
# (MM_ID=y: CONFIG_COW_POLICY_MM_ID, run.conf; the judge reads it from
# the COWTEST-BOOT banner).
if [ "${MM_ID:-n}" = y ]; then POLICIES="$POLICIES largefolio"; fi
