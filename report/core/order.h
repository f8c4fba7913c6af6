/* SPDX-License-Identifier: MIT */
/*
 * The time order of the records of several ring buffers, for the session
 * (session.c): records are queued as they come, each with its time, and
 * handed on in time order, ties in the order they came, as far as a limit
 * allows (perf's ordered events).
 *
 * They come in runs already in time order (a ring buffer's span, mostly, and
 * often several spans in a row): the queue keeps each run as it came and
 * merges the runs as it hands records on (a k-way merge over the runs'
 * heads), so nothing is sorted and no record is moved.
 *
 * Where a record's bytes live. A record is added either in memory that
 * outlives it (a mapped perf.data file: stable) or in memory the caller is
 * about to reuse (an inflated DATA block: borrowed). Before reusing that
 * memory the caller calls order_adopt: the borrowed records that still
 * wait then either stay where they are, their memory held for them (the
 * caller's hold function gives a token for it, and release(ctx, token) is
 * called once the last of them is handed on), or are copied into memory of
 * the queue's own, freed as it empties.
 *
 * The bytes fn is given are valid during the call only.
 */
#ifndef PREC_REPORT_ORDER_H
#define PREC_REPORT_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct order_ent {
	uint64_t time;
	const uint8_t *p;
	uint32_t len;
	uint32_t owner;         /* 0: stable memory; ORDER_BORROWED; else owners[owner - 1] */
};

#define ORDER_BORROWED UINT32_MAX

/* entries [start, end) of order.e, in time order */
struct order_run {
	size_t start, end;
};

/* A run being merged, by the time of its first waiting entry. */
struct order_head {
	uint64_t time;
	size_t run;
};

/* Memory that waiting records live in: a held block of the caller's (mem
 * NULL, token), or a chunk of copies (mem). */
struct order_owner {
	size_t live;            /* waiting records in it; 0 and !mem: free */
	uint64_t token;
	uint8_t *mem;
	size_t used, cap;
	bool in_use;
};

/* Gives a token for the memory of the borrowed records, which then stays
 * valid until release(ctx, token); false: it cannot be held (they are
 * copied). */
typedef bool (*order_hold_fn)(void *ctx, uint64_t *token);
typedef void (*order_release_fn)(void *ctx, uint64_t token);

struct order {
	struct order_ent *e;
	size_t nr, cap;                 /* entries in use (handed-on ones included) */
	struct order_run *runs;
	size_t nr_runs, cap_runs;
	size_t waiting;                 /* entries not yet handed on */
	struct order_head *heap;        /* runs being merged */
	size_t cap_heap;
	struct order_owner *owners;
	size_t nr_owners;
	uint32_t chunk;                 /* the owner copies go to, 0: none */
	order_release_fn release;
	void *release_ctx;
	uint64_t flushed;               /* the newest time handed on */
};

typedef int (*order_fn)(void *ctx, const uint8_t *p, uint32_t len);

/* release (may be NULL when nothing is ever held) is told of held memory
 * that no record needs any more. */
void order_init(struct order *o, order_release_fn release, void *ctx);
/* Frees the queue; held memory still in use is released. */
void order_free(struct order *o);
/* A caller's mark on a record, kept in its length: a record added with
 * len | ORDER_MARK is len bytes, handed on with the mark. */
#define ORDER_MARK (1u << 31)

/* Queue a record of len bytes at p with its time; borrowed: p is in memory
 * the caller reuses after order_adopt, else it outlives the queue (the
 * borrowed records are the last ones added before each order_adopt: no
 * stable one comes between). 0 or -ENOMEM. */
int order_add(struct order *o, const uint8_t *p, uint32_t len, uint64_t time, bool borrowed);
/* Hand on to fn, in time order (ties in the order they were added), every
 * waiting record whose time is at most limit (every one with all). The
 * first non-zero return of fn stops it and is returned (the records handed
 * on so far are gone; the rest wait); else 0, or -ENOMEM. */
int order_flush(struct order *o, uint64_t limit, bool all, order_fn fn, void *ctx);
/* The memory of the borrowed records is about to be reused: hold it for
 * those still waiting (hold may be NULL), else copy them. 0 or -ENOMEM. */
int order_adopt(struct order *o, order_hold_fn hold, void *ctx);
/* Records waiting. */
size_t order_waiting(const struct order *o);

#endif
