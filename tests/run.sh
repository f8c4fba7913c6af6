#!/bin/sh
# Runs every test and ends with "N passed, N failed[, N skipped]".
#   - C unit tests (cmocka, TAP output): one count per test case
#   - fuzz corpus replays: one count per corpus input
#   - end-to-end scripts tests/e2e/*.sh: one count per script
#     (exit 0 pass, exit 77 skip with the reason as the last line of output;
#     a passing one says how many seconds it took: the suite must stay under
#     10 minutes on a 2-core machine)
# Exit status is non-zero if anything failed.
BUILD=${BUILD:-build}
export BUILD
# no debuginfod server of the environment is asked (prep_lookup.sh runs its own)
unset DEBUGINFOD_URLS
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
LOG=$BUILD/test-logs
mkdir -p "$LOG"
pass=0; fail=0; skip=0

count_tap() { # $1 = log file; adds ok / not ok lines
	p=$(grep -c '^ok ' "$1"); f=$(grep -c '^not ok ' "$1")
	pass=$((pass + p)); fail=$((fail + f))
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	CMOCKA_MESSAGE_OUTPUT=TAP "$t" >"$LOG/$name.log" 2>&1
	rc=$?
	count_tap "$LOG/$name.log"
	if [ $rc -ne 0 ]; then
		echo "FAIL $name (exit $rc)"; grep -v '^ok ' "$LOG/$name.log" | head -30
		grep -q '^not ok ' "$LOG/$name.log" || fail=$((fail + 1))
	else
		echo "ok   $name ($(grep -c '^ok ' "$LOG/$name.log") cases)"
	fi
done

for t in "$BUILD"/tests/replay_*; do
	[ -x "$t" ] || continue
	name=${t##*/replay_}
	"$t" "tests/fuzz/corpus/$name" >"$LOG/replay_$name.log" 2>&1
	rc=$?
	count_tap "$LOG/replay_$name.log"
	if [ $rc -ne 0 ]; then
		echo "FAIL replay_$name (exit $rc)"; tail -30 "$LOG/replay_$name.log"
		fail=$((fail + 1))
	else
		echo "ok   replay_$name ($(grep -c '^ok ' "$LOG/replay_$name.log") inputs)"
	fi
done

for t in tests/e2e/*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	t0=$(date +%s)
	bash "$t" >"$LOG/e2e_$name.log" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	case $rc in
	0) pass=$((pass + 1)); echo "ok   e2e/$name (${secs} s)" ;;
	77) skip=$((skip + 1)); echo "skip e2e/$name: $(tail -1 "$LOG/e2e_$name.log")" ;;
	*) fail=$((fail + 1)); echo "FAIL e2e/$name (exit $rc)"; tail -30 "$LOG/e2e_$name.log" ;;
	esac
done

if [ $skip -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ $fail -eq 0 ]
