/* SPDX-License-Identifier: MIT */
/*
 * The reading core that every view plugs into: one or more files read into
 * the machine model, the samples that pass the filters (--comm, --pid,
 * --tid, --cpu, --time; --dso and --symbols on the resolved frames) handed
 * to the view with their call chains assembled (and unwound for
 * --call-graph dwarf), the symbolizer set up with each file's build ids and
 * kernel symbols, and the events merged by name across files.
 *
 * Configuration is apart from runtime state: a command's option parser
 * fills a struct load_opts (the option fragments below give every command
 * the same options with the same help), load_opts_check() says whether the
 * values make sense, and load_new() builds the runtime struct load from
 * them, compiling the filters once. Views read the options through
 * load_options() and the runtime through the accessors; they never write
 * either.
 */
#ifndef PREC_REPORT_LOAD_H
#define PREC_REPORT_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "filter.h"
#include "machine.h"
#include "report/aggregate/hist.h"
#include "report/symbols/symbols.h"
#include "report/symbols/unwind.h"
#include "session.h"

#define LOAD_MAX_INPUTS 16
#define LOAD_MAX_EVENTS 64

/* What a command asks of the reading. Strings are borrowed: they must
 * outlive the struct load built from it (argv's do). */
struct load_opts {
	const char *inputs[LOAD_MAX_INPUTS];
	size_t nr_inputs;
	const char *symfs;
	const char *kallsyms_path;      /* instead of the recording's copy or /proc/kallsyms */
	bool no_cache;                  /* keep nothing between runs */
	bool no_kept_sums;              /* the samples are read even where the file was
					   summed before: load_run_sum's kept files
					   (sum_cache.h), load_run_hist's SAMPLE_SUMS
					   blocks */
	bool no_embedded;               /* ignore the files' SYMBOLS blocks */
	bool no_kallsyms;               /* do not read /proc/kallsyms ahead */
	bool quiet;                     /* no warnings */
	bool ip_only;                   /* only the sampled address of each sample: no call
					   chain assembled, no stack unwound (a view that looks
					   at nothing else: prep annotate, prep diff) */
	bool wall;                      /* --wall: cpu-clock and offcpu-time as wall-time (offcpu.h) */
	struct load_filter_opts f;
	bool parallelism;               /* each sample's parallelism (parallel.h) */
	const char *parallelism_list;   /* --parallelism: only these levels */
	session_progress_fn progress;   /* optional: each input's reading progress */
	void *progress_ctx;
	const void *mem;                /* tests: inputs[0]'s bytes, in memory */
	size_t mem_len;
};

/* The values of o, checked before any file is read: a list of ids that is
 * not one, a bad time range, a kernel symbol file that cannot be read, a
 * --symfs that is not a folder. 0, or -EINVAL with a message naming the
 * option and its value. Changes nothing. */
int load_opts_check(const struct load_opts *o, struct err *err);
/* No -i given: prec.data. */
void load_opts_default_input(struct load_opts *o);

/* Option callbacks, o->dest a struct load_opts: -i FILE repeatable (the
 * inputs are merged), or one input (the last -i given). */
struct opt;
int load_opts_add_input(const struct opt *o, const char *arg, struct err *err);
int load_opts_set_input(const struct opt *o, const char *arg, struct err *err);

/*
 * The shared option fragment, for a command's option table (common/opts.h);
 * o is a struct load_opts *. One help text per option, whatever the
 * command. LOAD_FILTER_OPTIONS has --dso and --symbols, which filter on
 * resolved frames; LOAD_SAMPLE_FILTER_OPTIONS only what a sample carries.
 */
#define LOAD_OPT_INPUTS(o) \
	OPTION_CALLBACK('i', "input", (o), "file", "input file (default prec.data); repeat to merge", load_opts_add_input)
#define LOAD_OPT_INPUT(o) \
	OPTION_CALLBACK('i', "input", (o), "file", "input file (default prec.data)", load_opts_set_input)
#define LOAD_OPT_SYMFS(o) \
	OPTION_STRING(0, "symfs", &(o)->symfs, "dir", "look for binaries under this folder")
#define LOAD_SYMBOL_OPTIONS(o) \
	LOAD_OPT_SYMFS(o), \
	OPTION_FLAG(0, "no-embedded", &(o)->no_embedded, "ignore what the file embedded of its binaries: read them on this machine"), \
	OPTION_STRING(0, "kallsyms", &(o)->kallsyms_path, "file", "kernel symbols from this file (default: the recording's copy, else /proc/kallsyms)")
#define LOAD_OPT_WALL(o) \
	OPTION_FLAG(0, "wall", &(o)->wall, "wall-clock time: cpu-clock and offcpu-time as one event, wall-time (prec --off-cpu)")
#define LOAD_OPTS_IDS_(o) \
	OPTION_STRING(0, "comm", &(o)->f.comms, "list", "only these commands"), \
	OPTION_STRING(0, "pid", &(o)->f.pids, "list", "only these process ids"), \
	OPTION_STRING(0, "tid", &(o)->f.tids, "list", "only these thread ids")
#define LOAD_OPTS_CPU_TIME_(o) \
	OPTION_STRING('C', "cpu", &(o)->f.cpus, "list", "only these CPUs (0-2,5)"), \
	OPTION_STRING(0, "time", &(o)->f.time, "start,end", "only samples in this time range (seconds, or 10%-20%)")
#define LOAD_SAMPLE_FILTER_OPTIONS(o) \
	LOAD_OPTS_IDS_(o), \
	LOAD_OPTS_CPU_TIME_(o)
#define LOAD_FILTER_OPTIONS(o) \
	LOAD_OPTS_IDS_(o), \
	OPTION_STRING(0, "dso", &(o)->f.dsos, "list", "only samples in these shared objects"), \
	OPTION_STRING('S', "symbols", &(o)->f.syms, "list", "only samples in these symbols"), \
	OPTION_STRING(0, "cgroup", &(o)->f.cgroups, "list", "only samples in these cgroups (recorded with --all-cgroups)"), \
	LOAD_OPTS_CPU_TIME_(o)

/* The runtime state of a reading: opaque (load_int.h is the core's). */
struct load;

/* A sample that passed the filters: frames[0] the sampled address, then the
 * callers; thread and global event index resolved. */
struct load_sample {
	int event;
	uint64_t count;         /* the samples it stands for: 1, but from load_run_sum */
	uint64_t period;        /* PERF_SAMPLE_PERIOD, else the event's sample_period
				   (perf's default), at least 1; summed over count */
	struct thread *thread;
	const struct record *rec;
	const uint64_t *addrs;
	const bool *kernel;
	size_t nr;
	unsigned kernel_table;  /* the file's kernel symbols (symbolizer table) */
	unsigned parallelism;   /* threads running at the sample (parallel.h); 0
				   unless load_opts.parallelism */
};

/* The frame a sample's chain starts with, as load_run gives it (what
 * ip_only gives alone), without assembling or unwinding the rest. */
void load_sample_first_frame(const struct load_sample *s, uint64_t *addr, bool *kernel);

typedef int (*load_sample_fn)(void *ctx, struct load *l, const struct load_sample *s);
/* A load_sample_fn that adds each sample to the struct hist given as ctx
 * (weighted by its period). */
int load_add_to_hist(void *hist, struct load *l, const struct load_sample *s);
typedef int (*load_record_fn)(void *ctx, struct load *l, struct session *s,
			      const struct record *rec);

/* Check o (load_opts_check), keep a copy of it, compile the filters and
 * set up the machine model and the symbolizer: a new reading, for
 * load_free(), or NULL with the reason in err. */
struct load *load_new(const struct load_opts *o, struct err *err);
/* Open every input and read it: sideband into the machine model, samples
 * that pass the filters to fn, every record to on_record (may be NULL).
 * Each file's samples are named from its own data: the binaries it
 * embedded (where several files embed one binary, from all of their data
 * merged) and its copy of kallsyms (kernel table file index + 1). */
int load_run(struct load *l, load_sample_fn fn, load_record_fn on_record, void *ctx,
	     struct err *err);
/* load_run for a view whose outcome of a sample is a function of the
 * sample's bytes but its time and period, and of the machine model (its
 * threads, maps, commands) then: a sample like one read before (those
 * bytes equal, no other record read between them) may then not be decoded
 * nor handed to fn, but given to ops->again with the outcome fn kept for
 * the other one (load_memo_keep, from fn), its time (0 without) and its
 * period (load_memo.c). rec_fn is not called for such samples (it is to
 * do nothing with samples). Without a filter on what samples carry and
 * without parallelism; else, and for what the memo does not take, as
 * load_run. */
struct load_memo_ops {
	/* 0 or a negative code that stops the reading */
	int (*again)(void *ctx, uint32_t outcome, uint64_t time, uint64_t period);
};
int load_run_memo(struct load *l, load_sample_fn fn, load_record_fn rec_fn,
		  const struct load_memo_ops *ops, void *ctx, struct err *err);
/* From fn: the outcome of sample ls, for the samples like it. */
void load_memo_keep(struct load *l, const struct load_sample *ls, uint32_t outcome);
/* From fn: the slot of the memo sample ls would be kept in (0 to
 * LOAD_MEMO_SLOTS - 1: a view may keep what its outcome needs there, and
 * the outcome that slot's until the next keep of that slot), or -1 when
 * the memo takes no sample like it. */
#define LOAD_MEMO_SLOTS 4096
int load_memo_slot(const struct load *l, const struct load_sample *ls);
/* load_run for a view that looks at nothing of a sample but its event,
 * thread and first frame (opts.ip_only) and, with by_cpu, its CPU, and
 * not at the order samples come in: samples alike (of one event, thread,
 * sampled address and CPU, with no record between them that changes their
 * process's threads, command or maps) may be handed to fn once as one,
 * whose count says how many they are and whose period is theirs summed
 * (session_read_sum: a perf.data file is then not put in time order
 * sample by sample). Not with a filter on what samples carry, --cgroup,
 * parallelism or an off-CPU file: load_run then, as for what cannot be
 * read so. load_add_to_hist takes such samples. */
int load_run_sum(struct load *l, load_sample_fn fn, void *ctx, bool by_cpu, struct err *err);
/* load_run_memo with load_add_to_hist into h as fn (the outcome: the
 * sample's stack); h must key neither data addresses nor parallelism nor
 * latency (else it is load_run). */
int load_run_hist(struct load *l, struct hist *h, struct err *err);
/* For a file's SAMPLE_SUMS block (FORMAT.md 5.12): the next reading (of one
 * input) sums its samples by class as it goes (sums_build.h), and reads
 * the samples, not a SAMPLE_SUMS block already there. 0 or -ENOMEM. */
int load_build_sums(struct load *l);
/* After that reading, before load_close_inputs: the block's payload when
 * the sums stand for the reading and are worth keeping: 1 and *payload
 * (the load's, until load_free), else 0. */
struct buf;
int load_sums_payload(struct load *l, struct buf **payload);
/* A live reading (prec top, load_live.c): instead of files, one input
 * called name (in messages) whose blocks, as a prec.data file holds them
 * (FORMAT.md 5: the EVENT blocks first, then DATA blocks, one per drain
 * pass, each ended by its ROUND_END span), come through load_live_feed as
 * they are produced, and take every step a file's blocks take. fn and
 * on_record are load_run's, called during load_live_feed and
 * load_live_end; the kernel is named from /proc/kallsyms (or
 * opts.kallsyms_path). Once per struct load, instead of load_run. */
int load_live_start(struct load *l, const char *name, load_sample_fn fn,
		    load_record_fn on_record, void *ctx, struct err *err);
/* One block (the payload is only read during the call): 0, a non-zero
 * return of fn or on_record, or a negative code with err set. */
int load_live_feed(struct load *l, unsigned type, const void *payload, size_t len,
		   struct err *err);
/* The end: what waits for a later drain pass is handed on. */
int load_live_end(struct load *l, struct err *err);

/*
 * For a view that needs of the samples only how many (and how much
 * period) fell on each sampled address, per event (prep annotate), with
 * ip_only set: the file's ADDR_COUNTS block (FORMAT.md 5.11) instead of a
 * reading of its samples, where it gives the very same counts: one input,
 * no filter on what samples carry (--pid, --tid, --comm, --cpu, --time,
 * --cgroup), a block that may stand for the file's samples
 * (session_addr_counts). Then 1: the file is open with its events,
 * metadata, build ids, kernel symbols and embedded data as after
 * load_run, the machine model holds the binaries the block names (no
 * threads, no maps), the events' sample counts and the lost samples (from
 * the metadata) are known, and *lc says where each entry belongs; call
 * load_counts_free, and not load_run. 0 when the samples must be read
 * (load_run reads them as if this had not been called, warnings and all);
 * negative on failure, with err.
 */
struct addrcounts;
struct load_counts {
	struct addrcounts *c;           /* the block */
	struct dso **dsos;              /* the machine model's binary of each of c->dsos */
	int *events;                    /* the event index of each EVENT block, -1: none */
};
int load_open_counts(struct load *l, struct load_counts *lc, struct err *err);
void load_counts_free(struct load_counts *lc);

/* Close the files once read (the results stay): they may be changed. */
void load_close_inputs(struct load *l);
void load_free(struct load *l);         /* NULL: nothing */

/* Post-filters on resolved frames (--dso, --symbols). */
bool load_frame_wanted(const struct load *l, const struct frame *f);
/* --dso or --symbols given: views filter their entries with the above. */
bool load_filters_frames(const struct load *l);

/* Accessors: valid from load_new (the files' parts once load_run read
 * them) until load_free. */
const struct load_opts *load_options(const struct load *l);     /* a copy of load_new's */
struct machine *load_machine(struct load *l);
struct symbolizer *load_symbolizer(const struct load *l);
struct unwinder *load_unwinder(const struct load *l);
size_t load_nr_sessions(const struct load *l);
const struct session *load_session(const struct load *l, size_t i);     /* NULL past the end */
/* The text of line `line` of the source file at path as a file's SOURCE
 * block (prec --embed-source) holds it, or NULL: the later files first,
 * in a file its later blocks first. Valid until load_free. */
const char *load_source_line(const struct load *l, const char *path, uint32_t line);
/* Some event of some file records call chains (PERF_SAMPLE_CALLCHAIN). */
bool load_has_callchains(const struct load *l);
uint64_t load_lost_samples(const struct load *l);       /* LOST records, all files */
uint64_t load_filtered(const struct load *l);           /* samples the filters dropped */
/* The parallelism tracker (load_opts.parallelism), else NULL. */
struct parallel;
const struct parallel *load_parallel(const struct load *l);

/* The events, merged by name across files: index 0 to load_nr_events - 1,
 * the index of struct load_sample's event. */
size_t load_nr_events(const struct load *l);
const char *load_event_name(const struct load *l, int event);  /* "unknown" if none */
int load_event_index(const struct load *l, const char *name);  /* -1 if none */
/* Its samples and their period, counted before the filters. */
uint64_t load_event_samples(const struct load *l, int event);
uint64_t load_event_period(const struct load *l, int event);
/* It records call chains or user stacks in some file. */
bool load_event_has_chains(const struct load *l, int event);
/* The leader of the event's group (the event itself for the leader): a
 * group whose samples read its counts ({a,b}:S), or one a perf.data
 * header describes; -1 if none. */
int load_event_group_leader(const struct load *l, int event);
/* Its attributes in the first file that has it; NULL if none. */
const struct perf_event_attr *load_event_attr(const struct load *l, int event);

#endif
