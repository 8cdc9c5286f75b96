# scripts/lib.sh: helpers sourced by the other scripts (POSIX sh).

# die MESSAGE...: one clear line on stderr, exit 1.
die() {
	printf '%s\n' "$*" >&2
	exit 1
}

now() { date +%s; }

# stage NAME STATUS START: print "[  12s] NAME: STATUS" (seconds since START)
# and append it to $COWTEST_STAGES when make test collects stage lines.
stage() {
	_line=$(printf '[%4ss] %s: %s' "$(($(now) - $3))" "$1" "$2")
	printf '%s\n' "$_line"
	if [ -n "${COWTEST_STAGES:-}" ]; then
		printf '%s\n' "$_line" >>"$COWTEST_STAGES"
	fi
}

# record pass|fail|skip NAME: one counted test for the summary line of
# make test (only when $COWTEST_COUNTS is set). While make test runs a
# further kernel line (COWTEST_LINE, scripts/flow/test.sh), NAME says
# "<line>: " first.
record() {
	if [ -n "${COWTEST_COUNTS:-}" ]; then
		printf '%s %s%s\n' "$1" "${COWTEST_LINE:+$COWTEST_LINE: }" "$2" >>"$COWTEST_COUNTS"
	fi
}

# guest_overlap FILE: FILE holds one "START END NAME" line per QEMU run
# (epoch seconds, scripts/boot/run-qemu.sh); prints the first two runs
# whose spans overlap ("A (s-e) and B (s-e)"), nothing when none do.
guest_overlap() {
	sort -n -k1,1 -k2,2 "$1" | awk '
		NR > 1 && $1 < end { printf "%s (%d-%d) and %s (%d-%d)\n", name, beg, end, $3, $1, $2; exit }
		NR == 1 || $2 > end { beg = $1; end = $2; name = $3 }'
}

# hash_files FILE...: one sha256 over the contents of existing FILEs.
hash_files() {
	for _f in "$@"; do
		printf '%s\n' "$_f"
		if [ -f "$_f" ]; then cat "$_f"; fi
	done | sha256sum | cut -d' ' -f1
}

# series_patches DIR: the patch names listed in DIR/series (quilt format:
# comments and blank lines ignored, only the first word counts).
series_patches() {
	if [ -f "$1/series" ]; then
		sed -e 's/#.*//' "$1/series" | awk 'NF { print $1 }'
	fi
}

# series_sha256 DIR: the identity of the series in DIR, the sha256 over
# DIR/series and the patches it lists, each as its name, a newline and its
# bytes: names, not paths, so that two clones of one series agree
# (scripts/report/cowresults/series.py computes the same; runs record it in
# meta.env as series_sha256).
series_sha256() {
	# shellcheck disable=SC2046 # one patch name per word
	(cd "$1" && hash_files series $(series_patches .))
}

# load_profile DIR NAME: source DIR/NAME.profile, or fail listing the valid ones.
load_profile() {
	if [ ! -f "$1/$2.profile" ]; then
		_valid=$(cd "$1" && ls ./*.profile 2>/dev/null | sed 's|^\./||; s|\.profile$||' | tr '\n' ' ')
		die "unknown profile '$2'; valid profiles: ${_valid:-none}"
	fi
	# shellcheck disable=SC2034 # used by the scripts that source this
	PROFILE_DESC='' QEMU_ARGS='' KERNEL_CMDLINE='' GUEST_SETUP='' TEST_GROUPS='' POLICIES='' QEMU_DISKS='' RUN_TIMEOUT='' TCG_MODE='' GUEST_INSTALL=''
	CONSOLE_LOGLEVEL=''
	# shellcheck disable=SC1090
	. "$1/$2.profile"
	: "${POLICIES:=exclusive refcount mapcount}"
	: "${CONSOLE_LOGLEVEL:=$CONSOLE_LOGLEVEL_DEFAULT}"
}

# The kernel command line every boot starts with, in one place
# (scripts/boot/qemu.sh puts it before the caller's words; profiles add
# only their own parameters): the serial console, reboot at once on a
# panic (QEMU runs with -no-reboot, so a panic ends the run), the console
# loglevel, and the lockup and hung-task detectors' thresholds (soft lockup
# after 2 x 30 s; hung task after 240 s; 6.1 has no hung_task_timeout_secs=
# parameter, the sysctl.* form sets the sysctl before init runs).
BOOT_CMDLINE='console=ttyS0 panic=-1 watchdog_thresh=30 sysctl.kernel.hung_task_timeout_secs=240'
# The console loglevel: 7 (everything up to KERN_INFO: the hung-task
# detector prints its backtraces at KERN_INFO) unless a profile says
# CONSOLE_LOGLEVEL; never below 5, which still prints KERN_WARNING (WARN
# splats, "refcount_t:", dump_page(), pr_warn()).
CONSOLE_LOGLEVEL_DEFAULT=7
# shellcheck disable=SC2034 # read by scripts/boot/qemu.sh and scripts/check/check.sh
CONSOLE_LOGLEVEL_MIN=5

# boot_cmdline LOGLEVEL WORDS: the full kernel command line of a boot.
boot_cmdline() {
	printf '%s loglevel=%s %s\n' "$BOOT_CMDLINE" "$1" "$2"
}

# cmdline_loglevel CMDLINE: the console loglevel a kernel booted with
# CMDLINE ends up with (parameters are applied in order: the last
# loglevel=N, quiet (4) or debug (10) wins; ignore_loglevel prints all).
cmdline_loglevel() {
	printf '%s\n' "$1" | tr -s ' \t' '\n\n' | awk -v lvl="$CONSOLE_LOGLEVEL_DEFAULT" '
		/^loglevel=/ { lvl = substr($0, 10) + 0 }
		$0 == "quiet" { lvl = 4 }
		$0 == "debug" { lvl = 10 }
		$0 == "ignore_loglevel" { ign = 1 }
		END { print ign ? 15 : lvl }'
}

# kernel_release OBJ: the release string of a configured/built object dir.
kernel_release() {
	cat "$1/include/config/kernel.release" 2>/dev/null || die "no kernel built in $1 (run make kernel)"
}

# uapi_headers KSRC DIR: the tree's uapi headers in DIR/usr/include
# (headers_install with objects in DIR/hdr-obj), redone only when the tree's
# HEAD moves. For the user-space tests built against the 6.1 tree.
uapi_headers() {
	_head=$(git -C "$1" rev-parse HEAD)
	[ "$(cat "$2/usr/.stamp" 2>/dev/null)" != "$_head" ] || return 0
	rm -rf "${2:?}/usr" "${2:?}/hdr-obj"
	mkdir -p "$2"
	make -s -C "$1" O="$2/hdr-obj" INSTALL_HDR_PATH="$2/usr" headers_install \
		>"$2/headers.log" 2>&1 || { tail -n 20 "$2/headers.log" >&2; die "headers_install of $1 failed (log: $2/headers.log)"; }
	echo "$_head" >"$2/usr/.stamp"
}

# run_counted VARIANT PROFILE: one QEMU run (make run) for make test.
# run-qemu.sh counts the runner's tests and the run itself ("run
# <variant>-<profile>", pass or fail); a run that died before it could (bad
# profile, no kernel, an early error) is counted as failed here, by name.
run_counted() {
	"${MAKE:-make}" --no-print-directory run VARIANT="$1" PROFILE="$2" || true
	grep -q -E "^(pass|fail) ${COWTEST_LINE:+$COWTEST_LINE: }run $1-$2\$" "$COWTEST_COUNTS" ||
		record fail "run $1-$2 (no result: the run did not start or died early)"
}

# accel_args NAME: QEMU's accelerator and CPU arguments for an accelerator
# name as results record it (scripts/boot/qemu.sh --accel): kvm, tcg
# (multi-threaded TCG), tcg-single, icount.
accel_args() {
	case $1 in
	kvm) echo "-accel kvm -cpu host" ;;
	tcg) echo "-accel tcg,thread=multi -cpu max,la57=off" ;;
	tcg-single) echo "-accel tcg,thread=single -cpu max,la57=off" ;;
	icount) echo "-accel tcg -icount shift=0,sleep=off,align=off -cpu max,la57=off" ;;
	*) die "unknown accelerator '$1'; valid: kvm tcg tcg-single icount" ;;
	esac
}

# qemu_tcg_stale_tb: true when this QEMU is older than 8.1, whose
# multi-threaded TCG can run a stale translated block after the guest patches
# its own code (fixed by "accel/tcg: Always lock pages before translation").
qemu_tcg_stale_tb() {
	_qv=$(qemu-system-x86_64 --version 2>/dev/null | sed -n '1s/.*version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
	[ -n "$_qv" ] || return 0
	# shellcheck disable=SC2086 # major and minor
	set -- $_qv
	[ "$1" -lt 8 ] || { [ "$1" -eq 8 ] && [ "$2" -lt 1 ]; }
}

# run_stage NAME CMD...: one stage of make's graph (a Makefile recipe). A
# failure is counted for make test ("fail stage NAME") and gets a FAILED
# stage line when CMD died before printing its own.
run_stage() {
	_rs_name=$1
	shift
	_rs_lines=$(cat "${COWTEST_STAGES:-/dev/null}" 2>/dev/null | wc -l)
	_rs_t=$(now)
	"$@" && return 0
	record fail "stage $_rs_name"
	[ -z "${COWTEST_STAGES:-}" ] || [ "$(wc -l <"$COWTEST_STAGES")" != "$_rs_lines" ] ||
		stage "$_rs_name" "FAILED" "$_rs_t"
	return 1
}

# write_id FILE WORD...: FILE holds WORDs (an identity: a hash, a commit),
# rewritten only when they change, so that make rebuilds what depends on
# FILE only then (the .ran/.id pairs of the Makefile).
write_id() {
	_wi_f=$1
	shift
	printf '%s\n' "$*" >"$_wi_f.new"
	if cmp -s "$_wi_f.new" "$_wi_f"; then rm -f "$_wi_f.new"; else mv "$_wi_f.new" "$_wi_f"; fi
}

# hash_tree DIR...: one sha256 over every regular file under DIRs (names
# and contents), for write_id.
hash_tree() {
	find "$@" -type f ! -name '.*' ! -name '*.id' 2>/dev/null | LC_ALL=C sort | while read -r _ht; do
		printf '%s %s\n' "$_ht" "$(sha256sum <"$_ht" | cut -d' ' -f1)"
	done | sha256sum | cut -d' ' -f1
}
