# qemu-profiles/pmem.profile: 512 MiB of the guest's RAM at 1 GiB turned into
# emulated persistent memory (memmap=512M!1G -> /dev/pmem0), ext2 on it
# mounted -o dax on /mnt/dax. Tests copy their DAX programs there.
PROFILE_DESC="pmem: base + memmap=512M!1G pmem0, ext2 -o dax on /mnt/dax"
FEATURES="dax thp ksm"
QEMU_ARGS="-smp 2 -m 2G"
KERNEL_CMDLINE="memmap=512M!1G"
GUEST_SETUP=''
TEST_GROUPS="pmem scn-pmem"
POLICIES="exclusive refcount mapcount"
# The 6.12 series' fourth policy, v6.15's large-folio rule
# (patches/6.12/0014), where the kernel has its MM owner tracking
# (MM_ID=y: CONFIG_COW_POLICY_MM_ID, run.conf; the judge reads it from
# the COWTEST-BOOT banner).
if [ "${MM_ID:-n}" = y ]; then POLICIES="$POLICIES largefolio"; fi
