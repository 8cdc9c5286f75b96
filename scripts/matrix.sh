#!/bin/sh
# scripts/matrix.sh RESULTS_DIR [EXPECT_TSV]: collect the "# RESULT" lines
# the scenario tests (tests/guest/scn_*.c) printed into the run's console
# logs (RESULTS_DIR/<variant>-<profile>.log) and write RESULTS_DIR/matrix.md:
# one row per scenario and log, one column per policy, each cell the
# observed outcome and the non-zero cow_* counter deltas ("cow_" dropped),
# mismatches with the expectation marked. Expectations that apply to a log
# but have no RESULT line show as "not run" (on the nocow and base variants,
# which have no vm.cow_policy, only the exclusive column of scenarios that
# do not switch the policy applies). Prints
# the path it wrote, and exits 1 when a cell mismatched or did not run.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: matrix.sh RESULTS_DIR [EXPECT_TSV]}
expect=${2:-$top/tests/expect/scenarios.tsv}
out="$dir/matrix.md"
[ -d "$dir" ] || {
	echo "matrix: no such directory $dir" >&2
	exit 1
}

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
kernel=""
for log in "$dir"/*.log; do
	[ -f "$log" ] || continue
	name=$(basename "$log" .log)
	[ -n "$kernel" ] || kernel=$(sed -n 's/^COWTEST-BOOT kernel=\([^ ]*\).*/\1/p' "$log" | head -n 1)
	# "log<TAB>rest of the RESULT line"; printk lines never start with "#".
	sed -n 's/^[[:space:]]*# RESULT //p' "$log" | tr -d '\r' | sed "s|^|$name	|" >>"$tmp"
	# Which profile the log is, for the "not run" cells.
	prof=$(sed -n 's/^# cow-policy run .* profile=\([^ ]*\) .*/\1/p' "$log" | head -n 1)
	var=$(sed -n 's/^# cow-policy run .* variant=\([^ ]*\) .*/\1/p' "$log" | head -n 1)
	printf 'LOG\t%s\t%s\t%s\n' "$name" "$prof" "$var" >>"$tmp"
done

awk -F '\t' -v expect="$expect" -v run="$(basename "$dir")" \
	-v kernel="${kernel:-unknown}" -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" '
BEGIN {
	np = split("exclusive refcount mapcount", pol, " ")
	while ((getline line < expect) > 0) {
		if (line ~ /^#/ || line ~ /^scenario\t/ || line == "") continue
		split(line, f, "\t")
		erow[++ne] = f[1] SUBSEP f[2] SUBSEP f[3]
		eout[f[1], f[2], f[3]] = f[4]
		if (!(f[1] in sorder)) sorder[f[1]] = ne
	}
}
$1 == "LOG" { logprof[$2] = $3; logvar[$2] = $4; logs[++nl] = $2; next }
{
	log_ = $1; n = split($2, w, " ")
	sc = ""; p = ""; o = ""; e = ""; m = ""; c = ""
	for (i = 1; i <= n; i++) {
		split(w[i], kv, "=")
		if (kv[1] == "scenario") sc = kv[2]
		else if (kv[1] == "policy") p = kv[2]
		else if (kv[1] == "outcome") o = kv[2]
		else if (kv[1] == "expected") e = kv[2]
		else if (kv[1] == "match") m = kv[2]
		else if (kv[1] ~ /^cow_/) c = c (c == "" ? "" : " ") substr(kv[1], 5) "=" kv[2]
	}
	key = sc SUBSEP log_
	if (!(key in seen)) { seen[key] = 1; rows[++nr] = key }
	cell[key, p] = (m == "yes" ? "" : "**MISMATCH** ") o (m == "yes" ? "" : " (expected " e ")") \
		(c == "" ? "" : " <sub>" c "</sub>")
	total++
	if (m != "yes") bad++
}
END {
	# Expected cells of each log'"'"'s profile that printed nothing.
	for (j = 1; j <= ne; j++) {
		split(erow[j], f, SUBSEP)
		for (l = 1; l <= nl; l++) {
			if (f[2] != "*" && f[2] != logprof[logs[l]]) continue
			key = f[1] SUBSEP logs[l]
			if (f[2] == "*" && !(key in seen)) continue
			# No vm.cow_policy: only the exclusive column, and no
			# scenario that switches the policy (flip-*).
			if ((logvar[logs[l]] == "nocow" || logvar[logs[l]] == "base") &&
			    (f[3] != "exclusive" || f[1] ~ /^flip-/)) continue
			if (!(key in seen)) { seen[key] = 1; rows[++nr] = key }
			if (!((key, f[3]) in cell)) {
				cell[key, f[3]] = "**not run** (expected " f[4] ")"
				missing++
			}
		}
	}
	printf "# Scenario matrix, run %s\n\n", run
	printf "Kernel %s, %s. %d cells observed, %d mismatches, %d expected cells not run.\n", \
		kernel, date, total, bad + 0, missing + 0
	printf "Expectations: `tests/expect/scenarios.tsv`; counters are /proc/vmstat deltas without the `cow_` prefix.\n\n"
	printf "| scenario | run |"
	for (i = 1; i <= np; i++) printf " %s |", pol[i]
	printf "\n| --- | --- |"
	for (i = 1; i <= np; i++) printf " --- |"
	printf "\n"
	# Rows in the order of the expectations file.
	for (r = 1; r <= nr; r++) {
		split(rows[r], k, SUBSEP)
		ord[r] = (k[1] in sorder ? sorder[k[1]] : 9999) * 100 + r
	}
	for (a = 1; a <= nr; a++) idx[a] = a
	for (a = 2; a <= nr; a++)
		for (b = a; b > 1 && ord[idx[b]] < ord[idx[b - 1]]; b--) {
			t = idx[b]; idx[b] = idx[b - 1]; idx[b - 1] = t
		}
	for (a = 1; a <= nr; a++) {
		r = idx[a]
		split(rows[r], k, SUBSEP)
		printf "| %s | %s |", k[1], k[2]
		for (i = 1; i <= np; i++)
			printf " %s |", ((rows[r], pol[i]) in cell) ? cell[rows[r], pol[i]] : "-"
		printf "\n"
	}
}' "$tmp" >"$out"
echo "$out"
# The header says how many cells mismatched and how many did not run.
sed -n 3p "$out" | grep -q ' 0 mismatches, 0 expected cells not run' || {
	sed -n 3p "$out" >&2
	exit 1
}
