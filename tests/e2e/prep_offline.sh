#!/usr/bin/env bash
# Self-contained files: prec embeds what the report needs of the binaries
# hit (SYMBOLS blocks). Programs run from a temporary copy (with a dlopened
# library copied too) are recorded with -g and with --call-graph dwarf; the
# copies are then deleted, or replaced by a different build: prep prints the
# same reports, call graphs and source lines included, byte for byte. The
# same holds for `prep archive` on a file recorded with --no-embed, and the
# embedded data gives what the binaries themselves give (--no-embedded).
. tests/e2e/lib/perf.sh
set -u
B=${BUILD:-build}
PREC=$PWD/prec PREP=$PWD/prep
[ "$B" = build ] || { PREC=$PWD/$B/prec; PREP=$PWD/$B/prep; }
P=$PWD/$B/tests/programs
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
# no build-id cache (perf fills ~/.debug with the test programs' builds)
export PERF_BUILDID_DIR=$d/buildid-cache
unset DEBUGINFOD_URLS
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

[ -r /proc/sys/kernel/perf_event_paranoid ] || { echo "no perf events on this kernel"; exit 77; }
if [ "$(id -u)" -ne 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ]; then
	echo "needs root or perf_event_paranoid <= 1"; exit 77
fi

# the reports compared: self and children with call graphs, source lines,
# script with call chains
reports() {   # FILE OUTPREFIX [prep options]
	local f=$1 o=$2
	shift 2
	$PREP -i "$f" --sort sym "$@" >"$o.self" 2>"$o.err" || fail "prep $f: $(cat "$o.err")"
	$PREP -i "$f" --children --sort dso,sym -g caller "$@" >"$o.children" 2>>"$o.err"
	$PREP -i "$f" --sort srcline -g none "$@" >"$o.srcline" 2>>"$o.err"
	$PREP script -i "$f" "$@" >"$o.script" 2>>"$o.err"
}
same() {   # A B what
	for k in self children srcline script; do
		cmp -s "$1.$k" "$2.$k" || { fail "$3: $k report differs"; diff "$1.$k" "$2.$k" | head -10; }
	done
}

mkdir -p "$d/bin"
cp "$P/tree" "$P/tree_nofp" "$P/forker" "$P/libspinlib.so" "$d/bin/"

# 1. -g, the binary deleted
$PREC -q -F 999 -g -o "$d/fp.data" -- "$d/bin/tree" 300 >/dev/null 2>&1 || fail "prec -g failed"
$PREP dump -i "$d/fp.data" | grep -q "SYMBOLS" || fail "-g: no SYMBOLS block in the file"
reports "$d/fp.data" "$d/fp.before"
grep -q "\] a1$" "$d/fp.before.self" || fail "-g: a1 not in the report"
grep -q "tree.c:" "$d/fp.before.srcline" || fail "-g: no source lines of tree.c"
reports "$d/fp.data" "$d/fp.files" --no-embedded
same "$d/fp.before" "$d/fp.files" "-g: embedded data vs the binary"
rm "$d/bin/tree"
reports "$d/fp.data" "$d/fp.after"
same "$d/fp.before" "$d/fp.after" "-g, binary deleted"
reports "$d/fp.data" "$d/fp.gone" --no-embedded
grep -q "\] a1$" "$d/fp.gone.self" && fail "--no-embedded with the binary deleted still names a1"

# 2. --call-graph dwarf, the binary replaced by another build: the unwind
# tables and names must come from the file, not from what is at the path now
$PREC -q -F 999 --call-graph dwarf -o "$d/dw.data" -- "$d/bin/tree_nofp" 300 >/dev/null 2>&1 ||
	fail "prec --call-graph dwarf failed"
reports "$d/dw.data" "$d/dw.before"
grep -q "main" "$d/dw.before.children" || fail "dwarf: main not in the children report"
cp "$P/tree" "$d/bin/tree_nofp"        # same path, another build id
reports "$d/dw.data" "$d/dw.after"
same "$d/dw.before" "$d/dw.after" "dwarf, binary replaced"
$PREP -i "$d/dw.data" --stats --sort sym >"$d/dw.stats" 2>&1
grep -q "stopped early" "$d/dw.stats" || fail "dwarf: no unwinding line in --stats"
awk '/dwarf unwinding/ { exit !($(NF-2) == 0) }' "$d/dw.stats" ||
	fail "dwarf: unwinds stopped early offline: $(grep 'dwarf unwinding' "$d/dw.stats")"

# 3. a dlopened library, recorded with --no-embed, completed by prep archive
$PREC -q -F 999 --call-graph dwarf --no-embed -o "$d/lib.data" -- "$d/bin/forker" \
	"$d/bin/libspinlib.so" 300 >/dev/null 2>&1 || fail "prec --no-embed failed"
$PREP dump -i "$d/lib.data" | grep -q "SYMBOLS" && fail "--no-embed: the file has SYMBOLS blocks"
reports "$d/lib.data" "$d/lib.before"
$PREP archive -i "$d/lib.data" >"$d/archive.out" 2>&1 || fail "prep archive: $(cat "$d/archive.out")"
grep -q "embedded the symbols of [1-9]" "$d/archive.out" || fail "prep archive said: $(cat "$d/archive.out")"
$PREP archive -i "$d/lib.data" >/dev/null 2>&1 || fail "prep archive a second time failed"
[ "$($PREP dump -i "$d/lib.data" | grep -c ': SYMBOLS')" = \
  "$($PREP dump -i "$d/lib.data" | grep -c 'SYMBOLS time')" ] || fail "index and blocks disagree"
rm "$d/bin/forker" "$d/bin/libspinlib.so"
reports "$d/lib.data" "$d/lib.after"
same "$d/lib.before" "$d/lib.after" "prep archive, program and library deleted"
grep -q "spinlib_work" "$d/lib.after.self" || fail "the library's functions are not named offline"

# 4. kernel frames of a command's recording: the kernel symbols hit travel
# with the file (a KALLSYMS block of them) and name the same as the kernel's
$PREC -q -F 999 -g -o "$d/k.data" -- dd if=/dev/zero of=/dev/null bs=4k count=200000 \
	>/dev/null 2>&1 || fail "prec dd failed"
$PREP dump -i "$d/k.data" | grep -q ": KALLSYMS" || fail "kernel: no KALLSYMS block in the file"
$PREP -i "$d/k.data" --sort dso,sym -g caller >"$d/k.file" 2>&1
$PREP -i "$d/k.data" --sort dso,sym -g caller --kallsyms /proc/kallsyms >"$d/k.proc" 2>&1
grep -q "\[k\] " "$d/k.file" || fail "kernel: no kernel symbol in the report"
cmp -s "$d/k.file" "$d/k.proc" || { fail "kernel: the file's symbols name differently"; diff "$d/k.file" "$d/k.proc" | head; }

# 5. a perf.data file: prep archive -o writes it as a self-contained
# prec.data file that reports as the perf.data did, the binary deleted
if command -v perf >/dev/null; then
	cp "$P/tree" "$d/bin/tree"
	perf_rec -q -e cpu-clock -F 999 -g -o "$d/perf.data" -- "$d/bin/tree" 300 >/dev/null 2>&1 ||
		fail "perf record failed"
	reports "$d/perf.data" "$d/pd.before"
	$PREP archive -i "$d/perf.data" -o "$d/pd.prec" >"$d/pd.out" 2>&1 ||
		fail "prep archive -i perf.data -o: $(cat "$d/pd.out")"
	rm "$d/bin/tree"
	reports "$d/pd.prec" "$d/pd.after"
	# the first line names the kind of file (perf.data or prec.data header)
	for k in self children srcline; do
		sed -i 1d "$d/pd.before.$k" "$d/pd.after.$k"
	done
	same "$d/pd.before" "$d/pd.after" "perf.data archived to prec.data, binary deleted"
fi

# 6. bad input
$PREP archive -i "$d/missing.data" >/dev/null 2>&1 && fail "prep archive of a missing file succeeded"
head -c 3000 "$d/fp.data" >"$d/cut.data"
# a cut-short file is repaired (prep_archive_repair.sh checks it further)
$PREP archive -i "$d/cut.data" >"$d/cut.out" 2>&1 || fail "prep archive of a cut-short file failed"
grep -q "repaired a recording cut short" "$d/cut.out" || fail "cut-short file: $(cat "$d/cut.out")"
$PREP archive --bogus >/dev/null 2>&1; [ $? = 129 ] || fail "bad option: exit status not 129"

[ $failures = 0 ] && echo "ok: offline reports"
exit $((failures > 0))
