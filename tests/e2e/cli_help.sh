#!/usr/bin/env bash
# A CLI that explains itself: prep, prep help and prep --help list every
# command (one line each) and then the report's options; each command's
# --help lists its options (export: --pprof's too); prec --help names prec
# record, prec top, prec stat and prec list; prep stat alone points to prep stat report.
. tests/e2e/lib/common.sh
trap 'rm -rf "$d"' EXIT
cd "$d" || exit 1

COMMANDS="report script export flamegraph annotate archive dump stat help"

$PREP >bare 2>&1; rc=$?
[ $rc -eq 1 ] || fail "prep alone: exit $rc, expected 1 (as git and perf)"
$PREP help >help 2>&1 || fail "prep help: exit $?"
$PREP --help >dashhelp 2>&1 || fail "prep --help: exit $?"
$PREP -h >h 2>&1 || fail "prep -h: exit $?"
cmp -s help dashhelp && cmp -s help bare && cmp -s help h || fail "prep, prep help, prep --help and prep -h differ"
for c in $COMMANDS; do
	[ "$(grep -cE "^   $c +[a-z']" help)" -eq 1 ] || fail "prep help: no line for '$c'"
done
listed=$(sed -n '/^The prep commands are:/,/^$/p' help | grep -cE '^   [a-z]')
[ "$listed" -eq "$(echo $COMMANDS | wc -w)" ] || fail "prep help lists $listed commands"
# then the report's options, the same as prep report --help
$PREP report --help >report_help || fail "prep report --help: exit $?"
tail -n "$(wc -l <report_help)" help | cmp -s - report_help || fail "prep help does not end with the report's options"
for o in --sort --dump-raw --version --help; do
	grep -qE -- "^ +(-., )?$o( |$)" help || fail "prep --help does not list $o"
done

# every command's help, also as prep help COMMAND
for c in report script export flamegraph annotate archive dump; do
	$PREP $c --help >c_help 2>&1 || fail "prep $c --help: exit $?"
	head -1 c_help | grep -q "^usage: prep" || fail "prep $c --help: no usage line"
	$PREP help $c >c_help2 2>&1 || fail "prep help $c: exit $?"
	cmp -s c_help c_help2 || fail "prep help $c differs from prep $c --help"
done
$PREP help stat | head -1 | grep -q "^usage: prep stat report" || fail "prep help stat is not prep stat report's help"
$PREP help nosuch >/dev/null 2>err && fail "prep help nosuch: exit 0"
grep -q "'nosuch' is not a prep command" err || fail "prep help nosuch: $(cat err)"

# prep export --help: the speedscope and the pprof options
$PREP export --help >export_help || fail "prep export --help: exit $?"
for o in --speedscope --pprof --compression-level --event --max-stack; do
	grep -qE -- "^ +(-., )?$o" export_help || fail "prep export --help does not list $o"
done
grep -qE -- '^ +-z, --compression-level' export_help || fail "prep export --help: no -z"

# prep stat alone
$PREP stat >/dev/null 2>err; rc=$?
[ $rc -ne 0 ] || fail "prep stat: exit 0"
grep -q "use 'prep stat report'" err || fail "prep stat: $(cat err)"

# prec --help names its commands
$PREC --help >prec_help || fail "prec --help: exit $?"
for c in record top stat list; do
	grep -q "prec $c" prec_help || fail "prec --help does not name prec $c"
done
$PREC stat --help | head -1 | grep -q "^usage: prec stat" || fail "prec stat --help"
$PREC list --help | head -1 | grep -q "^usage: prec list" || fail "prec list --help"
$PREC top --help | head -1 | grep -q "^usage: prec top" || fail "prec top --help"

[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
echo ok
