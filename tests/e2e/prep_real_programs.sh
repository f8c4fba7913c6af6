#!/usr/bin/env bash
# prep reads perf.data of real programs as perf report does: xz -9, gzip -9,
# a python3 loop, an sqlite3 query and sort of a ~30 MB file (single
# threaded), each recorded for about a second by perf record -F 999 -g.
# Their libraries (glibc's string and malloc functions) and stripped
# binaries have no frame pointers, so chains break: they stop early, run
# through garbage and end in 0, and many frames have no symbol. Each file is
# reported by perf and by prep with --sort sym, dso,sym and comm,dso, with
# and without children (and without a graph, and in caller order), and
# compared line by line.
#
# What is masked, one rule each:
#  - perf prints a random tip at the end of a report: that line and the '#'
#    lines around it are left out (as in prep_perfdata.sh);
#  - inline frames: prep shows the functions inlined at a frame where its
#    DWARF says so, perf 6.1 shows none for frame-pointer chains (README,
#    "Where prep differs from perf"): both sides run with --no-inline;
#  - PLT stubs: perf 6.1 leaves some unnamed (an address) where prep names
#    them name@plt (README, same heading): the entries of a stub that only
#    prep names are left out of prep's report, perf's entries of addresses
#    that prep's report does not have are left out of perf's, and the stub's
#    name stands for an address in call-graph lines;
#  - entries that perf splits in two (README, same heading; mask_split says
#    when): left out of both;
#  - unresolved addresses with equal percentages: perf's order for them
#    is not a total order (order_addr_ties puts them in one);
#  - unresolved frames in call-graph lines print as an address in both, but
#    not yet the same address (perf: as sampled; prep: in the file; issue 13
#    has that bullet apart): addresses in call-graph lines read 0xADDR.
. tests/e2e/lib/common.sh
trap 'rm -rf "$d"' EXIT
need_perf_events 1
command -v perf >/dev/null || { echo "perf is not installed"; exit 77; }
export LC_ALL=C
unset DEBUGINFOD_URLS
compared=0
PY=/usr/bin/python3
[ -x $PY ] || PY=$(command -v python3)

# rec NAME command...: perf record -g of the command, quietly. perf 6.1
# itself sometimes dies at the end ("stack smashing detected"): three tries,
# then the program is left out with a note.
rec() {
	local name=$1 try; shift
	for try in 1 2 3; do
		perf record -q -F 999 -g -e cpu-clock -o "$d/$name.data" -- "$@" \
			>/dev/null 2>"$d/$name.rec.err" && return
	done
	echo "left out $name: perf record failed: $(grep -v '^ *$' "$d/$name.rec.err" | head -1)"
	rm -f "$d/$name.data"
}

drop_tip() {
	awk '/^# \(Tip/ { tip = NR } { l[NR] = $0 }
	     END { for (i = 1; i <= NR; i++) if (!tip || i < tip - 1 || i > tip + 1) print l[i] }'
}

# addresses in call-graph lines (not entry lines, not '#' lines) read 0xADDR
mask_graph_addrs() { sed -E '/^#|^ +[0-9.]+%/! s/0x[0-9a-f]+/0xADDR/g'; }

# drop_entries LIST [nomark]: leaves out the entries (entry line and its
# call graph) whose entry line ends in one of the lines of the file LIST
# (with nomark: its [.] or [k] mark aside)
drop_entries() {
	awk -v list="$1" -v nomark="${2:-}" '
	     BEGIN { while ((getline l < list) > 0) if (l != "") bad[l] = 1 }
	     /^#/ { skip = 0 }
	     /^ +[0-9.]+%/ { skip = 0; k = $0; sub(/ +$/, "", k); if (nomark) sub(/\[[.k]\] /, "", k)
			     for (b in bad) if (length(k) >= length(b) && substr(k, length(k) - length(b) + 1) == b) skip = 1 }
	     !skip'
}

# what an entry line names: the line without its percentages and mark
entry_keys() { sed -nE 's/^ +([0-9.]+% +)+//p' "$1" | sed -E 's/ *$//; s/\[[.k]\] //'; }

# perf's split entries: perf finds an entry again by walking a red-black
# tree whose order is not transitive (unresolved addresses compare by their
# signed difference, the others by dso first), and where the walk goes
# astray it makes a second entry of the same name; prep keeps one. Entries
# that perf lists twice are left out of both reports.
mask_split() {
	entry_keys "$d/perf.out" | sort | uniq -d >"$d/split"
	[ -s "$d/split" ] || return
	drop_entries "$d/split" nomark <"$d/perf.out" >"$d/perf.tmp" && mv "$d/perf.tmp" "$d/perf.out"
	drop_entries "$d/split" nomark <"$d/prep.out" >"$d/prep.tmp" && mv "$d/prep.tmp" "$d/prep.out"
}

# perf's order of unresolved addresses with equal percentages: the same
# signed difference orders them, which is not transitive, so their order
# comes from the order perf's tree met them in (one run in about twenty put
# 0x13 before 0x3732... in perf, after 0x90c3... in prep). A run of such
# entries (entry line and its graph) with the same percentages is put in
# one order on both sides (runs of the same dso: perf orders those by dso
# first; a kernel and a user address of [unknown] alike, as one run saw
# [k] 0x702f... before [.] 0xc3c0... in perf and after in prep).
order_addr_ties() {
	$PY -c 'import re, sys
lines = sys.stdin.read().split("\n")
ent = re.compile(r"^ +((?:[0-9.]+% +)+.*?)\[[.k]\] 0x[0-9a-f]+ *$")
blocks, cur = [], []
for l in lines:
    if re.match(r"^ +[0-9.]+%|^#", l) and cur:
        blocks.append(cur); cur = []
    cur.append(l)
blocks.append(cur)
out, i = [], 0
while i < len(blocks):
    m = ent.match(blocks[i][0])
    j = i + 1
    if m:
        while j < len(blocks) and (n := ent.match(blocks[j][0])) and n.group(1) == m.group(1):
            j += 1
        run = sorted(blocks[i:j], key=lambda b: b[0])
    else:
        run = blocks[i:j]
    for b in run:
        out.extend(b)
    i = j
sys.stdout.write("\n".join(out))'
}

# the PLT rule: stubs prep names and perf does not
mask_plt() {
	grep -oE '[A-Za-z0-9_.]+@plt' "$d/prep.raw" | sort -u >"$d/prep.plt"
	grep -oE '[A-Za-z0-9_.]+@plt' "$d/perf.raw" | sort -u >"$d/perf.plt"
	comm -23 "$d/prep.plt" "$d/perf.plt" >"$d/plt.only"
	if [ ! -s "$d/plt.only" ]; then
		cp "$d/perf.raw" "$d/perf.out"
		cp "$d/prep.raw" "$d/prep.out"
		return
	fi
	grep -o '\[\.\] 0x[0-9a-f]*$' "$d/perf.raw" | sort -u >"$d/perf.addrs"
	grep -o '\[\.\] 0x[0-9a-f]*$' "$d/prep.raw" | sort -u >"$d/prep.addrs"
	comm -23 "$d/perf.addrs" "$d/prep.addrs" >"$d/addrs.only"
	# a stub perf could not name either prints as a bare "@plt" in perf
	# (where prep has none: it named it)
	grep -q '\[\.\] @plt *$' "$d/perf.raw" && ! grep -q '\[\.\] @plt *$' "$d/prep.raw" &&
		echo "[.] @plt" >>"$d/addrs.only"
	drop_entries "$d/addrs.only" <"$d/perf.raw" >"$d/perf.out"
	sed 's/^/[.] /' "$d/plt.only" >"$d/plt.entries"
	sed 's/.*/s\/\\b&\\b\/0xADDR\/g/' "$d/plt.only" >"$d/plt.sed"
	drop_entries "$d/plt.entries" <"$d/prep.raw" |
		sed -E '/^#|^ +[0-9.]+%/! { '"$(tr '\n' ';' <"$d/plt.sed")"' }' >"$d/prep.out"
}

# same NAME ARGS...: perf report and prep print the same lines
same() {
	local f=$1; shift
	[ -f "$d/$f.data" ] || return
	compared=$((compared + 1))
	perf report -i "$d/$f.data" --stdio --no-inline "$@" 2>/dev/null | drop_tip |
		mask_graph_addrs >"$d/perf.raw"
	$PREP -i "$d/$f.data" --stdio --no-inline "$@" 2>"$d/prep.err" | mask_graph_addrs >"$d/prep.raw"
	[ "${PIPESTATUS[0]}" -eq 0 ] || { fail "$f $*: prep failed: $(head -1 "$d/prep.err")"; return; }
	[ -s "$d/perf.raw" ] || { fail "$f $*: perf report printed nothing"; return; }
	mask_plt
	mask_split
	for o in perf prep; do
		order_addr_ties <"$d/$o.out" >"$d/$o.ord" && mv "$d/$o.ord" "$d/$o.out"
	done
	# a dropped entry (mask_split) at the very end takes perf's closing
	# blank lines with it: those are not compared
	for o in perf prep; do
		sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$d/$o.out" >"$d/$o.trim" && mv "$d/$o.trim" "$d/$o.out"
	done
	if ! diff -u "$d/perf.out" "$d/prep.out" >"$d/diff"; then
		fail "$f $*: prep differs from perf report ($(grep -c '^[-+][^-+]' "$d/diff") lines)"
		head -40 "$d/diff"
	fi
}

# ~10 MB of numbers and words
awk 'BEGIN { x = 1; for (i = 0; i < 400000; i++) {
	x = (x * 1103515245 + 12345) % 2147483648; print x, i % 977, "row", int(x / 4096) } }' >"$d/data.txt"
head -c 1000000 "$d/data.txt" >"$d/small.txt"
cat "$d/data.txt" "$d/data.txt" "$d/data.txt" >"$d/big.txt"

perf record -q -o "$d/probe.data" -- true >/dev/null 2>&1 ||
	{ echo "perf record does not work here"; exit 77; }
command -v xz >/dev/null && rec xz xz -9 -c "$d/small.txt"
command -v gzip >/dev/null && rec gzip gzip -9 -c "$d/data.txt"
[ -n "$PY" ] && rec python3 $PY -c 's = 0
for i in range(4000000): s += len(str(i * 7))
print(s)'
command -v sqlite3 >/dev/null && rec sqlite3 sqlite3 :memory: \
	"with recursive c(x) as (select 1 union all select x + 1 from c where x < 1500000)
	 select count(*), sum(length(printf('%x', x * 7))) from c;"
rec sort sort --parallel=1 -o /dev/null "$d/big.txt"

for f in xz gzip python3 sqlite3 sort; do
	for opts in "--sort sym" "--sort dso,sym" "--sort comm,dso"; do
		same $f --children $opts
		same $f --no-children $opts
	done
	same $f --children --sort dso,sym -g none
	same $f --no-children --sort sym -g caller
done

echo "$compared comparisons with perf"
[ $compared -gt 0 ] || { echo "none of the programs could be recorded"; exit 77; }
[ $failures -eq 0 ] && echo "prep reports real programs' perf.data as perf does"
exit $((failures > 0))
