/* SPDX-License-Identifier: MIT */
/*
 * The unique stacks of a histogram as sequences of named frames, root first:
 * what the exports share (--folded, speedscope, the flame graph). Built
 * after hist_resolve from the histogram's unique stacks (one per event,
 * thread, comm, cpu and raw frames): each raw frame expands into its
 * function and, with inline frames on, the functions inlined at that
 * address (outermost first), and stacks that name the same frames for the
 * same event and thread are merged.
 *
 * A frame is a function: the same name in the same dso with the same kind
 * is one frame, wherever it was sampled. Unresolved addresses are named
 * after their dso, "[libfoo.so]" (the name FlameGraph's stackcollapse-perf
 * gives them), or "[unknown]" when no map held them.
 *
 * Ownership: the arrays belong to the struct stacks until stacks_free();
 * names, files and dsos point into the machine and the symbolizer, which
 * must outlive it.
 */
#ifndef PREC_REPORT_STACKS_H
#define PREC_REPORT_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hash.h"
#include "hist.h"
#include "report/core/load.h"

enum sframe_kind {
	SF_USER,        /* a function of an executable */
	SF_LIB,         /* of a shared library (a name with ".so") */
	SF_KERNEL,      /* the kernel and its modules */
	SF_INLINE,      /* inlined into the frame below it (user space) */
	SF_OTHER,       /* no symbol file: anonymous memory (JIT), [vdso], unknown */
	SF_NR_KINDS
};

struct sframe {
	const char *name;
	const char *file;       /* DWARF source file, NULL if unknown */
	unsigned line;          /* the lowest line sampled in the function, 0 if unknown */
	const struct dso *dso;  /* NULL when no map held the address */
	enum sframe_kind kind;
	bool resolved;          /* a symbol named it */
};

struct sstack {
	int event;
	const struct thread *thread;
	const char *comm;
	uint32_t first, nr;     /* frame ids in stacks.ids[first..first+nr), root first */
	uint64_t count, period;
};

struct stacks {
	struct sframe *frames;
	size_t nr_frames, cap_frames;
	uint32_t *ids;
	size_t nr_ids, cap_ids;
	struct sstack *stacks;
	size_t nr_stacks, cap_stacks;
	uint64_t total_count, total_period;     /* of the stacks kept */
	uint64_t dropped;                       /* samples left out by --dso/--symbols */
	/* building state */
	struct hmap frame_idx, stack_idx;
};

struct stacks_opts {
	int event;              /* the load's event index; -1: every event */
	bool inline_frames;     /* expand inlined functions (DWARF) */
	bool src;               /* source file and line of every frame (DWARF) */
	const struct load *l;   /* --dso/--symbols post-filters on the sampled frame; may be NULL */
};

/* Fill s (zeroed here) from h after hist_resolve. 0 or -ENOMEM. */
int stacks_build(struct stacks *s, struct hist *h, const struct stacks_opts *o);
void stacks_free(struct stacks *s);     /* NULL-tolerant */

/* The dso of a frame as a viewer shows it: the path of a binary, the name
 * of the kernel ("[kernel.kallsyms]") or of a module; NULL when none. */
const char *sframe_dso_name(const struct sframe *f);

/* "user", "lib", "kernel", "inline", "other" */
const char *sframe_kind_name(enum sframe_kind k);

/* The index of the event to export: the one named (NULL: the first event
 * with samples in h). -1 when there is none (err says why). */
int stacks_pick_event(const struct load *l, const struct hist *h, const char *name,
		      struct err *err);

#endif
