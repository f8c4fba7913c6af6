#!/usr/bin/env bash
# prep export FORMAT, the one command behind the exporter table: on a small
# recording of tests/programs/tree, each format writes byte for byte what
# its older spelling writes (prep --folded, prep export --pprof, prep export
# --speedscope, prep flamegraph, prep flamegraph --diff; difffolded, which
# has none, the folded lines twice for a recording against itself), with
# the same messages, to the same
# default files; an unknown or missing format is one line that lists the
# formats (exit 129), and prep export --help lists every format.
. tests/e2e/lib/common.sh
trap 'rm -rf "$d"' EXIT
need_perf_events 2
cd "$d" || exit 1

$PREC -q -F 999 -g -o tree.data -- "$P/tree" 100 >/dev/null 2>rec.err ||
	{ fail "prec: $(cat rec.err)"; exit 1; }

# same NAME "OLD ARGS" "NEW ARGS": stdout, stderr and exit status agree
same() {
	eval "$PREP $2" >"$1.old" 2>"$1.old.err"; local a=$?
	eval "$PREP $3" >"$1.new" 2>"$1.new.err"; local b=$?
	[ $a -eq $b ] || fail "$1: exit $a (prep $2), $b (prep $3)"
	cmp -s "$1.old" "$1.new" || fail "$1: prep $3 writes other bytes than prep $2"
	cmp -s "$1.old.err" "$1.new.err" ||
		fail "$1: messages differ: '$(head -1 "$1.old.err")' / '$(head -1 "$1.new.err")'"
	[ -s "$1.old" ] || [ "${4:-}" = empty ] || fail "$1: prep $2 wrote nothing"
}

# ---- each format against its older spelling -----------------------------------
same folded "-i tree.data --folded" "export folded -i tree.data"
grep -q '^tree;.*main' folded.new || fail "folded: no stack of tree through main: $(head -2 folded.new)"
same folded_with "-i tree.data --folded=period,tid,kernel,inline" \
	"export folded -i tree.data --with period,tid,kernel,inline"
same folded_opts "-i tree.data --folded --no-inline --max-stack 4 --comm tree" \
	"export folded --no-inline --max-stack 4 --comm tree -i tree.data -o -"
same folded_none "-i tree.data --folded --comm nosuch" "export folded -i tree.data --comm nosuch" empty
same pprof "export --pprof -i tree.data -o -" "export pprof -i tree.data -o -"
same pprof_z "export -q --pprof -z 0 -e cpu-clock -i tree.data -o -" \
	"export pprof -q -z 0 -e cpu-clock -i tree.data -o -"
same speedscope "export --speedscope -i tree.data -o -" "export speedscope -i tree.data -o -"
same speedscope_opts "export --speedscope --no-inline --event cpu-clock -i tree.data -o -" \
	"export speedscope --no-inline --event cpu-clock -i tree.data -o -"
same flamegraph "flamegraph -i tree.data -o -" "export flamegraph -i tree.data -o -"
same flamegraph_svg "flamegraph --svg --width 400 --title T --no-comm -i tree.data -o -" \
	"export flamegraph --svg --width 400 --title T --no-comm -i tree.data -o -"
same flamegraph_diff "flamegraph --diff tree.data tree.data -o -" "export flamegraph --base tree.data --new tree.data -o -"
# difffolded (no older spelling): a recording against itself, both columns equal
$PREP export difffolded tree.data tree.data >dd 2>dd.err || fail "difffolded: exit $?: $(cat dd.err)"
$PREP export folded -i tree.data | awk '{ n = $NF; $NF = n " " n; print }' | cmp -s - dd ||
	fail "difffolded tree.data tree.data: not the folded lines with their count twice: $(head -2 dd)"

# the same default output files, in a fresh folder each
defaults() {   # "OLD ARGS" "NEW ARGS"
	rm -rf o n && mkdir o n
	(cd o && $PREP $1 -q -i ../tree.data) >/dev/null 2>&1 || fail "prep $1: exit $?"
	(cd n && $PREP $2 -q -i ../tree.data) >/dev/null 2>&1 || fail "prep $2: exit $?"
	[ -n "$(ls o)" ] && [ "$(ls o)" = "$(ls n)" ] || fail "prep $2 wrote '$(ls n)', prep $1 '$(ls o)'"
	for f in o/*; do
		cmp -s "$f" "n/${f#o/}" || fail "prep $2: ${f#o/} differs"
	done
}
defaults "export --speedscope" "export speedscope"
defaults "export --pprof" "export pprof"
defaults "flamegraph" "export flamegraph"
defaults "flamegraph --svg" "export flamegraph --svg"

# ---- errors and help ------------------------------------------------------------
formats="folded, pprof, speedscope, flamegraph or difffolded"
$PREP export nosuch -i tree.data >out 2>err; rc=$?
[ $rc -eq 129 ] && [ ! -s out ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "unknown format 'nosuch'.*$formats" err ||
	fail "unknown format: exit $rc, $(cat err)"
$PREP export >out 2>err; rc=$?
[ $rc -eq 129 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "which format?.*$formats" err ||
	fail "no format: exit $rc, $(cat err)"
$PREP export folded --with bogus -i tree.data >/dev/null 2>err; rc=$?
[ $rc -eq 129 ] && grep -q "^prep: --with: 'bogus' is not period" err || fail "--with bogus: exit $rc, $(cat err)"
$PREP export speedscope --pprof -i tree.data >/dev/null 2>err; rc=$?
[ $rc -eq 129 ] && grep -q "unknown option '--pprof'" err || fail "speedscope --pprof: exit $rc, $(head -1 err)"
$PREP export --help >help || fail "prep export --help: exit $?"
for f in folded pprof speedscope flamegraph difffolded; do
	grep -qE "^   $f +[a-z]" help || fail "prep export --help: no line for $f"
	grep -q "^usage: prep export $f " help || fail "prep export --help: no options of $f"
	$PREP export $f --help >fhelp || fail "prep export $f --help: exit $?"
	head -1 fhelp | grep -q "^usage: prep export $f " || fail "prep export $f --help: $(head -1 fhelp)"
done
# the usage (a line, and one for --diff) names the command; the options agree
$PREP flamegraph --help | tail -n +3 >a
$PREP export flamegraph --help | tail -n +3 >b
cmp -s a b || fail "prep export flamegraph --help lists other options than prep flamegraph --help"

[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
echo "prep export FORMAT: every format as its older spelling"
