#!/usr/bin/env bash
# -D/--delay and --control (fifo: and fd:) for prec and prec stat: a program
# (tests/programs/phases) asks for enable and disable around its second
# phase, and only that phase is recorded or counted; ping, evlist, stop,
# -D MSEC; bad values; the same as an unprivileged user at paranoid 2; and
# what prctl(PR_TASK_PERF_EVENTS_DISABLE) does (only the program's own
# counters stop, not prec's).
. tests/e2e/lib/common.sh
. tests/e2e/lib/unpriv.sh
trap 'paranoid_restore; e2e_cleanup' EXIT
need_perf_events 2
cd "$d" || exit 1
mkfifo ctl ack

# share SYM FILE: the percentage of SYM in prep's flat report of FILE (0 when absent)
share() {
	"$PREP" -i "$2" --stdio --no-children --sort sym 2>/dev/null |
		awk -v s="$1" '$NF == s { v = $1 + 0 } END { print v + 0 }'
}
# at_least / at_most VALUE LIMIT
at_least() { awk -v v="$1" -v l="$2" 'BEGIN { exit !(v >= l) }'; }
at_most() { awk -v v="$1" -v l="$2" 'BEGIN { exit !(v <= l) }'; }

# only_two FILE WHAT: the report shows phase_two, not the other phases
only_two() {
	local two one three
	two=$(share phase_two "$1") one=$(share phase_one "$1") three=$(share phase_three "$1")
	at_least "$two" 95 || fail "$2: phase_two has $two%, not >= 95%"
	at_most "$one" 1 || fail "$2: phase_one has $one% (recorded while disabled)"
	at_most "$three" 1 || fail "$2: phase_three has $three% (recorded while disabled)"
}

# ---- prec: fifo:CTL,ACK with -D -1 ---------------------------------------
"$PREC" -F 999 -D -1 --control fifo:ctl,ack -o fifo.data -- "$P/phases" ctl ack 100 \
	>/dev/null 2>err || fail "prec --control fifo: exit $?: $(cat err)"
only_two fifo.data "prec -D -1 --control fifo:ctl,ack"
[ "$(grep -c '^Events \(enabled\|disabled\)$' err)" = 3 ] ||
	fail "prec --control: not the three Events lines: $(cat err)"

# the same program without -D records every phase (the gate above is what hid them)
"$PREC" -q -F 999 -o all.data -- "$P/phases" --prctl 100 >prctl.out 2>err ||
	fail "prec phases --prctl: $(cat err)"
for f in phase_one phase_two phase_three; do
	at_least "$(share $f all.data)" 20 ||
		fail "prctl(PR_TASK_PERF_EVENTS_DISABLE) stopped prec's events: $f has $(share $f all.data)%"
done
# ... while it does stop the program's own counter: it counts phase_two only
read -r own two < <(sed -nE 's/^own counter: ([0-9]+) ns, phase_two: ([0-9]+) ns.*/\1 \2/p' prctl.out)
if [ -z "${own:-}" ] || ! at_least "$own" "$((two * 8 / 10))" || ! at_most "$own" "$((two * 12 / 10))"; then
	fail "prctl: the program's own counter ($own ns) is not phase_two's time ($two ns)"
fi

# ---- prec: fd:N,M opened by the shell ----------------------------------
exec 7<>ctl 8<>ack
"$PREC" -q -F 999 -D -1 --control fd:7,8 -o fd.data -- "$P/phases" ctl ack 100 >/dev/null 2>err ||
	fail "prec --control fd:7,8: $(cat err)"
only_two fd.data "prec -D -1 --control fd:7,8"

# ping, evlist, an unknown command (no ack, as perf), stop: the workload is
# ended and the file is whole
"$PREC" -q -o stop.data --control fd:7,8 -- sleep 30 >/dev/null 2>stop.err &
pid=$!
ask() {   # CMD: the answer, or "none" after 5 s
	local r
	echo "$1" >&7
	if read -r -t 5 -u 8 r; then echo "$r"; else echo none; fi
}
[ "$(ask ping)" = ack ] || fail "--control ping: no ack"
[ "$(ask evlist)" = ack ] || fail "--control evlist: no ack"
[ "$(ask bogus)" = none ] || fail "--control bogus: acked"
[ "$(ask stop)" = ack ] || fail "--control stop: no ack"
for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then
	fail "--control stop: prec still runs"
	kill $pid
fi
wait $pid
grep -q "unknown command 'bogus'" stop.err || fail "--control bogus: not reported: $(cat stop.err)"
grep -qx "cpu-clock" stop.err || fail "--control evlist: no event listed: $(cat stop.err)"
"$PREP" -i stop.data --stdio >/dev/null 2>rep.err || fail "after stop: prep fails: $(cat rep.err)"
grep -qi "did not finish\|truncat" rep.err && fail "after stop: the file is not whole: $(cat rep.err)"

# ---- prec -D MSEC: the events come on later, the workload still named ----
# (wall-clock delays: checked only where load cannot change the answer)
"$PREC" -q -F 999 -D 50 -o delay.data -- "$P/phases" --prctl 50 >/dev/null 2>err ||
	fail "prec -D 50: $(cat err)"
printf 'Events disabled\nEvents enabled\n' | cmp -s - err || fail "prec -D 50: stderr: $(cat err)"
for f in phase_two phase_three; do
	at_least "$(share $f delay.data)" 25 || fail "prec -D 50: $f has $(share $f delay.data)%"
done
"$PREC" -q -F 999 -D 5000 -o late.data -- "$P/phases" --prctl 20 >/dev/null 2>err ||
	fail "prec -D 5000: $(cat err)"
printf 'Events disabled\n' | cmp -s - err || fail "prec -D 5000: stderr: $(cat err)"
"$PREP" -i late.data --stdio --sort sym 2>/dev/null | grep -q phase_ &&
	fail "prec -D 5000: samples taken before the delay"

# ---- prec stat: only the enabled phase is counted -------------------------
"$PREC" stat -x, -e page-faults -D -1 --control fifo:ctl,ack -- "$P/phases" ctl ack 20 3000 \
	>/dev/null 2>stat.err || fail "prec stat --control: $(cat stat.err)"
n=$(awk -F, '$3 == "page-faults" { print $1 }' stat.err)
{ [ -n "$n" ] && at_least "$n" 3000 && at_most "$n" 3300; } ||
	fail "prec stat -D -1 --control: $n page faults, not phase_two's 3000"
"$PREC" stat -x, -e page-faults -D -1 --control fd:7,8 -- "$P/phases" ctl ack 20 3000 \
	>/dev/null 2>stat.err || fail "prec stat --control fd: $(cat stat.err)"
n=$(awk -F, '$3 == "page-faults" { print $1 }' stat.err)
{ [ -n "$n" ] && at_least "$n" 3000 && at_most "$n" 3300; } ||
	fail "prec stat --control fd:7,8: $n page faults, not 3000"
# prec stat's stop: as Ctrl-C, the workload ends and the counts are printed
"$PREC" stat -e task-clock --control fd:7,8 -- sleep 30 >/dev/null 2>stat.err &
pid=$!
[ "$(ask ping)" = ack ] || fail "prec stat --control ping: no ack"
[ "$(ask stop)" = ack ] || fail "prec stat --control stop: no ack"
for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
kill -0 $pid 2>/dev/null && { fail "prec stat --control stop: still runs"; kill $pid; }
wait $pid
grep -q "Performance counter stats" stat.err || fail "prec stat stop: no counts: $(cat stat.err)"
exec 7>&- 8>&-

# ---- bad values: one line, exit 129 -----------------------------------
for v in bogus fifo:/nonexistent fd:abc fd:99 fifo: ; do
	"$PREC" -q --control "$v" -o bad.data -- true >/dev/null 2>err
	rc=$?
	[ $rc = 129 ] || fail "prec --control $v: exit $rc, not 129"
	[ "$(wc -l <err)" = 1 ] && grep -q -- "--control" err || fail "prec --control $v: $(cat err)"
	"$PREC" stat --control "$v" -- true >/dev/null 2>err
	rc=$?
	[ $rc = 129 ] || fail "prec stat --control $v: exit $rc, not 129"
done
"$PREC" -D -5 -o bad.data -- true >/dev/null 2>err && fail "prec -D -5 taken"
[ -e bad.data ] && fail "a bad --control left a file"

# ---- an unprivileged user at perf_event_paranoid 2 ------------------------
if [ -w /proc/sys/kernel/perf_event_paranoid ] && unpriv_init "$d/t"; then
	paranoid_set 2
	as_user mkfifo uctl uack
	as_user "$UPREC" -F 999 -D -1 --control fifo:uctl,uack -o u.data -- "$UP/phases" uctl uack 100 \
		>/dev/null 2>err || fail "paranoid 2: prec --control: $(cat err)"
	[ -f "$d/t/u/u.data" ] || fail "paranoid 2: no u.data"
	only_two "$d/t/u/u.data" "paranoid 2: prec --control fifo:"
	as_user "$UPREC" stat -x, -e page-faults -D -1 --control fifo:uctl,uack -- \
		"$UP/phases" uctl uack 20 3000 >/dev/null 2>stat.err ||
		fail "paranoid 2: prec stat --control: $(cat stat.err)"
	n=$(awk -F, '$3 ~ /^page-faults/ { print $1 }' stat.err)
	{ [ -n "$n" ] && at_least "$n" 3000 && at_most "$n" 3300; } ||
		fail "paranoid 2: prec stat --control: $n page faults, not 3000"
	paranoid_restore
else
	echo "note: the unprivileged part skipped: ${unpriv_why:-cannot set perf_event_paranoid}"
fi

[ $failures -eq 0 ] && echo "prec_control: all passed"
exit $((failures > 0))
