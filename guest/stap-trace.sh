#!/bin/sh
# stap-trace (guest; make trace): run the systemtap module named by
# cowtest.stapscript= around the workload in cowtest.workload= (commas stand
# for spaces; default "flipstress,--seconds,10"), then stop it so that it
# prints its end report. Output goes to the console (the run's log).
script=cow_decisions workload="flipstress,--seconds,10"
for w in $(cat /proc/cmdline); do
	case $w in
	cowtest.stapscript=*) script=${w#*=} ;;
	cowtest.workload=*) workload=${w#*=} ;;
	esac
done
ko=/usr/lib/stap/$script.ko
[ -f "$ko" ] || { echo "stap-trace: no $ko (have: $(ls /usr/lib/stap 2>/dev/null | tr '\n' ' '))"; exit 1; }
mkdir -p /sys/kernel/debug
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
out=/tmp/stap-trace.out
staprun "$ko" interval=2 >"$out" 2>&1 &
pid=$!
i=0
until grep -q COWSTAP-READY "$out" 2>/dev/null; do
	i=$((i + 1))
	[ "$i" -lt 600 ] && kill -0 "$pid" 2>/dev/null || { cat "$out"; echo "stap-trace: staprun did not start"; exit 1; }
	sleep 0.1
done
tail -f "$out" &
tailpid=$!
echo "stap-trace: $script running; workload: $(echo "$workload" | tr , ' ')"
cmd=$(echo "$workload" | tr , ' ')
# shellcheck disable=SC2086
$cmd
rc=$?
kill -INT "$pid"
wait "$pid"
sleep 1
kill "$tailpid" 2>/dev/null
echo "stap-trace: workload exit status $rc"
exit "$rc"
