#!/bin/sh
# guest/adapters/vm_selftest.sh PROGRAM [ARGS...] (installed as /usr/bin/vm_selftest):
# run one of 6.1's own mm selftests, /usr/bin/vm61_PROGRAM (built from the
# unpacked tree by scripts/build/vmtests.sh), under the current policy, and compare
# its result with /etc/cowtest/expect/vm-selftests.tsv.
#
# The result is the program's exit status read the way 6.1's
# run_vmtests.sh reads it: 0 pass, 4 (KSFT_SKIP) skip, anything else fail;
# a run longer than $VM_SELFTEST_TIMEOUT seconds (default 300) is killed and
# counts as "timeout". A test without a row in the expectation file is
# expected to pass. On a kernel without /proc/sys/vm/cow_policy (unpatched
# 6.1, nocow) the policy is "exclusive": that is the rule such a kernel runs,
# so its expectations are exactly those of exclusive.
#
# make check runs this script on the host against fake programs
# (VM_SELFTEST_BIN: their directory; VM_SELFTEST_SCRATCH: the scratch
# directory emptied after a run, default /mnt/huge; VM_SELFTEST_PREP=0: leave
# the page cache alone).
#
# Prints the program's output indented, then
#   # VMSELFTEST policy=P sysctl=yes|no result=R expected=E rc=N secs=S name=PROGRAM ARGS
# (result=omitted, rc=-, without running it, where the row of this policy
# says "omitted").
# and exits 0: the host judges the result (scripts/report/judge.py). It exits 1
# only when it could not run the program at all.
[ $# -ge 1 ] || { echo "usage: vm_selftest PROGRAM [ARGS...]"; exit 2; }
name="$*"
prog=$1
shift
bin=${VM_SELFTEST_BIN:-/usr/bin}/vm61_$prog
scratch=${VM_SELFTEST_SCRATCH:-/mnt/huge}
expect=${VM_SELFTEST_EXPECT:-/etc/cowtest/expect/vm-selftests.tsv}
limit=${VM_SELFTEST_TIMEOUT:-300}
if [ -e /proc/sys/vm/cow_policy ]; then
	sysctl=yes
	policy=$(cat /proc/sys/vm/cow_policy)
else
	sysctl=no
	policy=exclusive
fi
[ -x "$bin" ] || { echo "# no $bin (scripts/build/vmtests.sh did not build it)"; exit 1; }
[ -f "$expect" ] || { echo "# no $expect"; exit 1; }

# The expected result: the row of this policy, else of "all", else pass.
expected=$(awk -F '\t' -v p="$policy" -v n="$name" '
	substr($0, 1, 1) == "#" || NF < 4 || $2 != n { next }
	$1 == p { mine = $3 }
	$1 == "all" { all = $3 }
	END { print (mine != "" ? mine : (all != "" ? all : "pass")) }' "$expect")

# An invocation the expectation omits under this policy is not run: only
# rows for refcount or mapcount may say "omitted" (the host refuses any
# other, scripts/report/judge.py), each with why the policy cannot change
# the result; exclusive and the kernels without the sysctl always run it.
if [ "$expected" = omitted ]; then
	echo "  # omitted under $policy: tests/expect/vm-selftests.tsv says why"
	echo "# VMSELFTEST policy=$policy sysctl=$sysctl result=omitted expected=omitted rc=- secs=0 name=$name"
	exit 0
fi

# run_once: runs the program; sets rc and secs, prints its output.
run_once() {
	# The THP and KSM tests want free huge pages and their own settings:
	# start each program from a dropped page cache and compacted memory.
	if [ "${VM_SELFTEST_PREP:-1}" = 1 ]; then
		sync
		echo 3 >/proc/sys/vm/drop_caches 2>/dev/null
		echo 1 >/proc/sys/vm/compact_memory 2>/dev/null
	fi
	# Some programs (split_huge_page_test) make their files in the
	# current directory or /tmp.
	cd /tmp || exit 1
	out=$(mktemp /tmp/vm_selftest.XXXXXX) || exit 1
	# The THP counters before it, for the failure report below.
	thp0=$(grep -E '^thp_' /proc/vmstat 2>/dev/null)
	t0=$(date +%s)
	timeout "$limit" "$bin" "$@" </dev/null >"$out" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	# Like run_vmtests.sh's "rm -f $mnt/uffd-test": files a program left
	# on the hugetlbfs scratch mount hold reserved huge pages the next one
	# needs.
	rm -f "$scratch"/* 2>/dev/null
	sed 's/^/  /' "$out"
	rm -f "$out"
	# A KSM test that failed: KSM's counters as it left them, for whoever
	# reads the log.
	case "$rc:$prog" in
	0:* | 4:*) ;;
	*:ksm_tests) for f in /sys/kernel/mm/ksm/*; do
			[ -f "$f" ] && printf '  # ksm %s=%s\n' "${f##*/}" "$(cat "$f")"
		done ;;
	esac
	# Any program that failed: the THP counters that moved while it ran
	# (a split that a collapse undid, a split that failed, a THP that was
	# never allocated), for whoever reads the log.
	case $rc in
	0 | 4) ;;
	*) grep -E '^thp_' /proc/vmstat 2>/dev/null | awk -v before="$thp0" '
		BEGIN { n = split(before, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], f, " "); b[f[1]] = f[2] } }
		$2 != b[$1] { printf "  # vmstat %s +%d\n", $1, $2 - b[$1] }' ;;
	esac
	# A program killed by a signal (a crash) is not the failure it may be
	# expected to have (split_huge_page_test exits 1).
	case $rc in
	0) result=pass ;;
	4) result=skip ;;
	124 | 137 | 143) result=timeout ;;
	*) if [ "$rc" -gt 128 ]; then result=crash; else result=fail; fi ;;
	esac
}
run_once "$@"
echo "# VMSELFTEST policy=$policy sysctl=$sysctl result=$result expected=$expected rc=$rc secs=$secs name=$name"
# The host judges the result (scripts/report/judge.py); "expected" is this image's
# copy of the expectation, for people reading the log.
exit 0
