#!/usr/bin/env bash
# prep against perf report on the same program: tests/programs/tree recorded
# by perf record and by prec (-F 999 -g, user space), reported by each with
# --no-children --sort sym and with --children --sort sym: the top symbols
# must be the same, each within 3 points.
. tests/e2e/lib/perf.sh
set -u
B=${BUILD:-build}
PREC=./prec PREP=./prep
[ "$B" = build ] || { PREC=$B/prec; PREP=$B/prep; }
P=$B/tests/programs
command -v perf >/dev/null || { echo "perf is not installed"; exit 77; }
[ "$(id -u)" -eq 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 1 ] ||
	{ echo "needs root or perf_event_paranoid <= 1"; exit 77; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

perf_rec -q -F 999 -g -e cpu-clock:u -o "$d/perf.data" -- $P/tree 500 >/dev/null 2>&1 ||
	{ echo "perf record does not work here"; exit 77; }
$PREC -q -F 999 -g -e cpu-clock:u -o "$d/prec.data" -- $P/tree 500 >/dev/null 2>&1 ||
	fail "prec record failed"

# "pct name" for the [.] entries, first column; unresolved addresses (libc's
# local functions without its debug file) are written differently by each.
# perf 6.1 here shows no inline frames: prep's are left out (--no-inline).
top() { grep '\[\.\]' | awk '$NF !~ /^0x/ { sub(/%/, "", $1); print $1, $NF }' | head -"$1"; }

for mode in --no-children --children; do
	perf report -i "$d/perf.data" --stdio $mode --sort sym -g none 2>/dev/null | top 6 >"$d/perf.top"
	$PREP -i "$d/prec.data" $mode --sort sym -g none --no-inline 2>/dev/null | top 6 >"$d/prep.top"
	[ -s "$d/perf.top" ] || { fail "$mode: perf report printed nothing"; continue; }
	while read -r pct name; do
		got=$(awk -v n="$name" '$2 == n { print $1 }' "$d/prep.top")
		[ -n "$got" ] || { fail "$mode: $name ($pct% in perf) missing from prep's top"; continue; }
		awk -v a="$pct" -v b="$got" 'BEGIN { d = a - b; exit !(d <= 3 && d >= -3) }' ||
			fail "$mode: $name: perf $pct%, prep $got%"
	done <"$d/perf.top"
done
[ $failures -eq 0 ] && echo "prep agrees with perf report"
exit $((failures > 0))
