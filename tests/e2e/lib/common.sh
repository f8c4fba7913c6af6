# Sourced first by end-to-end tests, from the top of the tree:
#   PREC, PREP   the binaries (absolute paths; $BUILD's when it is not build)
#   P            the test programs (build/tests/programs)
#   d            a new temporary folder: the test's EXIT trap removes it
#   fail MSG     prints and counts a failure ($failures)
#   e2e_cleanup  an EXIT trap: kills the test's background jobs, unmounts
#                $mnt when the test mounted something there, removes $d
#   perf_rec ARGS...
#                tests/e2e/lib/perf.sh's (sourced here; tests that do not
#                source this file source that one)
#   need_perf_events LEVEL
#                exits 77 (skip, with the reason) when the kernel has no
#                perf events, or when not root and perf_event_paranoid is
#                above LEVEL
set -u
B=${BUILD:-build}
PREC=$PWD/prec PREP=$PWD/prep
[ "$B" = build ] || { PREC=$PWD/$B/prec; PREP=$PWD/$B/prep; }
P=$PWD/$B/tests/programs
d=$(mktemp -d)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
mnt=
e2e_cleanup() {
	kill $(jobs -p) 2>/dev/null
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
	rm -rf "$d"
}

need_perf_events() {
	[ -r /proc/sys/kernel/perf_event_paranoid ] || { echo "no perf events on this kernel"; exit 77; }
	if [ "$(id -u)" -ne 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt "$1" ]; then
		echo "needs root or perf_event_paranoid <= $1"; exit 77
	fi
}

. tests/e2e/lib/perf.sh
