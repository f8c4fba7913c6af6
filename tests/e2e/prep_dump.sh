#!/usr/bin/env bash
# prep --dump-raw on generated files: decodes every record of a good file,
# warns (stderr) and counts for damaged ones, and fails cleanly on files it
# cannot read at all.
set -u
B=${BUILD:-build}
PREP=./prep
[ "$B" = build ] || PREP=$B/prep
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$B/tests/gen_files" "$dir" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

out=$($PREP --dump-raw -i "$dir/good_small.data" 2>"$dir/err") || fail "good file: exit $?"
[ -s "$dir/err" ] && fail "good file: unexpected stderr: $(cat "$dir/err")"
grep -q "^block 1 @236: EVENT" <<<"$out" || fail "no EVENT block line"
grep -q "event 0: 'cpu-clock', 2 ids" <<<"$out" || fail "event not decoded"
grep -q "sample_type IP|TID|TIME|CALLCHAIN|CPU|PERIOD|IDENTIFIER" <<<"$out" || fail "sample_type"
[ "$(grep -c ' SAMPLE id 10[01] ip 0x' <<<"$out")" = 120 ] || fail "expected 120 decoded samples"
grep -q "COMM 1000/1000: app (exec)" <<<"$out" || fail "COMM not decoded"
grep -q "MMAP2 1000/1000 \[0x400000(0x100000) @ 0 prot 5 flags 2\]: /usr/bin/app" <<<"$out" || fail "MMAP2"
grep -q "cmdline: prec -F 4000 -g -- ./app" <<<"$out" || fail "cmdline"
grep -q "^  4 kernel symbols (1 in modules), 0..0xffffffffa0000010$" <<<"$out" || fail "KALLSYMS block"
grep -q "^# 8 blocks, 122 records (120 samples, 0 undecodable, 0 of unknown types); 0 corrupt blocks" <<<"$out" ||
	fail "summary line: $(tail -1 <<<"$out")"
# the same with the subcommand spelling
cmp -s <(echo "$out") <($PREP dump -i "$dir/good_small.data") || fail "'prep dump' differs from --dump-raw"

# damaged: warnings on stderr naming the offset, counted on the last line, exit 0
out=$($PREP -D -i "$dir/corrupt_header.data" 2>"$dir/err") || fail "corrupt file: exit $?"
grep -q "warning: .*corrupt block header at offset 331" "$dir/err" || fail "no corrupt-header warning"
grep -q "1 corrupt blocks, 0 skipped blocks, 5687 bytes skipped" <<<"$out" || fail "corrupt count"
out=$($PREP -D -i "$dir/truncated_payload.data" 2>"$dir/err") || fail "truncated file: exit $?"
grep -q "warning: .*does not point to an index block" "$dir/err" || fail "no bad-index warning"
grep -q "warning: .*incomplete block at offset" "$dir/err" || fail "no truncation warning"
grep -q "bytes ignored; recording did not finish" <<<"$out" || fail "truncation not counted"
"$PREP" -D -i "$dir/unfinished.data" >/dev/null 2>"$dir/err" || fail "unfinished: exit $?"
grep -q "warning: .*the recording did not finish (no index)" "$dir/err" || fail "no unfinished warning"
out=$($PREP -D -i "$dir/skip_transformed.data" 2>"$dir/err") || fail "transformed: exit $?"
grep -q "TRANSFORMED flag on a block that is not DATA, skipped" "$dir/err" || fail "no skip warning"
out=$($PREP -D -i "$dir/good_transformed.data" 2>"$dir/err") || fail "transformed: exit $?"
[ -s "$dir/err" ] && fail "transformed: warnings: $(cat "$dir/err")"
[ "$(grep -c ' SAMPLE id 10[01] ip 0x' <<<"$out")" = 120 ] || fail "transformed: expected 120 samples"
grep -q "DATA, zlib, " <<<"$out" || fail "transformed: no DATA block"

# unreadable: one line, non-zero exit, no crash
for f in bad_magic.data missing.data; do
	$PREP -D -i "$dir/$f" >/dev/null 2>"$dir/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$f: exit $rc"
	[ "$(wc -l <"$dir/err")" = 1 ] || fail "$f: expected one error line: $(cat "$dir/err")"
done
grep -q "No such file" "$dir/err" || fail "missing file message"
$PREP -D -i "$dir" >/dev/null 2>"$dir/err"; [ $? -eq 1 ] || fail "directory accepted"
$PREP --no-such-option >/dev/null 2>&1; [ $? -eq 129 ] || fail "bad option exit code"
$PREP -i >/dev/null 2>"$dir/err"; grep -q "needs a value" "$dir/err" || fail "missing value message"
echo "prep dump checks passed"
