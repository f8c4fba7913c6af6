/* SPDX-License-Identifier: MIT */
/*
 * prep export --pprof: the samples of one event as a profile.proto message
 * (github.com/google/pprof, proto/profile.proto), gzip-compressed, the file
 * `go tool pprof`, Pyroscope and Parca read.
 *
 * What goes in:
 *   sample_type   [samples/count, EVENT/UNIT]: the number of samples and
 *                 the sum of their periods; UNIT is nanoseconds for
 *                 cpu-clock and task-clock, count for every other event.
 *                 default_sample_type is the second (pprof shows periods,
 *                 as prep's percentages are), period_type the same pair.
 *   period        the sampling period: sample_period with -c; with -F,
 *                 1e9 / frequency for the clock events, else the mean
 *                 period of the samples.
 *   sample        one per unique stack of prep's folding (thread, comm, cpu
 *                 and frames): location ids leaf first, values [count,
 *                 period], labels pid, tid, cpu (numbers; cpu with the
 *                 unit "cpu", as pprof drops unitless zeros) and comm.
 *   location      one per unique frame (binary + file offset, or kernel
 *                 address), in first-use order: the address as it was in
 *                 the first process that mapped the binary there (kernel:
 *                 as sampled), its mapping, and its lines innermost first:
 *                 inlined functions from DWARF, then the function that
 *                 holds the address (named as prep names it, the ELF
 *                 symbol). A frame without a symbol gets no line, so a
 *                 backend can symbolize it from the build id and address.
 *   function      name = system_name = the symbol (prep does not
 *                 demangle), filename from DWARF; start_line is not known
 *                 (the symbolizer does not keep DW_AT_decl_line) and left 0.
 *   mapping       memory start/limit/file offset of the map the addresses
 *                 are in (kernel and unmapped binaries: the range of the
 *                 addresses hit, offset 0), file name, build id in hex;
 *                 has_functions when every location of it has a function,
 *                 has_filenames, has_line_numbers and has_inline_frames
 *                 when every location has DWARF lines. mapping[0] is the
 *                 main binary: the one named like the command of the
 *                 heaviest stack, else the user binary with the most self
 *                 samples.
 *   time_nanos, duration_nanos   the recording's start and length;
 *   comment       the recording's command line.
 *
 * Strings that are not valid UTF-8 have the bad bytes replaced by U+FFFD.
 */
#ifndef PREC_REPORT_PPROF_H
#define PREC_REPORT_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "report/core/load.h"

struct pprof_opts {
	const char *output;     /* file name; "-": standard output */
	const char *event;      /* NULL: the first event with samples */
	int level;              /* gzip level 0-9 */
};

struct pprof_result {
	const char *event;      /* the event exported */
	size_t nr_events;       /* events in the input */
	uint64_t samples, period;
	size_t nr_samples, nr_locations, nr_functions, nr_mappings;
	uint64_t bytes;         /* written, compressed */
};

/* Read the inputs of l (from load_new), write the profile. 0, or a
 * negative code with err set: unknown event, no samples, write errors. */
int pprof_export(struct load *l, const struct pprof_opts *o, struct pprof_result *res,
		 struct err *err);

#endif
