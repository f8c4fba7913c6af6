#!/usr/bin/env bash
# prep on committed fixture files (no privileges needed): every case of
# tests/fixtures/cases.txt must print exactly tests/fixtures/expected/NAME.
# The fixture was recorded from tests/programs/tree run as
# /tmp/prec-fixture/tree with -e cpu-clock:u (no kernel samples); the binary
# is under tests/fixtures/symfs, so --symfs makes the report the same on any
# machine. UPDATE=1 rewrites the expected files (read the diff before
# committing them).
set -u
B=${BUILD:-build}
PREP=./prep
[ "$B" = build ] || PREP=$B/prep
F=tests/fixtures
failures=0
export TZ=UTC LC_ALL=C
# not perf's build-id cache of this machine (~/.debug), which may hold the libc
# that recorded the fixture and name what the expected outputs leave unknown
export PERF_BUILDID_DIR=/nonexistent/prec-fixtures
while IFS='|' read -r name args; do
	name=$(echo "$name" | tr -d ' ')
	case "$name" in ''|'#'*) continue ;; esac
	sub=
	set -- $args
	if [ "${1:-}" = script ]; then sub=script; shift; fi
	out=$($PREP $sub -i $F/tree.data --symfs $F/symfs "$@" 2>&1)
	if [ "${UPDATE:-}" = 1 ]; then
		printf '%s\n' "$out" >"$F/expected/$name"
	elif ! diff -u "$F/expected/$name" <(printf '%s\n' "$out") >/tmp/prep_fixture_diff.$$ 2>&1; then
		echo "FAIL: $name (prep $sub $args):"
		head -20 /tmp/prep_fixture_diff.$$
		failures=$((failures + 1))
	fi
done <$F/cases.txt
rm -f /tmp/prep_fixture_diff.$$
[ $failures -eq 0 ] && echo "prep fixture outputs match"
exit $((failures > 0))
