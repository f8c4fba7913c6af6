#!/usr/bin/env bash
# The flame graph page of `prep flamegraph` in a real browser: headless
# Chromium loads it from a file, with the network off. The page's #test hash
# runs its checks through real DOM events (a mousemove and a click at the
# middle of a frame, input in the search box, the orientation and reset
# buttons) and writes what happened into the page, which --dump-dom prints:
# hover shows name, samples and percentage; a click zooms (the frame spans
# the canvas, frames outside it go); search highlights the frame and gives
# the designed share; reset zooms out. A screenshot of the zoomed, searched
# page is kept under $BUILD/test-logs/artifacts. Then the same on a made-up
# profile with 100k unique stacks (tools/gen_stacks.c), whose time to lay
# out and draw is printed, not judged (tests check behaviour).
set -u
B=${BUILD:-build}
PREC=./prec PREP=./prep
[ "$B" = build ] || { PREC=$B/prec; PREP=$B/prep; }
P=$B/tests/programs
ART=$B/test-logs/artifacts
PY=/usr/bin/python3
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

[ -r /proc/sys/kernel/perf_event_paranoid ] || { echo "no perf events on this kernel"; exit 77; }
if [ "$(id -u)" -ne 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ]; then
	echo "needs root or perf_event_paranoid <= 1"; exit 77
fi
CHROMIUM=$(command -v chromium || command -v chromium-browser) ||
	{ echo "chromium not installed (tools/deps.sh installs it)"; exit 77; }
mkdir -p "$ART"

# browser URL-HASH ARGS...: loads the page, network off, every step bounded;
# a profile of its own each time (two runs on one profile can meet while the
# first shuts down)
browser() {
	local url=$1; shift
	timeout -k 5 90 "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$(mktemp -d "$d/chrome.XXXXXX")" --host-resolver-rules='MAP * ~NOTFOUND' \
		--window-size=1280,900 --hide-scrollbars "$@" "$url" 2>>"$d/chrome.log"
}
# results FILE: the page's key=value lines
results() {
	$PY -c 'import html, re, sys
m = re.search(r"<pre id=\"test-result\">(.*?)</pre>", open(sys.argv[1]).read(), re.S)
print(html.unescape(m.group(1)) if m else "")' "$1"
}
val() { awk -F= -v k="$1" '$1 == k { sub(/^[^=]*=/, ""); print; exit }' "$2"; }
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }

$PREC -q -F 999 -g -o "$d/tree.data" -- $P/tree 300 >/dev/null 2>"$d/err" || fail "prec: $(cat "$d/err")"
$PREP flamegraph -i "$d/tree.data" -o "$d/tree.html" 2>"$d/err" || fail "flamegraph: exit $?: $(cat "$d/err")"

# ---- hover, click to zoom, search, orientation, reset ---------------------------
browser "file://$d/tree.html#test&hover=b1&click=b&search=^b2\$&orient=1&reset=1" --dump-dom >"$d/dom" ||
	fail "chromium --dump-dom: exit $? ($(tail -2 "$d/chrome.log"))"
results "$d/dom" >"$d/r"
[ -s "$d/r" ] || fail "the page ran no checks: $(head -c 300 "$d/dom")"
grep . "$d/r" | sed 's/^/  page: /'
tip=$(val tip "$d/r")
case $tip in b1\ \|\ *\ samples,\ *%\ of\ all*) ;; *) fail "hover: tooltip '$tip'" ;; esac
[ "$(val zoom "$d/r")" = b ] || fail "click on b: zoom is '$(val zoom "$d/r")'"
w=$(val canvas_px "$d/r")
within "$(val after_px "$d/r")" "$w" 1 || fail "zoomed b is $(val after_px "$d/r") px wide, canvas $w"
awk -v a="$(val before_px "$d/r")" -v w="$w" 'BEGIN { exit !(a > 0 && a < w / 2) }' ||
	fail "b was $(val before_px "$d/r") px before the click (designed 27% of $w)"
[ "$(val drawn_after "$d/r")" -lt "$(val drawn_before "$d/r")" ] ||
	fail "zoom kept every frame: $(val drawn_before "$d/r") -> $(val drawn_after "$d/r")"
[ "$(val reset_enabled "$d/r")" = true ] || fail "reset button not enabled when zoomed"
[ "$(val highlighted_names "$d/r")" = b2 ] && [ "$(val highlighted "$d/r")" -ge 1 ] ||
	fail "search ^b2\$: highlighted '$(val highlighted_names "$d/r")' ($(val highlighted "$d/r"))"
m=$(val matched "$d/r" | sed 's/^Matched: //; s/%$//')
within "${m:-0}" 15 3 || fail "search ^b2\$: matched '$m%', designed 15%"
root_y=$(val root_y "$d/r")
[ -n "$root_y" ] && [ "${root_y%->*}" != "${root_y#*->}" ] || fail "orientation switch: root at $root_y"
[ "$(val zoom_after_reset "$d/r")" = all ] || fail "reset: zoom '$(val zoom_after_reset "$d/r")'"

# ---- a screenshot of the zoomed, searched page --------------------------------------
# (once more when none came: a run under load once exited 0 without one, the
# cause not seen; its log is kept beside the screenshot)
shot() {
	rm -f "$ART/flamegraph-tree.png"
	browser "file://$d/tree.html#test&hover=b1&click=b&search=^b2\$" \
		--screenshot="$ART/flamegraph-tree.png" >/dev/null || fail "chromium --screenshot: exit $?"
	[ "$(head -c 8 "$ART/flamegraph-tree.png" 2>/dev/null | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] &&
		[ "$(stat -c %s "$ART/flamegraph-tree.png")" -gt 10000 ]
}
shot || { cp "$d/chrome.log" "$ART/flamegraph-chrome.log"; echo "no screenshot at first: again"; shot; } ||
	fail "no screenshot in $ART/flamegraph-tree.png"

# ---- 100k unique stacks ----------------------------------------------------------
if [ -x "$B/tools/gen_stacks" ]; then
	$B/tools/gen_stacks "$d/big.data" 100000 || fail "gen_stacks failed"
	n=$($PREP -i "$d/big.data" --folded 2>/dev/null | wc -l)
	[ "$n" -eq 100000 ] || fail "gen_stacks: $n unique stacks, not 100000"
	t0=$(date +%s.%N)
	$PREP flamegraph -i "$d/big.data" -o "$d/big.html" 2>"$d/err" || fail "flamegraph (100k): $(cat "$d/err")"
	t1=$(date +%s.%N)
	browser "file://$d/big.html#test&click=func_0004&search=func_0007" --dump-dom >"$d/bigdom" ||
		fail "chromium (100k): exit $?"
	results "$d/bigdom" >"$d/rb"
	[ "$(val zoom "$d/rb")" = func_0004 ] && within "$(val after_px "$d/rb")" "$(val canvas_px "$d/rb")" 1 ||
		fail "100k: click did not zoom: $(tr '\n' ' ' <"$d/rb")"
	[ "$(val highlighted_names "$d/rb")" = func_0007 ] || fail "100k: search: $(val highlighted_names "$d/rb")"
	printf '100k unique stacks: prep flamegraph %.2f s, %s bytes; in headless Chromium: %s tree nodes, %s frames drawn, layout + first draw %s ms (performance.now() around parse, layout, draw and a canvas read-back), page ready %s ms after navigation start\n' \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$(stat -c %s "$d/big.html")" "$(val nodes "$d/rb")" \
		"$(val drawn "$d/rb")" "$(val layout_draw_ms "$d/rb")" "$(val ready_ms "$d/rb")"
else
	fail "$B/tools/gen_stacks not built (make tests-build)"
fi

[ $failures -eq 0 ] && echo "flame graph page checks passed"
exit $((failures > 0))
