/* SPDX-License-Identifier: MIT */
/*
 * What prep report and prep script share: reading one or more files into
 * the machine model, sample filters (--comm, --pid, --tid, --cpu, --time,
 * --dso, --symbols), the symbolizer set up with each file's build ids and
 * kernel symbols, and the events merged by name across files.
 */
#ifndef PREC_REPORT_LOAD_H
#define PREC_REPORT_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "report/aggregate/hist.h"
#include "machine.h"
#include "session.h"
#include "report/symbols/symbols.h"
#include "report/symbols/unwind.h"

#define LOAD_MAX_INPUTS 16
#define LOAD_MAX_EVENTS 64

struct filters {
	const char *comms, *pids, *tids, *cpus, *dsos, *syms, *time;
	/* parsed */
	uint64_t t_start, t_end;        /* absolute, 0 = open */
	double pct_start, pct_end;      /* --time with percentages, -1 if not */
};

struct load {
	const char *inputs[LOAD_MAX_INPUTS];
	size_t nr_inputs;
	bool quiet;
	const char *symfs;
	const char *kallsyms_path;      /* tests: instead of /proc/kallsyms */
	bool no_cache;                  /* keep nothing between runs */
	bool no_embedded;               /* ignore the files' SYMBOLS blocks */
	bool no_kallsyms;               /* do not read /proc/kallsyms ahead */
	session_progress_fn progress;   /* optional: each input's reading progress */
	void *progress_ctx;
	const void *mem;                /* tests: inputs[0]'s bytes, in memory */
	size_t mem_len;
	struct filters f;
	struct session sessions[LOAD_MAX_INPUTS];
	size_t nr_sessions;
	struct machine machine;
	struct symbolizer *sym;
	struct unwinder *unw;           /* --call-graph dwarf samples */
	const char *events[LOAD_MAX_EVENTS];    /* names, merged across files */
	int event_map[LOAD_MAX_INPUTS][LOAD_MAX_EVENTS];
	bool mapped[LOAD_MAX_INPUTS];
	size_t nr_events;
	uint64_t lost_samples;
	uint64_t filtered;                      /* samples dropped by filters */
	bool event_chains[LOAD_MAX_EVENTS];     /* the event records call chains */
	uint64_t samples_by_event[LOAD_MAX_EVENTS];
	uint64_t period_by_event[LOAD_MAX_EVENTS];      /* before filters */
	/* what the files embedded of their binaries, one entry per build id:
	 * a file's SYMBOLS data, or the data of several files merged */
	struct embed_dso **embeds;
	size_t nr_embeds;
	struct embed_dso **merged;      /* the merged entries, owned */
	size_t nr_merged;
};

/* A sample that passed the filters: frames[0] the sampled address, then the
 * callers; thread and global event index resolved. */
struct load_sample {
	int event;
	uint64_t period;        /* PERF_SAMPLE_PERIOD, else the event's sample_period
				   (perf's default), at least 1 */
	struct thread *thread;
	const struct record *rec;
	const uint64_t *addrs;
	const bool *kernel;
	size_t nr;
	unsigned kernel_table;  /* the file's kernel symbols (symbolizer table) */
};

typedef int (*load_sample_fn)(void *ctx, struct load *l, const struct load_sample *s);
/* A load_sample_fn that adds each sample to the struct hist given as ctx
 * (weighted by its period). */
int load_add_to_hist(void *hist, struct load *l, const struct load_sample *s);
typedef int (*load_record_fn)(void *ctx, struct load *l, struct session *s,
			      const struct record *rec);

int load_init(struct load *l, struct err *err);
/* The filter and input option values (load_check.c), checked by load_init:
 * -EINVAL with a message naming the option and its value. */
int load_check(const struct load *l, struct err *err);
/* --cpu against the CPUs the file s was recorded on. */
int load_check_cpus(const struct load *l, const struct session *s, struct err *err);
/* The option callback of -i FILE (repeatable): o->dest is the struct load. */
struct opt;
int load_opt_input(const struct opt *o, const char *arg, struct err *err);
/* Open every input and read it: sideband into the machine model, samples
 * that pass the filters to fn, every record to on_record (may be NULL).
 * Each file's samples are named from its own data: the binaries it
 * embedded (where several files embed one binary, from all of their data
 * merged) and its copy of kallsyms (kernel table file index + 1). */
int load_run(struct load *l, load_sample_fn fn, load_record_fn on_record, void *ctx,
	     struct err *err);
void load_free(struct load *l);

/* Post-filters on resolved frames (--dso, --symbols). */
bool load_frame_wanted(const struct load *l, const struct frame *f);

#endif
