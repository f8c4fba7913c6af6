#!/usr/bin/env bash
# prec list: every software, hardware and cache name it lists opens with
# prec stat -e, or is refused as <not supported> exactly when it is marked
# "not supported here"; PMU event names parse; the software names and the
# tracepoints are perf list's; section keywords, globs and bad arguments;
# the layout in a pipe and on a terminal; tracefs mounted on first use when
# it is not; and the same as an unprivileged user, against perf list as that
# user.
. tests/e2e/lib/common.sh
. tests/e2e/lib/unpriv.sh
trap 'paranoid_restore; rm -rf "$d"' EXIT
TRACEFS=/sys/kernel/tracing

[ -r /proc/sys/kernel/perf_event_paranoid ] || { echo "no perf events on this kernel"; exit 77; }
have_perf=false
command -v perf >/dev/null && perf list sw >/dev/null 2>&1 && have_perf=true

# The event names of listing lines with this tag ("X OR Y" gives both).
names() { # TAG < listing
	grep -F "[$1" | sed 's/^  \(.*[^ ]\) *\[.*$/\1/' | sed 's/ OR /\n/g' | sort
}

# ---- every builtin name opens, or is refused as its mark says ------------------
$PREC list sw hw cache >"$d/builtin" 2>"$d/builtin.err" || fail "prec list sw hw cache failed: $(cat "$d/builtin.err")"
[ "$(grep -c 'Software event' "$d/builtin")" -ge 12 ] || fail "fewer than 12 software events"
[ "$(grep -c 'Hardware event' "$d/builtin")" -eq 10 ] || fail "not the 10 hardware events"
[ "$(grep -c 'Hardware cache event' "$d/builtin")" -eq 32 ] || fail "not the 32 cache events"
check_opens() { # PREC LISTING [MODS RUNNER]: each name (with :MODS) through prec stat
	local prec=$1 listing=$2 mods=${3:+:$3} run=${4:-} line name marked first
	while IFS= read -r line; do
		marked=false
		case $line in *"not supported here]") marked=true ;; esac
		for name in $(echo "$line" | sed 's/^  \(.*[^ ]\) *\[.*$/\1/; s/ OR / /g'); do
			$run $prec stat -e "$name$mods" -x, -- true >/dev/null 2>"$d/stat.err"
			first=$(grep -F ",$name$mods," "$d/stat.err" | head -1 | cut -d, -f1)
			if [ -z "$first" ]; then
				fail "prec stat -e $name: $(head -1 "$d/stat.err")"
			elif $marked && [ "$first" != "<not supported>" ]; then
				fail "$name is marked not supported, but prec stat counted $first"
			elif ! $marked && ! [[ $first =~ ^[0-9.]+$ ]]; then
				fail "$name is not marked, but prec stat says $first"
			fi
		done
	done <"$listing"
}
check_opens "$PREC" "$d/builtin"

# ---- PMU events parse ----------------------------------------------------------------
$PREC list pmu >"$d/pmu" 2>&1 || fail "prec list pmu failed"
for name in $(names "Kernel PMU event" <"$d/pmu" | grep -v '=?'); do
	$PREC stat -e "$name" -x, -- true >/dev/null 2>"$d/stat.err" ||
		fail "prec stat -e $name: $(head -1 "$d/stat.err")"
done
grep -v -e 'Kernel PMU event]$' -e 'Kernel PMU format]$' "$d/pmu" | grep . &&
	fail "prec list pmu printed other lines"

# ---- the same names as perf -------------------------------------------------------------
if $have_perf; then
	diff <(names "Software event" <"$d/builtin") <(perf list sw 2>/dev/null | names "Software event") >"$d/diff" ||
		{ fail "software names differ from perf list sw:"; cat "$d/diff"; }
	# perf leaves out what cannot be opened; what prec does not mark is perf's list
	for tag in "Hardware event" "Hardware cache event"; do
		diff <(grep -v 'not supported here' "$d/builtin" | names "$tag") \
			<(perf list hw cache 2>/dev/null | names "$tag") >"$d/diff" ||
			{ fail "supported $tag names differ from perf list:"; cat "$d/diff"; }
	done
	diff <($PREC list pmu | names "Kernel PMU event") <(perf list pmu 2>/dev/null | names "Kernel PMU event") >"$d/diff" ||
		{ fail "PMU events differ from perf list pmu:"; cat "$d/diff"; }
fi

# ---- tracefs: mounted on first use when it is not ---------------------------------------
tracefs_mounted() { grep -q " $TRACEFS tracefs " /proc/mounts; }
if [ "$(id -u)" -ne 0 ]; then
	echo "note: not root: tracefs mounting not checked"
elif tracefs_mounted && ! umount "$TRACEFS" 2>"$d/umount.err"; then
	echo "note: $TRACEFS is in use ($(cat "$d/umount.err")): mounting it on first use not checked"
else
	$PREC list tracepoint >"$d/tp" 2>"$d/tp.err" || fail "prec list tracepoint with tracefs unmounted: $(cat "$d/tp.err")"
	tracefs_mounted || fail "prec list tracepoint did not mount tracefs"
	[ -s "$d/tp" ] || fail "prec list tracepoint listed nothing after mounting tracefs"
	if umount "$TRACEFS" 2>/dev/null; then
		$PREC stat -e sched:sched_switch -x, -- true 2>"$d/stat.err" >/dev/null ||
			fail "prec stat -e sched:sched_switch with tracefs unmounted: $(head -1 "$d/stat.err")"
		tracefs_mounted || fail "prec stat -e sched:sched_switch did not mount tracefs"
	fi
fi

# ---- tracepoints -------------------------------------------------------------------------------
$PREC list tracepoint >"$d/tp" 2>"$d/tp.err"
rc=$?
if [ -r "$TRACEFS/events" ]; then
	[ $rc -eq 0 ] || fail "prec list tracepoint: exit $rc: $(cat "$d/tp.err")"
	grep -v 'Tracepoint event]$' "$d/tp" | grep . && fail "prec list tracepoint printed other lines"
	if $have_perf; then
		diff "$d/tp" <(perf list tracepoint 2>/dev/null) >"$d/diff" ||
			{ fail "prec list tracepoint differs from perf list tracepoint:"; head "$d/diff"; }
		diff <($PREC list 'sched:*') <(perf list 'sched:*' 2>/dev/null) >"$d/diff" ||
			{ fail "prec list 'sched:*' differs from perf's:"; head "$d/diff"; }
	fi
	# every tracepoint has an id the parser reads: try one per system
	for name in $(names "Tracepoint event" <"$d/tp" | sort -t: -k1,1 -u | head -20); do
		$PREC stat -e "$name" -x, -- true >/dev/null 2>"$d/stat.err" ||
			fail "prec stat -e $name: $(head -1 "$d/stat.err")"
	done
	$PREC list 'sched:sched_sw*' >"$d/out" || fail "prec list 'sched:sched_sw*' failed"
	grep -q '^  sched:sched_switch  ' "$d/out" || fail "prec list 'sched:sched_sw*' lacks sched_switch"
	grep -v '^  sched:sched_sw' "$d/out" && fail "prec list 'sched:sched_sw*' lists others"
fi

# ---- globs and sections -----------------------------------------------------------------------------
$PREC list '*clock*' >"$d/out" 2>&1 || fail "prec list '*clock*' failed"
for name in cpu-clock task-clock; do
	grep -q "^  $name  " "$d/out" || fail "prec list '*clock*' lacks $name"
done
names "" <"$d/out" | grep -v clock && fail "prec list '*clock*' lists names without 'clock'"
if $have_perf; then
	diff "$d/out" <(perf list '*clock*' 2>/dev/null | grep -v 'Tool event') >"$d/diff" ||
		{ fail "prec list '*clock*' differs from perf's:"; head "$d/diff"; }
	diff <($PREC list clock) "$d/out" >/dev/null || fail "prec list clock is not prec list '*clock*'"
fi
$PREC list cycles >"$d/out" || fail "prec list cycles failed"
grep -q '^  cpu-cycles OR cycles ' "$d/out" || fail "prec list cycles lacks cpu-cycles OR cycles"
for s in sw:"Software event" hw:"Hardware event" cache:"Hardware cache event"; do
	$PREC list "${s%%:*}" >"$d/out" 2>&1 || fail "prec list ${s%%:*} failed"
	grep -v -F "[${s#*:}" "$d/out" | grep . && fail "prec list ${s%%:*} printed other sections"
	grep -q . "$d/out" || fail "prec list ${s%%:*} printed nothing"
done
$PREC list >"$d/all" 2>"$d/all.err" || fail "prec list failed: $(cat "$d/all.err")"
grep -q '^  mem:<addr>\[/len\]\[:access\] .*\[Hardware breakpoint\]$' "$d/all" || fail "no breakpoint syntax line"
grep -q '^  rNNN .*\[Raw hardware event descriptor' "$d/all" || fail "no raw syntax line"
grep -q '^  cpu/t1=v1\[,t2=v2,t3 \.\.\.\]/modifier .*\[Raw hardware event descriptor' "$d/all" ||
	fail "no PMU raw syntax line"
for f in builtin pmu; do
	grep -v -x -F -f "$d/all" "$d/$f" && fail "prec list lacks lines of the $f sections"
done

# ---- layout: a pipe gets event lines only; a terminal perf's title ---------------------------------
grep -q $'\e' "$d/all" && fail "escape codes in a pipe"
grep -v '^  [^ ].* \[[^]]*\]$' "$d/all" | head -3 | grep . && fail "lines not in perf list's layout"
awk '{ if (index($0, " [") < 53) bad++ } END { exit bad > 0 }' "$d/all" ||
	fail "names not padded to 50 columns"
$PREC list 2>"$d/err" | head -1 >/dev/null
[ -s "$d/err" ] && fail "a closed pipe gave: $(cat "$d/err")"
if command -v script >/dev/null; then
	script -qc "$PREC list sw" /dev/null >"$d/tty" </dev/null
	tr -d '\r' <"$d/tty" | sed -n 2p | grep -qx 'List of pre-defined events (to be used in -e):' ||
		fail "no title on a terminal"
fi

# ---- bad arguments -------------------------------------------------------------------------------
bad() { # WANT_RC ARGS...
	local want=$1; shift
	$PREC list "$@" >"$d/out" 2>"$d/err"
	rc=$?
	[ $rc -eq "$want" ] || fail "prec list $*: exit $rc, want $want"
	[ "$(wc -l <"$d/err")" -eq 1 ] || fail "prec list $*: not one line on stderr: $(cat "$d/err")"
	grep -q '^prec list: ' "$d/err" || fail "prec list $*: message not 'prec list: ...'"
}
bad 129 --bogus
bad 129 sw -x
bad 129 ''
bad 1 no_such_event_anywhere
grep -q "no event matches 'no_such_event_anywhere'" "$d/err" || fail "no-match message: $(cat "$d/err")"
for h in -h --help; do
	$PREC list $h >"$d/out" 2>"$d/err" || fail "prec list $h: exit $?"
	grep -q '^usage: prec list ' "$d/out" || fail "prec list $h: no usage on stdout"
	[ -s "$d/err" ] && fail "prec list $h wrote to stderr"
done

# ---- as an unprivileged user ---------------------------------------------------------------------------
chmod o+x "$d"	# the user goes through it to its copy of prec
if ! unpriv_init "$d/unpriv"; then
	echo "note: unprivileged checks skipped: $unpriv_why"
else
	as_user "$UPREC" list >"$d/u.all" 2>"$d/u.err"
	rc=$?
	[ $rc -eq 0 ] || fail "prec list as a user: exit $rc: $(cat "$d/u.err")"
	as_user "$UPREC" list sw hw cache >"$d/u.builtin" 2>/dev/null
	diff "$d/u.builtin" "$d/builtin" >/dev/null || fail "a user's builtin listing differs from root's"
	# user space only: perf_event_paranoid may keep a user out of the kernel
	check_opens "$UPREC" "$d/u.builtin" u as_user
	if $have_perf; then
		diff <(names "Software event" <"$d/u.all") <(as_user perf list 2>/dev/null | names "Software event") >"$d/diff" ||
			{ fail "a user's software names differ from perf list's:"; cat "$d/diff"; }
		diff <(names "Tracepoint event" <"$d/u.all") <(as_user perf list 2>/dev/null | names "Tracepoint event") >"$d/diff" ||
			{ fail "a user's tracepoints differ from perf list's:"; head "$d/diff"; }
	fi
	if ! as_user test -r "$TRACEFS/events"; then
		# no tracepoints for this user: one note, the rest listed
		grep -q 'Tracepoint event' "$d/u.all" && fail "a user without tracefs got tracepoints"
		[ "$(wc -l <"$d/u.err")" -eq 1 ] && grep -q '^prec list: no tracepoints: ' "$d/u.err" ||
			fail "a user without tracefs: not one note: $(cat "$d/u.err")"
		as_user "$UPREC" list tracepoint >"$d/out" 2>"$d/err" && fail "prec list tracepoint as a user without tracefs: exit 0"
		[ "$(wc -l <"$d/err")" -eq 1 ] || fail "prec list tracepoint as a user: $(cat "$d/err")"
		as_user "$UPREC" stat -e sched:sched_switch -- true >/dev/null 2>"$d/err" &&
			fail "prec stat -e sched:sched_switch as a user without tracefs: exit 0"
		grep -q "tracepoint 'sched:sched_switch': " "$d/err" || fail "prec stat tracepoint as a user: $(head -1 "$d/err")"
	fi
fi

[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "prec list: all checks passed"
