/* SPDX-License-Identifier: MIT */
/*
 * User-space call chains of `--call-graph dwarf` samples: libunwind's remote
 * interface over the sample's registers (PERF_SAMPLE_REGS_USER) and its copy
 * of the user stack (PERF_SAMPLE_STACK_USER), with the unwind tables
 * (.eh_frame_hdr / .eh_frame, else .debug_frame) read from the mapped
 * binaries. x86-64 only.
 */
#ifndef PREC_REPORT_UNWIND_H
#define PREC_REPORT_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../format/record.h"
#include "machine.h"

struct unwinder;

struct unwind_stats {
	uint64_t samples;       /* samples unwound */
	uint64_t frames;        /* frames found */
	uint64_t stopped;       /* unwinds that ended before an outermost frame */
	uint64_t debug_frame;   /* table lookups answered from .debug_frame (libunwind
				 * caches what it found: not a count of frames) */
};

/* symfs: where binaries are looked for (NULL: as recorded). NULL on ENOMEM
 * or when this build cannot unwind. */
struct unwinder *unwinder_new(struct machine *m, const char *symfs);
void unwinder_free(struct unwinder *u);

/* The user frames of a sample, innermost first (the sampled ip first):
 * at most max of them into ips; returns how many (0 when the sample has no
 * registers or stack, or nothing could be unwound). */
size_t unwind_user(struct unwinder *u, const struct thread *t, const struct sample *s,
		   uint64_t *ips, size_t max);
void unwinder_get_stats(const struct unwinder *u, struct unwind_stats *st);

#endif
