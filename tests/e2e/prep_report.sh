#!/usr/bin/env bash
# prep report end to end: records the programs of tests/programs with known
# profiles (PROFILES.md) with `prec -F 999 -g`, and checks the report: self,
# children, comm, dso and srcline percentages within 3 points of the design,
# call-graph edges, inlined functions named with their source lines, thread
# names, the dlopened library's symbols, filters, --stats, --header, script,
# and the documented result of bad input.
set -u
B=${BUILD:-build}
PREC=./prec PREP=./prep
[ "$B" = build ] || { PREC=$B/prec; PREP=$B/prep; }
P=$B/tests/programs
PROFILES=tests/programs/PROFILES.md
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

[ -r /proc/sys/kernel/perf_event_paranoid ] || { echo "no perf events on this kernel"; exit 77; }
if [ "$(id -u)" -ne 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ]; then
	echo "needs root or perf_event_paranoid <= 1"; exit 77
fi

# value NAME FILE: the first column's percentage on the line whose last field is NAME
value() { awk -v n="$2" '$NF == n { sub(/%/, "", $1); print $1; exit }' "$1"; }
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }

# rows PROG WHAT: "NAME DESIGN" pairs of PROFILES.md
rows() {
	grep "^| $1 | $2 |" "$PROFILES" | awk -F'|' '{ gsub(/ /, "", $4); gsub(/ /, "", $5); print $4, $5 }'
}

check_rows() {   # PROG WHAT REPORT-FILE
	local prog=$1 what=$2 out=$3 name want got
	while read -r name want; do
		[ -n "$name" ] || continue
		[ "$want" = 0 ] && continue
		got=$(value "$out" "$name")
		if [ "$what" = srcline ]; then
			local line
			line=$(grep -n "$name" "tests/programs/$prog.c" | head -1 | cut -d: -f1)
			got=$(value "$out" "$prog.c:$line")
			name="$prog.c:$line ($name)"
		fi
		[ -n "$got" ] || { fail "$prog $what $name: not in the report"; continue; }
		within "$got" "$want" 3 || fail "$prog $what $name: $got%, designed $want%"
	done < <(rows "$prog" "$what")
}

record() {   # NAME ARGS...
	local name=$1; shift
	$PREC -q -F 999 -g -o "$d/$name.data" -- "$@" >/dev/null 2>"$d/$name.err" ||
		fail "$name: prec failed: $(cat "$d/$name.err")"
}

record tree $P/tree 500
record inl $P/inl 500
record threads $P/threads 500
record forker $P/forker $P/libspinlib.so 700

# ---- tree: self and children ratios, order, call graph ----------------------
$PREP -i "$d/tree.data" --no-children --sort sym -g none >"$d/tree.self" 2>"$d/tree.err" ||
	fail "tree: prep exit $?: $(cat "$d/tree.err")"
[ -s "$d/tree.err" ] && fail "tree: warnings: $(cat "$d/tree.err")"
check_rows tree self "$d/tree.self"
[ "$(grep '\[\.\]' "$d/tree.self" | head -4 | awk '{ print $NF }' | tr '\n' ' ')" = "a1 a2 b2 rec " ] ||
	fail "tree: self order: $(grep '\[\.\]' "$d/tree.self" | head -4 | awk '{ print $NF }' | tr '\n' ' ')"
$PREP -i "$d/tree.data" --children --sort sym -g none >"$d/tree.children" 2>/dev/null
check_rows tree children "$d/tree.children"
grep -q '^# Children      Self  Symbol' "$d/tree.children" || fail "tree: children column titles"
# the call graph of b1 (callee order): b1 is called by b, b by main
$PREP -i "$d/tree.data" --no-children >"$d/tree.graph" 2>/dev/null
awk '/\[\.\] b1$/ { on = 1; next } on && /^$/ { exit } on' "$d/tree.graph" | tr -d ' |-' |
	grep -v '^$' | tr '\n' ' ' | grep -q 'b1 b main' || fail "tree: call graph of b1: callers b, main"
grep -q '^# Samples: [0-9]*K* *of event .cpu-clock.$' "$d/tree.graph" || fail "tree: Samples line"
grep -q '^# Event count (approx.): [0-9]*$' "$d/tree.graph" || fail "tree: Event count line"
grep -q '^# Total Lost Samples: 0$' "$d/tree.graph" || fail "tree: Total Lost Samples line"
grep -q '^# Overhead  Command  Shared Object' "$d/tree.graph" || fail "tree: column titles"
grep -q '^# ........  .......  .............' "$d/tree.graph" || fail "tree: dotted rules"
grep -qE '^ +[0-9]+\.[0-9]{2}%  tree +tree +\[\.\] a1$' "$d/tree.graph" || fail "tree: entry line layout"
# caller-order graph with branches
$PREP -i "$d/tree.data" --children --sort sym -g graph,0.5,caller >"$d/tree.caller" 2>/dev/null
grep -qE '^ +\|--[0-9.]+%--a$' "$d/tree.caller" || fail "tree: caller graph branch to a"
grep -qE '^ +---main$' "$d/tree.caller" || fail "tree: caller graph root"
# -n and --show-total-period columns; --percent-limit; -q
# (18: between the designed 21% of a2 and 15% of b2, three points from each;
# at 10 the designed 9% of b1 and 12% of rec were a point or two away)
$PREP -i "$d/tree.data" --no-children --sort sym -g none -n --show-total-period --percent-limit 18 \
	>"$d/tree.n" 2>/dev/null
grep -q '^# Overhead       Samples        Period  Symbol' "$d/tree.n" || fail "tree: -n/period titles"
[ "$(grep -c '\[\.\]' "$d/tree.n")" -eq 2 ] || fail "tree: --percent-limit 18 should leave 2 entries (a1, a2)"
$PREP -q -i "$d/tree.data" --no-children --sort sym -g none | grep -q '^#' && fail "tree: -q printed headers"
# folded and flat call graphs
$PREP -i "$d/tree.data" --no-children -g folded >"$d/tree.folded" 2>/dev/null
grep -qE '^[0-9.]+% (burn \(inlined\);)?b2;b1;b;main' "$d/tree.folded" || fail "tree: -g folded"
# filters: --comm (none match), --symbols
$PREP -i "$d/tree.data" --comm nosuch -g none 2>/dev/null | grep -q '\[\.\]' && fail "tree: --comm filter"
[ "$($PREP -q -i "$d/tree.data" --no-children --sort sym -g none --symbols b2 | grep -c '\[')" -eq 1 ] ||
	fail "tree: --symbols b2"
# time filter: the first half of the recording has about half the samples
all=$(grep -m1 '^# Samples' "$d/tree.graph" | awk '{ print $3 }')
half=$($PREP -i "$d/tree.data" --time 0%-50% -g none --stats | awk '/filtered samples/ { print $4 }')
[ -n "$half" ] && [ "$half" -gt 0 ] || fail "tree: --time 0%-50% filtered nothing ($all samples)"

# ---- inl: inlined functions and their source lines --------------------------
$PREP -i "$d/inl.data" --no-children --sort srcline -g none >"$d/inl.src" 2>/dev/null
check_rows inl srcline "$d/inl.src"
$PREP -i "$d/inl.data" --no-children >"$d/inl.graph" 2>/dev/null
grep -q 'hot_inl (inlined)' "$d/inl.graph" || fail "inl: hot_inl not named as an inlined frame"
grep -q 'cool_inl (inlined)' "$d/inl.graph" || fail "inl: cool_inl not named as an inlined frame"
$PREP -i "$d/inl.data" --no-children --no-inline >"$d/inl.noinl" 2>/dev/null
grep -q '(inlined)' "$d/inl.noinl" && fail "inl: --no-inline still shows inlined frames"

# ---- threads: thread names -------------------------------------------------
$PREP -i "$d/threads.data" --no-children --sort comm -g none >"$d/th.comm" 2>/dev/null
check_rows threads comm "$d/th.comm"
$PREP -i "$d/threads.data" --no-children --sort sym -g none >"$d/th.self" 2>/dev/null
check_rows threads self "$d/th.self"

# ---- forker: the child process and the dlopened library ---------------------
$PREP -i "$d/forker.data" --no-children --sort dso,sym -g none >"$d/fk.txt" 2>/dev/null
grep -qE '^ +(9[0-9]\.[0-9]{2}|100\.00)%  libspinlib\.so +\[\.\] spinlib_work$' "$d/fk.txt" ||
	fail "forker: spinlib_work in libspinlib.so not resolved: $(grep -m3 '%' "$d/fk.txt")"

# ---- header, stats, script ---------------------------------------------------
$PREP -i "$d/tree.data" --header-only >"$d/hdr" 2>/dev/null || fail "--header-only: exit $?"
grep -q '^# cmdline : .*prec -q -F 999 -g' "$d/hdr" || fail "--header-only: cmdline"
grep -q "^# event : name = cpu-clock" "$d/hdr" || fail "--header-only: event"
grep -q "^# build ids:" "$d/hdr" || fail "--header-only: build ids"
grep -q '%' "$d/hdr" && fail "--header-only printed the report"
$PREP -i "$d/tree.data" --stats -g none >"$d/stats" 2>/dev/null
grep -qE '^ +SAMPLE events: +[0-9]+$' "$d/stats" || fail "--stats: SAMPLE count"
grep -q 'unresolved samples' "$d/stats" || fail "--stats: unresolved count"
$PREP script -i "$d/tree.data" >"$d/script" 2>/dev/null || fail "script: exit $?"
grep -qE '^tree +[0-9]+ (\[[0-9]{3}\] )? *[0-9]+\.[0-9]{6}: +[0-9]+ cpu-clock: $' "$d/script" ||
	fail "script: sample line"
grep -qE $'^\t +[0-9a-f]+ a1\\+0x[0-9a-f]+ \\(.*/tree\\)$' "$d/script" || fail "script: call chain line"
$PREP script -i "$d/tree.data" -F comm,tid,sym --show-task-events >"$d/script2" 2>/dev/null
grep -q 'PERF_RECORD_COMM exec: tree' "$d/script2" || fail "script: --show-task-events"

# ---- bad input ---------------------------------------------------------------
$PREP -i "$d/nosuch.data" >"$d/o" 2>"$d/e"; rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$d/e")" -eq 1 ] && grep -q nosuch "$d/e" ||
	fail "missing file: rc $rc, $(cat "$d/e")"
echo "not a profile" >"$d/text.data"
$PREP -i "$d/text.data" >"$d/o" 2>"$d/e"; rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$d/e")" -eq 1 ] || fail "not a prec file: rc $rc, $(cat "$d/e")"
size=$(stat -c %s "$d/tree.data")
head -c $((size - 100)) "$d/tree.data" >"$d/cut.data"    # the index and last blocks
$PREP -i "$d/cut.data" --no-children --sort sym -g none >"$d/o" 2>"$d/e"; rc=$?
[ $rc -eq 0 ] && grep -q 'warning' "$d/e" && grep -q '\[\.\] a1' "$d/o" ||
	fail "truncated file: rc $rc, $(head -2 "$d/e")"
$PREP -i "$d/tree.data" --sort nosuchkey >/dev/null 2>"$d/e" && fail "bad sort key accepted"
grep -q "unknown sort key 'nosuchkey'" "$d/e" || fail "bad sort key message: $(cat "$d/e")"
$PREP -i "$d/tree.data" --time abc >/dev/null 2>&1 && fail "bad --time accepted"

[ $failures -eq 0 ] && echo "prep report checks passed"
exit $((failures > 0))
