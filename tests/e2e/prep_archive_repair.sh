#!/usr/bin/env bash
# prep archive on a file cut short (issue 13): a recording whose prec was
# killed with SIGKILL, the same file cut in the middle of a block, and saved
# streams (prec -o -) get their index back (FORMAT.md 8): no more "did not
# finish" warning, every sample still there, the same report as the cut
# file, and the symbols embedded so that the report names them with the
# binary deleted. What is not a prec file, an empty file and a file that
# cannot be written are refused in one line, and left as they were.
. tests/e2e/lib/common.sh
trap e2e_cleanup EXIT
need_perf_events 1
export PERF_BUILDID_DIR=$d/buildid-cache
unset DEBUGINFOD_URLS

mkdir "$d/bin"
cp "$P/tree" "$d/bin/"

samples() { sed -n 's/^ *SAMPLE events: *\([0-9]*\)$/\1/p' "$1"; }

# report FILE OUT: the report, its stats and warnings (OUT.err)
report() {
	$PREP -i "$1" --stdio --sort sym -g caller >"$2" 2>"$2.err" || fail "prep $1: $(cat "$2.err")"
	$PREP -i "$1" --stdio --stats >"$2.stats" 2>>"$2.err"
}

# archive_ok NAME FILE REPORT-BEFORE: archive repairs it; then no warning,
# the same samples and report, and the symbols with the binary gone
archive_ok() {
	local name=$1 f=$2 before=$3 n
	n=$(samples "$before.stats")
	$PREP archive -i "$f" >"$d/arch" 2>"$d/arch.err" ||
		{ fail "$name: prep archive: exit $?: $(cat "$d/arch.err")"; return; }
	grep -q "repaired a recording cut short: .* ($n samples)" "$d/arch" ||
		fail "$name: prep archive said: $(cat "$d/arch")"
	report "$f" "$d/after"
	[ ! -s "$d/after.err" ] || fail "$name: warnings after the repair: $(cat "$d/after.err")"
	[ "$(samples "$d/after.stats")" = "$n" ] ||
		fail "$name: $(samples "$d/after.stats") samples after the repair, $n before"
	cmp -s "$before" "$d/after" || { fail "$name: the report changed"; diff "$before" "$d/after" | head; }
	$PREP dump -i "$f" >"$d/dump" 2>&1 || fail "$name: prep dump failed"
	grep -q "^  repaired: " "$d/dump" || fail "$name: no repaired tag in the metadata"
	grep -q "^  nr_samples: $n$" "$d/dump" || fail "$name: the metadata does not say $n samples"
	grep -q "SYMBOLS" "$d/dump" || fail "$name: no SYMBOLS block"
	$PREP --header-only -i "$f" | grep -q "^# repaired" || fail "$name: --header does not say repaired"
	mv "$d/bin/tree" "$d/bin/tree.away"
	report "$f" "$d/gone"
	mv "$d/bin/tree.away" "$d/bin/tree"
	cmp -s "$before" "$d/gone" || { fail "$name: binary deleted: the report changed"; diff "$before" "$d/gone" | head; }
	grep -q "\] a1$" "$d/gone" || fail "$name: binary deleted: a1 not named"
}

# ---- prec killed with SIGKILL ----------------------------------------------
$PREC -q -F 999 -g -o "$d/kill.data" -- "$d/bin/tree" 3000 >/dev/null 2>&1 &
ppid=$!
sleep 1.2
child=$(pgrep -P $ppid tree)
kill -KILL $ppid
{ wait $ppid; } 2>/dev/null
[ -n "$child" ] && kill "$child" 2>/dev/null
cp "$d/kill.data" "$d/kill.orig"
report "$d/kill.data" "$d/kill.before"
grep -q "did not finish" "$d/kill.before.err" || fail "SIGKILL: the file is not cut short"
[ "$(samples "$d/kill.before.stats")" -gt 0 ] || fail "SIGKILL: no samples"
grep -q "\] a1$" "$d/kill.before" || fail "SIGKILL: a1 not in the report"
archive_ok "SIGKILL" "$d/kill.data" "$d/kill.before"
# a second archive finds a finished file: nothing repaired, nothing lost
$PREP archive -i "$d/kill.data" >"$d/arch" 2>&1 || fail "second archive: $(cat "$d/arch")"
grep -q repaired "$d/arch" && fail "second archive repaired again: $(cat "$d/arch")"
report "$d/kill.data" "$d/again"
cmp -s "$d/kill.before" "$d/again" || fail "second archive: the report changed"

# ---- cut in the middle of a block ----------------------------------------------
last=$($PREP dump -i "$d/kill.orig" 2>/dev/null | sed -n 's/^block [0-9]* @\([0-9]*\): DATA.*/\1/p' | tail -1)
head -c $((last + 45)) "$d/kill.orig" >"$d/mid.data"
report "$d/mid.data" "$d/mid.before"
grep -q "incomplete block at offset $last" "$d/mid.before.err" ||
	fail "mid-block: not cut in a block: $(cat "$d/mid.before.err")"
archive_ok "mid-block" "$d/mid.data" "$d/mid.before"
grep -q ", 45 bytes of an incomplete block cut off" "$d/arch" ||
	fail "mid-block: the incomplete block was not cut off: $(cat "$d/arch")"

# ---- saved streams -------------------------------------------------------------
$PREC -q -F 999 -g -o - -- "$d/bin/tree" 300 >"$d/stream.data" 2>/dev/null || fail "prec -o - failed"
report "$d/stream.data" "$d/stream.before"
$PREP archive -i "$d/stream.data" >"$d/arch" 2>&1 || fail "stream: prep archive: $(cat "$d/arch")"
grep -q "a saved stream made a file" "$d/arch" || fail "stream: prep archive said: $(cat "$d/arch")"
report "$d/stream.data" "$d/stream.after"
[ ! -s "$d/stream.after.err" ] || fail "stream: warnings: $(cat "$d/stream.after.err")"
cmp -s "$d/stream.before" "$d/stream.after" || fail "stream: the report changed"
$PREP dump -i "$d/stream.data" | grep -q "STREAM" && fail "stream: still a stream"
# a stream cut short is repaired as a file is
$PREC -q -F 999 -g -o - -- "$d/bin/tree" 300 >"$d/s.full" 2>/dev/null
last=$($PREP dump -i "$d/s.full" 2>/dev/null | sed -n 's/^block [0-9]* @\([0-9]*\): DATA.*/\1/p' | tail -1)
head -c $((last + 45)) "$d/s.full" >"$d/scut.data"
report "$d/scut.data" "$d/scut.before"
grep -q "stream was cut short" "$d/scut.before.err" || fail "cut stream: $(cat "$d/scut.before.err")"
$PREP archive -i "$d/scut.data" >"$d/arch" 2>&1 || fail "cut stream: prep archive: $(cat "$d/arch")"
grep -q "repaired a saved stream cut short" "$d/arch" || fail "cut stream: $(cat "$d/arch")"
report "$d/scut.data" "$d/scut.after"
[ ! -s "$d/scut.after.err" ] || fail "cut stream: warnings: $(cat "$d/scut.after.err")"
cmp -s "$d/scut.before" "$d/scut.after" || fail "cut stream: the report changed"

# ---- bad inputs: one line, non-zero exit, the file as it was --------------------
refused() {   # NAME FILE
	cp "$2" "$d/copy" 2>/dev/null || : >"$d/copy"
	$PREP archive -i "$2" >"$d/out" 2>"$d/err"
	rc=$?
	[ $rc -ne 0 ] || fail "$1: exit 0"
	[ "$(wc -l <"$d/err")" -eq 1 ] || fail "$1: not one line: $(cat "$d/err")"
	[ ! -s "$d/out" ] || fail "$1: printed $(cat "$d/out")"
	cmp -s "$2" "$d/copy" || fail "$1: the file changed"
}
printf 'not a recording at all, but long enough to have a header of 64 bytes\n' >"$d/text.data"
refused "not a prec file" "$d/text.data"
: >"$d/empty.data"
refused "empty file" "$d/empty.data"
grep -q "empty.data" "$d/err" || fail "empty file: the line does not name it: $(cat "$d/err")"
head -c $((last + 45)) "$d/s.full" >"$d/ro.data"
ro_note=
if [ "$(id -u)" -ne 0 ]; then
	chmod a-w "$d/ro.data"
	refused "read-only file" "$d/ro.data"
elif mkdir "$d/ro" && cp "$d/ro.data" "$d/ro/" && mount --bind "$d/ro" "$d/ro" &&
	mnt=$d/ro && mount -o remount,ro,bind "$d/ro"; then
	refused "read-only file" "$d/ro/ro.data"
	grep -q "Read-only file system" "$d/err" || fail "read-only: $(cat "$d/err")"
	umount "$mnt" && mnt=
else
	ro_note=" (read-only case skipped: root cannot mount read-only here)"
fi

[ $failures -eq 0 ] || exit 1
echo "prep archive repairs files cut short$ro_note"
