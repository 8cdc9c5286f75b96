#!/bin/sh
# scripts/check/check.sh: fast host-side checks (no QEMU, no kernel build). Each
# check is one counted test: "ok - NAME", "not ok - NAME: why" or
# "ok - NAME # SKIP why". Ends with "N passed, N failed, N skipped".
set -u
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
# The kernel lines and each one's tree, "6.1=DIR 6.12=DIR" (the Makefile's
# LINE_TREES). The series of every line are checked (5, 7); the other
# checks that read a tree read 6.1's (KSRC below), whatever KERNEL is.
LINE_TREES=${LINE_TREES:-6.1=${KSRC:-$top/build/linux-source-6.1}}
line_tree() { # LINE: that line's tree
	for _lt in $LINE_TREES; do [ "${_lt%%=*}" != "$1" ] || { echo "${_lt#*=}"; return; }; done
}
KSRC=$(line_tree 6.1)
start=$(now)
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok - $1"; record pass "check: $1"; }
notok() { fail=$((fail + 1)); echo "not ok - $1: $2"; record fail "check: $1"; }
skip() { skip=$((skip + 1)); echo "ok - $1 # SKIP $2"; record skip "check: $1"; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# 1. shell scripts: sh -n, and shellcheck when installed.
have_sc=0
command -v shellcheck >/dev/null 2>&1 && have_sc=1
for f in scripts/lib.sh scripts/*/*.sh guest/init.sh guest/adapters/*.sh .ci/run; do
	[ -f "$f" ] || continue
	if ! sh -n "$f" 2>"$tmp"; then
		notok "sh -n $f" "$(head -n 3 "$tmp")"
	elif [ $have_sc = 1 ] && ! shellcheck -s sh -S warning -x -P scripts "$f" >"$tmp" 2>&1; then
		notok "shellcheck $f" "$(grep -c '^In ' "$tmp") findings"
		sed 's/^/    /' "$tmp"
	else
		ok "shell $f${have_sc:+ (sh -n$([ $have_sc = 1 ] && echo ', shellcheck'))}"
	fi
done

# 2. config fragments and the pending list.
for f in configs/*.config; do
	bad=$(grep -n -v -E '^(#.*|[[:space:]]*|CONFIG_[A-Za-z0-9_]+=([ynm]|-?[0-9]+|0x[0-9a-fA-F]+|"[^"]*"))$' "$f")
	if [ -n "$bad" ]; then notok "config syntax $f" "$(echo "$bad" | head -n 3 | tr '\n' ' ')"; else ok "config syntax $f"; fi
done
bad=$(sed 's/#.*//' configs/pending.txt | grep -v -E '^[[:space:]]*(CONFIG_[A-Za-z0-9_]+)?[[:space:]]*$')
if [ -n "$bad" ]; then notok "configs/pending.txt syntax" "$bad"; else ok "configs/pending.txt syntax"; fi

# 3. QEMU profiles and test group lists. A profile adds only its own kernel
# parameters: console=, panic=, loglevel= and the lockup thresholds are
# scripts/boot/qemu.sh's, and the command line a boot of the profile gets
# (qemu.sh --print-cmdline) prints KERN_WARNING: console loglevel >= 5.
profile_problems() { # DIR NAME: one line per problem of DIR/NAME.profile
	(
		load_profile "$1" "$2" >/dev/null 2>&1 || { echo "does not source"; exit; }
		[ -n "$PROFILE_DESC" ] || echo "no PROFILE_DESC"
		for w in $KERNEL_CMDLINE; do
			case $w in
			console=* | panic=* | loglevel=* | quiet | watchdog_thresh=* | sysctl.kernel.hung_task_timeout_secs=*)
				echo "KERNEL_CMDLINE sets $w (scripts/boot/qemu.sh sets it for every boot)" ;;
			esac
		done
		if ! full=$(scripts/boot/qemu.sh --print-cmdline --loglevel "$CONSOLE_LOGLEVEL" --console /dev/null \
			K I "$KERNEL_CMDLINE" 2>&1); then
			echo "its command line is refused: $full"
		else
			lvl=$(cmdline_loglevel "$full")
			[ "$lvl" -ge "$CONSOLE_LOGLEVEL_MIN" ] || echo "console loglevel $lvl hides kernel warnings (at least $CONSOLE_LOGLEVEL_MIN): $full"
			case " $full " in *" console=ttyS0 "*) ;; *) echo "no console=ttyS0 in $full" ;; esac
		fi
		[ -n "$TEST_GROUPS" ] || echo "no TEST_GROUPS"
		for g in $TEST_GROUPS; do
			[ -f "tests/groups/$g.list" ] || [ -f "guest/groups/$g.list" ] || echo "no list for group $g"
		done
		printf '%s\n' "$GUEST_SETUP" | sh -n 2>/dev/null || echo "GUEST_SETUP has a syntax error"
		for feat in $FEATURES; do
			[ -f "qemu-profiles/features/$feat.setup" ] || echo "no qemu-profiles/features/$feat.setup for feature $feat"
		done
	)
}
for f in qemu-profiles/*.profile; do
	p=$(basename "$f" .profile)
	why=$(profile_problems qemu-profiles "$p" | tr '\n' ' ')
	if [ -n "$why" ]; then notok "profile $p" "$why"; else ok "profile $p"; fi
done
# Canned bad profiles (tests/host/profiles/bad-*.profile): each must be
# flagged, for the reason its "# check expects: TEXT" line names.
for f in tests/host/profiles/bad-*.profile; do
	[ -f "$f" ] || continue
	p=$(basename "$f" .profile)
	want=$(sed -n 's/^# check expects: //p' "$f")
	why=$(profile_problems tests/host/profiles "$p" | tr '\n' ' ')
	if [ -z "$want" ]; then notok "profile check flags $p" "no '# check expects:' line"
	elif printf '%s\n' "$why" | grep -q -F -- "$want"; then ok "profile check flags $p ($want)"
	else notok "profile check flags $p" "want '$want', got '${why:-nothing}'"; fi
done
for f in qemu-profiles/features/*.setup; do
	if sh -n "$f" 2>"$tmp"; then ok "feature $(basename "$f" .setup)"
	else notok "feature $(basename "$f" .setup)" "$(head -n 1 "$tmp")"; fi
done
for f in tests/groups/*.list guest/groups/*.list; do
	[ -f "$f" ] || continue
	missing=""
	for prog in $(sed 's/#.*//' "$f" | awk 'NF { print $1 }'); do
		[ -f "tests/guest/$prog.c" ] || [ -f "guest/$prog.c" ] || [ -f "guest/adapters/$prog.sh" ] ||
			[ -f "benchmarks/$prog.c" ] || missing="$missing $prog"
	done
	if [ -n "$missing" ]; then notok "group list $f" "no program:$missing"; else ok "group list $f"; fi
done

# tests/expect/vm-selftests.tsv: every row names an invocation of
# tests/groups/vmtests.list, a known policy and a result vm_selftest prints;
# only refcount and mapcount may omit one.
if [ -f tests/expect/vm-selftests.tsv ]; then
	why=$(sed -n 's/^vm_selftest //p' tests/groups/vmtests.list | sed 's/[[:space:]]*#.*//' |
		awk -F '\t' 'NR == FNR { inv[$0] = 1; next }
		substr($0, 1, 1) == "#" || !NF { next }
		NF < 4 { print "line " FNR ": fewer than 4 columns"; next }
		$1 !~ /^(all|exclusive|refcount|mapcount)$/ { print "line " FNR ": policy " $1 }
		!($2 in inv) { print "line " FNR ": not in vmtests.list: " $2 }
		$3 !~ /^(pass|fail|skip|timeout|omitted)$/ { print "line " FNR ": result " $3 }
		$3 == "omitted" && $1 !~ /^(refcount|mapcount)$/ { print "line " FNR ": omitted under " $1 }' - tests/expect/vm-selftests.tsv)
	if [ -n "$why" ]; then notok "expectations vm-selftests.tsv" "$(echo "$why" | head -n 3 | tr '\n' ';')"; else ok "expectations vm-selftests.tsv"; fi
fi

# 4. guest C programs compile (syntax only).
for f in tests/guest/*.c guest/*.c benchmarks/*.c; do
	[ -f "$f" ] || continue
	inc=""
	[ -d tests/guest/lib ] && inc="-Itests/guest/lib"
	if gcc -fsyntax-only -O2 -Wall -Wextra -Werror $inc "$f" >"$tmp" 2>&1; then ok "compile $f"; else notok "compile $f" "$(head -n 3 "$tmp")"; fi
done

# 5. Every kernel line's series, patches/<line>/series: it exists, every
# listed patch exists, every patch of the directory is listed; and nothing
# lies in patches/ outside a line's directory (a patch there would belong
# to no series).
for lt in $LINE_TREES; do
	l=${lt%%=*} pd=patches/${lt%%=*}
	if [ ! -f "$pd/series" ]; then
		notok "$pd/series consistent" "kernel line $l has no $pd/series"
		continue
	fi
	why=""
	listed=$(series_patches "$pd")
	[ -n "$listed" ] || why=" lists no patch"
	for p in $listed; do [ -f "$pd/$p" ] || why="$why missing:$p"; done
	for f in "$pd"/*.patch "$pd"/*.diff; do
		[ -f "$f" ] || continue
		b=$(basename "$f")
		printf '%s\n' "$listed" | grep -qxF "$b" || why="$why unlisted:$b"
	done
	if [ -n "$why" ]; then notok "$pd/series consistent" "$why"; else ok "$pd/series consistent ($(printf '%s\n' "$listed" | grep -c .) patches)"; fi
done
loose=$(find patches -mindepth 1 -maxdepth 1 ! -type d -printf '%f ' 2>/dev/null)
for d in patches/*/; do
	d=${d%/}
	case " $LINE_TREES" in *" ${d#patches/}="*) ;; *) loose="$loose${d#patches/}/ " ;; esac
done
if [ -n "$loose" ]; then notok "patches/ holds only the lines' series" "not in a kernel line's directory: $loose"
else ok "patches/ holds only the lines' series ($(echo "$LINE_TREES" | sed 's/=[^ ]*//g'))"; fi

# 6. files kept both here and in the tree must be identical.
same() { # NAME OURS TREEFILE
	if [ ! -f "$2" ]; then skip "$1" "$2 does not exist yet"
	elif [ ! -f "$3" ]; then skip "$1" "not in the tree (run make tree): $3"
	elif cmp -s "$2" "$3"; then ok "$1"
	else notok "$1" "$2 differs from $3"; fi
}
same "Kconfig.cow == tree mm/Kconfig.cow" Kconfig.cow "$KSRC/mm/Kconfig.cow"
same "sysctl doc == tree Documentation" sysctl-docs/cow_policy.rst \
	"$KSRC/Documentation/admin-guide/sysctl/cow_policy.rst"

# 7. checkpatch --strict on every listed patch of every line, with the
# line's own checkpatch.pl (the tree of that line).
for lt in $LINE_TREES; do
pd=patches/${lt%%=*} ltree=${lt#*=}
plist=""
for p in $(series_patches "$pd"); do [ -f "$pd/$p" ] && plist="$plist $top/$pd/$p"; done
if [ -z "$plist" ]; then
	skip "checkpatch --strict $pd" "no patches in $pd/series"
elif [ ! -x "$ltree/scripts/checkpatch.pl" ]; then
	skip "checkpatch --strict $pd" "no kernel tree at $ltree (run make tree KERNEL=${lt%%=*})"
else
	# As a reviewer runs it on a mailed series: --no-tree, from a directory
	# outside any git tree, so that checkpatch checks the form of every
	# commit id cited (GIT_COMMIT_ID) without a history to look them up in.
	cpdir=$(mktemp -d)
	for p in $plist; do
		# A backport opens its body with the stable kernels' "commit <sha>
		# upstream." line, which this checkpatch reads as a badly cited
		# commit (GIT_COMMIT_ID): that check is left out for such a patch
		# alone, and the cell says so.
		cpig=${CHECKPATCH_IGNORE:-UNKNOWN_COMMIT_ID,EMBEDDED_FILENAME} bp=
		if grep -qE '^commit [0-9a-f]{40} upstream\.$' "$p"; then
			cpig="$cpig,GIT_COMMIT_ID" bp=" (backport: GIT_COMMIT_ID ignored for its 'commit <sha> upstream.' line)"
		fi
		# PATH: checkpatch's spdxcheck.py wants Debian's python3 (python3-ply),
		# not another python3 that may come first in PATH.
		if (cd "$cpdir" && PATH=/usr/bin:$PATH perl "$ltree/scripts/checkpatch.pl" --no-tree \
			--strict -q --no-summary \
			--ignore "$cpig" "$p") >"$tmp" 2>&1; then
			ok "checkpatch --strict $pd/$(basename "$p")$bp"
		else
			notok "checkpatch --strict $pd/$(basename "$p")" "$(grep -c -E '^(ERROR|WARNING|CHECK):' "$tmp") findings"
			sed 's/^/    /' "$tmp"
		fi
	done
	rmdir "$cpdir"
fi
done

# 7b. checkpatch --strict -f on the cowpin driver's sources.
if [ ! -x "$KSRC/scripts/checkpatch.pl" ]; then
	skip "checkpatch --strict driver/cowpin" "no kernel tree at $KSRC (run make tree)"
elif (cd "$KSRC" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict -q --no-summary \
	--no-tree -f "$top"/driver/cowpin/*.c "$top"/driver/cowpin/*.h "$top"/driver/cowpin/Kbuild) >"$tmp" 2>&1; then
	ok "checkpatch --strict driver/cowpin"
else
	notok "checkpatch --strict driver/cowpin" "$(grep -c -E '^(ERROR|WARNING|CHECK):' "$tmp") findings"
	sed 's/^/    /' "$tmp"
fi

# 8. the log scanner on canned logs: clean-*.log scan clean, each bad-*.log
# is flagged for the pattern tests/host/logs/patterns.tsv names, and every
# pattern of the scanner has such a log.
pt=tests/host/logs/patterns.tsv
for f in tests/host/logs/*.log; do
	b=$(basename "$f")
	scripts/boot/scan-log.sh "$f" >"$tmp"
	rc=$?
	case $b in
	clean-*) if [ $rc = 0 ]; then ok "scan-log $b is clean"; else notok "scan-log $b is clean" "$(head -n 1 "$tmp")"; fi ;;
	bad-*)
		miss=$(awk -F '\t' -v b="$b" '$1 == b { print $2 }' "$pt" | while IFS= read -r want; do
			grep -q -F -- "kernel log has '$want' " "$tmp" || printf " '%s'" "$want"
		done)
		if [ $rc != 1 ]; then notok "scan-log flags $b" "not flagged"
		elif ! grep -q -F "$(printf '%s\t' "$b")" "$pt"; then notok "scan-log flags $b" "no line in $pt"
		elif [ -n "$miss" ]; then notok "scan-log flags $b" "not for$miss: $(head -n 1 "$tmp")"
		else ok "scan-log flags $b ($(awk -F '\t' -v b="$b" '$1 == b { printf "%s%s", s, $2; s = ", " }' "$pt"))"; fi ;;
	esac
done
nolog=$(scripts/boot/scan-log.sh --patterns | while IFS= read -r pat; do
	# ENVIRON, not -v: awk -v would read the pattern's backslashes as escapes.
	PAT=$pat awk -F '\t' '$2 == ENVIRON["PAT"] { f = 1 } END { exit !f }' "$pt" || printf " '%s'" "$pat"
done)
if [ -z "$nolog" ]; then ok "scan-log: every pattern has a canned log ($(scripts/boot/scan-log.sh --patterns | wc -l) patterns)"
else notok "scan-log: every pattern has a canned log" "none for$nolog"; fi

# 9. guest/adapters/vm_selftest.sh observes pass/fail/skip/timeout/crash the way
# run_vmtests.sh reads an exit status and reports it for the host's judge
# (exit 0); fake programs exit with their first argument.
vt=$(mktemp -d)
printf '#!/bin/sh\n[ "$1" = hang ] && exec sleep 30\n[ "$1" = crash ] && kill -SEGV $$\nexit "$1"\n' >"$vt/vm61_fake"
chmod +x "$vt/vm61_fake"
mkdir "$vt/scratch" && : >"$vt/scratch/left-over"
printf 'all\tfake 1\tfail\tr\nexclusive\tfake 7\tomitted\tr\n' >"$vt/expect.tsv"
vt_bad=""
# "7:omitted": the row of this policy omits "fake 7", which would exit 7
# (fail) if it ran.
for c in "0:pass" "1:fail" "4:skip" "hang:timeout" "3:fail" "crash:crash" "7:omitted"; do
	VM_SELFTEST_BIN=$vt VM_SELFTEST_EXPECT=$vt/expect.tsv VM_SELFTEST_PREP=0 \
		VM_SELFTEST_SCRATCH=$vt/scratch VM_SELFTEST_TIMEOUT=1 \
		sh guest/adapters/vm_selftest.sh fake ${c%:*} >"$tmp" 2>&1
	vrc=$?
	[ $vrc = 0 ] && grep -q "^# VMSELFTEST .* result=${c#*:} " "$tmp" || vt_bad="$vt_bad '${c%:*}'"
done
[ -e "$vt/scratch/left-over" ] && vt_bad="$vt_bad scratch-not-emptied"
if [ -z "$vt_bad" ]; then ok "vm_selftest observes pass, fail, skip, timeout and a crash apart, and runs nothing it omits"
else notok "vm_selftest observations" "wrong result for:$vt_bad"; fi
rm -rf "$vt"
# Every fix of tests/vm-selftests applies to the tree's selftests (the build
# applies them to a copy, scripts/build/vmtests.sh).
if [ -d "$KSRC/tools/testing/selftests/vm" ]; then
	vs_bad=""
	for p in tests/vm-selftests/*.patch; do
		patch -s -p1 -N --dry-run -d "$KSRC" <"$p" >/dev/null 2>&1 || vs_bad="$vs_bad $(basename "$p") (does not apply)"
		# The series' ignores: a fix taken from upstream names its commit,
		# which a tree without upstream's history cannot look up.
		(cd "$KSRC" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict -q --no-summary --no-tree \
			--ignore "${CHECKPATCH_IGNORE:-UNKNOWN_COMMIT_ID,EMBEDDED_FILENAME}" "$top/$p") >/dev/null 2>&1 ||
			vs_bad="$vs_bad $(basename "$p") (checkpatch --strict)"
	done
	if [ -z "$vs_bad" ]; then ok "every fix of tests/vm-selftests applies to the tree's selftests, checkpatch --strict clean"
	else notok "fixes of tests/vm-selftests" "$vs_bad"; fi
else
	skip "fixes of tests/vm-selftests" "no tree at $KSRC (make tree)"
fi
# Every benchmark variant (benchmarks/variants/) applies to the series and
# is checkpatch --strict clean, and its .conf names the variant it changes.
if [ -d "$KSRC/mm" ]; then
	bv_bad=""
	for p in benchmarks/variants/*.patch; do
		[ -f "$p" ] || continue
		patch -s -p1 -N --dry-run -d "$KSRC" <"$p" >/dev/null 2>&1 || bv_bad="$bv_bad $(basename "$p") (does not apply)"
		(cd "$KSRC" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict -q --no-summary --no-tree --no-signoff "$top/$p") >/dev/null 2>&1 ||
			bv_bad="$bv_bad $(basename "$p") (checkpatch --strict)"
		grep -Eq '^VARIANT_CONFIG=(cow|nocow|debug)$' "${p%.patch}.conf" 2>/dev/null ||
			bv_bad="$bv_bad $(basename "${p%.patch}.conf") (no VARIANT_CONFIG)"
	done
	if [ -z "$bv_bad" ]; then ok "every benchmark variant applies to the series, checkpatch --strict clean"
	else notok "benchmark variants" "$bv_bad"; fi
else
	skip "benchmark variants" "no tree at $KSRC (make tree)"
fi

# 12. a run that dies before it starts still counts as a failed run.
rc_counts=$(mktemp)
(COWTEST_COUNTS=$rc_counts run_counted cow no-such-profile >/dev/null 2>&1)
if grep -q '^fail run cow-no-such-profile ' "$rc_counts"; then ok "a run that never starts is counted as failed"
else notok "a run that never starts is counted as failed" "no fail record"; fi
rm -f "$rc_counts"

# 13. scripts/report/judge.py, the one judge, on made-up runs (tests/host/fake_run.py:
# every planned program passes and every scenario row of the profile reports
# exactly its expectation) with one hole reopened at a time: each must fail
# with the name of what broke, and a clean run must pass.
jd=$(mktemp -d)
jd_case() { # WANT-RC WANT-OUTPUT WHAT RUNS [MUTATION] [-- JUDGE-ARGS...]
	want_rc=$1 want_out=$2 what=$3 runs=$4
	shift 4
	mut=
	if [ $# -gt 0 ] && [ "$1" != -- ]; then mut=$1; shift; fi
	[ "${1:-}" != -- ] || shift
	rm -rf "${jd:?}"/*
	for vp in $runs; do
		python3 tests/host/fake_run.py "$jd" "${vp%%:*}" "${vp#*:}" ${mut:+"$mut"}
	done
	out=$(python3 scripts/report/judge.py "$jd" "$@" 2>&1)
	rc=$?
	if [ $rc = "$want_rc" ] && echo "$out" | grep -q -F -- "$want_out"; then ok "judge: $what"
	else notok "judge: $what" "exit $rc: $(echo "$out" | head -n 3 | tr '\n' ' ' | cut -c1-200)"; fi
}
all_runs="cow:base nocow:base cow:thp cow:pin cow:swap cow:pmem cow:flip cow:bootparam cow:vmtests stock:vmtests cow:upstream stock:upstream"
jd_case 0 " 0 failed," "a clean run of every profile passes" "$all_runs" -- --runs "$all_runs"
jd_case 1 "fail: cow-base mapcount/-: vmsplice-4k: expected ok, did not run" \
	"a scenario cell that never ran fails by name" cow:base drop=vmsplice-4k
jd_case 1 "fail: nocow-base exclusive/-: vmsplice-4k: expected ok, did not run" \
	"a cell that never ran on a kernel without the sysctl fails" nocow:base drop=vmsplice-4k
jd_case 1 "ksm-last: outcome copy (expected reuse)" "a mismatched outcome fails" \
	cow:base outcome=ksm-last:copy
jd_case 1 "vmsplice-4k: 32 decisions in all (want 16..22)" \
	"a decision the row does not name fails on the total" cow:base counter=vmsplice-4k:cow_reuse_exclusive=16
jd_case 1 "vmsplice-4k: cow_copy_refcount +32 (want 16..22)" \
	"a counter past its slack fails" cow:base counter=vmsplice-4k:cow_copy_refcount=32
jd_case 1 "fork-partial-thp-pmd: cow_pmd_split +2 (want 1..1)" \
	"a PMD decision stays exact under the row's slack" cow:thp counter=fork-partial-thp-pmd:cow_pmd_split=2
jd_case 0 " 0 failed," "a stray 4 KiB decision inside the slack of a PMD row passes" \
	cow:thp counter=fork-partial-thp-pmd:cow_reuse_exclusive=1
jd_case 1 "the kernel reported no cow_* counters" \
	"a cow kernel without cow_* counters fails its counter rows" cow:base counters=missing
jd_case 1 "fail: cow-base mapcount/smoke: -: planned by the profile, did not run" \
	"a program the profile plans that never ran fails" cow:base noprog=smoke
# The plan is the command line the host booted with: make soak's run of the
# flip profile's flipstress group alone is complete, and a group the
# command line asks for that never ran still fails.
jd_case 0 " 0 failed," "a run whose command line narrows the profile's groups is judged by them" \
	cow:flip "noprog=stap_check+cmdline=cowtest.groups=flipstress"
jd_case 1 "fail: cow-flip exclusive/stap_check: -: planned by the profile, did not run" \
	"a program of the command line's groups that never ran fails" cow:flip noprog=stap_check
jd_case 1 "skipped (fake) and no rule in tests/expect/skips.tsv expects it" \
	"a skip no rule expects fails" cow:base skip=smoke
# The runner's "# TAINT" line (guest/init.sh): a taint bit that appeared
# while a program ran fails that program by name; the out-of-tree and
# unsigned module bits (O, E: cowpin.ko, systemtap) do not.
jd_case 1 "fail: cow-base exclusive/smoke: taint: the kernel was tainted while it ran: W (new bits 0x200" \
	"a program during which the kernel was tainted (W) fails by name" cow:base taint=smoke:4096:4608
jd_case 0 " 0 failed," "a module load's taint (O, E) during a program is no failure" cow:base taint=smoke:0:12288
# An expected failure must be the test's own exit 1, not a crash. No row
# expects a failure now (split_huge_page_test has its fix): a copy of the
# expectations gets one.
rm -rf "$jd.vexp" && mkdir -p "$jd.vexp" && cp tests/expect/* "$jd.vexp/"
printf 'all\tkhugepaged\tfail\ta made-up expected failure\n' >>"$jd.vexp/vm-selftests.tsv"
jd_case 1 "exit status 139 is not the test's own (1)" \
	"an expected selftest failure that crashed fails" "cow:vmtests stock:vmtests" "expect=$jd.vexp+vmfail=khugepaged:139" -- --expect "$jd.vexp"
# A failed cell quotes what the guest printed for it (a CI log is often
# all a reader gets), numbered as in the run's TAP file.
jd_case 1 "output of cow-vmtests exclusive/vm_selftest_khugepaged (cow-vmtests.tap lines " \
	"a failed cell quotes the guest's output of its program" cow:vmtests vmresult=khugepaged:fail
jd_case 1 "  | # VMSELFTEST policy=exclusive sysctl=yes result=fail" \
	"the quote ends at the failed case's own line" cow:vmtests vmresult=khugepaged:fail
jd_case 1 "new case: ran under another policy, not this one" \
	"an upstream case missing under one policy fails" cow:upstream "upstream=new case"
jd_case 1 "fail: cow-thp -/-: -: no results: the run did not start" \
	"an expected run with no results fails" cow:base -- --runs "cow:base cow:thp"
# The scenario table (tests/expect/backings.tsv against a profile's
# FEATURES): a cell skipped for a feature its profile has fails; one the
# profile lacks is skipped by rule.
jd_case 1 "fork-write-thp-pmd: skipped (needs thp), but profile thp has thp" \
	"a table cell skipped for a feature its profile has fails" cow:thp needs=fork-write-thp-pmd:thp
jd_case 0 " 0 failed, 3 skipped by rule" \
	"a table cell whose need the profile lacks is skipped by rule" cow:base needs=fork-write-swapped:swap
# 6.1's selftests: exclusive is compared with unpatched 6.1 on every
# invocation when the runs judged name stock:vmtests (make test-stock); a
# named unpatched run without results fails, and runs without one (make
# test) are a skip that says so, not a pass.
jd_case 1 "not compared with unpatched 6.1: no stock:vmtests results" \
	"exclusive with its named unpatched 6.1 run missing fails" cow:vmtests -- --runs "cow:vmtests stock:vmtests"
jd_case 0 " 0 failed, 21 skipped by rule" \
	"exclusive with no unpatched run among the runs judged is a skip" cow:vmtests -- --runs cow:vmtests
if grep -q '"suite": "vm-selftest/unpatched", "verdict": "skip", "why": "not compared with the unpatched kernel: stock:vmtests is not among' "$jd/judgement.jsonl"; then
	ok "judge: the skip names the unpatched run it lacks"
else notok "judge: the skip names the unpatched run it lacks" "no such cell in $jd/judgement.jsonl"; fi
jd_case 1 "khugepaged: exclusive fail, unpatched 6.1 pass" \
	"exclusive and unpatched 6.1 differing on an invocation fails" "cow:vmtests stock:vmtests" vmresult=khugepaged:fail
# The hugetlb userfaultfd invocations are omitted under refcount and
# mapcount (their rows say why), never under exclusive, whose result
# unpatched 6.1 must match.
jd_case 1 "fail: cow-vmtests exclusive/vm_selftest_userfaultfd_hugetlb_32_16: userfaultfd hugetlb 32 16: result omitted (rc 0), expected pass" \
	"an invocation omitted under exclusive fails" "cow:vmtests stock:vmtests" "vmresult=userfaultfd hugetlb 32 16:omitted"
jd_case 1 "fail: cow-vmtests refcount/vm_selftest_userfaultfd_hugetlb_32_16: userfaultfd hugetlb 32 16: result pass (rc 0), expected omitted" \
	"an invocation its row omits that ran anyway (a stale image) fails" "cow:vmtests stock:vmtests" "vmresult=userfaultfd hugetlb 32 16:pass"
# Upstream's suite: exclusive must be compared with unpatched 6.1 case by
# case, so that a failure upstream.tsv calls 6.1's own ("all" rows) and a
# skip skips.tsv allows every variant are unpatched 6.1's too.
jd_case 1 "exclusive fail, unpatched 6.1 pass; tests/expect/upstream.tsv:" \
	"a failure called 6.1's own that unpatched 6.1 does not have fails" "cow:upstream stock:upstream" \
	"stockresult=R/O longterm GUP pin ... with memfd:pass"
jd_case 1 "exclusive skip, unpatched 6.1 pass; tests/expect/skips.tsv:" \
	"a skip called 6.1's that unpatched 6.1 does not have fails" "cow:upstream stock:upstream" \
	"upresult=Basic COW after fork() when collapsing after fork() (fully shared):skip+stockresult=Basic COW after fork() when collapsing after fork() (fully shared):pass"
jd_case 0 " 0 failed," "unpatched 6.1 skipping a pin case for want of the series' test ioctls is not compared" \
	"cow:upstream stock:upstream" "stockresult=R/O longterm GUP pin ... with memfd:skip"
if grep -q '"case": "upstream_suite_cow: R/O longterm GUP pin ... with memfd", "policy": "exclusive", "program": "-", "run": "cow-upstream", "suite": "upstream/unpatched", "verdict": "skip", "why": "not compared: unpatched 6.1 skipped it' "$jd/judgement.jsonl"; then
	ok "judge: a case unpatched 6.1 could not run is reported as not compared, with the claim it leaves unmeasured"
else notok "judge: a case unpatched 6.1 could not run is reported as not compared" "no such cell in judgement.jsonl"; fi
# XFAIL (upstream's "expected" leak) is an observation: it needs a row of
# tests/expect/upstream-xfail.tsv like a failure needs one of upstream.tsv,
# and a row that expects it fails a case that passes.
xc="Basic COW after fork() when collapsing after fork() (fully shared)"
jd_case 1 "XFAIL (a leak upstream's test expects) with no upstream-xfail.tsv row" \
	"an XFAIL without its row fails" cow:upstream "upresult=$xc:xfail"
rm -rf "$jd.exp" && mkdir -p "$jd.exp" && cp tests/expect/* "$jd.exp/"
printf 'all\tcow\t%s\ta leak this canned kernel has\n' "$xc" >>"$jd.exp/upstream-xfail.tsv"
jd_case 0 " 0 failed," "an XFAIL its row expects is judged as the leak it is" cow:upstream "expect=$jd.exp+upresult=$xc:xfail" -- --expect "$jd.exp"
if grep -q '"verdict": "pass", "why": "leak, as expected: a leak this canned kernel has"' "$jd/judgement.jsonl"; then
	ok "judge: an expected XFAIL's cell says leak"
else notok "judge: an expected XFAIL's cell says leak" "no such cell in judgement.jsonl"; fi
jd_case 1 "expected to XFAIL (a leak this canned kernel has), did not" \
	"a case its XFAIL row expects to leak that passes fails" cow:upstream "expect=$jd.exp+upresult=$xc:pass" -- --expect "$jd.exp"
# The reports are written from the judged results alone.
jd_case 0 " 0 failed," "the upstream and selftest reports come from results.jsonl" "cow:upstream cow:vmtests stock:vmtests"
if python3 scripts/report/upstream_report.py "$jd" >"$tmp" 2>&1 && grep -q '^| refcount | cow | ' "$jd/upstream.md" &&
	python3 scripts/report/vmtests_report.py "$jd" >>"$tmp" 2>&1 && grep -q '^| `khugepaged` | pass 1s | pass 1s' "$jd/vm-selftests.md"; then
	ok "upstream.md and vm-selftests.md from results.jsonl and judgement.jsonl"
else notok "upstream.md and vm-selftests.md from results.jsonl" "$(head -n 3 "$tmp" | tr '\n' ' ')"; fi
# The host decides: the same results judged against an edited expectation
# fail that cell, with no image rebuilt.
jd_exp() { # a fresh copy of tests/expect in $jd.exp, to break
	rm -rf "$jd.exp" && mkdir -p "$jd.exp" && cp tests/expect/* "$jd.exp/"
}
jd_exp
sed -i 's/^\(ksm-last\tbase\tmapcount\t\)reuse/\1copy/' "$jd.exp/scenarios.tsv"
jd_case 1 "ksm-last: outcome reuse (expected copy)" \
	"an edited expectation is judged without rebuilding the image" cow:base -- --expect "$jd.exp"
# A broken expectation file is refused with its row named, not judged.
for bad in "vmsplice-4k	nosuch	exclusive	ok	-	r:no profile qemu-profiles/nosuch.profile" \
	"vmsplice-4k	base	exclusive	ok	cow_copy_refcount~16	r:bad counter constraint" \
	"vmsplice-4k	base	exclusive	ok	cow_copy_refcount=16	r:overlapping rows: both decide scenario vmsplice-4k on profile base, policy exclusive, kernel 6.1" \
	"vmsplice-4k	base	nosuch	ok	-	r:unknown policy" \
	"ro-pin-4k	base	exclusive	ok	-	r:profile base lacks pin" \
	"ksm-last	pin	exclusive	copy	-	r:profile pin does not run scn_ksm" \
	"vmsplice-4k	thp	exclusive	ok	cow_copy_refcount=16,slack=16	r:slack 16 is not smaller than the count it guards (cow_copy_refcount=16)" \
	"vmsplice-4k	thp	exclusive	ok	cow_gup_break<=0,slack=1	r:slack 1 is not smaller than the count it guards (at most 0 decisions in all)"; do
	jd_exp
	echo "${bad%%:*}" >>"$jd.exp/scenarios.tsv"
	if python3 scripts/report/judge.py "$jd" --expect "$jd.exp" >"$tmp" 2>&1; then
		notok "judge: refuses an expectation with ${bad#*:}" "it judged"
	elif grep -q -F "${bad#*:}" "$tmp"; then ok "judge: refuses an expectation with ${bad#*:}"
	else notok "judge: refuses an expectation with ${bad#*:}" "$(head -n 1 "$tmp")"; fi
done
# Only refcount and mapcount may omit a selftest invocation.
jd_exp
printf 'exclusive\tuserfaultfd anon 20 16\tomitted\tfor time\n' >>"$jd.exp/vm-selftests.tsv"
if python3 scripts/report/judge.py "$jd" --expect "$jd.exp" >"$tmp" 2>&1; then
	notok "judge: refuses a selftest omitted under exclusive" "it judged"
elif grep -q -F 'only a refcount or mapcount row may say "omitted", not exclusive' "$tmp"; then
	ok "judge: refuses a selftest omitted under exclusive"
else notok "judge: refuses a selftest omitted under exclusive" "$(head -n 1 "$tmp")"; fi
# A "*" row covers every profile whose groups run its scenario's program
# (tests/expect/programs.tsv), and each of those cells must run: a typo in
# a "*" row's scenario made its cells vanish with 0 failures (the image,
# built from the same rows, no longer ran them), and a "*" cell that did
# not run on one profile passed when it ran on another.
jd_exp
sed -i 's/^gupref-clear-refs\t\*\texclusive\t/gupref-clear-ref\t*\texclusive\t/' "$jd.exp/scenarios.tsv"
jd_case 1 "scenario gupref-clear-ref is no program's" \
	"a \"*\" row whose scenario is misspelled is refused" cow:base drop=gupref-clear-refs/exclusive -- --expect "$jd.exp"
jd_case 1 "fail: cow-swap exclusive/-: gupref-clear-refs: expected reuse, did not run" \
	"a \"*\" row's cell that did not run on one of its profiles fails" cow:swap drop=gupref-clear-refs
# Overlapping rows are refused, naming both: a "*" row before a profile's
# own row decided its cells, so that ksm-last under mapcount observing copy
# passed.
jd_exp
sed -i 's/^\(scenario\tprofile\t.*\)$/\1\nksm-last\t*\tmapcount\tcopy\t-\ta "*" row before the profile'"'"'s own/' "$jd.exp/scenarios.tsv"
ln=$(grep -n -P '^ksm-last\tbase\tmapcount\t' "$jd.exp/scenarios.tsv" | cut -d: -f1)
jd_case 1 "scenarios.tsv:$(grep -n -P '^ksm-last\t\*\t' "$jd.exp/scenarios.tsv" | cut -d: -f1) and $jd.exp/scenarios.tsv:$ln: overlapping rows" \
	"a \"*\" row that overlaps a profile's own row is refused, naming both lines" \
	cow:base outcome=ksm-last:copy -- --expect "$jd.exp"
# Rows have a kernel line ("kernel" column, 6.1 without one), and a run is
# judged by the rows of its own (uname -r in its log): a 6.12 row neither
# replaces nor is required of a 6.1 run, the 6.1 row is still required
# there, and a 6.12 run is judged by the 6.12 rows alone.
jd_exp
awk -F '\t' -v OFS='\t' '/^#/ || NF < 5 { print; next }
	$1 != "scenario" && NF > 6 { next }
	$1 == "scenario" { NF = 6 }
	{ $3 = $3 OFS ($1 == "scenario" ? "kernel" : "6.1"); print }
	$1 == "ksm-last" && $2 == "base" && $3 ~ /^mapcount/ { print "ksm-last", "base", "mapcount", "6.12", "copy", "cow_ksm=16", "a later kernel" }' \
	tests/expect/scenarios.tsv >"$jd.exp/scenarios.tsv"
jd_case 0 " 0 failed," "a 6.12 row does not apply to a 6.1 run" cow:base -- --expect "$jd.exp"
jd_case 1 "fail: cow-base mapcount/-: ksm-last: expected reuse, did not run" \
	"a 6.1 row with no 6.1 result is required though a 6.12 row exists" cow:base drop=ksm-last -- --expect "$jd.exp"
jd_case 0 " 0 failed," "a 6.12 run is judged by the 6.12 rows alone" \
	cow:base "expect=$jd.exp+kernel=6.12.3" -- --expect "$jd.exp"
# skips.tsv and upstream.tsv name a row's line in an optional last column.
printf '*\t*\tall\t^[a-z]+/smoke: \ta 6.12 skip\t6.12\n' >>"$jd.exp/skips.tsv"
jd_case 1 "skipped (fake) and no rule in tests/expect/skips.tsv expects it" \
	"a 6.12 skip row does not excuse a 6.1 run's skip" cow:base skip=smoke -- --expect "$jd.exp"
jd_case 0 " 0 failed," "a 6.12 skip row excuses a 6.12 run's skip" \
	cow:base "expect=$jd.exp+kernel=6.12.3+skip=smoke" -- --expect "$jd.exp"
# Counters: a name a row gives must be one of the kernel's cow_* counters
# (tests/expect/counters.txt; "cow_gup_brk<=0" passed whatever happened),
# and a counter a row names that the RESULT line lacks fails the cell
# instead of reading as 0 (the guest prints every cow_* counter).
jd_exp
sed -i 's/^\(vmsplice-hugetlb\tbase\texclusive\t[a-z]*\t\)cow_gup_break<=0/\1cow_gup_brk<=0/' "$jd.exp/scenarios.tsv"
jd_case 1 "unknown counter cow_gup_brk" "a row naming an unknown counter is refused" \
	cow:base slack=2 -- --expect "$jd.exp"
jd_case 1 "vmsplice-hugetlb: cow_gup_break absent from the RESULT line" \
	"a counter the row names that the RESULT line lacks fails" cow:base "nocounter=vmsplice-hugetlb:cow_gup_break+slack=2"
# The largefolio policy's counters exist only with CONFIG_COW_POLICY_MM_ID
# (counters.txt: "not:nommid"): a 6.12 kernel built without it lacks them and
# passes, one built with it that lacks them does not.
jd_case 0 " 0 failed," "a 6.12 kernel without the MM owner tracking (nommid) passes without cow_reuse_owner" \
	nommid:base kernel=6.12.3
jd_case 1 "vmsplice-4k: cow_reuse_owner absent from the RESULT line" \
	"a 6.12 cow kernel without cow_reuse_owner fails" cow:base "kernel=6.12.3+nocounter=vmsplice-4k:cow_reuse_owner"
# A run that plans nothing, or a directory with nothing to judge, fails.
jd_case 1 "the run plans nothing (profile base: groups \"\"" \
	"a run whose command line leaves no program group fails" cow:base "cmdline=cowtest.groups="
rm -rf "${jd:?}"/* && : >"$jd/results.jsonl"
out=$(python3 scripts/report/judge.py "$jd" 2>&1)
if [ $? = 1 ] && echo "$out" | grep -q "nothing was judged"; then ok "judge: a results directory with no run fails"
else notok "judge: a results directory with no run fails" "$(echo "$out" | tail -n 1)"; fi
# The policy: what the runner set, what the kernel then reported
# (guest/init.sh, "kernel_policy=") and what a RESULT line says must agree.
jd_case 1 "refcount/smoke: -: the runner set refcount, the kernel reported exclusive" \
	"a program whose kernel reported another policy than the runner set fails" cow:base kpolicy=refcount:exclusive
jd_case 1 "mapcount/smoke: -: the runner did not report the kernel's policy" \
	"a program without the kernel's policy fails" cow:base kpolicy=mapcount:-
jd_case 1 "vmsplice-4k: the RESULT line says policy exclusive, its program ran under refcount" \
	"a RESULT line of another policy than its block fails" cow:base rpolicy=vmsplice-4k:exclusive
# The slack is the row's (slack=, host side), not the guest's: a RESULT line
# saying slack=1000 let 500 copies pass a "=16" row.
jd_case 1 "vmsplice-4k: cow_copy_refcount +500 (want 16..22)" \
	"a guest's slack=1000 does not widen a row's count" cow:base "slack=1000+counter=vmsplice-4k:cow_copy_refcount=500"
jd_exp
sed -i 's/^\(vmsplice-4k\tbase\texclusive\tok\t\)cow_copy_refcount=16,slack=6/\1cow_copy_refcount=16,slack=1000/' "$jd.exp/scenarios.tsv"
jd_case 1 "slack 1000 is not smaller than the count it guards (cow_copy_refcount=16)" \
	"a row whose slack=1000 guards a count of 16 is refused" cow:base slack=1000 -- --expect "$jd.exp"
# tests/expect/counters.txt is each line's tree's list: the cow_* strings
# of its mm/vmstat.c, the names without kernel lines plus the line's own
# (checked for every line whose tree is there; a list with a name
# misspelled differs).
cnt_diff() { # LIST TREE LINE: the names LIST (for LINE) and TREE's mm/vmstat.c do not share
	sed 's/#.*//' "$1" | awk -v l="$3" 'NF == 1 { print $1 } NF > 1 { for (i = 2; i <= NF; i++) if ($i == l) print $1 }' |
		sort >"$jd.l"
	grep -o '"cow_[a-z0-9_]*"' "$2/mm/vmstat.c" | tr -d '"' | sort >"$jd.t"
	comm -3 "$jd.l" "$jd.t" | tr -d '\t' | tr '\n' ' '
}
for lt in $LINE_TREES; do
	cl=${lt%%=*} ct=${lt#*=}
	if [ -f "$ct/mm/vmstat.c" ]; then
		cd_=$(cnt_diff tests/expect/counters.txt "$ct" "$cl")
		sed 's/^cow_gup_break$/cow_gup_brk/' tests/expect/counters.txt >"$jd.c"
		cd_bad=$(cnt_diff "$jd.c" "$ct" "$cl")
		if [ -n "$cd_" ]; then notok "counters.txt is the $cl tree's cow_* counters" "not shared: $cd_"
		elif [ "$cd_bad" != "cow_gup_break cow_gup_brk " ]; then notok "counters.txt check ($cl)" "a misspelled list gave '$cd_bad'"
		else ok "counters.txt is the $cl tree's cow_* counters (mm/vmstat.c); a misspelled copy is not"; fi
		rm -f "$jd.l" "$jd.t" "$jd.c"
	else
		skip "counters.txt is the $cl tree's cow_* counters" "no tree at $ct (make tree KERNEL=$cl)"
	fi
done
# Every scenario of tests/expect/programs.tsv is a string of its program.
pg_bad=$(awk -F '\t' '!/^#/ && NF >= 2 && $1 != "scenario" { split($2, w, " "); print $1, w[1] }' tests/expect/programs.tsv |
	while read -r sc prog; do
		grep -q -F "\"$sc\"" "tests/guest/$prog.c" 2>/dev/null || printf ' %s (%s)' "$sc" "$prog"
	done)
if [ -z "$pg_bad" ]; then ok "programs.tsv: every scenario is a string of its program's source"
else notok "programs.tsv: every scenario is a string of its program's source" "not found:$pg_bad"; fi
# The scenario table's cases and backings are the ones backings.tsv names.
c_names=$(sed -n 's/^\t{ "\([a-z0-9-]*\)", \(back\|case\)_[a-z0-9_]* },$/\2 \1/p' tests/guest/scn_backings.c |
	sed 's/^back /backing /' | sort | tr '\n' ' ')
t_names=$(awk -F '\t' '/^(case|backing)\t/ { print $1, $2 }' tests/expect/backings.tsv | sort | tr '\n' ' ')
if [ -n "$c_names" ] && [ "$c_names" = "$t_names" ]; then ok "scn_backings: its cases and backings are backings.tsv's"
else notok "scn_backings: its cases and backings are backings.tsv's" "program '$c_names', table '$t_names'"; fi
# The total of decisions counts what the guest counts.
guest_dec=$(sed -n '/cow_decision_counters\[\] = {/,/};/p' tests/guest/lib/cowtest.c |
	grep -o '"cow_[a-z_]*"' | tr -d '"' | tr '\n' ' ')
host_dec=$(python3 -c 'import sys; sys.path.insert(0, "scripts/report"); import judge; print(" ".join(judge.DECISIONS))')
if [ "$guest_dec" = "$host_dec " ]; then ok "judge: its decision counters are the guest's"
else notok "judge: its decision counters are the guest's" "guest '$guest_dec', judge '$host_dec'"; fi
# The guest's RESULT line (tests/guest/lib/scn.c, scn_end(), built here with
# tests/host/scn_result.c on two made-up vmstat snapshots) carries every
# cow_* counter, zeros included, and no slack of the guest's.
sr_out=$(gcc -O2 -Wall -Wextra -Werror -Itests/guest/lib -o "$jd.sr" tests/host/scn_result.c \
	tests/guest/lib/scn.c tests/guest/lib/cowtest.c 2>&1 && COWTEST_COW_POLICY=1 "$jd.sr" 2>&1)
case $sr_out in
*"# RESULT scenario=vmsplice-4k "*" counters=yes cow_ksm=0 cow_reuse_exclusive=0 cow_copy_refcount=16 cow_gup_break=0 detail=1"*)
	case $sr_out in
	*slack=*) notok "scn_end: the RESULT line" "it still says slack=: $(echo "$sr_out" | head -n 1)" ;;
	*) ok "scn_end: the RESULT line has every cow_* counter, zeros included, and no slack=" ;;
	esac ;;
*) notok "scn_end: the RESULT line has every cow_* counter, zeros included" "$(echo "$sr_out" | head -n 2 | tr '\n' ' ' | cut -c1-200)" ;;
esac
rm -f "$jd.sr"
# flipstress's trace chain check (tests/guest/flipstress.c, built here with
# tests/host/flip_trace.c on made-up trace_pipe lines): two changes with one
# timestamp that came out of order are taken in the order that chains, any
# other break counts.
# host_c_case N WHAT SOURCE [LIBS]: build SOURCE with the guest's scn.c and
# cowtest.c on the host, run it, and pass when it prints N "ok - " lines.
host_c_case() {
	hc_out=$(gcc -O2 -Wall -Wextra -Werror -Itests/guest/lib -Itests/guest -Idriver/cowpin -o "$jd.hc" \
		"$3" tests/guest/lib/scn.c tests/guest/lib/cowtest.c ${4:-} 2>&1 && "$jd.hc" 2>&1)
	hc_rc=$?
	if [ "$hc_rc" = 0 ] && [ "$(echo "$hc_out" | grep -c '^ok - ')" = "$1" ]; then ok "$2"
	else notok "$2" "$(echo "$hc_out" | grep -v '^ok - ' | grep -v '^#' | head -n 3 | tr '\n' ' ' | cut -c1-200)"; fi
	rm -f "$jd.hc"
}
host_c_case 5 "flipstress: the trace chain check on made-up lines (a chain, a one-timestamp swap, 3 breaks)" \
	tests/host/flip_trace.c -lpthread
# The mTHP cells' large-folio checks (tests/guest/lib/scn.c, built here with
# tests/host/scn_folio.c on made-up pfns and kpageflags): whole folios of
# the backing's size or the cell is "error", and swapin-rw's "error" when
# an mTHP backing comes back in small pages (or a 4 KiB one in large);
# and tests/guest/lib/thpknob.h's reading of a THP knob's [selected] word.
host_c_case 22 "scn: the large-folio checks of the mTHP cells (18 made-up shapes) and thpknob.h (4 knobs)" \
	tests/host/scn_folio.c
# make test's guests take turns (scripts/flow/test.sh): guest_overlap
# (scripts/lib.sh) over run-qemu.sh's QEMU spans finds two that did not.
printf '10 20 a\n20 30 b\n31 40 c\n' >"$jd.sp"
printf '10 50 a\n20 30 b\n55 60 c\n' >"$jd.sp2"
if [ -z "$(guest_overlap "$jd.sp")" ] && [ "$(guest_overlap "$jd.sp2")" = "a (10-50) and b (20-30)" ]; then
	ok "guest_overlap: runs that took turns pass, a run inside another's span is named"
else
	notok "guest_overlap" "took turns: '$(guest_overlap "$jd.sp")'; inside: '$(guest_overlap "$jd.sp2")'"
fi
rm -f "$jd.sp" "$jd.sp2"
rm -rf "$jd" "$jd.exp" "$jd.vexp"

# 14. scripts/report/results.py, the one parser of the runs' TAP: a run whose
# programs all planned and printed their points passes and every case is in
# results.jsonl; a program that printed nothing, or fewer points than it
# planned, fails by name.
rp=$(mktemp -d)
rp_tap() { # FILE: a fake runner TAP; the program "two" prints POINTS
	{
		echo "TAP version 13"
		echo "# policy=exclusive test=two"
		printf '    TAP version 13\n    1..2\n'
		printf '    # RESULT scenario=x outcome=ok\n    ok 1 - x: outcome ok\n'
		case ${2:-} in
		short) ;;
		lowerskip) printf '    ok 2 - x: counters # skip no counters\n' ;;
		unnumbered) printf '    not ok - x: counters\n' ;;
		bail) printf '    Bail out! no /proc/vmstat\n    ok 2 - x: counters\n' ;;
		*) printf '    ok 2 - x: counters\n' ;;
		esac
		echo "ok 1 - exclusive/two"
		echo "# policy=exclusive test=vm_selftest_a"
		echo "      ok 1 nested"
		echo "    # VMSELFTEST policy=exclusive sysctl=yes result=pass expected=pass rc=0 secs=1 name=a"
		echo "ok 2 - exclusive/vm_selftest_a"
		if [ "${2:-}" = silent ]; then
			echo "# policy=exclusive test=quiet"
			echo "ok 3 - exclusive/quiet"
		fi
		case ${2:-} in
		noplan) ;;
		runnerbail) echo "Bail out! guest setup failed"; echo "1..2" ;;
		runnernotok) echo "not ok - exclusive/three"; echo "1..2" ;;
		*) echo "1..2" ;;
		esac
	} >"$rp/$1"
}
rp_case() { # WANT-RC WANT-OUTPUT WHAT
	out=$(python3 scripts/report/results.py "$rp" 2>&1)
	rc=$?
	if [ $rc = "$1" ] && echo "$out" | grep -q -F -- "$2"; then ok "results.py: $3"
	else notok "results.py: $3" "exit $rc: $(echo "$out" | tr '\n' ' ' | cut -c1-160)"; fi
	rm -f "$rp"/*
}
rp_tap cow-base.tap
rp_case 0 "3 cases observed (3 ok, 0 not ok, 0 skipped) of 2 program runs in 1 guest runs" "every case of a clean run, adapters included"
rp_tap cow-base.tap short
rp_case 1 "problem: cow-base exclusive/two: planned 2 points, printed 1" "a program that printed fewer points than planned fails"
rp_tap cow-base.tap silent
rp_case 1 "problem: cow-base exclusive/quiet: printed no TAP" "a program that printed nothing fails"
rp_tap cow-base.tap lowerskip
rp_case 0 "3 cases observed (2 ok, 0 not ok, 1 skipped)" "a lowercase '# skip' is a skip, not a pass"
rp_tap cow-base.tap unnumbered
rp_case 0 "3 cases observed (2 ok, 1 not ok, 0 skipped)" "an unnumbered 'not ok' is a failed point"
rp_tap cow-base.tap bail
rp_case 1 "problem: cow-base exclusive/two: bailed out: no /proc/vmstat" "a program's 'Bail out!' fails it"
rp_tap cow-base.tap noplan
rp_case 1 "problem: cow-base: the runner printed no plan (2 points)" "a runner without its plan fails"
rp_tap cow-base.tap runnerbail
rp_case 1 "problem: cow-base: the runner bailed out: guest setup failed" "the runner's 'Bail out!' fails the run"
rp_tap cow-base.tap runnernotok
rp_case 1 "problem: cow-base: the runner planned 2 points, printed 3" "an unnumbered runner 'not ok' is a point (the plan of 2 no longer holds)"
rp_case 1 "0 cases observed" "a run directory without guest runs fails"
rm -rf "$rp"

# 14b. guest/cowtest-timeout, the runner's per-test timeout, built for the
# host: a program's status passes through, a signal is 128 + N, and one
# that outlives its time (even ignoring SIGTERM) ends with 124.
ctt=$(mktemp)
if ! cc -O2 -o "$ctt" guest/cowtest-timeout.c 2>"$tmp"; then
	notok "cowtest-timeout: builds on the host" "$(head -n 3 "$tmp" | tr '\n' ' ')"
else
	"$ctt" 5 /bin/sh -c 'exit 3'; r1=$?
	"$ctt" 5 /bin/sh -c 'kill -9 $$'; r2=$?
	"$ctt" 1 /bin/sh -c 'trap "" TERM; while :; do sleep 1; done'; r3=$?
	"$ctt" 0 /bin/true 2>/dev/null; r4=$?
	if [ "$r1 $r2 $r3 $r4" = "3 137 124 127" ]; then
		ok "cowtest-timeout: exit 3 passes, SIGKILL is 137, a program ignoring SIGTERM past 1 s ends with 124, 0 s is refused"
	else notok "cowtest-timeout" "statuses $r1 $r2 $r3 $r4, want 3 137 124 127"; fi
fi
rm -f "$ctt"

# 14c. scripts/build/disk.sh, make test's disk check: it passes with room,
# fails naming the free and the needed MiB without it (a line whose tree is
# not there yet adds its fresh figure), and refuses figures that are not
# numbers.
dk=$(mktemp -d)
dk_have=$(df -Pk "$dk" | awk 'NR == 2 { print int($4 / 1024) }')
sh scripts/build/disk.sh "$dk/b" 1 "$dk/b/t=1" >/dev/null 2>&1; d1=$?
sh scripts/build/disk.sh "$dk/b" 1 "$dk/b/t=$((dk_have + 1000))" >/dev/null 2>"$tmp"; d2=$?
grep -q "needs about $((dk_have + 1001)) MiB" "$tmp" || d2="$d2 (no figures)"
mkdir -p "$dk/c/t/.git"
sh scripts/build/disk.sh "$dk/c" 1 "$dk/c/t=$((dk_have + 1000))" >/dev/null 2>&1; d3=$?
sh scripts/build/disk.sh "$dk/b" 1 "$dk/b/t=1x" >/dev/null 2>&1; d4=$?
if [ "$d1 $d2 $d3 $d4" = "0 1 0 1" ]; then
	ok "disk check: passes with room, fails with the figures without, a built line needs less, bad figures are refused"
else notok "disk check" "statuses $d1 / $d2 / $d3 / $d4, want 0 / 1 / 0 / 1"; fi
rm -rf "$dk"

# 14d. scripts/flow/test.sh (make test) with a line whose TEST_MATRIX is
# empty: the line fails by name, and so does make test (a make that knows
# nothing: every print- is empty, every target succeeds).
em=$(mktemp -d)
printf '#!/bin/sh\nfor a; do case $a in print-*) echo ;; esac; done\nexit 0\n' >"$em/make"
chmod +x "$em/make"
out=$(RESULTS=$em/r BUILD_ROOT=$em/b BUILD=$em/b MAKE=$em/make TEST_KERNELS="6.1 6.12" RUN_ID=empty \
	timeout 120 sh scripts/flow/test.sh 2>&1)
rc=$?
if [ $rc = 1 ] && echo "$out" | grep -q -F "6.12: kernel line 6.12: no runs (its TEST_MATRIX is empty)" &&
	[ "$(echo "$out" | tail -n 1)" = "0 passed, 2 failed, 0 skipped" ]; then
	ok "make test: a kernel line whose matrix is empty fails by name"
else notok "make test: a kernel line whose matrix is empty fails by name" "exit $rc: $(echo "$out" | tail -n 3 | tr '\n' ' ')"; fi
rm -rf "$em"

# 15. scripts/report/mutants_report.py judges a mutant by its failing cells: caught
# only when every failing cell is expected and every expected cell failed.
mr=$(mktemp -d)
mr_mutant() { # NAME RUN-VERDICT [MUTATION...]: a made-up run of one mutant
	_m=$1 _v=$2
	shift 2
	mkdir -p "$mr/$_m"
	python3 tests/host/fake_run.py "$mr/$_m" "$_m" base "$@"
	echo "base $_v" >"$mr/$_m.runs"
	printf '^base mapcount/scn_fake: ksm-last\n^base run$\n' >"$mr/$_m.expect"
}
mr_case() { # WANT-RC WHAT NAME
	python3 scripts/report/mutants_report.py "$mr" "$3" >/dev/null 2>&1
	if [ $? = "$1" ]; then ok "mutants_report: $2"; else notok "mutants_report: $2" "exit status not $1"; fi
}
mr_mutant caught FAILED outcome=ksm-last:copy
mr_case 0 "a mutant failing exactly its expected cells is caught" caught
mr_mutant missed ok
mr_case 1 "a mutant that fails nothing is not caught" missed
mr_mutant partial FAILED
mr_case 1 "an expected cell that did not fail is reported" partial
mr_case 1 "a mutant that never ran is not caught" neverran
mr_mutant stray FAILED outcome=ksm-last:copy counter=vmsplice-4k:cow_copy_refcount=32
mr_case 1 "a mutant that also fails a cell it should not is not caught" stray
rm -rf "$mr"

# 16. the benchmark statistics (scripts/report/benchstat.py, scipy.stats) give the
# textbook values: Student's t quantiles, Welch's test on two samples whose
# t is 2 with 8 degrees of freedom (p 0.0805), the order statistics of the
# median's 95% interval (ranks 4..12 of 15, 40..61 of 100) and the exact
# coverage of [min, max] where no 95% one exists (n 3: 75%, n 5: 93.75%);
# across boots: the exact permutation test (3 against 3 boots wholly apart:
# p = 2/20; 5 against 5 boots, every boot the same: 2/252; on 4 against 6
# boots the p of scipy.stats.permutation_test) and its inverted interval
# (infinite with 3+3 boots; excludes 0 exactly when p < 0.05), the paired
# t-test over boots, the sign test when every boot gave the same difference
# (3 boots: 2/8); Holm's adjustment; the 0.5% verdict's rule (NO only when
# significant after Holm; never from one boot).
if out=$(cd scripts/report && "${SCIPY_PYTHON:-/usr/bin/python3}" -c '
import benchstat as b
w = b.welch([1, 2, 3, 4, 5], [3, 4, 5, 6, 7])
s = b.stats(list(range(1, 16)))
assert abs(b.t_crit(8) - 2.306004) < 1e-5 and abs(b.t_crit(10) - 2.228139) < 1e-5, "t"
assert abs(w["p"] - 0.080516) < 1e-5 and abs(w["d"] - 200 / 3) < 1e-9, w
assert abs(w["half"] - 2.306004 / 3 * 100) < 1e-3, w
assert (s["med_lo"], s["med_hi"]) == (4, 12) and b.median_rank(100) == 39, s
m = b.median_diff([100] * 10, [101] * 10)
assert (m["d"], m["lo"], m["hi"]) == (1.0, 1.0, 1.0), m
x = b.across_boots({1: 1, 2: 2, 3: 3}, {1: 4, 2: 5, 3: 6})
assert abs(x["p"] - 0.1) < 1e-9 and abs(x["d"] - 150) < 1e-9 and not x["exact"], x
assert abs(b.across_boots({1: 1, 2: 2, 3: 3, 4: 4}, {1: 2, 2: 4, 3: 5, 4: 7},
                          paired=True)["p"] - 0.016277) < 1e-5
x = b.across_boots(dict.fromkeys(range(5), 100), dict.fromkeys(range(5), 101))
assert x["exact"] and (x["lo"], x["hi"]) == (1.0, 1.0) and abs(x["p"] - 2 / 252) < 1e-9, x
x = b.across_boots({1: 100, 2: 110, 3: 90}, {1: 101, 2: 111, 3: 91}, paired=True)
assert x["exact"] and abs(x["p"] - 0.25) < 1e-9, x
assert b.across_boots({1: 100}, {1: 101, 2: 102}) is None
assert (b.median_coverage(3, 0), b.median_coverage(5, 0)) == (0.75, 0.9375)
s = b.stats([1, 2, 3, 4, 5])
assert (s["med_lo"], s["med_hi"], s["med_cov"]) == (1, 5, 0.9375), s
assert "[1.00, 5.00] range, covers 93.75%" in b.fmt_median(s), b.fmt_median(s)
import numpy as np
from scipy import stats as sps
av, bv = [99.1, 100.4, 98.7, 100.9], [102.6, 103.9, 101.2, 100.1, 103.4, 101.8]
x = b.across_boots(dict(enumerate(av)), dict(enumerate(bv)))
ref = sps.permutation_test((np.array(bv), np.array(av)), lambda u, v, axis=-1: u.mean(axis=axis)
                           - v.mean(axis=axis), vectorized=True, n_resamples=9999,
                           permutation_type="independent").pvalue
assert abs(x["p"] - ref) < 1e-12 and x["p"] < 0.05 and 0 < x["lo"] < x["d"] < x["hi"], (x, ref)
for av, bv in ((av, [v + 1 for v in av]), ([1, 2, 3, 4, 5], [2, 3, 4, 5, 7]), ([5, 1, 4], [2, 6, 3, 8])):
    x = b.across_boots(dict(enumerate(av)), dict(enumerate(bv)))
    assert (x["p"] < 0.05) == (not x["lo"] <= 0 <= x["hi"]), x
x = b.across_boots({1: 1, 2: 2, 3: 3}, {1: 4, 2: 5, 3: 6})
assert (x["lo"], x["hi"]) == (-float("inf"), float("inf")), x
assert b.holm([0.01, 0.04, 0.03, 0.5]) == [0.04, 0.09, 0.09, 0.5]
one, two = {"d": 1, "lo": 0.9, "hi": 1.1, "p": None}, {"d": 1, "lo": 0.6, "hi": 1.4, "p": 0.03}
three = {"d": 1, "lo": 0.7, "hi": 1.3, "p": 0.001}
b.judge([one, two, three])
assert one["mark"] == b.ONE_BOOT and b.verdict(one) == "unresolved (one boot)", one
assert (two["p_adj"], two["mark"], b.verdict(two)) == (0.03, "*", "NO"), two
assert (three["p_adj"], three["mark"]) == (0.002, "**"), three
b.judge([two, three, dict(two), dict(two)])
assert two["p_adj"] == 0.09 and b.verdict(two) == "unresolved", two
assert b.verdict({"lo": -0.4, "hi": 0.3, "p": 0.8, "p_adj": 1}) == "yes"
' 2>&1); then ok "benchstat: textbook values from scipy.stats (Welch, t, the median's ranks and coverage, permutation test and its interval, paired tests over boots, Holm, the 0.5% verdict)"
else notok "benchstat: textbook values from scipy.stats" "$(echo "$out" | tail -n 1)"; fi

# 16b. make bench-compare: two made-up runs of 3 boots whose flip cell is 1%
# slower in every boot of B: the across-boot column says so (exact, the
# permutation test's p 2/20), B keeps compare-<A>.txt, and results_md
# embeds it in B's section.
bc=$(mktemp -d)
if out=$("${SCIPY_PYTHON:-/usr/bin/python3}" - "$bc" <<'PYEOF' 2>&1
import json, os, subprocess, sys
d = sys.argv[1]
for name, ns in (("bench-a", 1000), ("bench-b", 1010)):
    os.makedirs(os.path.join(d, name))
    rows = [{"mode": "det", "variant": "cow", "bench": "flip", "size_kib": 0, "policy": "exclusive",
             "warm": 0, "boot": boot, "round": rnd, "ns_per_op": ns, "unit": "write"}
            for boot in (1, 2, 3) for rnd in (1, 2)]
    with open(os.path.join(d, name, "raw.json"), "w") as f:
        json.dump({"meta": {}, "rows": rows}, f)
out = subprocess.run([sys.executable, "scripts/report/benchstat.py", "compare",
                      os.path.join(d, "bench-a"), os.path.join(d, "bench-b")],
                     capture_output=True, text=True)
assert out.returncode == 0, out.stderr
line = [l for l in out.stdout.splitlines() if "flip-0K" in l]
assert line and "+1.00% (same in all 3+3 boots) p=0.1000" in line[0], out.stdout
kept = open(os.path.join(d, "bench-b", "compare-bench-a.txt")).read()
assert kept == out.stdout, "compare-bench-a.txt is not what was printed"
PYEOF
); then ok "bench-compare: Δ across boots (exact, permutation p), kept in B as compare-<A>.txt"
else notok "bench-compare" "$(echo "$out" | tail -n 1)"; fi
rm -rf "$bc"

# 16c. the Redis table of a bench report: two boots of made-up BGSAVE samples
# with Redis's own figures (v.redis_*): each cell the median of the boot
# medians with their range, the copies the cow_copy_* counters made.
rb=$(mktemp -d)
for b in 1 2; do
	{
		echo "# made-up boot $b"
		for r in 1 2 3; do
			echo "BENCH round=$r warm=0 policy=exclusive bench=redis-thpnever size_kib=0 ops=1 ns=$((1000000 + b * 1000)) unit=bgsave sample_ns=1 v.cow_copy_mapcount=$((300 + b)) v.redis_fork_us=$((900 + b)) v.redis_cow_kib=$((1200 + b)) v.redis_p50_us=100 v.redis_p99_us=$((400 + r)) v.redis_max_us=900 v.redis_rps=5000"
		done
	} >"$rb/det-cow-b$b.log"
done
printf 'run_id=redis-check\nredis_mib=8\nredis_req=2000\n' >"$rb/meta.env"
if "${SCIPY_PYTHON:-/usr/bin/python3}" scripts/report/benchstat.py collect "$rb" >"$tmp" 2>&1 &&
	"${SCIPY_PYTHON:-/usr/bin/python3}" scripts/report/benchstat.py report "$rb" >>"$tmp" 2>&1 &&
	grep -q -F '| det | cow/exclusive | never | 2 | 1001500 [1001000..1002000] | 302 [301..302] | 902 [901..902] | 1202 [1201..1202] | 100 [100..100] | 402 [402..402] | 900 [900..900] | 5000 [5000..5000] |' "$rb/report.md"; then
	ok "benchstat: the Redis table (medians of boot medians, their range, copies by the counters)"
else notok "benchstat: the Redis table" "$(grep -A 3 'Redis BGSAVE' "$rb/report.md" 2>/dev/null | tail -n 1; tail -n 1 "$tmp")"; fi
rm -rf "$rb"

# The "ok - <case>" / "not ok - <case>: <why>" lines of a host fixture
# program, each a case "<PREFIX>: <case>"; output with neither (the
# program died) fails NAME.
fixture_cases() { # PREFIX NAME OUTPUT
	echo "$3" | grep -q '^ok - \|^not ok - ' || notok "$2" "$(echo "$3" | tail -n 1)"
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "$1: ${line#ok - }" ;;
		"not ok - "*) line=${line#not ok - }; notok "$1: ${line%%: *}" "${line#*: }" ;;
		esac
	done <<EOF
$3
EOF
}

# 16d. the marks and verdicts of the bench report (tests/host/benchstat).
# fixtures.py: canned runs rendered by benchstat.py report, each a case the
# report once got wrong: no star from a bootstrap collapsed to a point (one
# boot, 2 identical rounds a side), no "NO" from 2 boots a side (p 0.33),
# no mark from one boot a side (wall), Holm over a table of 7 rows (p 2/252
# each: no star), one such row alone still "**"; results_md accepts them.
# falsestar.py: a seeded simulation with no true difference (400 trials a
# scenario: 5+5, 3+3, 2+2 boots, many identical values, one boot of 15, 3
# and 2 rounds, wall, policies paired, a table of 10, the 0.5% verdict at
# the boundary) through compare_rows() and judge(): at most 5% + 2.5% stars.
out=$("${SCIPY_PYTHON:-/usr/bin/python3}" tests/host/benchstat/fixtures.py 2>&1)
fixture_cases "benchstat fixture" "benchstat fixtures" "$out"
if out=$("${SCIPY_PYTHON:-/usr/bin/python3}" tests/host/benchstat/falsestar.py 2>&1); then
	ok "benchstat: false stars under no true difference at most 7.5% (seed 20260101, 400 trials, $(echo "$out" | grep -c ' ok$') scenarios)"
else notok "benchstat: false stars under no true difference" "$(echo "$out" | grep -E 'FAIL|Error' | head -n 3 | tr -s ' ' | tr '\n' ';')"; fi

# 17. scripts/report/results_md.py, the generator of RESULTS.md, on the canned
# runs of tests/host/results-md: check accepts what write renders (over an
# older file), and rejects each of three breakages of it; write on a missing
# or an empty run directory exits 2 with one line naming it and leaves the
# existing output as it was.
rm_=$(mktemp -d)
rmd() { python3 scripts/report/results_md.py "$@"; }
rmc=tests/host/results-md
echo old >"$rm_/R.md"
if rmd write "$rm_/R.md" "$rmc/20260102-030405" "$rmc/20251231-235959" \
	"$rmc/bench-20260102-040506-0123456" "$rmc/mutants-20260102-050607" \
	"$rmc/stall-20260102-060708" "$rmc/soak-20260102-070809" >"$tmp" 2>&1 &&
	rmd check "$rm_/R.md" >"$tmp" 2>&1 && grep -q ': 5 sections, 1 history lines, runs: 20260102-030405 ' "$tmp" &&
	grep -q '^- `20251231-235959` · make test · 2025-12-31T23:59:59 · commit unknown (run · 3 passed, 0 failed, 0 skipped · series unknown$' "$rm_/R.md" &&
	[ "$(sed -n '1,80{/^### \(What breaks\|What it costs\|How sure\)/p}' "$rm_/R.md" | wc -l)" = 3 ] &&
	[ -f "$rm_/digests/20251231-235959.json" ] && rmd write "$rm_/O.md" "$rmc/20251231-235959" >>"$tmp" 2>&1 &&
	grep -q -x -F 'The flip stress for 30 minutes (`make soak DURATION=30 VARIANT=debug`): judge: 9 cells (9 passed, 0 failed, 0 skipped by rule) in 1 runs: case 8, program 1.' "$rm_/R.md" &&
	grep -q -x -F 'Run: stall-20260102-060708 · date: 2026-01-02T06:07:08Z · kernel: 6.1.0+ (cow stock) · commit: 0123456789abcdef0123456789abcdef01234567 · accelerator: tcg, tcg-single · command: make stall-probe' "$rm_/R.md" &&
	grep -q -x -F 'Run: 20251231-235959 · date: 2025-12-31T23:59:59 · kernel: 6.1.0+ (stock) · commit: unknown (run predates meta.env) · accelerator: tcg · command: make test' "$rm_/O.md" &&
	grep -q -x -F '**QUICK smoke run: not a measurement.**' "$rm_/R.md" &&
	grep -q -x -F 'Wall time: 12 min 05 s from the start of `make bench`, of which 1 min 01 s building.' "$rm_/R.md" &&
	grep -q '^### Redis BGSAVE under a write load' "$rm_/R.md" &&
	grep -q -F '| det | cow/exclusive | never | 2 | 1000 [990..1010] |' "$rm_/R.md" &&
	grep -q -x -F '### Against bench-20260101-000000-0000000 (make bench-compare, compare-bench-20260101-000000-0000000.txt)' "$rm_/R.md"; then
	ok "results_md: check accepts what write renders from a test, an old test (a history line), a bench (with a bench-compare, its Redis table and wall time), a mutants, a stall-probe and a soak run, Findings first, a digest per run"
else notok "results_md: write, then check" "$(tail -n 1 "$tmp")"; fi
rmd_bad() { # WHAT WANT-OUTPUT AWK-PROGRAM: check rejects R.md broken by AWK-PROGRAM
	awk "$3" "$rm_/R.md" >"$rm_/bad.md"
	if cmp -s "$rm_/R.md" "$rm_/bad.md"; then notok "results_md: check rejects $1" "the breakage did not apply"
	elif rmd check "$rm_/bad.md" >"$tmp" 2>&1; then notok "results_md: check rejects $1" "check passed"
	elif ! grep -q "$2" "$tmp"; then notok "results_md: check rejects $1" "$(head -n 1 "$tmp")"
	else ok "results_md: check rejects $1"; fi
}
rmd_bad "a section without its provenance line" "does not start with a provenance line" \
	'!d && /^Run: /{d=1; next} 1'
rmd_bad "a provenance line with an empty commit" "has an empty commit" \
	'!d && /^Run: /{sub(/ · commit: [^·]* · /, " · commit:  · "); d=1} 1'
rmd_bad "a table with a ragged row" "[0-9]* columns, the table of line [0-9]* has [0-9]*" \
	'f{$0 = $0 " x |"; f=0; d=1} !d && /^\| --- /{f=1} 1'
rmd_bad "Findings whose tables end after line 80" 'the "How sure" table ends on line [0-9]*, after line 80' \
	'NR == 3 { for (i = 0; i < 80; i++) print "x" } 1'
rmd_bad "a count of not-ok cases that reads as failures" 'a count of "not ok"' \
	'/^- Summary: / { print; print "- Cases: 10 cases observed (5 ok, 3 not ok, 2 skipped)"; next } 1'
rmd_bad "a run with a full section and a history line" "run 20260102-030405 has a section and a history line" \
	'/^## History/ { print; print ""; print "- `20260102-030405` · make test · x"; next } 1'
# add: into a file of two runs, a soak (after the tests, at the end) and
# one of its runs again (replaced in place, not doubled); on a run that is
# not there, exit 2 and the file as it was.
if rmd write "$rm_/A.md" "$rmc/20260102-030405" "$rmc/stall-20260102-060708" >"$tmp" 2>&1 &&
	rmd add "$rm_/A.md" "$rmc/soak-20260102-070809" "$rmc/20260102-030405" >"$tmp" 2>&1 &&
	rmd check "$rm_/A.md" >"$tmp" 2>&1 &&
	grep -q ': 3 sections, 0 history lines, runs: 20260102-030405 stall-20260102-060708 soak-20260102-070809$' "$tmp" &&
	[ "$(sed -n 's/^- `\([^`]*\)`: .*, \(.*\)$/\1 \2/p' "$rm_/A.md" | tr '\n' ' ')" = \
		"20260102-030405 $PWD/$rmc/20260102-030405 stall-20260102-060708 $PWD/$rmc/stall-20260102-060708 soak-20260102-070809 $PWD/$rmc/soak-20260102-070809 " ] &&
	cp "$rm_/A.md" "$rm_/A0.md" && ! rmd add "$rm_/A.md" "$rm_/no-such-run" >/dev/null 2>&1 &&
	cmp -s "$rm_/A.md" "$rm_/A0.md"; then
	ok "results_md: add puts a new run after the others, replaces a run it has, and refuses a missing one untouched"
else notok "results_md: add" "$(tail -n 1 "$tmp")"; fi
mkdir "$rm_/empty"
for rmd_dir in "$rm_/no-such-run" "$rm_/empty"; do
	echo old >"$rm_/keep.md"
	rmd write "$rm_/keep.md" "$rmc/20260102-030405" "$rmd_dir" >"$tmp" 2>&1
	rmd_rc=$?
	if [ $rmd_rc != 2 ]; then notok "results_md: write on ${rmd_dir##*/}" "exit status $rmd_rc, not 2"
	elif [ "$(cat "$rm_/keep.md")" != old ] ||
		[ -n "$(find "$rm_" -name '.results_md.*')" ]; then
		notok "results_md: write on ${rmd_dir##*/}" "the output was touched or a temporary file left"
	elif [ "$(wc -l <"$tmp")" != 1 ] || ! grep -q -F "error: $rmd_dir: " "$tmp"; then
		notok "results_md: write on ${rmd_dir##*/}" "not one error line naming it: $(head -n 1 "$tmp")"
	else ok "results_md: write on ${rmd_dir##*/} exits 2 and leaves the output alone"; fi
done
rm -rf "$rm_"

# 18. The stage graph (Makefile) and the one QEMU launcher. On a scratch
# BUILD whose every stamp is current, touching one patch makes the kernels
# built from the series stale and nothing else that does not read it; the
# launcher maps each accelerator name to its QEMU arguments and refuses
# others; the manifest has one line of five fields per run.
sg=$(mktemp -d)
mkdir -p "$sg/patches" "$sg/build/stamps" "$sg/build/guest/bin"
cp patches/6.1/* "$sg/patches/"
for v in cow nocow debug stock; do
	mkdir -p "$sg/build/obj-$v" "$sg/build/driver/$v" "$sg/build/stap/$v"
	touch "$sg/build/obj-$v/.kernel.ran" "$sg/build/obj-$v/kernel.id" \
		"$sg/build/driver/$v/.driver.ran" "$sg/build/driver/$v/driver.id"
done
for s in tree stock-tree guest upstream vmtests; do touch "$sg/build/stamps/$s.ran" "$sg/build/stamps/$s.id"; done
# The scratch graph is the 6.1 line's, whatever line make check runs under
# (make test's first line, make check KERNEL=6.12): KERNEL on the command
# line, and none of the line's exported settings.
sgmake() {
	MAKEFLAGS='' env -u KSRC -u STOCK_TREE -u FRAGMENTS_BASE -u TEST_MATRIX -u LINE_TREES -u BUILD_ROOT \
		make --no-print-directory KERNEL=6.1 "$@"
}
touch "$(sgmake -s BUILD="$sg/build" print-DEPS_RAN)"
# One time stamp for every stamp: current, none newer than another.
find "$sg/build" -type f -exec touch -d '@2000000000' {} +
touch -d '@1900000000' "$sg"/patches/*
# sg_case WANT TARGET STAGE WHAT: make -n TARGET would (1) or would not (0)
# run the recipe of STAGE.
sg_case() {
	_r=0
	sgmake -n BUILD="$sg/build" PATCHES="$sg/patches" "$2" 2>&1 |
		grep -q "run_stage \"$3\"" && _r=1
	if [ "$_r" = "$1" ]; then ok "stage graph: $4"; else notok "stage graph: $4" "make -n $2: stage $3 $([ $_r = 1 ] && echo runs || echo does not run)"; fi
}
sg_case 0 "$sg/build/obj-cow/kernel.id" "kernel cow" "with every stamp current, nothing rebuilds"
touch -d '@2100000000' "$sg/patches/$(sed -n 1p "$sg/patches/series")"
sg_case 1 "$sg/build/obj-cow/kernel.id" "kernel cow" "a touched patch rebuilds the cow kernel"
sg_case 1 "$sg/build/obj-debug/kernel.id" "kernel debug" "a touched patch rebuilds the debug kernel"
sg_case 0 "$sg/build/obj-stock/kernel.id" "kernel stock" "a touched patch leaves the stock kernel alone"
sg_case 0 "$sg/build/stamps/guest.id" "guest programs" "a touched patch leaves the guest programs alone"
rm -rf "$sg"
for a in kvm:'-accel kvm -cpu host' tcg:'-accel tcg,thread=multi -cpu max,la57=off' \
	tcg-single:'-accel tcg,thread=single' icount:'-icount shift=0,sleep=off,align=off'; do
	if scripts/boot/qemu.sh --print --accel "${a%%:*}" --console /dev/null K I 'c=1' -- -m 1G | grep -qF -- "${a#*:}"; then
		ok "qemu.sh: accelerator ${a%%:*} is ${a#*:}"
	else notok "qemu.sh: accelerator ${a%%:*}" "no '${a#*:}' in its command"; fi
done
if out=$(scripts/boot/qemu.sh --print --accel kvmm --console /dev/null K I c 2>&1); then
	notok "qemu.sh: an unknown accelerator fails" "exit 0"
elif echo "$out" | grep -q "unknown accelerator 'kvmm'; valid: kvm tcg tcg-single icount"; then
	ok "qemu.sh: an unknown accelerator fails, naming the valid ones"
else notok "qemu.sh: an unknown accelerator fails" "$out"; fi
fo=$(mktemp -d)
if RESULTS="$fo" RUN_ID=m scripts/flow/fanout.sh manifest cow:base stock:vmtests >/dev/null &&
	[ "$(awk -F '\t' 'NF == 5' "$fo/m/manifest.tsv" | wc -l)" = 2 ]; then
	ok "fanout.sh: the manifest has one line of five fields per run"
else notok "fanout.sh: the manifest" "$(cat "$fo/m/manifest.tsv" 2>/dev/null | head -n 2)"; fi
if RESULTS="$fo" RUN_ID=m scripts/flow/fanout.sh manifest cowbase >/dev/null 2>&1; then
	notok "fanout.sh: an entry that is not variant:profile fails" "exit 0"
else ok "fanout.sh: an entry that is not variant:profile fails"; fi
rm -rf "$fo"

# 19. The committed RESULTS.md (written by make report) parses and names
# the run, date, kernel, commit and accelerator of every table.
if [ -f RESULTS.md ]; then
	if out=$(python3 scripts/report/results_md.py check RESULTS.md 2>&1); then
		ok "RESULTS.md: $(echo "$out" | head -n 1)"
	else notok "RESULTS.md does not validate" "$(echo "$out" | head -n 3 | tr '\n' ' ')"; fi
else notok "RESULTS.md" "missing: make report RUN=\"<run dirs>\" writes it"; fi

# 20. scripts/report/compare_runs.py: two runs agree cell by cell, and a
# cell whose verdict differs (or that one run lacks) is named.
cr=$(mktemp -d)
mkdir -p "$cr/a" "$cr/b"
for d in a b; do
	printf '%s\n' '{"case": "-", "policy": "exclusive", "program": "smoke", "run": "cow-base", "suite": "program", "verdict": "pass", "why": ""}' \
		'{"case": "vmsplice-4k", "policy": "refcount", "program": "scn_backings", "run": "base-vmtests", "suite": "scenario", "verdict": "pass", "why": ""}' \
		>"$cr/$d/judgement.jsonl"
	printf '%s\n' '{"kind": "case", "run": "r", "variant": "cow", "profile": "base", "policy": "exclusive", "program": "smoke", "n": 1, "name": "sysctl", "status": "pass"}' \
		>"$cr/$d/results.jsonl"
done
sed -i 's/"run": "base-vmtests"/"run": "stock-vmtests"/' "$cr/b/judgement.jsonl"
if python3 scripts/report/compare_runs.py "$cr/a" "$cr/b" >"$tmp" 2>&1; then
	ok "compare_runs: equal runs agree (old variant name base read as stock)"
else notok "compare_runs: equal runs agree" "$(tail -n 1 "$tmp")"; fi
sed -i 's/"verdict": "pass", "why": ""}$/"verdict": "fail", "why": "x"}/' "$cr/b/judgement.jsonl"
if python3 scripts/report/compare_runs.py "$cr/a" "$cr/b" >"$tmp" 2>&1; then
	notok "compare_runs: a changed verdict fails" "exit 0"
elif grep -q '^cell cow-base exclusive/smoke: program: -: A pass, B fail$' "$tmp"; then
	ok "compare_runs: a changed verdict fails, naming the cell"
else notok "compare_runs: a changed verdict fails" "$(head -n 1 "$tmp")"; fi
if python3 scripts/report/compare_runs.py "$cr/a" "$cr/none" >"$tmp" 2>&1; then
	notok "compare_runs: a run without results fails" "exit 0"
else ok "compare_runs: a run without results fails ($(head -n 1 "$tmp" | cut -c1-60))"; fi
rm -rf "$cr"

# 21. scripts/report/critical_path.py schedules a canned run: two kernels
# one after the other (the build lock), then their guests; on 2 cores the
# guests run one at a time, on 4 side by side.
cp=$(mktemp -d)
printf '%s\n' '[   0s] unpack: ok' '[   0s] patch: ok' '[ 100s] kernel cow: ok' '[ 100s] kernel stock: ok' \
	'[   0s] guest programs: ok' '[  60s] run cow-base: ok' '[  60s] run stock-vmtests: ok' >"$cp/stages.txt"
printf '%s\n' 'host_cpus=2' 'test_matrix=cow:base stock:vmtests' 'elapsed_s=320' >"$cp/meta.env"
c2=$(python3 scripts/report/critical_path.py "$cp" --cores 2 --serial 1 2>&1 | head -n 1)
c4=$(python3 scripts/report/critical_path.py "$cp" --cores 4 --serial 1 2>&1 | head -n 1)
case "$c2|$c4" in
*"2 cores -> about 5 min"*"|"*"4 cores -> about 4 min"*) ok "critical_path: the build lock and guest slots decide a canned run (2 cores 5 min, 4 cores 4 min)" ;;
*) notok "critical_path: a canned run" "$c2 / $c4" ;;
esac
rm -rf "$cp"

# 22. scripts/report/jump_sites.py tells a jump-label patch site of a built
# kernel (and names its static key) from the byte after it, in a stall
# backtrace ("RIP: 0010:") and in the registers qemu.sh dumps at a timeout
# ("# qemu-registers: RIP=").
vml=${BUILD:-$top/build}/obj-cow/vmlinux
if [ -f "$vml" ] && grep -q '^CONFIG_JUMP_LABEL=y' "${vml%/vmlinux}/.config" 2>/dev/null; then
	js=$(python3 scripts/report/jump_sites.py --list "$vml" 2>&1 | head -n 1)
	jl=$(mktemp)
	printf '# qemu-registers: RIP=%016x RFL=00000046\n' "0x$js" >"$jl"
	js_in=$(python3 scripts/report/jump_sites.py "$vml" "$jl" 2>&1 | sed -n 's/^RIP .* site 1 key=[A-Za-z_].*/key/p; $p' | tr '\n' ' ')
	printf '# qemu-registers: RIP=%016x RFL=00000046\n[    1.0] RIP: 0010:do_wp_page+0x0/0x10\n' "$((0x$js + 1))" >"$jl"
	js_out=$(python3 scripts/report/jump_sites.py "$vml" "$jl" 2>&1 | tail -n 1)
	rm -f "$jl"
	if [ "$js_in|$js_out" = "key sites=1 rips=1 |sites=0 rips=2" ]; then
		ok "jump_sites: a patch site of obj-cow's __jump_table is one (its static key named), the byte after it and a function entry are not"
	else notok "jump_sites on obj-cow" "site: '$js_in', not sites: '$js_out'"; fi
else
	skip "jump_sites on obj-cow" "no $vml built with CONFIG_JUMP_LABEL=y (make kernel)"
fi

# 23. scripts/report/stall_report.py renders the canned stall-probe run of
# tests/host/stall-run (in a copy: it writes report.md): a hung cell at a
# jump-label site, a completed one with its key and flip rate; and refuses
# a directory that is not a stall-probe run.
sr=$(mktemp -d)
cp -r tests/host/stall-run/. "$sr/"
if python3 scripts/report/stall_report.py "$sr" >/dev/null 2>&1 &&
	grep -q -x -F '| stock | tcg | tracepoint | 0/1 | 1/1 | 0 | 0 | 1/1 | exc_page_fault+0x50 | - |' "$sr/report.md" &&
	grep -q -x -F '| stock | tcg-single | tracepoint | 1/1 | 0/1 | 0 | 0 | 0/0 | - | 7 |' "$sr/report.md" &&
	! python3 scripts/report/stall_report.py tests/host/results-md/20260102-030405 >/dev/null 2>&1; then
	ok "stall_report: a canned stall-probe run, hung at a jump-label site and completed; a test run refused"
else notok "stall_report on tests/host/stall-run" "$(tail -n 3 "$sr/report.md" 2>/dev/null)"; fi
rm -rf "$sr"

# 24. scripts/boot/hang-where.sh says, for a failed run's output, which test
# a hung guest was running and where its stalled CPU was (the canned
# stall tests/host/logs/bad-rcu-stall-trace.log), and finds nothing in a
# clean log.
hw=$(scripts/boot/hang-where.sh tests/host/logs/bad-rcu-stall-trace.log /nonexistent)
hw_clean=$(scripts/boot/hang-where.sh tests/host/logs/clean-boot.log /nonexistent | grep -c '^stall:')
case "$hw" in
"running: # policy=mapcount test=sysctl"*"stall: RIP: 0010:do_wp_page+0x17f/0x5a0"*"stall:    __handle_mm_fault+0x5f1/0x9a0"*)
	if [ "$hw_clean" = 0 ]; then ok "hang-where: the test and the stalled RIP and call trace of a canned stall, nothing for a clean log"
	else notok "hang-where on clean-boot.log" "$hw_clean stall lines"; fi ;;
*) notok "hang-where on bad-rcu-stall-trace.log" "$(printf '%s\n' "$hw" | head -n 3 | tr '\n' '|')" ;;
esac

# 25. scripts/report/insn_report.py (make bench-insn) on the canned run
# tests/host/insn-run (in a copy: it writes insn.md): instructions per fork
# set per function, the kernels' own System.map naming the addresses, and
# RESULTS.md's section of it (results_md.py); and
# it refuses windows that are not cowbench's timed sections, plugin counts
# that disagree with cowbench's det time, and a kernel whose counts are
# missing.
ir=$(mktemp -d)
cp -r tests/host/insn-run/. "$ir/"
ir_bad=""
if python3 scripts/report/insn_report.py "$ir" >/dev/null 2>&1 &&
	grep -q -x -F '| instructions per fork (plugin) | 1025.0 | 925.0 | +100.0 |' "$ir/insn.md" &&
	grep -q -x -F '| `page_try_dup_anon_rmap` | 300.0 | 200.0 | +100.0 |' "$ir/insn.md" &&
	python3 scripts/report/results_md.py write "$ir/R.md" "$ir" >/dev/null 2>&1 &&
	grep -q -F 'Instructions of `fork-256`'"'"'s timed sections' "$ir/R.md" &&
	grep -q -x -F '| `page_try_dup_anon_rmap` | 300.0 | 200.0 | +100.0 |' "$ir/R.md"; then
	sed -i 's/windows=2/windows=1/' "$ir/det-cow-b1.insn"
	python3 scripts/report/insn_report.py "$ir" 2>&1 | grep -q '1 windows counted, cowbench timed 2 sections' || ir_bad="$ir_bad windows"
	sed -i 's/windows=1/windows=2/' "$ir/det-cow-b1.insn"
	INSN_TOLERANCE=10 python3 scripts/report/insn_report.py "$ir" 2>&1 | grep -q 'per window, more than 10' || ir_bad="$ir_bad tolerance"
	rm "$ir/det-stock-b1.insn"
	python3 scripts/report/insn_report.py "$ir" 2>&1 | grep -q 'det-stock-b1.insn is missing' || ir_bad="$ir_bad missing"
	if [ -z "$ir_bad" ]; then ok "insn_report: a canned bench-insn run per function, in RESULTS.md; windows not the timed sections, counts off cowbench's time, a missing kernel refused"
	else notok "insn_report on tests/host/insn-run" "accepted:$ir_bad"; fi
else notok "insn_report on tests/host/insn-run" "$(tail -n 3 "$ir/insn.md" 2>/dev/null)"; fi
rm -rf "$ir"

# 26. The Findings, their plots and the document checks on the canned runs of
# tests/host/findings (tests/host/findings/check.py): the three tables in
# the first 80 lines, each naming its run, costs across boots with Holm
# over the table, the plots (gnuplot: SVG), make report without gnuplot
# refused untouched; doccheck.py readme and rst accepting the documents as
# they should be and refusing each canned mismatch; make rfc's files as
# mbox, git am onto a canned tree.
out=$("${SCIPY_PYTHON:-/usr/bin/python3}" tests/host/findings/check.py 2>&1)
fixture_cases "findings" "findings fixtures" "$out"

# 26b. make rfc's patches apply with git am to the files they touch as
# Debian's tree has them (the tag base of the tree, read only: the files
# are copied into a scratch repository).
if [ -d "$KSRC/.git" ] && git -C "$KSRC" rev-parse -q --verify base >/dev/null; then
	rf=$(mktemp -d)
	if python3 scripts/report/rfc.py --out "$rf/rfc" --base check --from "Jane Doe <jane@kernel.org>" >"$tmp" 2>&1; then
		mkdir "$rf/tree"
		rm -f "$rf"/rfc/0000-cover-letter.patch
		for f in $(sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$rf"/rfc/*.patch | sort -u); do
			if git -C "$KSRC" cat-file -e "base:$f" 2>/dev/null; then
				mkdir -p "$rf/tree/$(dirname "$f")" && git -C "$KSRC" show "base:$f" >"$rf/tree/$f"
			fi
		done
		if (cd "$rf/tree" && git init -q && git add -A && git -c user.name=c -c user.email=c@example.org commit -q -m base &&
			git -c user.name=c -c user.email=c@example.org am -q "$rf"/rfc/*.patch &&
			grep -q -x 'M:	Jane Doe <jane@kernel.org>' MAINTAINERS) >"$tmp" 2>&1; then
			ok "make rfc: git am applies its $(find "$rf/rfc" -name '*.patch' | wc -l) patches to Debian's files (tag base of $KSRC), MAINTAINERS with the sender's M: line"
		else notok "make rfc: git am onto Debian's files" "$(tail -n 2 "$tmp" | tr '\n' ' ')"; fi
	else notok "make rfc" "$(tail -n 1 "$tmp")"; fi
	rm -rf "$rf"
else
	skip "make rfc: git am onto Debian's files" "no tree with the tag base at $KSRC (make tree)"
fi

# 26c. Whom make rfc and make export sign the series as (tests/host/rfc/check.py,
# on a made-up series with two backports): a placeholder sender (FROM=, $FROM
# or git config: example domains, .example, .invalid, .test, localhost,
# noreply, no name) refused with one error line; FROM="Jane Doe
# <jane@kernel.org>" in the project's own patches' From: and Signed-off-by:,
# the backports' upstream authors and trailers kept with the sender's sign-off
# under them, the M: line of the MAINTAINERS entry, git am onto a canned tree;
# make rfc on both lines' series; make export writing the neutral identity
# back. Each check also runs on input it must refuse.
out=$(python3 tests/host/rfc/check.py 2>&1)
fixture_cases "identity" "rfc identity fixtures" "$out"

# 27. The documents say what the runs say (scripts/report/doccheck.py, against
# digests/, the results model RESULTS.md is rendered from): README.md's
# default-path cost is the newest make bench-insn run's, per function and
# in all; the outcome table of sysctl-docs/cow_policy.rst is the newest
# make test run's scenario matrix (rows mapped in
# scripts/check/cow_policy-rows.tsv; a row marked pending must still
# disagree). Item 26 shows both failing on canned mismatches.
for dc in "readme README.md" "rst sysctl-docs/cow_policy.rst scripts/check/cow_policy-rows.tsv"; do
	# shellcheck disable=SC2086 # the command and its files, one word each
	if out=$(python3 scripts/report/doccheck.py $dc 2>&1); then
		ok "documents: $(echo "$dc" | cut -d' ' -f2) says what the runs say ($(echo "$out" | grep -c '^doccheck: ok:') notes$(echo "$out" | grep -q 'ok: pending' && echo ', pending rows listed'))"
	else
		notok "documents: $(echo "$dc" | cut -d' ' -f2)" "$(echo "$out" | grep -v '^doccheck: ok:' | head -n 3 | tr '\n' ' ')"
	fi
done

# 28. Every target people type is in make help and in docs/harness.md's
# table (scripts/check/targets.py); a Makefile with one more target is
# flagged.
if out=$(python3 scripts/check/targets.py Makefile docs/harness.md 2>&1); then ok "targets: $out"
else notok "targets: make help and docs/harness.md list every target" "$(echo "$out" | head -n 3 | tr '\n' ' ')"; fi
tg=$(mktemp)
printf '%s\n' "$(cat Makefile)" '.PHONY: bogus-target' 'bogus-target:' '	@true' >"$tg"
if python3 scripts/check/targets.py "$tg" docs/harness.md >"$tmp" 2>&1; then notok "targets: an unlisted target is flagged" "exit 0"
elif grep -q '^bogus-target: not in make help$' "$tmp" && grep -q '^bogus-target: not in the table' "$tmp"; then
	ok "targets: an unlisted target is flagged (not in make help, not in the table)"
else notok "targets: an unlisted target is flagged" "$(head -n 1 "$tmp")"; fi
rm -f "$tg"

echo "$pass passed, $fail failed, $skip skipped"
if [ $fail = 0 ]; then
	stage "check" "ok ($pass passed, $skip skipped)" "$start"
else
	stage "check" "FAILED ($fail failed)" "$start"
	exit 1
fi
