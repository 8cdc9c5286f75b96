# qemu-profiles/bootparam.profile: the cow_policy= boot parameter. An
# invalid value must be reported and ignored, the last valid one wins:
# tests/guest/bootparam.c checks the policy the kernel booted with.
PROFILE_DESC="bootparam: base with cow_policy=bogus cow_policy=mapcount on the command line"
FEATURES=""
QEMU_ARGS="-smp 2 -m 1G"
KERNEL_CMDLINE="console=ttyS0 panic=-1 loglevel=7 cow_policy=bogus cow_policy=mapcount"
GUEST_SETUP=''
TEST_GROUPS="sysctl"
POLICIES="mapcount"
