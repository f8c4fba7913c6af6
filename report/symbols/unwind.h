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

#include "format/record.h"
#include "report/core/machine.h"

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

/* Unwind tables embedded in the recording (format/embed.h): a binary whose
 * build id is among them is read from there only. Borrowed; call before
 * the first unwind. 0 or -ENOMEM. */
struct embed_dso;
int unwinder_add_embedded(struct unwinder *u, struct embed_dso *const *v, size_t n);

/* Called with every word read from a binary's file while unwinding (what a
 * recording must embed to unwind the same way without the file). */
typedef void (*unwind_trace_fn)(void *ctx, struct dso *d, uint64_t vaddr, const void *bytes,
				size_t n);
void unwinder_set_trace(struct unwinder *u, unwind_trace_fn fn, void *ctx);

/* The binary's .eh_frame_hdr vaddr and the entries of its search table;
 * false when it has none usable, or when it also needs its .debug_frame
 * (which is not embedded). */
bool unwinder_tables(struct unwinder *u, struct dso *d, uint64_t *hdr_vaddr,
		     uint64_t *fde_count);

#endif
