#!/usr/bin/env bash
# prec never loses a file (issue 12):
#  - a start that fails (bad -p, -m too big, missing command, refused event,
#    CPU that does not exist, unwritable output) leaves an existing prec.data
#    and prec.data.old byte for byte as they were, and creates no file;
#  - a write error while recording (file size limit, full tmpfs, /dev/full)
#    stops prec with one line naming the file, the error and what was kept,
#    exits non-zero, ends the workload, and leaves a file that prep reads up
#    to its last complete block;
#  - after SIGKILL the file holds the samples up to shortly before the kill
#    (DATA blocks reach the file every 0.2 s).
. tests/e2e/lib/common.sh
trap e2e_cleanup EXIT
need_perf_events 1

# ---- a start that fails touches no file ----------------------------------------
mkdir "$d/keep" "$d/none"
printf 'the previous recording\n' >"$d/keep/prec.data"
printf 'the one before\n' >"$d/keep/prec.data.old"
cp "$d/keep/prec.data" "$d/prev"
cp "$d/keep/prec.data.old" "$d/prev.old"
starts=("-p 999999999" "-m 1048576 -- true" "-- /nonexistent/cmd" "-C 999 -- true"
	"-o /nonexistent-dir/x.data -- true")
# a hardware event is refused where there is no PMU (this machine kind)
[ -e /sys/bus/event_source/devices/cpu ] || starts+=("-e instructions -- true")
if [ "$(id -u)" -eq 0 ] && mknod "$d/keep/dev" c 1 3 2>/dev/null; then
	# a device as the output (a copy of /dev/null here) is not removed
	starts+=("-o dev -- /nonexistent/cmd")
fi
for args in "${starts[@]}"; do
	for dir in keep none; do
		# shellcheck disable=SC2086
		(cd "$d/$dir" && $PREC -q $args) >/dev/null 2>"$d/err"
		rc=$?
		[ $rc -ne 0 ] || fail "'$args' in $dir: exit 0"
		[ "$(wc -l <"$d/err")" -eq 1 ] || fail "'$args': not one line: $(cat "$d/err")"
	done
	cmp -s "$d/keep/prec.data" "$d/prev" || fail "'$args': prec.data changed"
	cmp -s "$d/keep/prec.data.old" "$d/prev.old" || fail "'$args': prec.data.old changed"
	left=$(find "$d/keep" "$d/none" -mindepth 1 ! -name prec.data ! -name prec.data.old ! -name dev)
	[ -z "$left" ] || fail "'$args': created $left"
	[ -z "$(ls -A "$d/none")" ] || fail "'$args': created $(ls -A "$d/none")"
	find "$d/keep" "$d/none" -mindepth 1 ! -name prec.data ! -name prec.data.old ! -name dev -delete
	rm -f "$d/none/"*
	[ "${args#-o dev}" = "$args" ] || [ -c "$d/keep/dev" ] || fail "'$args': removed the device"
done
# a start that works rotates the old file, then writes the new one
(cd "$d/keep" && $PREC -q -- true) 2>"$d/err" || fail "rotation: exit $?: $(cat "$d/err")"
cmp -s "$d/keep/prec.data.old" "$d/prev" || fail "rotation: prec.data.old is not the previous file"
$PREP dump -i "$d/keep/prec.data" >/dev/null 2>&1 || fail "rotation: new file not readable"

# ---- write errors while recording --------------------------------------------
# check_kept NAME FILE STDERR EXIT STDOUT: after a recording of `spin 4900`
# stopped by a write error: the exit, the one line, that the workload was
# ended, and that prep reads the samples the line says were kept. (Not
# `spin 5000`: prec_record.sh kills that one by name.)
check_kept() {
	local name=$1 out=$2 err=$3 rc=$4 wlout=$5 line n
	[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "$name: exit $rc"
	[ "$(wc -l <"$err")" -eq 1 ] || fail "$name: not one line: $(cat "$err")"
	line=$(cat "$err")
	case "$line" in
	"prec: cannot write '$out': "*"; kept "*" samples ("*" s)") ;;
	*) fail "$name: line: $line" ;;
	esac
	n=$(echo "$line" | sed -n 's/.*; kept \([0-9]*\) samples.*/\1/p')
	[ "${n:-0}" -gt 0 ] || fail "$name: kept no samples: $line"
	# spin prints its CPU time when it has done all its work: it was ended
	# before (by CPU time, not wall time: a loaded machine is slow)
	grep -q '^cpu ' "$wlout" && fail "$name: the workload was not ended: $(cat "$wlout")"
	[ -f "$out" ] || { fail "$name: no file"; return; }
	$PREP -i "$out" --stdio --stats >"$d/rep" 2>"$d/rep.err" ||
		fail "$name: prep failed: $(cat "$d/rep.err")"
	grep -q "did not finish" "$d/rep.err" || fail "$name: no cut-short warning: $(cat "$d/rep.err")"
	grep -q "SAMPLE events: *$n$" "$d/rep" ||
		fail "$name: prep does not report the $n samples kept: $(grep 'SAMPLE events' "$d/rep")"
	$PREP dump -i "$out" >/dev/null 2>&1 || fail "$name: prep dump failed: exit $?"
	$PREP -D -i "$out" >"$d/raw" 2>/dev/null
	[ "$(grep -c ' SAMPLE ' "$d/raw")" -eq "$n" ] || fail "$name: dump has $(grep -c ' SAMPLE ' "$d/raw") samples, not $n"
}

# the workload is prec's child: the pid of the `spin` it runs, if still there
spin_of() { pgrep -P "$1" spin; }

# file size limit (EFBIG; no privileges needed): 200 KiB of raw -g samples
(ulimit -f 200; timeout 20 $PREC -q -z 0 -F 4000 -g -o "$d/fsz.data" -- $P/spin 4900) \
	>"$d/wl.out" 2>"$d/err"
check_kept "file size limit" "$d/fsz.data" "$d/err" $? "$d/wl.out"
grep -q "File too large" "$d/err" || fail "file size limit: $(cat "$d/err")"

# /dev/full: the first write fails; nothing is recorded, one clean line
timeout 20 $PREC -q -o /dev/full -- $P/spin 100 >/dev/null 2>"$d/err"
rc=$?
[ $rc -eq 255 ] || fail "/dev/full: exit $rc"
[ "$(cat "$d/err")" = "prec: cannot write '/dev/full': No space left on device" ] ||
	fail "/dev/full: $(cat "$d/err")"
[ -c /dev/full ] || fail "/dev/full is gone"

# a full file system: a small tmpfs (root only)
if [ "$(id -u)" -eq 0 ] && mkdir "$d/mnt" && mount -t tmpfs -o size=128k tmpfs "$d/mnt"; then
	mnt=$d/mnt
	for opts in "-z 0 -F 4000 -g" "--call-graph dwarf -F 4000"; do
		rm -f "$mnt"/*
		# shellcheck disable=SC2086
		timeout 20 $PREC -q $opts -o "$mnt/full.data" -- $P/spin 4900 >"$d/wl.out" 2>"$d/err"
		check_kept "tmpfs $opts" "$mnt/full.data" "$d/err" $? "$d/wl.out"
		grep -q "No space left on device" "$d/err" || fail "tmpfs $opts: $(cat "$d/err")"
	done
	umount "$mnt" && mnt=
	tmpfs_note=
else
	tmpfs_note=" (full tmpfs part skipped: needs root to mount a tmpfs)"
fi

# ---- SIGKILL: the file holds the samples up to shortly before the kill -----------
# gap = (kill time - start) - (last sample - first record): how much of the
# recording before the kill is missing from the file (0.9 s: between two
# flushes, where the previous one is 0.1 s old)
for at in 0.6 0.9 1.2; do
	out=$d/kill$at.data
	$PREC -q -F 1000 -o "$out" -- $P/spin 1500 >/dev/null 2>&1 &
	ppid=$!
	sleep "$at"
	child=$(spin_of $ppid)
	kill_ns=$(date +%s%N)
	kill -KILL $ppid
	{ wait $ppid; } 2>/dev/null
	[ -n "$child" ] && kill "$child" 2>/dev/null
	$PREP -i "$out" --stdio --stats >"$d/rep" 2>"$d/rep.err"
	grep -q "did not finish" "$d/rep.err" || fail "SIGKILL at $at s: no unfinished warning"
	n=$(sed -n 's/^ *SAMPLE events: *\([0-9]*\)$/\1/p' "$d/rep")
	[ "${n:-0}" -gt 0 ] || { fail "SIGKILL at $at s: no samples in the report"; continue; }
	$PREP -D -i "$out" >"$d/raw" 2>/dev/null
	gap=$(awk -v kill_ns="$kill_ns" '
		/^  start_time_ns: / { start = $2 }
		/ time [0-9]+ / {
			for (i = 1; i < NF; i++) if ($i == "time") t = $(i + 1)
			if (t > 0 && (first == 0 || t < first)) first = t
			if ($0 ~ / SAMPLE / && t > last) last = t
		}
		END { printf "%.3f", ((kill_ns - start) - (last - first)) / 1e9 }' "$d/raw")
	echo "SIGKILL at $at s: $n samples, the last $gap s before the kill missing"
	awk -v g="$gap" 'BEGIN { exit !(g >= -0.05 && g <= 0.35) }' ||
		fail "SIGKILL at $at s: the file lacks the last $gap s before the kill (max 0.35)"
done

[ $failures -eq 0 ] || exit 1
echo "prec never loses a file$tmpfs_note"
