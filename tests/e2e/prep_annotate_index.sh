#!/usr/bin/env bash
# prep annotate takes its counts from the file's ADDR_COUNTS block (FORMAT.md
# 5.11) where that block may stand for the samples, and reads the samples
# otherwise: either way the same output, byte for byte, stderr and exit
# status too (--no-index forces the reading). Compared on recordings made
# here: plain, -g, --call-graph dwarf, two events, a workload that execs,
# --switch-output files, a --no-embed file (no block) before and after prep
# archive, a perf.data file and its prec.data archive, a saved stream and its
# archive, two files merged, one cut short, one whose block is damaged, one
# whose samples were damaged after the block was written, and with sample
# filters. A file whose samples were changed and its block's CRC made to
# match shows that the block is what answers (the outputs then differ).
. tests/e2e/lib/common.sh
. tests/e2e/lib/blocks.sh
trap e2e_cleanup EXIT
need_perf_events 1
export PERF_BUILDID_DIR=$d/buildid-cache
unset DEBUGINFOD_URLS
command -v python3 >/dev/null || { echo "python3 not installed (edits files)"; exit 77; }
cd "$d" || exit 1

has_index() {
	$PREP -D -i "$1" 2>/dev/null | grep -cE '^block [0-9]+ @[0-9]+: ADDR_COUNTS,'
}

# same NAME FILE... [-- OPTIONS]: both ways, every symbol and the hottest
# alone, under a few option sets
same() {
	local name=$1 hot opts
	shift
	local -a in=() extra=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do in+=(-i "$1"); shift; done
	[ $# -gt 0 ] && shift
	extra=("$@")
	hot=$($PREP annotate "${in[@]}" --stdio "${extra[@]}" 2>/dev/null |
		sed -nE 's/^ *: 5 +[0-9a-f]+ <(.*)>:$/\1/p' | head -1)
	for opts in "" "-n" "--show-total-period --percent-type global-hits" \
		    "-l --asm-raw --no-source" "--group --percent-limit 5" "-s ${hot:-main}"; do
		# shellcheck disable=SC2086
		$PREP annotate "${in[@]}" --stdio $opts "${extra[@]}" >a.out 2>a.err
		ra=$?
		# shellcheck disable=SC2086
		$PREP annotate "${in[@]}" --stdio --no-index $opts "${extra[@]}" >b.out 2>b.err
		rb=$?
		if [ $ra -ne $rb ] || ! cmp -s a.out b.out || ! cmp -s a.err b.err; then
			fail "$name, '$opts ${extra[*]}': not the same (exit $ra, $rb)"
			diff a.out b.out | head -5
			diff a.err b.err | head -5
		fi
	done
	[ -s a.out ] || [ -s a.err ] || fail "$name: no output at all"
}

# record NAME PREC-OPTIONS... -- COMMAND...: a recording that has its block
record() {
	local name=$1
	shift
	$PREC -q -o "$name.data" "$@" >/dev/null 2>"$name.err" || fail "prec $name: $(cat "$name.err")"
	[ "$(has_index "$name.data")" = 1 ] || fail "$name.data: no ADDR_COUNTS block"
}

# ---- recordings that have the block ------------------------------------------
record plain -F 999 -- "$P/tree" 300
same plain plain.data
record g -F 999 -g -- "$P/tree" 300
same -g g.data
record dwarf -F 499 --call-graph dwarf -- "$P/tree_nofp" 200
same dwarf dwarf.data
record two -e cpu-clock,task-clock -F 999 -- "$P/tree" 300
same "two events" two.data
record exec -F 999 -- sh -c "exec $P/tree 300"
same exec exec.data
# offcpu-time samples are made by the loader from the switch records
record offcpu --off-cpu -g -F 999 -- "$P/sleeper" 50 3 30
same off-cpu offcpu.data

mkdir sw && cd sw || exit 1
$PREC -q -F 999 --switch-output=0.15s -- "$P/twophase" 600 0 >/dev/null 2>err ||
	fail "prec --switch-output: $(cat err)"
n=0
for f in prec.data.*; do
	# (a last file without samples has nothing to embed)
	[ "$(has_index "$f")" = 1 ] || ! $PREP -D -i "$f" 2>/dev/null | grep -q ' SAMPLE ' ||
		fail "--switch-output: $f has no ADDR_COUNTS block"
	same "--switch-output $f" "$f"
	n=$((n + 1))
done
[ $n -ge 2 ] || fail "--switch-output: $n files"
cd .. || exit 1

# ---- without the block; prep archive adds it, once --------------------------
$PREC -q --no-embed -F 999 -o noembed.data -- "$P/tree" 300 >/dev/null 2>&1 || fail "prec --no-embed"
[ "$(has_index noembed.data)" = 0 ] || fail "--no-embed wrote an ADDR_COUNTS block"
same "--no-embed" noembed.data
$PREP archive -q -i noembed.data || fail "prep archive of noembed.data"
[ "$(has_index noembed.data)" = 1 ] || fail "prep archive added no ADDR_COUNTS block"
same "archived" noembed.data
$PREP archive -q -i noembed.data || fail "prep archive again"
[ "$(has_index noembed.data)" = 1 ] || fail "prep archive twice: $(has_index noembed.data) blocks"
same "archived twice" noembed.data

if command -v perf >/dev/null; then
	perf_rec -q -F 999 -o perf.data -- "$P/tree" 300 >/dev/null 2>&1 ||
		fail "perf record failed"
	same perf.data perf.data
	$PREP archive -q -i perf.data -o conv.data || fail "prep archive of perf.data"
	[ "$(has_index conv.data)" = 1 ] || fail "the archive of perf.data has no ADDR_COUNTS block"
	same "perf.data archived" conv.data
fi

$PREC -q -F 999 -o - -- "$P/tree" 300 >stream.data 2>/dev/null || fail "prec -o -"
same stream stream.data
$PREP archive -q -i stream.data || fail "prep archive of the stream"
same "stream archived" stream.data

# ---- merged, cut short, damaged -------------------------------------------
same merged plain.data g.data
damaged plain.data ADDR_COUNTS
same "cut short" cut.data
same "damaged block" badblock.data
same "damaged samples" baddata.data

# ---- filters: the samples are read ------------------------------------------
pid=$($PREP script -i plain.data -F pid 2>/dev/null | awk 'NR == 1 { print $1 }')
same "--pid" plain.data -- --pid "${pid:-1}"
same "--comm" plain.data -- --comm tree
same "--cpu" plain.data -- --cpu 0
same "--time" plain.data -- --time 0%-50%
same "--dso (not a sample filter)" plain.data -- --dsos tree

# ---- the block answers: a sample moved after it was written, its CRC fixed ----
record z0 -z 0 -F 999 -- "$P/tree" 300
# a sample at the hottest user address (of a1, surely: a named symbol)
off=$($PREP -D -i z0.data 2>/dev/null | awk '
	/^block [0-9]+ @[0-9]+: DATA,/ { sub(/^@/, "", $3); sub(/:$/, "", $3); blk = $3 }
	/ SAMPLE / && $8 !~ /^0xffff/ && blk {
		sub(/^@/, "", $1); n[$8]++; at[$8] = blk + 32 + $1
		if (n[$8] > best) { best = n[$8]; ip = $8 } }
	END { if (ip) print at[ip] }')
python3 - z0.data "${off:-0}" <<'EOF' || fail "could not edit z0.data"
import os, struct, sys, zlib
sys.path.insert(0, os.environ["E2E_LIB"])
from prec_blocks import blocks, fix
path, rec = sys.argv[1], int(sys.argv[2])
b = bytearray(open(path, "rb").read())
hit = ac = None
for off, t, codec, flags, stored in blocks(b):
    if t == 3 and off < rec < off + 32 + stored:
        assert codec == 0 and flags == 0, "DATA block not stored as is"
        hit = (off, stored)
    if t == 11:
        assert codec == 0, "ADDR_COUNTS block not stored as is"
        ac = (off, stored)
assert rec and hit and ac, "no user sample or no block found"
struct.pack_into("<Q", b, rec + 16, 0x10)      # ip: where nothing is mapped
fix(b, *hit)
struct.pack_into("<I", b, ac[0] + 32 + 8, zlib.crc32(b[64:ac[0]]))
fix(b, *ac)
open(path, "wb").write(b)
EOF
$PREP annotate -i z0.data --stdio >a.out 2>a.err || fail "annotate of the edited file: $(cat a.err)"
$PREP annotate -i z0.data --stdio --no-index >b.out 2>b.err || fail "--no-index: $(cat b.err)"
cmp -s a.out b.out && fail "the edited samples read the same as the block: was the block used?"
cmp -s a.err b.err || fail "the edited file: not the same warnings: $(diff a.err b.err | head -3)"

[ $failures -eq 0 ] && echo "prep annotate: the same with and without the ADDR_COUNTS block"
exit $((failures > 0))
