#!/usr/bin/env bash
# Probes without tracefs and breakpoints on variables (issue 15): u:/ur:
# through the uprobe PMU count a function's calls exactly in prec stat and
# sample them in prec (prep names the events as spelled); mem:SYMBOL counts
# a variable's writes exactly and prep shows the writing function; -p takes
# a PIE's variable from the running process (with -d the data address is
# the variable, in each --switch-output file too), and a PIE command's once it
# has exec'd; bad binaries, symbols and offsets and the missing kprobe PMU
# get one line and 129; prec list shows the syntax;
# as a user at perf_event_paranoid 2 a uprobe is refused with a clear
# message and a breakpoint works (user space only).
. tests/e2e/lib/common.sh
. tests/e2e/lib/unpriv.sh
trap 'paranoid_restore; e2e_cleanup' EXIT
need_perf_events 2
PMUS=/sys/bus/event_source/devices
[ -e $PMUS/breakpoint ] || { echo "no breakpoint PMU"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "uprobes need root or CAP_PERFMON"; exit 77; }
[ -e $PMUS/uprobe ] || { echo "no uprobe PMU"; exit 77; }

# the count of the event named $1 in prec stat -x ';' output $2
count() { awk -F';' -v e="$1" '$3 == e { print $1 }' "$2"; }
N=1234

# ---- prec stat: exact counts ------------------------------------------------
$PREC stat -x ';' -e u:$P/probed_nopie:probed_func,ur:$P/probed_nopie:probed_func \
	-e mem:probed_var:w -- $P/probed_nopie $N 2>"$d/st" >/dev/null ||
	fail "stat refused: $(cat "$d/st")"
[ "$(count u:$P/probed_nopie:probed_func "$d/st")" = $N ] ||
	fail "u: counted $(count u:$P/probed_nopie:probed_func "$d/st"), want $N: $(cat "$d/st")"
[ "$(count ur:$P/probed_nopie:probed_func "$d/st")" = $N ] || fail "ur: count: $(cat "$d/st")"
[ "$(count mem:probed_var:w "$d/st")" = $N ] || fail "mem:probed_var:w count: $(cat "$d/st")"

# a PIE command: its breakpoints are moved at its exec; -r runs it again
$PREC stat -x ';' -r 2 -e mem:probed_var:w -- $P/probed $N 2>"$d/st" >/dev/null ||
	fail "stat mem: of a PIE refused: $(cat "$d/st")"
[ "$(count mem:probed_var:w "$d/st")" = $N ] || fail "PIE mem:probed_var:w count: $(cat "$d/st")"

# a relative path, and +OFF at the function's second instruction
cp $P/probed "$d/probed"
set -- $(objdump -d --no-show-raw-insn "$d/probed" 2>/dev/null |
	awk '/<probed_func>:/ { f = 1; next } f && /^ +[0-9a-f]+:/ { sub(":", "", $1); print $1; n++ }
	     n == 2 { exit }')
off=$(($# == 2 ? 0x$2 - 0x$1 : 1))	# 1: push %rbp, without objdump
(cd "$d" && $PREC stat -x ';' -e u:./probed:probed_func -e "u:./probed:probed_func+${off:-1}" \
	-- ./probed 77 2>st >/dev/null) || fail "relative path: $(cat "$d/st")"
[ "$(count u:./probed:probed_func "$d/st")" = 77 ] || fail "relative path count: $(cat "$d/st")"
[ "$(count "u:./probed:probed_func+${off:-1}" "$d/st")" = 77 ] || fail "+OFF count: $(cat "$d/st")"

# ---- prec record: samples, named as spelled ---------------------------------
(cd "$d" && $PREC -q -o u.data -e u:./probed:probed_func,ur:./probed:probed_func \
	-- ./probed 300 2>err) || fail "record u:/ur: refused: $(cat "$d/err")"
$PREP -i "$d/u.data" --stdio --sort sym >"$d/rep" 2>&1
grep -q "^# Samples: 300  of event 'u:./probed:probed_func'$" "$d/rep" || fail "u: samples: $(cat "$d/rep")"
grep -q "^# Samples: 300  of event 'ur:./probed:probed_func'$" "$d/rep" || fail "ur: samples"
grep -q "100.00%.*probed_func" "$d/rep" || fail "u: samples not in probed_func"
(cd "$d" && $PREC -q -o c.data -c 10 -e u:./probed:probed_func -- ./probed 300 2>err) ||
	fail "record u: -c 10: $(cat "$d/err")"
$PREP -i "$d/c.data" --stdio 2>&1 | grep -q "^# Samples: 30  of event" || fail "u: -c 10: not 30 samples"
$PREP script -i "$d/u.data" >"$d/scr" 2>&1
grep -q " u:./probed:probed_func: .* probed_func+0x0 " "$d/scr" || fail "prep script u: line: $(head -2 "$d/scr")"
grep -q " ur:./probed:probed_func: .* main+" "$d/scr" || fail "prep script ur: returns to main"

$PREC -q -o "$d/bp.data" -e mem:probed_var:w -- $P/probed_nopie 500 2>"$d/err" ||
	fail "record mem:probed_var:w: $(cat "$d/err")"
$PREP -i "$d/bp.data" --stdio --sort sym >"$d/rep" 2>&1
grep -q "^# Samples: 500  of event 'mem:probed_var:w'$" "$d/rep" || fail "mem: samples: $(cat "$d/rep")"
grep -q "100.00%.*\[\.\] probed_write$" "$d/rep" || fail "mem: writer not probed_write: $(cat "$d/rep")"
$PREC -q -o "$d/pie.data" -e mem:probed_var:w -- $P/probed 400 2>"$d/err" ||
	fail "record mem:probed_var:w of a PIE: $(cat "$d/err")"
$PREP -i "$d/pie.data" --stdio --sort sym >"$d/rep" 2>&1
grep -q "^# Samples: 400  of event 'mem:probed_var:w'$" "$d/rep" || fail "PIE mem: samples: $(cat "$d/rep")"
grep -q "100.00%.*\[\.\] probed_write$" "$d/rep" || fail "PIE mem: writer: $(cat "$d/rep")"

# ---- -p: a PIE's variable from the running process ---------------------------
$P/probed 4000000000 >/dev/null &
pid=$!
sleep 0.2
$PREC -q -o "$d/p.data" -e mem:probed_var:w -p $pid --duration 0.2 2>"$d/err" ||
	fail "-p mem:probed_var:w: $(cat "$d/err")"
$PREP -i "$d/p.data" --stdio --sort sym 2>&1 | grep -q "100.00%.*probed_write$" ||
	fail "-p: writes not in probed_write"
# -d: the data address is the variable, also where the mappings were
# synthesized (-p, and each file after a switch)
mkdir "$d/sw"
(cd "$d/sw" && $PREC -q -d -e mem:probed_var:w -p $pid --duration 0.5 --switch-output=0.2s 2>"$d/err") ||
	fail "-d -p --switch-output: $(cat "$d/err")"
n=0
for f in "$d"/sw/prec.data.*; do
	n=$((n + 1))
	$PREP -i "$f" --stdio --sort symbol_daddr 2>&1 | grep -q "100.00%  \[\.\] probed_var$" ||
		fail "-d -p --switch-output: ${f##*/}: $($PREP -i "$f" --stdio --sort symbol_daddr 2>&1 | grep %)"
done
[ $n -ge 2 ] || fail "-d -p --switch-output: $n files"
kill $pid

# ---- bad input: one line naming it, 129 --------------------------------------
bad() {  # the expected message, then prec's arguments
	local want=$1
	shift
	$PREC "$@" >/dev/null 2>"$d/err"
	rc=$?
	[ $rc = 129 ] || fail "$*: exit $rc, want 129"
	grep -q "^prec: $want" "$d/err" || fail "$*: message: $(head -1 "$d/err")"
}
bad "event 'u:/nonexistent:f': /nonexistent: No such file or directory" -e u:/nonexistent:f -- true
bad "event 'u:$P/probed:nosuch': $P/probed: no function symbol 'nosuch' in it" \
	-e u:$P/probed:nosuch -- true
bad "event 'u:$P/probed:probed_func+4096': offset 4096 is beyond probed_func" \
	-e u:$P/probed:probed_func+4096 -- true
bad "event 'u:$P/probed': expected u:PATH:SYMBOL" -e u:$P/probed -- true
bad "event 'mem:probed_var': a variable needs a command, -p PID or -t TID" -e mem:probed_var -a --duration 0.1
bad "event 'mem:probed_var': command 'no-such-command' not found" -e mem:probed_var -- no-such-command
bad "event 'mem:nosuch': $P/probed_nopie: no variable symbol 'nosuch'" -e mem:nosuch -- $P/probed_nopie
bad "event 'mem:probed_var/3': length must be" -e mem:probed_var/3 -- $P/probed_nopie
if [ ! -e $PMUS/kprobe ]; then
	bad "k:do_sys_open: this kernel has no kprobe PMU ($PMUS/kprobe)$" -e k:do_sys_open -a true
	bad "kr:do_sys_open+4: this kernel has no kprobe PMU" -e kr:do_sys_open+4 -a true
	$PREC stat -e k:vfs_read -- true >/dev/null 2>"$d/err"
	[ $? = 129 ] && grep -q "^prec stat: k:vfs_read: this kernel has no kprobe PMU" "$d/err" ||
		fail "prec stat k:: $(head -1 "$d/err")"
fi

$PREC list >"$d/list" 2>&1
for s in 'mem:<symbol>\[/len\]\[:access\] .*\[Hardware breakpoint\]' 'u:<path>:<symbol>\[+off\] .*\[Uprobe\]' \
	 'ur:<path>:<symbol>\[+off\] .*\[Uretprobe\]' 'k:<symbol>\[+off\] .*\[Kprobe' 'kr:<symbol>\[+off\] .*\[Kretprobe'; do
	grep -q "^  $s" "$d/list" || fail "prec list: no line $s"
done

# ---- a user at perf_event_paranoid 2 -----------------------------------------
if unpriv_init "$d/t"; then
	paranoid_set 2
	as_user $UPREC stat -e u:$UP/probed:probed_func -- $UP/probed 10 >/dev/null 2>"$d/err" &&
		fail "user: uprobe taken"
	grep -q "no permission to open probe 'u:$UP/probed:probed_func': the kernel's uprobe PMU is for root or CAP_PERFMON only" "$d/err" ||
		fail "user: uprobe message: $(cat "$d/err")"
	[ "$(grep -c . "$d/err")" = 1 ] || fail "user: uprobe: more than one line: $(cat "$d/err")"
	as_user $UPREC stat -x ';' -e mem:probed_var:w -- $UP/probed_nopie $N >/dev/null 2>"$d/st" ||
		fail "user: breakpoint refused: $(cat "$d/st")"
	[ "$(count mem:probed_var:wu "$d/st")" = $N ] || fail "user: breakpoint count: $(cat "$d/st")"
	as_user $UPREC stat -x ';' -e mem:probed_var:w -- $UP/probed $N >/dev/null 2>"$d/st" ||
		fail "user: PIE breakpoint refused: $(cat "$d/st")"
	[ "$(count mem:probed_var:wu "$d/st")" = $N ] || fail "user: PIE breakpoint count: $(cat "$d/st")"
	as_user $UPREC -q -e mem:probed_var:w -o bp.data -- $UP/probed 200 >/dev/null 2>"$d/err" ||
		fail "user: breakpoint record: $(cat "$d/err")"
	as_user $UPREP -i bp.data --stdio --sort sym 2>&1 | grep -q "100.00%.*probed_write$" ||
		fail "user: breakpoint samples not in probed_write"
	paranoid_restore
else
	echo "skipped the unprivileged part: $unpriv_why"
fi

[ $failures -eq 0 ] || { echo "$failures failures"; exit 1; }
echo "all probe and breakpoint checks passed"
