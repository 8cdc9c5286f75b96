# qemu-profiles/keyflip.profile: the jump-label stall probe (make
# stall-probe, scripts/flow/stall.sh): tests/guest/keyflip.c flips a static
# key every 2 ms (vm.cow_policy on a cow kernel, the page_fault_user
# tracepoint on any kernel) while two workers take copy-on-write faults.
# The accelerator is the probe's variable: stall.sh sets ACCEL per run.
PROFILE_DESC="keyflip: a static key flipped every 2 ms under write-fault load"
FEATURES=""
QEMU_ARGS="-smp 2 -m 1G"
KERNEL_CMDLINE=""
TEST_GROUPS="keyflip"
POLICIES="exclusive"
