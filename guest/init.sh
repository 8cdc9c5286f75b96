#!/bin/busybox sh
# guest/init.sh: PID 1 of the test guest (POSIX sh, run by busybox sh).
#
# Contract with the host (scripts/boot/run-qemu.sh):
#   COWTEST-BOOT ...         banner: kernel release, seconds from boot to here
#   TAP version 13 ... 1..N  one line per (policy, program); each program's own
#                            TAP is indented by 4 spaces under "# policy=P test=T"
#   # TAINT [policy=P test=T] before=N after=N
#                            /proc/sys/kernel/tainted changed while the next
#                            point's program (or the guest setup) ran; the
#                            host judges which new bits fail it
#   COWTEST-STATUS passed=N failed=N skipped=N
# on the console and, from "TAP version" on, on the results disk (serial
# cowtest-results) when the host attached one.
# then exits QEMU through qemu-exit: 0 when nothing failed, else 1.
#
# Kernel command line knobs: cowtest.groups=a,b cowtest.policy=P
# cowtest.shell=1 (interactive shell instead of tests) cowtest.probe=1
# (accelerator probe: report and exit at once) cowtest.timeout=SECONDS.

/bin/busybox mount -t proc proc /proc 2>/dev/null
read -r uptime _ </proc/uptime
# dracut's image has no /dev/console node, so the kernel gave us no stdio:
# mount devtmpfs and take the console from there.
/bin/busybox mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
if /bin/busybox grep -q 'cowtest.probe=1' /proc/cmdline; then
	echo "COWTEST-PROBE ok uptime=$uptime"
	/usr/bin/qemu-exit 0
fi
/bin/busybox --install -s
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mkdir -p /sys /dev /tmp /run
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
mount -t tmpfs tmpfs /tmp
# The policy the kernel booted with (cow_policy= or the Kconfig default),
# before anything changes it: tests/guest/bootparam.c checks it.
mkdir -p /run/cowtest
cat /proc/sys/vm/cow_policy >/run/cowtest/boot_cow_policy 2>/dev/null || true

finish() {
	sync
	/usr/bin/qemu-exit "$1"
	poweroff -f
}

# Per-run settings: the profile and run.conf built into the image. KERNEL
# (the kernel line) is what a profile may read; MM_ID (y or n) whether the
# kernel was built with CONFIG_COW_POLICY_MM_ID (scripts/build/initramfs.sh),
# empty from an image that predates it.
# shellcheck disable=SC2034
KERNEL=6.1 TEST_GROUPS='' POLICIES='' GUEST_SETUP='' TEST_TIMEOUT=120 PROFILE='?' VARIANT='?'
MM_ID=''
FEATURES=''
. /etc/cowtest/run.conf
. /etc/cowtest/profile
# The scenario table's programs read what the profile sets up.
COWTEST_FEATURES=$FEATURES
export COWTEST_FEATURES
: "${POLICIES:=exclusive refcount mapcount}"
shell_mode=0
for w in $(cat /proc/cmdline); do
	case $w in
	cowtest.groups=*) TEST_GROUPS=$(echo "${w#*=}" | tr , ' ') ;;
	cowtest.policy=*) POLICIES=${w#*=} ;;
	cowtest.shell=1) shell_mode=1 ;;
	cowtest.timeout=*) TEST_TIMEOUT=${w#*=} ;;
	# Scenario cells without a row run and report (tests/guest/lib/scn.c).
	cowtest.observe=1) COWTEST_OBSERVE=1 && export COWTEST_OBSERVE ;;
	esac
done

echo "COWTEST-BOOT kernel=$(uname -r) variant=$VARIANT profile=$PROFILE mm_id=${MM_ID:-n} boot_to_runner_s=$uptime cpus=$(grep -c '^processor' /proc/cpuinfo)"
echo "# groups: $TEST_GROUPS; policies: $POLICIES; per-test timeout ${TEST_TIMEOUT}s"

# The results channel: a raw virtio disk with serial "cowtest-results"
# (scripts/boot/run-qemu.sh). The runner's TAP (its own lines and every
# program's indented output) is kept in /tmp/results.tap and copied to
# that disk after each program, so the host reads the results as data,
# apart from the console, which stays for people and for the log scan.
resdev=
for s in /sys/block/vd*/serial; do
	[ "$(cat "$s" 2>/dev/null)" = cowtest-results ] || continue
	s=${s%/serial}
	resdev=/dev/${s##*/}
done
: >/tmp/results.tap
out() { echo "$1"; echo "$1" >>/tmp/results.tap; }
flush_results() {
	[ -z "$resdev" ] || dd if=/tmp/results.tap of="$resdev" bs=64k conv=notrunc,fsync 2>/dev/null
}

n=0 passed=0 failed=0 skipped=0
tap_ok() { n=$((n + 1)); passed=$((passed + 1)); out "ok $n - $1"; }
tap_fail() { n=$((n + 1)); failed=$((failed + 1)); out "not ok $n - $1"; }
tap_skip() { n=$((n + 1)); skipped=$((skipped + 1)); out "ok $n - $1 # SKIP $2"; }

# The guest setup: every feature of the profile's FEATURES from its one
# snippet (qemu-profiles/features/<feature>.setup), then the profile's own
# GUEST_SETUP lines.  A feature without a snippet fails the setup.
echo 1 >/proc/sys/kernel/sysrq
setup_script() {
	for f in $FEATURES; do
		if [ -f "/etc/cowtest/features/$f.setup" ]; then
			echo "echo '# feature $f'"
			cat "/etc/cowtest/features/$f.setup"
		else
			echo "echo 'no setup for feature $f'; exit 1"
		fi
	done
	printf '%s\n' "$GUEST_SETUP"
}

# The kernel's taint flags, read around each program and the setup: a new
# bit (a WARN, a bad page, an oops, a soft lockup, ...) is reported as a
# "# TAINT" line just before the point of what ran while it appeared, so
# the host fails that program by name (scripts/report/judge.py: the
# out-of-tree and unsigned module bits, which loading cowpin.ko and the
# systemtap modules sets, are allowed). A bit that appears between two
# programs is reported with the next one: none is lost.
tainted() { cat /proc/sys/kernel/tainted 2>/dev/null || echo 0; }
taint_was=$(tainted)
taint_check() { # [policy=P test=T]
	_t=$(tainted)
	[ "$_t" = "$taint_was" ] || out "# TAINT ${1:+$1 }before=$taint_was after=$_t"
	taint_was=$_t
}

out "TAP version 13"
if [ -n "$FEATURES$GUEST_SETUP" ]; then
	out "# guest setup ($PROFILE: ${FEATURES:-no features})"
	{
		(eval "$(setup_script)") 2>&1
		echo $? >/tmp/rc
	} | sed 's/^/    /' | tee -a /tmp/results.tap
	rc=$(cat /tmp/rc)
	taint_check
	if [ "$rc" = 0 ]; then tap_ok "setup $PROFILE"; else tap_fail "setup $PROFILE (exit $rc)"; fi
fi

# The variants built with CONFIG_COW_POLICY=y must have vm.cow_policy: on
# them its absence fails the run (and each policy's tests) rather than
# turning every policy but exclusive into a skip.  Tests read the same
# expectation from COWTEST_COW_POLICY (cowtest.c: cow_policy_expected()).
case $VARIANT in
nocow | stock) COWTEST_COW_POLICY=0 ;;
*) COWTEST_COW_POLICY=1 ;;
esac
export COWTEST_COW_POLICY
if [ "$COWTEST_COW_POLICY" = 1 ] && [ ! -e /proc/sys/vm/cow_policy ]; then
	tap_fail "vm.cow_policy present (variant $VARIANT has CONFIG_COW_POLICY=y)"
fi
# Whether the kernel must accept the largefolio policy: y when it was built
# with CONFIG_COW_POLICY_MM_ID (run.conf's MM_ID, from the variant's
# .config), n when not; the tests read it as COWTEST_MM_ID (tests/guest/
# sysctl.c: "largefolio" accepted, or refused with EOPNOTSUPP on 6.12 and
# EINVAL on 6.1; flipstress.c flips among four policies).  Empty when the
# image has no MM_ID, which sysctl.c fails rather than guess.
COWTEST_MM_ID=$MM_ID
export COWTEST_MM_ID

# set_policy P: 0 when set, 1 when it could not be set, 2 when the kernel
# has no /proc/sys/vm/cow_policy.
set_policy() {
	[ -e /proc/sys/vm/cow_policy ] || return 2
	echo "$1" >/proc/sys/vm/cow_policy 2>/dev/null || return 1
}

if [ "$shell_mode" = 1 ]; then
	p=${POLICIES%% *}
	set_policy "$p"
	case $? in
	0) echo "# /proc/sys/vm/cow_policy set to $p" ;;
	1) echo "# could not set /proc/sys/vm/cow_policy to $p" ;;
	2) echo "# this kernel has no /proc/sys/vm/cow_policy" ;;
	esac
	echo "# cowtest shell: 'cat /proc/sys/vm/cow_policy', 'echo refcount > /proc/sys/vm/cow_policy'."
	echo "# Leave with 'exit' (or Ctrl-D); Ctrl-A X kills QEMU."
	setsid cttyhack sh
	finish 0
fi

# The test list: "program args" lines of every group.
: >/tmp/tests
for g in $TEST_GROUPS; do
	if [ -f "/etc/cowtest/groups/$g.list" ]; then
		sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "/etc/cowtest/groups/$g.list" >>/tmp/tests
	else
		tap_fail "group $g (no such group)"
	fi
done

for p in $POLICIES; do
	set_policy "$p"
	st=$?
	while read -r cmd; do
		name=$(echo "$cmd" | tr ' ' '_')
		if [ "$st" = 2 ] && [ "$COWTEST_COW_POLICY" = 1 ]; then
			tap_fail "$p/$name (variant $VARIANT has no vm.cow_policy)"
			continue
		fi
		if [ "$st" = 2 ] && [ "$p" != exclusive ]; then
			tap_skip "$p/$name" "no cow_policy"
			continue
		fi
		if [ "$st" = 1 ]; then
			tap_fail "$p/$name (cannot set cow_policy=$p)"
			continue
		fi
		# The program by its absolute path: a test named like a busybox
		# applet (sysctl) must not run the applet from earlier in PATH.
		prog=${cmd%% *} args=
		[ "$prog" = "$cmd" ] || args=${cmd#* }
		case $prog in /*) ;; *) prog=/usr/bin/$prog ;; esac
		if [ ! -x "$prog" ] || [ -L "$prog" ]; then
			tap_fail "$p/$name (no test program $prog)"
			continue
		fi
		# The policy the kernel reports, read after setting it: the
		# judge fails a program run under another one than its block
		# says (none: no vm.cow_policy, the unpatched rule).
		kp=none
		[ ! -e /proc/sys/vm/cow_policy ] || kp=$(cat /proc/sys/vm/cow_policy 2>/dev/null) || kp=unreadable
		out "# policy=$p test=$name kernel_policy=${kp:-empty}"
		# Nothing runs beside a test program: its output goes to a
		# file and is indented and copied after it exits.  A pipe to
		# sed and tee started with it would fault and fork while the
		# program counts the system-wide cow_* decisions.  A kernel
		# report printed meanwhile follows the "# policy= test="
		# line above on the console.  The timeout is cowtest-timeout
		# (guest/cowtest-timeout.c), not busybox's, whose watcher's
		# first wake wrote shared pages a second into every program.
		# shellcheck disable=SC2086
		COW_POLICY=$p cowtest-timeout "$TEST_TIMEOUT" "$prog" $args </dev/null >/tmp/prog.out 2>&1
		rc=$?
		sed 's/^/    /' /tmp/prog.out | tee -a /tmp/results.tap
		taint_check "policy=$p test=$name"
		case $rc in
		0) tap_ok "$p/$name" ;;
		124 | 143) tap_fail "$p/$name (timeout ${TEST_TIMEOUT}s)" ;;
		*) tap_fail "$p/$name (exit $rc)" ;;
		esac
		flush_results
	done </tmp/tests
done
out "1..$n"
out "COWTEST-STATUS passed=$passed failed=$failed skipped=$skipped"
flush_results
if [ "$failed" = 0 ]; then finish 0; else finish 1; fi
