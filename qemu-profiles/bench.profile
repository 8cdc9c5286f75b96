# qemu-profiles/bench.profile: the guest of make bench (scripts/flow/bench.sh).
# scripts/flow/bench.sh chooses the QEMU options per measurement mode itself
# (deterministic: 1 vCPU, -icount shift=0,sleep=off; wall-clock: 2 vCPUs);
# QEMU_ARGS here is what make run / make shell PROFILE=bench use.
PROFILE_DESC="bench: cowpin loaded, THP madvise, KSM ready, swap on /dev/vda if attached"
FEATURES="thp ksm"
THP_ENABLED=madvise THP_DEFRAG=madvise
QEMU_ARGS="-smp 2 -m 1G"
# A quiet console while measuring: up to KERN_WARNING only.
CONSOLE_LOGLEVEL=5
KERNEL_CMDLINE="nokaslr"
GUEST_SETUP='
echo 0 > /proc/sys/kernel/randomize_va_space
if [ -f /lib/modules/cowpin.ko ]; then insmod /lib/modules/cowpin.ko; fi
if [ -b /dev/vda ]; then mkswap /dev/vda >/dev/null && swapon /dev/vda; fi
test -c /dev/cowpin && echo "cowpin: /dev/cowpin" || echo "cowpin: absent (forkpin, gupfp skipped)"
grep -E "^(MemTotal|MemFree|SwapTotal):" /proc/meminfo
'
TEST_GROUPS="bench"
# cowbench --real: stress-ng and Redis (benchmarks/realwork.h)
GUEST_INSTALL="stress-ng redis-benchmark redis-check-rdb"
POLICIES="exclusive"
