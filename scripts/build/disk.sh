#!/bin/sh
# scripts/build/disk.sh DIR WARM_MIB [TREE=FRESH_MIB ...]: make test's disk
# check. A run that fills the disk fails halfway, in whichever stage wrote
# last (a dracut image, a compiler's temporary file), with "No space left on
# device" as its only reason; this check says it first, with the numbers.
# Every run needs WARM_MIB free on DIR's filesystem (images, results,
# ccache's growth); each kernel line whose tree TREE (a directory that git
# makes, TREE/.git) is not there yet needs its FRESH_MIB more: its trees,
# kernels' objects and images, as measured (scripts/flow/test.sh records the
# build directory's size in meta.env at its end).
set -eu
. "$(dirname "$0")/../lib.sh"
start=$(now)
[ $# -ge 2 ] || die "usage: disk.sh DIR WARM_MIB [TREE=FRESH_MIB ...]"
dir=$1 need=$2
shift 2
case $need in '' | *[!0-9]*) die "disk: WARM_MIB must be a number of MiB (got '$need')" ;; esac
cold=""
for t in "$@"; do
	tree=${t%=*} fresh=${t##*=}
	case $t:$fresh in *=*:[0-9]*) ;; *) die "disk: '$t' is not TREE=FRESH_MIB" ;; esac
	case $fresh in *[!0-9]*) die "disk: FRESH_MIB of $tree must be a number of MiB (got '$fresh')" ;; esac
	[ -d "$tree/.git" ] && continue
	need=$((need + fresh))
	cold="$cold ${tree##*/}"
done
mkdir -p "$dir"
# free_mib PATH: MiB available to this user on PATH's filesystem.
free_mib() { df -Pk "$1" | awk 'NR == 2 { print int($4 / 1024) }'; }
have=$(free_mib "$dir")
what="${cold:+ (to build from fresh:$cold)}"
if [ "$have" -lt "$need" ]; then
	die "disk: only $have MiB free on the filesystem of $dir; this run needs about $need MiB there$what (kernel trees, objects, images, results); free some or point BUILD= elsewhere"
fi
stage disk "ok ($have MiB free in $dir, needs about $need$what)" "$start"
