#!/bin/sh
# scripts/check/test-bad-input.sh (make test-bad-input): the harness given bad
# input must fail, fast, with an error naming what is wrong. Host only; the
# one QEMU start uses a garbage kernel image, so nothing boots. Each case:
# the command must exit non-zero and its output must match a pattern.
#   unknown profile / policy / variant / kernel line (make run, make kernel, make driver),
#   benchmark variant (make bench BENCH_COW=), starting configuration
#   (KCONFIG_BASE)
#   a missing package (scripts/build/deps.sh, with a stand-in apt-get that knows
#     no such package, so nothing is installed and no network is used)
#   patches (scripts/build/tree.sh on a small scratch git tree): a series naming a
#     missing patch, a corrupted patch, a patch whose context does not match
#   a guest that never boots (scripts/boot/run-qemu.sh with a garbage bzImage)
# BAD_INPUT_ONLY=<case name substring> runs a subset.
set -u
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
MAKE=${MAKE:-make}
start=$(now)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cow-bad-input.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The cases' own failures must not count as make test failures.
unset COWTEST_STAGES COWTEST_COUNTS RUN_ID
pass=0 fail=0

# expect NAME PATTERN CMD...: CMD fails, its output matches PATTERN (ERE).
expect() {
	_name=$1 _pat=$2
	shift 2
	case $_name in *"${BAD_INPUT_ONLY:-}"*) ;; *) return 0 ;; esac
	_t=$(now)
	"$@" >"$tmp/out" 2>&1
	_rc=$?
	if [ "$_rc" = 0 ]; then
		echo "not ok - $_name: exit status 0, expected a failure"
		sed 's/^/    /' "$tmp/out" | tail -n 5
		fail=$((fail + 1))
	elif ! grep -Eq -- "$_pat" "$tmp/out"; then
		echo "not ok - $_name: exit $_rc but no line matches /$_pat/"
		sed 's/^/    /' "$tmp/out" | tail -n 8
		fail=$((fail + 1))
	else
		echo "ok - $_name ($(($(now) - _t))s): $(grep -Em1 -- "$_pat" "$tmp/out" | cut -c1-150)"
		pass=$((pass + 1))
	fi
}

m() { "$MAKE" --no-print-directory "$@"; }

# --- names ---------------------------------------------------------------
expect "unknown profile (make run)" "unknown profile 'no-such-profile'; valid profiles: .*base" \
	m run PROFILE=no-such-profile
expect "unknown profile (make initramfs)" "unknown profile 'no-such-profile'" \
	m initramfs PROFILE=no-such-profile
expect "unknown policy (make run)" "unknown POLICY 'refcnt'; valid: exclusive refcount mapcount" \
	m run POLICY=refcnt
expect "unknown policy in a list (make run)" "unknown POLICY 'exclusive garbage'" \
	m run POLICY="exclusive garbage"
expect "unknown policy (make shell)" "unknown POLICY 'bogus'" \
	m shell POLICY=bogus
expect "unknown variant (make run)" "unknown VARIANT 'cowz'; valid: cow nocow debug stock" \
	m run VARIANT=cowz
expect "unknown variant (make kernel)" "unknown VARIANT 'cowz'" \
	m kernel VARIANT=cowz SKIP_TREE=1
expect "unknown variant (make driver)" "unknown VARIANT 'cowz'" \
	m driver VARIANT=cowz
expect "unknown kernel line (make kernel)" "unknown KERNEL '6.2'; valid: 6.1 6.12" \
	m kernel KERNEL=6.2
expect "unknown kernel line (make run)" "unknown KERNEL 'v6.12'; valid: 6.1 6.12" \
	m run KERNEL=v6.12
expect "unknown benchmark variant (make bench)" "BENCH_COW='nosuch' is not a benchmark variant .*statickey" \
	m bench BENCH_COW=nosuch BENCH_NOBUILD=1 BENCH_RUN="$tmp/bench-nosuch"
[ ! -e "$tmp/bench-nosuch" ] || { echo "not ok - unknown benchmark variant: it made $tmp/bench-nosuch"; fail=$((fail + 1)); }
expect "missing starting configuration (kconfig)" "KCONFIG_BASE: no file '/nonexistent/config.xz'" \
	env KCONFIG_BASE=/nonexistent/config.xz scripts/build/kconfig.sh cow /nonexistent "$tmp/obj-kconfig" configs/pending.txt configs/lean.config

# --- a missing package -------------------------------------------------------
mkdir -p "$tmp/bin"
cat >"$tmp/bin/apt-get" <<'EOF'
#!/bin/sh
# stand-in for apt-get: update works, no package can be found
[ "$1" = update ] && exit 0
for a; do last=$a; done
echo "E: Unable to locate package $last" >&2
exit 100
EOF
chmod +x "$tmp/bin/apt-get"
expect "missing package (make deps)" "Unable to locate package cow-policy-no-such-package" \
	env PATH="$tmp/bin:$PATH" "$MAKE" --no-print-directory deps EXTRA_PACKAGES=cow-policy-no-such-package

# --- patches ------------------------------------------------------------------
# A scratch "kernel tree": one file, tag base. tree.sh never unpacks here.
ks="$tmp/ksrc"
mkdir -p "$ks/mm"
printf 'line %s\n' 1 2 3 4 5 6 7 8 >"$ks/mm/memory.c"
(cd "$ks" && git init -q && git add -A &&
	git -c user.name=t -c user.email=t@t commit -q -m base && git tag base)
mkp() { # mkp DIR: a good one-patch series for the scratch tree
	mkdir -p "$1"
	cat >"$1/0001-mm-change-line-4.patch" <<'EOF'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Test <t@t>
Date: Thu, 1 Jan 2026 00:00:00 +0000
Subject: [PATCH] mm: change line 4

---
 mm/memory.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/mm/memory.c b/mm/memory.c
--- a/mm/memory.c
+++ b/mm/memory.c
@@ -1,8 +1,8 @@
 line 1
 line 2
 line 3
-line 4
+line four
 line 5
 line 6
 line 7
 line 8
-- 
2.39.2

EOF
	echo 0001-mm-change-line-4.patch >"$1/series"
}
mkp "$tmp/good"
if scripts/build/tree.sh /nonexistent.tar.xz "$ks" "$tmp/good" 0 >"$tmp/out" 2>&1; then
	echo "ok - sanity: the good scratch series applies"
	pass=$((pass + 1))
else
	echo "not ok - sanity: the good scratch series does not apply"
	sed 's/^/    /' "$tmp/out"
	fail=$((fail + 1))
fi
mkp "$tmp/missing"
echo 0002-not-there.patch >>"$tmp/missing/series"
expect "series names a missing patch" "/series lists 0002-not-there.patch but .* does not exist" \
	env FORCE=1 scripts/build/tree.sh /nonexistent.tar.xz "$ks" "$tmp/missing" 0
mkp "$tmp/corrupt"
# corrupt the hunk: a context line without its leading space, a bad count
sed -i -e 's/^ line 2$/line 2/' -e 's/^@@ -1,8 +1,8 @@$/@@ -1,9 +1,3 @@/' \
	"$tmp/corrupt/0001-mm-change-line-4.patch"
expect "corrupted patch" "patch 0001-mm-change-line-4.patch does not apply" \
	env FORCE=1 scripts/build/tree.sh /nonexistent.tar.xz "$ks" "$tmp/corrupt" 0
mkp "$tmp/stale"
sed -i 's/^-line 4$/-line 4 (as the patch remembers it)/' "$tmp/stale/0001-mm-change-line-4.patch"
expect "non-applying patch names the file" "patch 0001-mm-change-line-4.patch does not apply: mm/memory.c" \
	env FORCE=1 scripts/build/tree.sh /nonexistent.tar.xz "$ks" "$tmp/stale" 0

# --- a guest that never boots ------------------------------------------------
obj="$tmp/obj"
mkdir -p "$obj/arch/x86/boot"
head -c 65536 /dev/urandom >"$obj/arch/x86/boot/bzImage"
img=$(ls "$BUILD"/initramfs/*-base.img 2>/dev/null | head -n 1)
if [ -n "$img" ]; then
	v=$(basename "$img" -base.img)
	expect "guest never boots (garbage kernel)" "FAILED: the guest never reached its runner \\(no COWTEST-BOOT line; kernel .*/bzImage\\)" \
		env RESULTS="$tmp/results" TIMEOUT=60 ACCEL=tcg scripts/boot/run-qemu.sh "$v" base "$obj"
	# a real kernel whose init is missing: it panics before the runner
	if [ -f "$BUILD/obj-$v/arch/x86/boot/bzImage" ]; then
		expect "guest never boots (no init)" "FAILED: the guest never reached its runner .*Kernel panic" \
			env RESULTS="$tmp/results" TIMEOUT=120 EXTRA_CMDLINE="rdinit=/no-such-init" \
			scripts/boot/run-qemu.sh "$v" base "$BUILD/obj-$v"
		# a kernel that brings up one CPU of two (nr_cpus=1)
		expect "guest with fewer CPUs than -smp" "FAILED: .*the guest brought up 1 CPUs of the 2 QEMU gave it" \
			env RESULTS="$tmp/results" TIMEOUT=120 EXTRA_CMDLINE="nr_cpus=1 cowtest.groups=" \
			scripts/boot/run-qemu.sh "$v" base "$BUILD/obj-$v"
	fi
else
	echo "ok - guest never boots # SKIP no base initramfs (make initramfs)"
fi

echo "$pass passed, $fail failed"
if [ "$fail" = 0 ]; then
	stage "test-bad-input" "ok ($pass cases)" "$start"
	exit 0
fi
stage "test-bad-input" "FAILED ($fail of $((pass + fail)) cases)" "$start"
exit 1
