#!/usr/bin/env bash
# prec top in the browser (issue 18), driven through tmux (a private
# socket; send-keys, capture-pane): on a terminal `prec top -p PID` of a
# busy program opens the browser with perf top's title, the hot function
# is the first entry within 3 s of the first screen, the screen refreshes
# (the title's sample count changes), annotate works live (the selected
# line is the hottest instruction shown, of the binary on this machine),
# zoom into the thread and back, h (z in the help), z ([z] in the title),
# P, -E, the symbol filter, a call graph expanded with -g that stays open
# across a refresh, --record's file written meanwhile (0 lost; prep reads
# it), q ends it with status 0 and the terminal as it was
# (canonical mode, echo); --tui without a terminal and --stdio --tui are
# refused; as an unprivileged user at perf_event_paranoid 2 the browser
# opens on -p with cpu-clock:u. Every wait polls the screen; the paranoid
# level is restored on every exit.
. tests/e2e/lib/common.sh
. tests/e2e/lib/tmux.sh
. tests/e2e/lib/unpriv.sh
command -v tmux >/dev/null || { echo "tmux is not installed (make deps)"; exit 77; }
[ -x "$P/spin" ] || { echo "make tests-build first"; exit 77; }
need_perf_events 2
TM="tmux -L prec-top-tui-$$ -f /dev/null"
trap '$TM kill-server 2>/dev/null; paranoid_restore; e2e_cleanup' EXIT
cd "$d" || exit 1
export LC_ALL=C.UTF-8 TZ=UTC

# start NAME CMD...: a 160x40 session running CMD, then "EXIT=status" and
# the terminal's modes
start() {
	local s=$1
	shift
	$TM new-session -d -s "$s" -x 160 -y 40 \
		"cd $d && $*; echo EXIT=\$?; echo MODES: \$(stty -a | tr ' ;' '\n\n' | grep -xE -- '-?(icanon|echo)'); sleep 600"
}
# wait_for NAME WHAT SECONDS TEST...: polls the screen (in $d/scr) until
# TEST (the screen on stdin) succeeds on a settled screen (screen_is), at
# most SECONDS
wait_for() {
	local s=$1 what=$2 secs=$3 i
	shift 3
	for ((i = 0; i < secs * 20; i++)); do
		screen_is "$s" "$@" && return 0
		sleep 0.05
	done
	fail "$what: not on the screen in $secs s:"
	cat "$d/scr"
	return 1
}
has() { grep -qE -- "$1"; }
last_line() { tail -1 | grep -qF -- "$1"; }
keys() { $TM send-keys -t "$1" "${@:2}"; }
rows() { sed '1,2d;$d' "$d/scr"; }
entry_lines() { grep -E '^[-+ ] {0,7}[0-9]+\.[0-9]+%'; }
first_entry() { sed -n 3p | grep -qE -- "$1"; }
samples() { sed -nE '1s/^Samples: ([^ ]+) .*/\1/p' "$d/scr"; }
# the title's sample count is not $1 any more (a refresh)
other_samples() { awk -v b="$1" 'NR == 1 { exit !($1 == "Samples:" && $2 != b) }'; }
now_ms() { date +%s%3N; }
# the rows in reverse video (NO_COLOR's selection) of the screen with its
# escapes in $d/scr_e, 1 = the first row
reversed() {
	sed '$d' "$d/scr_e" | awk '
	{ s = $0; first = -1
	  while (match(s, /\033\[[0-9;]*m/)) {
		if (RSTART > 1 && first < 0) first = rev
		n = split(substr(s, RSTART + 2, RLENGTH - 3), c, ";")
		if (n == 0) rev = 0
		for (i = 1; i <= n; i++) { if (c[i] == "7") rev = 1; else if (c[i] == "0" || c[i] == "27" || c[i] == "") rev = 0 }
		s = substr(s, RSTART + RLENGTH)
	  }
	  if (first < 0) first = rev
	  if (first && NR > 2) print NR - 2 }'
}
# q, then status 0 and the terminal's modes as they were
quits() {
	keys "$1" q
	wait_for "$1" "$2: q" 10 has '^MODES:' || return
	grep -qx 'EXIT=0' "$d/scr" || fail "$2: q: $(grep EXIT= "$d/scr")"
	grep -qx 'MODES: icanon echo' "$d/scr" || fail "$2: the terminal's modes after q: $(grep MODES: "$d/scr")"
	grep -q '^Samples: ' "$d/scr" && fail "$2: the browser's screen is still there"
}

"$P/spin" 60000 >/dev/null &
spin=$!
sleep 0.2

# ---- the first screens, the refresh, annotate, zoom, h, z, P -------------------------
start m NO_COLOR=1 "$PREC" top -e cpu-clock -p $spin
wait_for m "first screen" 10 has '^Samples: ' || exit 1
t0=$(now_ms)
wait_for m "spin_work first" 6 first_entry ' spin +\[\.\] spin_work$' || exit 1
ms=$(($(now_ms) - t0))
[ "$ms" -le 3000 ] || fail "spin_work at the top $ms ms after the first screen (want 3 s at most)"
head -1 scr | grep -qE "^Samples: [0-9.]+[KM]? +of event 'cpu-clock', 4000 Hz, Event count \(approx\.\): [0-9]+ lost: 0/0 drop: 0/0$" ||
	fail "title: $(head -1 scr)"
sed -n 2p scr | grep -qE '^ +Overhead +Shared Object +Symbol$' || fail "column titles: $(sed -n 2p scr)"
tail -1 scr | grep -qE "^PerfTop: +[0-9]+ irqs/sec  kernel: *[0-9.]+%  exact: +[0-9.]+% lost: 0/0 drop: 0/0 \[4000Hz cpu-clock\],  \(target_pid: $spin\)  h: help  q: quit$" ||
	fail "status line: $(tail -1 scr)"
before=$(samples)
wait_for m "a refresh (the title's samples change from $before)" 6 other_samples "$before"

keys m a
wait_for m "annotate spin_work" 6 has '^spin_work  .*/spin \[Percent: local period\]$' || exit 1
# the selection on the hottest instruction (H again: a refresh may have
# moved the percentages under it since)
for ((try = 0; try < 5; try++)); do
	$TM capture-pane -p -e -t m >"$d/scr_e"
	sed 's/\x1b\[[0-9;]*m//g' "$d/scr_e" >"$d/scr"
	hot_row=$(reversed | head -1)
	hot=$(rows | sed -n "${hot_row:-0}p" | awk '{ print $1 + 0 }')
	max=$(rows | awk '/^ +[0-9.]+ : +[0-9a-f]+:/ && $1 + 0 > m { m = $1 + 0 } END { print m + 0 }')
	awk -v h="${hot:-0}" -v m="$max" 'BEGIN { exit !(h > 0 && h == m) }' && break
	keys m H
	sleep 0.2
done
[ $try -lt 5 ] || fail "annotate: the selected line ($hot%) is not the hottest shown ($max%): $(rows | sed -n "${hot_row:-0}p")"
rows | grep -qE '^ +[0-9.]+ : +[0-9a-f]+: +[a-z]' || fail "annotate: no instructions"
tail -1 scr | grep -q '^spin_work: [0-9]* samples' || fail "annotate's status line: $(tail -1 scr)"
keys m q
wait_for m "back from annotate" 5 has '^ +Overhead +Shared Object'

keys m t
# the status line last: a capture may catch tmux between the title and the rest
if wait_for m "zoom into the thread" 5 last_line "| Thread: spin($spin)  h: help"; then
	grep -qE "^Samples: .*, Thread: spin\($spin\) lost: " scr || fail "zoom: title: $(head -1 scr)"
fi
first_entry ' spin +\[\.\] spin_work$' <scr || fail "zoomed: spin_work is not first: $(sed -n 3p scr)"
keys m t
wait_for m "zoom out" 5 sh -c "! grep -q 'Thread:'"

keys m h
if wait_for m "help" 5 has 'Press any key'; then
	grep -q 'z  *zero the samples' scr || fail "help: no z: $(cat scr)"
fi
keys m x
wait_for m "help gone" 5 sh -c "! grep -q 'Press any key'"
keys m z
wait_for m "z in the title" 5 has '^Samples: .* drop: 0/0 \[z\]$'
keys m z
wait_for m "z off" 5 has '^Samples: .* drop: 0/0$'
keys m P
wait_for m "P" 5 has '^wrote prep\.hist\.0 \([0-9]+ lines\)'
grep -qE '^ +[0-9.]+%  spin +\[\.\] spin_work$' prep.hist.0 || fail "P: $(head -3 prep.hist.0)"
quits m "-p"

# ---- -g: -E, the filter, a call graph opened, kept across a refresh ---------------------
start g NO_COLOR=1 "$PREC" top -e cpu-clock -g -E 3 -d 1 -p $spin --record "$d/tui.data"
wait_for g "-g: entries" 8 sh -c "grep -qE '\] spin_work$'" || exit 1
n=$(rows | entry_lines | wc -l)
[ "$n" -eq 3 ] || fail "-E 3: $n entries: $(rows)"
sed -n 2p scr | grep -qE '^ +Children +Self +Shared Object +Symbol$' || fail "-g: column titles: $(sed -n 2p scr)"
keys g / spin_work Enter
wait_for g "-g: the filter" 5 has ', Symbol: spin_work lost: '
wait_for g "-g: spin_work alone" 5 first_entry '^\+ +[0-9.]+% +[0-9.]+%  spin +\[\.\] spin_work$'
keys g Enter
wait_for g "-g: spin_work's call graph" 5 has '-__libc_start_call_main$' || exit 1
grep -qE '^- +[0-9.]+% .*\] spin_work$' scr || fail "-g: the open entry is not marked -: $(sed -n 3p scr)"
before=$(samples)
wait_for g "-g: a refresh" 6 other_samples "$before"
grep -qE '__libc_start_call_main$' scr || fail "-g: the call graph closed at the refresh: $(cat scr)"
quits g "-g"
# --record: the drain thread wrote the file while the browser ran
grep -q "^\[ prec: captured and wrote .* $d/tui.data ([0-9]* samples, 0 lost) \]$" scr ||
	fail "--record in the browser: summary: $(grep -A1 'prec:' scr)"
"$PREP" -i "$d/tui.data" --stdio --no-children --sort sym 2>/dev/null | grep -qE '^ +(9[0-9]|100)\.[0-9]+%  \[\.\] spin_work$' ||
	fail "--record in the browser: prep: $("$PREP" -i "$d/tui.data" --stdio --no-children --sort sym 2>&1 | grep -m3 '%')"

# ---- what is refused -----------------------------------------------------------------
"$PREC" top --tui -p $spin >"$d/tui.out" 2>&1 </dev/null && fail "--tui without a terminal taken"
grep -q '^prec top: --tui: not a terminal' "$d/tui.out" || fail "--tui without a terminal: $(cat "$d/tui.out")"
"$PREC" top --tui --stdio -p $spin >"$d/both.out" 2>&1 && fail "--tui --stdio taken"
grep -q 'cannot be used together' "$d/both.out" || fail "--tui --stdio: $(cat "$d/both.out")"

# ---- an unprivileged user at paranoid 2 --------------------------------------------------
if [ -w /proc/sys/kernel/perf_event_paranoid ] && unpriv_init "$d/t"; then
	paranoid_set 2
	as_user sh -c "$UP/spin 30000 >/dev/null & echo \$! >spin.pid; wait" &
	for ((i = 0; i < 50; i++)); do [ -s "$d/t/u/spin.pid" ] && break; sleep 0.1; done
	upid=$(cat "$d/t/u/spin.pid")
	# as_user's, with the terminal's name
	start u env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$d/t/u" LANG=C TERM=screen NO_COLOR=1 \
		setpriv --reuid="$UNPRIV_USER" --regid="$UNPRIV_USER" --clear-groups --inh-caps=-all \
		--bounding-set=-all "$UPREC" top -e cpu-clock -p "$upid"
	if wait_for u "paranoid 2: the browser" 10 has "^Samples: .* of event 'cpu-clock:u', 4000 Hz" &&
		wait_for u "paranoid 2: spin_work" 6 first_entry ' spin +\[\.\] spin_work$'; then
		wait_for u "paranoid 2: status line" 5 last_line "[4000Hz cpu-clock:u],  (target_pid: $upid)  h: help"
	fi
	grep -q '\[k\]' scr && fail "paranoid 2: kernel entries in a user-only top"
	quits u "paranoid 2"
	grep -q 'perf_event_paranoid is 2: measuring user space only' scr ||
		fail "paranoid 2: no note after the browser: $(cat scr)"
	kill "$upid" 2>/dev/null
	paranoid_restore
else
	echo "skipped the unprivileged part: ${unpriv_why:-cannot set perf_event_paranoid}"
fi

kill $spin 2>/dev/null
[ $failures -eq 0 ] || { echo "$failures failures"; exit 1; }
echo "prec top browser checks passed"
