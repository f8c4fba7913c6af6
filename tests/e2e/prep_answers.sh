#!/usr/bin/env bash
# prep's answers where perf has one (issue 13): the header decodes the
# workload's end (exit status, or the signal that killed it).
source "$(dirname "$0")/lib/common.sh"
trap 'rm -rf "$d"' EXIT
export LC_ALL=C
unset DEBUGINFOD_URLS
need_perf_events 1

# header PROG-ARGS...: the "workload exit" line of --header-only
header_exit() {
	(ulimit -c 0; $PREC -q -o "$d/exit.data" -- "$@") >/dev/null 2>&1
	$PREP -i "$d/exit.data" --header-only 2>&1 | grep '^# workload exit'
}

# 1. the header: how the workload ended, not its raw wait status
got=$(header_exit sh -c 'exit 3')
[ "$got" = "# workload exit : exited with status 3" ] || fail "exit 3: header says '$got'"
got=$(header_exit sh -c 'kill -SEGV $$')
[ "$got" = "# workload exit : killed by signal 11 (SIGSEGV)" ] ||
	fail "SIGSEGV: header says '$got'"
got=$(header_exit true)
[ "$got" = "# workload exit : exited with status 0" ] || fail "true: header says '$got'"

[ $failures -eq 0 ] && echo "prep answers as perf does"
exit $((failures > 0))
