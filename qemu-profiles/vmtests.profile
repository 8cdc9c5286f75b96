# qemu-profiles/vmtests.profile: 6.1's own mm selftests under
# every policy: tests/groups/vmtests.list, run by guest/adapters/vm_selftest.sh
# against tests/expect/vm-selftests.tsv. Swap on /dev/vda (khugepaged's
# swap-in cases, MADV_PAGEOUT), 288 reserved 2 MiB hugetlb pages (userfaultfd
# hugetlb: 2 x 32 MiB; run_vmtests.sh's 2 x 128 MiB fits too) and hugetlbfs on /mnt/huge (userfaultfd
# hugetlb_shared), THP madvise (the tests set their own THP and khugepaged
# knobs and restore them), KSM, debugfs (gup_test, split_huge_pages). make test boots it on
# the cow kernel and on the unpatched 6.1 kernel (variant stock), whose
# results must equal exclusive's.
PROFILE_DESC="vmtests: swap on /dev/vda, 288 hugetlb pages on /mnt/huge, THP madvise, debugfs; 6.1 tools/testing/selftests/vm"
FEATURES="swap thp hugetlb ksm"
THP_ENABLED=madvise HUGETLB_PAGES=256
QEMU_ARGS="-smp 2 -m 3G"
QEMU_DISKS="swap:512M"
# The console prints up to KERN_WARNING (5), not KERN_INFO (7, the
# default): these suites' long TCG runs kept a short console (they booted
# with loglevel=4, which hid WARN splats); warnings are what the log scan
# reads.
CONSOLE_LOGLEVEL=5
KERNEL_CMDLINE="hugepages=288"
# guest/adapters/vm_selftest.sh kills a program after VM_SELFTEST_TIMEOUT (300 s;
# userfaultfd's hugetlb and shmem invocations, the slowest, run under
# exclusive only: tests/expect/vm-selftests.tsv); the runner's own limit is
# above it. Three policies took 7-20 min under TCG: the QEMU run gets 40 min.
TEST_TIMEOUT=330
RUN_TIMEOUT=2400
GUEST_SETUP='
mkdir -p /mnt/huge && mount -t hugetlbfs none /mnt/huge || exit 1
[ -e /sys/kernel/debug/gup_test ] || { echo "no /sys/kernel/debug/gup_test"; exit 1; }
[ -e /sys/kernel/debug/split_huge_pages ] || { echo "no /sys/kernel/debug/split_huge_pages"; exit 1; }
'
TEST_GROUPS="vmtests"
POLICIES="exclusive refcount mapcount"
# The 6.12 series' fourth policy, v6.15's large-folio rule
# (patches/6.12/0014), where the kernel has its MM owner tracking
# (MM_ID=y: CONFIG_COW_POLICY_MM_ID, run.conf; the judge reads it from
# the COWTEST-BOOT banner).
if [ "${MM_ID:-n}" = y ]; then POLICIES="$POLICIES largefolio"; fi
