#!/usr/bin/env bash
# Where prep finds the files of a recorded binary (README.md, "Where prep
# finds the files"):
#  (a) the binary deleted from its recorded path, or replaced by another
#      one, but kept in perf's build-id cache under $HOME/.debug: the report
#      is the same as before; without the cache, nothing wrong is named;
#  (b) a stripped binary whose debug file a local debuginfod serves: with
#      DEBUGINFOD_URLS its functions (absent from .dynsym) and source lines
#      are named, without it they are not; with the binary deleted too, the
#      executable and the debug file both come from debuginfod.
# Every wait is bounded; the server is killed on exit.
set -u
B=${BUILD:-build}
PREC=./prec PREP=./prep
[ "$B" = build ] || { PREC=$B/prec; PREP=$B/prep; }
PROFILES=tests/programs/PROFILES.md
d=$(mktemp -d)
srv=
cleanup() {
	if [ -n "$srv" ]; then
		kill "$srv" 2>/dev/null
		wait "$srv" 2>/dev/null
	fi
	rm -rf "$d"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

[ -r /proc/sys/kernel/perf_event_paranoid ] || { echo "no perf events on this kernel"; exit 77; }
if [ "$(id -u)" -ne 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ]; then
	echo "needs root or perf_event_paranoid <= 1"; exit 77
fi
for t in gcc objcopy readelf timeout; do
	command -v $t >/dev/null || { echo "needs $t"; exit 77; }
done
unset DEBUGINFOD_URLS PERF_BUILDID_DIR

# as the Makefile builds tests/programs
CFLAGS="-O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall -Wextra -Werror"
value() { awk -v n="$2" '$NF == n { sub(/%/, "", $1); print $1; exit }' "$1"; }
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }
rows() { grep "^| $1 | $2 |" "$PROFILES" | awk -F'|' '{ gsub(/ /, "", $4); gsub(/ /, "", $5); print $4, $5 }'; }
build_id() { readelf -n "$1" | awk '/Build ID:/ { print $3; exit }'; }
# report HOME OUT ARGS...: prep with that $HOME (the kernel symbol index kept in $d)
report() {
	local home=$1 out=$2; shift 2
	HOME=$home PREP_CACHE_DIR=$d/prepcache timeout 60 $PREP "$@" >"$out" 2>"$out.err" ||
		fail "prep $* (HOME=$home): exit $?: $(head -3 "$out.err")"
}
has_sym() { grep -q "\] $2\$" "$1"; }

# ---- (a) perf's build-id cache ----------------------------------------------
mkdir -p "$d/bin" "$d/home" "$d/nohome"
gcc $CFLAGS -o "$d/bin/tree" tests/programs/tree.c || { fail "cannot build tree"; exit 1; }
bid=$(build_id "$d/bin/tree")
[ -n "$bid" ] || { echo "gcc here makes no build ids"; exit 77; }
$PREC -q -F 999 -g --no-embed -o "$d/tree.data" -- "$d/bin/tree" 300 >/dev/null 2>"$d/rec.err" ||
	fail "prec tree: $(cat "$d/rec.err")"
report "$d/nohome" "$d/tree.sym" -i "$d/tree.data" --sort sym
report "$d/nohome" "$d/tree.src" -i "$d/tree.data" --sort srcline -g none
for f in a1 a2 b2 rec b1 c b; do
	has_sym "$d/tree.sym" $f || fail "tree at its path: $f not named"
done
grep -q 'tree\.c:[0-9]' "$d/tree.src" || fail "tree at its path: no tree.c lines"

# the cache as perf lays it out: .build-id/xx/rest -> <path>/<build id>/
cdir=$d/home/.debug$d/bin/tree/$bid
mkdir -p "$cdir" "$d/home/.debug/.build-id/${bid:0:2}"
ln -s "$cdir" "$d/home/.debug/.build-id/${bid:0:2}/${bid:2}"
mv "$d/bin/tree" "$cdir/elf"
report "$d/home" "$d/tree.sym2" -i "$d/tree.data" --sort sym
report "$d/home" "$d/tree.src2" -i "$d/tree.data" --sort srcline -g none
cmp -s "$d/tree.sym" "$d/tree.sym2" ||
	fail "binary deleted, in ~/.debug: --sort sym differs: $(diff "$d/tree.sym" "$d/tree.sym2" | head -5)"
cmp -s "$d/tree.src" "$d/tree.src2" ||
	fail "binary deleted, in ~/.debug: --sort srcline differs: $(diff "$d/tree.src" "$d/tree.src2" | head -5)"
[ -s "$d/tree.sym2.err" ] && fail "binary in ~/.debug: warnings: $(cat "$d/tree.sym2.err")"
report "$d/nohome" "$d/tree.sym3" -i "$d/tree.data" --sort sym
has_sym "$d/tree.sym3" a1 && fail "binary deleted, no cache: a1 still named"
# another binary at the recorded path: the cache's, silently; without the
# cache, the mismatch is said and nothing is named
gcc $CFLAGS -o "$d/bin/tree" tests/programs/inl.c
report "$d/home" "$d/tree.sym4" -i "$d/tree.data" --sort sym
cmp -s "$d/tree.sym" "$d/tree.sym4" ||
	fail "another binary at the path, in ~/.debug: --sort sym differs: $(diff "$d/tree.sym" "$d/tree.sym4" | head -5)"
[ -s "$d/tree.sym4.err" ] && fail "another binary at the path, in ~/.debug: warnings: $(cat "$d/tree.sym4.err")"
report "$d/nohome" "$d/tree.sym5" -i "$d/tree.data" --sort sym
grep -q "build id $bid recorded, but the file on disk has" "$d/tree.sym5.err" ||
	fail "another binary at the path, no cache: no mismatch warning: $(cat "$d/tree.sym5.err")"
for f in a1 inl_work main; do
	has_sym "$d/tree.sym5" $f && fail "another binary at the path, no cache: $f named"
done

# ---- (b) debuginfod ---------------------------------------------------------
if ! command -v debuginfod >/dev/null; then
	[ $failures -eq 0 ] || exit 1
	echo "build-id cache checks passed; debuginfod not installed (apt-get install debuginfod)"
	exit 77
fi
mkdir -p "$d/dbg" "$d/srv"
gcc $CFLAGS -o "$d/dbg/inl" tests/programs/inl.c || { fail "cannot build inl"; exit 1; }
bid=$(build_id "$d/dbg/inl")
objcopy --only-keep-debug "$d/dbg/inl" "$d/srv/inl.debug" && objcopy --strip-all "$d/dbg/inl" ||
	{ fail "objcopy"; exit 1; }
cp "$d/dbg/inl" "$d/srv/inl"
readelf -S "$d/dbg/inl" | grep -qE '\.symtab|\.debug_info' && fail "inl: not stripped"
readelf --dyn-syms "$d/dbg/inl" | grep -q inl_work && fail "inl_work is in .dynsym: the test means nothing"
$PREC -q -F 999 -g --no-embed -o "$d/inl.data" -- "$d/dbg/inl" 500 >/dev/null 2>"$d/rec.err" ||
	fail "prec inl: $(cat "$d/rec.err")"

# a free port (the server listens on all addresses: 0.188 has no option to bind one)
port=
if command -v python3 >/dev/null; then
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
fi
[ -n "$port" ] || port=$((20000 + RANDOM % 30000))
t0=$(date +%s.%N)
debuginfod -p "$port" -d "$d/db.sqlite" -F "$d/srv" -t 0 -g 0 -c 1 -v >"$d/srv.log" 2>&1 &
srv=$!
served() {   # bounded: one try of at most 2 s
	if command -v curl >/dev/null; then
		[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 \
			"http://127.0.0.1:$port/buildid/$bid/debuginfo")" = 200 ]
	else
		DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$d/poll.$1 \
			DEBUGINFOD_TIMEOUT=2 timeout 5 debuginfod-find debuginfo "$bid" >/dev/null 2>&1
	fi
}
ready=
for i in $(seq 1 100); do      # 20 s at most
	kill -0 "$srv" 2>/dev/null || break
	served "$i" && { ready=1; break; }
	sleep 0.2
done
if [ -z "$ready" ]; then
	fail "debuginfod did not serve $bid within 20 s: $(tail -5 "$d/srv.log")"
	exit 1
fi
t1=$(date +%s.%N)

# without DEBUGINFOD_URLS: .dynsym only, no lines
report "$d/nohome" "$d/inl.sym0" -i "$d/inl.data" --no-children --sort sym -g none
report "$d/nohome" "$d/inl.src0" -i "$d/inl.data" --sort srcline -g none
has_sym "$d/inl.sym0" inl_work && fail "no DEBUGINFOD_URLS: inl_work named (from where?)"
grep -q 'inl\.c:' "$d/inl.src0" && fail "no DEBUGINFOD_URLS: inl.c lines shown"

export DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$d/dcache DEBUGINFOD_TIMEOUT=10
report "$d/nohome" "$d/inl.sym" -i "$d/inl.data" --no-children --sort sym -g none
t2=$(date +%s.%N)
report "$d/nohome" "$d/inl.src" -i "$d/inl.data" --sort srcline -g none
# (a sample in ld.so or libc may make prep ask for theirs: only inl's count)
grep -q "dbg/inl" "$d/inl.sym.err" && fail "debuginfod: warnings: $(cat "$d/inl.sym.err")"
w=$(value "$d/inl.sym" inl_work)
within "${w:-0}" 100 3 || fail "debuginfod: inl_work ${w:-not named}, designed 100%"
while read -r name want; do
	line=$(grep -n "$name" tests/programs/inl.c | head -1 | cut -d: -f1)
	got=$(value "$d/inl.src" "inl.c:$line")
	within "${got:-0}" "$want" 3 || fail "debuginfod: srcline inl.c:$line ($name) ${got:-none}%, designed $want%"
done < <(rows inl srcline)

# the binary gone too: executable and debuginfo from debuginfod, same report
rm "$d/dbg/inl"
export DEBUGINFOD_CACHE_PATH=$d/dcache2
report "$d/nohome" "$d/inl.sym2" -i "$d/inl.data" --no-children --sort sym -g none
report "$d/nohome" "$d/inl.src2" -i "$d/inl.data" --sort srcline -g none
cmp -s "$d/inl.sym" "$d/inl.sym2" ||
	fail "binary deleted, debuginfod: --sort sym differs: $(diff "$d/inl.sym" "$d/inl.sym2" | head -5)"
cmp -s "$d/inl.src" "$d/inl.src2" ||
	fail "binary deleted, debuginfod: --sort srcline differs: $(diff "$d/inl.src" "$d/inl.src2" | head -5)"
grep -q "dbg/inl" "$d/inl.sym2.err" && fail "binary deleted, debuginfod: warnings: $(cat "$d/inl.sym2.err")"
# each file was asked once (the second prep of each pair reads the client cache)
req() { grep "GET /buildid/$bid/$1 " "$d/srv.log" | grep -vc 'UA:curl'; }
if grep -q "GET /buildid/" "$d/srv.log"; then
	[ "$(req debuginfo)" = 2 ] || fail "debuginfo asked $(req debuginfo) times, expected 2"
	[ "$(req executable)" = 1 ] || fail "executable asked $(req executable) times, expected 1"
fi

# two paths, one build id, one prep: asked once
cp "$d/srv/inl" "$d/dbg/inl"
cp "$d/srv/inl" "$d/dbg/inl2"
$PREC -q -F 999 -g --no-embed -o "$d/two.data" -- sh -c "'$d/dbg/inl' 150; '$d/dbg/inl2' 150" \
	>/dev/null 2>"$d/rec.err" || fail "prec inl, inl2: $(cat "$d/rec.err")"
before=$(req debuginfo)
export DEBUGINFOD_CACHE_PATH=$d/dcache4
report "$d/nohome" "$d/two.sym" -i "$d/two.data" --no-children --sort dso,sym -g none
for f in inl inl2; do
	grep -qE "^ +[0-9.]+% +$f +\[\.\] inl_work\$" "$d/two.sym" || fail "$f: inl_work not named"
done
# (asked twice, the second answer would come from the client cache: 2 files)
report "$d/nohome" "$d/two.stats" -i "$d/two.data" --stats
grep -qE '^ +debuginfod +: +[0-9]+ asked, 1 files$' "$d/two.stats" ||
	fail "two paths of one build id: $(grep debuginfod "$d/two.stats")"
if grep -q "GET /buildid/" "$d/srv.log"; then
	[ $(($(req debuginfo) - before)) = 1 ] ||
		fail "two paths of one build id: debuginfo asked $(($(req debuginfo) - before)) times"
fi

# a server that has nothing for it: one warning, names unresolved, no hang
export DEBUGINFOD_CACHE_PATH=$d/dcache3
report "$d/nohome" "$d/tree.dbgd" -i "$d/tree.data" --sort sym
[ "$(grep -c 'debuginfod' "$d/tree.dbgd.err")" = 1 ] ||
	fail "debuginfod without the file: expected one warning: $(cat "$d/tree.dbgd.err")"
has_sym "$d/tree.dbgd" a1 && fail "debuginfod without the file: a1 named"
t3=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v e="$t3" 'BEGIN {
	printf "debuginfod: up in %.2f s; first report through it %.2f s; (b) in all %.2f s\n",
		b - a, c - b, e - a }'

[ $failures -eq 0 ] && echo "lookup checks passed"
exit $((failures > 0))
