# tests/host/profiles/bad-loglevel4.profile: a profile whose console hides
# KERN_WARNING (what upstream.profile and vmtests.profile did with
# loglevel=4). make check must flag it (scripts/check/check.sh, 3).
# check expects: console loglevel 4 hides kernel warnings
PROFILE_DESC="canned: console loglevel 4"
FEATURES="thp"
QEMU_ARGS="-smp 2 -m 1G"
CONSOLE_LOGLEVEL=4
KERNEL_CMDLINE="hugepages=16"
TEST_GROUPS="smoke"
