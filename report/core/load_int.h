/* SPDX-License-Identifier: MIT */
/*
 * Inside the reading core: the runtime state of struct load, for load.c
 * (which fills it) and load_get.c (the accessors). Views use load.h; only
 * unit tests that build a reading by hand may include this one.
 */
#ifndef PREC_REPORT_LOAD_INT_H
#define PREC_REPORT_LOAD_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/hash.h"
#include "load.h"

/* The last count of each (file, id, thread) read in samples (load_read.c). */
struct read_last;
struct read_deltas {
	struct hmap idx;
	struct read_last *v;
	size_t nr, cap;
};

/* *delta: value less the last value of (file, id, tid) (all of it the first
 * time, 0 if it went down); value becomes the last. 0 or -ENOMEM. */
int read_deltas_step(struct read_deltas *d, size_t file, uint64_t id, uint32_t tid,
		     uint64_t value, uint64_t *delta);
void read_deltas_free(struct read_deltas *d);
/* The groups of file (perf.data's GROUP_DESC, prec.data's event_groups)
 * into group_leader. */
void load_groups_from_header(struct load *l, size_t file);

#define CHAIN_MAX (PERF_MAX_STACK_DEPTH + 8)

/* One reading of one input: what load_run (and a live reading) keep while
 * its records go by. */
struct run_ctx {
	struct load *l;
	size_t file;
	load_sample_fn fn;
	load_record_fn on_record;
	void *ctx;
	uint64_t *addrs;        /* CHAIN_MAX each: the chain being assembled */
	bool *kernel;
	uint64_t t0, t1;        /* the file's sample time span, for % ranges */
	/* the threads of the last samples, by tid % 8, until a record changes
	 * the threads (samples of a few threads interleave in time order) */
	struct {
		struct thread *t;
		uint32_t pid, tid;
	} recent[8];
	struct load_memo *memo;         /* load_run_memo's, else NULL */
	bool kept;                      /* the files' SAMPLE_SUMS blocks may stand in */
	bool sum;                       /* load_run_sum */
	bool sum_cpu;                   /* ... whose samples of two CPUs differ */
	/* the members of a leader sample that grew, and by how much */
	int grp_event[LOAD_MAX_EVENTS];
	uint64_t grp_delta[LOAD_MAX_EVENTS];
	size_t grp_nr;
};

/* load_run_memo's memo of the samples read (load_memo.c): NULL when the
 * reading is not one it may stand in (or out of memory); _file at the
 * start of each file, _forget at each record that is not a sample. */
struct load_memo *load_memo_new(struct load *l, const struct load_memo_ops *ops, void *ctx);
void load_memo_free(struct load_memo *m);
void load_memo_file(struct load_memo *m);
void load_memo_forget(struct load_memo *m);
/* The session's raw hook (ctx the run_ctx). A sample it takes is also
 * counted into its class of the sums being built (load_build_sums). */
int load_memo_raw(void *ctx, struct session *s, const uint8_t *p, uint32_t len);
/* The class (sums_build.h; -1: none) of the sample the memo looked up
 * last and did not take: kept with its outcome. m may be NULL. */
void load_memo_class(struct load_memo *m, int cls);

/* Where prep keeps what it reuses between runs (the kernel symbol index,
 * the sums of perf.data files) into buf: $PREP_CACHE_DIR, else
 * $XDG_CACHE_HOME/prep, else ~/.cache/prep (~/.cache made); NULL when none
 * (load_opts.c). */
const char *load_cache_dir(char *buf, size_t n);

/* The sample's frames into rc->addrs and rc->kernel (load_chain.c): how
 * many. */
size_t load_assemble_chain(struct run_ctx *rc, struct thread *t, const struct record *rec);

/* The frame of a recorded chain load_assemble_chain() puts first, or with
 * want_kernel its first kernel frame: true and *addr, *kernel when there
 * is one (load_chain.c). */
bool load_chain_first(const struct sample_head *h, bool kmode, bool want_kernel, uint64_t *addr,
		      bool *kernel);

/* The frame load_assemble_chain() puts first, without assembling the rest
 * (what ip_only gives), of a sample's head and its header's misc: of a
 * recorded chain, its first frame; with a user stack copy, the chain's
 * first kernel frame, else the ip (where the unwinder starts, from the
 * copied registers); else the ip. Inline: a walk by sums asks it of every
 * sample. */
static inline void load_head_frame(const struct sample_head *h, uint16_t misc, uint64_t *addr,
				   bool *kernel)
{
	bool kmode = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;

	if ((h->type & PERF_SAMPLE_CALLCHAIN) && h->chain_nr &&
	    load_chain_first(h, kmode, h->stack, addr, kernel))
		return;
	*addr = h->ip;
	*kernel = kmode;
}

/* A session_record_fn (ctx a struct run_ctx): the file's events mapped at
 * its first record, then the record into the machine model, or a sample
 * through the filters and its chain's assembly to rc->fn. */
int load_on_record_first(void *ctx, struct session *s, const struct record *rec);
/* load_free's part for a live reading (load_live.c). */
void load_live_free(struct load *l);

/* Shared by load.c and load_counts.c: an input opened (quiet: no warnings
 * to the log), a file's SYMBOLS data taken (0 or -ENOMEM) and its copy of
 * kallsyms (kernel table i + 1), its events merged into the load's, its
 * BUILD_IDS applied to the binaries without one. */
int load_open_input(const struct load *l, size_t i, struct session *s, bool quiet,
		    struct err *err);
int load_take_embeds(struct load *l, const struct session *s);
void load_file_kallsyms(struct load *l, size_t i);
int load_map_events(struct load *l, size_t file, struct err *err);
void load_apply_build_ids(struct load *l, const struct session *s);
/* A perf.data's binaries (its build ids: those with samples) get their
 * symbols read on a thread while the file is walked (load_binaries.c). */
void load_prefetch_symbols(struct load *l, const struct session *s);

struct load {
	struct load_opts opts;          /* a copy of what load_new was given */
	struct filter filter;           /* opts.f, compiled */
	struct session sessions[LOAD_MAX_INPUTS];
	size_t nr_sessions;
	struct machine machine;
	struct symbolizer *sym;
	struct unwinder *unw;           /* --call-graph dwarf samples */
	struct offcpu *off;             /* off-CPU waits (offcpu.h) */
	char *cache_dir;                /* what prep keeps between runs (NULL: nothing) */
	const char *events[LOAD_MAX_EVENTS];    /* names, merged across files */
	int event_map[LOAD_MAX_INPUTS][LOAD_MAX_EVENTS];
	bool mapped[LOAD_MAX_INPUTS];
	size_t nr_events;
	bool warned_no_daddr;           /* said once: samples without a data address */
	uint64_t lost_samples;
	uint64_t filtered;                      /* samples dropped by filters */
	bool event_chains[LOAD_MAX_EVENTS];     /* the event records call chains */
	uint64_t samples_by_event[LOAD_MAX_EVENTS];
	uint64_t period_by_event[LOAD_MAX_EVENTS];      /* before filters */
	/* leader sampling: deltas, and each member's leader (index + 1) */
	struct read_deltas deltas;
	int group_leader[LOAD_MAX_EVENTS];
	/* what the files embedded of their binaries, one entry per build id:
	 * a file's SYMBOLS data, or the data of several files merged */
	struct embed_dso **embeds;
	size_t nr_embeds;
	struct embed_dso **merged;      /* the merged entries, owned */
	size_t nr_merged;
	struct run_ctx *live;           /* a live reading (load_live_start), else NULL */
	struct load_memo *memo;         /* during load_run_memo */
	struct sums_build *sb;          /* load_build_sums */
	struct parallel *par;           /* opts.parallelism, else NULL */
};

#endif
