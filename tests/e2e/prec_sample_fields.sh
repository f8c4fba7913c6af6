#!/usr/bin/env bash
# What samples carry on request (issue 15): -d (data addresses: prep --sort
# symbol_daddr,dso_daddr and prep script -F addr name the .bss array that
# tests/programs/dataw writes page by page), -W, -T, --sample-cpu,
# --user-regs/--intr-regs (prep script -F uregs,iregs as perf script prints
# them), --clockid (script times in that clock), -b/-j (no PMU here: the
# message), bad values (one line, 129), and -d, --user-regs, --intr-regs as
# an unprivileged user at perf_event_paranoid 2.
. tests/e2e/lib/common.sh
. tests/e2e/lib/unpriv.sh
trap 'paranoid_restore; e2e_cleanup' EXIT
need_perf_events 2

# ---- -d: the array's page faults name big_array in dataw -------------------
$PREC -q -d -e page-faults -c 1 -o "$d/d.data" -- $P/dataw 64 >/dev/null 2>"$d/err" ||
	fail "-d: $(cat "$d/err")"
$PREP -D -i "$d/d.data" >"$d/dump" 2>&1
grep -q "sample_type .*ADDR.*DATA_SRC" "$d/dump" || fail "-d: no ADDR|DATA_SRC in sample_type"
grep -q "flags .*mmap_data" "$d/dump" || fail "-d: no mmap_data"
$PREP -i "$d/d.data" --sort symbol_daddr,dso_daddr >"$d/rep" 2>"$d/err" || fail "-d: report: $(cat "$d/err")"
grep -qE '^# Overhead  Data Symbol +Data Object' "$d/rep" || fail "-d: column titles: $(grep Overhead "$d/rep")"
first=$(grep -v '^#' "$d/rep" | grep -m1 .)
echo "$first" | grep -qE '^ +9[0-9]\.[0-9]{2}%  \[\.\] big_array +dataw' ||
	fail "-d: first entry is not big_array in dataw (4096 of ~4200 faults): $first"
$PREP -i "$d/d.data" --sort dso_daddr >"$d/rep2" 2>&1
grep -v '^#' "$d/rep2" | grep -m1 . | grep -qE '%  dataw' || fail "-d: --sort dso_daddr: $(head -15 "$d/rep2")"
$PREP script -i "$d/d.data" -F ip,sym,addr >"$d/scr" 2>&1 || fail "-d: script -F addr"
[ "$(grep -c ' big_array' "$d/scr")" -ge 4000 ] || fail "-d: script -F addr,sym: $(grep -c big_array "$d/scr") samples name big_array"

# ---- -W, -T, --sample-cpu --------------------------------------------------
$PREC -q -W -T --sample-cpu -e page-faults -o "$d/w.data" -- $P/dataw 1 >/dev/null 2>"$d/err" ||
	fail "-W -T --sample-cpu: $(cat "$d/err")"
$PREP -D -i "$d/w.data" 2>&1 | grep -q "sample_type IP|TID|TIME|CPU.*WEIGHT_STRUCT" ||
	fail "-W: sample_type: $($PREP -D -i "$d/w.data" 2>&1 | grep -m1 sample_type)"
$PREP script -i "$d/w.data" -F event,weight,ip | grep -m1 -qE '^ *page-faults: +[0-9]+ +[0-9a-f]+$' ||
	fail "-W: script -F weight: $($PREP script -i "$d/w.data" -F event,weight,ip | head -1)"

$PREP -i "$d/w.data" --sort symbol_daddr 2>&1 >/dev/null | grep -q "no data address.*prec -d" ||
	fail "symbol_daddr without -d: no warning"

# ---- registers -------------------------------------------------------------
$PREC -q --user-regs=ax,BX,ip --intr-regs=ip,sp -e page-faults -o "$d/r.data" -- $P/dataw 1 \
	>/dev/null 2>"$d/err" || fail "--user-regs: $(cat "$d/err")"
$PREP -D -i "$d/r.data" 2>&1 | grep -q "sample_regs_user 0x103" || fail "--user-regs: mask"
$PREP script -i "$d/r.data" -F ip,uregs | grep -m1 -qE '^ +[0-9a-f]+ ABI:2    AX:0x[0-9a-f]+    BX:0x[0-9a-f]+    IP:0x[0-9a-f]+ $' ||
	fail "-F uregs: $($PREP script -i "$d/r.data" -F ip,uregs | head -1)"
$PREP script -i "$d/r.data" -F iregs | grep -m1 -qE '^ ABI:2    SP:0x[0-9a-f]+    IP:0x[0-9a-f]+ $' ||
	fail "-F iregs: $($PREP script -i "$d/r.data" -F iregs | head -1)"
$PREC -q --call-graph dwarf --user-regs=ax -e page-faults -o "$d/rd.data" -- $P/dataw 1 >/dev/null 2>&1
# dwarf's own registers (IP, SP, BP, R10, R13: 0x2401c0) and AX
$PREP -D -i "$d/rd.data" 2>&1 | grep -q "sample_regs_user 0x2401c1" || fail "--user-regs with dwarf: masks not merged"
$PREC -q --call-graph dwarf -e page-faults -o "$d/rd0.data" -- $P/dataw 1 >/dev/null 2>&1
$PREP -D -i "$d/rd0.data" 2>&1 | grep -q "sample_regs_user 0x2401c0" || fail "dwarf: not the unwinding's registers"
$PREP script -i "$d/rd0.data" -F uregs | grep -m1 -qE '^ ABI:2 +BP:0x[0-9a-f]+ +SP:0x[0-9a-f]+ +IP:0x[0-9a-f]+ +R10:0x[0-9a-f]+ +R13:0x[0-9a-f]+ $' ||
	fail "dwarf -F uregs: $($PREP script -i "$d/rd0.data" -F uregs | head -1)"
$PREC --user-regs=? | grep -qx "available registers: AX BX CX DX SI DI BP SP IP FLAGS CS SS R8 R9 R10 R11 R12 R13 R14 R15" ||
	fail "--user-regs=?: $($PREC --user-regs=?)"

# ---- --clockid realtime: wall-clock seconds in prep script -----------------
$PREC -q --clockid realtime -e page-faults -o "$d/c.data" -- $P/dataw 1 >/dev/null 2>&1 || fail "--clockid"
now=$(date +%s)
t=$($PREP script -i "$d/c.data" -F time | head -1 | sed 's/\..*//; s/ //g')
[ -n "$t" ] && [ $((t > now ? t - now : now - t)) -le 10 ] || fail "--clockid realtime: first time $t, now $now"
$PREP --header -i "$d/c.data" | grep -qx '# clockid: realtime (0)' || fail "--clockid: not in the header"
$PREC -q -k mono -e page-faults -o "$d/c2.data" -- $P/dataw 1 >/dev/null 2>&1 || fail "-k mono"
$PREP -D -i "$d/c2.data" | grep -q "clockid 1" || fail "-k mono: attr.clockid"

# ---- bad values: one line, 129 ---------------------------------------------
bad() {
	local want=$1; shift
	$PREC "$@" -- true >"$d/out" 2>"$d/err"
	local rc=$?
	[ $rc -eq 129 ] || fail "$*: exit $rc, want 129"
	head -1 "$d/err" | grep -q "^prec: .*$want" || fail "$*: $(head -1 "$d/err")"
}
bad "--clockid bogus: unknown clock" --clockid bogus
bad "unknown register 'foo'" --user-regs=ax,foo
bad "unknown register 'xmm'" --intr-regs=xmm
bad "unknown branch filter 'foo'" -j any,foo

# ---- -b / -j: no PMU with branch stacks here -------------------------------
if [ ! -d /sys/bus/event_source/devices/cpu ]; then
	for opt in -b "-j any_call,u"; do
		$PREC -q $opt -e cpu-clock -o "$d/b.data" -- true >/dev/null 2>"$d/err"
		rc=$?
		[ $rc -ne 0 ] || fail "$opt: exit 0 without a PMU"
		grep -qx "prec: cpu-clock: the PMU or event type does not support branch stack sampling (-b/-j)" "$d/err" ||
			fail "$opt: $(cat "$d/err")"
	done
fi

# ---- prep on perf's perf.data agrees with perf script -----------------------
# Same addresses and data symbols; prep may name more (libraries' .dynsym
# variables, .bss that perf calls anon): only perf's [unknown] may differ,
# and its "@plt" for an instruction fetch in a PLT entry (prep: "name@plt").
if command -v perf >/dev/null; then
	perf_rec -q -d -W --user-regs=ax,ip -e page-faults -c 1 -o "$d/perf.data" -- $P/dataw 8 \
		>/dev/null 2>&1
	f=comm,tid,time,event,weight,uregs
	perf script -i "$d/perf.data" -F $f >"$d/p.txt" 2>/dev/null
	$PREP script -i "$d/perf.data" -F $f >"$d/q.txt" 2>/dev/null
	cmp -s "$d/p.txt" "$d/q.txt" || fail "script -F $f differs from perf's: $(diff "$d/p.txt" "$d/q.txt" | head -4)"
	perf script -i "$d/perf.data" -F addr,sym,ip >"$d/p.txt" 2>/dev/null
	$PREP script -i "$d/perf.data" -F addr,sym,ip >"$d/q.txt" 2>/dev/null
	bad=$(paste -d'\n' "$d/p.txt" "$d/q.txt" | awk 'NR % 2 { split($0, p); next }
		{ split($0, q); if (p[1] != q[1] || p[3] != q[3] || (p[2] != q[2] && p[2] != "[unknown]" &&
		    !(p[2] == "@plt" && q[2] ~ /@plt$/))) n++ }
		END { print n + 0 }')
	[ "$(wc -l <"$d/p.txt")" -eq "$(wc -l <"$d/q.txt")" ] && [ "$bad" -eq 0 ] ||
		fail "script -F addr,sym,ip: $bad lines differ from perf's"
	$PREP -i "$d/perf.data" --sort symbol_daddr | grep -v '^#' | grep -m1 . | grep -q 'big_array' ||
		fail "perf.data: symbol_daddr does not put big_array first"
	# -d on a timer event: address 0, not named (perf prints no [unknown])
	if perf_rec -q -d -e cpu-clock -F 999 -o "$d/pc.data" -- $P/dataw 8 >/dev/null 2>&1; then
		perf script -i "$d/pc.data" -F addr,ip,sym >"$d/p.txt" 2>/dev/null
		$PREP script -i "$d/pc.data" -F addr,ip,sym >"$d/q.txt" 2>/dev/null
		cmp -s "$d/p.txt" "$d/q.txt" || fail "-d cpu-clock: script -F addr,ip,sym: $(diff "$d/p.txt" "$d/q.txt" | head -3)"
	else
		echo "left out -d cpu-clock against perf: perf record failed five times"
	fi
fi

# ---- an unprivileged user at paranoid 2 -------------------------------------
if [ -w /proc/sys/kernel/perf_event_paranoid ] && unpriv_init "$d/t"; then
	paranoid_set 2
	as_user $UPREC -q -d -e page-faults -c 1 -o d.data -- $UP/dataw 16 >/dev/null 2>"$d/err" ||
		fail "user -d: $(cat "$d/err")"
	as_user $UPREP -i d.data --sort symbol_daddr,dso_daddr 2>&1 | grep -v '^#' | grep -m1 . |
		grep -qE '\[\.\] big_array +dataw' || fail "user -d: big_array is not first"
	as_user $UPREC -q --user-regs=sp,ip --intr-regs=ip -e cpu-clock -o r.data -- $UP/dataw 64 \
		>/dev/null 2>"$d/err" || fail "user --user-regs/--intr-regs: $(cat "$d/err")"
	as_user $UPREP script -i r.data -F iregs,uregs | grep -m1 -qE '^ ABI:2    IP:0x[0-9a-f]+  ABI:2    SP:' ||
		fail "user -F iregs,uregs: $(as_user $UPREP script -i r.data -F iregs,uregs | head -1)"
	paranoid_restore
else
	echo "skipping the unprivileged part: ${unpriv_why:-not root}"
fi

[ $failures -eq 0 ] && echo "sample fields: -d, -W, -T, --sample-cpu, regs, --clockid, -b/-j, as a user"
exit $((failures > 0))
