#!/bin/sh
# scripts/flow/soak.sh (make soak DURATION=<minutes> [VARIANT=debug]): the flip
# stress (tests/guest/flipstress.c) for DURATION minutes in one guest of
# the flip profile. The guest program reads cowtest.flipsec= from the
# kernel command line; QEMU and the runner get DURATION + 10 minutes.
# The run goes to results/soak-<date>/ with a meta.env (command, commit,
# kernel, accelerator) that make report renders; the program's closing
# figures (flips, ops per worker type, pin and memory balance) are printed
# again at the end from the run's results channel (<variant>-flip.tap),
# with the judge's verdict on the run.
set -eu
cd "$(dirname "$0")/../.."
. scripts/lib.sh
MAKE=${MAKE:-make}
dur=${DURATION:-30}
case $dur in '' | *[!0-9]*) echo "soak: DURATION must be whole minutes, got '$dur'" >&2; exit 2 ;; esac
[ "$dur" -ge 1 ] || { echo "soak: DURATION must be at least 1 minute" >&2; exit 2; }
v=${VARIANT:-debug}
secs=$((dur * 60))
limit=$((secs + 600))
id=soak-$(date +%Y%m%d-%H%M%S)
rdir=${RESULTS:-results}/$id
# What the run was built from, taken before it starts (a commit made
# during a 30-minute run must not be credited with it).
commit=$(git rev-parse HEAD 2>/dev/null || echo none)
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
rc=0
RUN_ID=$id RUN_GROUPS=flipstress EXTRA_CMDLINE="cowtest.flipsec=$secs cowtest.timeout=$limit" \
	"$MAKE" --no-print-directory run VARIANT="$v" PROFILE=flip TIMEOUT="$limit" RUN_ID="$id" || rc=$?
mkdir -p "$rdir"
obj=$("$MAKE" -s --no-print-directory print-obj-"$v")
{
	echo "run_id=$id"
	echo "date=$started"
	echo "command=make soak DURATION=$dur VARIANT=$v"
	echo "project_commit=$commit"
	echo "series_sha256=$(series_sha256 "${PATCHES:-patches/${KERNEL:-6.1}}")"
	echo "kernel_$v=$(kernel_release "$obj" 2>/dev/null || echo unknown)"
	echo "accel=$(cat "$rdir/accel.txt" 2>/dev/null || echo unknown)"
	echo "minutes=$dur"
} >"$rdir/meta.env"
tap=$rdir/$v-flip.tap
echo "==== soak $v, $dur min: $tap"
if [ -f "$tap" ]; then
	grep -E '# (flipstress|ran|fork|thp|pin|vmsplice|odirect|clearrefs|uffd|ksm|swap|ropin|stressng|flips|log|pins|memory|vmstat)|ok [0-9]+ - flipstress' "$tap" | sed 's/^ *//'
	head -n 1 "${tap%.tap}.judge.txt" 2>/dev/null || true
fi
exit $rc
