#!/usr/bin/env bash
# The differential flame graph (prep flamegraph --diff) in headless Chromium
# (network off), driven by the page's #test hash as prep_flamegraph.sh does,
# and the two-column folded form (prep export difffolded).
#
# tests/programs/moved in two builds (v1/moved, v2/moved: the same basename
# in two folders) moves 15 points of the samples into grow and 10 out of
# shrink; gone (10) is only in v1, fresh (5) only in v2, steady (40) stays.
# One recording a side (prec.data OLD, and a perf.data NEW where perf is
# installed): grow and fresh are red, shrink and gone blue, steady and mid
# grey (self colouring; mid red with total colouring); gone is listed as
# only in OLD and drawn with OLD's widths; the hover text's NEW and OLD
# samples, both shares and the change match an awk computation over the two
# recordings' prep export folded lines (within rounding); search and zoom
# work; nothing is fetched; a screenshot is kept under
# $BUILD/test-logs/artifacts. Three runs of the same build a side: Welch's
# test, and at --alpha 0.01 nothing is marked (every frame drawn grey).
# prep export difffolded: line for line what awk makes of the two sides'
# prep export folded lines (joined by stack, 0 where missing, runs summed,
# --normalize scaling OLD to NEW's total, rounded), and perf diff's default
# sides (prec.data.old prec.data; one argument is NEW).
. tests/e2e/lib/common.sh
trap e2e_cleanup EXIT
need_perf_events 2
for v in 1 2; do
	[ -x "$P/v$v/moved" ] || { echo "$P/v$v/moved is not built (make tests-build)"; exit 77; }
done
CHROMIUM=$(command -v chromium || command -v chromium-browser) ||
	{ echo "chromium not installed (tools/deps.sh installs it)"; exit 77; }
top=$PWD
ART=$top/$B/test-logs/artifacts
mkdir -p "$ART"
cd "$d" || exit 1

browser() {   # URL [chromium options]: the page's key=value results on stdout
	local url=$1; shift
	timeout -k 5 90 "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$(mktemp -d "$d/chrome.XXXXXX")" --host-resolver-rules='MAP * ~NOTFOUND' \
		--window-size=1280,900 --hide-scrollbars "$@" "$url" 2>>"$d/chrome.log" |
	/usr/bin/python3 -c 'import html, re, sys
m = re.search(r"<pre id=\"test-result\">(.*?)</pre>", sys.stdin.read(), re.S)
print(html.unescape(m.group(1)) if m else "")'
}
val() { awk -F= -v k="$1" '$1 == k { sub(/^[^=]*=/, ""); print; exit }' "$2"; }
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= t) }'; }

rec() {   # OUT VERSION
	$PREC -q -F 999 -g -o "$1" -- "$P/v$2/moved" 300 >/dev/null 2>>rec.err || fail "prec $1: $(tail -1 rec.err)"
}
rec v1.data 1
rec v2.data 2
for i in 1 2 3; do rec a$i.data 1; rec b$i.data 1; done

# ---- one run a side --------------------------------------------------------------
$PREP flamegraph --no-inline --diff v1.data v2.data -o d.html 2>err || fail "flamegraph --diff: exit $?: $(cat err)"
browser "file://$d/d.html#test&frames=grow,shrink,steady,mid,gone,fresh&hover=grow&click=mid&search=^grow\$&reset=1" \
	--dump-dom >r
[ -s r ] || fail "the page ran no checks"
grep . r | grep -v '^difftext=' | sed 's/^/  page: /'
[ "$(val diff_runs r)" = 1+1 ] && [ "$(val diff_test r)" = z ] || fail "runs $(val diff_runs r), test $(val diff_test r)"
col() { val "colour_$1" r | cut -d' ' -f1; }
[ "$(col grow)" = red ] || fail "grow (grew 15 points) is '$(val colour_grow r)', not red"
[ "$(col fresh)" = red ] || fail "fresh (new, 5 points) is '$(val colour_fresh r)', not red"
[ "$(col shrink)" = blue ] || fail "shrink (shrank 10 points) is '$(val colour_shrink r)', not blue"
case $(val colour_gone r) in blue*not-drawn) ;; *) fail "gone (only in OLD) is '$(val colour_gone r)'" ;; esac
[ "$(col steady)" = neutral ] || fail "steady (unchanged) is '$(val colour_steady r)', not grey"
[ "$(col mid)" = neutral ] || fail "mid (no samples of its own) is '$(val colour_mid r)'"
case $(val colour_grow r) in *"rgb(255,0,0)"*) ;; *) fail "grow, the largest change, is not full red: $(val colour_grow r)" ;; esac
case $(val difftext r) in *"two-proportion z test"*"false discovery rate of 0.05"*) ;;
	*) fail "the page does not say which test and threshold: $(val difftext r)" ;; esac
case $(val gone_list r) in *gone:*) ;; *) fail "gone is not listed as only in OLD: $(val gone r)" ;; esac
near "$(val gone_list r | tr ',' '\n' | sed -n 's/^gone://p')" 10 2 || fail "gone's OLD share: $(val gone_list r)"

# the recordings' numbers, from their folded lines: samples and shares of grow
$PREP export folded --no-inline -i v1.data >v1.folded
$PREP export folded --no-inline -i v2.data >v2.folded
shares() {   # FOLDED FRAME: "TOTAL_SAMPLES TOTAL% SELF%" (total: lines through it, self: ending in it)
	awk -v f="$2" '{ n = $NF; sub(/ [0-9]+$/, ""); t += n; k = split($0, a, ";")
		for (i = 1; i <= k; i++) if (a[i] == f) { in_ += n; break }
		if (a[k] == f) self += n }
	END { printf "%d %.6f %.6f\n", in_, 100 * in_ / t, 100 * self / t }' "$1"
}
read -r o_n o_tot o_self <<<"$(shares v1.folded grow)"
read -r n_n n_tot n_self <<<"$(shares v2.folded grow)"
tip=$(val tip r)
echo "  folded: grow OLD $o_n samples, total $o_tot%, self $o_self%; NEW $n_n, $n_tot%, $n_self%"
# "grow | NEW N samples, OLD N samples | total: OLD x% → NEW y% (+d points), p ...: changed | self: ..."
case $tip in "grow | NEW $n_n samples, OLD $o_n samples | total: OLD "*) ;; *) fail "hover: '$tip'" ;; esac
for m in total self; do
	line=$(printf '%s\n' "$tip" | tr '|' '\n' | sed -n "s/^ *$m: OLD \([0-9.]*\)% → NEW \([0-9.]*\)% (\([-+0-9.]*\) points).*/\1 \2 \3/p")
	read -r po pn pd <<<"$line"
	eo=$o_tot en=$n_tot; [ $m = self ] && { eo=$o_self; en=$n_self; }
	near "$po" "$eo" 0.006 && near "$pn" "$en" 0.006 && near "$pd" "$(awk -v a="$en" -v b="$eo" 'BEGIN { print a - b }')" 0.006 ||
		fail "hover $m: OLD $po% NEW $pn% change $pd, the recordings: $eo% $en%"
done
case $tip in *"total: "*": changed |"*"self: "*": changed |"*) ;; *) fail "hover: grow's change not marked: '$tip'" ;; esac
[ "$(val zoom r)" = mid ] && near "$(val after_px r)" "$(val canvas_px r)" 1 || fail "click on mid: zoom '$(val zoom r)', $(val after_px r) px"
[ "$(val highlighted_names r)" = grow ] || fail "search ^grow\$: highlighted '$(val highlighted_names r)'"
m=$(val matched r)
near "$(echo "$m" | sed -n 's/^Matched: \([0-9.]*\)% of NEW.*/\1/p')" "$n_tot" 0.006 &&
	near "$(echo "$m" | sed -n 's/.* of NEW, \([0-9.]*\)% of OLD$/\1/p')" "$o_tot" 0.006 || fail "search: '$m'"
[ "$(val zoom_after_reset r)" = all ] || fail "reset: zoom '$(val zoom_after_reset r)'"
[ "$(val resources r)" = 0 ] || fail "the page fetched $(val resources r) resources (not self-contained)"
grep -qiE '(src|href)="(https?:)?//|fetch\(|XMLHttpRequest' d.html && fail "the page names an external resource"

# OLD's widths draw what NEW lost; total colouring makes mid (grow's caller) red
browser "file://$d/d.html#test&widths=old&metric=total&frames=gone,mid,shrink" --dump-dom >r2
[ "$(val widths r2)" = old ] && [ "$(val metric r2)" = total ] || fail "switches: $(val widths r2) $(val metric r2)"
case $(val colour_gone r2) in blue*\ drawn) ;; *) fail "OLD's widths: gone is '$(val colour_gone r2)'" ;; esac
[ "$(val colour_mid r2 | cut -d' ' -f1)" = red ] || fail "total colouring: mid is '$(val colour_mid r2)'"
[ "$(val colour_shrink r2 | cut -d' ' -f1)" = blue ] || fail "total colouring: shrink is '$(val colour_shrink r2)'"

rm -f "$ART/flamegraph-diff.png"
browser "file://$d/d.html#test&hover=grow" --screenshot="$ART/flamegraph-diff.png" >/dev/null
[ "$(stat -c %s "$ART/flamegraph-diff.png" 2>/dev/null || echo 0)" -gt 10000 ] || fail "no screenshot in $ART/flamegraph-diff.png"
echo "page of one run a side: $(stat -c %s d.html) bytes, $(val nodes r) frames"

# a perf.data NEW against a prec.data OLD
if command -v perf >/dev/null && perf_rec -q -e cpu-clock -F 999 -g -o v2.perf.data -- "$P/v2/moved" 300 >/dev/null 2>&1; then
	$PREP flamegraph --no-inline --diff v1.data v2.perf.data -o p.html 2>err || fail "--diff with perf.data: $(cat err)"
	browser "file://$d/p.html#test&frames=grow,shrink" --dump-dom >rp
	[ "$(val colour_grow rp | cut -d' ' -f1)" = red ] && [ "$(val colour_shrink rp | cut -d' ' -f1)" = blue ] ||
		fail "prec.data OLD, perf.data NEW: grow '$(val colour_grow rp)', shrink '$(val colour_shrink rp)'"
else
	echo "perf record unavailable: no perf.data side"
fi

# ---- three runs of the same build a side: nothing beyond the noise ---------------------
$PREP flamegraph --no-inline --alpha 0.01 --base a1.data,a2.data,a3.data --new b1.data,b2.data,b3.data \
	-o s.html 2>err || fail "flamegraph --base/--new: $(cat err)"
browser "file://$d/s.html#test&hover=steady&frames=grow,shrink,steady,gone" --dump-dom >rs
grep -E '^(diff_|drawn|tip|colour)' rs | sed 's/^/  same build: /'
[ "$(val diff_runs rs)" = 3+3 ] && [ "$(val diff_test rs)" = welch ] || fail "3+3 runs: $(val diff_runs rs) $(val diff_test rs)"
[ "$(val diff_marked rs)" = 0,0 ] || fail "the same build a side: $(val diff_marked rs) frames marked at alpha 0.01"
[ "$(val drawn_neutral rs)" = "$(val drawn_now rs)" ] || fail "$(val drawn_neutral rs) of $(val drawn_now rs) frames grey"
case $(val difftext rs) in *"Welch's t test"*"false discovery rate of 0.01"*) ;; *) fail "test named: $(val difftext rs)" ;; esac
case $(val tip rs) in *"total: OLD "*" ±"*" → NEW "*" ±"*"within the noise"*) ;; *) fail "hover with runs: $(val tip rs)" ;; esac
echo "page of three runs a side: $(stat -c %s s.html) bytes"

# ---- difffolded against awk over the sides' folded lines ---------------------------------
# join FOLDED_OLD FOLDED_NEW [normalize]: "stack old new", as difffolded.pl (-n: rounded)
join_awk() {
	awk -v norm="${3:-0}" '
	{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s) }
	FNR == NR { o[s] += n; t1 += n; all[s] = 1; next }
	{ w[s] += n; t2 += n; all[s] = 1 }
	END { for (s in all) { a = o[s] + 0
		if (norm && t1 && t1 != t2) a = int(a * t2 / t1 + 0.5)
		print s, a, w[s] + 0 } }' "$1" "$2" | LC_ALL=C sort
}
check_folded() {   # NAME "PREP ARGS" EXPECTED
	# shellcheck disable=SC2086
	$PREP export difffolded $2 >"$1.out" 2>"$1.err" || fail "difffolded $2: exit $?: $(cat "$1.err")"
	[ -s "$1.out" ] || fail "difffolded $2: no lines"
	diff "$3" "$1.out" >"$1.diff" || fail "difffolded $2: $(head -4 "$1.diff" | tr '\n' ' ')"
}
$PREP export folded -i v1.data >v1.all
$PREP export folded -i v2.data >v2.all
join_awk v1.all v2.all >want1
check_folded plain "v1.data v2.data" want1
join_awk v1.all v2.all 1 >want2
check_folded norm "--normalize v1.data v2.data" want2
t1=$(awk '{ t += $NF } END { print t }' v1.all) t2=$(awk '{ t += $NF } END { print t }' v2.all)
# (totals close enough, e.g. 622 and 621, leave every count as it was)
moves=$(awk -v a="$t1" -v b="$t2" '{ if (int($NF * b / a + 0.5) != $NF) n++ } END { print n + 0 }' v1.all)
[ "$moves" -gt 0 ] && cmp -s want1 want2 && fail "--normalize changed nothing (totals $t1 and $t2)"
# runs summed; --with the folded lines' options
$PREP export folded -i a1.data --with no-comm,kernel >a1.f
$PREP export folded -i a2.data --with no-comm,kernel >a2.f
$PREP export folded -i v2.data --with no-comm,kernel >v2.f
cat a1.f a2.f >a12.f
join_awk a12.f v2.f >want3
check_folded runs "--with no-comm,kernel --base a1.data,a2.data --new v2.data" want3
# every line: three fields, the stack as the folded lines have it
awk 'NF < 3 || $(NF-1) !~ /^[0-9]+$/ || $NF !~ /^[0-9]+$/ { bad++ } END { exit bad > 0 }' plain.out ||
	fail "difffolded: a line is not 'stack old new'"
# perf diff's sides: prec.data.old prec.data, one argument is NEW
cp v1.data prec.data.old && cp v2.data prec.data
check_folded defaults "" want1
check_folded one_arg "prec.data" want1
cp v1.data prec.data
$PREP export difffolded v2.data >one.out && cmp -s one.out plain.out ||
	fail "prep export difffolded NEW: not prec.data.old against NEW"
echo "difffolded: $(wc -l <plain.out) lines, as awk joins the two folded outputs"

[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
echo "differential flame graph checks passed"
