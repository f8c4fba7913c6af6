#!/usr/bin/env bash
# prec as an unprivileged user (issue 12): at perf_event_paranoid 2 the
# recording excludes the kernel as perf does (events named NAME:u, one note
# line) instead of refusing; at 3 user space only is tried before refusing;
# at 1 the kernel is included; at -1 system-wide works; attaching to another
# user's process says so. The paranoid level is restored on every exit.
. tests/e2e/lib/common.sh
. tests/e2e/lib/unpriv.sh
trap 'paranoid_restore; kill $(jobs -p) 2>/dev/null; rm -rf "$d"' EXIT
near() { [ "$1" -ge $(($2 * $3 / 100)) ] && [ "$1" -le $(($2 * $4 / 100)) ]; }

[ -w /proc/sys/kernel/perf_event_paranoid ] || { echo "cannot set perf_event_paranoid (not root)"; exit 77; }
unpriv_init "$d/t" || { echo "$unpriv_why"; exit 77; }
U=$d/t/u      # the user's folder: its files as the user wrote them

# ---- paranoid 2: user space only, named as perf names it --------------------------
paranoid_set 2
as_user $UPREC -F 999 -g -o fp.data -- $UP/spin 500 >/dev/null 2>"$d/err" ||
	fail "paranoid 2: prec -g refused: $(cat "$d/err")"
grep -qx "prec: perf_event_paranoid is 2: measuring user space only (cpu-clock:u); for the kernel too, lower it to 1 or give prec CAP_PERFMON" "$d/err" ||
	fail "paranoid 2: no note line: $(cat "$d/err")"
[ "$(grep -c 'perf_event_paranoid' "$d/err")" -eq 1 ] || fail "paranoid 2: more than one note"
as_user $UPREP -i fp.data --stdio --no-children --sort sym >"$d/rep" 2>"$d/rerr" ||
	fail "paranoid 2: prep as the user: $(cat "$d/rerr")"
grep -q "^# Samples: .* of event 'cpu-clock:u'$" "$d/rep" || fail "paranoid 2: event not named cpu-clock:u"
grep -q "\[k\]" "$d/rep" && fail "paranoid 2: kernel samples in a user-only recording"
pct=$(awk '/spin_work/ { sub(/%/, "", $1); print int($1); exit }' "$d/rep")
[ "${pct:-0}" -ge 90 ] || fail "paranoid 2: spin_work has ${pct:-0}% (want > 90%)"
n=$($PREP -D -i "$U/fp.data" 2>/dev/null | grep -c ' SAMPLE ')
near "$n" 500 80 115 || fail "paranoid 2: $n samples for 0.5 s at 999 Hz"
as_user $UPREP script -i fp.data >/dev/null 2>&1 || fail "paranoid 2: prep script as the user"

as_user $UPREC -e cpu-clock -F 499 --call-graph dwarf -q -o dw.data -- $UP/tree_nofp 200 >/dev/null 2>"$d/err" ||
	fail "paranoid 2: --call-graph dwarf refused: $(cat "$d/err")"
as_user $UPREP -i dw.data --stdio --children --sort sym 2>/dev/null | grep -q "main" ||
	fail "paranoid 2: dwarf call chains do not reach main"

as_user $UPREC -e task-clock,page-faults -c 100000 -q -o ev.data -- $UP/swev 2000 0 >/dev/null 2>"$d/err" ||
	fail "paranoid 2: -e task-clock,page-faults: $(cat "$d/err")"
$PREP -D -i "$U/ev.data" 2>/dev/null | grep "^  event" >"$d/ev"
grep -q "event 0: 'task-clock:u'" "$d/ev" && grep -q "event 1: 'page-faults:u'" "$d/ev" ||
	fail "paranoid 2: events not named NAME:u: $(cat "$d/ev")"
as_user $UPREC -e cpu-clock:k -q -o k.data -- true 2>"$d/err" && fail "paranoid 2: cpu-clock:k taken"
grep -q "no permission to open event 'cpu-clock:k'" "$d/err" || fail "paranoid 2: :k message: $(cat "$d/err")"

# the user's own process: attach
as_user sh -c "$UP/spin 3000 >/dev/null & echo \$! >spin.pid; wait" &
sleep 0.3
upid=$(cat "$U/spin.pid")
as_user $UPREC -p "$upid" -F 499 -q -o p.data -- sleep 0.4 2>"$d/err" ||
	fail "paranoid 2: -p of the user's own process: $(cat "$d/err")"
n=$($PREP -D -i "$U/p.data" 2>/dev/null | grep -c " SAMPLE .* pid $upid ")
[ "$n" -gt 50 ] || fail "paranoid 2: -p: $n samples of the user's process"
kill "$upid" 2>/dev/null
# another user's process: say so, not "lower the paranoid level"
$P/spin 3000 >/dev/null &
rpid=$!
as_user $UPREC -p $rpid -q -o r.data --duration 0.2 2>"$d/err" && fail "paranoid 2: -p of root's process taken"
grep -q "no permission to attach event .* to process $rpid: it belongs to root" "$d/err" ||
	fail "paranoid 2: -p of root's process: message: $(cat "$d/err")"
# system-wide needs paranoid <= 0
as_user $UPREC -a -q -o a.data --duration 0.2 2>"$d/err" && fail "paranoid 2: -a taken"
grep -q "system-wide.*perf_event_paranoid is 2.*system-wide measurement needs perf_event_paranoid <= 0" "$d/err" ||
	fail "paranoid 2: -a: message: $(cat "$d/err")"

# ---- paranoid 3: user space only is tried before refusing ---------------------------
paranoid_set 3
if as_user $UPREC -e cpu-clock -q -o p3.data -- $UP/spin 100 >/dev/null 2>"$d/err"; then
	$PREP -D -i "$U/p3.data" 2>/dev/null | grep -q "event 0: 'cpu-clock:u'" ||
		fail "paranoid 3: taken but not as cpu-clock:u"
else
	# distribution kernels refuse every unprivileged event at 3
	grep -q "no permission to open event 'cpu-clock:u' (user space only was tried too): perf_event_paranoid is 3" "$d/err" ||
		fail "paranoid 3: message: $(cat "$d/err")"
fi

# ---- paranoid 1: the kernel too, no note ----------------------------------------------
paranoid_set 1
as_user $UPREC -e cpu-clock -o p1.data -- $UP/spin 100 >/dev/null 2>"$d/err" ||
	fail "paranoid 1: refused: $(cat "$d/err")"
grep -q paranoid "$d/err" && fail "paranoid 1: a note: $(cat "$d/err")"
$PREP -D -i "$U/p1.data" 2>/dev/null | grep -q "event 0: 'cpu-clock'," || fail "paranoid 1: event renamed"

# ---- paranoid -1: system-wide; another user's process still refused by ptrace rules ----
paranoid_set -1
as_user $UPREC -a -F 499 -q -o a.data -- sleep 0.3 2>"$d/err" || fail "paranoid -1: -a refused: $(cat "$d/err")"
$PREP -D -i "$U/a.data" 2>/dev/null | grep -q " SAMPLE .* pid $rpid " || fail "paranoid -1: -a missed root's spin"
as_user $UPREC -p $rpid -q -o r.data --duration 0.2 2>"$d/err"
if [ $? -ne 0 ]; then
	grep -q "it belongs to root" "$d/err" || fail "paranoid -1: -p of root's process: message: $(cat "$d/err")"
	grep -q "lower" "$d/err" && fail "paranoid -1: advises lowering paranoid further: $(cat "$d/err")"
fi
kill $rpid 2>/dev/null
paranoid_restore

[ $failures -eq 0 ] || { echo "$failures failures"; exit 1; }
echo "all unprivileged recording checks passed"
