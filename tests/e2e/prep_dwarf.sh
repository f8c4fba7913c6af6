#!/usr/bin/env bash
# --call-graph dwarf: programs built without frame pointers (tree_nofp, twocall_nofp,
# threads_nofp) and a dlopened library called from main (forker) are
# recorded with their user stacks and unwound by prep: at least 99% of the
# samples reach main (or the thread start routine), the children ratios
# match the design (PROFILES.md) within 3 points, and the trees equal those
# of -g on the same programs built with frame pointers. The same holds for
# a program and a library built without unwind tables (tree_dframe,
# libspinlib_dframe.so), unwound from their .debug_frame.
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

[ "$(uname -m)" = x86_64 ] || { echo "DWARF unwinding is x86-64 only here"; exit 77; }
[ -r /proc/sys/kernel/perf_event_paranoid ] || { echo "no perf events on this kernel"; exit 77; }
if [ "$(id -u)" -ne 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ]; then
	echo "needs root or perf_event_paranoid <= 1"; exit 77
fi

value() { awk -v n="$2" '$NF == n { sub(/%/, "", $1); print $1; exit }' "$1"; }
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }
rows() { grep "^| $1 | $2 |" "$PROFILES" | awk -F'|' '{ gsub(/ /, "", $4); gsub(/ /, "", $5); print $4, $5 }'; }

children() {   # FILE -> the --children --sort sym report
	$PREP -i "$1" --children --sort sym -g none >"$1.txt" 2>"$1.err" || fail "prep $1: $(cat "$1.err")"
}

# tree without frame pointers: broken with -g, whole with dwarf
$PREC -q -F 999 --call-graph dwarf -o "$d/tree.data" -- $P/tree_nofp 500 >/dev/null 2>&1 ||
	fail "prec --call-graph dwarf failed"
children "$d/tree.data"
main=$(value "$d/tree.data.txt" main)
within "${main:-0}" 100 1 || fail "tree_nofp: only ${main:-0}% of the samples unwind to main"
while read -r name want; do
	got=$(value "$d/tree.data.txt" "$name")
	within "${got:-0}" "$want" 3 || fail "tree_nofp dwarf: children of $name ${got:-none}%, designed $want%"
done < <(rows tree children)
# frame pointers cannot do it on this binary (so the test means something)
$PREC -q -F 999 -g -o "$d/tree_g.data" -- $P/tree_nofp 300 >/dev/null 2>&1
children "$d/tree_g.data"
gm=$(value "$d/tree_g.data.txt" main)
within "${gm:-0}" 100 50 && fail "tree_nofp with -g reaches main in ${gm}% of samples: it has frame pointers"
# the same tree from frame pointers, on the program built with them
$PREC -q -F 999 -g -o "$d/tree_fp.data" -- $P/tree 500 >/dev/null 2>&1
children "$d/tree_fp.data"
for name in main a b b1 c rec a1 a2 b2; do
	x=$(value "$d/tree.data.txt" "$name")
	y=$(value "$d/tree_fp.data.txt" "$name")
	within "${x:-0}" "${y:-0}" 3 || fail "$name: dwarf ${x:-none}%, frame pointers ${y:-none}%"
done
# one leaf under two callers alike, one after the other: its samples have
# the same addresses and stack pointer under both, and each is unwound to
# its own caller (what the unwinder's memo keeps is checked against what it
# read: a memo that did not would give left them all)
$PREC -q -F 999 --call-graph dwarf -o "$d/twocall.data" -- $P/twocall_nofp 500 >/dev/null 2>&1 ||
	fail "prec --call-graph dwarf twocall_nofp failed"
children "$d/twocall.data"
while read -r name want; do
	got=$(value "$d/twocall.data.txt" "$name")
	within "${got:-0}" "$want" 4 || fail "twocall_nofp dwarf: children of $name ${got:-none}%, designed $want%"
done < <(rows twocall children)
# the recursion unwinds level by level: five rec frames under c
$PREP -i "$d/tree.data" --no-children -g folded --sort sym 2>/dev/null |
	grep -q 'rec;rec;rec;rec;c;main' || fail "tree_nofp: the recursion is not unwound"
$PREP -i "$d/tree.data" --stats -g none 2>/dev/null >"$d/stats"
read -r samples stopped < <(awk '/dwarf unwinding/ { print $4, $8 }' "$d/stats")
[ "${samples:-0}" -gt 0 ] || fail "--stats: no dwarf unwinding line: $(tail -2 "$d/stats")"
[ "${stopped:-1}" -le $(( ${samples:-0} / 100 )) ] || fail "--stats: $stopped of $samples unwinds stopped early"
grep -q 'in .debug_frame' "$d/stats" && fail "tree_nofp: unwound from .debug_frame, but .eh_frame covers it"

# tree without unwind tables: its functions are only in .debug_frame
$PREC -q -F 999 --call-graph dwarf -o "$d/td.data" -- $P/tree_dframe 500 >/dev/null 2>&1 ||
	fail "prec --call-graph dwarf (tree_dframe) failed"
children "$d/td.data"
main=$(value "$d/td.data.txt" main)
within "${main:-0}" 100 1 || fail "tree_dframe: only ${main:-0}% of the samples unwind to main"
while read -r name want; do
	got=$(value "$d/td.data.txt" "$name")
	within "${got:-0}" "$want" 3 || fail "tree_dframe: children of $name ${got:-none}%, designed $want%"
done < <(rows tree children)
$PREP -i "$d/td.data" --stats -g none 2>/dev/null >"$d/td.stats"
grep -q '[1-9][0-9]* lookups in .debug_frame' "$d/td.stats" ||
	fail "tree_dframe: --stats shows no lookups in .debug_frame: $(tail -1 "$d/td.stats")"

# threads: every worker's chain reaches the thread start routine
$PREC -q -F 999 --call-graph dwarf -o "$d/th.data" -- $P/threads_nofp 500 >/dev/null 2>&1
children "$d/th.data"
tm=$(value "$d/th.data.txt" thread_main)
within "${tm:-0}" 100 1 || fail "threads_nofp: thread_main children ${tm:-none}%"
for w in work_a work_b work_c; do
	want=$(rows threads children | awk -v n="$w" '$1 == n { print $2 }')
	got=$(value "$d/th.data.txt" "$w")
	within "${got:-0}" "${want:-0}" 3 || fail "threads_nofp: $w ${got:-none}%, designed $want%"
done

# a dlopened library, called from main
$PREC -q -F 999 --call-graph dwarf -o "$d/fk.data" -- $P/forker $P/libspinlib.so 600 >/dev/null 2>&1
children "$d/fk.data"
for name in main spinlib_work; do
	got=$(value "$d/fk.data.txt" "$name")
	within "${got:-0}" 100 2 || fail "forker: $name children ${got:-none}%"
done

# the library without unwind tables: the samples in it unwind through main
# to _start (from its .debug_frame; frame pointers would stop at main)
$PREC -q -F 999 --call-graph dwarf -o "$d/fkd.data" -- $P/forker $P/libspinlib_dframe.so 600 \
	>/dev/null 2>&1
$PREP -i "$d/fkd.data" --no-children -g folded --sort sym >"$d/fkd.txt" 2>/dev/null
self=$(value "$d/fkd.txt" spinlib_work)
whole=$(awk '/\[\.\] spinlib_work$/ { getline; if ($0 ~ /% spinlib_work;main;.*;_start$/) { sub(/%/, "", $1); print $1 }
	exit }' "$d/fkd.txt")
within "${self:-0}" 100 5 || fail "libspinlib_dframe.so: ${self:-no}% of the samples in spinlib_work"
within "${whole:-0}" "${self:-0}" 1 ||
	fail "libspinlib_dframe.so: ${whole:-0}% of ${self:-0}% unwind from spinlib_work to _start"

[ $failures -eq 0 ] && echo "dwarf unwinding checks passed"
exit $((failures > 0))
