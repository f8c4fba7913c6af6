#!/usr/bin/env bash
# The DATA block encodings (FORMAT.md 6.3, 6.4) change nothing prep
# reports: a -g and a --call-graph dwarf recording (COLUMNS blocks, prec's
# default since 1.8) are written again with TRANSFORMED blocks (6.3, what
# prec wrote before) and with plain ones (build/tests/recode), and the
# report, the call graph, prep script and prep dump's records are byte for
# byte the same from all three.
set -u
B=${BUILD:-build}
PREC=./prec PREP=./prep
[ "$B" = build ] || { PREC=$B/prec; PREP=$B/prep; }
P=$B/tests/programs
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

[ -r /proc/sys/kernel/perf_event_paranoid ] || { echo "no perf events on this kernel"; exit 77; }
if [ "$(id -u)" -ne 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ]; then
	echo "needs root or perf_event_paranoid <= 1"; exit 77
fi

# which DATA encodings a file holds: "cols xform plain" counts
encodings() {
	"$B/tests/minireader" "$1" | awk '/type=3 / {
		if (/ flags=2 /) c++; else if (/ flags=1 /) t++; else p++ }
		END { printf "%d %d %d\n", c, t, p }'
}

# the outputs compared: FILE -> FILE.out (prep dump without its block lines
# and the file's size, which are the encoding's, nor the ADDR_COUNTS and
# INDEX blocks that recode leaves out or makes anew; every file's name as
# FILE)
outputs() {
	{
		$PREP -i "$1" --stdio --sort comm,dso,sym -g none 2>&1
		$PREP -i "$1" --stdio --sort sym -g caller,0.5 2>&1
		$PREP script -i "$1" 2>&1
		$PREP dump -i "$1" 2>&1 | awk '/^block [0-9]+ @/ { skip = /ADDR_COUNTS|INDEX/; next }
			!skip && !/prec\.data version/'
	} | sed -E "s|$d/[a-z]+(\.[tp])?\.data|FILE|g" >"$1.out"
}

check() { # NAME: NAME.data recorded; the other two made and compared
	local f=$d/$1.data e
	e=$(encodings "$f")
	[ "${e%% *}" -gt 0 ] || fail "$1: prec wrote no COLUMNS block ($e)"
	"$B/tests/recode" -t "$f" "$d/$1.t.data" || fail "$1: recode -t failed"
	"$B/tests/recode" -p "$f" "$d/$1.p.data" || fail "$1: recode -p failed"
	e=$(encodings "$d/$1.t.data")
	[ "$e" = "0 ${e#* }" ] && [ "$(echo "$e" | cut -d' ' -f2)" -gt 0 ] ||
		fail "$1: the -t copy has no TRANSFORMED blocks only ($e)"
	e=$(encodings "$d/$1.p.data")
	[ "${e% *}" = "0 0" ] || fail "$1: the -p copy is not plain ($e)"
	for g in "$f" "$d/$1.t.data" "$d/$1.p.data"; do
		outputs "$g"
	done
	[ "$(grep -c . "$f.out")" -gt 20 ] || fail "$1: short output: $(head -5 "$f.out")"
	cmp -s "$f.out" "$d/$1.t.data.out" ||
		fail "$1: COLUMNS and TRANSFORMED differ: $(diff "$f.out" "$d/$1.t.data.out" | head -8)"
	cmp -s "$f.out" "$d/$1.p.data.out" ||
		fail "$1: COLUMNS and plain differ: $(diff "$f.out" "$d/$1.p.data.out" | head -8)"
}

$PREC -q -e cpu-clock -F 2000 -g -o "$d/fp.data" -- $P/threads 300 >/dev/null 2>&1 ||
	fail "prec -g failed"
check fp
if [ "$(uname -m)" = x86_64 ]; then
	$PREC -q -e cpu-clock -F 1000 --call-graph dwarf -o "$d/dwarf.data" -- $P/threads_nofp 300 \
		>/dev/null 2>&1 || fail "prec --call-graph dwarf failed"
	check dwarf
fi

[ $failures -eq 0 ] || exit 1
echo "reports equal across the DATA encodings"
