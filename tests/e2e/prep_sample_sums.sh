#!/usr/bin/env bash
# prep report (and the browser, which reads the same way) takes the samples
# of a prec.data file from its SAMPLE_SUMS block (FORMAT.md 5.12) where that
# block may stand for them, and reads the samples otherwise: either way the
# same output, byte for byte, stderr and exit status too (--no-index forces
# the reading). Compared on recordings made here, under many option sets:
# plain, -g, two events, a workload that execs, one that forks and whose
# children exit while others are sampled, --switch-output files, a
# --no-embed file (no block) before and after prep archive, a saved stream,
# a perf.data made a prec.data by prep archive, two files merged, one cut
# short, one whose block is damaged, one whose samples were damaged after
# the block was written, sample filters, and a recording made by an
# unprivileged user at perf_event_paranoid 2. Files
# the block cannot stand for (--call-graph dwarf, --off-cpu) have none. A
# file whose block was edited (a class made larger, its CRC fixed) shows
# that the block is what answers (the outputs then differ).
. tests/e2e/lib/common.sh
. tests/e2e/lib/blocks.sh
. tests/e2e/lib/unpriv.sh
trap 'paranoid_restore; e2e_cleanup' EXIT
need_perf_events 1
export PERF_BUILDID_DIR=$d/buildid-cache
unset DEBUGINFOD_URLS
command -v python3 >/dev/null || { echo "python3 not installed (edits files)"; exit 77; }
cd "$d" || exit 1

has_sums() {
	$PREP -D -i "$1" 2>/dev/null | grep -cE '^block [0-9]+ @[0-9]+: SAMPLE_SUMS,'
}

# same NAME FILE... [-- OPTIONS]: both ways, under option sets a report
# reading sums serves (and some it does not: they read the samples)
same() {
	local name=$1 opts
	shift
	local -a in=() extra=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do in+=(-i "$1"); shift; done
	[ $# -gt 0 ] && shift
	extra=("$@")
	for opts in "" "--no-children --sort sym,dso" "-g caller --sort comm,sym" \
		    "--stats" "--header -n --show-total-period" "--sort pid,tid,cpu" \
		    "--no-children --sort dso,sym,srcline -g none" "--sort symoff,parent -g flat" \
		    "--children -g folded --percent-limit 2" "--folded" "--percentage absolute" \
		    "--symbols main --sort sym" "--sort sym -F overhead,sample,period,sym" \
		    "--inline -g callee,0.1"; do
		# shellcheck disable=SC2086
		$PREP report "${in[@]}" --stdio $opts "${extra[@]}" >a.out 2>a.err
		ra=$?
		# shellcheck disable=SC2086
		$PREP report "${in[@]}" --stdio --no-index $opts "${extra[@]}" >b.out 2>b.err
		rb=$?
		if [ $ra -ne $rb ] || ! cmp -s a.out b.out || ! cmp -s a.err b.err; then
			fail "$name, '$opts ${extra[*]}': not the same (exit $ra, $rb)"
			diff a.out b.out | head -5
			diff a.err b.err | head -5
		fi
	done
	[ -s a.out ] || [ -s a.err ] || fail "$name: no output at all"
}

# record NAME WANT PREC-OPTIONS... -- COMMAND...: a recording that has its
# block (WANT 1) or none (0)
record() {
	local name=$1 want=$2
	shift 2
	$PREC -q -o "$name.data" "$@" >/dev/null 2>"$name.err" || fail "prec $name: $(cat "$name.err")"
	[ "$(has_sums "$name.data")" = "$want" ] ||
		fail "$name.data: $(has_sums "$name.data") SAMPLE_SUMS blocks (want $want)"
}

# ---- recordings that have the block ------------------------------------------
record plain 1 -F 4999 -- "$P/tree" 600
same plain plain.data
record g 1 -F 4999 -g -- "$P/tree" 600
same -g g.data
record two 1 -e cpu-clock,task-clock -F 4999 -g -- "$P/tree" 600
same "two events" two.data
record exec 1 -F 4999 -g -- sh -c "exec $P/tree 600"
same exec exec.data
record fork 1 -F 4999 -g -- "$P/forker" "$P/libspinlib.so" 300
same "fork and exit" fork.data
# the block is small beside the samples: a class is a stack, not a sample
n=$($PREP -D -i g.data 2>/dev/null | sed -nE 's/.*summed from .* ([0-9]+) samples .*, ([0-9]+) records$/\1 \2/p')
set -- $n
[ "${1:-0}" -ge 200 ] && [ "${2:-0}" -ge 1 ] && [ "$2" -le $(($1 / 16)) ] ||
	fail "-g: the block holds '$n' (samples, records): want at most one record in 16"

# ---- files the block cannot stand for: none written ---------------------------
record dwarf 0 -F 499 --call-graph dwarf -- "$P/tree_nofp" 200
same dwarf dwarf.data
record offcpu 0 --off-cpu -g -F 999 -- "$P/sleeper" 50 3 30
same off-cpu offcpu.data

mkdir sw && cd sw || exit 1
$PREC -q -F 4999 -g --switch-output=0.15s -- "$P/twophase" 600 0 >/dev/null 2>err ||
	fail "prec --switch-output: $(cat err)"
n=0
for f in prec.data.*; do
	same "--switch-output $f" "$f"
	n=$((n + 1))
done
[ $n -ge 2 ] || fail "--switch-output: $n files"
cd .. || exit 1

# ---- without the block; prep archive adds it, once --------------------------
$PREC -q --no-embed -F 4999 -g -o noembed.data -- "$P/tree" 600 >/dev/null 2>&1 || fail "prec --no-embed"
[ "$(has_sums noembed.data)" = 0 ] || fail "--no-embed wrote a SAMPLE_SUMS block"
same "--no-embed" noembed.data
$PREP archive -q -i noembed.data || fail "prep archive of noembed.data"
[ "$(has_sums noembed.data)" = 1 ] || fail "prep archive added no SAMPLE_SUMS block"
same "archived" noembed.data
$PREP archive -q -i noembed.data || fail "prep archive again"
[ "$(has_sums noembed.data)" = 1 ] || fail "prep archive twice: $(has_sums noembed.data) blocks"
same "archived twice" noembed.data

$PREC -q -F 4999 -g -o - -- "$P/tree" 600 >stream.data 2>/dev/null || fail "prec -o -"
same stream stream.data

# a perf.data made a prec.data by prep archive: its records as perf wrote them
if command -v perf >/dev/null; then
	perf_rec -q -F 999 -g -o perf.data -- "$P/spin" 1000 1 >/dev/null 2>&1 ||
		fail "perf record failed"
	$PREP archive -q -i perf.data -o conv.data || fail "prep archive of perf.data"
	[ "$(has_sums conv.data)" = 1 ] || fail "the archive of perf.data has no SAMPLE_SUMS block"
	same "perf.data archived" conv.data
fi

# ---- merged, cut short, damaged -------------------------------------------
same merged plain.data g.data
damaged g.data SAMPLE_SUMS
same "cut short" cut.data
same "damaged block" badblock.data
same "damaged samples" baddata.data

# ---- filters and keys the sums cannot serve: the samples are read ----------
pid=$($PREP script -i g.data -F pid 2>/dev/null | awk 'NR == 1 { print $1 }')
same "--pid" g.data -- --pid "${pid:-1}"
same "--comm" g.data -- --comm tree
same "--cpu" g.data -- --cpu 0
same "--time" g.data -- --time 0%-50%
same "--parallelism" g.data -- --sort parallelism,sym
same "--latency" g.data -- --latency

# ---- an unprivileged user's recording --------------------------------------
if [ -w /proc/sys/kernel/perf_event_paranoid ] && unpriv_init "$d/t"; then
	paranoid_set 2
	as_user $UPREC -q -F 4999 -g -o user.data -- $UP/tree 600 >/dev/null 2>user.err ||
		fail "paranoid 2: prec -g: $(cat user.err)"
	paranoid_restore
	cp "$d/t/u/user.data" user.data 2>/dev/null || fail "paranoid 2: no file written"
	[ "$(has_sums user.data)" = 1 ] || fail "paranoid 2: no SAMPLE_SUMS block"
	same "paranoid 2" user.data
else
	echo "(the unprivileged recording left out: ${unpriv_why:-perf_event_paranoid not writable})"
fi

# ---- the block answers: a class made larger, the block's CRCs fixed ----------
record z0 1 -z 0 -F 4999 -g -- "$P/tree" 600
python3 - z0.data <<'EOF' || fail "could not edit z0.data"
import os, struct, sys
sys.path.insert(0, os.environ["E2E_LIB"])
from prec_blocks import blocks, fix
path = sys.argv[1]
b = bytearray(open(path, "rb").read())
sums = [(off, codec, stored) for off, t, codec, flags, stored in blocks(b) if t == 12]
assert len(sums) == 1, "no SAMPLE_SUMS block"
off, codec, stored = sums[0]
assert codec == 0, "SAMPLE_SUMS block not stored as is"
p = off + 32
item = p + 48
while struct.unpack_from("<I", b, item + 4)[0] != 1:    # the first class
    item += 24 + (struct.unpack_from("<I", b, item)[0] + 7) // 8 * 8
struct.pack_into("<Q", b, item + 8, struct.unpack_from("<Q", b, item + 8)[0] + 100000)
struct.pack_into("<Q", b, p + 16, struct.unpack_from("<Q", b, p + 16)[0] + 100000)
fix(b, off, stored)
open(path, "wb").write(b)
EOF
$PREP report -i z0.data --stdio -n >a.out 2>a.err || fail "report of the edited file: $(cat a.err)"
$PREP report -i z0.data --stdio -n --no-index >b.out 2>b.err || fail "--no-index: $(cat b.err)"
cmp -s a.out b.out && fail "a class made larger reads the same: was the block used?"
grep -q "^# Samples: 10[0-9]K of event" a.out || fail "the class made larger: $(grep '^# Samples' a.out)"

[ $failures -eq 0 ] && echo "prep report: the same with and without the SAMPLE_SUMS block"
exit $((failures > 0))
