# tests/host/profiles/bad-quiet.profile: "quiet" sets the console loglevel
# to 4 after the common loglevel=. make check must flag it.
# check expects: console loglevel 4 hides kernel warnings
PROFILE_DESC="canned: quiet"
FEATURES=""
QEMU_ARGS="-smp 2 -m 1G"
KERNEL_CMDLINE="quiet"
TEST_GROUPS="smoke"
