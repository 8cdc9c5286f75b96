# qemu-profiles/swap.profile: a fresh 256 MiB virtio disk per run
# (QEMU_DISKS, made by scripts/boot/run-qemu.sh) as /dev/vda, used as swap, and a
# 16 MiB scratch disk /dev/vdb for O_DIRECT (tests/guest/scn_odirect.c), and
# /dev/vdc, a swap disk that needs stable pages (queue/stable_writes = 1, so
# swapon sets SWP_STABLE_WRITES) and writes at 4 KiB/s (QEMU throttling), so
# that a page is still under writeback when the next fault arrives;
# scn_swap swaps on it only for its stable-writes cases; and /dev/vdd,
# non-rotational swap (feature ssdswap) on which scn_largeshare swaps a THP
# out whole and finds it in the swap cache.
# Tests push anonymous pages out with MADV_PAGEOUT.
PROFILE_DESC="swap: base + 256 MiB swap on /dev/vda"
FEATURES="swap thp ksm ssdswap"
QEMU_ARGS="-smp 2 -m 2G"
QEMU_DISKS="swap:256M odirect:16M stable:16M:throttling.bps-write=4096 ssd:64M"
SSDSWAP_DISK=vdd
KERNEL_CMDLINE=""
GUEST_SETUP='
cat /proc/swaps
mkswap /dev/vdc >/dev/null || exit 1
echo 1 > /sys/block/vdc/queue/stable_writes || exit 1
'
TEST_GROUPS="swap scn-swap"
POLICIES="exclusive refcount mapcount"
# The 6.12 series' fourth policy, v6.15's large-folio rule
# (patches/6.12/0014), where the kernel has its MM owner tracking
# (MM_ID=y: CONFIG_COW_POLICY_MM_ID, run.conf; the judge reads it from
# the COWTEST-BOOT banner).
if [ "${MM_ID:-n}" = y ]; then POLICIES="$POLICIES largefolio"; fi
