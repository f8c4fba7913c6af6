# Sourced by end-to-end tests that run perf itself (common.sh sources it):
#   perf_rec ARGS...
#                perf record ARGS, tried again (five times in all) when perf
#                itself fails: perf 6.1 here sometimes aborts as it ends
#                ("stack smashing detected", an assertion in
#                util/build-id.c), leaving a file it cannot read either,
#                at times with exit status 0: a file whose header still
#                says no data (perf writes the data size last) is a failure
#                too
#   PLT_NAME     an ERE for what names a sample in the PLT: perf 6.1 says
#                _init (the symbol before the PLT) with or without +OFF,
#                prep STUB@plt or .plt for the header (README, "Where prep
#                knows better than perf 6.1")
#   mask_plt     a filter: each such name becomes <plt>
perf_rec() {
	local try out="" prev=""
	for a in "$@"; do
		[ "$prev" = -o ] && out=$a
		prev=$a
	done
	for try in 1 2 3 4 5; do
		perf record "$@" || continue
		# the data section's size, at offset 48 of a perf.data header
		[ -z "$out" ] || [ "$out" = - ] ||
			[ "$(od -An -t u8 -j 48 -N 8 "$out" 2>/dev/null | tr -d ' ')" != 0 ] || continue
		return 0
	done
	return 1
}

PLT_NAME='(_init|\.plt|[A-Za-z0-9_.]+@plt)(\+0x[0-9a-f]+)?'
mask_plt() { sed -E "s/$PLT_NAME/<plt>/g"; }
