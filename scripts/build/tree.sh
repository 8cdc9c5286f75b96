#!/bin/sh
# scripts/build/tree.sh KTAR KSRC PATCHDIR TESTED_DEBIAN_VERSION [ID-FILE]
# Unpack Debian's linux-source-<line> (KTAR, /usr/src/linux-source-6.1.tar.xz
# or -6.12) into a git tree (tag "base") if absent, then apply
# PATCHDIR/series (patches/<line>/) onto branch cow-policy with git am, no
# fuzz.
# ID-FILE (the Makefile's tree.id) gets the series hash and the tree's HEAD,
# rewritten only when they change.
set -eu
. "$(dirname "$0")/../lib.sh"
ktar=$1 ksrc=$2 patchdir=$3 tested=$4 idfile=${5:-}
FORCE=${FORCE:-}
GIT_IDENT="-c user.name=cow-policy -c user.email=cow-policy@localhost"

# The package, and the tarball's top directory: linux-source-6.1, -6.12.
pkg=$(basename "$ktar" .tar.xz)
installed=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
if [ -n "$installed" ] && [ "$installed" != "$tested" ]; then
	echo "NOTICE: the series was last tested on Debian $pkg $tested; installed is $installed"
fi

# --- unpack -------------------------------------------------------------
if [ ! -d "$ksrc/.git" ]; then
	start=$(now)
	[ -f "$ktar" ] || die "missing $ktar: run 'make deps' (package $pkg)"
	[ ! -e "$ksrc" ] || die "$ksrc exists but is not a git tree; move it away"
	tmp="$ksrc.unpack.$$"
	rm -rf "$tmp" && mkdir -p "$tmp"
	tar -xJf "$ktar" -C "$tmp"
	# -T: a tree another run unpacked meanwhile is an error, not a
	# destination to move this one into.
	mv -T "$tmp/$pkg" "$ksrc" ||
		{ rm -rf "$tmp"; die "unpack: $ksrc appeared while unpacking (another make running here?)"; }
	rmdir "$tmp"
	# Debian's .gitignore ends by ignoring everything; drop that block.
	awk '/^# Debian packaging: ignore everything/ { exit } { print }' \
		"$ksrc/.gitignore" >"$ksrc/.gitignore.new"
	mv "$ksrc/.gitignore.new" "$ksrc/.gitignore"
	(
		cd "$ksrc"
		git init -q
		git add -A
		# shellcheck disable=SC2086
		git $GIT_IDENT commit -q -m "Debian $pkg ${installed:-unknown}"
		git tag base
	)
	stage "unpack" "ok ($ksrc)" "$start"
fi

# --- patch --------------------------------------------------------------
start=$(now)
stampf="$ksrc/.git/cow-policy.stamp"
patches=$(series_patches "$patchdir")
npatches=0
files=""
for p in $patches; do
	[ -f "$patchdir/$p" ] || die "$patchdir/series lists $p but $patchdir/$p does not exist"
	files="$files $patchdir/$p"
	npatches=$((npatches + 1))
done
# shellcheck disable=SC2086
key=$(hash_files "$patchdir/series" $files)
head=$(git -C "$ksrc" rev-parse -q --verify refs/heads/cow-policy || true)
branch=$(git -C "$ksrc" symbolic-ref -q --short HEAD || true)
base=$(git -C "$ksrc" rev-parse base)
stamp_key='' stamp_head=''
if [ -f "$stampf" ]; then read -r stamp_key stamp_head <"$stampf"; fi

if [ "$key" = "$stamp_key" ] && [ "$head" = "$stamp_head" ] && [ "$branch" = cow-policy ]; then
	[ -z "$idfile" ] || write_id "$idfile" "$stamp_key $stamp_head"
	stage "patch" "ok (series unchanged, $npatches patches)" "$start"
	exit 0
fi

# Never throw away a developer's work in the tree.
if [ -z "$FORCE" ]; then
	if [ -n "$(git -C "$ksrc" status --porcelain --untracked-files=no)" ]; then
		die "patch: $ksrc has uncommitted changes; commit them and run 'make export' (or FORCE=1 to discard)"
	fi
	if [ -n "$head" ] && [ "$head" != "$stamp_head" ] && [ "$head" != "$base" ]; then
		die "patch: branch cow-policy has commits that are not in patches/ ('make export' them, or FORCE=1 to discard)"
	fi
fi

rm -f "$stampf"
git -C "$ksrc" checkout -q -f -B cow-policy base
for p in $patches; do
	abs=$(cd "$patchdir" && pwd)/$p
	# shellcheck disable=SC2086
	if ! out=$(git -C "$ksrc" $GIT_IDENT am -q --no-3way --committer-date-is-author-date "$abs" 2>&1); then
		git -C "$ksrc" am --abort >/dev/null 2>&1 || true
		failing=$(printf '%s\n' "$out" | sed -n \
			-e 's/^error: patch failed: \(.*\):[0-9]*$/\1/p' \
			-e 's/^error: \(.*\): does not exist in index$/\1/p' \
			-e 's/^error: \(.*\): already exists in index$/\1/p' \
			-e 's/^error: \(.*\): No such file or directory$/\1/p' | sort -u | tr '\n' ' ')
		printf '%s\n' "$out" | sed 's/^/    /' >&2
		stage "patch" "FAILED" "$start"
		die "patch $p does not apply: ${failing:-see git am output above}"
	fi
done
echo "$key $(git -C "$ksrc" rev-parse HEAD)" >"$stampf"
[ -z "$idfile" ] || write_id "$idfile" "$key $(git -C "$ksrc" rev-parse HEAD)"
stage "patch" "ok ($npatches patches applied on base)" "$start"
