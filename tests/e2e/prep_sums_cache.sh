#!/usr/bin/env bash
# prep annotate and prep diff keep what a reading by sums of a perf.data
# handed on (report/core/sum_cache.h) in $PREP_CACHE_DIR, and the next
# reading of the same file takes it from there: the same output, byte for
# byte, stderr and exit status too, with the kept file left as it was (not
# written again: it was used). --no-index walks the file and keeps
# nothing; a kept file with a byte changed, or for a file changed since
# (touched), is not used (the output still the same, the kept file written
# anew); prep diff keeps apart what it sums by CPU; a cache folder that
# cannot be written changes nothing but that.
. tests/e2e/lib/common.sh
trap e2e_cleanup EXIT
need_perf_events 1
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
export LC_ALL=C
unset DEBUGINFOD_URLS
cd "$d" || exit 1
export PREP_CACHE_DIR=$d/cache

# two perf.data files over 1 MiB (smaller ones are walked each time)
for v in 1 2; do
	perf_rec -q -e cpu-clock -F 20000 -g -o v$v.data -- "$P/diff$v/diffprog" 800 >/dev/null 2>&1 ||
		{ echo "perf record failed"; exit 77; }
	[ "$(stat -c %s v$v.data)" -ge 1048576 ] || fail "v$v.data: $(stat -c %s v$v.data) bytes, not over 1 MiB"
done

kept() { ls "$PREP_CACHE_DIR"/sums-*.bin 2>/dev/null; }
ino() { stat -c %i "$1" 2>/dev/null; }

# run NAME ARGS...: prep ARGS, its output, errors and status in NAME.*
run() {
	local n=$1
	shift
	$PREP "$@" >"$n.out" 2>"$n.err"
	echo $? >"$n.rc"
}
same() { # A B WHAT
	cmp -s "$1.out" "$2.out" && cmp -s "$1.err" "$2.err" && cmp -s "$1.rc" "$2.rc" ||
		{ fail "$3: not the same"; diff "$1.out" "$2.out" | head -4; diff "$1.err" "$2.err" | head -4; }
}

# ---- annotate: kept, then used ----------------------------------------------
run cold annotate --stdio -i v1.data
[ "$(kept | wc -l)" = 1 ] || fail "one annotate: kept files $(kept | wc -l)"
k=$(kept)
i=$(ino "$k")
[ "$(cat cold.rc)" = 0 ] && grep -q 'grow' cold.out || fail "annotate: exit $(cat cold.rc), $(head -1 cold.err)"
run warm annotate --stdio -i v1.data
same cold warm "annotate again"
[ "$(ino "$k")" = "$i" ] || fail "annotate again: the kept file was written again (not used)"
run one_cold annotate --stdio -i v1.data --no-index grow -n
run one_warm annotate --stdio -i v1.data grow -n
same one_cold one_warm "annotate grow -n, --no-index against kept"
grep -q 'grow' one_warm.out || fail "annotate grow: $(head -3 one_warm.out)"
[ "$(ino "$k")" = "$i" ] && [ "$(kept | wc -l)" = 1 ] ||
	fail "--no-index wrote a kept file (files $(kept | wc -l))"

# ---- a kept file that does not check, a perf.data changed since ---------
python3 - "$k" <<'EOF'
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
b[len(b) - 100] ^= 0x20
open(p, 'wb').write(b)
EOF
i=$(ino "$k")
run bad annotate --stdio -i v1.data
same cold bad "annotate with a damaged kept file"
[ "$(ino "$k")" != "$i" ] || fail "a damaged kept file was not written anew"
i=$(ino "$k")
touch v1.data
run touched annotate --stdio -i v1.data
same cold touched "annotate of a touched perf.data"
[ "$(ino "$k")" != "$i" ] || fail "the kept file of a touched perf.data was not written anew"

# ---- diff: kept per key ---------------------------------------------------------
rm -rf "$PREP_CACHE_DIR"
run dcold diff v1.data v2.data
[ "$(kept | wc -l)" = 2 ] || fail "diff of two files: kept files $(kept | wc -l)"
grep -q 'grow' dcold.out || fail "diff: $(head -3 dcold.out; head -1 dcold.err)"
run dwarm diff v1.data v2.data
same dcold dwarm "diff again"
run ccold diff --sort cpu,sym v1.data v2.data
[ "$(kept | wc -l)" = 4 ] || fail "diff by CPU: kept files $(kept | wc -l) (two more wanted)"
run cwarm diff --sort cpu,sym v1.data v2.data
same ccold cwarm "diff --sort cpu,sym again"

# ---- a cache folder that cannot be written ---------------------------------------
PREP_CACHE_DIR=/proc/no-such-folder run ro annotate --stdio -i v1.data
same cold ro "annotate with an unwritable cache folder"

[ $failures -eq 0 ] && echo "a perf.data's sums are kept and used again"
exit $((failures > 0))
