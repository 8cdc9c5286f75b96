#!/bin/sh
# scripts/flow/fanout.sh: the runs of a matrix as a manifest, for a job
# runner other than make (GNU parallel here; a CI system, a cluster).
#
#   fanout.sh manifest V:P...   one line per run, tab-separated:
#       <variant> <profile> <image: make target that builds it>
#       <run: command that boots it> <results: where its files go>
#     into results/<RUN_ID>/manifest.tsv (and on stdout)
#   fanout.sh parallel [PARALLEL-ARGS...]   the demo: make images, then GNU
#       parallel runs every line of the manifest of TEST_MATRIX (-j2 by
#       default; --sshloginfile FILE for other hosts, see README), then the
#       judge over results/<RUN_ID>/ (make judge RUN=...)
#
# A run line only reads the image, so runs of one manifest may go side by
# side once `make images` is done; each writes only its own
# <variant>-<profile>.* files in the results directory.
set -u
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
MAKE=${MAKE:-make}
RUN_ID=${RUN_ID:-$(date +%Y%m%d-%H%M%S)}
rdir="$RESULTS/$RUN_ID"
mode=${1:-}
[ $# -gt 0 ] && shift

# The kernel line of the runs (make manifest KERNEL=6.12): named in each
# command unless it is the default, 6.1.
kopt=""
[ "${KERNEL:-6.1}" = 6.1 ] || kopt=" KERNEL=$KERNEL"

manifest() {
	mkdir -p "$rdir"
	for vp in "$@"; do
		case $vp in *:*) ;; *) die "fanout: '$vp' is not variant:profile" ;; esac
		v=${vp%%:*} p=${vp#*:}
		printf '%s\t%s\t%s\t%s\t%s\n' "$v" "$p" \
			"make images MATRIX=$v:$p$kopt" \
			"make run VARIANT=$v PROFILE=$p RUN_ID=$RUN_ID$kopt" \
			"$rdir/$v-$p.*"
	done >"$rdir/manifest.tsv"
	cat "$rdir/manifest.tsv"
}

case $mode in
manifest)
	[ $# -gt 0 ] || die "usage: fanout.sh manifest VARIANT:PROFILE..."
	manifest "$@"
	;;
parallel)
	command -v parallel >/dev/null 2>&1 || die "fanout: GNU parallel is not installed (apt-get install parallel)"
	# shellcheck disable=SC2086 # TEST_MATRIX is a list
	manifest $TEST_MATRIX >/dev/null
	begin=$(now)
	"$MAKE" --no-print-directory images MATRIX="$TEST_MATRIX" || die "fanout: make images failed"
	stage "images" "ok" "$begin"
	t=$(now)
	# Columns 1 and 2 are the variant and the profile; the run's own
	# verdict is its .status file, so a failed run does not stop the rest.
	parallel --colsep '\t' --halt never -j2 "$@" \
		"$MAKE" --no-print-directory run "VARIANT={1}" "PROFILE={2}" RUN_ID="$RUN_ID" \
		:::: "$rdir/manifest.tsv"
	stage "parallel runs" "done ($(wc -l <"$rdir/manifest.tsv") runs)" "$t"
	"$MAKE" --no-print-directory judge RUN="$rdir" MATRIX="$TEST_MATRIX"
	;;
*) die "usage: fanout.sh manifest VARIANT:PROFILE... | fanout.sh parallel [PARALLEL-ARGS...]" ;;
esac
