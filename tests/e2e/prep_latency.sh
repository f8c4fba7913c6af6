#!/usr/bin/env bash
# Latency profiles (issue 19, perf 6.15's model): prec --latency records the
# context switches; prep --latency weighs each sample by 1 / the threads
# running at that moment. tests/programs/parphase runs serial_work 0.6 s on
# one thread, then parallel_work 0.4 s on each of 2 threads at once
# (PROFILES.md, parphase): Overhead 42.86 / 57.14, Latency 60 / 40, each
# within 3 points; --sort parallelism shows levels 1 and 2 only;
# --parallelism 1 keeps only the serial phase, 2 only the parallel one.
# perf's columns (titles, widths, order, with children too), its 99% rule,
# its refusals, and the same recording as an unprivileged user at
# perf_event_paranoid 2 (restored on every exit).
#
# The two threads need a CPU each at once: on a busy machine (other jobs on
# the 2 vCPUs) the program runs under chrt -f 1 (SCHED_FIFO, about a second;
# the unprivileged user's prec inherits the policy from the test's root
# shell). Without chrt the figures are checked only when the run had its two
# CPUs.
. tests/e2e/lib/common.sh
. tests/e2e/lib/unpriv.sh
trap 'paranoid_restore; e2e_cleanup' EXIT
need_perf_events 1
[ -x "$P/parphase" ] || { echo "no $P/parphase: make tests-build"; exit 77; }

# value of column $2 (1-based, % stripped) on the line whose last field is $1
col() { awk -v n="$1" -v c="$2" '$NF == n { v = $c; sub(/%/, "", v); print v; exit }' "$3"; }
# $1 within $3 points of $2
within() { awk -v x="$1" -v w="$2" -v t="$3" 'BEGIN { d = x - w; exit !(x != "" && d <= t && -d <= t) }'; }
want() { # file line-name column designed what
	local v
	v=$(col "$2" "$3" "$1")
	within "${v:-x}" "$4" 3 || fail "$5: ${v:-none} (designed $4)"
}

RT=""
chrt -f 1 true 2>/dev/null && RT="chrt -f 1"

# Records parphase into $1 (as the user, in $U, when $2 is set), up to 3
# times: 0 when the parallel phase ran at level 2 (its two threads on CPUs
# at once) for at least 95% of its samples, so that the designed latency
# holds; 2 when it never did, 1 when prec failed.
record() {
	local name=$1 as=${2:-} file=$1 i
	for i in 1 2 3; do
		if [ -n "$as" ]; then
			file=$U/$name
			([ -n "$RT" ] && chrt -f -p 1 $BASHPID
			 as_user $UPREC --latency -F 999 -g -q -o "$name" -- $UP/parphase 600 400 2) \
				>/dev/null 2>"$d/rec.err" || { fail "prec --latency as the user: $(cat "$d/rec.err")"; return 1; }
		else
			$PREC --latency -F 999 -g -q -o "$file" -- $RT $P/parphase 600 400 2 >/dev/null 2>"$d/rec.err" ||
				{ fail "prec --latency: $(cat "$d/rec.err")"; return 1; }
		fi
		$PREP -i "$file" --sort parallelism,sym --no-children -q -g none >"$d/lv" 2>&1
		awk '$NF == "parallel_work" { sub(/%/, "", $1); t += $1; if ($3 == 2) two += $1 }
		     END { exit !(t > 0 && two >= 0.95 * t) }' "$d/lv" && return 0
	done
	return 2
}

# ---- the designed figures ------------------------------------------------------
record "$d/lat.data"
parallel_ok=$?
# under chrt the two threads have their CPUs: a parallel phase not seen at
# level 2 is the tracking's fault
[ $parallel_ok -eq 2 ] && [ -n "$RT" ] && fail "under chrt the parallel phase never ran at level 2"
L=$d/lat.data
$PREP -D -i "$L" 2>/dev/null | grep -c "SWITCH" >"$d/nsw"
[ "$(cat "$d/nsw")" -gt 4 ] || fail "prec --latency: $(cat "$d/nsw") switch records"

$PREP -i "$L" --latency --no-children --sort sym -q -g none >"$d/lat" 2>"$d/err" ||
	fail "prep --latency: $(cat "$d/err")"
if [ $parallel_ok -eq 0 ]; then
	want "$d/lat" serial_work 1 60 "--latency: serial_work Latency"
	want "$d/lat" serial_work 2 42.86 "--latency: serial_work Overhead"
	want "$d/lat" parallel_work 1 40 "--latency: parallel_work Latency"
	want "$d/lat" parallel_work 2 57.14 "--latency: parallel_work Overhead"
	# sorted by latency: the serial phase first, though it used less CPU
	[ "$(awk 'NF { print $NF; exit }' "$d/lat")" = serial_work ] ||
		fail "--latency: not sorted by Latency: $(head -2 "$d/lat")"
	$PREP -i "$L" --no-children --sort sym -q -g none >"$d/cpu"
	[ "$(awk 'NF { print $NF; exit }' "$d/cpu")" = parallel_work ] ||
		fail "plain report: not sorted by Overhead: $(head -2 "$d/cpu")"
elif [ $parallel_ok -eq 2 ]; then
	echo "note: the two threads did not get two CPUs at once in 3 runs: figures not checked"
fi

# perf's columns: Latency first and 8 wide with --latency; after Overhead
# without it (a parallelism key asks for the latency profile)
$PREP -i "$L" --latency --no-children --sort sym -g none >"$d/full"
grep -qx '#  Latency  Overhead  Symbol *' "$d/full" || fail "--latency titles: $(grep -m1 Latency "$d/full")"
grep -qE '^# \.{8}  \.{8}  \.+$' "$d/full" || fail "--latency rules"
$PREP -i "$L" --no-children --sort parallelism -g none >"$d/par"
grep -qx '# Overhead   Latency  Parallelism' "$d/par" || fail "--sort parallelism titles: $(grep -m1 Parallelism "$d/par")"
grep -qx '# \.\.\.\.\.\.\.\.  \.\.\.\.\.\.\.\.  \.\.\.\.\.\.\.\.\.\.\.' "$d/par" || fail "--sort parallelism rules"
# the levels: 1 and 2, nothing else (the main thread waits while its two run)
awk '/^ +[0-9.]+%/ { print $3 }' "$d/par" | sort -u | tr '\n' ' ' >"$d/levels"
[ "$(cat "$d/levels")" = "1 2 " ] || fail "--sort parallelism: levels $(cat "$d/levels")"
if [ $parallel_ok -eq 0 ]; then
	lv() { awk -v l="$1" -v c="$2" '$3 == l { v = $c; sub(/%/, "", v); print v }' "$d/par"; }
	within "$(lv 1 1)" 42.86 3 || fail "--sort parallelism: level 1 Overhead $(lv 1 1)"
	within "$(lv 1 2)" 60 3 || fail "--sort parallelism: level 1 Latency $(lv 1 2)"
	within "$(lv 2 1)" 57.14 3 || fail "--sort parallelism: level 2 Overhead $(lv 2 1)"
	within "$(lv 2 2)" 40 3 || fail "--sort parallelism: level 2 Latency $(lv 2 2)"
fi
# children: perf's Latency of the children is 7 wide (its title's)
$PREP -i "$L" --latency --children --sort sym -g none >"$d/ch"
grep -qx '# Latency  Children   Latency      Self  Symbol *' "$d/ch" || fail "--latency --children titles: $(grep -m1 Children "$d/ch")"
grep -qE '^# \.{7}  \.{8}  \.{8}  \.{8}  \.+$' "$d/ch" || fail "--latency --children rules"
$PREP -i "$L" --children --sort parallelism,sym -g none >"$d/ch2"
grep -qx '# Children  Latency      Self   Latency  Parallelism  Symbol *' "$d/ch2" ||
	fail "--children --sort parallelism titles: $(grep -m1 Children "$d/ch2")"
if [ $parallel_ok -eq 0 ]; then
	# main's children: the serial phase; thread_main's: the parallel one
	want "$d/ch" main 1 60 "--latency --children: main's Latency (children)"
	want "$d/ch" main 2 42.86 "--latency --children: main's Children"
	want "$d/ch" thread_main 1 40 "--latency --children: thread_main's Latency (children)"
	want "$d/ch" parallel_work 3 40 "--latency --children: parallel_work's Latency (self)"
fi

# --parallelism: only the samples of those levels (the percentages are of them)
$PREP -i "$L" --parallelism 1 --no-children --sort sym -q -g none >"$d/p1"
$PREP -i "$L" --parallelism 2 --no-children --sort sym -q -g none >"$d/p2"
if [ $parallel_ok -eq 0 ]; then
	v=$(col serial_work 1 "$d/p1")
	within "${v:-x}" 100 3 || fail "--parallelism 1: serial_work ${v:-none}% (want all of it)"
	v=$(col parallel_work 1 "$d/p2")
	within "${v:-x}" 100 3 || fail "--parallelism 2: parallel_work ${v:-none}%"
	grep -q serial_work "$d/p2" && fail "--parallelism 2: the serial phase is in"
	# absolute: of every sample
	$PREP -i "$L" --parallelism 1 --latency --no-children --sort sym -q -g none --percentage absolute >"$d/pa"
	want "$d/pa" serial_work 1 60 "--parallelism 1 --percentage absolute: Latency"
	want "$d/pa" serial_work 2 42.86 "--parallelism 1 --percentage absolute: Overhead"
fi
$PREP -i "$L" --parallelism 3-8 --sort sym -q >"$d/p3" 2>&1 || fail "--parallelism 3-8: $(cat "$d/p3")"
grep -q '%' "$d/p3" && fail "--parallelism 3-8: entries at levels that never ran"

# attached (-p) in the middle of the parallel phase: level 2 there too (the
# threads already running are counted from their first sample or switch-in;
# the unit tests check the first-sample rule itself)
if [ -n "$RT" ]; then
	$RT $P/parphase 1000 1500 2 &
	pp=$!
	sleep 1.3
	$PREC --latency -p $pp -q -o "$d/att.data" -- sleep 0.6 >/dev/null 2>"$d/err" || fail "prec --latency -p: $(cat "$d/err")"
	wait $pp
	$PREP -i "$d/att.data" --sort parallelism,sym --no-children -q -g none >"$d/att" 2>&1
	awk '$NF == "parallel_work" { sub(/%/, "", $1); t += $1; if ($3 == 2) two += $1 }
	     END { exit !(t > 50 && two >= 0.85 * t) }' "$d/att" ||
		fail "-p in the parallel phase: not at level 2: $(head -3 "$d/att")"
fi

# a perf.data file recorded with perf's --switch-events reads the same way
if [ $parallel_ok -eq 0 ] && command -v perf >/dev/null &&
   perf_rec -q --switch-events -F 999 -o "$d/perf.data" -- $RT $P/parphase 600 400 2 >/dev/null 2>&1; then
	$PREP -i "$d/perf.data" --latency --no-children --sort sym -q -g none >"$d/pd" 2>"$d/err" ||
		fail "perf.data: prep --latency: $(cat "$d/err")"
	want "$d/pd" serial_work 1 60 "perf.data: serial_work Latency"
	want "$d/pd" parallel_work 2 57.14 "perf.data: parallel_work Overhead"
fi

# the report without the new options is the report it was: no Latency column
$PREP -i "$L" --no-children --sort sym -g none | grep -q Latency && fail "plain prep shows Latency"

# perf's 99% rule: a program that runs alone shows no Latency column unless
# it is asked for (--latency)
$PREC --latency -F 999 -q -o "$d/one.data" -- $P/spin 200 >/dev/null 2>&1 || fail "prec --latency spin"
$PREP -i "$d/one.data" --sort parallelism >"$d/one" 2>&1
grep -qx '# Overhead  Parallelism' "$d/one" || fail "99% rule: $(grep -m1 Overhead "$d/one")"
$PREP -i "$d/one.data" --latency --sort comm -q >"$d/one2" 2>&1
[ "$(awk '{ print $1, $2, $3; exit }' "$d/one2")" = "100.00% 100.00% spin" ] ||
	fail "--latency on one thread: $(head -1 "$d/one2")"

# refusals, one line each: no context switches in the file; system-wide
$PREC -F 999 -q -o "$d/nosw.data" -- $P/spin 50 >/dev/null 2>&1
for o in --latency "--sort parallelism" "--parallelism 1" "-F latency,sym"; do
	# shellcheck disable=SC2086
	$PREP -i "$d/nosw.data" $o >"$d/out" 2>"$d/err" && fail "$o without switches: exit 0"
	[ "$(wc -l <"$d/err")" -eq 1 ] && grep -q "^prep: use of latency profile or parallelism requires --latency flag during record" "$d/err" ||
		fail "$o without switches: $(cat "$d/err")"
	[ -s "$d/out" ] && fail "$o without switches: output"
done
# prep diff with the parallelism key: the report's levels and shares (a file
# against itself), and the same refusal of a file without switches
$PREP diff "$L" "$L" --sort parallelism >"$d/pdiff" 2>"$d/err" || fail "prep diff --sort parallelism: $(cat "$d/err")"
awk '/^ +[0-9.]+%/ { print $NF }' "$d/pdiff" | sort -u | tr '\n' ' ' >"$d/dlevels"
[ "$(cat "$d/dlevels")" = "$(cat "$d/levels")" ] ||
	fail "prep diff --sort parallelism: levels $(cat "$d/dlevels"), the report's $(cat "$d/levels")"
[ "$(awk '$NF == 1 { print $1 }' "$d/pdiff")" = "$(awk '$3 == 1 { print $1 }' "$d/par")" ] ||
	fail "prep diff --sort parallelism: level 1 $(awk '$NF == 1' "$d/pdiff"), the report's $(awk '$3 == 1' "$d/par")"
$PREP diff "$L" "$d/nosw.data" --sort parallelism >"$d/out" 2>"$d/err" &&
	fail "prep diff --sort parallelism without switches: exit 0"
[ "$(wc -l <"$d/err")" -eq 1 ] && grep -q "^prep diff: use of latency profile or parallelism requires --latency flag during record (.*nosw.data has no context switches)$" "$d/err" ||
	fail "prep diff --sort parallelism without switches: $(cat "$d/err")"
$PREC --latency -a -q -o "$d/a.data" -- true 2>"$d/err" && fail "prec --latency -a: exit 0"
grep -qx "prec: --latency: latency profiling is not supported with system-wide collection (-a, -C)" "$d/err" ||
	fail "prec --latency -a: $(cat "$d/err")"

# ---- as an unprivileged user at perf_event_paranoid 2 ---------------------------
if [ -w /proc/sys/kernel/perf_event_paranoid ] && unpriv_init "$d/t"; then
	U=$d/t/u
	paranoid_set 2
	record u.data user
	uok=$?
	[ $uok -eq 2 ] && [ -n "$RT" ] && fail "paranoid 2: under chrt the parallel phase never ran at level 2"
	paranoid_restore
	if [ -f "$U/u.data" ]; then
		$PREP -D -i "$U/u.data" 2>/dev/null | grep -c "SWITCH" >"$d/nsw"
		[ "$(cat "$d/nsw")" -gt 4 ] || fail "paranoid 2: $(cat "$d/nsw") switch records"
		as_user $UPREP -i u.data --latency --no-children --sort sym -q -g none >"$d/ulat" 2>"$d/err" ||
			fail "paranoid 2: prep --latency: $(cat "$d/err")"
		grep -q "cpu-clock:u" <(as_user $UPREP -i u.data --latency --sort sym 2>/dev/null) ||
			fail "paranoid 2: not cpu-clock:u"
		if [ $uok -eq 0 ]; then
			want "$d/ulat" serial_work 1 60 "paranoid 2: serial_work Latency"
			want "$d/ulat" parallel_work 1 40 "paranoid 2: parallel_work Latency"
			want "$d/ulat" parallel_work 2 57.14 "paranoid 2: parallel_work Overhead"
		else
			echo "note: as the user, the two threads did not get two CPUs at once: figures not checked"
		fi
	fi
else
	echo "note: unprivileged part skipped: ${unpriv_why:-cannot set perf_event_paranoid}"
fi

[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
echo "latency profiles as designed"
