#!/bin/sh
# scripts/flow/soak.sh (make soak DURATION=<minutes> [VARIANT=debug]): the flip
# stress (tests/guest/flipstress.c) for DURATION minutes in one guest of
# the flip profile. The guest program reads cowtest.flipsec= from the
# kernel command line; QEMU and the runner get DURATION + 10 minutes.
# Prints the program's closing figures (flips, ops per worker type, pin
# and memory balance) again at the end, from the run's results channel
# (<variant>-flip.tap), and the judge's verdict on the run.
set -eu
cd "$(dirname "$0")/../.."
MAKE=${MAKE:-make}
dur=${DURATION:-30}
case $dur in '' | *[!0-9]*) echo "soak: DURATION must be whole minutes, got '$dur'" >&2; exit 2 ;; esac
[ "$dur" -ge 1 ] || { echo "soak: DURATION must be at least 1 minute" >&2; exit 2; }
v=${VARIANT:-debug}
secs=$((dur * 60))
limit=$((secs + 600))
rc=0
RUN_GROUPS=flipstress EXTRA_CMDLINE="cowtest.flipsec=$secs cowtest.timeout=$limit" \
	"$MAKE" --no-print-directory run VARIANT="$v" PROFILE=flip TIMEOUT="$limit" || rc=$?
tap=$(ls -t "${RESULTS:-results}"/*/"$v"-flip.tap 2>/dev/null | head -1)
echo "==== soak $v, $dur min: $tap"
if [ -n "$tap" ]; then
	grep -E '# (flipstress|ran|fork|thp|pin|vmsplice|odirect|clearrefs|uffd|ksm|swap|ropin|flips|log|pins|memory|vmstat)|ok [0-9]+ - flipstress' "$tap" | sed 's/^ *//'
	cat "${tap%.tap}.judge.txt" 2>/dev/null | head -n 1
fi
exit $rc
