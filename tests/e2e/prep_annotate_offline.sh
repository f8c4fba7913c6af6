#!/usr/bin/env bash
# The code bytes of the functions hit travel with the recording (issue 16,
# FORMAT.md 5.8.1): prec embeds them in the SYMBOLS blocks, so the file
# holds the same bytes as the binary after the binary is gone. Checked on a
# copy of a test program that is recorded, then deleted: every embedded
# range matches the binary's bytes (crc32), every function hit is covered;
# `prep annotate` (once there) prints the same with the binary deleted;
# --no-embed embeds none and `prep archive` adds them; --embed-source keeps
# the source lines around the lines hit (SOURCE block) once the source is
# deleted, and `prep archive --embed-source` adds them; as an unprivileged
# user at perf_event_paranoid 2 the same.
. tests/e2e/lib/common.sh
. tests/e2e/lib/unpriv.sh
trap 'paranoid_restore; e2e_cleanup' EXIT
need_perf_events 1
export PERF_BUILDID_DIR=$d/buildid-cache
unset DEBUGINFOD_URLS
PY=/usr/bin/python3
[ -x $PY ] || { echo "python3 not installed (reads the ELF file to compare)"; exit 77; }

mkdir "$d/bin" "$d/keep"
cp "$P/tree" "$d/bin/tree"
cp "$P/tree" "$d/keep/tree"     # to compare with once the recorded one is gone

# check_code NAME DATA [RECORDED [BINARY]]: the ranges embedded for the
# binary recorded as RECORDED ($d/bin/tree) are the bytes of BINARY (the
# kept copy), and a1, a2, b2 and rec lie inside them
check_code() {
	local name=$1 data=$2 recorded=${3:-$d/bin/tree} binary=${4:-$d/keep/tree}
	$PREP -D -i "$data" >"$d/dump" 2>&1 || { fail "$name: prep -D failed"; return; }
	$PY - "$d/dump" "$recorded" "$binary" >"$d/check" 2>&1 <<'EOF' ||
import re, subprocess, sys, zlib
dump, recorded, binary = sys.argv[1:4]
ranges, mine = [], False
for line in open(dump):
    m = re.match(r'^  [0-9a-f]+ (\S+)$', line)
    if m:
        mine = m.group(1) == recorded
    m = re.match(r'^    bytes (0x[0-9a-f]+) \+(\d+) crc32 ([0-9a-f]{8})$', line)
    if m and mine:
        ranges.append((int(m.group(1), 16), int(m.group(2)), int(m.group(3), 16)))
if not ranges:
    sys.exit("no byte ranges embedded for " + recorded)
segs = []
for line in subprocess.run(['readelf', '-lW', binary], capture_output=True, text=True).stdout.splitlines():
    f = line.split()
    if f and f[0] == 'LOAD':
        segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
img = open(binary, 'rb').read()
def read(va, n):
    for off, vaddr, filesz in segs:
        if vaddr <= va and va + n <= vaddr + filesz:
            return img[off + va - vaddr:off + va - vaddr + n]
    sys.exit("range %#x +%d not in the file" % (va, n))
for va, n, crc in ranges:
    if zlib.crc32(read(va, n)) != crc:
        sys.exit("range %#x +%d: not the binary's bytes" % (va, n))
syms = {}
for line in subprocess.run(['nm', '-S', binary], capture_output=True, text=True).stdout.splitlines():
    f = line.split()
    if len(f) == 4:
        syms[f[3]] = (int(f[0], 16), int(f[1], 16))
for s in ('a1', 'a2', 'b2', 'rec'):
    st, size = syms[s]
    if not any(va <= st and st + size <= va + n for va, n, _ in ranges):
        sys.exit("the code of %s (%#x +%d) is not embedded" % (s, st, size))
print("ok", len(ranges))
EOF
	fail "$name: $(cat "$d/check")"
}

# ---- prec embeds the code; the binary is deleted ---------------------------
$PREC -q -F 999 -o "$d/t.data" -- "$d/bin/tree" 300 >/dev/null 2>"$d/err" ||
	fail "prec: $(cat "$d/err")"
annotate=
if $PREP annotate -h >/dev/null 2>&1; then
	annotate=yes
	$PREP annotate -i "$d/t.data" --stdio -s a1 >"$d/ann.before" 2>&1 ||
		fail "prep annotate with the binary: $(cat "$d/ann.before")"
fi
rm "$d/bin/tree"
check_code "prec" "$d/t.data"
$PREP -i "$d/t.data" --stdio --sort sym >"$d/rep" 2>&1 || fail "prep report: $(cat "$d/rep")"
grep -q "\] a1$" "$d/rep" || fail "binary deleted: a1 not named"
if [ -n "$annotate" ]; then
	$PREP annotate -i "$d/t.data" --stdio -s a1 >"$d/ann.after" 2>&1 ||
		fail "prep annotate without the binary: $(cat "$d/ann.after")"
	cmp -s "$d/ann.before" "$d/ann.after" ||
		{ fail "prep annotate changed once the binary was deleted"; diff "$d/ann.before" "$d/ann.after" | head; }
fi

# ---- --no-embed: nothing; prep archive adds the code -----------------------
cp "$P/tree" "$d/bin/tree"
$PREC -q -F 999 --no-embed -o "$d/n.data" -- "$d/bin/tree" 200 >/dev/null 2>"$d/err" ||
	fail "prec --no-embed: $(cat "$d/err")"
$PREP -D -i "$d/n.data" 2>&1 | grep -q "^    bytes " && fail "--no-embed: code bytes embedded"
$PREP archive -i "$d/n.data" >"$d/arch" 2>&1 || fail "prep archive: $(cat "$d/arch")"
grep -Eq "embedded the code of [1-9][0-9]* functions hit \([1-9][0-9]* bytes\)" "$d/arch" ||
	fail "prep archive does not say what code it embedded: $(cat "$d/arch")"
rm "$d/bin/tree"
check_code "prep archive" "$d/n.data"

# ---- --embed-source: the lines around the hit lines, the source file gone ---
mkdir "$d/src"
cp tests/programs/tree.c tests/programs/work.h "$d/src/"
(cd "$d/src" && ${CC:-cc} -O1 -g -fno-omit-frame-pointer -o "$d/bin/tree_src" tree.c) ||
	fail "cannot build tree.c"
$PREC -q -F 999 --embed-source -o "$d/s.data" -- "$d/bin/tree_src" 200 >/dev/null 2>"$d/err" ||
	fail "prec --embed-source: $(cat "$d/err")"
[ -s "$d/err" ] && fail "prec --embed-source said: $(cat "$d/err")"
cp "$d/src/tree.c" "$d/keep/tree.c"
if [ -n "$annotate" ]; then
	$PREP annotate -i "$d/s.data" --stdio -s a1 >"$d/sann.before" 2>&1 ||
		fail "prep annotate with the source: $(cat "$d/sann.before")"
	grep -q "x ^= x << 13;" "$d/sann.before" || fail "prep annotate shows no source of a1: $(head "$d/sann.before")"
fi
rm -r "$d/src" "$d/bin/tree_src"
if [ -n "$annotate" ]; then
	$PREP annotate -i "$d/s.data" --stdio -s a1 >"$d/sann.after" 2>&1 ||
		fail "prep annotate without the source: $(cat "$d/sann.after")"
	cmp -s "$d/sann.before" "$d/sann.after" ||
		{ fail "prep annotate changed once the source and binary were deleted"; diff "$d/sann.before" "$d/sann.after" | head; }
fi
$PREP -D -i "$d/s.data" >"$d/sdump" 2>&1 || fail "prep -D of the --embed-source file failed"
grep -q "^block .*: SOURCE, " "$d/sdump" || fail "--embed-source: no SOURCE block"
# the lines of a1's loop, as they are in the file (each embedded line is
# the file's line of that number)
grep -q "^    $d/src/tree.c: [1-9][0-9]* lines" "$d/sdump" || fail "--embed-source: tree.c not there"
awk -v f="    $d/src/tree.c: " 'index($0, f) == 1 { on = 1; next }
	/^    [^ ]/ || /^block / { on = 0 }
	on && /^      [0-9]+: / { sub(/^      /, ""); n = $1; sub(/:$/, "", n); sub(/^[0-9]+: /, ""); print n, $0 }' "$d/sdump" >"$d/lines"
[ -s "$d/lines" ] || fail "--embed-source: no lines of tree.c"
while read -r no text; do
	[ "$(sed -n "${no}p" "$d/keep/tree.c" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')" = \
	  "$(echo "$text" | sed 's/[[:space:]]*$//')" ] || { fail "--embed-source: line $no differs: $text"; break; }
done <"$d/lines"
a1=$(grep -n "^unsigned long a1(" "$d/keep/tree.c" | cut -d: -f1)
grep -q "^$((a1 + 2)) " "$d/lines" || fail "--embed-source: the lines of a1 (from $a1) are not there"
$PREP -D -i "$d/t.data" 2>&1 | grep -q ": SOURCE, " && fail "a SOURCE block without --embed-source"
$PREC -q --embed-source --no-embed -o "$d/x.data" -- true >/dev/null 2>"$d/err"
rc=$?
[ $rc -eq 129 ] && grep -q "^prec: --embed-source and --no-embed cannot be used together" "$d/err" ||
	fail "--embed-source --no-embed: exit $rc: $(cat "$d/err")"
# prep archive --embed-source adds them to a file recorded without
cp "$P/tree" "$d/bin/tree"
$PREC -q -F 999 -o "$d/a.data" -- "$d/bin/tree" 200 >/dev/null 2>&1 || fail "prec (for archive)"
$PREP archive --embed-source -i "$d/a.data" >"$d/arch" 2>&1 || fail "prep archive --embed-source: $(cat "$d/arch")"
grep -Eq "embedded the lines of [1-9][0-9]* source files" "$d/arch" ||
	fail "prep archive --embed-source said: $(cat "$d/arch")"
$PREP -D -i "$d/a.data" 2>&1 | grep -q ": SOURCE, " || fail "prep archive --embed-source: no SOURCE block"
$PREP archive -i "$d/a.data" >/dev/null 2>&1 || fail "prep archive again (SOURCE before SYMBOLS)"
rm "$d/bin/tree"

# ---- as a user, at perf_event_paranoid 2 ------------------------------------
user_note=
if [ -w /proc/sys/kernel/perf_event_paranoid ] && unpriv_init "$d/t"; then
	paranoid_set 2
	as_user $UPREC -q -F 999 -o u.data -- $UP/tree 200 >/dev/null 2>"$d/err" ||
		fail "as a user: prec: $(cat "$d/err")"
	check_code "as a user" "$d/t/u/u.data" "$UP/tree" "$UP/tree"
	as_user $UPREC -q -F 999 --embed-source -o us.data -- $UP/tree 100 >/dev/null 2>"$d/err" ||
		fail "as a user: prec --embed-source: $(cat "$d/err")"
	$PREP -D -i "$d/t/u/us.data" 2>&1 | grep -q ": SOURCE, " || fail "as a user: no SOURCE block"
	paranoid_restore
else
	user_note=" (not as a user: ${unpriv_why:-cannot set perf_event_paranoid})"
fi

[ $failures -eq 0 ] || { echo "$failures failures"; exit 1; }
echo "the code of the functions hit is embedded and read back without the binary$user_note"
