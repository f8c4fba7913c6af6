/* SPDX-License-Identifier: MIT */
/*
 * The progress line of long reads, for the front ends (perf report shows a
 * progress bar while it processes events): LOG_PROGRESS messages
 * (common/log.h), only when the front end's handler wants them (prep's
 * does when stderr is a terminal) and an input is large
 * ($PREP_PROGRESS_MIN_BYTES, default 100 MiB), at most ten a second, and
 * an empty one when the reading ends. Otherwise nothing is installed and
 * reading costs nothing more.
 */
#ifndef PREC_REPORT_PROGRESS_H
#define PREC_REPORT_PROGRESS_H

#include <stdint.h>

struct load;

struct progress {
	uint64_t last_ns;       /* CLOCK_MONOTONIC of the last line */
	int shown;              /* a line was sent and not yet ended */
};

/* Install the progress line on l (its inputs and quiet set) when it is
 * wanted; p must outlive the reading. */
void progress_install(struct progress *p, struct load *l);

#endif
