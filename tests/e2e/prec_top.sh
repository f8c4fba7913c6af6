#!/usr/bin/env bash
# prec top --stdio (issue 18): perf top's header and entry lines; a busy
# program's hot function at the top within 3 seconds; a table every -d
# seconds; -E, -s, -p, -t, -C, -K, -g with and without children; older
# samples aged by 7/8 at each refresh, -z starting from zero; a program
# started meanwhile and the library it loads named; --record FILE read back
# by prep; Ctrl-C, SIGTERM, q and --duration end it with status 0, without
# a terminal it sleeps between tables; on a terminal it clears the screen;
# as an unprivileged user at perf_event_paranoid 2 it watches the user's
# own process with cpu-clock:u and one note line, and refuses system-wide
# in one line. The paranoid level is restored on every exit.
. tests/e2e/lib/common.sh
. tests/e2e/lib/unpriv.sh
trap 'paranoid_restore; e2e_cleanup' EXIT
need_perf_events 2

# the entry lines of table N (1: the first) of prec top's output
table() { awk -v n="$2" '/PerfTop:/ { t++; next } t == n && /%/' "$1"; }
tables() { grep -c 'PerfTop:' "$1"; }
# the first table (from the second on) whose first entry matches $2: its number
first_with() {
	for ((i = 2; i <= $(tables "$1"); i++)); do
		table "$1" $i | head -1 | grep -qE -- "$2" && { echo $i; return; }
	done
	echo 0
}

$P/spin 120000 >/dev/null &
spin=$!
sleep 0.2

# ---- -p: the hot function at the top within 3 s; perf top's layout ------------------
$PREC top --stdio -d 1 --duration 3.2 -p $spin >"$d/p.out" 2>"$d/p.err" || fail "-p: exit $?: $(cat "$d/p.err")"
n=$(first_with "$d/p.out" ' spin +\[\.\] spin_work$')
[ "$n" -ge 2 ] && [ "$n" -le 4 ] || fail "-p: spin_work not at the top of a table within 3 s (table $n): $(cat "$d/p.out")"
grep -qE "^   PerfTop: +[0-9]+ irqs/sec  kernel: *[0-9]+\.[0-9]%  exact: +[0-9]+\.[0-9]% lost: [0-9]+/[0-9]+ drop: 0/0 \[4000Hz cpu-clock(:u)?\],  \(target_pid: $spin\)$" "$d/p.out" ||
	fail "-p: header: $(grep -m2 PerfTop "$d/p.out")"
grep -qx -- "-------------------------------------------------------------------------------" "$d/p.out" ||
	fail "-p: no rule of 79 dashes"
table "$d/p.out" 3 | grep -qE '^ +[0-9]+\.[0-9]{2}%  [^ ]+ +\[[.k]\] ' || fail "-p: entry lines: $(table "$d/p.out" 3)"
pct=$(table "$d/p.out" 3 | awk '/spin_work/ { sub(/%/, "", $1); print int($1); exit }')
[ "${pct:-0}" -ge 80 ] || fail "-p: spin_work at ${pct:-0}% of its own process"

# ---- a table every -d seconds; -E ----------------------------------------------------
$PREC top --stdio -q -d 0.5 --duration 2.7 -E 3 >"$d/sw.out" 2>"$d/sw.err" || fail "system-wide: exit $?"
n=$(tables "$d/sw.out")
[ "$n" -ge 5 ] && [ "$n" -le 7 ] || fail "-d 0.5 over 2.7 s: $n tables (want 6: the first, then one each 0.5 s)"
grep -qE '\(all, [0-9]+ CPUs?\)$' "$d/sw.out" || fail "system-wide: header: $(grep -m1 PerfTop "$d/sw.out")"
for ((i = 1; i <= n; i++)); do
	[ "$(table "$d/sw.out" $i | wc -l)" -le 3 ] || fail "-E 3: table $i has more than 3 entries"
done
[ "$(table "$d/sw.out" 3 | wc -l)" -eq 3 ] || fail "-E 3: table 3 has $(table "$d/sw.out" 3 | wc -l) entries"
$PREC top --stdio -q -d 1 --duration 1.3 --comms spin -n >"$d/comm.out" || fail "--comms: exit $?"
table "$d/comm.out" 2 | grep -qE '^ +[0-9.]+% +[0-9]+  spin +\[\.\] spin_work$' ||
	fail "--comms spin -n: $(table "$d/comm.out" 2)"

# ---- -s, -t, -C, -K --------------------------------------------------------------
$PREC top --stdio -q -d 1 --duration 1.3 -s comm,pid -p $spin >"$d/s.out" || fail "-s: exit $?"
table "$d/s.out" 2 | head -1 | grep -qE "^ +[0-9.]+%  spin +$spin:spin *$" || fail "-s comm,pid: $(table "$d/s.out" 2)"
$PREC top --stdio -q -d 1 --duration 1.3 -s sym -t $spin >"$d/t.out" || fail "-t: exit $?"
grep -q "(target_tid: $spin)$" "$d/t.out" || fail "-t: header: $(grep -m1 PerfTop "$d/t.out")"
table "$d/t.out" 2 | head -1 | grep -qE '^ +[0-9.]+%  \[\.\] spin_work$' || fail "-s sym: $(table "$d/t.out" 2)"
# a level needs context switches, which top does not take: refused in one line
$PREC top --stdio -q -s sym,parallelism -p $spin --duration 1 >"$d/par.out" 2>"$d/par.err"
rc=$?
[ $rc -eq 129 ] && [ "$(wc -l <"$d/par.err")" -eq 1 ] && grep -q '^prec top: --sort: parallelism: ' "$d/par.err" ||
	fail "-s parallelism: exit $rc: $(cat "$d/par.err") $(table "$d/par.out" 2 | head -2)"
$PREC top --stdio -q -d 1 --duration 1.3 -C 0 -K -E 50 >"$d/c.out" || fail "-C 0 -K: exit $?"
grep -q "(all, CPU: 0)$" "$d/c.out" || fail "-C 0: header: $(grep -m1 PerfTop "$d/c.out")"
table "$d/c.out" 2 | grep -q '\[k\]' && fail "-K: kernel entries shown"

# ---- -g: children (perf top's default with call chains) and --no-children -----------
$PREC top --stdio -q -g -d 1 --duration 1.3 -p $spin -E 20 >"$d/g.out" || fail "-g: exit $?"
table "$d/g.out" 2 | grep -qE '^ +[0-9.]+% +[0-9.]+%  spin +\[\.\] spin_work$' || fail "-g: no two-column spin_work entry"
table "$d/g.out" 2 | grep -qE '^ +(9[0-9]|100)\.[0-9]+% +0\.00%  spin +\[\.\] main$' ||
	fail "-g: main has not its callees' samples: $(table "$d/g.out" 2 | grep main)"
grep -qE '^ +---__libc_start_call_main$' "$d/g.out" || fail "-g: no call graph in caller order"
$PREC top --stdio -q -g --no-children -d 1 --duration 1.3 -p $spin -E 3 >"$d/nc.out" || fail "--no-children: exit $?"
table "$d/nc.out" 2 | head -1 | grep -qE '^ +[0-9.]+%  spin +\[\.\] spin_work$' || fail "--no-children: $(table "$d/nc.out" 2)"
grep -qE '^ +---spin_work$' "$d/nc.out" || fail "--no-children: no call graph from the sampled function"

# ---- aging: 7/8 of the samples at each refresh; -z: from zero ---------------------------
cp $P/spin "$d/ager"            # a command of its own: the other spin keeps running
(sleep 0.2; exec "$d/ager" 400) >/dev/null &
$PREC top --stdio -q -n -d 0.6 --duration 6.5 --comms ager -s sym >"$d/age.out" || fail "aging: exit $?"
counts=$(awk '/PerfTop:/ { if (got) print c; got = 1; c = 0 } / spin_work$/ { c = $2 } END { print c }' "$d/age.out" | tail -4)
set -- $counts
ok=true
[ $# -eq 4 ] && [ "$1" -gt 100 ] || ok=false
while $ok && [ $# -ge 2 ]; do
	# 7/8 of each unique stack (thread, CPU, address), rounded down: at
	# most 7/8 of the entry, less than a sample less per stack
	[ $(($2 * 8)) -le $(($1 * 7)) ] && [ $(($2 * 8)) -ge $(($1 * 7 - 8 * 40)) ] || ok=false
	shift
done
$ok || fail "aging: the last counts of an ended program are not 7/8 of each other: $counts"
(sleep 0.2; exec "$d/ager" 400) >/dev/null &
$PREC top --stdio -q -z -n -d 0.6 --duration 5 --comms ager -s sym >"$d/zero.out" || fail "-z: exit $?"
grep -q ' spin_work$' "$d/zero.out" || fail "-z: spin_work never shown"
last=$(tables "$d/zero.out")
[ -z "$(table "$d/zero.out" "$last")" ] || fail "-z: the last table still shows the ended program: $(table "$d/zero.out" "$last")"

# ---- a process started meanwhile, and the library it loads ---------------------------
lib=$(cd "$P" && pwd)/libspinlib.so
(sleep 0.6; exec $P/forker "$lib" 1200) >/dev/null &
$PREC top --stdio -q -d 0.8 --duration 3.5 --comms forker >"$d/new.out" || fail "new process: exit $?"
grep -qE '^ +[0-9.]+%  libspinlib\.so +\[\.\] spinlib_work$' "$d/new.out" ||
	fail "a library loaded after the start is not named: $(grep -m3 '%' "$d/new.out")"

# ---- --record FILE: a prec.data as prec record writes it -------------------------------
$PREC top --stdio -d 0.5 --duration 1.2 -p $spin --record "$d/top.data" >/dev/null 2>"$d/rec.err" ||
	fail "--record: exit $?: $(cat "$d/rec.err")"
grep -q "^\[ prec: captured and wrote .* $d/top.data ([0-9]* samples, 0 lost) \]$" "$d/rec.err" ||
	fail "--record: summary: $(cat "$d/rec.err")"
$PREP -i "$d/top.data" --stdio --sort sym >"$d/rec.rep" 2>&1 || fail "--record: prep: $(cat "$d/rec.rep")"
pct=$(awk '/spin_work/ { sub(/%/, "", $1); print int($1); exit }' "$d/rec.rep")
[ "${pct:-0}" -ge 80 ] || fail "--record: prep reports spin_work at ${pct:-0}%"
$PREP -i "$d/top.data" --header-only | grep -q "^# cmdline : .*prec top --stdio" || fail "--record: no cmdline"
$PREP -D -i "$d/top.data" 2>/dev/null | grep -q '^block .*: SYMBOLS' || fail "--record: no embedded symbols"

# ---- how it ends; no busy loop without a terminal -----------------------------------
for sig in INT TERM; do
	$PREC top --stdio -q -d 0.3 -p $spin >/dev/null 2>&1 &
	pid=$!
	sleep 1.2
	kill -$sig $pid
	wait $pid
	rc=$?
	[ $rc -eq 0 ] || fail "SIG$sig: exit $rc"
done
TIMEFORMAT=%U+%S
cpu=$( { time $PREC top --stdio -q -d 0.5 --duration 3 -p $spin >/dev/null 2>&1; } 2>&1 )
awk -v c="$cpu" 'BEGIN { split(c, a, "+"); exit !(a[1] + a[2] < 1.0) }' ||
	fail "without a terminal: $cpu s of CPU in 3 s (a busy loop?)"
if command -v script >/dev/null; then
	(sleep 1.4; printf q) | timeout 15 script -qfec "$PREC top --stdio -q -d 0.4 -p $spin" /dev/null >"$d/tty.out" 2>&1
	rc=$?
	[ $rc -eq 0 ] || fail "terminal: q did not end it with 0 (exit $rc)"
	grep -q $'\033\\[H\033\\[2J' "$d/tty.out" || fail "terminal: the screen is not cleared"
	grep -q $'\033\\[31m' "$d/tty.out" || fail "terminal: the hot entry is not red"
fi

# ---- an unprivileged user at paranoid 2 ----------------------------------------------
if [ -w /proc/sys/kernel/perf_event_paranoid ] && unpriv_init "$d/t"; then
	paranoid_set 2
	as_user sh -c "$UP/spin 30000 >/dev/null & echo \$! >spin.pid; wait" &
	sleep 0.3
	upid=$(cat "$d/t/u/spin.pid")
	as_user $UPREC top --stdio -d 0.5 --duration 1.6 -p "$upid" >"$d/u.out" 2>"$d/u.err" ||
		fail "paranoid 2: prec top -p of the user's process: exit $?: $(cat "$d/u.err")"
	grep -q "\[4000Hz cpu-clock:u\],  (target_pid: $upid)$" "$d/u.out" ||
		fail "paranoid 2: header: $(grep -m1 PerfTop "$d/u.out")"
	[ "$(grep -c perf_event_paranoid "$d/u.err")" -eq 1 ] || fail "paranoid 2: not one note line: $(cat "$d/u.err")"
	grep -q ' spin_work$' "$d/u.out" || fail "paranoid 2: spin_work not shown"
	grep -q '\[k\]' "$d/u.out" && fail "paranoid 2: kernel entries in a user-only top"
	as_user $UPREC top --stdio -q --duration 0.5 >/dev/null 2>"$d/ua.err" && fail "paranoid 2: system-wide taken"
	[ "$(wc -l <"$d/ua.err")" -eq 1 ] && grep -q "^prec top: no permission .* system-wide" "$d/ua.err" ||
		fail "paranoid 2: system-wide: $(cat "$d/ua.err")"
	kill "$upid" 2>/dev/null
	paranoid_restore
else
	echo "skipped the unprivileged part: ${unpriv_why:-cannot set perf_event_paranoid}"
fi

kill $spin 2>/dev/null
[ $failures -eq 0 ] || { echo "$failures failures"; exit 1; }
echo "prec top checks passed"
