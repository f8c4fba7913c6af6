#!/usr/bin/env bash
# `prep export --speedscope` read by speedscope itself: the app of the npm
# package `speedscope` (its prebuilt dist/release, fetched once with
# `npm pack` into $BUILD/speedscope and checked against the pinned
# integrity), served from 127.0.0.1 and opened in headless Chromium with
# #profileURL=. tests/speedscope/app.py clicks through the app (profile
# selector, Sandwich view) and reads what it shows; this test compares that
# with what prep's own report says about the same recording:
#   - one profile per thread, named and ordered as exported, each with the
#     total the report gives that thread (--sort pid,tid)
#   - every symbol's Self and Total in the Sandwich table equal the report's
#     self (--no-children) and children weights, to the app's last digit;
#     with inline frames, the inlined function (burn) as the leaf
#   - units: cpu-clock in time (the app prints ms), page-faults as counts
#   - the source file of a function in its row's tooltip
# Recordings use fixed periods (-c), so the app's numbers are exact sample
# counts: 1.00ms per cpu-clock sample, 1 per page fault. A copy of an export
# with one weight and one name changed must fail the same comparison.
# Screenshots: $BUILD/test-logs/artifacts/speedscope-*.png.
# Skips (77) when chromium or npm is missing or the npm registry is out of
# reach.
. tests/e2e/lib/common.sh
trap 'rm -rf "$d"' EXIT
PY=/usr/bin/python3
ART=$B/test-logs/artifacts
SS_VERSION=1.25.0
SS_INTEGRITY=sha512-cpf9HWTZf1ijLXBJrk87Ve/54tnYx6rlf0gUThvn3ook6h63hLXVOQiMf44PT+XoV503cPfvfiT5gP5vojp6Ag==
SS=$PWD/$B/speedscope/$SS_VERSION

need_perf_events 1
CHROMIUM=$(command -v chromium || command -v chromium-browser) ||
	{ echo "chromium not installed (tools/deps.sh installs it)"; exit 77; }

# ---- speedscope's app, from the npm registry, once ------------------------------
if [ ! -f "$SS/package/dist/release/index.html" ]; then
	command -v npm >/dev/null || { echo "npm not installed (tools/deps.sh installs nodejs and npm)"; exit 77; }
	rm -rf "$SS.tmp" && mkdir -p "$SS.tmp" || exit 1
	if ! (cd "$SS.tmp" && timeout 120 npm pack --json --fetch-timeout=30000 --fetch-retries=1 \
		"speedscope@$SS_VERSION" >pack.json 2>pack.err); then
		if grep -qiE 'ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|network|socket|fetch failed' \
			"$SS.tmp/pack.err" || [ ! -s "$SS.tmp/pack.err" ]; then
			echo "npm registry unreachable: npm pack speedscope@$SS_VERSION: $(grep -m1 -i err "$SS.tmp/pack.err")"
			rm -rf "$SS.tmp"; exit 77
		fi
		echo "FAIL: npm pack speedscope@$SS_VERSION: $(tail -3 "$SS.tmp/pack.err")"; exit 1
	fi
	got=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))[0]["integrity"])' "$SS.tmp/pack.json")
	[ "$got" = "$SS_INTEGRITY" ] ||
		{ echo "FAIL: speedscope-$SS_VERSION.tgz: integrity $got, pinned $SS_INTEGRITY"; exit 1; }
	tar -xzf "$SS.tmp/speedscope-$SS_VERSION.tgz" -C "$SS.tmp" && rm -rf "$SS" && mv "$SS.tmp" "$SS" ||
		{ echo "FAIL: unpacking speedscope-$SS_VERSION.tgz"; exit 1; }
fi
REL=$SS/package/dist/release
mkdir -p "$ART"

# app PROFILE.json OUT.json [SHOT]: what the app shows
app() {
	$PY tests/speedscope/app.py "$CHROMIUM" "$REL" "$1" "$2" ${3:+"$ART/$3"} 2>"$d/app.err" ||
		{ fail "speedscope app on $(basename "$1"): $(cat "$d/app.err")"; return 1; }
}
# report NAME ARGS...: prep's report of NAME.data, into $d/NAME.ARGS
report() {
	local name=$1; shift
	$PREP -i "$d/$name.data" -g none "$@" >"$d/$name.$(echo "$*" | tr ' ,' __)" 2>/dev/null ||
		fail "prep $* on $name: exit $?"
}
# check APP.json PROG PERIOD MODE: the app's numbers against prep's reports
# of PROG.data (MODE: inline or no-inline, as exported); prints FAIL lines
check() {
	$PY - "$1" "$d/$2" "$3" "$4" <<'EOF'
import collections, json, re, sys
app_path, base, period, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
app = json.load(open(app_path))
fails = []
def fail(msg): fails.append(msg)

UNITS = {"ns": 1, "\u00b5s": 1e3, "ms": 1e6, "s": 1e9}
def parse(text):
    """the app's value: (value, half of its last digit)"""
    v = text.split(" (")[0].replace(",", "")
    m = re.fullmatch(r"([0-9]+):([0-9]{2})", v)   # a minute or more: m:ss
    if m:
        return (int(m.group(1)) * 60 + int(m.group(2))) * 1e9, 0.5e9
    m = re.fullmatch(r"([0-9.]+)(ns|\u00b5s|ms|s)?", v)
    if not m:
        raise ValueError("the app shows %r" % text)
    num, unit = m.group(1), m.group(2)
    scale = UNITS[unit] if unit else 1
    digits = len(num.split(".")[1]) if "." in num else 0
    return float(num) * scale, 0.5 * scale * 10 ** -digits + 1e-9 * float(num) * scale

def lines(suffix):
    return open(base + "." + suffix).read().splitlines()
def rows(suffix):   # the report's entries: the numbers, then the keys
    for l in lines(suffix):
        if l.strip() and not l.startswith("#"):
            yield l.split()

n = int(next(l for l in lines("--no-children_--sort_sym_-n") if l.startswith("# Samples:")).split()[2])
event = re.search(r"of event '([^']*)'", "\n".join(lines("--no-children_--sort_sym_-n"))).group(1)
# threads: "PCT COUNT TID:COMM", and each thread's process from prep script
pid_of = {}
for l in open(base + ".pids"):
    w = l.replace("/", " ").split()
    if len(w) == 2:
        pid_of[w[1]] = w[0]
threads = [(int(r[1]), pid_of.get(r[2].split(":")[0], "?"), r[2].split(":", 1))
           for r in rows("--no-children_--sort_tid_-n")]
want_names = ["%s %s/%s %s" % (comm, pid, tid, event) for _, pid, (tid, comm) in threads]
want_totals = [c * period for c, _, _ in threads]
# per thread, the self samples of each symbol: "PCT COUNT TID:COMM [.] SYM"
# (the report names an address without a symbol by the address, the
# export "[unknown]", as perf script and FlameGraph do)
def sym(words):
    s = " ".join(words)
    return "[unknown]" if re.fullmatch(r"(0x)?[0-9a-f]{16}", s) else s
self_by_tid = collections.defaultdict(collections.Counter)
for r in rows("--no-children_--sort_tid_sym_-n"):
    self_by_tid[r[2].split(":")[0]][sym(r[4:])] += int(r[1]) * period
# children, one thread at a time: "CHILDREN SELF [.] SYM" with --tid, as
# weights (the percentage of the thread's samples, to a whole sample)
children_by_tid = {}
for _, _, (tid, _) in threads:
    w = sum(self_by_tid[tid].values())
    # (the report's entries of inlined functions, "name (inlined)", are
    # frames of their callers in the export: prep_answers.sh checks them)
    children_by_tid[tid] = {sym(r[3:]): round(float(r[0].rstrip("%")) * w / period / 100) * period
                            for r in rows("--children_--sort_sym_--tid_" + tid)
                            if not sym(r[3:]).endswith(" (inlined)")}

profiles = app["profiles"]
got_names = [p["name"] for p in profiles]
if sorted(got_names) != sorted(want_names):
    fail("profiles: the app shows %s, prep's report has %s" % (got_names, want_names))
elif any(want_totals[want_names.index(a)] < want_totals[want_names.index(b)]
         for a, b in zip(got_names, got_names[1:])):
    fail("profiles: not largest first: %s" % got_names)
if len(profiles) > 1 and not all(p["selected"].startswith(p["name"]) and
                                 p["selected"].endswith("(%d/%d)" % (i + 1, len(profiles)))
                                 for i, p in enumerate(profiles)):
    fail("profile selector: the toolbar did not follow: %s" % [p["selected"] for p in profiles])
def same(text, want, what):
    try:
        v, tol = parse(text)
    except ValueError as e:
        fail("%s: %s" % (what, e)); return
    if abs(v - want) > tol:
        fail("%s: the app shows %s, prep's report %s" % (what, text, want))

checked = 0
def compare(p):
    global checked
    i = want_names.index(p["name"])
    tid = threads[i][2][0]
    if p["total"] is not None:
        same(p["total"], want_totals[i], "%s: total in the profile selector" % p["name"])
    app_self = collections.Counter(); app_total = {}; dup = set()
    for r in p["rows"]:
        # an address without a symbol: "[dso]" in the export, the address
        # in the report (sym() makes both "[unknown]")
        name = "[unknown]" if re.fullmatch(r"\[[^\]]*\]", r["name"]) else r["name"]
        app_self[name] += parse(r["self"])[0]
        if name in app_total: dup.add(name)
        app_total[name] = r["total"]
    # every sample's weight is somewhere in the Self column
    if abs(sum(app_self.values()) - want_totals[i]) > period / 2:
        fail("%s: the Self column sums to %d, prep's report %d" % (p["name"], sum(app_self.values()), want_totals[i]))
    # Total: the report's children, symbol by symbol
    # (not for a name that several frames have: the report's children of
    # that name are not the Total of any one of them)
    for name, c in children_by_tid[tid].items():
        if name in dup or name == "[unknown]": continue
        if name not in app_total:
            fail("%s: %s (%d in prep's report) not in the app" % (p["name"], name, c)); continue
        same(app_total[name], c, "%s: Total of %s" % (p["name"], name)); checked += 1
    names = set(app_total)
    # the source file, in the row's tooltip
    for r in p["rows"]:
        if r["name"] in ("a1", "work_a") and not r["file"].endswith(("/tree.c", "/threads.c")):
            fail("%s: %s shown without its source file: %r" % (p["name"], r["name"], r["file"]))
    if mode == "no-inline":
        # Self: the report's self, symbol by symbol; the same names
        for name in set(self_by_tid[tid]) | {s for s in app_self if app_self[s]}:
            if abs(app_self[name] - self_by_tid[tid][name]) > period * 0.005:
                fail("%s: Self of %s: the app shows %s, prep's report %d" %
                     (p["name"], name, app_self[name], self_by_tid[tid][name]))
            checked += 1
        if names != set(children_by_tid[tid]):
            fail("%s: names only in the app: %s; only in prep's report: %s" % (p["name"],
                 sorted(names - set(children_by_tid[tid])), sorted(set(children_by_tid[tid]) - names)))
    else:
        # inline frames: the work of tests/programs is in burn(), inlined
        if "burn" not in names or app_self["burn"] < 0.9 * want_totals[i]:
            fail("%s: inlined burn not the leaf: Self %s of %s" % (p["name"], app_self["burn"], want_totals[i]))
for p in profiles:
    if p["name"] in want_names:
        try:
            compare(p)
        except ValueError as e:
            fail("%s: %s" % (p["name"], e))
for f in fails:
    print("FAIL: " + f)
print("%d profiles, %d values compared, %d differ" % (len(profiles), checked, len(fails)))
EOF
}
# the reports check() reads, of NAME.data
reports() {
	local name=$1 tid
	report "$name" --no-children --sort sym -n
	report "$name" --no-children --sort tid -n
	report "$name" --no-children --sort tid,sym -n
	# the process of each thread (perf's pid key is per thread, as tid)
	$PREP script -i "$d/$name.data" -F pid,tid 2>/dev/null | sort -u >"$d/$name.pids"
	for tid in $(awk '!/^#/ && NF { split($3, a, ":"); print a[1] }' "$d/$name.--no-children_--sort_tid_-n"); do
		report "$name" --children --sort sym --tid "$tid"
	done
}
# run NAME MODE: export NAME.data, show it in the app, compare
run() {
	local name=$1 mode=$2 period=$3 shot=${4:-} opt=
	[ "$mode" = no-inline ] && opt=--no-inline
	$PREP export --speedscope $opt -i "$d/$name.data" \
		-o "$d/$name-$mode.json" 2>"$d/err" || fail "export $mode of $name: $(cat "$d/err")"
	app "$d/$name-$mode.json" "$d/$name-$mode.app" $shot || return
	check "$d/$name-$mode.app" "$name" "$period" "$mode" >"$d/out" 2>&1 || fail "check $name: $(tail -3 "$d/out")"
	sed "s/^/  $name $mode: /" "$d/out"
	grep -q FAIL "$d/out" && failures=$((failures + 1))
}

$PREC -q -c 1000000 -e cpu-clock -g -o "$d/tree.data" -- "$P/tree" 300 >/dev/null 2>"$d/err" ||
	fail "prec tree: $(cat "$d/err")"
$PREC -q -c 1000000 -e cpu-clock -g -o "$d/threads.data" -- "$P/threads" 300 >/dev/null 2>"$d/err" ||
	fail "prec threads: $(cat "$d/err")"
$PREC -q -c 1 -e page-faults -g -o "$d/faults.data" -- "$P/tree" 50 >/dev/null 2>"$d/err" ||
	fail "prec page-faults: $(cat "$d/err")"
for name in tree threads faults; do reports "$name"; done

rm -f "$ART"/speedscope-*.png
run tree no-inline 1000000
run tree inline 1000000 speedscope-tree
run threads no-inline 1000000 speedscope-threads
run faults no-inline 1
grep -q '"[0-9.]*ms (' "$d/tree-inline.app" || fail "cpu-clock: no times in ms in the app"
grep -qE '"[0-9,]+ \(' "$d/faults-no-inline.app" || fail "page-faults: no counts in the app"
for f in speedscope-tree-flamegraph speedscope-tree-sandwich speedscope-threads-sandwich; do
	[ "$(head -c 8 "$ART/$f.png" 2>/dev/null | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] &&
		[ "$(stat -c %s "$ART/$f.png")" -gt 10000 ] || fail "no screenshot $ART/$f.png"
done

# ---- the comparison catches a broken export -------------------------------------
# one weight doubled, one frame renamed, in a copy
$PY - "$d/tree-no-inline.json" "$d/broken.json" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
p = doc["profiles"][0]
i = p["weights"].index(max(p["weights"]))
p["endValue"] += p["weights"][i]
p["weights"][i] *= 2
f = doc["shared"]["frames"]
next(x for x in f if x["name"] == "b2")["name"] = "b3"
json.dump(doc, open(sys.argv[2], "w"))
EOF
if app "$d/broken.json" "$d/broken.app"; then
	check "$d/broken.app" tree 1000000 no-inline >"$d/out" 2>&1
	sed 's/^/  broken copy: /' "$d/out"
	grep -q 'Self of b2' "$d/out" && grep -q 'names only in the app: .*b3' "$d/out" &&
		grep -q 'the Self column sums to' "$d/out" ||
		fail "a broken copy (a weight doubled, b2 renamed) passed: $(tail -3 "$d/out")"
fi

[ $failures -eq 0 ] && echo "speedscope app checks passed"
exit $((failures > 0))
