#!/usr/bin/env bash
# The progress line of long reports (issue 13): on a terminal, prep shows
# how much of a large file it has read on stderr, and erases the line when
# done; never when stderr is a pipe or a file, never with -q, never for a
# file under the threshold (100 MiB, $PREP_PROGRESS_MIN_BYTES in tests).
# The report itself is the same with and without it.
. tests/e2e/lib/common.sh
trap 'rm -rf "$d"' EXIT
need_perf_events 1
command -v script >/dev/null || { echo "needs script(1) for a terminal"; exit 77; }

# a file of several MiB: raw DWARF stack copies
$PREC -q -z 0 -F 2000 --call-graph dwarf -o "$d/big.data" -- "$P/spin" 500 >/dev/null 2>&1 ||
	fail "prec failed"
size=$(stat -c %s "$d/big.data")
[ "$size" -gt $((3 << 20)) ] || fail "the file is only $size bytes"
$PREP -i "$d/big.data" --stdio >"$d/plain" 2>"$d/plain.err" || fail "prep: $(cat "$d/plain.err")"

# on_tty ENV OUT [prep options]: prep's stderr on a terminal (OUT), its
# report in OUT.report
on_tty() {
	local env=$1 out=$2
	shift 2
	script -qc "env $env $PREP -i $d/big.data --stdio $* >$out.report" /dev/null </dev/null >"$out"
}

# 1. on a terminal, over the threshold: the line, then erased
on_tty PREP_PROGRESS_MIN_BYTES=0 "$d/tty"
grep -q "prep: reading $d/big.data: *[0-9]*% ([0-9]* of [0-9]* MB)" "$d/tty" ||
	fail "no progress line on the terminal: $(od -c "$d/tty" | head -5)"
# what is left on the terminal once the carriage returns are applied: nothing
left=$(tr '\r' '\n' <"$d/tty" | tail -1)
[ -z "${left// /}" ] || fail "the progress line was not erased: '$left'"
[ "$(tail -c 1 "$d/tty" | od -An -c | tr -d ' ')" = '\r' ] || fail "the line does not end erased"
cmp -s "$d/plain" "$d/tty.report" || fail "the report differs with the progress line"

# 2. under the threshold (the default 100 MiB, or a larger one): nothing
on_tty "" "$d/small"
[ ! -s "$d/small" ] || fail "progress under the default threshold: $(cat "$d/small")"
on_tty PREP_PROGRESS_MIN_BYTES=$((size + 1)) "$d/small2"
[ ! -s "$d/small2" ] || fail "progress under the threshold: $(cat "$d/small2")"
on_tty PREP_PROGRESS_MIN_BYTES=$size "$d/just"
grep -q "prep: reading" "$d/just" || fail "no progress at the threshold"

# 3. -q: nothing
on_tty PREP_PROGRESS_MIN_BYTES=0 "$d/quiet" -q
[ ! -s "$d/quiet" ] || fail "progress with -q: $(cat "$d/quiet")"

# 4. stderr not a terminal (a file, a pipe): nothing, even on a terminal's stdout
PREP_PROGRESS_MIN_BYTES=0 $PREP -i "$d/big.data" --stdio >"$d/out" 2>"$d/err"
[ ! -s "$d/err" ] || fail "progress into a file: $(cat "$d/err")"
PREP_PROGRESS_MIN_BYTES=0 $PREP -i "$d/big.data" --stdio 2>&1 >/dev/null | cat >"$d/pipe"
[ ! -s "$d/pipe" ] || fail "progress into a pipe: $(cat "$d/pipe")"
script -qc "env PREP_PROGRESS_MIN_BYTES=0 $PREP -i $d/big.data --stdio 2>$d/err2" /dev/null \
	</dev/null >"$d/tty_out"
[ ! -s "$d/err2" ] || fail "progress with stdout on a terminal, stderr in a file: $(cat "$d/err2")"
grep -q "prep: reading" "$d/tty_out" && fail "progress on stdout"

# 5. the exporters show it too
script -qc "env PREP_PROGRESS_MIN_BYTES=0 $PREP export --pprof -i $d/big.data -o $d/p.pb.gz" \
	/dev/null </dev/null >"$d/exp"
grep -q "prep: reading" "$d/exp" || fail "no progress line for prep export --pprof"

[ $failures -eq 0 ] || exit 1
echo "progress line: on a terminal only, erased, report unchanged"
