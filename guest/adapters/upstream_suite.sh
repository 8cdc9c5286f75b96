#!/bin/sh
# guest/adapters/upstream_suite.sh SUITE (installed as /usr/bin/upstream_suite): run
# upstream's selftest /usr/bin/upstream_SUITE (cow or gup_longterm, built by
# scripts/build/upstream.sh from linux-source-6.12) under the current policy
# ($COW_POLICY, set by the runner) and report every case; this image's copy
# of tests/expect/upstream.tsv (rows of policy "all" apply to every policy)
# only annotates the report, the host judges.
#
# A case is named by its "# [RUN] ..." line (a repeated name gets " [2]",
# " [3]", ...). Prints the suite's own output indented, then one line per case
#   # UPSTREAM-CASE suite=S policy=P result=pass|fail|skip|xfail expected=yes|no name=NAME
# one line per expected failure that did not happen
#   # UPSTREAM-MISSING suite=S policy=P name=NAME
# and a total
#   # UPSTREAM-TOTAL suite=S policy=P pass=N fail=N skip=N xfail=N ropin_ran=N ropin_skip=N unexpected=N missing=N
# (ropin: R/O long-term pin cases, which need PIN_LONGTERM_TEST_*, patch 0007).
# The host judges the cases (scripts/report/judge.py) against tests/expect/upstream.tsv;
# expected= and the MISSING/unexpected counts are this image's view, for
# people. Exit 1 only when the suite printed no results or fewer than its
# plan (it crashed or was cut short), else 0.
suite=${1:?usage: upstream_suite cow|gup_longterm}
policy=${COW_POLICY:-$(cat /proc/sys/vm/cow_policy 2>/dev/null || echo none)}
bin=/usr/bin/upstream_$suite
expect=${UPSTREAM_EXPECT:-/etc/cowtest/expect/upstream.tsv}
out=/tmp/upstream-$suite-$policy.out
[ -x "$bin" ] || { echo "# no $bin (scripts/build/upstream.sh did not build it)"; exit 1; }
[ -f "$expect" ] || { echo "# no $expect"; exit 1; }

# Free the page cache and compact, so the THP cases find huge pages.
sync
echo 3 >/proc/sys/vm/drop_caches 2>/dev/null
echo 1 >/proc/sys/vm/compact_memory 2>/dev/null

# gup_longterm.c makes its "local tmpfile" in the current directory: the
# profile's ext4 scratch file system on /mnt/local (upstream expects a disk
# file system there), else tmpfs /tmp.
if grep -q " /mnt/local " /proc/mounts; then cd /mnt/local || exit 1; else cd /tmp || exit 1; fi
"$bin" >"$out" 2>&1
rc=$?
sed 's/^/  /' "$out"
echo "# $bin exit status $rc"

# The expected failures of this suite and policy on this kernel line (the
# row's optional fifth column, default 6.1), one name a line.
kline=$(uname -r | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
awk -F '\t' -v s="$suite" -v p="$policy" -v k="$kline" '
	substr($0, 1, 1) == "#" || NF < 4 { next }
	($1 == p || $1 == "all") && $2 == s && ($5 == "" ? "6.1" : $5) == k { print $3 }' "$expect" >/tmp/upstream-expected

awk -v s="$suite" -v p="$policy" -v expf=/tmp/upstream-expected '
BEGIN {
	while ((getline l < expf) > 0) want[l] = 1
	name = ""
	plan = -1
}
/^1\.\.[0-9]+$/ { plan = substr($0, 4) + 0; next }
/^# \[RUN\] / {
	name = substr($0, 9)
	seen[name]++
	if (seen[name] > 1) name = name " [" seen[name] "]"
	next
}
/^(not )?ok [0-9]+ / {
	if ($0 ~ /^not ok /) r = "fail"
	else if ($0 ~ /^ok [0-9]+ # SKIP/) r = "skip"
	else if ($0 ~ /^ok [0-9]+ # XFAIL/) r = "xfail"
	else r = "pass"
	n = (name == "" ? "(no [RUN] line)" : name)
	cnt[r]++
	e = (n in want) ? "yes" : "no"
	if (r == "fail") {
		failed[n] = 1
		if (e == "no") unexpected++
	}
	if (n ~ /R\/O (longterm )?GUP(-fast)? pin/) {
		if (r == "skip") ropin_skip++; else ropin_ran++
	}
	printf "# UPSTREAM-CASE suite=%s policy=%s result=%s expected=%s name=%s\n", s, p, r, e, n
	name = ""
}
END {
	for (n in want) if (!(n in failed)) {
		printf "# UPSTREAM-MISSING suite=%s policy=%s name=%s\n", s, p, n
		missing++
	}
	total = cnt["pass"] + cnt["fail"] + cnt["skip"] + cnt["xfail"]
	if (plan != total) {
		printf "# UPSTREAM-INCOMPLETE suite=%s policy=%s plan=%d results=%d\n", s, p, plan, total
		incomplete = 1
	}
	printf "# UPSTREAM-TOTAL suite=%s policy=%s pass=%d fail=%d skip=%d xfail=%d ropin_ran=%d ropin_skip=%d unexpected=%d missing=%d\n",
		s, p, cnt["pass"], cnt["fail"], cnt["skip"], cnt["xfail"], ropin_ran, ropin_skip, unexpected, missing
	exit (incomplete || total == 0) ? 1 : 0
}' "$out"
