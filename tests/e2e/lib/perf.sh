# Sourced by end-to-end tests that run perf itself (common.sh sources it):
#   perf_rec ARGS...
#                perf record ARGS, tried again (five times in all) when perf
#                itself fails: perf 6.1 here sometimes aborts as it ends
#                ("stack smashing detected", an assertion in
#                util/build-id.c), leaving a file it cannot read either
perf_rec() {
	local try
	for try in 1 2 3 4 5; do
		perf record "$@" && return 0
	done
	return 1
}
