# qemu-profiles/thp.profile: transparent huge pages always on (faults and
# defrag), khugepaged scanning fast, so tests get PMD- and PTE-mapped THPs.
PROFILE_DESC="thp: base + THP enabled=always, defrag=always, khugepaged every 10 ms"
FEATURES="thp ksm"
THP_ENABLED=always THP_DEFRAG=always
QEMU_ARGS="-smp 2 -m 2G"
KERNEL_CMDLINE=""
GUEST_SETUP='
t=/sys/kernel/mm/transparent_hugepage
echo 10 > $t/khugepaged/scan_sleep_millisecs || exit 1
echo 10 > $t/khugepaged/alloc_sleep_millisecs || exit 1
echo 4096 > $t/khugepaged/pages_to_scan || exit 1
'
TEST_GROUPS="thp scn-thp"
POLICIES="exclusive refcount mapcount"
# The 6.12 series' fourth policy, v6.15's large-folio rule
# (patches/6.12/0014), where the kernel has its MM owner tracking
# (MM_ID=y: CONFIG_COW_POLICY_MM_ID, run.conf; the judge reads it from
# the COWTEST-BOOT banner).
if [ "${MM_ID:-n}" = y ]; then POLICIES="$POLICIES largefolio"; fi
