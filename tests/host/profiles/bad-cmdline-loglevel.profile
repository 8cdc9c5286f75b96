# tests/host/profiles/bad-cmdline-loglevel.profile: the old upstream
# profile's command line, setting its own console and loglevel=4. make
# check must flag it (scripts/check/check.sh, 3).
# check expects: console loglevel 4 hides kernel warnings
PROFILE_DESC="canned: loglevel=4 on the profile's command line"
FEATURES="swap thp hugetlb ksm"
QEMU_ARGS="-smp 2 -m 2G"
KERNEL_CMDLINE="console=ttyS0 panic=-1 loglevel=4 hugepages=16"
TEST_GROUPS="upstream"
