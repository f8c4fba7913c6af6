#!/usr/bin/env bash
# Event groups in sampling (issue 15): '{cpu-clock,page-faults}:S' samples
# the leader and reads both counts into each sample; prep report shows the
# group's members side by side (--group, the default for such groups), each
# member's deltas landing where they happened: touch_pages gets the page
# faults, spin the CPU time. -T prints a line per thread. The same as an
# unprivileged user at paranoid 2 (the :u fallback renames the events).
# Bad modifiers, and --group on a file without groups (one group of all).
# With --switch-output, each file counts only its own page faults.
. tests/e2e/lib/common.sh
. tests/e2e/lib/unpriv.sh
trap 'paranoid_restore; e2e_cleanup' EXIT
need_perf_events 2
PAGES=10000
# The first spin() sample reads the faults since the last sample in
# touch_pages(): on a loaded machine (timer samples late, user-only samples
# skipped while the kernel handles a fault) that can be several hundred
# faults. Counting whole counter values instead of deltas would give spin()
# most of them.
SPIN_PF_MAX=15

# share of column $2 (1 = leader) on the line of symbol $1
share() { awk -v s="$1" -v c="$2" '$NF == s { v = $c; sub(/%/, "", v); print int(v); exit }' "$3"; }

check_report() {	# $1 tag, $2 report file, $3 leader name, $4 member name
	grep -q "^# Samples: .* of events 'anon group { $3, $4 }'$" "$2" ||
		fail "$1: no group title: $(grep '^# Samples' "$2")"
	grep -q "^#         Overhead  Command" "$2" || fail "$1: not two overhead columns"
	pf=$(share touch_pages 2 "$2"); sc=$(share spin 1 "$2"); spf=$(share spin 2 "$2")
	[ "${pf:-0}" -ge $((100 - SPIN_PF_MAX)) ] ||
		fail "$1: touch_pages has ${pf:-0}% of page faults (want >= $((100 - SPIN_PF_MAX)))"
	[ "${sc:-0}" -ge 60 ] || fail "$1: spin has ${sc:-0}% of cpu-clock (want >= 60)"
	[ "${spf:-0}" -le $SPIN_PF_MAX ] ||
		fail "$1: spin has ${spf:-0}% of page faults (want <= $SPIN_PF_MAX)"
}

# ---- as root: {cpu-clock,page-faults}:S, and :uS for user-space samples ----
$PREC -q -F 1000 -o "$d/s.data" -e '{cpu-clock,page-faults}:S' -- $P/grpwork $PAGES 200 \
	>/dev/null 2>"$d/err" || fail ":S refused: $(cat "$d/err")"
$PREP report -i "$d/s.data" --stdio --sort sym >"$d/s.rep" 2>"$d/err" || fail "report: $(cat "$d/err")"
grep -q "^# Samples: .* of events 'anon group { cpu-clock, page-faults }'$" "$d/s.rep" ||
	fail ":S: not shown as a group"
# the page-fault deltas add up to the pages touched (and a few more): each
# CPU's counter is read only by that CPU's samples, so the faults after a
# CPU's last sample are never read; with migrations under load that is up to
# a few percent
ev=$(awk '/^# Event count/ { print $NF; exit }' "$d/s.rep")
$PREP report -i "$d/s.data" --stdio --group -n --show-total-period --sort sym >"$d/n.rep"
pfsum=$(awk '$NF != "" && $1 ~ /%$/ { s += $6 } END { print s }' "$d/n.rep")
[ "${pfsum:-0}" -ge $((PAGES * 97 / 100)) ] && [ "${pfsum:-0}" -le $((PAGES + 500)) ] ||
	fail ":S: page-fault deltas add up to ${pfsum:-0} for $PAGES pages"
spf=$(share spin 2 "$d/s.rep")
[ "${spf:-0}" -le $SPIN_PF_MAX ] || fail ":S: spin has ${spf:-0}% of page faults"
[ "${ev:-0}" -gt 0 ] || fail ":S: no event count"

$PREC -q -F 1000 -o "$d/u.data" -e '{cpu-clock,page-faults}:uS' -- $P/grpwork $PAGES 200 \
	>/dev/null 2>"$d/err" || fail ":uS refused: $(cat "$d/err")"
$PREP report -i "$d/u.data" --stdio --group >"$d/u.rep" 2>&1
check_report ":uS" "$d/u.rep" "cpu-clock:u" "page-faults:u"

# -T: a line per thread of a 2-thread program (samples' counts, and with
# prec -s the kernel's counts at each thread's exit)
$PREC -q -s -F 1000 -o "$d/t.data" -e '{cpu-clock,page-faults}:S' -- $P/grpwork 2000 200 2 \
	>/dev/null 2>"$d/err" || fail "-s: $(cat "$d/err")"
$PREP report -i "$d/t.data" --stdio -T >"$d/t.rep" 2>&1
grep -Eq "^#  +PID  +TID  cpu-clock  page-faults$" "$d/t.rep" || fail "-T: no title line"
n=$(grep -Ec "^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$" "$d/t.rep")
[ "$n" -eq 2 ] || fail "-T: $n thread lines, want 2: $(tail -4 "$d/t.rep")"
$PREP dump -i "$d/t.data" | grep -q " READ " || fail "-s: no READ records"

# --switch-output: each file's deltas hold only its own counts (the counters
# start again at a switch), so the page faults of all files add up as in one
# (less, as there, the faults after a CPU's last sample of each file)
mkdir "$d/sw"
(cd "$d/sw" && $PREC -q -F 1000 -e '{cpu-clock,page-faults}:S' --switch-output=0.2s -- \
	$P/grpwork $PAGES 300 >/dev/null 2>"$d/err") || fail ":S --switch-output: $(cat "$d/err")"
nf=0 pfsum=0
for f in "$d"/sw/prec.data.*; do
	n=$($PREP report -i "$f" --stdio --group -n --show-total-period --sort sym 2>/dev/null |
		awk '$NF != "" && $1 ~ /%$/ { s += $6 } END { print s + 0 }')
	nf=$((nf + 1)) pfsum=$((pfsum + n))
done
[ $nf -ge 2 ] || fail ":S --switch-output: $nf files"
[ $pfsum -ge $((PAGES * 97 / 100)) ] && [ $pfsum -le $((PAGES + 500)) ] ||
	fail ":S --switch-output: page faults of $nf files add up to $pfsum for $PAGES pages"

# ---- perf.data: the same lines as perf report (:S, {a,b}, --group) -------------
if command -v perf >/dev/null; then
	drop_tip() {
		awk '/^# \(Tip/ { tip = NR } { l[NR] = $0 }
		     END { for (i = 1; i <= NR; i++) if (!tip || i < tip - 1 || i > tip + 1) print l[i] }'
	}
	perf_rec -q -F 1000 -o "$d/ps.data" -e '{cpu-clock,page-faults}:S' -- $P/grpwork $PAGES 100 \
		>/dev/null 2>&1 || fail "perf record :S failed"
	perf_rec -q -F 1000 -o "$d/pg.data" -e '{cpu-clock,page-faults}' -- $P/grpwork 2000 100 \
		>/dev/null 2>&1 || fail "perf record {a,b} failed"
	perf_rec -q -F 1000 -o "$d/pn.data" -e cpu-clock,page-faults -- $P/grpwork 2000 100 \
		>/dev/null 2>&1 || fail "perf record a,b failed"
	perf_rec -q -g -F 1000 -o "$d/pc.data" -e '{cpu-clock,page-faults}:S' -- $P/grpwork 2000 100 \
		>/dev/null 2>&1 || fail "perf record -g :S failed"
	# a sample in the PLT's header: perf 6.1 names it _init (the symbol
	# before it), prep .plt (as prep_answers.sh): left out on both sides
	mask_plt() {
		sed -E 's/\[\.\] [A-Za-z0-9_.]*@plt( |$)/[.] @plt\1/' |
			grep -vE '\[\.\] (_init|\.plt)(\+0x[0-9a-f]+)? *$'
	}
	for c in "ps" "ps --group -n --show-total-period --sort sym" "pg" "pg --group" \
		 "pn --group -n" "pc --no-inline" "pc --no-children --no-inline -g caller"; do
		set -- $c
		f=$1; shift
		# a PLT stub perf 6.1 cannot name prints as a bare "@plt"; prep
		# names it (README, "Where prep differs"): stub names are masked
		perf report -i "$d/$f.data" --stdio "$@" 2>/dev/null | drop_tip | mask_plt >"$d/perf.out"
		$PREP report -i "$d/$f.data" --stdio "$@" 2>&1 | mask_plt >"$d/prep.out"
		diff -u "$d/perf.out" "$d/prep.out" >"$d/diff" ||
			fail "perf.data $c: prep differs from perf: $(head -20 "$d/diff")"
	done
else
	echo "note: no perf: perf.data comparison skipped"
fi

# a group without :S: the file keeps which events were grouped (event_groups),
# so the report shows them as one group, as perf does for its perf.data
$PREC -q -F 1000 -o "$d/g.data" -e '{cpu-clock,page-faults}' -- $P/grpwork 2000 50 \
	>/dev/null 2>&1 || fail "{a,b}: prec failed"
$PREP report -i "$d/g.data" --stdio --sort sym >"$d/g.rep" 2>&1
grep -q "^# Samples: .* of events 'anon group { cpu-clock, page-faults }'$" "$d/g.rep" ||
	fail "{a,b} without :S: not shown as a group: $(grep '^# Samples' "$d/g.rep")"

# ---- bad input, and --group without groups ----------------------------------
$PREC -q -o "$d/z.data" -e '{cpu-clock,page-faults}:Z' -- true 2>"$d/err"
rc=$?
[ $rc -eq 129 ] || fail ":Z: exit $rc"
[ "$(head -1 "$d/err")" = "prec: event '{cpu-clock,page-faults}:Z': unknown modifier 'Z'" ] ||
	fail ":Z: message: $(head -1 "$d/err")"
$PREC -q -F 1000 -o "$d/p.data" -e cpu-clock -e page-faults -- $P/grpwork 2000 50 \
	>/dev/null 2>&1 || fail "two events: prec failed"
$PREP report -i "$d/p.data" --stdio >"$d/p1.rep" 2>&1
grep -q "of event 'page-faults'$" "$d/p1.rep" || fail "no groups: not one section per event"
$PREP report -i "$d/p.data" --stdio --group >"$d/p2.rep" 2>&1
grep -q "^# Samples: .* of events 'cpu-clock, page-faults'$" "$d/p2.rep" ||
	fail "--group without groups: not one group of all events (perf's way)"

# ---- unprivileged, paranoid 2: the :u fallback renames the members ---------
if [ -w /proc/sys/kernel/perf_event_paranoid ] && unpriv_init "$d/t"; then
	paranoid_set 2
	as_user $UPREC -F 1000 -o g.data -e '{cpu-clock,page-faults}:S' -- $UP/grpwork $PAGES 200 \
		>/dev/null 2>"$d/err" || fail "unpriv: :S refused: $(cat "$d/err")"
	as_user $UPREP report -i g.data --stdio >"$d/g.rep" 2>&1
	check_report "unpriv" "$d/g.rep" "cpu-clock:u" "page-faults:u"
	as_user $UPREC -s -F 1000 -o t.data -e '{cpu-clock,page-faults}:S' -- $UP/grpwork 2000 200 2 \
		>/dev/null 2>&1 || fail "unpriv: -s refused"
	n=$(as_user $UPREP report -i t.data --stdio -T 2>&1 | grep -Ec "^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$")
	[ "$n" -eq 2 ] || fail "unpriv: -T: $n thread lines, want 2"
	paranoid_restore
else
	echo "note: unprivileged part skipped: ${unpriv_why:-cannot set perf_event_paranoid}"
fi

[ $failures -eq 0 ] && echo "prec groups checks passed"
exit $((failures > 0))
