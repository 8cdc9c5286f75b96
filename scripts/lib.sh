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
# make test (only when $COWTEST_COUNTS is set).
record() {
	if [ -n "${COWTEST_COUNTS:-}" ]; then
		printf '%s %s\n' "$1" "$2" >>"$COWTEST_COUNTS"
	fi
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

# load_profile DIR NAME: source DIR/NAME.profile, or fail listing the valid ones.
load_profile() {
	if [ ! -f "$1/$2.profile" ]; then
		_valid=$(cd "$1" && ls ./*.profile 2>/dev/null | sed 's|^\./||; s|\.profile$||' | tr '\n' ' ')
		die "unknown profile '$2'; valid profiles: ${_valid:-none}"
	fi
	# shellcheck disable=SC2034 # used by the scripts that source this
	PROFILE_DESC='' QEMU_ARGS='' KERNEL_CMDLINE='' GUEST_SETUP='' TEST_GROUPS='' POLICIES='' QEMU_DISKS='' RUN_TIMEOUT=''
	# shellcheck disable=SC1090
	. "$1/$2.profile"
	: "${POLICIES:=exclusive refcount mapcount}"
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
	grep -q -E "^(pass|fail) run $1-$2\$" "$COWTEST_COUNTS" ||
		record fail "run $1-$2 (no result: the run did not start or died early)"
}
