#!/usr/bin/env bash
# Every option that takes a value, of every command, given a value that
# cannot be right: one line on stderr that names the option and the value,
# a non-zero exit status and no crash. The options come from each command's
# --help (the option tables themselves), so an option added without a row
# here fails the test.
. tests/e2e/lib/common.sh
trap 'rm -rf "$d"' EXIT

cp tests/fixtures/tree.data "$d/prec.data"
FIX=$PWD/tests/fixtures/tree.data

# command | option (as --help names it: the long name, else -X) | arguments | ERE the
# first line of stderr matches. An arguments field of "*" says that no value of the
# option can be wrong (the regex field gives the reason); a regex starting with
# "exit0:" is perf's answer that prints the message and goes on.
ROWS=$(cat <<'EOF'
prep | --input | -i /nonexistent | cannot open '/nonexistent'
prep | --sort | --sort bogus | --sort: unknown sort key 'bogus'
prep | --fields | -F bogus | --fields: unknown sort key 'bogus'
prep | --call-graph | -g bogus | --call-graph: 'bogus' is not graph
prep | --percent-limit | --percent-limit x | --percent-limit 'x' is not a percentage
prep | --percent-limit | --percent-limit 101 | --percent-limit '101' is not a percentage
prep | --percentage | --percentage x | --percentage must be relative or absolute, not 'x'
prep | --max-stack | --max-stack -1 | --max-stack: -1 is not in 1\.\.
prep | --max-stack | --max-stack x | --max-stack: 'x' is not a number
prep | --parent | --parent [ | --parent '\[': invalid regex
prep | --folded | --folded=bogus | --folded: 'bogus' is not
prep | --event | --event nosuch | --event: no event 'nosuch'
prep | --symfs | --symfs /nonexistent | --symfs '/nonexistent': not a folder
prep | --kallsyms | --kallsyms /nonexistent | --kallsyms '/nonexistent': invalid file
prep | --comm | --comm a,,b | --comm 'a,,b': empty name
prep | --pid | --pid abc | --pid 'abc': problems parsing pid list
prep | --pid | --pid 1, | --pid '1,': problems parsing pid list
prep | --tid | --tid abc | --tid 'abc': problems parsing tid list
prep | --dso | --dso , | --dso ',': empty name
prep | --cgroup | --cgroup a,,b | --cgroup 'a,,b': empty name
prep | --symbols | -S '' | --symbols '': empty name
prep | --cpu | --cpu abc | --cpu 'abc': not a CPU list
prep | --cpu | --cpu 99 | --cpu '99': CPU 99 is not in the recording
prep | --cpu | --cpu 1-0 | --cpu '1-0': not a CPU list
prep | --time | --time 5,1 | --time '5,1': invalid time string
prep | --time | --time abc | --time 'abc': expected START,END
prep | --parallelism | --parallelism 0 | --parallelism '0': level 0 is invalid \(levels are 1\.\.4096\)
prep | --parallelism | --parallelism 2-1 | --parallelism '2-1': not a list of levels like 1,2-4
prep | --parallelism | --parallelism 1, | --parallelism '1,': not a list of levels
prep script | --input | -i /nonexistent | cannot open '/nonexistent'
prep script | --fields | -F bogus | -F: unknown field 'bogus'
prep script | --symfs | --symfs /nonexistent | --symfs '/nonexistent': not a folder
prep script | --kallsyms | --kallsyms /nonexistent | --kallsyms '/nonexistent': invalid file
prep script | --comm | --comm '' | --comm '': empty name
prep script | --pid | --pid abc | --pid 'abc': problems parsing pid list
prep script | --tid | --tid -1 | --tid '-1': problems parsing tid list
prep script | --cpu | -C 99 | --cpu '99': CPU 99 is not in the recording
prep script | --time | --time 5,1 | --time '5,1': invalid time string
prep export | --input | --speedscope -i /nonexistent | cannot open '/nonexistent'
prep export | --output | --speedscope -o /nonexistent/x | cannot create '/nonexistent/x'
prep export | --event | --speedscope --event nosuch | --event: no event 'nosuch'
prep export | --max-stack | --speedscope --max-stack 0 | --max-stack: 0 is not in
prep export | --symfs | --speedscope --symfs /nonexistent | --symfs '/nonexistent': not a folder
prep export | --kallsyms | --speedscope --kallsyms /nonexistent | --kallsyms '/nonexistent': invalid file
prep export | --comm | --speedscope --comm , | --comm ',': empty name
prep export | --pid | --speedscope --pid x | --pid 'x': problems parsing pid list
prep export | --tid | --speedscope --tid x | --tid 'x': problems parsing tid list
prep export | --dso | --speedscope --dso '' | --dso '': empty name
prep export | --cgroup | --speedscope --cgroup , | --cgroup ',': empty name
prep export | --symbols | --speedscope -S '' | --symbols '': empty name
prep export | --cpu | --speedscope -C x | --cpu 'x': not a CPU list
prep export | --time | --speedscope --time 5,1 | --time '5,1': invalid time string
prep export | --output | --pprof -o /nonexistent/x | /nonexistent/x
prep export | --input | --pprof -i /nonexistent | cannot open '/nonexistent'
prep export | --event | --pprof -e nosuch | --event 'nosuch': no such event
prep export | --compression-level | --pprof -z 10 | --compression-level: 10 is not in 0\.\.9
prep export | --symfs | --pprof --symfs /nonexistent | --symfs '/nonexistent': not a folder
prep export | --kallsyms | --pprof --kallsyms /nonexistent | --kallsyms '/nonexistent': invalid file
prep export | --pid | --pprof --pid x | --pid 'x': problems parsing pid list
prep export | --cpu | --pprof -C 99 | --cpu '99': CPU 99 is not in the recording
prep export | --time | --pprof --time x | --time 'x': expected START,END
prep export | --base | difffolded --base , prec.data | --base ',': an empty file name in the list
prep export | --new | difffolded --new 'prec.data,' | --new 'prec.data,': an empty file name in the list
prep export | --alpha | flamegraph --diff --alpha 0 prec.data prec.data | --alpha '0': not a probability in \(0, 1\]
prep export | --min-share | flamegraph --min-share 1 -i prec.data | --min-share '1': only with --diff
prep export | --title | * | any text is a title
prep export | --width | flamegraph --width 5 | --width: 5 is not in 200\.\.
prep export | --with | folded --with bogus | --with: 'bogus' is not period
prep flamegraph | --title | * | any text is a title
prep flamegraph | --width | --width 5 | --width: 5 is not in 200\.\.
prep flamegraph | --input | -i /nonexistent | cannot open '/nonexistent'
prep flamegraph | --output | -o /nonexistent/x | cannot create '/nonexistent/x'
prep flamegraph | --event | --event nosuch | --event: no event 'nosuch'
prep flamegraph | --max-stack | --max-stack x | --max-stack: 'x' is not a number
prep flamegraph | --symfs | --symfs /nonexistent | --symfs '/nonexistent': not a folder
prep flamegraph | --kallsyms | --kallsyms /nonexistent | --kallsyms '/nonexistent': invalid file
prep flamegraph | --comm | --comm '' | --comm '': empty name
prep flamegraph | --pid | --pid x | --pid 'x': problems parsing pid list
prep flamegraph | --tid | --tid x | --tid 'x': problems parsing tid list
prep flamegraph | --dso | --dso '' | --dso '': empty name
prep flamegraph | --cgroup | --cgroup '' | --cgroup '': empty name
prep flamegraph | --symbols | -S , | --symbols ',': empty name
prep flamegraph | --cpu | -C 5-2 | --cpu '5-2': not a CPU list
prep flamegraph | --time | --time 50%-10% | --time '50%-10%'
prep flamegraph | --base | --base /nonexistent | cannot open '/nonexistent'
prep flamegraph | --new | --new ,prec.data | --new ',prec.data': an empty file name in the list
prep flamegraph | --alpha | --diff --alpha x | --alpha 'x': not a probability in \(0, 1\]
prep flamegraph | --min-share | --diff --min-share 101 | --min-share '101': not a percentage \(0 to 100\)
prep annotate | --input | -i /nonexistent | cannot open '/nonexistent'
prep annotate | --symbol | * | any text is a symbol name
prep annotate | --dsos | -d , | --dso ',': empty name
prep annotate | --percent-type | --percent-type bogus | invalid --percent-type 'bogus'
prep annotate | --disassembler-style | -M bogus | invalid -M/--disassembler-style 'bogus'
prep annotate | --percent-limit | --percent-limit x | invalid --percent-limit 'x'
prep annotate | --stdio-color | --stdio-color bogus | invalid --stdio-color 'bogus'
prep annotate | --prefix | * | any text is a folder to look in
prep annotate | --prefix-strip | --prefix-strip x | --prefix-strip: 'x' is not a number
prep annotate | --symfs | --symfs /nonexistent | --symfs '/nonexistent': not a folder
prep annotate | --kallsyms | --kallsyms /nonexistent | --kallsyms '/nonexistent': invalid file
prep annotate | --comm | --comm '' | --comm '': empty name
prep annotate | --pid | --pid abc | --pid 'abc': problems parsing pid list
prep annotate | --tid | --tid x | --tid 'x': problems parsing tid list
prep annotate | --dso | --dso '' | --dso '': empty name
prep annotate | --cgroup | --cgroup , | --cgroup ',': empty name
prep annotate | --symbols | -S '' | --symbols '': empty name
prep annotate | --cpu | -C 99 | --cpu '99': CPU 99 is not in the recording
prep annotate | --time | --time 5,1 | --time '5,1': invalid time string
prep diff | --compute | -c bogus | --compute 'bogus': not a computation method
prep diff | --compute | -c wdiff:1 | --compute 'wdiff:1': wrong weights
prep diff | --compute | -c cycles | --compute 'cycles': needs branch stacks
prep diff | --sort | -s bogus | --sort: unknown sort key 'bogus'
prep diff | --order | -o x | --order 'x': not a column number
prep diff | --order | -o 2 prec.data prec.data | --order 2: there is only 1 new file
prep diff | --percentage | --percentage x | --percentage must be relative or absolute, not 'x'
prep diff | --percent-limit | --percent-limit x | --percent-limit 'x' is not a percentage
prep diff | --field-separator | -t '' | --field-separator '': the separator is empty
prep diff | --base | --base a,,b prec.data | --base 'a,,b': an empty file name in the list
prep diff | --base | --base /nonexistent prec.data | cannot open '/nonexistent'
prep diff | --new | --new , | --new ',': an empty file name in the list
prep diff | --alpha | --alpha 2 | --alpha '2': not a level between 0 and 1
prep diff | --correction | --correction bogus | --correction 'bogus': not holm, bh or none
prep diff | --comms | --comms a,,b | --comms 'a,,b': empty name
prep diff | --dsos | -d , | --dsos ',': empty name
prep diff | --symfs | --symfs /nonexistent | --symfs '/nonexistent': not a folder
prep diff | --kallsyms | --kallsyms /nonexistent | --kallsyms '/nonexistent': invalid file
prep diff | --comm | --comm '' | --comm '': empty name
prep diff | --pid | --pid abc | --pid 'abc': problems parsing pid list
prep diff | --tid | --tid x | --tid 'x': problems parsing tid list
prep diff | --dso | --dso , | --dso ',': empty name
prep diff | --cgroup | --cgroup , | --cgroup ',': empty name
prep diff | --symbols | -S '' | --symbols '': empty name
prep diff | --cpu | -C abc | --cpu 'abc': not a CPU list
prep diff | --cpu | -C 99 prec.data prec.data | --cpu '99': CPU 99 is not in the recording
prep diff | --time | --time 5,1 | --time '5,1': invalid time string
prep archive | --input | -i /nonexistent | cannot open '/nonexistent'
prep archive | --output | -o other.data | -o 'other.data': only for a perf.data input
prep archive | --symfs | --symfs /nonexistent | --symfs '/nonexistent': not a folder
prep dump | --input | -i /nonexistent | cannot open '/nonexistent'
prep stat report | --input | -i /nonexistent | cannot open '/nonexistent'
prep stat report | --field-separator | -x '' | -x '': the separator is empty
prep stat report | --per-cache | --per-cache=X1 | --per-cache 'X1': not a cache level
prec | --event | -e nosuch -- true | event 'nosuch': unknown event name
prec | --filter | --filter x -- true | --filter 'x' must follow an -e of tracepoint events
prec | --freq | -F abc -- true | -F abc: not a frequency
prec | --count | -c 0 -- true | --count: 0 is not in 1\.\.
prec | --call-graph | --call-graph bogus -- true | --call-graph bogus: expected fp, dwarf
prec | --pid | -p abc | -p 'abc': problems parsing pid list
prec | --tid | -t abc | -t 'abc': problems parsing tid list
prec | --cpu | -C abc -- true | -C 'abc': not a CPU list
prec | --cpu | -C 99 -- true | -C 99: CPU 99 does not exist
prec | --duration | --duration abc -- true | --duration abc: expected seconds
prec | --output | -e cpu-clock -o /nonexistent/x -- true | cannot create '/nonexistent/x'
prec | --mmap-pages | -m 3 -- true | -m 3: the number of mmap data pages must be a power of two
prec | --cgroup | -a -e cpu-clock -G nosuch-cgroup --duration 0.1 | -G nosuch-cgroup: (no access to cgroup .*/nosuch-cgroup|no cgroup file system)
prec | --compression-level | --compression-level=13 -- true | --compression-level: 13 is not in 0\.\.12
prec | --switch-output | --switch-output=abc -- true | --switch-output=abc: expected 'signal', a size
prec | --switch-max-files | --switch-max-files 0 -- true | --switch-max-files 0: expected a number of files
prec | --max-size | --max-size 12Q -- true | --max-size 12Q: expected a size
prec | --delay | -D -2 -- true | --delay: -2 is not in -1\.\.
prec | --control | --control bogus -- true | --control bogus: expected fifo:
prec | --control | --control fifo:/nonexistent -- true | --control fifo:/nonexistent: cannot open '/nonexistent'
prec | --clockid | --clockid bogus -- true | --clockid bogus: unknown clock
prec | --branch-filter | -j foo -- true | -j foo: unknown branch filter 'foo'
prec | --user-regs | --user-regs=foo -- true | --user-regs foo: unknown register 'foo'
prec | --intr-regs | --intr-regs=foo -- true | --intr-regs foo: unknown register 'foo'
prec | --off-cpu-thresh | --off-cpu-thresh abc -- true | --off-cpu-thresh abc: expected milliseconds
prec | --off-cpu-thresh | --off-cpu-thresh -1 -- true | --off-cpu-thresh -1: expected milliseconds
prec | --off-cpu-thresh | --off-cpu-thresh 5 --overwrite -- true | --off-cpu-thresh cannot be used with --overwrite
prec top | --cpu | -C abc | -C 'abc': not a CPU list
prec top | --cpu | -C 99 | -C 99: CPU 99 does not exist
prec top | --pid | -p abc | -p 'abc': problems parsing pid list
prec top | --tid | -t abc | -t 'abc': problems parsing tid list
prec top | --event | -e nosuch | event 'nosuch': unknown event name
prec top | --freq | -F abc | -F abc: not a frequency
prec top | --count | -c 0 | -c 0: expected a number in 1\.\.
prec top | --call-graph | --call-graph bogus | --call-graph: 'bogus' is not graph
prec top | --call-graph | --call-graph dwarf,99999999 | --call-graph dwarf,99999999: the stack size must be 8\.\.65528
prec top | --max-stack | --max-stack 0 | --max-stack 0: expected a number in 1\.\.
prec top | --sort | -s bogus | --sort: unknown sort key 'bogus'
prec top | --delay | -d 0 | -d 0: expected seconds
prec top | --entries | -E 0 | -E 0: expected a number in 1\.\.
prec top | --count-filter | -f x | -f x: expected a number in 0\.\.
prec top | --percent-limit | --percent-limit 101 | --percent-limit '101' is not a percentage
prec top | --comms | --comms a,,b | --comms 'a,,b': empty name
prec top | --dsos | --dsos , | --dsos ',': empty name
prec top | --symbols | --symbols '' | --symbols '': empty name
prec top | --kallsyms | --kallsyms /nonexistent | --kallsyms '/nonexistent': invalid file
prec top | --mmap-pages | -m 3 | -m 3: the number of mmap data pages must be a power of two
prec top | --record | --record /nonexistent/x --duration 0.2 | cannot create '/nonexistent/x'
prec top | --duration | --duration abc | --duration abc: expected seconds
prec stat | --event | -e nosuch -- true | event 'nosuch': unknown event name
prec stat | --cpu | -C abc -- true | -C 'abc': not a CPU list
prec stat | --pid | -p abc | -p 'abc': not a list of ids
prec stat | --tid | -t abc | -t 'abc': not a list of ids
prec stat | --repeat | -r 0 -- true | --repeat: 0 is not in 1\.\.
prec stat | --field-separator | -x '' -- true | -x '': the separator is empty
prec stat | --output | -o /nonexistent/x -- true | cannot write '/nonexistent/x'
prec stat | --interval-print | -I 5 -- true | --interval-print: 5 is not in 10\.\.
prec stat | --interval-count | --interval-count x -I 100 -- true | --interval-count: 'x' is not a number
prec stat | --metrics | -M nosuch -- true | exit0:Cannot find metric or group `nosuch'
prec stat | --delay | -D abc -- true | --delay: 'abc' is not a number
prec stat | --control | --control fd:99 -- true | --control fd:99: descriptor 99 is not open
prec stat | --timeout | --timeout 0 -- true | --timeout: 0 is not in 1\.\.
prec stat | --log-fd | --log-fd 0 -- true | --log-fd: 0 is not in 1\.\.
prec stat | --log-fd | --log-fd 9 -- true | Failed opening logfd: Bad file descriptor
prec stat | --pre | --pre false -- true | --pre 'false' failed \(exit status 1\)
prec stat | --post | --post false -- true | --post 'false' failed \(exit status 1\)
prec stat | --per-cache | -a --per-cache=X1 -- true | --per-cache 'X1': not a cache level
prec stat | --td-level | --td-level x -- true | --td-level: 'x' is not a number
prec stat | --cputype | --cputype bogus -- true | --cputype bogus is not supported!
prec stat | --pmu-filter | --pmu-filter nosuch -- true | --pmu-filter 'nosuch': no such PMU
prec stat | --bpf-prog | -b 1 -- true | -b/--bpf-prog needs BPF
prec stat | --cgroup | -a -e task-clock -G nosuch-cgroup -- true | -G nosuch-cgroup: (no access to cgroup .*/nosuch-cgroup|no cgroup file system)
prec stat | --for-each-cgroup | -a -e task-clock --for-each-cgroup nosuch-cgroup -- true | --for-each-cgroup nosuch-cgroup: (no access to cgroup|no cgroup file system)
EOF
)

COMMANDS=("prep" "prep script" "prep export" "prep flamegraph" "prep annotate" "prep diff" "prep archive" "prep dump"
	  "prep stat report" "prec" "prec stat" "prec list" "prec top")

trim() { sed 's/^ *//; s/ *$//'; }

# ---- every value option of every command has a row ----------------------------
for cmd in "${COMMANDS[@]}"; do
	bin=${cmd%% *}; sub=${cmd#"$bin"}
	exe=$PREP; [ "$bin" = prec ] && exe=$PREC
	# shellcheck disable=SC2086
	help=$($exe $sub --help 2>&1) || fail "$cmd --help failed"
	# an option without a long name is named by its short one
	# (the long-only options are indented 8: they need rows too)
	opts=$(printf '%s\n' "$help" | grep -E '^ {4}( {4})?-' |
		sed -nE 's/^    (-[A-Za-z0-9])?(, )?(    )?(--[a-z0-9-]+)?(\[no-\])?([a-z0-9-]+)?(\[=<| <).*/\1 \4\6/p' |
		awk '{ print ($2 != "" ? $2 : $1) }' | sort -u)
	[ -n "$opts" ] || [ "$cmd" = "prec list" ] || fail "$cmd --help: no option with a value found"
	for o in $opts; do
		printf '%s\n' "$ROWS" | awk -F'|' -v c="$cmd" -v o="$o" '
			{ gsub(/^ +| +$/, "", $1); gsub(/^ +| +$/, "", $2) }
			$1 == c && $2 == o { found = 1 } END { exit !found }' ||
			fail "$cmd $o takes a value but has no bad-value row"
	done
done

# ---- each row: one line naming the option and the value, non-zero exit ---------
have_events=true
[ -r /proc/sys/kernel/perf_event_paranoid ] || have_events=false
cd "$d" || exit 1
while IFS='|' read -r cmd opt args want; do
	cmd=$(echo "$cmd" | trim); args=$(echo "$args" | trim); want=$(echo "$want" | trim)
	[ -n "$cmd" ] && [ "$args" != "*" ] || continue
	bin=${cmd%% *}; sub=${cmd#"$bin"}
	exe=$PREP; [ "$bin" = prec ] && exe=$PREC
	[ "$bin" = prec ] && ! $have_events && continue
	status=nonzero
	case $want in exit0:*) status=0; want=${want#exit0:} ;; esac
	# shellcheck disable=SC2086
	eval "timeout 20 $exe $sub $args" >out 2>err </dev/null
	rc=$?
	first=$(head -1 err)
	if [ $rc -gt 128 ] && [ $rc -ne 129 ] && [ $rc -ne 255 ]; then
		fail "$cmd $args: killed or crashed (exit $rc): $first"
	elif [ $status = nonzero ] && [ $rc -eq 0 ]; then
		fail "$cmd $args: exit 0 (stderr: '$first')"
	elif [ $status = 0 ] && [ $rc -ne 0 ]; then
		fail "$cmd $args: exit $rc, perf goes on (exit 0)"
	fi
	printf '%s\n' "$first" | grep -qE -- "$want" ||
		fail "$cmd $args: first line '$first' does not match '$want'"
	[ -e other.data ] && fail "$cmd $args: wrote other.data"
done <<<"$ROWS"

[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
echo ok
