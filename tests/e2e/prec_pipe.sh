#!/usr/bin/env bash
# Pipe mode (FORMAT.md 7): `prec -o - -- cmd | prep -i -` gives the designed
# profile of tree; `prep -i - < file` prints what `prep -i file` prints, byte
# for byte (report, script, --folded, dump); the workload's stdout goes to
# stderr, never into the stream; a saved stream reports offline with its
# embedded symbols once the binary is gone or replaced; perf's pipe mode
# reads as perf report reads it; a cut stream reports what was whole, with a
# warning; a reader that goes away stops prec; a terminal or an empty stdin
# is a clear error; the pipe works for an unprivileged user too.
. tests/e2e/lib/common.sh
. tests/e2e/lib/unpriv.sh
PROFILES=tests/programs/PROFILES.md
trap 'paranoid_restore; rm -rf "$d"' EXIT
export PERF_BUILDID_DIR=$d/buildid-cache
unset DEBUGINFOD_URLS
need_perf_events 1

value() { awk -v n="$2" '$NF == n { sub(/%/, "", $1); print $1; exit }' "$1"; }
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }
check_tree() {   # REPORT-FILE WHAT
	local name want got
	while read -r name want; do
		[ "$want" = 0 ] && continue
		got=$(value "$1" "$name")
		[ -n "$got" ] || { fail "$2: $name not in the report"; continue; }
		within "$got" "$want" 3 || fail "$2: $name $got%, designed $want%"
	done < <(grep "^| tree | self |" "$PROFILES" |
		 awk -F'|' '{ gsub(/ /, "", $4); gsub(/ /, "", $5); print $4, $5 }')
}

# 1. through the pipe: the designed profile, and the summary names the stream
$PREC -F 999 -g -o - -- "$P/tree" 500 2>"$d/rec.err" |
	$PREP -i - --no-children --sort sym -g none >"$d/pipe.txt" 2>"$d/pipe.err"
st=("${PIPESTATUS[@]}")
[ "${st[0]}" = 0 ] && [ "${st[1]}" = 0 ] || fail "prec | prep: exit ${st[*]}: $(cat "$d/rec.err" "$d/pipe.err")"
check_tree "$d/pipe.txt" "prec -o - | prep -i -"
grep -q "^\[ prec: captured and wrote .* MB - (" "$d/rec.err" || fail "summary does not name '-': $(tail -1 "$d/rec.err")"
[ -s "$d/pipe.err" ] && fail "prep -i - warned: $(cat "$d/pipe.err")"
[ -e prec.data.old ] || [ -e ./- ] && fail "-o - left a file behind (./- or prec.data.old)"

# 2. a saved stream: stdin gives what the file gives, byte for byte
$PREC -q -F 999 -g -o - -- "$P/tree" 300 >"$d/s.data" 2>/dev/null || fail "prec -o - > file failed"
$PREP dump -i "$d/s.data" | grep -q "^block [0-9]* @[0-9]*: END" || fail "the saved stream has no END block"
$PREP dump -i "$d/s.data" | grep -q "SYMBOLS" || fail "the saved stream has no SYMBOLS block"
$PREP dump -i "$d/s.data" | grep -q "INDEX" && fail "the saved stream has an INDEX block"
for c in "report" "report --children --sort dso,sym" "script" "report --folded" "dump" "report --header"; do
	$PREP $c -i "$d/s.data" >"$d/a.out" 2>&1
	$PREP $c -i - <"$d/s.data" >"$d/b.out" 2>&1
	cat "$d/s.data" | $PREP $c -i - >"$d/c.out" 2>&1
	# dump names its input
	sed -i "s|^# $d/s.data:|# -:|" "$d/a.out"
	cmp -s "$d/a.out" "$d/b.out" || { fail "prep $c: -i - < file differs"; diff "$d/a.out" "$d/b.out" | head -5; }
	cmp -s "$d/a.out" "$d/c.out" || { fail "prep $c: cat file | -i - differs"; diff "$d/a.out" "$d/c.out" | head -5; }
done
$PREC -q -F 999 -g -o - -- "$P/tree" 100 2>/dev/null | $PREP script -i - | grep -q "a1" ||
	fail "prec | prep script -i -: no a1"
$PREC -q -F 999 -o - -- "$P/tree" 100 2>/dev/null | $PREP dump -i - | grep -q "^# -: prec.data version 1\.[3-9]" ||
	fail "prec | prep dump -i -: no header line"
$PREC -q -F 999 -g -o - -- "$P/tree" 100 2>/dev/null | $PREP export --pprof -o "$d/p.pb.gz" -i - 2>"$d/e.err" &&
	[ -s "$d/p.pb.gz" ] || fail "prec | prep export --pprof -i -: $(cat "$d/e.err")"

# 3. the workload's stdout goes to stderr, never into the stream
$PREC -q -F 999 -o - -- sh -c "echo MARKER-OUT; echo MARKER-ERR >&2; exec $P/tree 50" \
	>"$d/w.data" 2>"$d/w.err" || fail "prec -o - of a talking workload failed"
grep -q MARKER-OUT "$d/w.data" && fail "the workload's stdout is in the stream"
grep -q MARKER-OUT "$d/w.err" || fail "the workload's stdout is not on stderr"
grep -q MARKER-ERR "$d/w.err" || fail "the workload's stderr is lost"
$PREP -i - <"$d/w.data" >/dev/null 2>"$d/w.perr" || fail "talking workload's stream unreadable"
[ -s "$d/w.perr" ] && fail "talking workload's stream warned: $(cat "$d/w.perr")"

# 4. offline through the pipe: the binary copy deleted, then replaced
mkdir -p "$d/bin"
cp "$P/tree" "$d/bin/tree"
$PREC -q -F 999 -g -o - -- "$d/bin/tree" 300 2>/dev/null >"$d/off.data"
$PREP -i - --sort sym <"$d/off.data" >"$d/off.before" 2>&1
grep -q "\] a1$" "$d/off.before" || fail "offline: a1 not in the report before"
rm "$d/bin/tree"
$PREP -i - --sort sym <"$d/off.data" >"$d/off.gone" 2>&1
cmp -s "$d/off.before" "$d/off.gone" || { fail "offline: report differs with the binary deleted"; diff "$d/off.before" "$d/off.gone" | head -5; }
cp "$P/forker" "$d/bin/tree"
$PREP -i - --sort sym <"$d/off.data" >"$d/off.other" 2>&1
cmp -s "$d/off.before" "$d/off.other" || { fail "offline: report differs with the binary replaced"; diff "$d/off.before" "$d/off.other" | head -5; }

# 5. a cut stream (prec killed): what was whole, with a warning, no crash
# (long enough for several DATA blocks: they are written at least every second)
$PREC -q -F 999 -g -o - -- "$P/tree" 1500 >"$d/long.data" 2>/dev/null
size=$(stat -c %s "$d/long.data")
head -c $((size * 6 / 10)) "$d/long.data" >"$d/cut.data"
$PREP -i - --sort sym <"$d/cut.data" >"$d/cut.txt" 2>"$d/cut.err"
rc=$?
[ $rc = 0 ] || fail "cut stream: exit $rc: $(cat "$d/cut.err")"
grep -q "cut short" "$d/cut.err" || fail "cut stream: no warning: $(cat "$d/cut.err")"
grep -q "^# Samples: [1-9]" "$d/cut.txt" || fail "cut stream: no samples reported"
# the reader went away: prec stops the workload and says so, non-zero
timeout 20 $PREC -F 999 -o - -- "$P/tree" 5000 2>"$d/epipe.err" | head -c 100 >/dev/null
rc=${PIPESTATUS[0]}
[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "reader gone: prec exit $rc"
grep -q "Broken pipe" "$d/epipe.err" || fail "reader gone: no message: $(cat "$d/epipe.err")"

# 6. perf's pipe mode: prep -i - gives what perf report -i - gives
if command -v perf >/dev/null && perf record -q -F 999 -g -o - -- "$P/tree" 300 >"$d/perf.data" 2>/dev/null &&
	[ -s "$d/perf.data" ]; then
	perf report -i - --stdio --no-children --sort sym <"$d/perf.data" 2>/dev/null | grep -v "^#" | grep "%" >"$d/perf.txt"
	$PREP -i - --no-children --sort sym <"$d/perf.data" 2>"$d/pp.err" | grep -v "^#" | grep "%" >"$d/prep.txt"
	[ -s "$d/prep.txt" ] || fail "perf pipe: prep printed nothing: $(cat "$d/pp.err")"
	# a sample in the PLT (lazy binding at the start) is named differently
	awk '{ print $1, $NF }' "$d/perf.txt" | mask_plt >"$d/perf.cols"
	awk '{ print $1, $NF }' "$d/prep.txt" | mask_plt >"$d/prep.cols"
	cmp -s "$d/perf.cols" "$d/prep.cols" || { fail "perf pipe: prep differs from perf report"; diff "$d/perf.cols" "$d/prep.cols" | head -10; }
	cat "$d/perf.data" | $PREP script -i - >/dev/null 2>"$d/ps.err" || fail "perf pipe: prep script -i -: $(cat "$d/ps.err")"
	cat "$d/perf.data" | $PREP dump -i - | grep -q "pipe mode" || fail "perf pipe: prep dump -i - does not say pipe mode"
else
	echo "note: perf not usable here: perf pipe mode not compared"
fi

# 7. bad cases
$PREP -i - </dev/null >/dev/null 2>"$d/empty.err" && fail "empty stdin: exit 0"
grep -q "standard input is empty" "$d/empty.err" || fail "empty stdin: $(cat "$d/empty.err")"
printf 'not a recording at all, not at all' | $PREP -i - >/dev/null 2>"$d/junk.err" && fail "junk stdin: exit 0"
if command -v script >/dev/null; then
	script -qec "$PREP -i -" /dev/null </dev/null >"$d/tty.out" 2>&1 && fail "terminal stdin: exit 0"
	grep -q "standard input is a terminal" "$d/tty.out" || fail "terminal stdin: $(cat "$d/tty.out")"
	script -qec "$PREC -o - -- true" /dev/null </dev/null >"$d/tty2.out" 2>&1 && fail "prec -o - to a terminal: exit 0"
	grep -q "standard output is a terminal" "$d/tty2.out" || fail "prec -o - to a terminal: $(cat "$d/tty2.out")"
fi

# 8. an unprivileged user, through the pipe
chmod 755 "$d"
if unpriv_init "$d/unpriv"; then
	paranoid_set 2
	as_user sh -c "$UPREC -q -F 999 -g -o - -- $UP/tree 300 2>/dev/null | $UPREP -i - --no-children --sort sym -g none" \
		>"$d/user.txt" 2>"$d/user.err" || fail "unprivileged pipe: $(cat "$d/user.err")"
	check_tree "$d/user.txt" "unprivileged prec -o - | prep -i -"
	paranoid_restore
else
	echo "note: unprivileged part skipped: $unpriv_why"
fi

[ $failures = 0 ] || { echo "$failures failures"; exit 1; }
echo "pipe mode: all checks passed"
