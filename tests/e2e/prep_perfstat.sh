#!/usr/bin/env bash
# prep stat report on files written by perf stat record: the text must be
# perf stat report's own for the same file, byte for byte (both read the
# same readings, so nothing needs masking: no count, time or ratio is
# recomputed from anything but the file), for the default events, -e, -a,
# -A, -C, -p, -t, --per-thread, --per-socket/die/core/node, -I (with its
# titles every 25 intervals), --no-scale, groups and pipe mode (-a too), shown as
# text, CSV (-x) and JSON (-j), and regrouped by the report's own -A and
# --per-* options. Then bad input: a perf record file, a cut-short file,
# a pipe that is no perf.data.
. tests/e2e/lib/perf.sh
set -u
B=${BUILD:-build}
PREP=./prep
[ "$B" = build ] || PREP=$B/prep
P=$B/tests/programs
d=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$d"' EXIT
failures=0 compared=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

command -v perf >/dev/null || { echo "perf is not installed"; exit 77; }
perf stat record -o "$d/probe.data" -e task-clock -- true >/dev/null 2>&1 ||
	{ echo "perf stat record does not work here"; exit 77; }

rec() {  # NAME OPTIONS... -- COMMAND: perf stat record into $d/NAME.data
	local name=$1; shift
	perf stat record -o "$d/$name.data" "$@" >/dev/null 2>"$d/$name.live" ||
		fail "perf stat record $*: exit $? ($(tail -1 "$d/$name.live"))"
}

# NAME "OPTIONS BEFORE report" "OPTIONS AFTER report": perf takes the output
# options before `report` and the aggregation after it; prep takes both.
# perf prints everything on stderr, its warnings among the lines; prep
# prints the report on stdout and warnings (with its prefix) on stderr.
compare() {
	local name=$1 pre=$2 post=$3 f="$d/$1.data"
	perf stat $pre report -i "$f" $post 2>"$d/perf.out" >/dev/null
	$PREP stat report -i "$f" $pre $post >"$d/prep.out" 2>"$d/prep.err"
	compared=$((compared + 1))
	if ! diff <(grep -v '^warning: ' "$d/perf.out") "$d/prep.out" >"$d/diff"; then
		fail "prep stat report $pre $post on $name differs from perf's:"
		head -20 "$d/diff"
	fi
	grep '^warning: ' "$d/perf.out" | while read -r w; do
		grep -qF "${w#warning: }" "$d/prep.err" || echo "missing warning: $w"
	done | grep . && fail "$name $post: perf's warnings not given"
	grep -v 'warning: ' "$d/prep.err" | grep . && fail "$name $pre $post: unexpected messages"
}

all_outputs() {  # NAME [OPTIONS AFTER report]
	compare "$1" "" "${2:-}"
	compare "$1" "-x ," "${2:-}"
	compare "$1" "-j" "${2:-}"
}

# a workload: default events (hardware ones <not supported> without a PMU)
rec dflt -- $P/spin 30
all_outputs dflt
compare dflt "-x ;" ""
compare dflt "--no-big-num" ""
rec sw -e task-clock,page-faults,context-switches,cpu-migrations -- $P/spin 30
all_outputs sw
rec group -e '{task-clock,page-faults},context-switches' -- $P/spin 30
all_outputs group
rec noscale --no-scale -e task-clock,page-faults -- $P/spin 30
compare noscale "" ""

# system wide, regrouped by the report
rec sys -a -e task-clock,context-switches,page-faults -- sleep 0.1
all_outputs sys
for agg in -A --per-core --per-socket --per-die --per-node; do
	all_outputs sys $agg
done
rec cpus -A -a -e cpu-clock,context-switches -- sleep 0.1
all_outputs cpus
compare cpus "" --per-core
rec core --per-core -a -e task-clock -- sleep 0.05
all_outputs core
rec cpu0 -C 0 -e cpu-clock,context-switches -- sleep 0.05
all_outputs cpu0
compare cpu0 "" -A
# a task recording asked per CPU: perf's warning, the file's aggregation
compare sw "" -A

# intervals: each one's differences; the CPUs-utilized column stays empty
rec iv -I 100 -e task-clock,page-faults,context-switches -- $P/spin 330
all_outputs iv
rec ivcpu -I 100 -A -a -e task-clock,context-switches -- sleep 0.25
all_outputs ivcpu
compare ivcpu "" --per-socket
rec ivcore -I 100 --per-core -a -e task-clock -- sleep 0.25
compare ivcore "" ""
rec long -I 10 -e task-clock -- sleep 0.35           # > 25 intervals: the titles again
compare long "" ""
[ "$(grep -c '^#  *time' "$d/prep.out")" -ge 2 ] || fail "-I 10 over 350 ms: titles once"

# threads of a running process, and the process as a whole
$P/threads 3000 >/dev/null &
tpid=$!
sleep 0.2
rec thr --per-thread -p $tpid -e task-clock,context-switches -- sleep 0.2
rec ivthr -I 100 --per-thread -p $tpid -e task-clock -- sleep 0.25
rec proc -p $tpid -e task-clock,page-faults -- sleep 0.1
rec tid -t $tpid -e task-clock -- sleep 0.1
kill $tpid 2>/dev/null; wait $tpid 2>/dev/null
all_outputs thr
compare ivthr "" ""
compare proc "" ""
compare tid "" ""
$PREP stat report -i "$d/thr.data" | grep -q ' worker-a-[0-9]' || fail "--per-thread: no thread names"

# pipe mode: the heading says 'pipe'; from a file and from standard input
perf stat record -o - -e task-clock,page-faults -- $P/spin 20 >"$d/pipe.data" 2>/dev/null
all_outputs pipe
# a pipe of a system-wide run: this machine's topology, and no node (N-1)
perf stat record -o - -a -e task-clock,context-switches -- sleep 0.05 >"$d/pipesys.data" 2>/dev/null
compare pipesys "" ""
compare pipesys "" --per-node
compare pipesys "-x ," --per-core
perf stat report -i "$d/pipe.data" 2>"$d/perf.out" >/dev/null
$PREP stat report -i - <"$d/pipe.data" >"$d/prep.out" 2>&1
cmp -s "$d/perf.out" "$d/prep.out" || fail "-i - (a pipe on standard input) differs"

[ $compared -ge 40 ] || fail "only $compared comparisons ran"

# bad input: one line, exit 1, no crash
perf_rec -o "$d/samples.data" -e cpu-clock -- $P/spin 20 >/dev/null 2>&1
check_err() {  # WHAT EXPECTED-TEXT COMMAND...
	local what=$1 want=$2; shift 2
	"$@" >"$d/out" 2>"$d/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$what: exit $rc"
	grep -q "$want" "$d/err" || fail "$what: $(cat "$d/err")"
}
check_err "a perf record file" "not a counting one (perf stat record): use prep report" \
	$PREP stat report -i "$d/samples.data"
# cut within the data section, before the final round (the header's data
# offset is the u64 at byte 40)
doff=$(od -An -tu8 -j40 -N8 "$d/sys.data" | tr -d ' ')
head -c $((doff + 300)) "$d/sys.data" >"$d/cut.data"
check_err "a cut-short file" "no reading to show" $PREP stat report -i "$d/cut.data"
grep -q "runs past the end of the file" "$d/err" || fail "a cut-short file: no warning: $(cat "$d/err")"
head -c 60 "$d/sys.data" >"$d/cut.data"
check_err "a cut header" "cut short" $PREP stat report -i "$d/cut.data"
check_err "standard input without perf.data" "not a perf.data stream" \
	sh -c "echo nothing | $PREP stat report -i -"

if [ $failures -gt 0 ]; then
	echo "$failures failures"
	exit 1
fi
echo "prep stat report matches perf stat report ($compared comparisons)"
