#!/usr/bin/env bash
# prep diff against the noise, on runs recorded here by prec -F 4999 of the
# two versions of tests/programs/diffprog (grow 30 -> 35, shrink 40 -> 35,
# steady 20 and small 10 alike; PROFILES.md):
#  - three runs a side (comma lists, and the same as --base/--new) mark grow
#    and shrink changed, by about 5 points each way, at alpha 0.05 after
#    Holm's correction over every entry, and the header says so;
#  - three runs of the same version a side mark nothing: 20 pairs of trios,
#    each drawn at random (seeded) without replacement from a pool of ten
#    runs of version 1, so each pair compares six different runs; the pairs
#    share runs, so they are not independent trials, but each is a fair
#    comparison of one version with itself. With Holm's correction at
#    most 3 of the 20 may mark anything (the family-wise rate it bounds is
#    5%); without correction, the share of the tests of the program's four
#    functions that come out "changed" is printed (the per-test rate, which
#    should be near the level), and must stay under 20%;
#  - one run a side with --error: the z test of the sample counts;
#    --significant hides the rest; the combinations that make no sense with
#    the noise columns are refused in one line;
#  - the report's --error column: sqrt(p (1 - p) / N) of each share, N the
#    samples of the event, with --children, -n and --group; not with
#    --folded.
. tests/e2e/lib/common.sh
trap 'rm -rf "$d"' EXIT
need_perf_events 2
export LC_ALL=C
cd "$d" || exit 1

rec() { # FILE VERSION
	$PREC -q -F 4999 -e cpu-clock -o "$1" -- "$P/diff$2/diffprog" 250 >/dev/null 2>"$1.err" ||
		{ echo "prec failed: $(head -1 "$1.err")"; exit 77; }
}
for i in 0 1 2 3 4 5 6 7 8 9; do rec a$i.data 1; done
for i in 0 1 2; do rec b$i.data 2; done

# row NAME FILE: the row of symbol NAME (fields: base, ±, spread, delta, ±, error, p,
# verdict, ...)
row() { awk -v n="$1" '$NF == n' "$2"; }

# ---- a designed change -----------------------------------------------------
$PREP diff a0.data,a1.data,a2.data b0.data,b1.data,b2.data >out 2>err || fail "prep diff of runs: $(head -1 err)"
grep -q '^#  \[0\] a0.data,a1.data,a2.data (Baseline, 3 runs)$' out || fail "no data files line for the baseline"
grep -qE "^# Noise: Welch's t test of the runs' shares \(3 against 3 runs\), p adjusted by Holm's method over [0-9]+ entries \(of [0-9]+: the others have too few samples to pass, Tarone\); changed where p < 0.05$" out ||
	fail "the header does not say which test: $(grep '^# Noise' out)"
grep -q '^# Baseline   Spread  Delta Abs    Error        p  Verdict  Shared Object' out || fail "no noise columns: $(grep '^# Base' out)"
for f in grow:3:7 shrink:-7:-3; do
	IFS=: read -r name lo hi <<<"$f"
	r=$(row $name out)
	[ "$(echo "$r" | awk '{ print $8 }')" = changed ] || fail "3 runs a side: $name not marked changed: $r"
	echo "$r" | awk -v lo=$lo -v hi=$hi '{ d = $4; sub(/%/, "", d); exit !(d + 0 > lo && d + 0 < hi) }' ||
		fail "3 runs a side: $name moved '$(echo "$r" | awk '{ print $4 }')', designed 5 points"
done
$PREP diff --base a0.data,a1.data,a2.data --new b0.data,b1.data,b2.data >out2 2>&1
cmp -s out out2 || fail "--base/--new differ from the positional lists"
$PREP diff --significant a0.data,a1.data,a2.data b0.data,b1.data,b2.data >sig 2>&1
grep -q ' changed ' sig && ! grep -q ' noise ' sig || fail "--significant shows noise rows or no changed ones"
row grow sig | grep -q changed || fail "--significant hides grow"

# ---- the same version against itself --------------------------------------
awk -v seed=17 'BEGIN { srand(seed); for (p = 0; p < 20; p++) { n = 0; split("", used)
	while (n < 6) { i = int(rand() * 10); if (!(i in used)) { used[i] = 1; pick[n++] = i } }
	printf "a%d.data,a%d.data,a%d.data a%d.data,a%d.data,a%d.data\n", pick[0], pick[1], pick[2],
		pick[3], pick[4], pick[5] } }' >pairs
any=0 tests=0 marked=0
while read -r base new; do
	# shellcheck disable=SC2086
	$PREP diff -q $base $new >same 2>err || fail "prep diff $base $new: $(head -1 err)"
	grep -q ' changed ' same && { any=$((any + 1)); echo "same version marked changed: $base $new: $(grep ' changed ' same | head -2)"; }
	# shellcheck disable=SC2086
	$PREP diff -q --correction none $base $new >raw 2>/dev/null
	for f in grow shrink steady small; do
		tests=$((tests + 1))
		row $f raw | grep -q ' changed ' && marked=$((marked + 1))
	done
done <pairs
rate=$(awk -v m=$marked -v t=$tests 'BEGIN { printf "%.1f", 100 * m / t }')
echo "same version, 20 pairs of 3 runs: $any pairs with a change after Holm's correction; without correction $marked of $tests tests of the program's functions ($rate%) at alpha 0.05"
[ $any -le 3 ] || fail "$any of 20 same-version pairs marked a change (at most 3 expected at alpha 0.05)"
awk -v r=$rate 'BEGIN { exit !(r < 20) }' || fail "uncorrected false-positive rate $rate%"

# ---- one run a side, and what is refused ------------------------------------
$PREP diff --error a0.data b0.data >one 2>err || fail "--error: $(head -1 err)"
grep -q "^# Noise: z test of the two shares, from their sample counts (1 against 1 run)" one ||
	fail "--error: no z test header: $(grep '^# Noise' one)"
row grow one | grep -q changed || fail "--error: grow not changed with ~2500 samples a side: $(row grow one)"
$PREP diff --alpha 0.01 --correction bh a0.data,a1.data b0.data,b1.data >bh 2>&1
grep -qE "Benjamini-Hochberg's method \(false discovery rate\) over [0-9]+ entries( \(of [0-9]+: .*Tarone\))?; changed where p < 0.01" bh ||
	fail "--alpha/--correction bh: header $(grep '^# Noise' bh)"
for args in "-c ratio" "-c wdiff:1,2" "-p" "-F"; do
	# shellcheck disable=SC2086
	$PREP diff $args a0.data,a1.data b0.data,b1.data >/dev/null 2>err; rc=$?
	[ $rc -eq 129 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "noise columns" err ||
		fail "prep diff $args with runs: exit $rc, $(cat err)"
done

# ---- prep --error ------------------------------------------------------------
# check_error FILE OPTIONS...: without --children, each "± x.xx%" after a
# share is that share's error from the event's sample count N (the sum of
# -n's column: every entry is listed); cells are rounded to 0.01
check_error() {
	local f=$1; shift
	$PREP -i "$f" "$@" -n --stdio -g none >rep 2>err || { fail "prep $* -n: $(head -1 err)"; return; }
	grep -q '^# Overhead    Error       Samples' rep ||
		fail "prep $* -n: no Error column: $(grep '^# Overhead' rep)"
	awk '$1 ~ /%$/ && $2 == "±" { p[++r] = $1; e[r] = $3; n += $4 }
	     END { for (i = 1; i <= r; i++) {
			x = p[i]; sub(/%/, "", x); y = e[i]; sub(/%/, "", y)
			# the share is rounded too: where it is small (one sample)
			# its error moves fast with it, so take the shares it may be
			lo = x - 0.005; if (lo < 0) lo = 0; hi = x + 0.005
			wlo = 100 * sqrt((lo / 100) * (1 - lo / 100) / n)
			whi = 100 * sqrt((hi / 100) * (1 - hi / 100) / n)
			if (y - whi > 0.006 || wlo - y > 0.006) { print p[i], e[i], "want", wlo, "to", whi; bad = 1 }
		  }
		  exit bad || !r }' rep || fail "prep $* -n: an error is not sqrt(p (1 - p) / N)"
}
check_error a0.data --sort sym --error
$PREC -q -F 4999 -g -e cpu-clock -o g.data -- "$P/diff1/diffprog" 100 >/dev/null 2>&1
check_error g.data --sort sym --error --no-children
$PREP -i g.data --sort sym --error --children -g none >ch 2>&1
grep -q '^# Children    Error      Self    Error  Symbol' ch || fail "--error --children: $(grep '^# Children' ch)"
# main's self share: none by design, now and then one sample in its own
# loop (0.11%, a fresh-clone run): under 1% with its error
grep -qE '^ +9[0-9]\.[0-9]+%  ± [0-9. ]+% +0\.[0-9]{2}%  ± 0\.[0-9]{2}%  \[\.\] main$' ch ||
	fail "--error --children: main's row: $(grep 'main$' ch)"
$PREC -q -F 999 -e cpu-clock,task-clock -o two.data -- "$P/diff1/diffprog" 100 >/dev/null 2>&1
$PREP -i two.data --group --sort sym --error >grp 2>&1
grep -qE '^# +Overhead +Error  Symbol' grp && grep -qE '^ +[0-9.]+% +[0-9.]+% +± [0-9. ]+% ± [0-9. ]+%  \[\.\] grow$' grp ||
	fail "--error --group: $(grep -E '^# +Overhead|grow$' grp)"
$PREP -i a0.data --error --folded >/dev/null 2>err; rc=$?
[ $rc -eq 129 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q -- '--error: not with --folded' err ||
	fail "--error --folded: exit $rc, $(cat err)"

[ $failures -eq 0 ] && echo "prep diff tells the designed change from the noise"
exit $((failures > 0))
