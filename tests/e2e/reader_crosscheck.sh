#!/usr/bin/env bash
# The real reader (through tests/canon/canondump) and the independent reader
# written from FORMAT.md alone (tests/minireader) must print the same
# canonical text and exit status for every file: well-formed ones, files with
# blocks to skip, cut-short ones, 400 damaged copies, and the committed fuzz
# corpus of the reader.
set -u
B=${BUILD:-build}/tests
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$B/gen_files" -m 400 -s 1 "$dir" || exit 1
fail=0; n=0
for f in "$dir"/*.data tests/fuzz/corpus/reader/*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	"$B/canondump" "$f" >"$dir/real.out" 2>/dev/null; r1=$?
	"$B/minireader" "$f" >"$dir/mini.out" 2>/dev/null; r2=$?
	if [ $r1 -ne $r2 ] || ! cmp -s "$dir/real.out" "$dir/mini.out"; then
		echo "MISMATCH on $f (exit $r1 vs $r2)"
		diff "$dir/real.out" "$dir/mini.out" | head -20
		fail=1
	fi
done
# The well-formed files must read clean and complete.
for f in good_small good_stored good_symbols counts good_transformed good_columns; do
	grep -q "^end blocks=[0-9]* corrupt=0 skipped=0$" <("$B/canondump" "$dir/$f.data") ||
		{ echo "$f.data did not read clean"; fail=1; }
done
# ... and hold the DATA encodings they are named for (FORMAT.md 6.3, 6.4)
grep -q "type=3 codec=1 flags=1 " <("$B/minireader" "$dir/good_transformed.data") ||
	{ echo "good_transformed.data has no TRANSFORMED block"; fail=1; }
grep -q "type=3 codec=1 flags=2 " <("$B/minireader" "$dir/good_columns.data") ||
	{ echo "good_columns.data has no COLUMNS block"; fail=1; }
echo "$n files compared"
exit $fail
