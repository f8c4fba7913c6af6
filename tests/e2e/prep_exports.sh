#!/usr/bin/env bash
# prep's exports end to end, on the programs of tests/programs with known
# profiles (PROFILES.md) recorded with `prec -F 999 -g`:
#   --folded     counts sum to the samples, periods to the event count, the
#                designed stack ratios hold, inline frames and thread roots,
#                and the lines are what FlameGraph's collapse of `prep script`
#                output gives (an independent collapse written here in awk)
#   --speedscope valid against speedscope's published schema
#                (tests/speedscope, python3-jsonschema), weights sum to the
#                event count, designed ratios, one profile per thread
#   flamegraph   the page is self-contained; --svg is well-formed XML
# The page in a real browser: prep_flamegraph.sh; the speedscope export in
# speedscope's own app: prep_speedscope_app.sh.
set -u
B=${BUILD:-build}
PREC=./prec PREP=./prep
[ "$B" = build ] || { PREC=$B/prec; PREP=$B/prep; }
P=$B/tests/programs
PROFILES=tests/programs/PROFILES.md
SCHEMA=tests/speedscope/file-format-schema.json
PY=/usr/bin/python3
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

[ -r /proc/sys/kernel/perf_event_paranoid ] || { echo "no perf events on this kernel"; exit 77; }
if [ "$(id -u)" -ne 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ]; then
	echo "needs root or perf_event_paranoid <= 1"; exit 77
fi
$PY -c 'import jsonschema' 2>/dev/null ||
	{ echo "python3-jsonschema not installed (tools/deps.sh installs it)"; exit 77; }

within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }
# rows PROG WHAT: "NAME DESIGN" pairs of PROFILES.md
rows() {
	grep "^| $1 | $2 |" "$PROFILES" | awk -F'|' '{ gsub(/ /, "", $4); gsub(/ /, "", $5); print $4, $5 }'
}
record() {   # NAME ARGS...
	local name=$1; shift
	$PREC -q -F 999 -g -o "$d/$name.data" -- "$@" >/dev/null 2>"$d/$name.err" ||
		fail "$name: prec failed: $(cat "$d/$name.err")"
}
# the sum of the last fields
sum() { awk '{ s += $NF } END { print s + 0 }' "$1"; }

record tree $P/tree 300
record inl $P/inl 300
record threads $P/threads 300

samples=$($PREP -i "$d/tree.data" --stats -g none | awk '/SAMPLE events:/ { print $3 }')
events=$($PREP -i "$d/tree.data" --no-children -g none | awk '/^# Event count/ { print $NF }')
[ -n "$samples" ] && [ "$samples" -gt 300 ] || fail "tree: only '$samples' samples"

# ---- --folded ------------------------------------------------------------------
$PREP -i "$d/tree.data" --folded >"$d/tree.folded" 2>"$d/err" || fail "--folded: exit $?"
[ -s "$d/err" ] && fail "--folded: warnings: $(cat "$d/err")"
[ "$(sum "$d/tree.folded")" = "$samples" ] ||
	fail "--folded: counts sum to $(sum "$d/tree.folded"), $samples samples"
# FlameGraph's input: frames joined by ';', a space, an integer; one line per
# stack, sorted; the command name as the root frame
bad=$(grep -cvE '^[^;]+(;[^;]+)* [0-9]+$' "$d/tree.folded")
[ "$bad" -eq 0 ] || fail "--folded: $bad lines not 'frame;frame;... count'"
LC_ALL=C sort -c "$d/tree.folded" 2>/dev/null || fail "--folded: lines not sorted"
[ "$(sed 's/ [0-9]*$//' "$d/tree.folded" | sort | uniq -d | wc -l)" -eq 0 ] ||
	fail "--folded: a stack on two lines"
[ "$(cut -d';' -f1 "$d/tree.folded" | sort -u)" = tree ] || fail "--folded: root frame is not the comm"
$PREP -i "$d/tree.data" --folded=period >"$d/tree.period" 2>/dev/null
[ "$(sum "$d/tree.period")" = "$events" ] ||
	fail "--folded=period: sums to $(sum "$d/tree.period"), event count $events"
# the designed stacks: user frames from main, without the kernel and inlined
# frames (marked _[k] and _[i] for the purpose)
$PREP -i "$d/tree.data" --folded=kernel,inline >"$d/tree.marked" 2>/dev/null
grep -q '_\[i\]' "$d/tree.marked" || fail "--folded=inline: no _[i] frame (burn is inlined)"
awk '{ n = split($1, f, ";"); s = ""; on = 0
       for (i = 2; i <= n; i++) { if (f[i] == "main") on = 1
				  if (on && f[i] !~ /_\[[ki]\]$/) s = s (s == "" ? "" : ";") f[i] }
       w[s] += $NF; t += $NF }
     END { for (s in w) printf "%s %.2f\n", s, 100 * w[s] / t }' "$d/tree.marked" >"$d/tree.stacks"
while read -r name want; do
	got=$(awk -v s="$name" '$1 == s { print $2 }' "$d/tree.stacks")
	[ -n "$got" ] || { fail "--folded: stack $name missing"; continue; }
	within "$got" "$want" 3 || fail "--folded: stack $name: $got%, designed $want%"
done < <(rows tree stack)
# the same lines as a collapse of `prep script` by FlameGraph's rules (comm
# root, symbol offsets dropped, leaf last); inline frames are not in script
$PREP script -i "$d/tree.data" >"$d/tree.script" 2>/dev/null
awk '/^[^ \t]/ { comm = $1; n = 0; next }
     /^\t/ { sym = $2; sub(/\+0x[0-9a-f]+$/, "", sym); f[++n] = sym; next }
     /^$/ { if (!n) next; s = comm; for (i = n; i >= 1; i--) s = s ";" f[i]; c[s]++; n = 0 }
     END { if (n) { s = comm; for (i = n; i >= 1; i--) s = s ";" f[i]; c[s]++ }
	   for (s in c) print s, c[s] }' "$d/tree.script" | LC_ALL=C sort >"$d/tree.collapsed"
$PREP -i "$d/tree.data" --folded --no-inline >"$d/tree.noinl" 2>/dev/null
grep -q '(inlined)\|burn' "$d/tree.noinl" && fail "--folded --no-inline: inlined frames"
cmp -s "$d/tree.collapsed" "$d/tree.noinl" ||
	fail "--folded --no-inline differs from the collapse of prep script: $(diff "$d/tree.collapsed" "$d/tree.noinl" | head -4)"
# inl: inlined functions as frames of their own, designed shares
$PREP -i "$d/inl.data" --folded >"$d/inl.folded" 2>/dev/null
inl_total=$(sum "$d/inl.folded")
for pair in "hot_inl 60" "warm_inl 40" "cool_inl 15"; do
	set -- $pair
	got=$(awk -v n="$1" -v t="$inl_total" '$1 ~ ("(^|;)" n "(;|$)") { s += $NF } END { printf "%.2f", 100 * s / t }' "$d/inl.folded")
	within "$got" "$2" 3 || fail "--folded inl: $1 in $got% of the stacks, designed $2%"
done
grep -q ';inl_work;warm_inl;cool_inl' "$d/inl.folded" || fail "--folded inl: warm_inl;cool_inl chain"
# threads: the thread names as roots, with pid/tid on request
$PREP -i "$d/threads.data" --folded >"$d/th.folded" 2>/dev/null
th_total=$(sum "$d/th.folded")
while read -r name want; do
	[ "$want" = 0 ] && continue
	got=$(awk -v n="$name" -v t="$th_total" -F';' '$1 == n { split($NF, a, " "); s += a[2] } END { printf "%.2f", 100 * s / t }' "$d/th.folded")
	within "$got" "$want" 3 || fail "--folded threads: root $name $got%, designed $want%"
done < <(rows threads comm)
$PREP -i "$d/threads.data" --folded=tid >"$d/th.tid" 2>/dev/null
grep -qE '^worker-a-[0-9]+/[0-9]+;' "$d/th.tid" || fail "--folded=tid: no comm-PID/TID root"
$PREP -i "$d/threads.data" --folded=no-comm 2>/dev/null | grep -q '^worker' && fail "--folded=no-comm"
$PREP -i "$d/tree.data" --folded=bogus >/dev/null 2>"$d/err" && fail "--folded=bogus accepted"
grep -q "'bogus'" "$d/err" || fail "--folded=bogus: message $(cat "$d/err")"
$PREP -i "$d/tree.data" --folded --event nosuch >/dev/null 2>"$d/err" && fail "--event nosuch accepted"
$PREP -i "$d/tree.data" --folded --event cpu-clock >"$d/o" 2>/dev/null && cmp -s "$d/o" "$d/tree.folded" ||
	fail "--folded --event cpu-clock differs"
# -g folded is still perf's layout inside the report
$PREP -i "$d/tree.data" --no-children -g folded 2>/dev/null | grep -qE '^[0-9.]+% .*b2;b1;b;main' ||
	fail "-g folded: perf's layout changed"

# ---- export --speedscope ----------------------------------------------------------
check_speedscope() {   # FILE.json EVENTS PROG
	$PY - "$1" "$SCHEMA" "$2" "$3" "$PROFILES" <<'EOF'
import json, sys, jsonschema
path, schema_path, events, prog, profiles = sys.argv[1:6]
doc = json.load(open(path))
schema = json.load(open(schema_path))
jsonschema.validate(doc, schema)      # raises: the test fails with the reason
bad = json.loads(json.dumps(doc)); bad["profiles"][0]["weights"][0] = "x"
try:
    jsonschema.validate(bad, schema); print("FAIL: a broken copy validated")
except jsonschema.ValidationError:
    pass
frames = doc["shared"]["frames"]
total = 0
for p in doc["profiles"]:
    assert p["type"] == "sampled" and len(p["samples"]) == len(p["weights"]), p["name"]
    assert p["endValue"] - p["startValue"] == sum(p["weights"]), p["name"]
    assert all(0 <= i < len(frames) for s in p["samples"] for i in s), p["name"]
    total += sum(p["weights"])
if total != int(events):
    print("FAIL: weights sum to %d, event count %s" % (total, events))
w = sum(doc["profiles"][0]["weights"])
if any(sum(p["weights"]) > w for p in doc["profiles"]):
    print("FAIL: the first profile is not the largest")
print("profiles", len(doc["profiles"]), "frames", len(frames), "weight", total)
# designed shares: weight of the samples holding each function (children)
rows = [l.split("|") for l in open(profiles) if l.startswith("| %s | children |" % prog)]
for r in rows:
    name, want = r[3].strip(), float(r[4])
    got = 100.0 * sum(wt for p in doc["profiles"] for s, wt in zip(p["samples"], p["weights"])
                      if any(frames[i]["name"] == name for i in s)) / total
    if abs(got - want) > 3:
        print("FAIL: %s in %.2f%% of the weight, designed %.0f%%" % (name, got, want))
for f in frames:
    if f["name"] in ("a1", "work_a"):
        if not f.get("file", "").endswith((".c")) or f.get("line", 0) <= 0:
            print("FAIL: frame %s without its source file and line: %s" % (f["name"], f))
EOF
}
$PREP export --speedscope -i "$d/tree.data" -o "$d/tree.json" 2>"$d/err" || fail "export --speedscope: exit $?"
[ -s "$d/err" ] && fail "export --speedscope: warnings: $(cat "$d/err")"
check_speedscope "$d/tree.json" "$events" tree >"$d/ss.out" 2>&1 || fail "speedscope tree: $(tail -3 "$d/ss.out")"
grep FAIL "$d/ss.out" && failures=$((failures + 1))
grep '^profiles' "$d/ss.out"
th_events=$($PREP -i "$d/threads.data" --no-children -g none | awk '/^# Event count/ { print $NF }')
$PREP export --speedscope -i "$d/threads.data" -o "$d/th.json" 2>/dev/null || fail "export --speedscope threads"
check_speedscope "$d/th.json" "$th_events" threads >"$d/ss.out" 2>&1 || fail "speedscope threads: $(tail -3 "$d/ss.out")"
grep FAIL "$d/ss.out" && failures=$((failures + 1))
$PY -c 'import json, sys; d = json.load(open(sys.argv[1])); print("\n".join(p["name"] for p in d["profiles"]))' \
	"$d/th.json" >"$d/th.names"
grep -q '^worker-a ' "$d/th.names" && grep -q '^worker-b ' "$d/th.names" && grep -q '^worker-c ' "$d/th.names" ||
	fail "speedscope threads: a profile per thread: $(tr '\n' ' ' <"$d/th.names")"
# largest first (checked above on the weights): worker-a (50%) before worker-c (20%)
[ "$(grep -n '^worker-a ' "$d/th.names" | cut -d: -f1)" -lt "$(grep -n '^worker-c ' "$d/th.names" | cut -d: -f1)" ] ||
	fail "speedscope threads: worker-a (50%) not before worker-c (20%): $(tr '\n' ' ' <"$d/th.names")"
$PREP export -i "$d/tree.data" -o "$d/x.json" >/dev/null 2>&1 && fail "export without a format accepted"

# ---- flamegraph: self-contained page, static SVG -----------------------------------
$PREP flamegraph -i "$d/tree.data" -o "$d/tree.html" 2>"$d/err" || fail "flamegraph: exit $?"
[ -s "$d/err" ] && fail "flamegraph: warnings: $(cat "$d/err")"
grep -qiE '(src|href)=|<link|https?:|@import' "$d/tree.html" && fail "flamegraph: the page refers to other files"
grep -q '<canvas' "$d/tree.html" && grep -q 'id="fg-data"' "$d/tree.html" || fail "flamegraph: no canvas or data"
$PY - "$d/tree.html" <<'EOF' || fail "flamegraph: data"
import json, re, sys
html = open(sys.argv[1]).read()
d = json.loads(re.search(r'<script type="application/json" id="fg-data">(.*?)</script>', html, re.S).group(1))
n = len(d["label"])
assert n == len(d["value"]) == len(d["depth"]) and d["depth"][0] == 0 and n > 10
assert d["names"][d["label"][0]] == "all" and d["names"][d["label"][1]] == "tree"
# a node's value is at least the sum of its kids' (its own samples on top)
kids = [0] * n; stack = []
for i, dep in enumerate(d["depth"]):
    del stack[dep:]
    if stack: kids[stack[-1]] += d["value"][i]
    stack.append(i)
assert all(kids[i] <= d["value"][i] for i in range(n))
EOF
$PREP flamegraph --svg -i "$d/tree.data" -o "$d/tree.svg" 2>/dev/null || fail "flamegraph --svg: exit $?"
$PY - "$d/tree.svg" "$samples" <<'EOF' || fail "flamegraph --svg: not the expected SVG"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
titles = [t.text for t in root.iter(ns + "title")]
assert any(t.startswith("all (%s samples, 100.00%%)" % sys.argv[2]) for t in titles), titles[:3]
assert any(t.startswith("a1 (") for t in titles)
EOF

# ---- bad input ---------------------------------------------------------------------
$PREP flamegraph -i "$d/nosuch.data" -o "$d/x.html" >/dev/null 2>"$d/err"; rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$d/err")" -eq 1 ] || fail "flamegraph of a missing file: rc $rc, $(cat "$d/err")"
$PREP export --speedscope -i "$d/tree.data" -o "$d/nodir/x.json" >/dev/null 2>"$d/err" &&
	fail "export into a missing folder succeeded"
grep -q "cannot create" "$d/err" || fail "export into a missing folder: $(cat "$d/err")"

[ $failures -eq 0 ] && echo "prep export checks passed"
exit $((failures > 0))
