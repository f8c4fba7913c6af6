#!/usr/bin/env bash
# prec as a flight recorder (issue 15): --overwrite keeps only the newest
# ring's worth of samples (twophase: phase_a, then phase_b); --switch-output
# closes a complete, self-contained prec.data.TIMESTAMP on SIGUSR2, every
# SIZE or every TIME and goes on in a new one (that names the workload's
# functions again); --switch-max-files keeps the newest N; --max-size stops
# cleanly near SIZE; bad values are one line and exit 129; an unprivileged
# user at perf_event_paranoid 2 can do the same.
. tests/e2e/lib/common.sh
. tests/e2e/lib/unpriv.sh
trap 'paranoid_restore; e2e_cleanup' EXIT
need_perf_events 1
command -v taskset >/dev/null || { echo "no taskset (util-linux)"; exit 77; }

# the share (integer %) of a function in a flat report of FILE
share() {
	$PREP -i "$1" --stdio --no-children --sort sym 2>/dev/null |
		awk -v f="$2" '$NF == f { sub(/%/, "", $1); print int($1); exit }'
}
stamped() { ls "$1" 2>/dev/null | grep -cE '^prec\.data\.[0-9]{16}$'; }
# wait (at most 30 s) until file $1 has a line $2 (the workload's stderr)
wait_for() { for _ in $(seq 300); do grep -qx "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
cd "$d" || exit 1
# Each CPU has its own ring: the workload stays on CPU 0, so that one ring
# holds what is kept. -m 4 holds 292 samples (56 bytes each): 0.3 s at
# 1000 Hz, less than phase_b's 0.5 s of CPU.
PH="taskset -c 0 $P/twophase"

# ---- --overwrite alone: the rings once, at the end -------------------------------
$PREC -e cpu-clock -F 1000 -m 4 --overwrite -o ow.data -- $PH 1000 500 >/dev/null 2>err ||
	fail "--overwrite: exit $?: $(cat err)"
b=$(share ow.data phase_b)
[ "${b:-0}" -ge 80 ] || fail "--overwrite: phase_b has ${b:-0}% (want >= 80): $(cat err)"
n=$($PREP -D -i ow.data 2>/dev/null | grep -c ' SAMPLE ')
[ "$n" -ge 150 ] && [ "$n" -le 320 ] || fail "--overwrite: $n samples kept (a ring holds 292)"

# a small -m sizes the samples' window, not the tracking ring: 150 execs
# while prec is stopped (as busy at a switch) all keep their COMM
$PREC -q -m 4 --overwrite -o trk.data -- \
	sh -c 'kill -STOP $PPID; for i in $(seq 150); do /bin/true; done; kill -CONT $PPID' ||
	fail "--overwrite -m 4, stopped: exit $?"
n=$($PREP -D -i trk.data 2>/dev/null | grep -c 'COMM .*: true (exec)')
[ "$n" -eq 150 ] || fail "--overwrite -m 4: $n of 150 execs kept their COMM"

# SIGUSR2 without --switch-output: ignored, as perf (the rings are still dumped)
$PREC -q -e cpu-clock -F 1000 -m 4 --overwrite -o usr2.data -- $PH 600 100 >/dev/null 2>usr2.err &
pid=$!
wait_for usr2.err phase_a || fail "--overwrite, SIGUSR2: phase_a did not start"
kill -USR2 $pid
wait $pid || fail "--overwrite, SIGUSR2: exit $?: $(cat usr2.err)"
n=$($PREP -D -i usr2.data 2>/dev/null | grep -c ' SAMPLE ')
[ "$n" -ge 100 ] || fail "--overwrite, SIGUSR2: $n samples"

# the tracking event takes no samples: no column (--group), no section
# beside a :S group, not counted in pprof's note on other events
$PREP -i ow.data --stdio --group 2>&1 | grep -q "^# Samples: [0-9]*  of events 'cpu-clock'$" ||
	fail "--overwrite: --group shows the tracking event: $($PREP -i ow.data --stdio --group 2>&1 | grep '^# Samples')"
$PREP export pprof -i ow.data -o ow.pb.gz 2>&1 | grep "note:" && fail "--overwrite: pprof counts the tracking event"
$PREC -q -e '{cpu-clock,page-faults}:S' -m 4 --overwrite -o owg.data -- $PH 100 100 >/dev/null 2>&1 ||
	fail "--overwrite with a :S group: exit $?"
$PREP -i owg.data --stdio 2>&1 | grep "^# Samples: .*'dummy'" && fail "--overwrite with :S: a dummy section"
$PREC -q -s -e cpu-clock -m 4 --overwrite -o ows.data -- $P/threads >/dev/null 2>&1 || fail "--overwrite -s: exit $?"
$PREP -i ows.data --stdio -T 2>&1 | grep -q "^#  *PID  *TID  *cpu-clock$" ||
	fail "--overwrite -s: -T columns: $($PREP -i ows.data --stdio -T 2>&1 | grep '^#  *PID')"

# ---- the flight recorder: --overwrite --switch-output, switched by SIGUSR2 ----------
mkdir sw && cd sw || exit 1
$PREC -e cpu-clock -F 1000 -m 4 --overwrite --switch-output -- $PH 1000 500 >/dev/null 2>../err &
pid=$!
wait_for ../err phase_a || fail "snapshot: phase_a did not start"
sleep 0.3               # into phase_a (1 s of CPU)
kill -USR2 $pid
wait $pid || fail "snapshot: exit $?: $(cat ../err)"
[ "$(stamped .)" -eq 2 ] || fail "snapshot: files: $(ls)"
[ -e prec.data ] && fail "snapshot: prec.data left beside the timestamped files"
grep -qE '^\[ prec: switched output: wrote [0-9.]+ MB prec\.data\.[0-9]{16} \([0-9]+ samples, 0 lost\) \]$' ../err ||
	fail "snapshot: no line for the switch: $(cat ../err)"
grep -qE '^\[ prec: captured and wrote [0-9.]+ MB prec\.data\.[0-9]{16} \([0-9]+ samples, 0 lost\) \]$' ../err ||
	fail "snapshot: summary line: $(cat ../err)"
first=$(ls prec.data.* | sort | head -1) last=$(ls prec.data.* | sort | tail -1)
a=$(share "$first" phase_a) b=$(share "$last" phase_b)
[ "${a:-0}" -ge 80 ] || fail "snapshot: first file: phase_a ${a:-0}% (want >= 80)"
[ "${b:-0}" -ge 80 ] || fail "snapshot: last file: phase_b ${b:-0}% (want >= 80): $(cat ../err)"
for f in prec.data.*; do
	$PREP -D -i "$f" >dump 2>derr || fail "snapshot: $f: dump failed"
	[ -s derr ] && fail "snapshot: $f: warnings: $(cat derr)"
	for blk in METADATA EVENT DATA BUILD_IDS SYMBOLS INDEX; do
		grep -q "^block .* $blk," dump || fail "snapshot: $f has no $blk block"
	done
	grep -q "MMAP2 .*tests/programs/twophase" dump || fail "snapshot: $f: no MMAP2 of twophase"
done
cd .. || exit 1

# ---- --switch-output (signal) without --overwrite: the new file synthesizes the maps --
mkdir sig && cd sig || exit 1
$PREC -e cpu-clock -F 1000 --switch-output -- $P/twophase 800 400 >/dev/null 2>../err &
pid=$!
wait_for ../err phase_a || fail "signal: phase_a did not start"
sleep 0.2
kill -USR2 $pid
wait $pid || fail "signal: exit $?: $(cat ../err)"
[ "$(stamped .)" -eq 2 ] || fail "signal: files: $(ls)"
last=$(ls prec.data.* | sort | tail -1)
$PREP -D -i "$last" 2>/dev/null | grep -qE "MMAP2 .*/twophase pid [0-9]+ tid [0-9]+ time 0 " ||
	fail "signal: the second file has no synthesized MMAP2 of twophase"
b=$(share "$last" phase_b)
[ "${b:-0}" -ge 10 ] || fail "signal: second file does not name phase_b (${b:-0}%)"
cd .. || exit 1

# ---- --switch-output=SIZE, =TIME, --switch-max-files --------------------------------
mkdir size && cd size || exit 1
$PREC -e cpu-clock -F 4000 -g --switch-output=8K -- $P/twophase 1000 0 >/dev/null 2>../err ||
	fail "size: exit $?: $(cat ../err)"
n=$(stamped .)
[ "$n" -ge 2 ] && [ "$n" -le 40 ] || fail "size: $n files"
for f in prec.data.*; do
	s=$(stat -c %s "$f")
	[ "$s" -le 200000 ] || fail "size: $f has $s bytes for 8K"
done
cd .. || exit 1
mkdir time && cd time || exit 1
$PREC -e cpu-clock -F 1000 --switch-output=0.3s --switch-max-files 2 -- $P/twophase 1000 0 \
	>/dev/null 2>../err || fail "time: exit $?: $(cat ../err)"
n=$(grep -c 'switched output' ../err)
[ "$n" -ge 2 ] && [ "$n" -le 60 ] || fail "time: $n switches in 1 s of CPU at 0.3s"
[ "$(stamped .)" -eq 2 ] || fail "--switch-max-files 2: files: $(ls)"
# the two kept are the newest: the last one named in the summary is there
keep=$(sed -nE 's/^\[ prec: captured and wrote .* MB (prec\.data\.[0-9]+) .*/\1/p' ../err)
[ -n "$keep" ] && [ -e "$keep" ] || fail "--switch-max-files: the last file is gone"
cd .. || exit 1

# ---- --max-size ---------------------------------------------------------------
# (a -g sample takes about 3 bytes of the file: 12K are about 2 s of it)
$PREC -e cpu-clock -F 2000 -g --max-size 12K -o max.data -- $P/twophase 4000 0 >/dev/null 2>err
rc=$?
[ $rc -eq 0 ] || fail "--max-size: exit $rc: $(cat err)"
grep -q '^\[ prec: the output reached its size limit' err || fail "--max-size: no line: $(cat err)"
grep -qE '^\[ prec: captured and wrote .* max\.data \([0-9]+ samples, 0 lost\) \]$' err ||
	fail "--max-size: summary: $(cat err)"
s=$(stat -c %s max.data)
[ "$s" -ge 12000 ] && [ "$s" -le 300000 ] || fail "--max-size 12K: file has $s bytes"
a=$(share max.data phase_a)
[ "${a:-0}" -ge 50 ] || fail "--max-size: the file does not report phase_a (${a:-0}%)"

# ---- bad values: one line, exit 129 ----------------------------------------------
for args in "--max-size 12Q" "--switch-output=abc" "--switch-max-files 0" "--switch-output -o -"; do
	# shellcheck disable=SC2086
	$PREC $args -- true >/dev/null 2>err
	rc=$?
	[ $rc -eq 129 ] || fail "$args: exit $rc"
	[ "$(wc -l <err)" -eq 1 ] || fail "$args: not one line: $(cat err)"
done

# ---- an unprivileged user at perf_event_paranoid 2 --------------------------------
if [ -w /proc/sys/kernel/perf_event_paranoid ] && unpriv_init "$d/t"; then
	paranoid_set 2
	U=$d/t/u
	as_user $UPREC -F 1000 -m 4 --overwrite -o ow.data -- taskset -c 0 $UP/twophase 1000 500 \
		>/dev/null 2>err || fail "user: --overwrite: $(cat err)"
	b=$(share "$U/ow.data" phase_b)
	[ "${b:-0}" -ge 80 ] || fail "user: --overwrite: phase_b ${b:-0}% (want >= 80)"
	as_user sh -c "echo \$\$ >prec.pid; exec $UPREC -F 1000 -m 4 --overwrite --switch-output \
		-- taskset -c 0 $UP/twophase 1000 500 >/dev/null 2>err" &
	wait_for "$U/err" phase_a || fail "user: snapshot: phase_a did not start"
	sleep 0.3
	kill -USR2 "$(cat "$U/prec.pid")"
	wait $! || fail "user: snapshot: exit $?: $(cat "$U/err")"
	[ "$(stamped "$U")" -eq 2 ] || fail "user: snapshot: files: $(ls "$U")"
	for f in "$U"/prec.data.*; do
		as_user $UPREP -i "${f##*/}" --stdio --sort sym 2>/dev/null | grep -q "phase_" ||
			fail "user: $f does not report"
	done
	paranoid_restore
else
	echo "skipped the unprivileged part: ${unpriv_why:-cannot set perf_event_paranoid}"
fi

[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
echo ok
