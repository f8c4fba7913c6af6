#!/usr/bin/env bash
# prec stat: the output matches perf stat's line for line, with the counts
# (which cannot be the same twice) masked digit for digit, so that widths and
# alignment still count; prec stat record + prep stat report prints exactly
# what the live run printed; errors and the exit status.
set -u
B=${BUILD:-build}
PREC=./prec PREP=./prep
[ "$B" = build ] || { PREC=$B/prec; PREP=$B/prep; }
P=$B/tests/programs
d=$(mktemp -d)
. tests/e2e/lib/unpriv.sh
trap 'paranoid_restore; kill $(jobs -p) 2>/dev/null; rm -rf "$d"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

[ -r /proc/sys/kernel/perf_event_paranoid ] || { echo "no perf events on this kernel"; exit 77; }
if [ "$(id -u)" -ne 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 0 ]; then
	echo "needs root or perf_event_paranoid <= 0"; exit 77
fi

# Every number, with the spaces before it, becomes as many X: right-aligned
# columns keep their width. CSV fields become N. -r's elapsed line prints as
# many decimals as its error needs: its numbers become one X. A counter's
# run-to-run variation is left out (it shows only when the runs differed,
# which page faults do or do not from one try to the next). The K/M/G of a
# rate is left out too: a rate near 1000/s is printed either way.
mask() {
	if [ "$1" = csv ] || [ "$1" = json ]; then
		perl -pe 's/[0-9][0-9.]*/N/g; s/[KMG]\/sec/\/sec/g'
	else
		perl -pe 'if (/\+-.*elapsed/) { s/ *[0-9][0-9.,]*/X/g } else { s/  \( \+- *[0-9.]+% \)$//; s/( *[0-9][0-9.,]*)/"X" x length($1)/ge; s/[KMG]\/sec/\/sec /g }'
	fi
}

# Who runs both tools: AS="" (this user) or AS=as_user (tests/e2e/lib/unpriv.sh), with
# SPREC/SPREP the binaries that user may run and WD a folder it may write.
# NOTE is how many times prec's note about user-space-only counting must
# appear on stderr (0 or 1); it is prec's one line that perf does not print,
# left out of the comparison.
AS= SPREC=$PREC SPREP=$PREP NOTE=0 WD=$d
note_re='^prec stat: perf_event_paranoid is [0-9-]*: measuring user space only'
check_note() {   # FILE WHAT
	local n
	n=$(grep -c "$note_re" "$1")
	[ "$n" -eq "$NOTE" ] || fail "$2: $n user-space-only notes, not $NOTE${AS:+ (as $UNPRIV_USER)}"
}

compare() {   # KIND "OPTIONS" COMMAND...   (KIND sorted: the order of lines is left out)
	local kind=$1 opts=$2 order=cat; shift 2
	[ "$kind" = sorted ] && { kind=text; order=sort; }
	$AS perf stat $opts -- "$@" 2>"$d/perf.out" >/dev/null
	$AS $SPREC stat $opts -- "$@" 2>"$d/prec.out" >/dev/null
	check_note "$d/prec.out" "prec stat $opts"
	if ! diff <(mask "$kind" <"$d/perf.out" | $order) \
		  <(grep -v "$note_re" "$d/prec.out" | mask "$kind" | $order) >"$d/diff"; then
		fail "prec stat $opts${AS:+ (as $UNPRIV_USER)} differs from perf stat:"
		head -20 "$d/diff"
	fi
}

# stat record + stat report: the report prints what the live run printed
# (less the note), which matches perf stat's output.
compare_record() {   # KIND "OPTIONS" COMMAND...
	local kind=$1 opts=$2 rep_opts; shift 2
	rep_opts=$(echo "$opts" | grep -oE -- '-x .|-j|--summary')
	rm -f "$WD/rec.data"
	$AS perf stat $opts -- "$@" 2>"$d/perf.out" >/dev/null
	$AS $SPREC stat record -o "$WD/rec.data" $opts -- "$@" 2>"$d/live" >/dev/null ||
		fail "stat record $opts${AS:+ (as $UNPRIV_USER)}: exit $?"
	$AS $SPREP stat report -i "$WD/rec.data" $rep_opts >"$d/rep" 2>&1
	check_note "$d/live" "stat record $opts"
	cmp -s <(grep -v "$note_re" "$d/live") "$d/rep" ||
		{ fail "stat report $opts${AS:+ (as $UNPRIV_USER)} differs from the live run:";
		  diff <(grep -v "$note_re" "$d/live") "$d/rep" | head; }
	diff <(mask "$kind" <"$d/perf.out") <(mask "$kind" <"$d/rep") >"$d/diff" ||
		{ fail "stat report $opts${AS:+ (as $UNPRIV_USER)} differs from perf stat:"; head "$d/diff"; }
}

# -M: prec has no metric tables. On a machine without a cpu PMU perf prints
# "Cannot find metric or group `IPC'" where it does not know the CPU, or an
# event syntax error about a PMU named after the metric's first event where
# it does (it knows the metric, the machine lacks its counters); either way
# it goes on with the default events and exits 0. prec prints the first,
# which is true of prec on every machine, and goes on the same way. With a
# cpu PMU perf computes the metric, which prec cannot: only prec's line and
# exit status are checked there.
compare_metric() {   # COMMAND...
	local rc prc
	perf stat -M IPC -- "$@" 2>"$d/perf.out" >/dev/null; prc=$?
	$PREC stat -M IPC -- "$@" 2>"$d/prec.out" >/dev/null; rc=$?
	[ "$(head -1 "$d/prec.out")" = "Cannot find metric or group \`IPC'" ] && [ $rc -eq 0 ] ||
		fail "-M IPC: exit $rc, $(head -1 "$d/prec.out")"
	[ -d /sys/bus/event_source/devices/cpu ] && return
	[ $prc -eq $rc ] || fail "-M IPC: exit $rc, perf's $prc"
	# what precedes the counts: one line from prec, perf's error (one or more)
	[ "$(sed -n '/Performance counter stats/q; p' "$d/prec.out" | grep -c .)" -eq 1 ] &&
		[ "$(sed -n '/Performance counter stats/q; p' "$d/perf.out" | grep -c .)" -ge 1 ] ||
		fail "-M IPC: the lines before the counts: $(head -3 "$d/prec.out")"
	diff <(sed -n '/Performance counter stats/,$p' "$d/perf.out" | mask text) \
	     <(sed -n '/Performance counter stats/,$p' "$d/prec.out" | mask text) >"$d/diff" ||
		{ fail "-M IPC: the counts differ from perf stat's:"; head "$d/diff"; }
}

if command -v perf >/dev/null && perf stat -e task-clock true >/dev/null 2>&1; then
	compare text "" $P/spin 100
	compare csv "-x ," $P/spin 100
	compare text "-r 3 -e task-clock,page-faults,cycles" $P/spin 200   # counts that can be 0 in one run and not the next would change the layout
	compare csv "-r 3 -x ; -e task-clock,page-faults" $P/spin 200
	compare text "-e task-clock,page-faults,cycles:u" $P/spin 200
	compare text "-n" $P/spin 200
	compare text "-a -e task-clock,context-switches" sleep 0.2
	compare text "-a" sleep 0.1          # system-wide the default set counts cpu-clock
	compare csv "-C 0 -x ," sleep 0.1
	compare_record text "-a" sleep 0.1
	compare text "-C 0 -e task-clock" sleep 0.1
	compare text "-A -a -e task-clock,context-switches" sleep 0.1
	compare csv "-A -a -x , -e task-clock" sleep 0.1
	compare text "--per-core -a -e task-clock,context-switches" sleep 0.1
	compare text "--per-socket -a -e task-clock" sleep 0.1
	compare text "--per-die -a -e task-clock" sleep 0.1
	compare text "--per-node -a -e task-clock" sleep 0.1
	compare text "-I 100 -e task-clock,page-faults" sleep 0.25   # wall time: as many intervals however busy the machine
	compare csv "-I 100 -x , -e task-clock" sleep 0.25
	compare text "-I 100 -A -a -e task-clock" sleep 0.25
	compare text "-I 100 --per-core -a -e task-clock" sleep 0.15
	compare text "-I 100 --interval-count 2 -e task-clock" sleep 1
	compare json "-j" $P/spin 50
	compare json "-j -r 2 -e task-clock" $P/spin 50
	compare json "-j -A -a -e task-clock" sleep 0.05
	compare json "-j --per-core -a -e task-clock" sleep 0.05
	compare json "-j -I 100 -e task-clock" sleep 0.15
	compare text "-d" $P/spin 20
	compare text "-ddd" $P/spin 20
	compare text "-I 100 --summary -e task-clock" sleep 0.15
	compare csv "-I 100 --summary -x , -e task-clock" sleep 0.15
	compare csv "-I 100 --summary --no-csv-summary -x , -e task-clock" sleep 0.15
	compare text "--all-user -e task-clock,page-faults" $P/spin 20
	compare text "--all-kernel -e task-clock" $P/spin 20
	compare text "--no-scale -e task-clock" $P/spin 20
	compare text "-D 50 -e task-clock" $P/spin 100
	compare_metric $P/spin 20
	compare text "-e {task-clock,page-faults},context-switches" $P/spin 50
	compare csv "-x , -e {task-clock,page-faults,cycles}" $P/spin 50
	compare text "-A -a -e {task-clock,context-switches}" sleep 0.1
	$P/spin 3000 >/dev/null &
	spid=$!
	sleep 0.2
	compare text "-p $spid -e task-clock,page-faults" sleep 0.2
	compare text "-t $spid -e task-clock" sleep 0.2
	kill $spid 2>/dev/null; wait $spid 2>/dev/null
	# per thread: perf orders threads by count, which changes from run to run
	$P/threads 3000 >/dev/null &
	spid=$!
	sleep 0.2
	compare sorted "--per-thread -p $spid -e task-clock,page-faults" sleep 0.2
	kill $spid 2>/dev/null; wait $spid 2>/dev/null
else
	echo "perf stat is not usable here: layout comparison skipped"
fi

# prec stat does not disturb what it counts: it sleeps until the workload
# ends (it woke every millisecond: ~400 context switches in 0.6 s), and
# between -I ticks. Its own switches, read from /proc while it waits.
own_switches() {   # OPTIONS...: prec stat's context switches over 0.6 s of sleep 1
	local pid n
	$PREC stat "$@" -- sleep 1 >/dev/null 2>&1 &
	pid=$!
	sleep 0.6
	n=$(awk '/ctxt_switches/ { n += $2 } END { print n + 0 }' /proc/$pid/status)
	wait $pid
	echo "$n"
}
n=$(own_switches -e task-clock)
[ "$n" -lt 30 ] || fail "prec stat switched $n times in 0.6 s of waiting"
n=$(own_switches -I 100 -e task-clock)
[ "$n" -lt 30 ] || fail "prec stat -I 100 switched $n times in 0.6 s"
# Ctrl-C (SIGINT to prec): passed on to the workload, whose end prints the counts
$PREC stat -e task-clock -- sleep 5 >/dev/null 2>"$d/int" &
pid=$!
sleep 0.3
kill -INT $pid
wait $pid; rc=$?
grep -q "Performance counter stats for 'sleep 5'" "$d/int" && grep -q ' msec task-clock' "$d/int" &&
	[ $rc -eq 130 ] || fail "SIGINT: exit $rc, $(cat "$d/int")"
s=$(awk '/seconds time elapsed/ { print int($1) }' "$d/int")
[ "${s:-9}" -lt 2 ] || fail "SIGINT: the run went on for ${s:-?} s"
$PREC stat -a --timeout 200 -e cpu-clock >/dev/null 2>"$d/to"; rc=$?
[ $rc -eq 0 ] && grep -qE '^ +0\.2[0-9]* seconds time elapsed' "$d/to" ||
	fail "--timeout 200: exit $rc, $(cat "$d/to")"

# -r: the variation of task-clock (never the same twice) in perf's layout
$PREC stat -r 3 -e task-clock -- $P/spin 50 2>"$d/r.out" >/dev/null
grep -qE '^ +[0-9]+\.[0-9]{2} msec task-clock +# +[0-9.]+ CPUs utilized +\( \+- +[0-9]+\.[0-9]{2}% \)$' "$d/r.out" ||
	fail "-r: task-clock line: $(grep task-clock "$d/r.out")"
grep -q "(3 runs):" "$d/r.out" || fail "-r: heading"

# the counts themselves: the workload's CPU time and its page faults
$PREC stat -e task-clock,page-faults -x , -- $P/spin 300 2>"$d/c.out" >/dev/null
ms=$(awk -F, '$3 == "task-clock" { print int($1) }' "$d/c.out")
pf=$(awk -F, '$3 == "page-faults" { print $1 }' "$d/c.out")
[ "${ms:-0}" -ge 250 ] && [ "${ms:-0}" -le 450 ] || fail "task-clock of spin 300: $ms ms"
[ "${pf:-0}" -gt 10 ] || fail "page-faults of spin: $pf"
grep -q '^<not supported>,,cycles' <($PREC stat -x , -- true 2>&1) ||
	[ -d /sys/bus/event_source/devices/cpu ] || fail "cycles without a PMU: not <not supported>"

# record, then report: the same text
for opts in "" "-x ," "-e task-clock,page-faults,cycles" "-a -e task-clock,cpu-clock" \
	    "-A -a -e task-clock,context-switches" "--per-core -a -e task-clock" "--per-socket -a"; do
	$PREC stat record -o "$d/s.data" $opts -- $P/spin 100 2>"$d/live" >/dev/null ||
		fail "stat record $opts: exit $?"
	$PREP stat report -i "$d/s.data" ${opts:+$(echo "$opts" | grep -o -- '-x ,')} >"$d/rep" 2>&1
	cmp -s "$d/live" "$d/rep" || { fail "stat report $opts differs from the live run:"; diff "$d/live" "$d/rep" | head; }
done
# intervals and JSON, recorded and reported
for opts in "-I 100 -e task-clock,page-faults" "-I 100 -A -a -e task-clock" "-I 100 -x , -e task-clock" \
	    "-j -e task-clock,page-faults" "-j -I 100 --per-core -a -e task-clock" \
	    "-I 100 --summary -x , -e task-clock" "-I 100 --summary -A -a -e task-clock" \
	    "-e {task-clock,page-faults,cycles},context-switches"; do
	$PREC stat record -o "$d/i.data" $opts -- $P/spin 250 2>"$d/live" >/dev/null ||
		fail "stat record $opts: exit $?"
	$PREP stat report -i "$d/i.data" $(echo "$opts" | grep -oE -- '-x ,|-j|--summary') >"$d/rep" 2>&1
	cmp -s "$d/live" "$d/rep" || { fail "stat report $opts differs from the live run:"; diff "$d/live" "$d/rep" | head; }
done
$PREC stat -I 100 -e task-clock -- $P/spin 350 2>"$d/iv" >/dev/null
[ "$(grep -c ' msec task-clock' "$d/iv")" -ge 3 ] || fail "-I 100 over 350 ms: $(grep -c task-clock "$d/iv") intervals"

# the same readings presented per CPU by the report
$PREP stat report -i "$d/s.data" -A >"$d/rep" 2>&1
grep -q "^CPU0 " "$d/rep" || fail "stat report -A of an -a recording: $(head -5 "$d/rep")"
$P/threads 3000 >/dev/null &
spid=$!
sleep 0.2
$PREC stat record -o "$d/t.data" --per-thread -p $spid -e task-clock -- sleep 0.2 2>"$d/live" >/dev/null
kill $spid 2>/dev/null; wait $spid 2>/dev/null
$PREP stat report -i "$d/t.data" >"$d/rep" 2>&1
cmp -s "$d/live" "$d/rep" || { fail "stat report --per-thread differs:"; diff "$d/live" "$d/rep" | head; }
grep -q "worker-a-" "$d/rep" || fail "--per-thread: thread names"
$PREP -i "$d/s.data" >/dev/null 2>"$d/e" && fail "prep report accepted a counting file"
grep -q "prep stat report" "$d/e" || fail "prep report on a counting file: $(cat "$d/e")"

# -o and --append: the output in a file, appended on request
$PREC stat -o "$d/o.txt" -e task-clock -- true 2>"$d/e" >/dev/null
$PREC stat -o "$d/o.txt" --append -e page-faults -- true 2>>"$d/e" >/dev/null
[ "$(grep -c 'Performance counter stats' "$d/o.txt")" -eq 2 ] && grep -q task-clock "$d/o.txt" &&
	grep -q page-faults "$d/o.txt" && [ ! -s "$d/e" ] || fail "-o/--append: $(cat "$d/o.txt" "$d/e")"

# errors and the exit status
$PREC stat -e nosuchevent -- true >/dev/null 2>"$d/e"; rc=$?
[ $rc -ne 0 ] && grep -q "nosuchevent" "$d/e" || fail "bad event: rc $rc, $(cat "$d/e")"
$PREC stat >/dev/null 2>"$d/e" && fail "no command and no target accepted"
$PREC stat -- /nonexistent/cmd >/dev/null 2>"$d/e"; rc=$?
[ $rc -ne 0 ] && grep -q "/nonexistent/cmd" "$d/e" || fail "missing command: rc $rc, $(cat "$d/e")"
$PREC stat record -r 2 -o "$d/x.data" -- true >/dev/null 2>&1 || fail "stat record refused -r (prec_stat_more.sh checks its report)"
$PREC stat -A -- true >/dev/null 2>&1 && fail "-A without -a accepted"
$PREC stat --per-core --per-socket -a -- true >/dev/null 2>&1 && fail "two aggregation modes accepted"
$PREC stat -I 100 -r 2 -- true >/dev/null 2>&1 && fail "-I with -r accepted"
$PREC stat -I 5 -- true >/dev/null 2>&1 && fail "-I below 10 ms accepted"
# options for counters this machine lacks: perf's message and a failure
if [ ! -d /sys/bus/event_source/devices/cpu ]; then
	$PREC stat -T -- true >/dev/null 2>"$d/e" && fail "-T without a PMU succeeded"
	grep -q "^Cannot set up transaction events" "$d/e" || fail "-T message: $(cat "$d/e")"
	$PREC stat --topdown -a -- true >/dev/null 2>"$d/e" && fail "--topdown without a PMU succeeded"
	grep -q "^System does not support topdown" "$d/e" || fail "--topdown message: $(cat "$d/e")"
fi
$PREC stat --topdown -- true >/dev/null 2>"$d/e" && fail "--topdown without -a succeeded"
grep -q "requires system-wide mode (-a)" "$d/e" || fail "--topdown without -a: $(cat "$d/e")"
[ -e /sys/devices/cpu/freeze_on_smi ] || {
	$PREC stat --smi-cost -- true >/dev/null 2>"$d/e" && fail "--smi-cost succeeded"
	grep -q "freeze_on_smi is not supported" "$d/e" || fail "--smi-cost message: $(cat "$d/e")"
}
$PREC stat -v -e task-clock -- true 2>&1 >/dev/null | grep -qE '^task-clock: [0-9]+ [0-9]+ [0-9]+$' ||
	fail "-v: raw counts line"
$PREC stat -e task-clock -- sh -c 'exit 3' >/dev/null 2>&1; rc=$?
[ $rc -eq 3 ] || fail "exit status of the workload: $rc, not 3"
$PREP stat report -i "$d/nosuch.data" >/dev/null 2>&1 && fail "stat report of a missing file"

# As an unprivileged user (tests/e2e/lib/unpriv.sh), against perf stat run as that
# user. At perf_event_paranoid 2 (Debian's default) both exclude the kernel
# and name the events NAME:u; prec says so in one note line. -a needs
# paranoid <= 0: perf refuses, prec too, in one line that says why. At 3
# the user-space-only event is tried before refusing (this kernel, without
# Debian's patch, treats 3 as 2); at -1 nothing is excluded. Another user's
# process is refused at every level, and the message says whose it is.
refusal() {   # "OPTIONS" TEXT: perf stat fails, prec stat too, with one line holding TEXT
	local rc prc
	$AS perf stat $1 -- sleep 0.1 >/dev/null 2>&1; prc=$?
	$AS $SPREC stat $1 -- sleep 0.1 >/dev/null 2>"$d/e"; rc=$?
	[ $prc -ne 0 ] && [ $rc -eq $prc ] && [ "$(grep -c . "$d/e")" -eq 1 ] &&
		grep -q "^prec stat: .*$2" "$d/e" ||
		fail "prec stat $1 as $UNPRIV_USER at paranoid $(cat /proc/sys/kernel/perf_event_paranoid): exit $rc (perf $prc): $(cat "$d/e")"
}

unprivileged() {
	local root_pid
	sleep 30 &
	root_pid=$!
	AS=as_user SPREC=$UPREC SPREP=$UPREP WD=$unpriv_dir/u
	paranoid_set 2
	NOTE=1
	compare text "" $UP/spin 100
	compare text "-e task-clock,page-faults" $UP/spin 100
	compare csv "-x ," $UP/spin 100
	compare json "-j" $UP/spin 50
	compare text "-r 3 -e task-clock,page-faults" $UP/spin 100
	compare_record text "" $UP/spin 100
	compare_record csv "-x , -e task-clock,page-faults" $UP/spin 100
	compare_record json "-j" $UP/spin 50
	refusal "-a" "system-wide measurement needs perf_event_paranoid <= 0"
	refusal "-p $root_pid" "process $root_pid: it belongs to root"
	paranoid_set 3
	if as_user perf stat -e task-clock:u true >/dev/null 2>&1; then
		compare text "-e task-clock,page-faults" $UP/spin 50
	else
		refusal "-e task-clock" "user space only was tried too"
	fi
	refusal "-a -e cpu-clock" "(user space only was tried too)"
	paranoid_set -1
	NOTE=0
	compare text "" $UP/spin 50
	compare_record text "-e task-clock,page-faults" $UP/spin 50
	refusal "-p $root_pid" "process $root_pid: it belongs to root"
	paranoid_restore
	kill $root_pid 2>/dev/null; wait $root_pid 2>/dev/null
	AS= SPREC=$PREC SPREP=$PREP WD=$d
}
# -p / -t without a command: the run ends when the targets exit, as perf's
for opt in -p -t; do
	sleep 0.4 &
	tp=$!
	timeout 5 $PREC stat -e task-clock $opt $tp >/dev/null 2>"$d/err"
	rc=$?
	[ $rc -eq 0 ] || fail "stat $opt: the run did not end with its target (exit $rc)"
	grep -q "Performance counter stats for .*'$tp'" "$d/err" || fail "stat $opt: no counts: $(head -3 "$d/err")"
	wait $tp 2>/dev/null
done

chmod 711 "$d"
if ! command -v perf >/dev/null || ! perf stat -e task-clock true >/dev/null 2>&1; then
	echo "unprivileged checks skipped: perf stat is not usable here"
elif ! unpriv_init "$d/unpriv"; then
	echo "unprivileged checks skipped: $unpriv_why"
else
	unprivileged
fi

[ $failures -eq 0 ] && echo "prec stat checks passed"
exit $((failures > 0))
