#!/usr/bin/env bash
# The exports on perf.data input: a file recorded here by perf record -g
# from the tree program gives, through prep --folded, export --speedscope,
# export --pprof and flamegraph, the same samples and the same shares as
# prep's report of that file (which prep_perfdata.sh compares with perf's).
. tests/e2e/lib/perf.sh
set -u
B=${BUILD:-build}
PREP=./prep
[ "$B" = build ] || PREP=$B/prep
P=$B/tests/programs
PY=/usr/bin/python3
SCHEMA=tests/speedscope/file-format-schema.json
command -v perf >/dev/null || { echo "perf is not installed"; exit 77; }
[ "$(id -u)" -eq 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 1 ] ||
	{ echo "needs root or perf_event_paranoid <= 1"; exit 77; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
export LC_ALL=C
unset DEBUGINFOD_URLS
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

perf_rec -q -e cpu-clock -F 999 -g -o "$d/p.data" -- "$P/tree" 300 >/dev/null 2>&1 ||
	{ echo "perf record failed"; exit 77; }
samples=$($PREP -i "$d/p.data" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
[ "${samples:-0}" -gt 100 ] || fail "prep counts ${samples:-no} samples in the perf.data file"

# folded: the counts add up to the samples; a1's share is the report's
$PREP -i "$d/p.data" --folded >"$d/f.txt" 2>"$d/f.err" || fail "--folded: $(cat "$d/f.err")"
sum=$(awk '{ s += $NF } END { print s + 0 }' "$d/f.txt")
[ "$sum" = "${samples:-x}" ] || fail "--folded: counts sum to $sum, not $samples"
a1_folded=$(awk '$1 ~ /;a1(;|$)/ { s += $NF } END { printf "%.1f", 100 * s / '"${samples:-1}"' }' "$d/f.txt")
a1_report=$($PREP -i "$d/p.data" --children --sort sym -g none 2>/dev/null |
	awk '$NF == "a1" { sub(/%/, "", $1); printf "%.1f", $1; exit }')
awk -v a="$a1_folded" -v b="${a1_report:-0}" 'BEGIN { d = a - b; exit !(d < 0.2 && d > -0.2) }' ||
	fail "--folded: a1 holds $a1_folded% of the stacks, the report says ${a1_report:-nothing}%"

# speedscope: valid, weights sum to the event count
$PREP export --speedscope -i "$d/p.data" -o "$d/s.json" 2>"$d/s.err" || fail "speedscope: $(cat "$d/s.err")"
if $PY -c 'import jsonschema' 2>/dev/null; then
	$PY - "$SCHEMA" "$d/s.json" <<'EOF' || fail "speedscope: not valid against the schema"
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
EOF
fi
count=$($PREP -i "$d/p.data" --sort sym 2>/dev/null | awk '/^# Event count/ { print $NF; exit }')
w=$($PY -c 'import json, sys; d = json.load(open(sys.argv[1])); print(int(sum(sum(p["weights"]) for p in d["profiles"])))' "$d/s.json")
[ "$w" = "${count:-x}" ] || fail "speedscope: weights sum to $w, the event count is ${count:-unknown}"

# pprof: the flat share of a1 is the report's self share
$PREP export --pprof -q -i "$d/p.data" -o "$d/p.pb.gz" || fail "pprof export failed"
if command -v go >/dev/null; then
	export HOME=$d GOCACHE=$d/gocache GOPATH=$d/gopath PPROF_TMPDIR=$d GOPROXY=off
	flat=$(go tool pprof -symbolize=none -top -noinlines -nodefraction=0 "$d/p.pb.gz" 2>/dev/null |
		awk '$NF == "a1" { sub(/%/, "", $2); print $2; exit }')
	self=$($PREP -i "$d/p.data" --no-children --sort sym -g none 2>/dev/null |
		awk '$NF == "a1" { sub(/%/, "", $1); print $1; exit }')
	awk -v a="${flat:-0}" -v b="${self:-1}" 'BEGIN { d = a - b; exit !(d < 0.011 && d > -0.011) }' ||
		fail "pprof: a1 flat ${flat:-missing}%, prep self ${self:-missing}%"
fi

# flame graph: a page and an SVG naming the functions
$PREP flamegraph -i "$d/p.data" -o "$d/f.html" 2>/dev/null || fail "flamegraph failed"
grep -q '"a1"' "$d/f.html" || fail "flamegraph: a1 is not in the page"
$PREP flamegraph --svg -i "$d/p.data" -o "$d/f.svg" 2>/dev/null || fail "flamegraph --svg failed"
grep -q '>a1' "$d/f.svg" || grep -q 'a1 (' "$d/f.svg" || fail "flamegraph --svg: a1 is not in the image"

[ $failures = 0 ] && echo "exports of perf.data checked"
exit $((failures > 0))
