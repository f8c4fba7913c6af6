/* SPDX-License-Identifier: MIT */
/*
 * Inside session_read_sum (session_sum.c): samples put into classes.
 *
 * A class is (event, pid, tid, epoch, key): a sample's epoch is named by
 * the last boundary of its process (records that change what its samples
 * resolve to), or of every process, before it in time; a sample at the
 * very time of one has none and is handed on alone.
 *
 * The walk hands over batches: the boundaries it read, the samples it
 * read, and a limit below which no boundary is still to come (perf's
 * rounds say so).
 *
 * The exact way, the samples below the limit settle and the others wait
 * for a later batch. At once, every sample settles, its epoch from the
 * boundaries in so far. A boundary that comes after samples of its
 * process past its time (a child's FORK, written from its parent's CPU
 * buffer after the child's first samples from another's) is taken when
 * none of the process's samples so far comes before it: they keep the
 * epoch they were given, which no other sample can now be given (a later
 * sample of the process before that boundary is refused). Otherwise, and
 * for such a sample, the batch is refused (settle_batch's 1), and the
 * walk starts again the exact way.
 */
#ifndef PREC_REPORT_SUM_SETTLE_H
#define PREC_REPORT_SUM_SETTLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* A sample as the walk read it. */
struct sum_pend {
	uint64_t time, period, pos;     /* pos: its offset in the file */
	uint64_t key[2];
	uint32_t pid, tid;
	const uint8_t *p;       /* its bytes, valid until the walk's end */
	uint32_t len;
	int event;
};

struct sum_bound {
	uint32_t pid;
	bool all;               /* every process's */
	uint64_t time;
};

/* What the walk hands over: emptied (not freed) by settle_batch. */
struct sum_batch {
	struct sum_pend *pend;
	size_t nr_pend, cap_pend;
	struct sum_bound *bounds;
	size_t nr_bounds, cap_bounds;
	uint64_t limit;         /* no boundary below it is still to come */
	bool last;              /* the walk's end: everything settles */
	bool at_once;           /* everything settles, boundaries checked */
};

/* A record handed on at the end as it is, its bytes copied (the walk's
 * mapping gives pages back behind it): here, a sample without an epoch. */
struct sum_item {
	uint64_t time, pos;
	size_t off;             /* its bytes in the owner's struct buf */
	uint32_t len;
};

struct sum_class {
	uint64_t key[2];
	uint64_t ids;           /* pid << 32 | tid */
	uint64_t epoch;         /* the time of the boundary that starts it */
	int event;
	uint32_t ctx;           /* the settler's name for (ids, epoch, event) */
	uint64_t count, period;
	uint64_t time;          /* of the first sample (first[] has its bytes) */
};

struct sum_first {
	uint64_t pos;
	size_t off;             /* in the settler's bytes */
	uint32_t len;
};

struct settle;

struct settle *settle_new(void);
void settle_free(struct settle *st);    /* NULL: nothing */
/* The most classes kept (~100 bytes each, and the bytes of their first
 * samples): past them, samples do not sum well (a class for every few),
 * and the reading in time order holds less. */
#define SETTLE_CLASSES_MAX (1u << 19)

/* Take the batch (see above): 0, SETTLE_REFUSED (at once), SETTLE_FULL
 * (past SETTLE_CLASSES_MAX), or -ENOMEM. */
enum { SETTLE_REFUSED = 1, SETTLE_FULL };
int settle_batch(struct settle *st, struct sum_batch *b);

/* The results, once every sample is in: the classes (with the bytes and
 * file offsets of their first samples), the samples without an epoch,
 * all bytes in *bytes; how many samples went into classes, and the
 * first and last of their times. */
struct settle_out {
	const struct sum_class *cls;
	const struct sum_first *first;
	size_t nr_cls;
	const struct sum_item *alone;
	size_t nr_alone;
	const struct buf *bytes;
	uint64_t samples, tmin, tmax;
};
void settle_results(const struct settle *st, struct settle_out *out);

#endif
