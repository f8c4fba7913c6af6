#!/usr/bin/env bash
# cgroups (issue 15): a spinner placed in a test cgroup and another outside.
# prec -a -G NAME records only the one inside; --all-cgroups + prep --sort
# cgroup names both cgroups, prep --cgroup keeps one; prec stat -G counts
# task-clock only for the one inside (about its CPU time), the layout has
# perf stat's cgroup column, and stat record + prep stat report print what
# the live run printed. Bad input and an unprivileged user get one clear
# line. The test cgroup is removed and the paranoid level restored on exit.
. tests/e2e/lib/common.sh
. tests/e2e/lib/unpriv.sh
CG=
cleanup() {
	paranoid_restore
	kill $(jobs -p) 2>/dev/null
	wait 2>/dev/null
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
	rm -rf "$d"
}
trap cleanup EXIT

need_perf_events -1
[ "$(id -u)" -eq 0 ] || { echo "needs root: creating a cgroup and counting system-wide"; exit 77; }
# where prec looks: a cgroup v1 hierarchy with perf_event, else cgroup v2
root=$(awk '$3 == "cgroup" && $4 ~ /(^|,)perf_event(,|$)/ { print $2; exit }' /proc/self/mounts)
[ -n "$root" ] || root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$root" ] || { echo "no cgroup2 and no perf_event cgroup hierarchy mounted"; exit 77; }
name=prec-test-$$
mkdir "$root/$name" 2>/dev/null || { echo "cannot create a cgroup under $root"; exit 77; }
CG=$root/$name

# ---- bad input: perf's rules, one line each ----------------------------------------
$PREC -G "$name" -e cpu-clock -a --duration 0.1 -o "$d/x.data" 2>"$d/err"
rc=$?
[ $rc -eq 129 ] && grep -q "^prec: -G $name: give the events (-e) before the cgroups$" "$d/err" ||
	fail "-G before -e: rc $rc: $(head -1 "$d/err")"
$PREC -e cpu-clock -G "$name" -o "$d/x.data" -- true 2>"$d/err"
rc=$?
[ $rc -eq 129 ] && grep -q "^prec: -G: cgroup monitoring needs system-wide mode: add -a (or -C CPUS)$" "$d/err" ||
	fail "-G without -a: rc $rc: $(head -1 "$d/err")"
$PREC -a -e cpu-clock -G "$name,$name" -o "$d/x.data" --duration 0.1 2>"$d/err"
rc=$?
[ $rc -eq 129 ] && grep -q "more cgroups than events" "$d/err" || fail "-G a,b for one event: rc $rc"
$PREC -a -e cpu-clock -G nosuchgroup-$$ -o "$d/x.data" --duration 0.1 2>"$d/err"
rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$d/err")" -eq 1 ] && grep -q "nosuchgroup-$$" "$d/err" ||
	fail "-G nosuchgroup: rc $rc: $(cat "$d/err")"
$PREC stat -e task-clock -G "$name" -- true 2>"$d/err"
rc=$?
[ $rc -eq 129 ] && grep -q "^prec stat: -G: cgroup counting needs system-wide mode" "$d/err" ||
	fail "stat -G without -a: rc $rc: $(head -1 "$d/err")"
$PREC stat -a -e task-clock -G "$name" --for-each-cgroup "$name" -- true 2>"$d/err"
[ $? -eq 129 ] || fail "stat -G with --for-each-cgroup taken"
$PREC stat -a -e task-clock -G nosuchgroup-$$ -- true 2>"$d/err"
rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$d/err")" -eq 1 ] && grep -q "nosuchgroup-$$" "$d/err" ||
	fail "stat -G nosuchgroup: rc $rc: $(cat "$d/err")"

# ---- one spinner inside the cgroup, one outside ------------------------------------
sh -c "echo \$\$ >$CG/cgroup.procs && exec $P/spin 30000" >/dev/null &
in=$!
$P/spin 30000 >/dev/null &
out=$!
for i in $(seq 50); do grep -qx "$in" "$CG/cgroup.procs" && break; sleep 0.05; done
grep -qx "$in" "$CG/cgroup.procs" || fail "the spinner did not get into $CG"

$PREC -a -e cpu-clock -G "$name" -F 499 --duration 1 -q -o "$d/g.data" 2>"$d/err" ||
	fail "prec -a -G: $(cat "$d/err")"
$PREP -D -i "$d/g.data" 2>/dev/null | grep ' SAMPLE ' >"$d/samples"
n_in=$(grep -c " pid $in " "$d/samples")
n_all=$(wc -l <"$d/samples")
[ "$n_in" -ge 50 ] || fail "-G: $n_in samples of the spinner inside (want >= 50 in 1 s at 499 Hz)"
[ "$n_all" -eq "$n_in" ] || fail "-G: $((n_all - n_in)) samples of other processes (pid $out outside)"

$PREC -a --all-cgroups -e cpu-clock -F 499 --duration 1 -q -o "$d/a.data" 2>"$d/err" ||
	fail "prec --all-cgroups: $(cat "$d/err")"
$PREP -i "$d/a.data" --stdio --sort cgroup,pid 2>"$d/err" >"$d/rep" || fail "prep --sort cgroup: $(cat "$d/err")"
grep -q "^# Overhead  Cgroup" "$d/rep" || fail "--sort cgroup: no Cgroup column"
grep -Eq "%  /$name +$in:spin" "$d/rep" || fail "--sort cgroup: no /$name line for $in"
grep -Eq "%  / +$out:spin" "$d/rep" || fail "--sort cgroup: no / line for $out"
for f in "$name" "/$name"; do
	$PREP -i "$d/a.data" --stdio --sort pid --cgroup "$f" 2>/dev/null | grep -v '^#' | grep . >"$d/one"
	[ "$(wc -l <"$d/one")" -eq 1 ] && grep -q "100.00% *$in:spin" "$d/one" ||
		fail "--cgroup $f: $(cat "$d/one")"
done
$PREP -i "$d/g.data" --stdio --sort cgroup 2>/dev/null | grep -q "100.00%  N/A$" ||
	fail "--sort cgroup without cgroup data: not N/A"

# ---- prec stat -G: the spinner's CPU time, nothing else's ---------------------------
rt() { awk '{ print int($1 / 1000000) }' "/proc/$1/schedstat"; }
t0=$(rt "$in")
$PREC stat -a -e task-clock -G "$name" -x, -- sleep 0.5 2>"$d/st" || fail "stat -G: $(cat "$d/st")"
t1=$(rt "$in")
ms=$(awk -F, '$3 == "task-clock" { print int($1) }' "$d/st")
grep -q "^[0-9.]*,msec,task-clock,$name," "$d/st" || fail "stat -G -x,: no cgroup field: $(cat "$d/st")"
spun=$((t1 - t0))
[ "${ms:-0}" -ge $((spun * 70 / 100)) ] && [ "${ms:-0}" -le $((spun * 130 / 100 + 20)) ] ||
	fail "stat -G: task-clock ${ms:-?} ms in $name, the spinner ran $spun ms"

$PREC stat record -o "$d/st.data" -a -e task-clock -G "$name" -e cpu-clock -- sleep 0.3 2>"$d/live" ||
	fail "stat record -G: $(cat "$d/live")"
$PREP stat report -i "$d/st.data" >"$d/rep" 2>&1 || fail "stat report: $(cat "$d/rep")"
grep -Eq "msec task-clock +$name #" "$d/live" || fail "stat -G: no cgroup column: $(cat "$d/live")"
diff <(grep clock "$d/live") <(grep clock "$d/rep") >/dev/null ||
	fail "stat report differs from the live run: $(diff <(grep clock "$d/live") <(grep clock "$d/rep"))"

$PREC stat -a --for-each-cgroup "$name,/" -e task-clock,page-faults -x, -- sleep 0.2 2>"$d/fe" ||
	fail "--for-each-cgroup: $(cat "$d/fe")"
[ "$(cut -d, -f3,4 "$d/fe" | tr '\n' ' ')" = "task-clock,$name page-faults,$name task-clock,/ page-faults,/ " ] ||
	fail "--for-each-cgroup: events and cgroups: $(cut -d, -f3,4 "$d/fe" | tr '\n' ' ')"

# ---- an unprivileged user: refused at paranoid 2, saying why; works at -1 ---------
if [ -w /proc/sys/kernel/perf_event_paranoid ] && unpriv_init "$d/t"; then
	paranoid_set 2
	as_user $UPREC -a -e cpu-clock -G "$name" --duration 0.1 -o g.data 2>"$d/err" &&
		fail "user: prec -a -G taken at paranoid 2"
	grep -q "no permission to open event 'cpu-clock.*' system-wide .*perf_event_paranoid is 2" "$d/err" ||
		fail "user: prec -a -G: message: $(cat "$d/err")"
	as_user $UPREC stat -a -e task-clock -G "$name" -- true 2>"$d/err" &&
		fail "user: prec stat -a -G taken at paranoid 2"
	grep -q "no permission to open event 'task-clock.*' system-wide .*perf_event_paranoid is 2" "$d/err" ||
		fail "user: prec stat -a -G: message: $(cat "$d/err")"
	# where system-wide is allowed (paranoid <= 0), a user's -G works the same
	paranoid_set -1
	as_user $UPREC -a -e cpu-clock -G "$name" -F 499 --duration 0.5 -q -o ug.data 2>"$d/err" ||
		fail "user at paranoid -1: prec -a -G: $(cat "$d/err")"
	$PREP -D -i "$d/t/u/ug.data" 2>/dev/null | grep ' SAMPLE ' >"$d/samples"
	n_in=$(grep -c " pid $in " "$d/samples")
	[ "$n_in" -ge 20 ] && [ "$(wc -l <"$d/samples")" -eq "$n_in" ] ||
		fail "user at paranoid -1: -G: $n_in samples inside, $(wc -l <"$d/samples") in all"
	paranoid_restore
else
	echo "note: unprivileged part skipped: ${unpriv_why:-cannot set perf_event_paranoid}"
fi

exit $((failures > 0))
