# qemu-profiles/mthp.profile: anonymous multi-size THPs (6.8 and later; the
# 6.12 line) and swap on zram, for the scenario table's large-folio cells:
# scn_backings's mthp-16k and mthp-64k backings (each cell enables exactly
# its size, as upstream's cow.c does) and its swapin-rw case, whose zram
# swap device is SWP_SYNCHRONOUS_IO: 6.12 swaps a large folio in whole
# (alloc_swap_folio()) only from such a device, with swap count 1. The
# feature mthp fails on a kernel without the hugepages-<size>kB knobs.
PROFILE_DESC="mthp: mTHP 16 and 64 KiB enabled, swap on 256 MiB zram (SWP_SYNCHRONOUS_IO)"
FEATURES="mthp zram pin ssdswap"
QEMU_DISKS="ssd:64M" SSDSWAP_DISK=vda
MTHP_SIZES="16 64" MTHP_ENABLED=always
QEMU_ARGS="-smp 2 -m 2G"
KERNEL_CMDLINE=""
TEST_GROUPS="scn-mthp"
POLICIES="exclusive refcount mapcount"
# The 6.12 series' fourth policy, v6.15's large-folio rule
# (patches/6.12/0014), where the kernel has its MM owner tracking
# (MM_ID=y: CONFIG_COW_POLICY_MM_ID, run.conf; the judge reads it from
# the COWTEST-BOOT banner).
if [ "${MM_ID:-n}" = y ]; then POLICIES="$POLICIES largefolio"; fi
