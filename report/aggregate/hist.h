/* SPDX-License-Identifier: MIT */
/*
 * Samples to histograms. Samples are first folded into unique stacks (same
 * event, thread, comm, cpu and frames), frames into unique (dso, address)
 * pairs, so that the symbolizer sees each address once; histogram entries,
 * children totals and call-graph trees are then built from the stacks for
 * the sort keys asked (sortkey.h). Naming the frames (symbols, source
 * lines) is resolve.c's part.
 */
#ifndef PREC_REPORT_HIST_H
#define PREC_REPORT_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hash.h"
#include "report/core/machine.h"
#include "report/symbols/symbols.h"
#include "sortkey.h"

struct frame {
	struct dso *dso;        /* NULL: no map holds the address */
	uint64_t addr;          /* file offset in dso; absolute for kernel or no dso */
	uint64_t ip;            /* the address as sampled (by the first sample;
				   call graphs name unresolved frames by it, as perf) */
	bool kernel;
	uint16_t ktab;          /* kernel: the symbolizer's table naming it (0 otherwise) */
	/* after hist_resolve: */
	const char *sym;        /* NULL: unresolved */
	uint64_t sym_start;     /* ELF vaddr (kernel: absolute) */
	uint64_t vaddr;         /* the address as ELF vaddr (kernel: absolute) */
	uint32_t sym_id;        /* same function, same id */
	const char *module;     /* kernel module, NULL for the core kernel */
	/* lazily, from DWARF: */
	bool src_done;
	const struct sym_frame *inl;
	size_t nr_inl;
	/* its names in call graphs, once made (hist.names; 0: not yet) */
	uint32_t names_at;
	uint8_t nr_names;
};

/* A sample's data address, named (daddr.h): for the data sort keys. */
struct stack_data {
	struct dso *dso;        /* NULL: no binary holds it */
	const char *sym;        /* NULL: no data symbol covers it */
	uint64_t addr;          /* the symbol's start, else the address as sampled */
};

struct stack {
	int event;
	struct thread *thread;
	const char *comm;
	uint32_t cpu;
	uint32_t par;           /* the samples' parallelism, when a key reads it */
	uint64_t cgroup;        /* PERF_SAMPLE_CGROUP, 0 without */
	uint32_t nr_frames;
	size_t first;           /* in hist.frame_ids */
	uint64_t count, period;
	uint64_t latency;       /* hist_opts.latency: the periods over their
				   parallelism, x1000 (parallel.h) */
	struct stack_data data; /* zero unless hist_wants_data */
};

/* An entry's key: the fields of the sort keys in use (sortkey.c fills
 * them), zero elsewhere; entries are merged by comparing it whole. */
struct hkey {
	const char *comm;
	uint32_t pid, tid, cpu;
	uint32_t par;           /* parallelism */
	struct dso *dso;
	uint32_t sym;           /* frame sym_id */
	const char *srcline, *srcfile, *parent;
	uint64_t symoff;
	uint64_t cgroup;
	/* children mode, sorted by sym: an inlined function on a chain is an
	 * entry of its own ("name (inlined)", interned), and an unresolved
	 * address met on call chains is keyed by its address as sampled, not
	 * as the sample's own entry shows it (perf's entries); 0 otherwise */
	const char *inl;
	uint64_t ip;
	/* symbol_daddr, dso_daddr: the sample's data address (struct stack_data) */
	const char *dsym;
	uint64_t daddr;
	struct dso *ddso;
	char dmark;             /* [k] or [.]: the sample's mode */
};

struct cnode {
	const char *name;       /* the function (or "name (inlined)", or an address) */
	uint64_t period, count;
	struct cnode *child, *next;
	/* the order of siblings of equal period, as perf's: inlined names by
	 * name, others by dso (later first) and symbol address, both descending */
	bool inlined;
	uint32_t dso_rank;      /* dso index + 1, 0 without a dso */
	uint64_t addr;          /* the symbol's start, else the address */
	uint64_t ip;            /* the address as sampled */
	bool resolved;          /* a symbol names it */
};

struct hentry {
	struct hkey key;
	uint32_t frame;         /* a frame representing the entry (for display) */
	uint64_t self_period, self_count;
	uint64_t total_period, total_count;     /* children mode: with callees */
	uint64_t self_latency, total_latency;   /* hist_opts.latency */
	struct cnode *tree;     /* call graph root (a dummy node) */
	/* children mode, perf's order of equal totals: the thread of the
	 * first sample, and the longest chain from the entry (the whole
	 * chain for a sampled function) */
	const struct thread *thread;
	uint32_t max_depth;
	/* the [k] or [.] mark when not the frame's own: perf gives an address
	 * outside every map the mark of the frame it met before it */
	char level;
};

struct hist_opts {
	enum sort_key_id keys[SORT_NR];
	size_t nr_keys;
	bool children;
	bool callchain;         /* build call-graph trees */
	bool caller;            /* caller order (root first) */
	bool inline_frames;     /* expand inlined functions in call graphs */
	int max_stack;
	const char *parent_re;
	const char *symfs;      /* look for binaries under this folder (perf's --symfs) */
	/* latency profiles (prep --latency): each stack's latency summed, and
	 * with prefer_latency the entries sorted by it first */
	bool latency, prefer_latency;
	/* hist_build makes no call-graph tree: hist_build_trees makes those
	 * of the entries shown (prec top, whose entries are built again at
	 * each refresh and only some shown) */
	bool defer_trees;
};

struct symid_rec;
struct raw_stack;

struct hist {
	struct hist_opts opts;
	struct machine *machine;
	struct symbolizer *sym;
	struct frame *frames;
	size_t nr_frames, cap_frames;
	const char **names;     /* frames' call-graph names (interned), by frame */
	size_t nr_names, cap_names;
	struct hmap frame_idx;
	uint32_t *frame_ids;
	size_t nr_ids, cap_ids;
	struct stack *stacks;
	size_t nr_stacks, cap_stacks;
	struct hmap stack_idx;
	uint32_t nr_sym_ids;
	struct hmap sym_idx;
	struct symid_rec *symids;
	size_t cap_symids;
	/* per event, after hist_build: */
	struct hentry *entries;
	size_t nr_entries;
	uint64_t total_period, total_count;
	uint64_t total_latency;
	uint64_t unresolved;    /* samples whose own address has no symbol */
	/* samples seen before, by their raw addresses: skips the map lookups
	 * and frame folding (emptied whenever a map changes) */
	struct hmap raw_idx;
	uint64_t *raw_addrs;
	size_t nr_raw_addrs, cap_raw_addrs;
	struct raw_stack *raw;
	size_t nr_raw, cap_raw;
	uint64_t raw_gen;
	/* in front of raw_idx: the raw stacks of the last samples, one per
	 * slot of their hash (HIST_RAW_SLOTS), each its hash and raw index + 1 */
	struct { uint64_t hash; uint32_t raw; } *raw_slots;
	bool dwarf_prefetched;
	bool chains_seen;       /* a sample with callers */
	struct stack_data next_data;    /* for the sample hist_add_data adds */
	bool want_data;                 /* a sort key reads data addresses (hist_init) */
	bool by_par;                    /* a sort key reads the parallelism (hist_init) */
	unsigned next_par;              /* the parallelism of the next sample added */
	uint64_t added;         /* samples given to hist_add */
	const bool *tree_want;  /* during hist_build_trees: the entries to make trees of */
	uint32_t last_stack;    /* the stack hist_add added the last sample to */
};

int hist_init(struct hist *h, const struct hist_opts *o, struct machine *m, struct symbolizer *s);
void hist_free(struct hist *h);

/* Add one sample: frames[0] is the sampled address, then its callers; its
 * kernel addresses are named from the symbolizer's kernel table ktab. */
int hist_add(struct hist *h, int event, struct thread *t, uint32_t cpu, uint64_t period,
	     const uint64_t *addrs, const bool *kernel, size_t n, unsigned ktab);
/* The same for a sample that carries its cgroup's id (--sort cgroup). */
int hist_add_cgroup(struct hist *h, int event, struct thread *t, uint32_t cpu, uint64_t cgroup,
		    uint64_t period, const uint64_t *addrs, const bool *kernel, size_t n,
		    unsigned ktab);

/* One more sample of stack idx (h->last_stack after the hist_add of a
 * sample like it), weighted by period: what hist_add does with a sample
 * whose stack it finds. 0, or what opening the DWARF ahead returns. */
int hist_count(struct hist *h, uint32_t idx, uint64_t period);

/* The parallelism of the samples added next (load_sample.parallelism): for
 * their latency and the parallelism key; 0 (the default) counts as 1. */
void hist_set_parallelism(struct hist *h, unsigned level);

/* A sort key reads data addresses (symbol_daddr, dso_daddr). */
bool hist_wants_data(const struct hist *h);
/* hist_add for a sample whose data address d names (hist_wants_data):
 * samples of different data symbols (or unnamed addresses) are different
 * stacks. */
int hist_add_data(struct hist *h, const struct stack_data *d, int event, struct thread *t,
		  uint32_t cpu, uint64_t cgroup, uint64_t period, const uint64_t *addrs,
		  const bool *kernel, size_t n, unsigned ktab);

/* Older samples weigh less (prec top between two refreshes): every
 * stack's period and count times num/den, rounded down (perf top's 7/8),
 * and the stacks with nothing left dropped; num 0 drops them all (-z).
 * The frames and their names stay. Build the entries again after it.
 * 0 or -ENOMEM (then the stacks are as decayed, the index is not whole:
 * free the hist). */
int hist_decay(struct hist *h, unsigned num, unsigned den);

/* Start opening, on a thread, the DWARF of the dsos hit so far, when the
 * options want it (inline frames, srcline keys). Only the first call acts. */
int hist_prefetch_dwarf(struct hist *h);
/* Symbolize every frame (once per unique address). */
int hist_resolve(struct hist *h);
/* Build the entries of one event, sorted for output. */
int hist_build(struct hist *h, int event);
/* With opts.defer_trees, after hist_build: the call-graph trees of the
 * entries i with want[i] (want has nr_entries elements), the same trees
 * hist_build makes without it. 0, -ENOMEM or -EINVAL (--parent). */
int hist_build_trees(struct hist *h, int event, const bool *want);

/* The same of the stacks keep(ctx, stack) says true for (keep NULL: all):
 * entries, totals and call graphs as if only their samples had been read
 * (the browser's zoom into a thread or a command). */
typedef bool (*hist_keep_fn)(void *ctx, const struct stack *s);
int hist_build_keep(struct hist *h, int event, hist_keep_fn keep, void *ctx);

/* The entries of one build, moved out of a histogram and back (the
 * browser keeps those of the zooms it left, to go back to them at once):
 * hist_entries_swap exchanges h's entries, totals and trees with *e
 * (either may be empty); what *e holds is freed with hist_entries_free
 * (hist_free frees only h's own). Valid while h's stacks and frames are
 * unchanged. */
struct hist_entries {
	struct hentry *entries;
	size_t nr_entries;
	uint64_t total_period, total_count, total_latency, unresolved;
};
void hist_entries_swap(struct hist *h, struct hist_entries *e);
void hist_entries_free(struct hist_entries *e);

/* The symbolizer's handle of a dso, found under symfs when given. */
struct sym_dso *dso_sym(struct symbolizer *s, const char *symfs, struct dso *d);

/* DWARF source position of a frame (lazily); "file:line" text helpers. */
void hist_frame_src(struct hist *h, struct frame *f);
const char *hist_srcline(struct hist *h, struct frame *f, bool basename_only);

#endif
