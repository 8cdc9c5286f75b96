#!/bin/sh
# scripts/flow/trace.sh (make trace PROFILE= POLICY= SCRIPT= [WORKLOAD=] [VARIANT=]):
# compile benchmarks/stap/$SCRIPT.stp for the variant, boot the profile with
# the policy and run the script around WORKLOAD (a guest command, default
# "flipstress --seconds 10 --may-skip"), showing the guest console live.
set -eu
. "$(dirname "$0")/../lib.sh"
cd "$(dirname "$0")/../.."
MAKE=${MAKE:-make}
v=${VARIANT:-cow} p=${PROFILE:-base} s=${SCRIPT:-cow_decisions}
wl=${WORKLOAD:-flipstress --seconds 10 --may-skip}
[ -f "benchmarks/stap/$s.stp" ] || die "trace: unknown SCRIPT '$s'; have: $(cd benchmarks/stap && ls ./*.stp | sed 's|^\./||; s|\.stp$||' | tr '\n' ' ')"
case $v in cow | debug) ;; *) die "trace: VARIANT '$v' has no cow:cow_decision tracepoint; use cow or debug" ;; esac
"$MAKE" --no-print-directory stap VARIANT="$v" SCRIPT="$s"
RUN_ID=$(date +%Y%m%d-%H%M%S)-trace
export RUN_ID
log="${RESULTS:-results}/$RUN_ID/$v-$p.log"
RUN_GROUPS=trace EXTRA_CMDLINE="cowtest.stapscript=$s cowtest.workload=$(echo "$wl" | tr ' ' ,)" \
	"$MAKE" --no-print-directory run VARIANT="$v" PROFILE="$p" ${POLICY:+POLICY="$POLICY"} &
pid=$!
i=0
while [ ! -f "$log" ] && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
tail -f "$log" --pid="$pid" 2>/dev/null | grep -v '^\[ *[0-9]*\.[0-9]*\]' || true
wait "$pid"
