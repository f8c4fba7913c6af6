#!/usr/bin/env bash
# The code bytes of the functions hit travel with the recording (issue 16,
# FORMAT.md 5.8.1): prec embeds them in the SYMBOLS blocks, so the file
# holds the same bytes as the binary after the binary is gone. Checked on a
# copy of a test program that is recorded, then deleted: every embedded
# range matches the binary's bytes (crc32), every function hit is covered;
# `prep annotate` (once there) prints the same with the binary deleted;
# --no-embed embeds none and `prep archive` adds them; as an unprivileged
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

# ---- as a user, at perf_event_paranoid 2 ------------------------------------
user_note=
if [ -w /proc/sys/kernel/perf_event_paranoid ] && unpriv_init "$d/t"; then
	paranoid_set 2
	as_user $UPREC -q -F 999 -o u.data -- $UP/tree 200 >/dev/null 2>"$d/err" ||
		fail "as a user: prec: $(cat "$d/err")"
	check_code "as a user" "$d/t/u/u.data" "$UP/tree" "$UP/tree"
	paranoid_restore
else
	user_note=" (not as a user: ${unpriv_why:-cannot set perf_event_paranoid})"
fi

[ $failures -eq 0 ] || { echo "$failures failures"; exit 1; }
echo "the code of the functions hit is embedded and read back without the binary$user_note"
