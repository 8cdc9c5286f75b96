# qemu-profiles/upstream.profile: upstream's own COW selftests:
# cow.c and gup_longterm.c of linux-source-6.12 (scripts/build/upstream.sh) under
# every policy, checked against tests/expect/upstream.tsv, plus (6.1 line) the
# bad-input test of the PIN_LONGTERM_TEST_* backport (patches/6.1/0010). Swap on /dev/vda
# for the swapped-out cases, 16 reserved 2 MiB hugetlb pages for the hugetlb
# cases, THP enabled (cow.c asks with MADV_HUGEPAGE), debugfs for gup_test,
# an ext4 scratch disk /dev/vdb on /mnt/local for gup_longterm's "local tmpfile".
# make test boots it on the cow kernel and on unpatched 6.1 (variant stock),
# whose results must equal exclusive's case by case (scripts/report/judge.py).
PROFILE_DESC="upstream: swap on /dev/vda, ext4 on /dev/vdb, 16 hugetlb pages, THP always, debugfs; upstream cow.c + gup_longterm.c"
FEATURES="swap thp hugetlb ksm"
THP_ENABLED=always HUGETLB_PAGES=8
QEMU_ARGS="-smp 2 -m 2G"
QEMU_DISKS="swap:512M local:64M"
# The console prints up to KERN_WARNING (5), not KERN_INFO (7, the
# default): these suites' long TCG runs kept a short console (they booted
# with loglevel=4, which hid WARN splats); warnings are what the log scan
# reads.
CONSOLE_LOGLEVEL=5
KERNEL_CMDLINE="hugepages=16"
# cow.c runs ~190 cases under TCG: more than the default 120 s a program.
TEST_TIMEOUT=240
GUEST_SETUP='
/usr/sbin/mke2fs -q -F -t ext4 /dev/vdb || exit 1
mkdir -p /mnt/local && mount -t ext4 /dev/vdb /mnt/local || exit 1
[ -e /sys/kernel/debug/gup_test ] || { echo "no /sys/kernel/debug/gup_test"; exit 1; }
'
# On 6.1 also the bad-input test of the PIN_LONGTERM_TEST_* backport
# (patches/6.1/0010, group pinabi); 6.12 has the ioctls upstream. KERNEL
# is the kernel line (make's, run.conf's in the guest, the judge's).
case ${KERNEL:-6.1} in
6.1) TEST_GROUPS="upstream pinabi" ;;
*) TEST_GROUPS="upstream" ;;
esac
POLICIES="exclusive refcount mapcount"
# The 6.12 series' fourth policy, v6.15's large-folio rule
# (patches/6.12/0014), where the kernel has its MM owner tracking
# (MM_ID=y: CONFIG_COW_POLICY_MM_ID, run.conf; the judge reads it from
# the COWTEST-BOOT banner).
if [ "${MM_ID:-n}" = y ]; then POLICIES="$POLICIES largefolio"; fi
