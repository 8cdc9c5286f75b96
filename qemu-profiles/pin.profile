# qemu-profiles/pin.profile: base + the cowpin pinning driver (driver/cowpin/,
# built by make driver) loaded, /dev/cowpin present. Same format as base.
PROFILE_DESC="pin: base + cowpin.ko loaded (/dev/cowpin, RDMA-like page pinning)"
FEATURES="pin thp hugetlb ksm"
HUGETLB_PAGES=4
QEMU_ARGS="-smp 2 -m 2G"
KERNEL_CMDLINE=""
GUEST_SETUP='
ls -l /dev/cowpin
grep -E "^(MemTotal|MemFree):" /proc/meminfo
'
TEST_GROUPS="pin scn-pin"
POLICIES="exclusive refcount mapcount"
# The 6.12 series' fourth policy, v6.15's large-folio rule
# (patches/6.12/0014), where the kernel has its MM owner tracking
# (MM_ID=y: CONFIG_COW_POLICY_MM_ID, run.conf; the judge reads it from
# the COWTEST-BOOT banner).
if [ "${MM_ID:-n}" = y ]; then POLICIES="$POLICIES largefolio"; fi
