#!/usr/bin/env bash
# Merged inputs (prep -i A -i B): each file's embedded data serves its own
# samples. A program built here runs twice from a temporary folder, hitting
# f1 in one recording and f2 in the other; the binary is then deleted, and
# the report, --folded, pprof, speedscope and the flame graph page of both
# files together name every function of both (the two files' SYMBOLS blocks
# of one build id are merged). Kernel symbols likewise: a recording of a
# command completed by prep archive carries only the kernel symbols it hit
# (renamed here, as another kernel's would be), a -a recording the whole
# table; merged, each file's kernel samples are named from its own copy, as
# in the report of that file alone.
. tests/e2e/lib/common.sh
trap 'rm -rf "$d"' EXIT
export PERF_BUILDID_DIR=$d/buildid-cache
unset DEBUGINFOD_URLS
need_perf_events 1
command -v gcc >/dev/null || { echo "no gcc"; exit 77; }

mkdir -p "$d/bin"
cat >"$d/two.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define WORK(name) \
__attribute__((noinline, noclone)) unsigned long name(unsigned long x, long n) \
{ \
	__asm__ volatile("" : : "r"(__builtin_frame_address(0))); \
	for (long i = 0; i < n; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; } \
	return x; \
}
WORK(merge_f1)
WORK(merge_f2)
int main(int argc, char **argv)
{
	unsigned long x = 88172645463325252ul;
	long n = 150 * 1000 * 1000;

	x = argc > 1 && !strcmp(argv[1], "2") ? merge_f2(x, n) : merge_f1(x, n);
	__asm__ volatile("" : : "r"(x));
	printf("%lu\n", x & 1);
	return 0;
}
EOF
gcc -O2 -g -fno-omit-frame-pointer -Wl,--build-id -o "$d/bin/two" "$d/two.c" ||
	{ fail "cannot build the test program"; exit 1; }

$PREC -q -F 999 -g -o "$d/a.data" -- "$d/bin/two" 1 >/dev/null 2>&1 || fail "prec a failed"
$PREC -q -F 999 -g -o "$d/b.data" -- "$d/bin/two" 2 >/dev/null 2>&1 || fail "prec b failed"
$PREP -i "$d/a.data" --sort sym 2>&1 | grep -q "\] merge_f1$" || fail "a alone: no merge_f1"
$PREP -i "$d/b.data" --sort sym 2>&1 | grep -q "\] merge_f2$" || fail "b alone: no merge_f2"
rm "$d/bin/two"

# has WHAT FILE: FILE names merge_f1 and merge_f2, main too
has() {
	for f in merge_f1 merge_f2 main; do
		grep -q "$f" "$2" || fail "$1: $f not named"
	done
}
for order in "a b" "b a"; do
	set -- $order
	in="-i $d/$1.data -i $d/$2.data"
	$PREP $in --sort sym >"$d/rep" 2>"$d/err" || fail "prep $order: $(cat "$d/err")"
	grep -q "\] merge_f1$" "$d/rep" || fail "$order: merge_f1 not in the report"
	grep -q "\] merge_f2$" "$d/rep" || fail "$order: merge_f2 not in the report"
	grep -q "\] 0x" "$d/rep" && fail "$order: bare addresses: $(grep '\] 0x' "$d/rep" | head -3)"
	$PREP $in --folded >"$d/folded" 2>/dev/null || fail "--folded $order"
	has "--folded $order" "$d/folded"
	$PREP export --speedscope $in -o "$d/ss.json" 2>/dev/null || fail "speedscope $order"
	has "speedscope $order" "$d/ss.json"
	$PREP flamegraph $in -o "$d/fg.html" 2>/dev/null || fail "flamegraph $order"
	has "flamegraph $order" "$d/fg.html"
	$PREP export --pprof $in -o "$d/p.pb.gz" 2>/dev/null || fail "pprof $order"
	if command -v go >/dev/null 2>&1; then
		(export HOME=$d/home GOCACHE=$d/gocache GOPATH=$d/gopath PPROF_TMPDIR=$d/pt
		 export GOPROXY=off GOFLAGS= GOTOOLCHAIN=local GOTELEMETRY=off
		 mkdir -p "$HOME" "$PPROF_TMPDIR"
		 go tool pprof -symbolize=none -top "$d/p.pb.gz" >"$d/top" 2>/dev/null)
		has "pprof $order" "$d/top"
	else
		zcat "$d/p.pb.gz" >"$d/p.pb"
		has "pprof $order" "$d/p.pb"
	fi
done

# ---- kernel symbols ---------------------------------------------------------
# rename_kallsyms IN OUT: OUT is IN with every name of its KALLSYMS block
# prefixed by "k1_" (as a copy from another kernel would name them); the
# blocks after it and the index move, their CRCs are made again
rename_kallsyms() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
hdr = bytearray(data[:64])
out, moved, index_at, off = bytearray(hdr), {}, None, 64
def block(h, payload, codec):
	h = bytearray(h)
	h[6] = codec; h[7] = 0
	struct.pack_into('<III', h, 8, len(payload), len(payload), zlib.crc32(payload))
	struct.pack_into('<I', h, 28, zlib.crc32(bytes(h[:28])))
	return bytes(h) + payload
while off + 32 <= len(data):
	h = data[off:off + 32]
	typ, codec, stored, raw = struct.unpack_from('<HBxII', h, 4)
	body = data[off + 32:off + 32 + stored]
	moved[off] = len(out)
	if typ in (6, 7):
		payload = zlib.decompress(body) if codec == 1 else body
		if typ == 7:
			lines = payload.decode().splitlines(True)
			payload = ''.join(l.split(' ', 2)[0] + ' ' + l.split(' ', 2)[1] + ' k1_' +
					  l.split(' ', 2)[2] for l in lines).encode()
		else:
			index_at = len(out)
			p = bytearray(payload)
			for i in range(struct.unpack_from('<I', p, 0)[0]):
				o = struct.unpack_from('<Q', p, 8 + 32 * i)[0]
				struct.pack_into('<Q', p, 8 + 32 * i, moved[o])
			payload = bytes(p)
		out += block(h, payload, 0)
	else:
		out += data[off:off + 32 + stored]
	off += 32 + stored
struct.pack_into('<I', out, 20, 0)
struct.pack_into('<Q', out, 24, index_at)
struct.pack_into('<I', out, 20, zlib.crc32(bytes(out[:64])))
open(sys.argv[2], 'wb').write(out)
EOF
}
# names of [k] entries, one a line, sorted
ksyms() { grep '\[k\]' "$1" | sed 's/.*\[k\] //' | grep -v '^0x\|^[0-9a-f]*$' | sort -u; }
# k1: a command, completed by prep archive (the kernel symbols it hit), then
# renamed; k2: the whole system (the whole table)
$PREC -q -F 4999 -g -o "$d/k0.data" -- "$P/swev" 20000 2000 >/dev/null 2>&1 || fail "prec k1 failed"
$PREP archive -i "$d/k0.data" >/dev/null 2>&1 || fail "prep archive k1"
$PREP dump -i "$d/k0.data" | grep -q KALLSYMS || fail "k1: no kernel symbols after prep archive"
rename_kallsyms "$d/k0.data" "$d/k1.data" || fail "cannot rename k1's kernel symbols"
$PREC -q -a -F 999 -g -o "$d/k2.data" -- sleep 0.5 >/dev/null 2>&1 || fail "prec -a failed"
$PREP dump -i "$d/k2.data" | grep -q KALLSYMS || fail "k2: no kernel symbols"
$PREP -i "$d/k1.data" --sort sym -g none >"$d/k1.rep" 2>"$d/err" || fail "k1: $(cat "$d/err")"
$PREP -i "$d/k2.data" --sort sym -g none >"$d/k2.rep" 2>/dev/null
ksyms "$d/k1.rep" >"$d/k1.names"
ksyms "$d/k2.rep" >"$d/k2.names"
[ -s "$d/k1.names" ] || fail "k1: no kernel samples"
[ -s "$d/k2.names" ] || fail "k2: no kernel samples"
grep -qv '^k1_' "$d/k1.names" && fail "k1: kernel names not from its copy: $(grep -v '^k1_' "$d/k1.names" | head -3)"
grep -q '^k1_' "$d/k2.names" && fail "k2: kernel names from another file"
for order in "k1 k2" "k2 k1"; do
	set -- $order
	$PREP -i "$d/$1.data" -i "$d/$2.data" --sort sym -g none >"$d/m.rep" 2>/dev/null
	ksyms "$d/m.rep" >"$d/m.names"
	sort -u "$d/k1.names" "$d/k2.names" | cmp -s - "$d/m.names" ||
		{ fail "$order: kernel names differ from those of each file alone"
		  sort -u "$d/k1.names" "$d/k2.names" | diff - "$d/m.names" | head -10; }
	# every frame name of the folded stacks, one a line
	$PREP -i "$d/$1.data" -i "$d/$2.data" --folded 2>/dev/null | sed 's/ [0-9]*$//' |
		tr ';' '\n' | sort -u >"$d/m.frames"
	sort -u "$d/k1.names" "$d/k2.names" | comm -23 - "$d/m.frames" >"$d/missing"
	[ -s "$d/missing" ] && fail "$order --folded: not named: $(head -3 "$d/missing" | tr '\n' ' ')"
done

[ $failures = 0 ] && echo "ok: merged inputs"
exit $((failures > 0))
