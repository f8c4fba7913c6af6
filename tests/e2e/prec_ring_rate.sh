#!/usr/bin/env bash
# The default ring buffers grow with the sampling frequency (issue 20): above
# 25 kHz each holds a quarter of a second of 160-byte samples of each event
# sampled at -F (at most 8 MiB a CPU), so that a drain kept from the CPU a
# while by a loaded machine does not let the kernel drop samples. -m still
# decides; -c (no frequency) keeps the default; an unprivileged user's rings
# still fit the locked-memory limits (paranoid 2, restored on every exit).
# A drain pass takes the rings in turn, 256 KiB of whole records at a time
# (record/drain.c): a --call-graph dwarf recording, whose passes hold MiBs,
# is written in spans of at most that, and reads back whole and in order.
. tests/e2e/lib/common.sh
. tests/e2e/lib/unpriv.sh
trap 'paranoid_restore; rm -rf "$d"' EXIT
need_perf_events 1

maxrate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
[ "$maxrate" -ge 100000 ] || { echo "perf_event_max_sample_rate is $maxrate (under 100000)"; exit 77; }
page=$(getconf PAGESIZE)

ring_kb() { # the ring size prec -v says it chose, in KiB
	sed -n 's/.* ring buffers of \([0-9]*\) KiB$/\1/p' "$1"
}

check() { # want_kib, then prec's options (the command is /bin/true)
	local want=$1; shift
	# shellcheck disable=SC2068
	$PREC -v -o "$d/r.data" $@ -- /bin/true >/dev/null 2>"$d/err" ||
		{ fail "prec $*: $(tail -1 "$d/err")"; return; }
	got=$(ring_kb "$d/err")
	[ "$got" = "$want" ] || fail "prec $*: rings of ${got:-?} KiB, want $want"
}

if [ "$(id -u)" -eq 0 ]; then
	# one page of the ring is its header: the data part is what -v shows
	check $((256 * page / 1024)) -F 999
	check $((256 * page / 1024)) -F 25000 -g
	check $((1024 * page / 1024)) -F 100000 -g
	check $((512 * page / 1024)) -F 50000
	check $((2048 * page / 1024)) -e cpu-clock,task-clock -F 100000
	check $((16 * page / 1024)) -F 100000 -m 16
	check $((256 * page / 1024)) -c 10000
	check $((2048 * page / 1024)) -F 100000 --call-graph dwarf
	# a recording at that rate reads back whole
	$PREC -q -F 100000 -g -o "$d/hi.data" -- "$P/spin" 300 >/dev/null 2>"$d/err" ||
		fail "-F 100000 -g: $(cat "$d/err")"
	$PREP -i "$d/hi.data" --stdio --sort sym 2>/dev/null | grep -q spin_work ||
		fail "-F 100000 -g: spin_work not in the report"
fi

whole() { # FILE: every record decoded, in order, none lost or damaged
	$PREP -i "$1" --stdio --stats 2>/dev/null >"$d/stats"
	for what in "undecodable records" "lost samples" "out of order"; do
		grep -Eq "^ *$what *: +0$" "$d/stats" || fail "$1: $(grep "$what" "$d/stats")"
	done
	grep -Eq "blocks *: +0 corrupt, 0 skipped, 0 bytes ignored" "$d/stats" ||
		fail "$1: $(grep 'blocks ' "$d/stats")"
}

# ---- the drain's pieces ----------------------------------------------------------
$PREC -F 4000 --call-graph dwarf -o "$d/dw.data" -- "$P/spin" 400 >/dev/null 2>"$d/err" ||
	fail "dwarf: $(tail -1 "$d/err")"
n=$(sed -n 's/.*(\([0-9]*\) samples, 0 lost).*/\1/p' "$d/err")
whole "$d/dw.data"
got=$(awk '/SAMPLE events:/ { print $3 }' "$d/stats")
[ -n "$n" ] && [ "$got" = "$n" ] || fail "dwarf: prec wrote ${n:-?} samples, prep read ${got:-?}"
$PREP dump -i "$d/dw.data" 2>/dev/null | awk '/^ *span cpu/ { b = $4 + 0; if (b > max) max = b; if (b > 200000) big++ }
	END { print max + 0, big + 0 }' >"$d/spans"
read -r max big <"$d/spans"
[ "$max" -le 262144 ] || fail "dwarf: a span of $max bytes (a drain piece is 256 KiB at most)"
[ "$big" -ge 2 ] || fail "dwarf: $big spans near 256 KiB: the passes were not cut in pieces"
[ -f "$d/hi.data" ] && whole "$d/hi.data"

# ---- an unprivileged user: the rings fit the locked-memory limits ---------------
[ -w /proc/sys/kernel/perf_event_paranoid ] || { echo "cannot set perf_event_paranoid (not root)"; exit 77; }
unpriv_init "$d/t" || { echo "$unpriv_why"; exit 77; }
paranoid_set 2
as_user $UPREC -v -F 100000 -g -o hi.data -- $UP/spin 300 >/dev/null 2>"$d/err" ||
	fail "unprivileged -F 100000 -g: $(tail -1 "$d/err")"
got=$(ring_kb "$d/err")
budget=$(( $(cat /proc/sys/kernel/perf_event_mlock_kb) * $(getconf _NPROCESSORS_ONLN) ))
lim=$(as_user sh -c 'ulimit -l')
[ "$lim" = unlimited ] || budget=$((budget + lim))
[ -n "$got" ] && [ $(((got + page / 1024) * $(getconf _NPROCESSORS_ONLN))) -le "$budget" ] ||
	fail "unprivileged: rings of ${got:-?} KiB on $(getconf _NPROCESSORS_ONLN) CPUs over ${budget} KiB"
echo "unprivileged rings: $got KiB, budget $budget KiB"
as_user $UPREP -i hi.data --stdio --sort sym 2>/dev/null | grep -q spin_work ||
	fail "unprivileged -F 100000 -g: spin_work not in the report"

[ $failures -eq 0 ] || { echo "$failures failures"; exit 1; }
echo "all ring size checks passed"
