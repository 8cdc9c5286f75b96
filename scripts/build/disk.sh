#!/bin/sh
# scripts/build/disk.sh DIR FRESH_MIB WARM_MIB: make test's disk check.
# A run that fills the disk fails halfway, in whichever stage wrote last
# (a dracut image, a compiler's temporary file), with "No space left on
# device" as its only reason; this check says it first, with the numbers.
# A fresh DIR (no kernel tree yet) needs FRESH_MIB free on its filesystem:
# the trees, four kernels' objects, the images and results of one make
# test as measured (scripts/flow/test.sh records the build directory's
# size in meta.env at its end) and a cold ccache's growth; a DIR that holds
# a tree needs WARM_MIB.
set -eu
. "$(dirname "$0")/../lib.sh"
start=$(now)
dir=$1 fresh=$2 warm=$3
case $fresh$warm in *[!0-9]*) die "disk: FRESH_MIB and WARM_MIB must be numbers of MiB (got '$fresh' '$warm')" ;; esac
mkdir -p "$dir"
need=$warm
[ -d "$dir/linux-source-6.1/.git" ] || need=$fresh
# free_mib PATH: MiB available to this user on PATH's filesystem.
free_mib() { df -Pk "$1" | awk 'NR == 2 { print int($4 / 1024) }'; }
have=$(free_mib "$dir")
if [ "$have" -lt "$need" ]; then
	die "disk: only $have MiB free on the filesystem of $dir; this run needs about $need MiB there (kernel trees, objects, images, results); free some or point BUILD= elsewhere"
fi
stage disk "ok ($have MiB free in $dir, needs about $need)" "$start"
