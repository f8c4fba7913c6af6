#!/usr/bin/env bash
# prep export --pprof end to end, checked with the real client (`go tool
# pprof`, Debian's golang-go): records tree (-g and --call-graph dwarf) and
# inl (tests/programs/PROFILES.md), exports them, and checks that pprof
# lists the same functions as prep with the same flat (self) and cum
# (children) percentages within 0.01 point and the same sample counts
# exactly, the call chains of the design in -traces, inline frames and
# source lines (-lines, -list), the mappings' build ids (-raw), the sample
# and period types, labels, deterministic output, --event, and the errors.
# pprof runs with -symbolize=none (the profile carries the names) and with
# HOME, GOCACHE, GOPATH and PPROF_TMPDIR in a scratch folder: nothing is
# fetched or written elsewhere.
set -u
B=${BUILD:-build}
PREC=./prec PREP=./prep
[ "$B" = build ] || { PREC=$B/prec; PREP=$B/prep; }
P=$B/tests/programs
PROFILES=tests/programs/PROFILES.md
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

[ -r /proc/sys/kernel/perf_event_paranoid ] || { echo "no perf events on this kernel"; exit 77; }
if [ "$(id -u)" -ne 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ]; then
	echo "needs root or perf_event_paranoid <= 1"; exit 77
fi
export HOME=$d/home GOCACHE=$d/gocache GOPATH=$d/gopath PPROF_TMPDIR=$d/pprof-tmp
export GOPROXY=off GOFLAGS= GOTOOLCHAIN=local GOTELEMETRY=off
mkdir -p "$HOME" "$PPROF_TMPDIR"
command -v go >/dev/null 2>&1 || { echo "go is not installed (Debian: golang-go)"; exit 77; }
go tool -n pprof >/dev/null 2>&1 || { echo "go has no pprof tool"; exit 77; }

pprof() { go tool pprof -symbolize=none "$@" 2>>"$d/pprof.err"; }

# pprof -top output as "name<TAB>flat<TAB>flat%<TAB>cum<TAB>cum%"
top_tsv() {
	awk '/^ *flat +flat%/ { on = 1; next }
	     on && NF >= 6 { n = $6; for (i = 7; i <= NF; i++) n = n " " $i
			     gsub(/%/, "", $2); gsub(/%/, "", $5)
			     print n "\t" $1 "\t" $2 "\t" $4 "\t" $5 }'
}
# prep --sort sym -g none -q, self or children: "name<TAB>pct[<TAB>samples]"
prep_self() {   # FILE: --no-children -n
	$PREP -q -i "$1" --sort sym --no-children -g none -n 2>/dev/null |
		awk '$1 ~ /%$/ { n = $4; for (i = 5; i <= NF; i++) n = n " " $i
				 sub(/%/, "", $1); print n "\t" $1 "\t" $2 }'
}
prep_children() {       # inlined functions are entries of their own, not in -noinlines
	$PREP -q -i "$1" --sort sym --children -g none --no-inline 2>/dev/null |
		awk '$1 ~ /%$/ { n = $4; for (i = 5; i <= NF; i++) n = n " " $i
				 sub(/%/, "", $1); print n "\t" $1 }'
}

# same_pcts WHAT PREP_TSV PPROF_TSV PCOL: every symbol of prep (names summed:
# pprof merges functions by name) has its percentage in pprof's column PCOL,
# within 0.01 point, and pprof lists nothing with a share that prep lacks.
# Unresolved addresses are left out: prep prints each (0x... or the bare hex
# address), pprof groups them by binary ([name]) or calls them <unknown>.
same_pcts() {
	awk -F'\t' -v what="$1" -v col="$4" '
		FNR == NR { if ($1 !~ /^0x|^[0-9a-f]+$/) { want[$1] += $2; cnt[$1]++ }; next }
		{ got[$1] = $col }
		END {
			bad = 0
			for (n in want) {
				tol = 0.01 * cnt[n] + 1e-9
				if (!(n in got)) { printf "%s: %s (%.2f%%) not in pprof\n", what, n, want[n]; bad++ }
				else if (got[n] - want[n] > tol || want[n] - got[n] > tol) {
					printf "%s: %s: pprof %s%%, prep %.2f%%\n", what, n, got[n], want[n]; bad++ }
			}
			for (n in got)
				if (got[n] + 0 > 0 && !(n in want) && n !~ /^0x|^[0-9a-f]+$|^\[.*\]$|^<unknown>$/) {
					printf "%s: %s: pprof %s%%, not in prep\n", what, n, got[n]; bad++ }
			exit bad > 0
		}' "$2" "$3" || fail "$1 differs (above)"
}

# same_counts PREP_TSV PPROF_TSV: self sample counts, exactly
same_counts() {
	awk -F'\t' -v what="$1" '
		FNR == NR { if ($1 !~ /^0x/) want[$1] += $3; next }
		{ got[$1] = $2 }
		END { bad = 0
		      for (n in want) if (got[n] != want[n]) {
			      printf "%s: %s: pprof %s samples, prep %s\n", what, n, got[n], want[n]; bad++ }
		      exit bad > 0 }' "$2" "$3" || fail "$1 sample counts differ (above)"
}

# has_chain TRACES "f1 f2 ...": some trace lists these frames consecutively
# (leaf first), inline frames included, "(inline)" marks dropped
has_chain() {
	awk -v want="$2" '
		/^-+\+-+$/ { check(); s = ""; next }
		/^ +[a-z]+: / { next }
		{ line = $0; sub(/^ *[0-9.]+[a-z]*s? +/, "", line); sub(/^ +/, "", line)
		  sub(/ \(inline\)$/, "", line); if (line != "") s = s " " line }
		function check() { if (index(s " ", " " want " ")) found = 1 }
		END { check(); exit !found }' "$1"
}

record() {   # NAME PREC-ARGS...
	local name=$1; shift
	$PREC -q -F 999 -o "$d/$name.data" "$@" >/dev/null 2>"$d/$name.rec.err" ||
		fail "$name: prec failed: $(cat "$d/$name.rec.err")"
}

export_pb() {   # NAME
	$PREP export --pprof -i "$d/$1.data" -o "$d/$1.pb.gz" 2>"$d/$1.exp.err" ||
		fail "$1: prep export exit $?: $(cat "$d/$1.exp.err")"
}

record tree -g -- $P/tree 300
record dwarf --call-graph dwarf -- $P/tree_nofp 300
record inl -g -- $P/inl 300

# ---- tree: the file, the header, flat and cum against prep --------------------
export_pb tree
grep -qE "^prep: wrote $d/tree.pb.gz: [0-9]+ samples of cpu-clock in [0-9]+ stacks, [0-9]+ locations, [0-9]+ functions, [0-9]+ mappings" \
	"$d/tree.exp.err" || fail "tree: summary line: $(cat "$d/tree.exp.err")"
[ "$(head -c 2 "$d/tree.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] || fail "tree: not gzip data"
pprof -top -noinlines -nodefraction=0 -nodecount=100000 "$d/tree.pb.gz" >"$d/tree.top" ||
	fail "tree: pprof -top failed: $(tail -3 "$d/pprof.err")"
grep -q '^File: tree$' "$d/tree.top" || fail "tree: main binary: $(grep '^File' "$d/tree.top")"
grep -q '^Type: cpu-clock$' "$d/tree.top" || fail "tree: type: $(grep '^Type' "$d/tree.top")"
grep -q "^Duration: " "$d/tree.top" || fail "tree: no duration"
grep -q "prec -q -F 999 -o $d/tree.data -g -- $P/tree 300" "$d/tree.top" ||
	fail "tree: the command line is not among the comments"
top_tsv <"$d/tree.top" >"$d/tree.pp"
prep_self "$d/tree.data" >"$d/tree.self"
[ -s "$d/tree.self" ] || fail "tree: prep printed nothing"
same_pcts "tree flat" "$d/tree.self" "$d/tree.pp" 3
# the designed order of pprof's own listing
[ "$(head -4 "$d/tree.pp" | cut -f1 | tr '\n' ' ')" = "a1 a2 b2 rec " ] ||
	fail "tree: pprof top order: $(head -4 "$d/tree.pp" | cut -f1 | tr '\n' ' ')"
pprof -top -cum -noinlines -nodefraction=0 -nodecount=100000 "$d/tree.pb.gz" | top_tsv >"$d/tree.cum"
prep_children "$d/tree.data" >"$d/tree.children"
same_pcts "tree cum" "$d/tree.children" "$d/tree.cum" 5
pprof -top -noinlines -sample_index=samples -nodefraction=0 -nodecount=100000 "$d/tree.pb.gz" |
	top_tsv >"$d/tree.cnt"
same_counts "tree" "$d/tree.self" "$d/tree.cnt"
# call chains of the design (leaf first), through the inlined burn()
pprof -traces "$d/tree.pb.gz" >"$d/tree.traces"
for chain in "a1 a main" "a2 a main" "b2 b1 b main" "rec rec rec rec rec c main" "burn a1 a main"; do
	has_chain "$d/tree.traces" "$chain" || fail "tree: no trace with '$chain'"
done
grep -q '^ *comm: *tree$' "$d/tree.traces" || fail "tree: no comm label in -traces"
# the cpu labels (cpu 0 included) share the time as prep --sort cpu does
pprof -tags "$d/tree.pb.gz" | awk '/^ *[a-z]+: Total/ { on = $1 == "cpu:"; next }
	on && NF { gsub(/[(%):]/, " "); print $NF "\t" $(NF - 1) }' | sort >"$d/tree.tags"
$PREP -q -i "$d/tree.data" --sort cpu --no-children -g none 2>/dev/null |
	awk '$1 ~ /%$/ { sub(/%/, "", $1); print $2 + 0 "\t" $1 }' | sort >"$d/tree.cpus"
[ -s "$d/tree.cpus" ] && awk -F'\t' 'FNR == NR { want[$1] = $2; next }
	{ got[$1] = $2 } END { for (c in want) { x = got[c] - want[c]
		if (!(c in got) || x > 0.01 || x < -0.01) exit 1 } }' "$d/tree.cpus" "$d/tree.tags" ||
	fail "tree: cpu labels $(tr '\n' ' ' <"$d/tree.tags"), prep --sort cpu $(tr '\n' ' ' <"$d/tree.cpus")"
grep -qE '^ *pid: *[0-9]+$' "$d/tree.traces" || fail "tree: no pid label in -traces"
# -raw: types, period, and the mapping of the program with its build id
pprof -raw "$d/tree.pb.gz" >"$d/tree.raw"
grep -q '^samples/count cpu-clock/nanoseconds\[dflt\]' "$d/tree.raw" || fail "tree: sample types"
grep -q '^PeriodType: cpu-clock nanoseconds$' "$d/tree.raw" || fail "tree: period type"
grep -q '^Period: 1001001$' "$d/tree.raw" || fail "tree: period: $(grep '^Period:' "$d/tree.raw")"
bid=$(readelf -n "$P/tree" 2>/dev/null | awk '/Build ID/ { print $3 }')
# (lines for all its locations; where a chain reached code without any,
# as the program's _start through libc's frame, only its functions, and
# such a location is there)
if [ -n "$bid" ]; then
	m1="^1: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ [^ ]*/tree $bid \[FN\]"
	grep -qE "$m1\[FL\]\[LN\]\[IN\]$" "$d/tree.raw" ||
		{ grep -qE "$m1$" "$d/tree.raw" && grep -qE '^ +[0-9]+: 0x[0-9a-f]+ M=1 [^ ]+ :0 s=' "$d/tree.raw"; } ||
		fail "tree: mapping 1 with build id $bid: $(grep -A1 '^Mappings' "$d/tree.raw" | tail -1) (its locations without a line: $(grep -E ' M=1 ' "$d/tree.raw" | grep -vE ':[1-9][0-9]* s=' | head -3 | tr -s ' \n' ' '))"
else
	fail "tree: no build id in $P/tree"
fi
# a location in a1: burn's line innermost, then a1 at the line that calls it
l=$(grep -n 'burn(x, 34)' tests/programs/tree.c | head -1 | cut -d: -f1)
awk -v l="/tree.c:$l s=0" '/ M=1 burn [^ ]*\/work\.h:[0-9]+ s=0$/ { inl = 1; next }
	inl && $1 == "a1" && substr($0, length($0) - length(l) + 1) == l { found = 1 }
	{ inl = 0 } END { exit !found }' "$d/tree.raw" ||
	fail "tree: no location with burn inlined into a1 at tree.c:$l"
# the same bytes every time, and through standard output
$PREP export -q --pprof -i "$d/tree.data" -o - >"$d/again.pb.gz" 2>"$d/e" ||
	fail "-o -: exit $?: $(cat "$d/e")"
cmp -s "$d/tree.pb.gz" "$d/again.pb.gz" || fail "tree: the export is not deterministic"
[ -s "$d/e" ] && fail "-q: printed $(cat "$d/e")"

# ---- --call-graph dwarf ------------------------------------------------------
export_pb dwarf
pprof -top -noinlines -nodefraction=0 -nodecount=100000 "$d/dwarf.pb.gz" | top_tsv >"$d/dwarf.pp"
prep_self "$d/dwarf.data" >"$d/dwarf.self"
same_pcts "dwarf flat" "$d/dwarf.self" "$d/dwarf.pp" 3
pprof -top -cum -noinlines -nodefraction=0 -nodecount=100000 "$d/dwarf.pb.gz" | top_tsv >"$d/dwarf.cum"
prep_children "$d/dwarf.data" >"$d/dwarf.children"
same_pcts "dwarf cum" "$d/dwarf.children" "$d/dwarf.cum" 5
pprof -traces "$d/dwarf.pb.gz" >"$d/dwarf.traces"
for chain in "b2 b1 b main" "rec rec rec rec rec c main"; do
	has_chain "$d/dwarf.traces" "$chain" || fail "dwarf: no trace with '$chain'"
done

# ---- inl: inline frames, source lines ---------------------------------------
export_pb inl
line_of() { grep -n "MARK:$1\b" tests/programs/inl.c | head -1 | cut -d: -f1; }
# by function, inline frames count: the inlined functions hold the time
pprof -top -nodefraction=0 "$d/inl.pb.gz" | top_tsv >"$d/inl.pp"
for f in hot_inl warm_inl cool_inl; do
	want=$(grep "^| inl | srcline | MARK:$f |" "$PROFILES" | awk -F'|' '{ gsub(/ /, "", $5); print $5 }')
	got=$(awk -F'\t' -v n="$f (inline)" '$1 == n { print $3 }' "$d/inl.pp")
	[ -n "$got" ] || { fail "inl: $f (inline) not in pprof -top"; continue; }
	awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(d <= 3 && d >= -3) }' ||
		fail "inl: $f: $got%, designed $want%"
done
# without inline frames, the one real function, as prep --sort sym says
pprof -top -noinlines -nodefraction=0 "$d/inl.pb.gz" | top_tsv >"$d/inl.noinl"
prep_self "$d/inl.data" >"$d/inl.self"
same_pcts "inl flat (-noinlines)" "$d/inl.self" "$d/inl.noinl" 3
# by line: the marked lines, as prep --sort srcline
pprof -top -lines -nodefraction=0 "$d/inl.pb.gz" | top_tsv >"$d/inl.lines"
$PREP -q -i "$d/inl.data" --sort srcline --no-children -g none >"$d/inl.src" 2>/dev/null
for f in hot_inl warm_inl cool_inl; do
	l=$(line_of "$f")
	got=$(awk -F'\t' -v n="$f" -v l="/inl.c:$l (inline)" \
		'index($1, n " ") == 1 && substr($1, length($1) - length(l) + 1) == l { print $3 }' "$d/inl.lines")
	want=$(awk -v k="inl.c:$l" '$NF == k { sub(/%/, "", $1); print $1 }' "$d/inl.src")
	[ -n "$got" ] && [ -n "$want" ] &&
		awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(d <= 0.01 && d >= -0.01) }' ||
		fail "inl: line $l of $f: pprof '$got', prep '$want'"
done
# the inline chains, innermost first, up to main
pprof -traces "$d/inl.pb.gz" >"$d/inl.traces"
has_chain "$d/inl.traces" "cool_inl warm_inl inl_work main" || fail "inl: no trace cool_inl > warm_inl > inl_work > main"
has_chain "$d/inl.traces" "hot_inl inl_work main" || fail "inl: no trace hot_inl > inl_work > main"
# -list reads the source and puts the samples on the marked line
pprof -list '^hot_inl$' "$d/inl.pb.gz" >"$d/inl.list"
grep -qE "^ +[0-9.]+m?s +[0-9.]+m?s +$(line_of hot_inl):.*MARK:hot_inl" "$d/inl.list" ||
	fail "inl: -list hot_inl: $(head -12 "$d/inl.list")"

# ---- several events: the first, or --event ------------------------------------
record two -g -e cpu-clock,task-clock -- $P/tree 100
$PREP export --pprof -i "$d/two.data" -o "$d/two.pb.gz" 2>"$d/e" || fail "two events: exit $?"
grep -q "has 2 events, exported 'cpu-clock' (choose one with --event)" "$d/e" ||
	fail "two events: note: $(cat "$d/e")"
$PREP export -q --pprof --event task-clock -i "$d/two.data" -o "$d/two.pb.gz" 2>"$d/e" ||
	fail "--event task-clock: exit $?: $(cat "$d/e")"
pprof -raw "$d/two.pb.gz" | grep -q '^samples/count task-clock/nanoseconds\[dflt\]' ||
	fail "--event task-clock: sample types"

# ---- errors --------------------------------------------------------------------
$PREP export -i "$d/tree.data" -o "$d/x.pb.gz" >/dev/null 2>"$d/e"; rc=$?
[ $rc -eq 129 ] && grep -q "which format? --speedscope or --pprof" "$d/e" || fail "no format: rc $rc, $(head -1 "$d/e")"
$PREP export --pprof --event nosuch -i "$d/tree.data" -o "$d/x.pb.gz" >/dev/null 2>"$d/e"; rc=$?
[ $rc -eq 1 ] && grep -qF -- "--event 'nosuch': no such event in $d/tree.data (it has: cpu-clock)" "$d/e" ||
	fail "unknown event: rc $rc, $(cat "$d/e")"
[ -e "$d/x.pb.gz" ] && fail "unknown event: an output file was written"
$PREP export --pprof -i "$d/none.data" -o "$d/x.pb.gz" >/dev/null 2>"$d/e"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$d/e")" -eq 1 ] || fail "missing input: rc $rc, $(cat "$d/e")"
$PREP export --pprof -i "$d/tree.data" -o "$d/no/such/dir/x.pb.gz" >/dev/null 2>"$d/e"; rc=$?
[ $rc -eq 1 ] && grep -q "cannot open '$d/no/such/dir/x.pb.gz'" "$d/e" ||
	fail "unwritable output: rc $rc, $(cat "$d/e")"
$PREP export --pprof --comm nosuch -i "$d/tree.data" -o "$d/x.pb.gz" >/dev/null 2>"$d/e"; rc=$?
[ $rc -eq 1 ] && grep -q "no samples of event 'cpu-clock' (all filtered out)" "$d/e" ||
	fail "everything filtered: rc $rc, $(cat "$d/e")"
if [ -w /dev/full ]; then
	$PREP export -q --pprof -i "$d/tree.data" -o /dev/full >/dev/null 2>"$d/e"; rc=$?
	[ $rc -eq 1 ] && grep -q "cannot write '/dev/full'" "$d/e" || fail "full disk: rc $rc, $(cat "$d/e")"
fi

[ -s "$d/pprof.err" ] && grep -i 'error\|fail\|unrecognized' "$d/pprof.err" | head -5
[ $failures -eq 0 ] && echo "prep export --pprof checks passed"
exit $((failures > 0))
