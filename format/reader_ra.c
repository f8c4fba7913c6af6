/* SPDX-License-Identifier: MIT */
/*
 * The container reader's readahead: worker threads decode the blocks ahead
 * of the walk (inflate, untransform, CRC, checks) into slots of their own,
 * and container_reader_next hands the slots out in file order.
 *
 * Each slot goes FREE -> BUSY (a worker scanned the next block under the
 * lock, its ticket the block's place in the walk, and decodes it outside
 * the lock) -> READY -> OUT (handed out; back to FREE at the next call) or
 * HELD (container_reader_hold; FREE at container_reader_release). The scan
 * is the only part of a step that must go in order, and it is done under
 * the lock; what it and the decoding find wrong is kept in the slot and
 * told, with the slot's counts, when the walk hands it out, so that the
 * caller sees the warnings and counts of a walk without readahead.
 *
 * How far ahead: a worker starts on another block while fewer than one
 * more than there are workers are BUSY or READY and they hold fewer than
 * RA_BUDGET bytes (always on one when none is); at most RA_HOLD_MAX held.
 * A slot keeps its decoded payload's buffer; each worker has its own
 * decompressor and buffer for the inflated bytes it untransforms.
 */
#include "reader_int.h"
#include "common/thread.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RA_WORKERS_MAX 2
#define RA_HOLD_MAX 3
#define RA_SLOTS (RA_WORKERS_MAX + 2 + RA_HOLD_MAX)
#define RA_BUDGET ((size_t)4 << 20)

enum slot_state { SLOT_FREE, SLOT_BUSY, SLOT_READY, SLOT_OUT, SLOT_HELD };

struct ra_slot {
	enum slot_state state;
	uint64_t ticket;
	struct buf plain;       /* the decoded payload */
	struct buf marks;       /* its records with lazy stack copies */
	struct problem_notes notes;
	struct container_stats stats;
	int ret;                /* 1 a block, 0 the end, 2 nothing (damage), < 0 failure */
	struct container_block b;
	size_t bytes;           /* raw_len, counted in ahead_bytes while BUSY or READY */
};

struct container_ra {
	pthread_mutex_t lock;
	pthread_cond_t work;    /* workers wait on it */
	pthread_cond_t ready;   /* the walk waits on it */
	pthread_t threads[RA_WORKERS_MAX];
	struct decoder dec[RA_WORKERS_MAX];
	int nr_threads;
	struct ra_slot slots[RA_SLOTS];
	uint64_t next_ticket;   /* of the next block scanned */
	uint64_t next_out;      /* of the next block handed out */
	int out;                /* the slot handed out last, -1 */
	int held;
	size_t ahead, ahead_bytes;      /* slots BUSY or READY */
	int busy;
	bool scanned_all;       /* the scan reached the end */
	bool ended;             /* the walk did */
	bool paused, stop;
};

/* A FREE slot a worker may start on, or NULL. */
static struct ra_slot *claimable(struct container_ra *ra)
{
	if (ra->scanned_all || ra->paused ||
	    (ra->ahead && (ra->ahead > (size_t)ra->nr_threads || ra->ahead_bytes >= RA_BUDGET)))
		return NULL;
	for (int i = 0; i < RA_SLOTS; i++)
		if (ra->slots[i].state == SLOT_FREE)
			return &ra->slots[i];
	return NULL;
}

/* One step of the walk into slot s: scanned under the lock (held on entry
 * and on return), decoded outside it. */
static void step(struct container_reader *r, struct container_ra *ra, struct decoder *d,
		 struct ra_slot *s)
{
	const struct walk_sink sink = { &s->notes, &s->stats };
	struct block_header bh;
	uint64_t at;
	int ret;

	s->state = SLOT_BUSY;
	s->ticket = ra->next_ticket++;
	s->notes.nr = 0;
	memset(&s->stats, 0, sizeof(s->stats));
	s->bytes = 0;
	ra->ahead++;
	if (!reader_scan(r, &sink, &at, &bh)) {
		ra->scanned_all = true;
		s->ret = 0;
		s->state = SLOT_READY;
		pthread_cond_broadcast(&ra->ready);
		return;
	}
	s->bytes = bh.raw_len;
	ra->ahead_bytes += s->bytes;
	ra->busy++;
	pthread_mutex_unlock(&ra->lock);
	ret = reader_decode(r, &sink, d, &s->plain, &s->marks, at, &bh, &s->b);
	pthread_mutex_lock(&ra->lock);
	ra->busy--;
	s->ret = ret == 1 ? 1 : ret == 0 ? 2 : ret;
	s->state = SLOT_READY;
	pthread_cond_broadcast(&ra->ready);
}

struct worker_arg {
	struct container_reader *r;
	struct decoder *d;
};

static void *worker(void *arg)
{
	struct container_reader *r = ((struct worker_arg *)arg)->r;
	struct decoder *d = ((struct worker_arg *)arg)->d;
	struct container_ra *ra = r->ra;

	free(arg);
	pthread_mutex_lock(&ra->lock);
	for (;;) {
		struct ra_slot *s;

		while (!ra->stop && !(s = claimable(ra)))
			pthread_cond_wait(&ra->work, &ra->lock);
		if (ra->stop)
			break;
		step(r, ra, d, s);
	}
	pthread_mutex_unlock(&ra->lock);
	return NULL;
}

static void ra_free(struct container_ra *ra)
{
	for (int i = 0; i < RA_SLOTS; i++) {
		buf_free(&ra->slots[i].plain);
		buf_free(&ra->slots[i].marks);
		free(ra->slots[i].notes.v);
	}
	for (int i = 0; i < RA_WORKERS_MAX; i++)
		decoder_free(&ra->dec[i]);
	pthread_mutex_destroy(&ra->lock);
	pthread_cond_destroy(&ra->work);
	pthread_cond_destroy(&ra->ready);
	free(ra);
}

int reader_ra_start(struct container_reader *r)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int want = cpus > RA_WORKERS_MAX ? RA_WORKERS_MAX : cpus > 1 ? (int)cpus : 1;
	struct container_ra *ra = calloc(1, sizeof(*ra));

	if (!ra)
		return -ENOMEM;
	pthread_mutex_init(&ra->lock, NULL);
	pthread_cond_init(&ra->work, NULL);
	pthread_cond_init(&ra->ready, NULL);
	ra->out = -1;
	r->ra = ra;
	for (int i = 0; i < want; i++) {
		struct worker_arg *a = malloc(sizeof(*a));
		int ret = a ? 0 : ENOMEM;

		if (a) {
			*a = (struct worker_arg){ r, &ra->dec[i] };
			ret = thread_create(&ra->threads[i], worker, a);
			if (ret)
				free(a);
		}
		if (ret && !i) {
			r->ra = NULL;
			ra_free(ra);
			return -ret;
		}
		if (ret)
			break;
		pthread_mutex_lock(&ra->lock);  /* the workers read it */
		ra->nr_threads++;
		pthread_mutex_unlock(&ra->lock);
	}
	return 0;
}

/* The slot with the next ticket, once READY; NULL while it is not. */
static struct ra_slot *next_ready(struct container_ra *ra)
{
	for (int i = 0; i < RA_SLOTS; i++) {
		struct ra_slot *s = &ra->slots[i];

		if (s->state == SLOT_READY && s->ticket == ra->next_out)
			return s;
	}
	return NULL;
}

int reader_ra_next(struct container_reader *r, struct container_block *b, struct err *err)
{
	struct container_ra *ra = r->ra;
	int ret;

	pthread_mutex_lock(&ra->lock);
	if (ra->out >= 0) {
		ra->slots[ra->out].state = SLOT_FREE;
		ra->out = -1;
	}
	for (;;) {
		struct ra_slot *s;

		if (ra->ended) {
			ret = 0;
			break;
		}
		pthread_cond_broadcast(&ra->work);
		while (!(s = next_ready(ra)))
			pthread_cond_wait(&ra->ready, &ra->lock);
		ra->next_out++;
		ra->ahead--;
		ra->ahead_bytes -= s->bytes;
		/* told here, on the walk's thread, in file order */
		reader_tell(r, &s->notes);
		stats_add(&r->stats, &s->stats);
		ret = s->ret;
		if (ret == 1) {
			s->state = SLOT_OUT;
			ra->out = (int)(s - ra->slots);
			*b = s->b;
			reader_drop_behind(r, b->offset);
			break;
		}
		s->state = SLOT_FREE;
		if (ret == 0)
			ra->ended = true;
		if (ret < 0) {
			ret = err_set(err, ret, "out of memory");
			break;
		}
	}
	pthread_mutex_unlock(&ra->lock);
	return ret;
}

int reader_ra_hold(struct container_reader *r, uint64_t *handle)
{
	struct container_ra *ra = r->ra;
	int ret = 0;

	pthread_mutex_lock(&ra->lock);
	if (ra->out >= 0 && ra->held < RA_HOLD_MAX) {
		ra->slots[ra->out].state = SLOT_HELD;
		*handle = (uint64_t)ra->out;
		ra->out = -1;
		ra->held++;
		ret = 1;
	}
	pthread_mutex_unlock(&ra->lock);
	return ret;
}

void reader_ra_release(struct container_reader *r, uint64_t handle)
{
	struct container_ra *ra = r->ra;

	pthread_mutex_lock(&ra->lock);
	if (handle < RA_SLOTS && ra->slots[handle].state == SLOT_HELD) {
		ra->slots[handle].state = SLOT_FREE;
		ra->held--;
		pthread_cond_broadcast(&ra->work);
	}
	pthread_mutex_unlock(&ra->lock);
}

void reader_ra_pause(struct container_reader *r)
{
	struct container_ra *ra = r->ra;

	pthread_mutex_lock(&ra->lock);
	ra->paused = true;
	while (ra->busy)
		pthread_cond_wait(&ra->ready, &ra->lock);
	for (int i = 0; i < RA_SLOTS; i++) {
		enum slot_state st = ra->slots[i].state;

		if (st == SLOT_READY || st == SLOT_OUT)
			ra->slots[i].state = SLOT_FREE;
	}
	ra->out = -1;
	ra->next_out = ra->next_ticket;
	ra->ahead = ra->ahead_bytes = 0;
	ra->scanned_all = ra->ended = false;
	pthread_mutex_unlock(&ra->lock);
}

void reader_ra_resume(struct container_reader *r)
{
	struct container_ra *ra = r->ra;

	pthread_mutex_lock(&ra->lock);
	ra->paused = false;
	pthread_cond_broadcast(&ra->work);
	pthread_mutex_unlock(&ra->lock);
}

void reader_ra_stop(struct container_reader *r)
{
	struct container_ra *ra = r->ra;

	pthread_mutex_lock(&ra->lock);
	ra->stop = true;
	pthread_cond_broadcast(&ra->work);
	pthread_mutex_unlock(&ra->lock);
	for (int i = 0; i < ra->nr_threads; i++)
		pthread_join(ra->threads[i], NULL);
	r->ra = NULL;
	ra_free(ra);
}
