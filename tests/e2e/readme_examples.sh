#!/usr/bin/env bash
# Every prec/prep command the README shows in its code blocks runs here, in
# the order written, and does what the README says of it: a line that fails
# or leaves no result fails the test. The only changes are sizes: ./app is
# a test program of known profile (tests/programs/tree, shortened), 1234 a
# running process, and long durations shorter.
set -u
B=${BUILD:-build}
TOP=$(pwd)
BIN=$TOP
[ "$B" = build ] || BIN=$TOP/$B
P=$TOP/$B/tests/programs
d=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$d"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

[ -r /proc/sys/kernel/perf_event_paranoid ] || { echo "no perf events on this kernel"; exit 77; }
if [ "$(id -u)" -ne 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 0 ]; then
	echo "the README's -a examples need root or perf_event_paranoid <= 0"; exit 77
fi

mkdir -p "$d/bin"
ln -s "$BIN/prec" "$d/bin/prec"
ln -s "$BIN/prep" "$d/bin/prep"
printf '#!/bin/sh\nexec %s/tree 150 "$@"\n' "$P" >"$d/app"
chmod +x "$d/app"
$P/spin 600000 >/dev/null &     # long enough for a slow (ASan) run; the EXIT trap kills it
spid=$!

# the README's code blocks, prec and prep lines, comments removed
awk '/^```/ { inb = !inb; next } inb' README.md | sed 's/[[:space:]]\{2,\}#.*//' |
	grep -E '^(prec|prep) ' >"$d/examples"
[ "$(wc -l <"$d/examples")" -ge 15 ] || fail "only $(wc -l <"$d/examples") examples found in README.md"

# what each kind of example must leave behind (beyond exit status 0)
check() { # $1 = the line as run, $2 = its stdout, $3 = its stderr
	case $1 in
	prec\ top*--record*) grep -q 'PerfTop:' top.log && "$BIN/prep" -i top.data --stdio 2>/dev/null |
			grep -q 'Overhead' || echo "no tables in top.log or no report of top.data" ;;
	prec\ top*) grep -q 'PerfTop:' "$2" || echo "no table printed" ;;
	prec\ stat\ record*) [ -s app.stat ] && grep -q 'task-clock' "$2" || echo "no counts reported" ;;
	prec\ stat*) grep -q 'Performance counter stats\|counts' "$3" "$2" || echo "no counts printed" ;;
	prec\ list*) [ -s "$2" ] || echo "nothing listed" ;;
	*"-p $spid"*) "$BIN/prep" -D -i prec.data 2>/dev/null | grep -q " SAMPLE .* pid $spid " ||
			echo "no samples of process $spid" ;;
	prec\ -a*) "$BIN/prep" -D -i prec.data 2>/dev/null | grep -q " SAMPLE .* pid $spid " ||
			echo "no samples of another process ($spid)" ;;
	*sched:sched_switch*) "$BIN/prep" -i prec.data --stdio 2>/dev/null |
			grep -q "of event 'sched:sched_switch'" || echo "no sched_switch samples" ;;
	*"-- ./app"*) "$BIN/prep" -i prec.data --stdio --sort sym 2>/dev/null | grep -q 'b1\|c1\|a\b' ||
			echo "the report does not show the program's functions" ;;
	prep\ --sort*|prep\ -i*|prep\ report*) grep -q 'Overhead\|Children' "$2" || echo "no report printed" ;;
	prep\ --dump-raw*) grep -q ' SAMPLE ' "$2" || echo "no records dumped" ;;
	prep\ --folded*) grep -q ';' app.folded || echo "no folded stacks" ;;
	*"-o "*) f=$(sed 's/.*-o \([^ ]*\).*/\1/' <<<"$1"); [ -s "$f" ] || echo "no $f written" ;;
	esac
}

cd "$d" || exit 1
export PATH="$d/bin:$PATH"
# a file recorded without the embedded data, for `prep archive -i old.data`
prec -q --no-embed -o old.data -- ./app >/dev/null 2>&1 || fail "setup: old.data"
n=0
while IFS= read -r line; do
	run=$(sed -e "s/1234/$spid/g" -e 's/sleep 10/sleep 0.5/' -e 's/sleep 2/sleep 0.5/' \
		  -e 's/--duration 5/--duration 0.5/' -e 's/-I 1000 --interval-count 5/-I 200 --interval-count 2/' \
		  -e 's/--duration 60/--duration 1.5/' <<<"$line")
	# prec top runs until q or Ctrl-C: here a second and a half
	[[ $run == "prec top"* && $run != *--duration* ]] && run="prec top --duration 1.5${run#prec top}"
	n=$((n + 1))
	bash -c "$run" >"$d/out.$n" 2>"$d/err.$n" </dev/null
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "README: '$line' exited $rc: $(tail -2 "$d/err.$n")"
		continue
	fi
	why=$(check "$run" "$d/out.$n" "$d/err.$n")
	[ -z "$why" ] || fail "README: '$line': $why"
done <"$d/examples"

[ $failures -eq 0 ] || { echo "$failures failures"; exit 1; }
echo "all $n README examples ran and did what the README says"
