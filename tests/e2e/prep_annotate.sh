#!/usr/bin/env bash
# prep annotate: tests/programs/annot (two loops of the same instruction mix
# in annot_hot, 75% and 25% of its samples by design) recorded by perf and by
# prec. On the perf.data, prep's percentage per instruction address equals
# perf annotate's; on both files the loops' shares are within 3 points of
# the design. Then the options: -n, --show-total-period, --percent-type,
# -l, --no-source, --asm-raw, -M intel, --percent-limit, --skip-missing, -d,
# two events (two blocks; two columns with --group), colors, jump targets and callee names, a symbol
# without samples.
. tests/e2e/lib/common.sh
trap e2e_cleanup EXIT
need_perf_events 1
A=$P/annot
[ -x "$A" ] || { echo "$A is not built (make tests-build)"; exit 77; }
export PERF_BUILDID_DIR=$d/buildid     # no cache shared with other runs

# "addr pct" of each instruction line of an annotation
insns() { sed -nE 's/^ +([0-9.]+) : +([0-9a-f]+):.*/\2 \1/p'; }
# the share of each loop (a backward jump inside the symbol closes one):
# "start end sum" in address order
loops() {
	awk 'function hex(s,  i, v) { v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
	/^ +[0-9.]+ : +[0-9a-f]+:/ {
		a = hex(substr($3, 1, length($3) - 1)); addr[n] = a; pct[n++] = $1
		if (match($0, /j[a-z]+ +([0-9a-f]+) <annot_hot\+/)) {
			split(substr($0, RSTART), w, /[ <]+/); t = hex(w[2])
			if (t < a) { lo[m] = t; hi[m++] = a }
		}
	} END {
		for (i = 0; i < m; i++) {
			s = 0
			for (j = 0; j < n; j++) if (addr[j] >= lo[i] && addr[j] <= hi[i]) s += pct[j]
			printf "%x %x %.2f\n", lo[i], hi[i], s
		}
	}'
}
# the designed shares, 75 and 25, within 3 points
check_loops() {
	loops <"$1" >"$1.loops"
	[ "$(wc -l <"$1.loops")" -eq 2 ] || { fail "$2: not two loops: $(cat "$1.loops")"; return; }
	read -r _ _ s1 < <(sed -n 1p "$1.loops")
	read -r _ _ s2 < <(sed -n 2p "$1.loops")
	awk -v a="$s1" -v b="$s2" 'BEGIN { exit !(a >= 72 && a <= 78 && b >= 22 && b <= 28) }' ||
		fail "$2: loop shares $s1% and $s2%, designed 75% and 25%"
}

TOP=$PWD
cd "$d" || exit 1
have_perf=false
if command -v perf >/dev/null &&
	perf_rec -q -e cpu-clock -F 4999 -o perf.data -- "$A" 60 >/dev/null 2>&1; then
	have_perf=true
fi
$PREC -q -e cpu-clock -F 4999 -o prec.data -- "$A" 60 >/dev/null 2>&1 || fail "prec record failed"

# ---- the same percentages as perf annotate, per address ------------------------
if $have_perf; then
	perf annotate -i perf.data --stdio -s annot_hot 2>/dev/null >perf.txt
	$PREP annotate -i perf.data --stdio -s annot_hot >prep_perf.txt 2>err || fail "on perf.data: $(cat err)"
	insns <perf.txt >perf.pct; insns <prep_perf.txt >prep.pct
	[ -s perf.pct ] || fail "perf annotate printed no instruction"
	cut -d' ' -f1 perf.pct >perf.addr; cut -d' ' -f1 prep.pct >prep.addr
	cmp -s perf.addr prep.addr || fail "the instruction addresses differ from perf's"
	join perf.pct prep.pct | awk '{ d = $2 - $3; if (d > 0.01 || d < -0.01) print }' >diff
	[ -s diff ] && fail "percentages differ from perf's (addr perf prep): $(head -3 diff | tr '\n' ';')"
	# header, rule and objdump's preamble: perf's lines
	perf annotate -i perf.data --stdio --no-source -s annot_hot 2>/dev/null | head -9 >perf.head
	$PREP annotate -i perf.data --no-source annot_hot | head -9 >prep.head
	cmp -s perf.head prep.head || fail "header differs: $(diff perf.head prep.head | tr '\n' ' ')"
	check_loops prep_perf.txt "perf.data"
	# --asm-raw: the same bytes at the same addresses (objdump's seven a line)
	raw() { sed -nE 's/^ +[0-9.]+ : +([0-9a-f]+): +(([0-9a-f]{2}( |$))+).*/\1 \2/p' | sed 's/ *$//'; }
	perf annotate -i perf.data --stdio --asm-raw --no-source -s annot_hot 2>/dev/null | raw >perf.raw
	$PREP annotate -i perf.data --asm-raw --no-source annot_hot | raw >prep.raw
	[ -s prep.raw ] && cmp -s perf.raw prep.raw || fail "--asm-raw: bytes differ from perf's"
	# -l: the same lines as perf's summary, the same shares
	perf annotate -i perf.data --stdio -l -s annot_hot 2>/dev/null |
		sed -nE 's/^ +([0-9.]+) (annot\.c:[0-9]+)$/\2 \1/p' | sort >perf.lines
	$PREP annotate -i perf.data -l -s annot_hot 2>/dev/null |
		sed -nE 's/^ +([0-9.]+) (annot\.c:[0-9]+)$/\2 \1/p' | sort >prep.lines
	[ -s prep.lines ] && cmp -s perf.lines prep.lines ||
		fail "-l differs from perf's: $(tr '\n' ' ' <prep.lines) / $(tr '\n' ' ' <perf.lines)"
fi

# a real program: python3's top symbols (exported by libpython), per address
if $have_perf && command -v python3 >/dev/null &&
	perf_rec -q -e cpu-clock -F 4999 -o py.data -- python3 -c 'sum(i * i for i in range(1500000))' \
		>/dev/null 2>&1; then
	perf report -i py.data --stdio --sort sym 2>/dev/null |
		awk '$2 == "[.]" && $3 !~ /^0x/ { print $3 }' | head -3 >py.syms
	[ -s py.syms ] || fail "python3: perf report names no symbol"
	while read -r sym; do
		perf annotate -i py.data --stdio -s "$sym" 2>/dev/null | insns >perf.pct
		$PREP annotate -i py.data -s "$sym" 2>err | insns >prep.pct
		[ -s prep.pct ] || { fail "python3 $sym: prep printed nothing: $(head -1 err)"; continue; }
		cmp -s <(cut -d' ' -f1 perf.pct) <(cut -d' ' -f1 prep.pct) ||
			fail "python3 $sym: the addresses differ from perf's"
		join perf.pct prep.pct | awk '{ d = $2 - $3; if (d > 0.01 || d < -0.01) print }' >diff
		[ -s diff ] && fail "python3 $sym: percentages differ: $(head -3 diff | tr '\n' ';')"
	done <py.syms
fi

# ---- prec.data ----------------------------------------------------------------
$PREP annotate --stdio annot_hot >prec.txt 2>err || fail "on prec.data: $(cat err)"
check_loops prec.txt "prec.data"
hot=$(insns <prec.txt | sort -k2 -rn | head -1 | cut -d' ' -f1)
read -r lo hi _ < <(sed -n 1p prec.txt.loops)
[ $((16#$hot)) -ge $((16#${lo:-0})) ] && [ $((16#$hot)) -le $((16#${hi:-0})) ] ||
	fail "the hottest instruction ($hot) is not in the first loop ($lo-$hi)"
grep -qE 'j[a-z]+ +[0-9a-f]+ <annot_hot\+0x[0-9a-f]+>' prec.txt || fail "no jump with its target"
grep -qE 'call[a-z]* +[0-9a-f]+ <annot_cold>' prec.txt || fail "no call naming annot_cold"
grep -q 'x = x \* 6364136223846793005ull' prec.txt || fail "no source line"
# without a symbol: every symbol, hottest first (annot_hot first)
$PREP annotate >all.txt 2>/dev/null || fail "without a symbol: exit $?"
grep -m1 -A7 'Source code' all.txt | grep -q '<annot_hot>:' || fail "annot_hot is not first"

# ---- options ------------------------------------------------------------------
n=$(head -1 prec.txt | sed -nE 's/.*\(([0-9]+) samples.*/\1/p')
$PREP annotate -n annot_hot >n.txt || fail "-n: exit $?"
head -1 n.txt | grep -q '^ Samples |' || fail "-n: header $(head -1 n.txt)"
sum=$(insns <n.txt | awk '{ s += $2 } END { print s }')
[ "$sum" = "$n" ] || fail "-n: counts add up to $sum, header says $n"
$PREP annotate --show-total-period annot_hot >p.txt || fail "--show-total-period: exit $?"
head -1 p.txt | grep -q '^ Period      |' || fail "--show-total-period: header $(head -1 p.txt)"
for t in local-period global-period local-hits global-hits; do
	$PREP annotate --percent-type $t annot_hot >t.txt || fail "--percent-type $t: exit $?"
	head -1 t.txt | grep -q "percent: ${t/-/ })" || fail "--percent-type $t: $(head -1 t.txt)"
	s=$(insns <t.txt | awk '{ s += $2 } END { printf "%.0f", s }')
	case $t in
	local-*) [ "$s" -ge 99 ] && [ "$s" -le 101 ] || fail "--percent-type $t: sum $s" ;;
	*) [ "$s" -le 101 ] || fail "--percent-type $t: sum $s" ;;
	esac
done
# --prefix, --prefix-strip: the source file looked for elsewhere (a copy
# whose loop line is marked)
mkdir -p src && sed 's/x = x \* 6364136223846793005ull/MARKED_LINE &/' "$TOP/tests/programs/annot.c" >src/annot.c
$PREP annotate --prefix "$d/src" --prefix-strip 100 annot_hot >pre.txt 2>&1 || fail "--prefix: exit $?"
grep -q 'MARKED_LINE x = x' pre.txt || fail "--prefix/--prefix-strip: the copy is not read"
$PREP annotate --no-source annot_hot >ns.txt || fail "--no-source: exit $?"
grep -q '6364136223846793005ull' ns.txt && fail "--no-source: source lines shown"
[ "$(insns <ns.txt | wc -l)" = "$(insns <prec.txt | wc -l)" ] || fail "--no-source: instructions differ"
$PREP annotate --asm-raw --no-source annot_hot >raw.txt || fail "--asm-raw: exit $?"
grep -qE ': +[0-9a-f]+: +55 +push' raw.txt || fail "--asm-raw: no bytes: $(sed -n 5p raw.txt)"
$PREP annotate -M intel --no-source annot_hot >intel.txt || fail "-M intel: exit $?"
grep -qE ': +[0-9a-f]+: .*%' intel.txt && fail "-M intel: AT&T registers: $(grep -m1 % intel.txt)"
grep -qE 'imul +r[a-z0-9]+, r' intel.txt || fail "-M intel: no Intel imul"
$PREP annotate --percent-limit 50 >lim.txt || fail "--percent-limit: exit $?"
[ "$(grep -c 'Source code' lim.txt)" -eq 1 ] || fail "--percent-limit 50: not one symbol"
$PREP annotate -d annot --no-source annot_hot | grep -q '<annot_hot>:' || fail "-d annot"
$PREP annotate -d libc.so.6 annot_hot >/dev/null 2>&1 && fail "-d libc.so.6: annot_hot shown"
$PREP annotate --stdio-color always annot_hot | grep -q $'\033\\[31m' || fail "--stdio-color always: no red"
$PREP annotate --stdio-color never annot_hot | grep -q $'\033' && fail "--stdio-color never: colors"
$PREP annotate nosuch_symbol >out 2>err; rc=$?
[ $rc -eq 1 ] && grep -q "no samples in symbol nosuch_symbol" err || fail "nosuch_symbol: exit $rc: $(cat err)"

# two events: one block each, or one column each with --group (as perf)
$PREC -q -e cpu-clock,task-clock -F 2999 -o two.data -- "$A" 30 >/dev/null 2>&1 || fail "prec two events"
$PREP annotate -i two.data --no-source annot_hot >two.txt || fail "two events: exit $?"
[ "$(grep -c 'Source code & Disassembly of annot for [a-z-]* (' two.txt)" -eq 2 ] ||
	fail "two events: not two blocks: $(grep 'Source code' two.txt)"
$PREP annotate -i two.data --no-source --group annot_hot >two.txt || fail "--group: exit $?"
head -1 two.txt | grep -q '^ Percent         |.*cpu-clock, task-clock' || fail "--group: $(head -1 two.txt)"
grep -qE '^ +[0-9.]+ +[0-9.]+ : +[0-9a-f]+:' two.txt || fail "--group: not two columns"
if $have_perf && perf_rec -q -e cpu-clock,task-clock -F 2999 -o ptwo.data -- "$A" 30 >/dev/null 2>&1; then
	cols() { sed -nE 's/^ +([0-9.]+) +([0-9.]+) : +([0-9a-f]+):.*/\3 \1 \2/p'; }
	perf annotate -i ptwo.data --stdio --group -n --no-source -s annot_hot 2>/dev/null | cols >perf.two
	$PREP annotate -i ptwo.data --group -n --no-source annot_hot | cols >prep.two
	[ -s prep.two ] && cmp -s perf.two prep.two || fail "--group -n differs from perf's"
fi

# a binary that is gone: its code was embedded by prec (issue 16), so the
# same annotation (tests/e2e/prep_annotate_offline.sh checks more)
cp "$A" gone && $PREC -q -e cpu-clock -F 999 -o gone.data -- ./gone 10 >/dev/null 2>&1 ||
	fail "prec gone"
$PREP annotate -i gone.data annot_hot >before 2>err || fail "annotate with the binary: $(cat err)"
rm -f gone
$PREP annotate -i gone.data annot_hot >out 2>err || fail "binary gone: $(cat err)"
cmp -s before out || { fail "binary gone: the annotation changed"; diff before out | head -10; }
$PREP annotate -i gone.data --skip-missing annot_hot >out 2>err
grep -q "cannot annotate" err && fail "--skip-missing: $(cat err)"

# --tui: refused in one line that names where the interactive annotate is
$PREP annotate -i gone.data --tui annot_hot >out 2>err
rc=$?
[ $rc -eq 129 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "the interactive annotate is the browser's: prep --tui, then a" err ||
	fail "--tui: exit $rc: $(cat err)"

[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
echo ok
