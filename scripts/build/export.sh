#!/bin/sh
# scripts/build/export.sh KSRC PATCHDIR
# Write base..cow-policy of the tree as numbered patches into PATCHDIR and
# rewrite PATCHDIR/series. The patches listed in the old series are removed.
# The committed patches keep the project's neutral identity ("cow-policy
# developers <cow-policy@example.org>"): the exporter's (git config
# user.name/user.email in the tree) becomes it again in From: and
# Signed-off-by:, but not a backport's upstream author or trailers
# (scripts/report/cowresults/identity.py). make rfc gives the series to its
# sender.
set -eu
. "$(dirname "$0")/../lib.sh"
ksrc=$1 patchdir=$2
start=$(now)
[ -d "$ksrc/.git" ] || die "export: no tree at $ksrc (run make tree)"
git -C "$ksrc" rev-parse -q --verify refs/heads/cow-policy >/dev/null ||
	die "export: the tree has no branch cow-policy (run make tree)"
mkdir -p "$patchdir"
tmp=$(mktemp -d)
git -C "$ksrc" format-patch -q -o "$tmp" base..cow-policy
email=$(git -C "$ksrc" config user.email || true)
ident=""
[ -z "$email" ] || ident="$(git -C "$ksrc" config user.name || true) <$email>"
for f in "$tmp"/*.patch; do
	[ -f "$f" ] || continue
	python3 "$(dirname "$0")/../report/cowresults/identity.py" export --ident "$ident" "$f" ||
		die "export: could not give $(basename "$f") the neutral identity"
done
for p in $(series_patches "$patchdir"); do rm -f "$patchdir/$p"; done
n=0
: >"$patchdir/series.new"
for f in "$tmp"/*.patch; do
	[ -f "$f" ] || continue
	b=$(basename "$f")
	mv "$f" "$patchdir/$b"
	echo "$b" >>"$patchdir/series.new"
	n=$((n + 1))
done
mv "$patchdir/series.new" "$patchdir/series"
rmdir "$tmp"
# The tree now matches the series: record it so make tree keeps it as is.
files=""
for p in $(series_patches "$patchdir"); do files="$files $patchdir/$p"; done
# shellcheck disable=SC2086
echo "$(hash_files "$patchdir/series" $files) $(git -C "$ksrc" rev-parse cow-policy)" >"$ksrc/.git/cow-policy.stamp"
stage "export" "ok ($n patches written to $patchdir, series rewritten)" "$start"
