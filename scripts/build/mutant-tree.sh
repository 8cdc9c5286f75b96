#!/bin/sh
# scripts/build/mutant-tree.sh KSRC DIR PATCH: the tree of one mutant
# (tests/mutants/, make test-mutants): a worktree of KSRC at branch
# cow-policy in DIR/<the tree's name> (linux-source-6.1) with PATCH applied on top, uncommitted.
# DIR/tree.id names the patch and the branch, rewritten only when they
# change (the Makefile's mutant tree stage).
set -eu
. "$(dirname "$0")/../lib.sh"
ksrc=$1 dir=$2 patch=$3
start=$(now)
name=$(basename "$patch" .patch)
wt="$dir/$(basename "$ksrc")"
[ -d "$ksrc/.git" ] || die "mutant $name: no tree at $ksrc (run make tree)"
git -C "$ksrc" rev-parse -q --verify cow-policy >/dev/null || die "mutant $name: no branch cow-policy in $ksrc (run make tree)"
mkdir -p "$dir"
[ -d "$wt" ] || git -C "$ksrc" worktree add -q --detach "$wt" cow-policy
git -C "$wt" checkout -q --detach -f cow-policy
git -C "$wt" clean -q -fdx
if ! git -C "$wt" apply "$patch"; then
	stage "mutant tree $name" "FAILED ($patch does not apply on cow-policy)" "$start"
	exit 1
fi
write_id "$dir/tree.id" "$(sha256sum <"$patch" | cut -d' ' -f1) $(git -C "$wt" rev-parse HEAD)"
stage "mutant tree $name" "ok ($patch on cow-policy)" "$start"
