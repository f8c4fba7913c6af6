/* SPDX-License-Identifier: MIT */
/*
 * Off-CPU time in the report: the offcpu-time samples of a `prec --off-cpu`
 * recording, made by the loader from what the file holds.
 *
 * A file is such a recording when one of its events is named offcpu-time
 * and is the software context-switches event (record/offcpu.h). Its samples
 * are the stacks where threads switched out; PERF_RECORD_SWITCH (or
 * SWITCH_CPU_WIDE with -a) records give the exact times. For each thread,
 * a switch-out record opens a wait and the thread's next switch-in closes
 * it: that wait becomes one offcpu-time sample of the thread, weighted by
 * its length in nanoseconds, timed at the switch-in and on the CPU of the
 * switch-in (as perf's direct off-CPU samples are), with the stack of the
 * switch-out sample taken just before the switch-out record. A wait with no
 * such sample (perf_event_paranoid 2, or a stack left out by
 * --off-cpu-thresh) has no stack: one frame at address 0, "[unknown]".
 *
 * As in perf, only blocking waits count: a switch-out marked preempted
 * (PERF_RECORD_MISC_SWITCH_OUT_PREEMPT: the thread was still runnable, and
 * waited for a CPU) does not, except in the wall-clock view (--wall), where
 * the time a thread waits for a CPU is part of its lifetime too.
 *
 * A wait still open at the end of the file is closed at the end of the
 * recording (the end_clock_ns metadata prec writes with --off-cpu, else the
 * newest time in the file) and marked: its thread's command name gets the
 * suffix " [blocked at end]" (OFFCPU_OPEN_MARK), in every view. A wait whose
 * switch-out came before the recording started is not counted (its start
 * is not known), nor one of a thread that exited.
 *
 * --wall: the cpu-clock (and task-clock) samples and the offcpu-time samples
 * are one event, wall-time (OFFCPU_WALL_NAME), all in nanoseconds, so that
 * a thread's total is its lifetime.
 *
 * The pairing itself (struct offcpu_pairs) knows nothing of files, so that
 * unit tests drive it directly.
 */
#ifndef PREC_REPORT_OFFCPU_H
#define PREC_REPORT_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hash.h"
#include "format/record.h"
#include "machine.h"

#define OFFCPU_EVENT "offcpu-time"
#define OFFCPU_WALL_NAME "wall-time"
#define OFFCPU_OPEN_MARK " [blocked at end]"

/* ---- the pairing ------------------------------------------------------------- */

/* One wait of one thread, ended. The stack is valid during the call only. */
struct offcpu_wait {
	uint32_t pid, tid;
	uint64_t start, end;    /* switch-out, switch-in (or the end of the recording) */
	uint32_t cpu;           /* of the switch-in (of the switch-out when open) */
	bool preempted;         /* runnable at the switch-out (counted only with --wall) */
	bool open;              /* still blocked at the end */
	const uint64_t *addrs;  /* the stack at the switch-out, nr 0: none */
	const bool *kernel;
	size_t nr;
	uint64_t cgroup;        /* of the stack's sample (PERF_SAMPLE_CGROUP), else 0 */
};

typedef int (*offcpu_wait_fn)(void *ctx, const struct offcpu_wait *w);

struct offcpu_thread;
struct offcpu_pairs {
	struct offcpu_thread *t;
	size_t nr, cap;
	struct hmap idx;        /* by tid */
	uint64_t newest;        /* the newest time met */
	uint64_t unpaired;      /* switch-outs lost (no switch-in before the next) */
};

/* The thread switched out at time (its stack, if any, came before). */
int offcpu_pairs_out(struct offcpu_pairs *p, uint32_t pid, uint32_t tid, uint64_t time,
		     uint32_t cpu, bool preempted);
/* The stack sampled at a switch-out of tid at time (copied). */
int offcpu_pairs_stack(struct offcpu_pairs *p, uint32_t pid, uint32_t tid, uint64_t time,
		       const uint64_t *addrs, const bool *kernel, size_t nr, uint64_t cgroup);
/* The thread switched in: its wait, if one was open, to fn. */
int offcpu_pairs_in(struct offcpu_pairs *p, uint32_t tid, uint64_t time, uint32_t cpu,
		    offcpu_wait_fn fn, void *ctx);
/* The thread exited: what it had open is dropped. */
void offcpu_pairs_exit(struct offcpu_pairs *p, uint32_t tid);
/* The end: every wait still open, closed at end (or the newest time met,
 * if later), to fn with open set; then everything is forgotten. */
int offcpu_pairs_end(struct offcpu_pairs *p, uint64_t end, offcpu_wait_fn fn, void *ctx);
void offcpu_pairs_free(struct offcpu_pairs *p);

/* An event whose samples are durations in nanoseconds, exact, not counts
 * (offcpu-time, as perf's own; wall-time): the exports weigh them by period. */
bool offcpu_weighted_event(const char *name);

/* ---- the loader's part ------------------------------------------------------- */

struct session;
struct load_sample;
struct offcpu;

/* fn: where a made sample goes (the loader's filters, then the view). */
typedef int (*offcpu_deliver_fn)(void *ctx, const struct load_sample *ls);

/* wall: --wall. NULL on ENOMEM. */
struct offcpu *offcpu_new(bool wall);
void offcpu_free(struct offcpu *o);     /* NULL: nothing */

/* The name event i of file s is shown under: wall-time with --wall for
 * cpu-clock, task-clock and offcpu-time; name otherwise. */
const char *offcpu_event_name(const struct offcpu *o, const struct session *s, size_t i,
			      const char *name);
/* Event i of file s is an offcpu-time event that can have no stacks (the
 * kernel took it only as context-switches:u): no call chains for it. */
bool offcpu_event_stackless(const struct session *s, size_t i);
/* An event of this name and attr is the off-CPU one of a recording (what
 * prec --off-cpu records): its samples are switch-outs held for their
 * switch-in. */
bool offcpu_event_attr(const char *name, const struct perf_event_attr *a);
/* The file's events are mapped (event_map: its events' global indexes):
 * whether and where it holds off-CPU data. file: its index. */
void offcpu_file_begin(struct offcpu *o, const struct session *s, size_t file,
		       const int *event_map);
/* Samples of the file's event ev are switch-out stacks (offcpu_stack). */
bool offcpu_holds(const struct offcpu *o, int ev);
int offcpu_stack(struct offcpu *o, const struct record *rec, const struct thread *t,
		 const uint64_t *addrs, const bool *kernel, size_t nr);
/* SWITCH, SWITCH_CPU_WIDE and EXIT records; a wait that ends goes to fn. */
int offcpu_record(struct offcpu *o, struct machine *m, const struct record *rec,
		  offcpu_deliver_fn fn, void *ctx);
/* The file is read: its open waits, closed and marked, to fn. */
int offcpu_file_end(struct offcpu *o, struct machine *m, const struct session *s,
		    offcpu_deliver_fn fn, void *ctx);
/* Some file held off-CPU data (an offcpu-time event). */
bool offcpu_seen(const struct offcpu *o);
/* For --time percentages, the end of the span of the samples of file s
 * (its events and metadata read), given its recorded samples' last: the
 * waits of an off-CPU recording end later, up to the end of the recording
 * (end_clock_ns), where those still open are closed. */
uint64_t offcpu_span_end(const struct session *s, uint64_t last);

#endif
