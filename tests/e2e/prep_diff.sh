#!/usr/bin/env bash
# prep diff prints what perf diff prints, line for line, on pairs of
# perf.data recorded here by perf record -F 999 -g: the two versions of
# tests/programs/diffprog (5 points moved from shrink to grow; the same
# name in two folders, so the symbols match by name, not address), gzip -9
# on two inputs and python3 running two different loops (their libraries
# have stripped local functions and PLT stubs). Each pair is compared with
# perf's options (-c, -p, -F, -o, -s, -b, -q, -t, --percentage, -d,
# --comms, three files), then prep's own inputs: the defaults
# (prec.data.old and prec.data; perf.data.old and perf.data when only
# those are there, said on stderr), options between the files, prec.data
# against perf.data.
#
# What is masked, one rule each:
#  - PLT stubs: prep names a stub name@plt (README, "Where prep differs
#    from perf"), perf counts its samples among its object's addresses
#    without a symbol, which perf diff lumps into one row per object (named
#    by the lowest address); where prep names a stub perf does not, the
#    rows of that object that are stubs or nameless addresses are left out
#    of both (with -s sym, of every object: the lump spans them all), and
#    the last column's title lines, whose width such a row may set, are cut
#    at that column.
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
# then the pair is left out with a note.
rec() {
	local name=$1 try; shift
	for try in 1 2 3; do
		perf record -q -F 999 -g -e cpu-clock -o "$d/$name.data" -- "$@" \
			>/dev/null 2>"$d/$name.rec.err" && return
	done
	echo "left out $name: perf record failed: $(grep -v '^ *$' "$d/$name.rec.err" | head -1)"
	rm -f "$d/$name.data"
}

# the PLT rule (above): $1 the option list (-s sym lumps across objects)
mask_plt() {
	local all=0
	case " $1 " in *" -s sym "*) all=1 ;; esac
	grep -oE '[A-Za-z0-9_.]+@plt' "$d/prep.raw" | sort -u >"$d/prep.plt"
	grep -oE '[A-Za-z0-9_.]+@plt' "$d/perf.raw" | sort -u >"$d/perf.plt"
	if ! comm -23 "$d/prep.plt" "$d/perf.plt" | grep -q .; then
		cp "$d/perf.raw" "$d/perf.out"
		cp "$d/prep.raw" "$d/prep.out"
		return
	fi
	# the objects of the stubs only prep names
	comm -23 "$d/prep.plt" "$d/perf.plt" | while read -r s; do
		grep -F "$s" "$d/prep.raw" | grep -oE '[^ ]+ +\[\.\] [^ ]+@plt$' | awk '{ print $1 }'
	done | sort -u >"$d/plt.dsos"
	for o in perf prep; do
		awk -v all=$all -v list="$d/plt.dsos" '
			BEGIN { while ((getline l < list) > 0) dso[l] = 1 }
			/^# / && (/Symbol/ || /^# \.+/) { sub(/  [^ ]+ *$/, ""); print; next }
			/\[\.\] (0x[0-9a-f]+|[^ ]*@plt)$/ {
				if (all) next
				for (i = 1; i < NF; i++) if ($(i) in dso && $(i + 1) == "[.]") next
			}
			{ print }' "$d/$o.raw" >"$d/$o.out"
	done
}

# same OLD NEW... -- OPTIONS...: perf diff and prep diff print the same lines
same() {
	local files=() opts
	while [ "$1" != "--" ]; do files+=("$d/$1.data"); shift; done
	shift
	opts="$*"
	for f in "${files[@]}"; do [ -f "$f" ] || return; done
	compared=$((compared + 1))
	(cd "$d" && perf diff "$@" "${files[@]}") >"$d/perf.raw" 2>/dev/null
	(cd "$d" && $PREP diff "$@" "${files[@]}") >"$d/prep.raw" 2>"$d/prep.err" ||
		{ fail "diff ${files[*]##*/} $opts: prep failed: $(head -1 "$d/prep.err")"; return; }
	[ -s "$d/perf.raw" ] || { fail "${files[*]##*/} $opts: perf diff printed nothing"; return; }
	mask_plt "$opts"
	if ! diff -u "$d/perf.out" "$d/prep.out" >"$d/diff"; then
		fail "diff ${files[*]##*/} $opts: prep differs from perf diff ($(grep -c '^[-+][^-+]' "$d/diff") lines)"
		head -30 "$d/diff"
	fi
}

perf record -q -o "$d/probe.data" -- true >/dev/null 2>&1 ||
	{ echo "perf record does not work here"; exit 77; }
rec v1 "$P/diff1/diffprog" 300
rec v2 "$P/diff2/diffprog" 300
rec v1b "$P/diff1/diffprog" 200
seq 1 250000 >"$d/numbers.txt"
head -c 1500000 /dev/urandom >"$d/random.bin"
command -v gzip >/dev/null && rec gz1 gzip -9 -c "$d/numbers.txt" && rec gz2 gzip -9 -c "$d/random.bin"
if [ -n "$PY" ]; then
	rec py1 $PY -c 's = 0
for i in range(800000): s += i * i % 7
print(s)'
	rec py2 $PY -c 'print(len(sorted(str(i * 7) for i in range(300000))))'
fi

for o in "" "-c delta" "-c ratio -p -F" "-c wdiff:3,-2 -F" "-o 0" "-s sym" "-s comm,dso" \
	 "-b -F" "-q" "-t ;" "--percentage relative -d diffprog -p -F" "--comms diffprog -s comm,sym"; do
	# shellcheck disable=SC2086
	same v1 v2 -- $o
done
for o in "" "-o 2 -c ratio -p -b"; do
	# shellcheck disable=SC2086
	same v1 v2 v1b -- $o
done
for o in "" "-s sym" "-b -p -F"; do
	# shellcheck disable=SC2086
	same gz1 gz2 -- $o
done
for o in "" "-c ratio" "-s sym" "-s dso"; do
	# shellcheck disable=SC2086
	same py1 py2 -- $o
done

# ---- prep's own inputs ---------------------------------------------------------
cd "$d" || exit 1
# options between the files, as perf takes them
if [ -f v1.data ] && [ -f v2.data ]; then
	perf diff -c ratio v1.data v2.data >perf.out 2>/dev/null
	$PREP diff v1.data -c ratio v2.data >prep.out 2>prep.err
	cmp -s perf.out prep.out || fail "prep diff OLD -c ratio NEW differs from perf diff -c ratio OLD NEW"
	# the defaults: perf.data.old and perf.data when only those are here
	mkdir only_perf && cp v1.data only_perf/perf.data.old && cp v2.data only_perf/perf.data
	(cd only_perf && perf diff >perf.out 2>/dev/null && $PREP diff >prep.out 2>prep.err) ||
		fail "prep diff (perf.data.old, perf.data): $(head -1 only_perf/prep.err)"
	cmp -s only_perf/perf.out only_perf/prep.out || fail "prep diff without files differs from perf diff's"
	grep -q "no prec.data.old here: comparing perf.data.old with perf.data" only_perf/prep.err ||
		fail "prep diff did not say it compared perf.data.old: $(cat only_perf/prep.err)"
	# one file: NEW against the default OLD
	(cd only_perf && $PREP diff perf.data >one.out 2>/dev/null) && cmp -s only_perf/one.out only_perf/prep.out ||
		fail "prep diff NEW is not prep diff perf.data.old NEW"
	# prec.data.old and prec.data, prec's own (prec keeps the last one as .old)
	mkdir ours && cd ours || exit 1
	# at 4999 Hz (~1,700 samples): its share's noise small beside the 5 points
	$PREC -q -F 4999 -- "$P/diff1/diffprog" 200 >/dev/null 2>&1
	$PREC -q -F 4999 -- "$P/diff2/diffprog" 200 >/dev/null 2>&1
	$PREP diff >prep.out 2>prep.err || fail "prep diff (prec.data.old, prec.data): $(head -1 prep.err)"
	[ -s prep.err ] && fail "prep diff of prec's files said: $(head -1 prep.err)"
	# prec.data against perf.data: one comparison, symbols by name
	$PREP diff prec.data.old ../v2.data >mixed.out 2>mixed.err || fail "prec.data against perf.data: $(head -1 mixed.err)"
	for f in grow shrink steady small; do
		grep -qE "^ +[0-9.]+% +[-+][0-9.]+% +diffprog +\[\.\] $f$" mixed.out ||
			fail "prec.data against perf.data: no paired row for $f"
	done
	# grow's row is its share in each file as prep reports that file alone
	# (the baseline, and the delta to the new one): the pairing across the
	# two formats, exactly. (Not its designed +5: perf's side has ~600
	# samples at 999 Hz, a share's noise alone 1.6 points; runs here saw
	# +0.60 to +1.95 under load.)
	base=$(awk '$NF == "grow" { sub(/%/, "", $1); print $1 }' mixed.out)
	grow=$(awk '$NF == "grow" { sub(/%/, "", $2); print $2 }' mixed.out)
	old=$($PREP -i prec.data.old --no-children --sort sym -g none 2>/dev/null |
		awk '$NF == "grow" { sub(/%/, "", $1); print $1 }')
	new=$($PREP -i ../v2.data --no-children --sort sym -g none 2>/dev/null |
		awk '$NF == "grow" { sub(/%/, "", $1); print $1 }')
	awk -v b="$base" -v g="$grow" -v o="$old" -v n="$new" \
		'BEGIN { d = b - o; e = b + g - n; exit !(o != "" && n != "" && d * d < 0.0004 && e * e < 0.0009) }' ||
		fail "prec.data against perf.data: grow's row $base% $grow%, its shares alone $old% and $new%"
	# --folded: difffolded.pl's two columns, the same lines as prep export
	# difffolded (plain and normalized; runs summed), and only for two sides
	$PREP diff --folded prec.data.old ../v2.data >folded.out 2>folded.err ||
		fail "prep diff --folded: $(head -1 folded.err)"
	$PREP export difffolded prec.data.old ../v2.data >folded.want 2>/dev/null
	[ -s folded.out ] && cmp -s folded.out folded.want ||
		fail "prep diff --folded differs from prep export difffolded"
	awk 'NF < 3 || $(NF-1) !~ /^[0-9]+$/ || $NF !~ /^[0-9]+$/ { bad = 1 } END { exit bad }' folded.out ||
		fail "prep diff --folded: a line is not 'STACK OLD NEW'"
	$PREP diff --folded --normalize prec.data.old,prec.data.old ../v2.data >folded.out 2>/dev/null
	$PREP export difffolded -n prec.data.old,prec.data.old ../v2.data >folded.want 2>/dev/null
	[ -s folded.out ] && cmp -s folded.out folded.want ||
		fail "prep diff --folded --normalize (two runs) differs from prep export difffolded -n"
	$PREP diff --folded prec.data.old ../v2.data ../v2.data >/dev/null 2>folded.err
	[ $? -eq 129 ] && grep -q "two sides" folded.err || fail "prep diff --folded of three sides: $(cat folded.err)"
	cd ..
fi
# no prec.data.old and no perf's pair: one line that says so
mkdir none && (cd none && $PREP diff >out 2>err; echo $? >rc)
[ "$(cat none/rc)" = 1 ] && grep -q "cannot open 'prec.data.old'" none/err ||
	fail "prep diff without any file: exit $(cat none/rc), $(head -1 none/err)"

# a baseline cut short before its first event: nothing to compare, said in a
# line (after the reader's warnings), exit 1
if [ -f ours/prec.data ]; then
	head -c 100 ours/prec.data >cut.data
	$PREP diff cut.data ours/prec.data >cut.out 2>cut.err
	rc=$?
	[ $rc -eq 1 ] && grep -qx "prep diff: cut.data has no events: nothing to compare" cut.err &&
		[ ! -s cut.out ] || fail "prep diff of a baseline without events: exit $rc: $(tail -1 cut.err)"
fi

echo "$compared comparisons with perf diff"
[ $compared -gt 0 ] || { echo "nothing could be recorded"; exit 77; }
[ $failures -eq 0 ] && echo "prep diff prints what perf diff prints"
exit $((failures > 0))
