#!/bin/sh
# scripts/check.sh: fast host-side checks (no QEMU, no kernel build). Each
# check is one counted test: "ok - NAME", "not ok - NAME: why" or
# "ok - NAME # SKIP why". Ends with "N passed, N failed, N skipped".
set -u
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
KSRC=${KSRC:-$top/build/linux-source-6.1}
PATCHES=${PATCHES:-$top/patches}
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
for f in scripts/*.sh guest/*.sh .ci/run; do
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

# 3. QEMU profiles and test group lists.
for f in qemu-profiles/*.profile; do
	p=$(basename "$f" .profile)
	why=$( (
		load_profile qemu-profiles "$p" >/dev/null 2>&1 || { echo "does not source"; exit; }
		[ -n "$PROFILE_DESC" ] || echo "no PROFILE_DESC"
		case $KERNEL_CMDLINE in *console=ttyS0*) ;; *) echo "KERNEL_CMDLINE lacks console=ttyS0" ;; esac
		[ -n "$TEST_GROUPS" ] || echo "no TEST_GROUPS"
		for g in $TEST_GROUPS; do
			[ -f "tests/groups/$g.list" ] || [ -f "guest/groups/$g.list" ] || echo "no list for group $g"
		done
		printf '%s\n' "$GUEST_SETUP" | sh -n 2>/dev/null || echo "GUEST_SETUP has a syntax error"
	) | tr '\n' ' ')
	if [ -n "$why" ]; then notok "profile $p" "$why"; else ok "profile $p"; fi
done
for f in tests/groups/*.list guest/groups/*.list; do
	[ -f "$f" ] || continue
	missing=""
	for prog in $(sed 's/#.*//' "$f" | awk 'NF { print $1 }'); do
		[ -f "tests/guest/$prog.c" ] || [ -f "guest/$prog.c" ] || [ -f "guest/$prog.sh" ] ||
			[ -f "benchmarks/$prog.c" ] || missing="$missing $prog"
	done
	if [ -n "$missing" ]; then notok "group list $f" "no program:$missing"; else ok "group list $f"; fi
done

# tests/expect/vm-selftests.tsv: every row names an invocation of
# tests/groups/vmtests.list, a known policy and a result vm_selftest prints.
if [ -f tests/expect/vm-selftests.tsv ]; then
	why=$(sed -n 's/^vm_selftest //p' tests/groups/vmtests.list | sed 's/[[:space:]]*#.*//' |
		awk -F '\t' 'NR == FNR { inv[$0] = 1; next }
		substr($0, 1, 1) == "#" || !NF { next }
		NF < 4 { print "line " FNR ": fewer than 4 columns"; next }
		$1 !~ /^(all|exclusive|refcount|mapcount)$/ { print "line " FNR ": policy " $1 }
		!($2 in inv) { print "line " FNR ": not in vmtests.list: " $2 }
		$3 !~ /^(pass|fail|skip|timeout)$/ { print "line " FNR ": result " $3 }' - tests/expect/vm-selftests.tsv)
	if [ -n "$why" ]; then notok "expectations vm-selftests.tsv" "$(echo "$why" | head -n 3 | tr '\n' ';')"; else ok "expectations vm-selftests.tsv"; fi
fi

# 4. guest C programs compile (syntax only).
for f in tests/guest/*.c guest/*.c benchmarks/*.c; do
	[ -f "$f" ] || continue
	inc=""
	[ -d tests/guest/lib ] && inc="-Itests/guest/lib"
	if gcc -fsyntax-only -O2 -Wall -Wextra -Werror $inc "$f" >"$tmp" 2>&1; then ok "compile $f"; else notok "compile $f" "$(head -n 3 "$tmp")"; fi
done

# 5. patches/series: every listed patch exists, every patch is listed.
if [ ! -d "$PATCHES" ]; then
	skip "patches/series consistent" "no patches/ directory yet"
else
	why=""
	listed=$(series_patches "$PATCHES")
	for p in $listed; do [ -f "$PATCHES/$p" ] || why="$why missing:$p"; done
	for f in "$PATCHES"/*.patch "$PATCHES"/*.diff; do
		[ -f "$f" ] || continue
		b=$(basename "$f")
		printf '%s\n' "$listed" | grep -qxF "$b" || why="$why unlisted:$b"
	done
	if [ -n "$why" ]; then notok "patches/series consistent" "$why"; else ok "patches/series consistent ($(printf '%s\n' "$listed" | grep -c .) patches)"; fi
fi

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

# 7. checkpatch --strict on every listed patch.
plist=""
for p in $(series_patches "$PATCHES"); do [ -f "$PATCHES/$p" ] && plist="$plist $PATCHES/$p"; done
if [ -z "$plist" ]; then
	skip "checkpatch --strict" "no patches in patches/series"
elif [ ! -x "$KSRC/scripts/checkpatch.pl" ]; then
	skip "checkpatch --strict" "no kernel tree at $KSRC (run make tree)"
else
	for p in $plist; do
		# PATH: checkpatch's spdxcheck.py wants Debian's python3 (python3-ply),
		# not another python3 that may come first in PATH.
		if (cd "$KSRC" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict -q --no-summary \
			--ignore "${CHECKPATCH_IGNORE:-UNKNOWN_COMMIT_ID,EMBEDDED_FILENAME}" "$p") >"$tmp" 2>&1; then
			ok "checkpatch --strict $(basename "$p")"
		else
			notok "checkpatch --strict $(basename "$p")" "$(grep -c -E '^(ERROR|WARNING|CHECK):' "$tmp") findings"
			sed 's/^/    /' "$tmp"
		fi
	done
fi

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

# 8. the log scanner on canned logs.
for f in tests/host/logs/*.log; do
	b=$(basename "$f")
	scripts/scan-log.sh "$f" >"$tmp"
	rc=$?
	case $b in
	clean-*) if [ $rc = 0 ]; then ok "scan-log $b is clean"; else notok "scan-log $b is clean" "$(head -n 1 "$tmp")"; fi ;;
	bad-*) if [ $rc = 1 ]; then ok "scan-log flags $b"; else notok "scan-log flags $b" "not flagged"; fi ;;
	esac
done

# 9. guest/vm_selftest.sh decides pass/fail/skip/timeout and compares with
# the expectation both ways: fake programs exit with their first argument.
vt=$(mktemp -d)
printf '#!/bin/sh\n[ "$1" = hang ] && exec sleep 30\n[ "$1" = crash ] && kill -SEGV $$\nexit "$1"\n' >"$vt/vm61_fake"
chmod +x "$vt/vm61_fake"
mkdir "$vt/scratch" && : >"$vt/scratch/left-over"
printf 'all\tfake 4\tskip\tr\nall\tfake 0 x\tfail\tr\nall\tfake 1 y\tpass\tr\nexclusive\tfake 1 y\tfail\tr\nall\tfake hang\ttimeout\tr\nall\tfake crash\tfail\tr\n' >"$vt/expect.tsv"
vt_bad=""
for c in "0:0" "1:1" "4:0" "0 x:1" "1 y:0" "hang:0" "3:1" "crash:1"; do
	VM_SELFTEST_BIN=$vt VM_SELFTEST_EXPECT=$vt/expect.tsv VM_SELFTEST_PREP=0 \
		VM_SELFTEST_SCRATCH=$vt/scratch VM_SELFTEST_TIMEOUT=1 \
		sh guest/vm_selftest.sh fake ${c%:*} >"$tmp" 2>&1
	[ $? = "${c#*:}" ] || vt_bad="$vt_bad '${c%:*}'"
done
[ -e "$vt/scratch/left-over" ] && vt_bad="$vt_bad scratch-not-emptied"
rm -rf "$vt"
if [ -z "$vt_bad" ]; then ok "vm_selftest verdicts (pass, fail, skip, timeout, expected fail that passes, crash where a fail is expected)"
else notok "vm_selftest verdicts" "wrong exit for:$vt_bad"; fi

# 10. scripts/matrix.sh fails a cell that mismatched or never ran: fake
# run logs of profile base made from the expectations themselves.
mx=$(mktemp -d)
fake_log() { # VARIANT POLICIES [DROP] [BAD]: a fake <variant>-base.log
	{
		echo "# cow-policy run fake: variant=$1 profile=base accel=tcg timeout=1s"
		awk -F '\t' -v pols="$2" -v drop="${3:-}" -v bad="${4:-}" '
			$2 == "base" && index(" " pols " ", " " $3 " ") && $1 != drop {
				printf "    # RESULT scenario=%s profile=base policy=%s outcome=%s expected=%s match=%s\n",
					$1, $3, $4, $4, ($1 == bad ? "no" : "yes")
			}' tests/expect/scenarios.tsv
	} >"$mx/$1-base.log"
}
mx_case() { # WANT-RC WHAT
	sh scripts/matrix.sh "$mx" >/dev/null 2>&1
	if [ $? = "$1" ]; then ok "matrix.sh: $2"; else notok "matrix.sh: $2" "exit status not $1"; fi
	rm -f "$mx"/*.log
}
fake_log cow "exclusive refcount mapcount"; fake_log nocow exclusive
mx_case 0 "every base cell ran and matched (cow; nocow exclusive only)"
fake_log cow "exclusive refcount mapcount" vmsplice-4k
mx_case 1 "a cell that never ran fails"
fake_log cow "exclusive refcount mapcount" "" ksm-last
mx_case 1 "a mismatched cell fails"
fake_log nocow "exclusive" vmsplice-4k
mx_case 1 "a cell that never ran on nocow fails"
rm -rf "$mx"

# 11. scripts/vmtests_report.py: exclusive must be compared with unpatched
# 6.1 on every invocation; nothing to compare is not a pass.
vr=$(mktemp -d)
vm_log() { # VARIANT SYSCTL POLICY NAME...: a fake <variant>-vmtests.log
	v=$1 sc=$2 pol=$3
	shift 3
	{
		echo "# cow-policy run fake: variant=$v profile=vmtests accel=tcg timeout=1s"
		for n in "$@"; do
			echo "    # VMSELFTEST policy=$pol sysctl=$sc result=pass expected=pass rc=0 secs=1 name=$n"
		done
	} >"$vr/$v-vmtests.log"
}
vr_case() { # WANT-RC WHAT
	python3 scripts/vmtests_report.py "$vr" >/dev/null 2>&1
	if [ $? = "$1" ]; then ok "vmtests_report: $2"; else notok "vmtests_report: $2" "exit status not $1"; fi
	rm -f "$vr"/*
}
vm_log cow yes exclusive a b; vm_log base no exclusive a b
vr_case 0 "exclusive and unpatched 6.1 agree on every invocation"
vm_log cow yes exclusive a b
vr_case 1 "no unpatched 6.1 run: not compared, fails"
vm_log cow yes exclusive a b; vm_log base no exclusive a
vr_case 1 "an invocation missing on unpatched 6.1 fails"
rm -rf "$vr"

# 12. a run that dies before it starts still counts as a failed run.
rc_counts=$(mktemp)
(COWTEST_COUNTS=$rc_counts run_counted cow no-such-profile >/dev/null 2>&1)
if grep -q '^fail run cow-no-such-profile ' "$rc_counts"; then ok "a run that never starts is counted as failed"
else notok "a run that never starts is counted as failed" "no fail record"; fi
rm -f "$rc_counts"

# 13. the scenario judge (tests/guest/lib/scn.c) on made-up snapshots
# (tests/host/scn_judge.c): the total of COW decisions a case caused must
# fail a double decision and a decision the row does not name, even when
# every counter the row names moved as stated; nothing else may fail.
sj=$(mktemp -d)
printf '%s\t*\texclusive\tok\t%s\tr\n' exact cow_copy_refcount=16,cow_gup_break=16 \
	double cow_copy_refcount=16 unnamed cow_fork_copy=16 open 'cow_copy_refcount>=1' \
	nofork cow_fork_copy=16 >"$sj/expect.tsv"
if gcc -O2 -Wall -Wextra -Werror -Itests/guest/lib -o "$sj/scn_judge" tests/host/scn_judge.c \
	tests/guest/lib/scn.c tests/guest/lib/cowtest.c >"$tmp" 2>&1; then
	COWTEST_EXPECT=$sj/expect.tsv COWTEST_PROFILE=host COWTEST_COW_POLICY=1 \
		"$sj/scn_judge" >"$sj/out" 2>&1
	sj_rc=$?
	sj_fail=$(sed -n 's/^not ok [0-9]* - \([a-z]*\): \(.*\)/\1: \2/p' "$sj/out" | tr '\n' ';')
	if [ $sj_rc = 1 ] && [ "$sj_fail" = "double: 32 decisions in all (want 16..18);unnamed: 16 decisions in all (want 0..2);" ]; then
		ok "scenario judge: the total of decisions fails a double decision and an unnamed one, and only those"
	else
		notok "scenario judge: total of decisions" "exit $sj_rc, failed: ${sj_fail:-none}"
	fi
else
	notok "scenario judge compiles" "$(head -n 3 "$tmp")"
fi
rm -rf "$sj"

# 14. scripts/results.py, the one parser of the runs' TAP: a run whose
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
		[ "${2:-}" = short ] || printf '    ok 2 - x: counters\n'
		echo "ok 1 - exclusive/two"
		echo "# policy=exclusive test=vm_selftest_a"
		echo "      ok 1 nested"
		echo "    # VMSELFTEST policy=exclusive sysctl=yes result=pass expected=pass rc=0 secs=1 name=a"
		echo "ok 2 - exclusive/vm_selftest_a"
		if [ "${2:-}" = silent ]; then
			echo "# policy=exclusive test=quiet"
			echo "ok 3 - exclusive/quiet"
		fi
		echo "1..2"
	} >"$rp/$1"
}
rp_case() { # WANT-RC WANT-OUTPUT WHAT
	out=$(python3 scripts/results.py "$rp" 2>&1)
	rc=$?
	if [ $rc = "$1" ] && echo "$out" | grep -q -F -- "$2"; then ok "results.py: $3"
	else notok "results.py: $3" "exit $rc: $(echo "$out" | tr '\n' ' ' | cut -c1-160)"; fi
	rm -f "$rp"/*
}
rp_tap cow-base.tap
rp_case 0 "3 cases (3 passed, 0 failed, 0 skipped) of 2 program runs in 1 guest runs" "every case of a clean run, adapters included"
rp_tap cow-base.tap short
rp_case 1 "problem: cow-base exclusive/two: planned 2 points, printed 1" "a program that printed fewer points than planned fails"
rp_tap cow-base.tap silent
rp_case 1 "problem: cow-base exclusive/quiet: printed no TAP" "a program that printed nothing fails"
rp_case 1 "0 cases" "a run directory without guest runs fails"
rm -rf "$rp"

# 15. scripts/mutants_report.py judges a mutant by its failing cells: caught
# only when every failing cell is expected and every expected cell failed.
mr=$(mktemp -d)
mr_mutant() { # NAME PROGRAM-POINT RUN-VERDICT: fake run of one mutant
	mkdir -p "$mr/$1"
	printf 'TAP version 13\n# policy=mapcount test=scn_x\n    1..1\n    %s 1 - case-a\n%s 1 - mapcount/scn_x\n1..1\n' \
		"$2" "$2" >"$mr/$1/$1-base.tap"
	echo "base $3" >"$mr/$1.runs"
	printf '^base mapcount/scn_x: case-a\n^base run$\n' >"$mr/$1.expect"
}
mr_case() { # WANT-RC WHAT NAME
	python3 scripts/mutants_report.py "$mr" "$3" >/dev/null 2>&1
	if [ $? = "$1" ]; then ok "mutants_report: $2"; else notok "mutants_report: $2" "exit status not $1"; fi
}
mr_mutant caught "not ok" FAILED
mr_case 0 "a mutant failing exactly its expected cells is caught" caught
mr_mutant missed ok ok
mr_case 1 "a mutant that fails nothing is not caught" missed
mr_mutant partial ok FAILED
mr_case 1 "an expected cell that did not fail is reported" partial
mr_case 1 "a mutant that never ran is not caught" neverran
rm -rf "$mr"

echo "$pass passed, $fail failed, $skip skipped"
if [ $fail = 0 ]; then
	stage "check" "ok ($pass passed, $skip skipped)" "$start"
else
	stage "check" "FAILED ($fail failed)" "$start"
	exit 1
fi
