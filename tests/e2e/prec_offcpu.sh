#!/usr/bin/env bash
# Off-CPU time (issue 19): prec --off-cpu records where threads block and for
# how long, without BPF; the report makes an offcpu-time sample of each wait.
#   - sleeper (5 x 200 ms asleep in nap, 0.5 s of compute): 1.0 s of
#     offcpu-time on nap's stack (within 5%), cpu-clock as without --off-cpu;
#     the same as an unprivileged user at perf_event_paranoid 1; at 2, one
#     note line and the thread's 1.0 s without stacks
#   - lockwait (threads on one mutex, --call-graph dwarf): the waits end in
#     the kernel's futex wait under take_lock
#   - a wait still open at the end: closed there, marked [blocked at end]
#   - the exports (folded, pprof, speedscope, flame graph) in nanoseconds,
#     prep script with the switch records, filters, --wall, --off-cpu-thresh
# The paranoid level is restored on every exit.
. tests/e2e/lib/common.sh
. tests/e2e/lib/unpriv.sh
trap 'paranoid_restore; kill $(jobs -p) 2>/dev/null; rm -rf "$d"' EXIT
need_perf_events 1
t0=$(date +%s)

# the sum of the folded weights of the lines matching ERE $2 in file $1
weight() { awk -v re="$2" '{ n = $NF; l = $0; sub(/ [0-9]+$/, "", l); if (l ~ re) s += n }
		     END { printf "%d\n", s }' "$1"; }
# $1 within $2 +- $3 percent
within() { awk -v v="$1" -v w="$2" -v p="$3" 'BEGIN { exit !(v >= w * (1 - p / 100) && v <= w * (1 + p / 100)) }'; }
# what sleeper says it slept (its output $1): the time in its naps' system
# calls, with the wait for a CPU after each wakeup, which a loaded machine
# stretches past the designed sleeps (1.26 s for 5 x 200 ms once, with
# other suites running); what the off-CPU time must match
slept() { awk '/^slept/ { print $2 }' "$1"; }
# the designed sleeps, at least: the slept time is not short
at_least() { awk -v v="$1" -v w="$2" 'BEGIN { exit !(v >= w * 0.99) }'; }
# the "Event count" of event $2 in prep's report $1
evcount() { awk -v e="'$2'" '/^# Samples: / { cur = $NF } /^# Event count/ && cur == e { print $NF }' "$1"; }

cd "$d" || exit 1

# ---- the designed program, with the kernel's stacks --------------------------------
$PREC -F 999 -g -q -o plain.data -- $P/sleeper >/dev/null || fail "prec without --off-cpu"
$PREC --off-cpu -F 999 -g -o off.data -- $P/sleeper >out 2>err || fail "prec --off-cpu: $(cat err)"
grep -q perf_event_paranoid err && fail "a note without need: $(cat err)"
$PREP export folded -i off.data --event offcpu-time -o off.folded || fail "folded offcpu-time"
nap=$(weight off.folded ';nap;')
at_least "$(slept out)" 1000000000 || fail "sleeper slept $(slept out) ns, under its 5 x 200 ms"
within "$nap" "$(slept out)" 5 || fail "offcpu-time on nap's stack: $nap ns (sleeper slept $(slept out) ns; want that +- 5%)"
grep -q ';main;nap;entry_SYSCALL' off.folded || fail "nap's stack lacks the kernel: $(head -3 off.folded)"
grep -qE ';schedule [0-9]+$' off.folded || fail "the waits do not end in schedule: $(head -3 off.folded)"
$PREP -i plain.data --stdio -q >plain.rep 2>/dev/null
$PREP -i off.data --stdio -q >off.rep 2>/dev/null
c0=$($PREP -i plain.data --stdio 2>/dev/null | awk "/^# Samples: .*'cpu-clock'/ { print \$3 }")
c1=$($PREP -i off.data --stdio 2>/dev/null | awk "/^# Samples: .*'cpu-clock'/ { print \$3 }")
within "${c1:-0}" "${c0:-1}" 15 || fail "cpu-clock samples $c1 with --off-cpu, $c0 without"
# compute's share of cpu-clock as without --off-cpu (a loaded machine gives the
# kernel more of both recordings' samples), and no waiting in cpu-clock
share() {
	$PREP -i "$1" --stdio --no-children --sort sym -g none --event cpu-clock 2>/dev/null |
		awk -v s="$2" '$3 == s { sub(/%/, "", $1); print $1; f = 1; exit } END { if (!f) print 0 }'
}
s0=$(share plain.data compute) s1=$(share off.data compute)
awk -v a="$s1" -v b="$s0" 'BEGIN { exit !(a >= 75 && a >= b - 10) }' ||
	fail "cpu-clock: compute $s1% with --off-cpu, $s0% without: $($PREP -i off.data --stdio --no-children --sort sym -g none --event cpu-clock -q 2>/dev/null | head -5 | tr -s ' ' | tr '\n' ';')"
awk -v a="$(share off.data nap)" 'BEGIN { exit !(a < 2) }' || fail "cpu-clock: nap at $(share off.data nap)%"
$PREP -i off.data --stdio --no-children --sort sym --event offcpu-time >ev.rep 2>/dev/null
grep -q "^# Samples: 5  of event 'offcpu-time'$" ev.rep || fail "not 5 waits: $(grep Samples ev.rep)"
within "$(evcount ev.rep offcpu-time)" "$(slept out)" 5 || fail "offcpu-time count: $(grep 'Event count' ev.rep)"
$PREP -i off.data --stdio --children --sort sym --event offcpu-time 2>/dev/null |
	grep -qE '^ +100\.00% +0\.00%  \[\.\] nap$' || fail "--children: nap not at 100% of offcpu-time"

# prep script: each wait after the switch-in that ends it, weighted in ns
$PREP script -i off.data --show-switch-events -F comm,tid,time,period,event >sw.txt 2>/dev/null
awk '/PERF_RECORD_SWITCH IN/ { inl = NR } / offcpu-time:/ { n++; if (inl == NR - 1 && $4 + 0 > 190000000) ok++ }
     END { exit !(n == 5 && ok == 5) }' sw.txt || fail "prep script: offcpu-time lines: $(grep -B1 offcpu-time sw.txt | head -6)"
# filters: another thread's, another command's, a time range
[ -z "$($PREP script -i off.data --tid 1 2>/dev/null | grep offcpu-time)" ] || fail "--tid 1 kept waits"
n=$($PREP script -i off.data --comm sleeper 2>/dev/null | grep -c ' offcpu-time:')
[ "$n" -eq 5 ] || fail "--comm sleeper: $n waits"
# percentages of the recording: the last nap ends after the last recorded
# sample, and is still in 0%-100% (and in the last tenth)
n=$($PREP script -i off.data --time 0%-100% 2>/dev/null | grep -c ' offcpu-time:')
[ "$n" -eq 5 ] || fail "--time 0%-100%: $n waits"
n=$($PREP script -i off.data --time 90%-100% 2>/dev/null | grep -c ' offcpu-time:')
[ "$n" -ge 1 ] || fail "--time 90%-100%: no wait"

# the exports
grep -q '"unit":"ns"' <($PREP flamegraph -i off.data --event offcpu-time -o - 2>/dev/null) ||
	fail "flame graph of offcpu-time not in ns"
$PREP export speedscope -i off.data -o s.json -q || fail "speedscope"
python3 - s.json <<'EOF' || fail "speedscope: no offcpu-time profile of 1.0 s in nanoseconds"
import json, sys
p = [p for p in json.load(open(sys.argv[1]))["profiles"] if p["name"].endswith("offcpu-time")]
sys.exit(not (p and p[0]["unit"] == "nanoseconds" and 0.95e9 <= sum(p[0]["weights"]) <= 1.05e9))
EOF
$PREP export pprof -i off.data --event offcpu-time -o p.pb.gz -q || fail "pprof"
if command -v go >/dev/null; then
	go tool pprof -raw p.pb.gz 2>/dev/null | grep -q '^PeriodType: offcpu-time nanoseconds$' ||
		fail "pprof: no offcpu-time in nanoseconds"
fi

# --wall: the thread's lifetime, CPU and waits in one event
$PREP -i off.data --wall --stdio --no-children --sort comm 2>/dev/null >wall.rep
el=$(awk '/^elapsed/ { print $2 * 1000 }' out)
within "$(evcount wall.rep wall-time)" "$el" 5 || fail "--wall: $(evcount wall.rep wall-time) ns, the loop took $el ns"
# the flame graph of wall-time annotates compute (its bound and its "n" in
# the page's unit, nanoseconds)
$PREP flamegraph -i off.data --wall -o wall.html 2>/dev/null || fail "flamegraph --wall"
python3 - wall.html <<'EOF' || fail "flamegraph --wall: compute not annotated"
import json, re, sys
d = json.loads(re.search(r'id="fg-data">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
a = {d["names"][int(k)]: v for k, v in d["annot"].items()}
sys.exit(not (d["unit"] == "ns" and "compute" in a and a["compute"].get("lines") and
	      a["compute"]["n"] > 400000000))
EOF
# -T's columns are counters, which wall-time has not: refused in one line
$PREP -i off.data --stdio --wall -T >/dev/null 2>t.err
rc=$?
[ $rc -eq 129 ] && [ "$(wc -l <t.err)" -eq 1 ] && grep -q '^prep: --threads: not with --wall' t.err ||
	fail "--wall -T: exit $rc: $(cat t.err)"
$PREP export folded -i off.data --wall -o wall.folded 2>/dev/null
[ "$(weight wall.folded ';compute')" -gt 400000000 ] && [ "$(weight wall.folded ';nap;')" -gt 950000000 ] ||
	fail "--wall folded: compute $(weight wall.folded ';compute'), nap $(weight wall.folded ';nap;')"

# the differentials weigh waits as the single exports do, in nanoseconds: the
# same 5 naps of 200 ms against 2 of 50 ms are 1.0 s against 0.1 s, not 5
# samples against 2 (difffolded, prep diff --folded, the differential page)
$PREC --off-cpu -F 999 -g -q -o short.data -- $P/sleeper 50 2 50 >short.out || fail "prec short.data"
$PREP export difffolded off.data short.data --event offcpu-time -o nap.diff 2>/dev/null ||
	fail "difffolded --event offcpu-time"
read -r old new <<<"$(awk '/;nap;/ { o += $(NF-1); n += $NF } END { print o + 0, n + 0 }' nap.diff)"
within "$old" "$(slept out)" 5 && within "$new" "$(slept short.out)" 10 ||
	fail "difffolded offcpu-time: nap $old ns against $new ns (slept $(slept out) and $(slept short.out)): $(head -2 nap.diff)"
$PREP diff --folded off.data short.data --wall >wall1.diff 2>/dev/null
# prep diff --folded has one event's stacks: the waits left out are named
$PREP diff --folded off.data short.data >/dev/null 2>dfold.err || fail "prep diff --folded: $(cat dfold.err)"
grep -qx "prep diff: --folded: event 'cpu-clock' only (prep export difffolded --event NAME for another)" dfold.err ||
	fail "prep diff --folded: offcpu-time left out without a word: '$(cat dfold.err)'"
$PREP export difffolded off.data short.data --wall >wall2.diff 2>/dev/null || fail "difffolded --wall"
cmp -s wall1.diff wall2.diff && [ "$(awk '/;nap;/ { o += $(NF-1) } END { print o + 0 }' wall1.diff)" -gt 950000000 ] ||
	fail "--wall differentials: $(head -2 wall1.diff) / $(head -2 wall2.diff)"
$PREP flamegraph --diff off.data short.data --event offcpu-time -o nap.html 2>/dev/null || fail "flamegraph --diff"
tot=$(grep -o '"totals":\[\[[0-9]*\],\[[0-9]*\]\]' nap.html | tr -c '0-9\n' ' ')
grep -q '"unit":"ns"' nap.html && within "$(echo $tot | cut -d' ' -f1)" "$(slept out)" 5 &&
	within "$(echo $tot | cut -d' ' -f2)" "$(slept short.out)" 10 ||
	fail "flamegraph --diff offcpu-time: not in ns, totals '$tot'"

# the latency profile (the file has the switch records): each wait at the
# parallelism of the switch-in that ends it, where its own thread runs (1:
# sleeper has one thread), and --parallelism keeps or drops waits as samples
$PREP -i off.data --stdio --no-children --sort parallelism --event offcpu-time 2>/dev/null >par.rep
lv=$(awk '/^ +[0-9.]+%/ { print $NF }' par.rep | sort -u | tr '\n' ' ')
[ "$lv" = "1 " ] || fail "--sort parallelism: offcpu-time at levels '$lv' (want 1): $(grep % par.rep)"
$PREP -i off.data --stdio --parallelism 2 --event offcpu-time 2>/dev/null |
	grep -q "^# Samples: 0  of event 'offcpu-time'$" || fail "--parallelism 2 kept waits at level 1"
$PREP -i off.data --stdio --parallelism 1 --event offcpu-time 2>/dev/null |
	grep -q "^# Samples: 5  of event 'offcpu-time'$" || fail "--parallelism 1 dropped waits"

# ---- a lock: the waits end in the futex wait under take_lock -----------------------
$PREC --off-cpu --call-graph dwarf -F 499 -q -o lock.data -- $P/lockwait 4 60 200 >/dev/null ||
	fail "prec --off-cpu --call-graph dwarf"
$PREP export folded -i lock.data --event offcpu-time --comm locker -o lock.folded 2>/dev/null
all=$(weight lock.folded .)
under=$(weight lock.folded '^locker;.*;locker_main;take_lock;.*futex_wait.*;schedule$')
[ "$all" -gt 0 ] && [ $((under * 100)) -ge $((all * 90)) ] ||
	fail "lock waits: $under of $all ns under take_lock ... futex_wait ... schedule: $(sort -t' ' -k2 -n lock.folded | tail -2)"

# ---- blocked at the end: closed at the end of the recording, marked -----------------
$PREC --off-cpu -g -q --duration 1 -o end.data -- $P/sleeper 50 1 50 hang >/dev/null
$PREP export folded -i end.data --event offcpu-time -o end.folded 2>/dev/null
w=$(weight end.folded '^sleeper_\[blocked_at_end\];.*;hang_forever;')
[ "$w" -gt 500000000 ] && [ "$w" -lt 1000000000 ] || fail "blocked at end: $w ns: $(cat end.folded)"
$PREP script -i end.data -F comm,event 2>/dev/null | tail -1 | grep -q '^sleeper \[blocked at end\] offcpu-time:' ||
	fail "prep script: the open wait is not last, marked"
$PREP script -i end.data -F comm,event --time 0%-100% 2>/dev/null | tail -1 |
	grep -q '^sleeper \[blocked at end\] offcpu-time:' || fail "--time 0%-100%: the open wait is out"

# ---- --off-cpu-thresh: short waits counted without their stacks ---------------------
$PREC --off-cpu --off-cpu-thresh 20 -g -q -v -o th.data -- $P/sleeper 50 40 2 >/dev/null 2>th.err ||
	fail "--off-cpu-thresh: $(cat th.err)"
$PREP export folded -i th.data --event offcpu-time -o th.folded 2>/dev/null
all=$(weight th.folded .); bare=$(weight th.folded '^sleeper;\[unknown\]$')
[ "$all" -gt 80000000 ] && [ $((bare * 100)) -ge $((all * 70)) ] ||
	fail "--off-cpu-thresh 20: $bare of $all ns without stacks ($(grep thresh th.err))"
$PREC --off-cpu --off-cpu-thresh 20 -g -q -o th2.data -- $P/sleeper 50 2 100 >/dev/null
$PREP export folded -i th2.data --event offcpu-time -o th2.folded 2>/dev/null
[ "$(weight th2.folded ';nap;')" -gt 190000000 ] || fail "--off-cpu-thresh 20: 100 ms waits lost their stacks"

# ---- unprivileged: stacks at paranoid 1, the time alone with one note at 2 ----------
if [ -w /proc/sys/kernel/perf_event_paranoid ] && unpriv_init "$d/t"; then
	U=$d/t/u
	paranoid_set 1
	as_user $UPREC --off-cpu -F 999 -g -q -o p1.data -- $UP/sleeper >"$d/p1.out" 2>p1.err ||
		fail "paranoid 1: $(cat p1.err)"
	paranoid_set 2
	as_user $UPREC --off-cpu -F 999 -g -o p2.data -- $UP/sleeper >"$d/p2.out" 2>"$d/p2.err" ||
		fail "paranoid 2: $(cat "$d/p2.err")"
	paranoid_restore
	$PREP export folded -i "$U/p1.data" --event offcpu-time -o p1.folded 2>/dev/null
	within "$(weight p1.folded ';nap;')" "$(slept "$d/p1.out")" 5 ||
		fail "paranoid 1: offcpu-time on nap's stack: $(weight p1.folded ';nap;') ns"
	grep -q ';nap;entry_SYSCALL' p1.folded || fail "paranoid 1: no kernel stack"
	[ "$(grep -c perf_event_paranoid "$d/p2.err")" -eq 1 ] || fail "paranoid 2: not one note: $(cat "$d/p2.err")"
	grep -q "^prec: perf_event_paranoid is 2: .*off-CPU time per thread without stacks.*lower it to 1 or give prec CAP_PERFMON (setcap cap_perfmon+ep prec)$" "$d/p2.err" ||
		fail "paranoid 2: the note: $(cat "$d/p2.err")"
	$PREP export folded -i "$U/p2.data" --event offcpu-time -o p2.folded 2>/dev/null
	within "$(weight p2.folded '^sleeper;')" "$(slept "$d/p2.out")" 5 ||
		fail "paranoid 2: the thread's off-CPU time: $(cat p2.folded)"
	[ "$(awk 'END { print NR }' p2.folded)" -eq 1 ] && grep -q '^sleeper;\[unknown\] ' p2.folded ||
		fail "paranoid 2: stacks made up: $(cat p2.folded)"
	as_user $UPREP -i p2.data --stdio --no-children --sort comm,tid --event offcpu-time >p2.rep 2>/dev/null ||
		fail "paranoid 2: prep as the user"
	grep -qE '^ +100\.00%  sleeper ' p2.rep || fail "paranoid 2: per thread: $(grep -v '^#' p2.rep | head -3)"
else
	echo "skipped the unprivileged part: ${unpriv_why:-cannot set perf_event_paranoid}"
fi

[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
echo "prec --off-cpu checks passed ($(($(date +%s) - t0)) s)"
