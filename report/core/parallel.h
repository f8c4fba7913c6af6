/* SPDX-License-Identifier: MIT */
/*
 * Parallelism for latency profiles (prep --latency, --sort parallelism,
 * --parallelism; perf 6.15's model, docs/man/prep.1 "LATENCY"): at each
 * sample, how many of the recorded threads are running on a CPU, tracked
 * from the context-switch records (prec --latency or --switch-events:
 * PERF_RECORD_SWITCH, or PERF_RECORD_SWITCH_CPU_WIDE of a system-wide
 * recording) and the EXIT records. A sample's latency is its period divided
 * by that level, times 1000 as perf keeps it (integers, printed as shares).
 *
 * perf keeps one counter: 1 at the start (the thread already running has no
 * switch-in), +1 per switch-in, -1 per switch-out and per exit, read clamped
 * to 1..the number of CPUs. prep keeps each thread's state instead, so that a
 * lost or repeated record does not shift the count for the rest of the file:
 * running from its switch-in (or, for a thread no switch record has named
 * yet, from its first sample: one already running when the recording began)
 * until its switch-out or its exit. The level is the number of threads
 * running, clamped to 1..the file's CPUs as perf does; the idle task (tid 0)
 * of CPU-wide records is never counted.
 *
 * Owned by the reading core (load.c feeds it in time order); each input file
 * starts afresh (parallel_file).
 */
#ifndef PREC_REPORT_PARALLEL_H
#define PREC_REPORT_PARALLEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "format/record.h"

/* perf's MAX_NR_CPUS: the highest level --parallelism may name */
#define PARALLEL_MAX 4096
#define PARALLEL_WORDS (PARALLEL_MAX / 64 + 1)
/* the events counted (load.h's LOAD_MAX_EVENTS) */
#define PARALLEL_EVENTS 64

/* --parallelism LIST in perf's CPU-list syntax ("1", "7,8", "1,64-128"):
 * the levels into bits (PARALLEL_WORDS words, bit n for level n; may be
 * NULL to check only). 0, or -EINVAL with a message naming the option. */
int parallel_parse_list(const char *list, uint64_t *bits, struct err *err);

struct parallel;

/* A tracker, with the --parallelism filter list (NULL: every level).
 * NULL with the reason in err. */
struct parallel *parallel_new(const char *list, struct err *err);
void parallel_free(struct parallel *p);         /* NULL: nothing */

/* A new input file: every thread unknown again; nr_cpus from its header
 * (0: unknown, no upper clamp). */
void parallel_file(struct parallel *p, uint64_t nr_cpus);
/* A non-sample record: switches and exits change the states. 0 or -ENOMEM. */
int parallel_record(struct parallel *p, const struct record *rec);
/* A sample, before any filter: the level it ran at (at least 1), kept as
 * the current one for parallel_count; counted for parallel_single_share.
 * *level is 0 when p is NULL (not tracking). 0 or -ENOMEM. */
int parallel_sample(struct parallel *p, const struct record *rec, unsigned *level);
/* The current sample stands for period of event (before filters). */
void parallel_count(struct parallel *p, int event, uint64_t period);
/* --parallelism keeps this level (true without the option, or without p). */
bool parallel_wanted(const struct parallel *p, unsigned level);

/* A sample's latency: period * 1000 / level (level 0 counts as 1). */
static inline uint64_t parallel_latency(uint64_t period, unsigned level)
{
	return period * 1000 / (level ? level : 1);
}

/* The latency of every sample of event counted, filtered or not (for
 * --percentage absolute). */
uint64_t parallel_event_latency(const struct parallel *p, int event);
/* Samples counted, and how many of them ran at level 1 (perf hides the
 * Latency column of a profile whose samples ran alone at least 99% of the
 * time unless it is asked for). */
uint64_t parallel_samples(const struct parallel *p);
uint64_t parallel_single(const struct parallel *p);
/* Threads seen running at once at most, before the clamp (a check for
 * tests and --stats). */
unsigned parallel_max_running(const struct parallel *p);

#endif
