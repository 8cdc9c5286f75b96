# qemu-profiles/bootparam.profile: the cow_policy= boot parameter. An
# invalid value must be reported and ignored, the last valid one wins:
# tests/guest/bootparam.c checks the policy the kernel booted with.
PROFILE_DESC="bootparam: base with cow_policy=bogus cow_policy=mapcount on the command line"
FEATURES=""
QEMU_ARGS="-smp 2 -m 1G"
# trace_event=cow:cow_policy_change: the event the sysctl test reads is on
# from boot, before the secondary CPUs start. A test that switched it on
# would patch kernel text (the event's key, and sched_switch's for ftrace's
# comm recording), which hung multi-threaded TCG in QEMU 7.2 (README,
# Known problems).
KERNEL_CMDLINE="cow_policy=bogus cow_policy=mapcount trace_event=cow:cow_policy_change"
GUEST_SETUP=''
TEST_GROUPS="sysctl"
POLICIES="mapcount"
