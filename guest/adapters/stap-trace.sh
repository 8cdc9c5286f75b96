#!/bin/sh
# stap-trace (guest; make trace): run the systemtap module named by
# cowtest.stapscript= around the workload in cowtest.workload= (commas stand
# for spaces; default "flipstress,--seconds,10"), then stop it so that it
# prints its end report. The script's output is shown as it comes, with
# stap's own "WARNING:" lines renamed "stap-warning:" so that the harness's
# kernel log scan does not take them for a kernel WARNING.
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
shown=0
show() {
	n=$(wc -l <"$out")
	[ "$n" -gt "$shown" ] && sed -n "$((shown + 1)),${n}p" "$out" | sed 's/WARNING:/stap-warning:/'
	shown=$n
}
staprun "$ko" interval=2 >"$out" 2>&1 &
pid=$!
i=0
until grep -q COWSTAP-READY "$out" 2>/dev/null; do
	i=$((i + 1))
	[ "$i" -lt 600 ] && kill -0 "$pid" 2>/dev/null || { show; echo "stap-trace: staprun did not start"; exit 1; }
	sleep 0.1
done
cmd=$(echo "$workload" | tr , ' ')
echo "stap-trace: $script running; workload: $cmd"
# shellcheck disable=SC2086
$cmd &
wpid=$!
while kill -0 "$wpid" 2>/dev/null; do
	show
	sleep 1
done
wait "$wpid"
rc=$?
kill -INT "$pid"
wait "$pid"
show
echo "stap-trace: workload exit status $rc"
exit "$rc"
