#!/usr/bin/env bash
# prep reads perf.data: files recorded here by perf record (cpu-clock, with
# kernel samples) from the test programs, reported by perf and by prep with
# the same options, compared line by line: several sort orders, call graphs
# in caller and callee order with and without children, srcline, script,
# -z (zstd COMPRESSED records), pipe mode, two events (by ID and by
# IDENTIFIER), a fixed period. Then what prep alone does with such files:
# --header-only as perf prints it, dump, archive without -o refused, and damaged
# copies (cut short, bad magic, bad header) that give clear messages.
#
# perf prints a random tip at the end of a report: that line and the '#'
# lines around it are left out. Inline frames are compared with --no-inline
# on both sides (perf 6.1 here shows none for frame-pointer call chains).
. tests/e2e/lib/perf.sh
set -u
B=${BUILD:-build}
PREP=./prep
[ "$B" = build ] || PREP=$B/prep
P=$B/tests/programs
command -v perf >/dev/null || { echo "perf is not installed"; exit 77; }
[ "$(id -u)" -eq 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 1 ] ||
	{ echo "needs root or perf_event_paranoid <= 1"; exit 77; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
export LC_ALL=C
unset DEBUGINFOD_URLS
failures=0
compared=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

rec() { # rec NAME [perf record options] -- command
	local name=$1; shift
	perf_rec -q -o "$d/$name.data" "$@" >/dev/null 2>"$d/$name.rec.err" ||
		{ cat "$d/$name.rec.err"; return 1; }
}

drop_tip() {
	awk '/^# \(Tip/ { tip = NR } { l[NR] = $0 }
	     END { for (i = 1; i <= NR; i++) if (!tip || i < tip - 1 || i > tip + 1) print l[i] }'
}

# A sample in the PLT: perf 6.1 and prep name it differently (lib/perf.sh's
# mask_plt); both names are masked, so such a sample still compares

# same FILE ARGS...: perf report and prep print the same lines
same() {
	local f=$1; shift
	compared=$((compared + 1))
	perf report -i "$d/$f.data" --stdio "$@" 2>/dev/null | drop_tip | mask_plt >"$d/perf.out"
	$PREP -i "$d/$f.data" --stdio "$@" >"$d/prep.raw" 2>"$d/prep.err" ||
		{ fail "$f $*: prep failed: $(head -1 "$d/prep.err")"; return; }
	mask_plt <"$d/prep.raw" >"$d/prep.out"
	[ -s "$d/perf.out" ] || { fail "$f $*: perf report printed nothing"; return; }
	if ! diff -u "$d/perf.out" "$d/prep.out" >"$d/diff"; then
		fail "$f $*: prep differs from perf report"
		head -20 "$d/diff"
	fi
}

# same_script FILE ARGS...: perf script and prep script print the same lines
same_script() {
	local f=$1; shift
	compared=$((compared + 1))
	perf script -i "$d/$f.data" "$@" 2>/dev/null | mask_plt >"$d/perf.out"
	$PREP script -i "$d/$f.data" "$@" >"$d/prep.raw" 2>"$d/prep.err" ||
		{ fail "script $f $*: prep failed: $(head -1 "$d/prep.err")"; return; }
	mask_plt <"$d/prep.raw" >"$d/prep.out"
	if ! diff -u "$d/perf.out" "$d/prep.out" >"$d/diff"; then
		fail "script $f $*: prep differs from perf script"
		head -20 "$d/diff"
	fi
}

rec tree -F 999 -g -e cpu-clock -- $P/tree 300 || { echo "perf record does not work here"; exit 77; }
rec treez -z -F 999 -g -e cpu-clock -- $P/tree 200 || fail "perf record -z failed"
perf record -q -F 999 -g -e cpu-clock -o - -- $P/tree 200 >"$d/pipe.data" 2>/dev/null ||
	fail "perf record -o - failed"
rec threads -F 999 -g -e cpu-clock -- $P/threads 200 || fail "perf record of threads failed"
rec forker -F 999 -g -e cpu-clock -- $P/forker $P/libspinlib.so 200 || fail "perf record of forker failed"
rec two -F 499 -e cpu-clock,task-clock -- $P/tree 100 || fail "perf record of two events failed"
rec ident -F 499 -e cpu-clock/call-graph=fp/ -e task-clock -- $P/tree 100 ||
	fail "perf record of two events with IDENTIFIER failed"
rec period -c 1000000 -e cpu-clock -- $P/tree 100 || fail "perf record -c failed"

# the report, several ways
for opts in "--no-children --sort sym" "--sort sym" "--sort dso,sym" "--sort comm,dso,sym" \
	    "--no-children -g caller" "--children -g callee --sort sym" "--no-children --sort sym,dso" \
	    "--no-children --sort srcline -g none" "-n --show-total-period --sort dso" \
	    "--sort sym --percent-limit 5" "--no-children --sort pid,sym -g none" \
	    "--header --no-children --sort sym -g none" "--no-children --sort sym,period -g none" \
	    "--no-children -F overhead,period,sym -g none" "--no-children --sort period -g none"; do
	same tree $opts --no-inline
done
for opts in "--sort sym" "--no-children --sort dso,sym" "--no-children -g caller"; do
	same treez $opts --no-inline
	same pipe $opts --no-inline
done
same threads --no-children --sort comm,sym --no-inline
same threads --no-children -g caller --sort sym --no-inline
# children of several threads or processes: perf orders equal totals of
# different threads by the shape of its red-black tree (its comparison is
# not transitive there); compared without children
same forker --no-children --sort dso,sym --no-inline
same forker --no-children --sort comm,dso,sym -g caller --no-inline
for f in two period; do
	same $f --sort sym --no-inline
	same $f --sort comm,dso,sym --no-inline
done
# one event with call chains, one without: perf shows the second with
# children all the same (from the other event's chains); without children
same ident --no-children --sort sym --no-inline
same ident --no-children --sort comm,dso,sym --no-inline

# script
for f in tree treez pipe two ident period; do
	same_script $f
done
same_script tree -F comm,tid,time,ip,sym,dso
same_script tree --show-task-events --show-mmap-events
same_script threads -F comm,pid,tid,time,event,ip,sym,dso,period

# the header, as perf prints it
for f in tree treez pipe; do
	compared=$((compared + 1))
	diff <(perf report -i "$d/$f.data" --header-only 2>/dev/null) \
	     <($PREP -i "$d/$f.data" --header-only 2>&1) >"$d/diff" ||
		{ fail "$f: --header-only differs from perf's"; head -10 "$d/diff"; }
done

# dump: the structure, every record
$PREP dump -i "$d/treez.data" >"$d/dump" 2>"$d/dump.err" || fail "dump of a -z file failed"
grep -q "^feature COMPRESSED" "$d/dump" || fail "dump: no COMPRESSED feature"
grep -q "bytes of records from the COMPRESSED record" "$d/dump" || fail "dump: no decompressed records"
tail -1 "$d/dump" | grep -q " 0 undecodable" || fail "dump: $(tail -1 "$d/dump")"
$PREP -D -i "$d/pipe.data" | grep -q "perf.data, pipe mode" || fail "prep -D of a pipe-mode file"

# archive does not change a perf.data file (it writes a prec.data with -o)
cp "$d/tree.data" "$d/arch.data"
out=$($PREP archive -i "$d/arch.data" 2>&1) && fail "prep archive took a perf.data file"
echo "$out" | grep -q "is a perf.data file: name the self-contained prec.data file to write with -o" ||
	fail "prep archive: '$out'"
cmp -s "$d/tree.data" "$d/arch.data" || fail "prep archive changed a perf.data file"

# damage: a cut-short copy reads up to the cut and says where; a bad
# header is one line; nothing crashes
size=$(stat -c %s "$d/tree.data")
head -c $((size / 2)) "$d/tree.data" >"$d/cut.data"
$PREP -i "$d/cut.data" --sort sym -g none >"$d/cut.out" 2>"$d/cut.err" ||
	fail "a cut perf.data file: prep failed: $(head -1 "$d/cut.err")"
grep -q "runs past the end of the file" "$d/cut.err" || fail "cut file: no warning ($(head -1 "$d/cut.err"))"
grep -q "Samples:" "$d/cut.out" || fail "cut file: no report"
for cut in 8 60 104 200 $((size / 3)) $((size - 5)); do
	for cmd in "" script dump; do
		head -c $cut "$d/tree.data" >"$d/cut.data"
		timeout 20 $PREP $cmd -i "$d/cut.data" >/dev/null 2>"$d/cut.err"
		rc=$?
		[ $rc -le 1 ] || fail "prep $cmd on $cut bytes of a perf.data file: exit $rc"
		[ $rc -eq 0 ] || [ "$(wc -l <"$d/cut.err")" -eq 1 ] ||
			fail "prep $cmd on $cut bytes: $(wc -l <"$d/cut.err") lines of error"
	done
done
printf 'PERFILE2\x64\x00\x00\x00\x00\x00\x00\x00' >"$d/bad.data"
head -c 200 /dev/zero >>"$d/bad.data"
out=$($PREP -i "$d/bad.data" 2>&1)
[ $? -eq 1 ] && echo "$out" | grep -q "header size 100" || fail "bad header: '$out'"

echo "$compared comparisons with perf"
[ $failures -eq 0 ] && echo "prep reads perf.data as perf does"
exit $((failures > 0))
