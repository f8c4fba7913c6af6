#!/usr/bin/env bash
# prec stat's less common perf-stat(1) options: --table and --metric-only
# match perf stat's layout (counts masked digit for digit), --log-fd writes
# where perf does, --pre/--post run around each run and stop prec stat when
# they fail, --per-cluster/--per-cache group the CPUs by the ids in sysfs and
# stat record + prep stat report regroup them the same way, and the options
# this machine or prec cannot serve are refused with perf's words. Also as an
# unprivileged user at perf_event_paranoid 2.
. tests/e2e/lib/common.sh
. tests/e2e/lib/unpriv.sh
trap 'paranoid_restore; e2e_cleanup' EXIT
need_perf_events 0
command -v perf >/dev/null && perf stat -e task-clock true >/dev/null 2>&1 ||
	{ echo "perf stat is not usable here: nothing to compare with"; exit 77; }

# Each number, with the spaces before it, becomes that many N: the column
# it ends at is kept, its magnitude (which varies between two runs) is not;
# nor is the unit of a rate (K/sec, M/sec), with the padding after it. -r's times print as many decimals as
# their error needs: there (the table, its titles, the final line) each
# number becomes one X, the indent goes and the bars (one # per 5% from
# the mean) become one #. The user-space-only note is prec's alone.
note_re='^prec stat: perf_event_paranoid is [0-9-]*: measuring user space only'
mask() {
	grep -v "$note_re" | perl -pe 'if (/\+-.*elapsed|^ +[0-9.]+ \([-+]/) { s/ *[0-9][0-9.]*/X/g; s/\) #+$/) #/; s/\([-+]X\)/(X)/ }
		s/  \( \+- *[0-9.]+% \)$// unless /elapsed/; s/^ +# (Table|Final)/# $1/; s/( *)([0-9][0-9.,]*)/"N" x length($1.$2)/ge; s/ *[KMG]?\/sec/ \/sec/g; s/ +$//'
}

AS= SPREC=$PREC
compare() {   # "OPTIONS" COMMAND...
	local opts=$1; shift
	$AS perf stat $opts -- "$@" 2>"$d/perf.out" >/dev/null
	$AS $SPREC stat $opts -- "$@" 2>"$d/prec.out" >/dev/null
	diff <(mask <"$d/perf.out") <(mask <"$d/prec.out") >"$d/diff" ||
		{ fail "prec stat $opts${AS:+ (as $UNPRIV_USER)} differs from perf stat:"; head -12 "$d/diff"; }
}

refused() {   # RC TEXT OPTION...: prec stat OPTION... -- true exits RC, its first line holds TEXT
	local rc want=$1 text=$2
	shift 2
	$PREC stat "$@" -- true >/dev/null 2>"$d/e"; rc=$?
	[ $rc -eq "$want" ] && head -1 "$d/e" | grep -qF -- "$text" ||
		fail "prec stat $*: exit $rc (not $want): $(head -2 "$d/e")"
}

# --table, --metric-only: perf's layout
compare "-r 3 --table -e task-clock,context-switches" sleep 0.01
compare "-n -r 2 --table" sleep 0.01
compare "--metric-only -e task-clock,page-faults,cycles" sleep 0.01
compare "--metric-only" sleep 0.01
compare "--metric-only -x , -e cycles,branches,task-clock" sleep 0.01
compare "--metric-only -j -e cycles,branches,task-clock" sleep 0.01
compare "--metric-only -a -A -e cycles,task-clock" sleep 0.05
compare "--metric-only -a -A -j -e cycles,task-clock" sleep 0.05
compare "--metric-only -a --per-core -x , -e cycles" sleep 0.05
compare "--metric-only -a --per-socket -e task-clock" sleep 0.05
compare "--metric-only -I 100 --interval-count 2 -e cycles,page-faults,cycles" sleep 0.6
compare "--metric-only -I 100 --interval-count 2 -x , -e cycles" sleep 0.6
compare "--metric-only -I 100 --interval-count 2 -j -e cycles" sleep 0.6
compare "--metric-only -I 100 --interval-count 2 -a -A -e cycles" sleep 0.6
# options that change nothing here: the output stays perf's
compare "--no-merge --metric-no-group --metric-no-merge --td-level 1 -e task-clock" sleep 0.01
compare "-a --per-core --percore-show-thread -e task-clock" sleep 0.15

# stat record keeps every -r run and the layout: stat report prints the same
same_report() {   # "OPTIONS" COMMAND...
	local opts=$1; shift
	$PREC stat record -o "$d/r.data" $opts -- "$@" 2>"$d/live" >/dev/null ||
		fail "stat record $opts: exit $?"
	$PREP stat report -i "$d/r.data" >"$d/rep" 2>&1
	diff "$d/live" "$d/rep" >"$d/diff" || { fail "stat report of $opts differs:"; head "$d/diff"; }
}
same_report "-r 3 --table -e task-clock,page-faults" sleep 0.01
same_report "-r 2 -a --per-cache -e task-clock" sleep 0.01
same_report "--metric-only -a -A -e cycles,task-clock" sleep 0.01
same_report "--metric-only -I 100 -e cycles,task-clock" sleep 0.25

# --log-fd: the output on that fd, nothing on stderr; --append adds to it
perf stat --log-fd 3 -e task-clock -- sleep 0.01 3>"$d/perf.fd" 2>/dev/null
$PREC stat --log-fd 3 -e task-clock -- sleep 0.01 3>"$d/prec.fd" 2>"$d/prec.err"
[ -s "$d/prec.err" ] && fail "--log-fd: output on stderr too: $(head -2 "$d/prec.err")"
diff <(mask <"$d/perf.fd") <(mask <"$d/prec.fd") >"$d/diff" || { fail "--log-fd differs from perf:"; head "$d/diff"; }
$PREC stat --log-fd 3 --append -e task-clock -- sleep 0.01 3>>"$d/prec.fd" 2>/dev/null
[ "$(grep -c 'Performance counter stats' "$d/prec.fd")" -eq 2 ] || fail "--log-fd --append: not appended"
refused 1 "Failed opening logfd: Bad file descriptor" --log-fd 7 -e task-clock
refused 129 "cannot use both --output and --log-fd" --log-fd 2 -o $d/x -e task-clock

# --pre/--post: around each run, in order; a failing one stops prec stat
$PREC stat --pre "echo pre >>$d/hooks" --post "echo post >>$d/hooks" -r 2 -e task-clock -- \
	sh -c "echo run >>$d/hooks" 2>/dev/null || fail "--pre/--post: exit $?"
[ "$(tr '\n' ' ' <"$d/hooks")" = "pre run post pre run post " ] ||
	fail "--pre/--post: order $(tr '\n' ' ' <"$d/hooks")"
: >"$d/hooks"
printf 'exit 3\n' >"$d/exit3"
refused 255 "failed (exit status 3)" --pre sh\ $d/exit3 -e task-clock
$PREC stat --pre false -e task-clock -- sh -c "echo run >>$d/hooks" 2>/dev/null
[ -s "$d/hooks" ] && fail "--pre failed, yet the workload ran"
refused 255 "--post 'false' failed (exit status 1)" --post false -e task-clock

# refusals: perf's words where perf has the option
refused 129 "--table is only supported with -r" --table -e task-clock
refused 129 "--metric-only is not supported with -r" --metric-only -r 2 -e task-clock
refused 129 "-b/--bpf-prog needs BPF, which prec does not have" -b 12 -e task-clock
refused 129 "--bpf-counters needs BPF" --bpf-counters -e task-clock
if [ ! -e /sys/bus/event_source/devices/cpu_core ]; then
	refused 129 "--cputype core is not supported!" --cputype core -e task-clock
fi
refused 129 "--pmu-filter 'no_such_pmu': no such PMU" --pmu-filter no_such_pmu -e task-clock
refused 1 "Invalid top-down metrics level. The max level is 1." -a --topdown --td-level 2
refused 129 "--per-cache 'X1': not a cache level" -a --per-cache=X1
refused 129 "need -a or -C" --per-cluster -e task-clock
refused 129 "choose one of" -a --per-cache --per-core -e task-clock

# --per-cluster, --per-cache: one line per distinct id in sysfs, each
# with its CPUs; stat record + stat report print the same
ncpu=$(nproc --all)
ids() {   # FILE-UNDER-cpuN...: the distinct values over the CPUs
	for c in $(seq 0 $((ncpu - 1))); do cat "/sys/devices/system/cpu/cpu$c/$1" 2>/dev/null; done | sort -u | wc -l
}
if [ -r /sys/devices/system/cpu/cpu0/topology/cluster_id ]; then
	$PREC stat -a --per-cluster -x , -e task-clock -- sleep 0.05 2>"$d/cls"
	[ "$(grep -c '^S[0-9]*-D[0-9]*-CLS[0-9]*,' "$d/cls")" -eq "$(ids topology/cluster_id)" ] ||
		fail "--per-cluster: $(grep -c . "$d/cls") lines for $(ids topology/cluster_id) clusters"
	[ "$(cut -d, -f2 "$d/cls" | paste -sd+ | bc)" -eq "$ncpu" ] || fail "--per-cluster: CPUs do not add up"
fi
lvl=$(cat /sys/devices/system/cpu/cpu0/cache/index*/level 2>/dev/null | sort -n | tail -1)
if [ -n "$lvl" ]; then
	idx=$(grep -l "^$lvl\$" /sys/devices/system/cpu/cpu0/cache/index*/level | head -1 | xargs dirname | xargs basename)
	$PREC stat -a --per-cache -x , -e task-clock -- sleep 0.05 2>"$d/cache"
	[ "$(grep -c "^S[0-9]*-D[0-9]*-L$lvl-ID[0-9]*," "$d/cache")" -eq "$(ids cache/$idx/id)" ] ||
		fail "--per-cache: $(cat "$d/cache") for $(ids cache/$idx/id) L$lvl caches"
	$PREC stat -a --per-cache=L1 -e task-clock -- sleep 0.05 2>"$d/l1"
	[ "$(grep -c '^S[0-9]*-D[0-9]*-L1-ID' "$d/l1")" -eq "$(ids cache/index0/id)" ] ||
		fail "--per-cache=L1: $(cat "$d/l1")"
	$PREC stat record -o "$d/c.data" -a --per-cache=L1 -e task-clock -- sleep 0.05 2>"$d/live"
	$PREP stat report -i "$d/c.data" >"$d/rep" 2>&1
	diff "$d/live" "$d/rep" >"$d/diff" || { fail "stat report of --per-cache=L1 differs:"; head "$d/diff"; }
	$PREP stat report -i "$d/c.data" --per-cache="L$lvl" -x , >"$d/rep2" 2>&1
	[ "$(grep -c "^S[0-9]*-D[0-9]*-L$lvl-ID" "$d/rep2")" -eq "$(ids cache/$idx/id)" ] ||
		fail "stat report --per-cache=L$lvl: $(cat "$d/rep2")"
	$PREP stat report -i "$d/c.data" --per-cluster -x , >"$d/rep3" 2>&1
	grep -q '^S[0-9]*-D[0-9]*-CLS[0-9]*,' "$d/rep3" || fail "stat report --per-cluster: $(cat "$d/rep3")"
fi

# perf's files have no cluster or cache ids: said, not ignored
perf stat record -o "$d/perf.data" -e task-clock -- true >/dev/null 2>&1
$PREP stat report -i "$d/perf.data" --per-cluster >/dev/null 2>"$d/e" && fail "stat report --per-cluster of perf.data: exit 0"
grep -q "perf's files keep no cluster or cache ids" "$d/e" || fail "stat report --per-cluster of perf.data: $(head -1 "$d/e")"

# unprivileged, paranoid 2: what counts for a user
chmod 711 "$d"
if unpriv_init "$d/unpriv"; then
	AS=as_user SPREC=$UPREC
	paranoid_set 2
	compare "-r 2 --table -e task-clock" $UP/spin 20
	compare "--metric-only -e task-clock,page-faults,cycles" $UP/spin 20
	as_user $UPREC stat --pre true --post true -e task-clock -- $UP/spin 20 >/dev/null 2>&1 ||
		fail "--pre/--post as $UNPRIV_USER: exit $?"
	as_user $UPREC stat -a --per-cache -e task-clock -- true >/dev/null 2>"$d/e" &&
		fail "--per-cache -a as $UNPRIV_USER at paranoid 2 worked"
	grep -q "system-wide measurement needs perf_event_paranoid <= 0" "$d/e" ||
		fail "--per-cache -a as $UNPRIV_USER: $(head -2 "$d/e")"
	paranoid_restore
	AS= SPREC=$PREC
else
	echo "unprivileged checks skipped: $unpriv_why"
fi

[ $failures -eq 0 ] && echo "prec stat (more options) checks passed"
exit $((failures > 0))
