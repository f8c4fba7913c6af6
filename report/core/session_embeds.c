/* SPDX-License-Identifier: MIT */
/*
 * The SYMBOLS blocks at the end of a finished file, inflated and decoded at
 * open on two threads when they are large (a recording of python3 holds 2.4
 * MB of them, 1.7 MB for libpython alone): the blocks are shared out by
 * size, largest first, each to the thread with less to do, and the results
 * kept in file order. See session_take_symbols in session_int.h.
 */
#include "session_int.h"

#include "format/embed.h"
#include "common/thread.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SYMBOLS_THREAD_MIN (512u << 10)        /* bytes in all below which one thread does */

struct sym_work {
	const struct container_reader *r;
	const struct index_entry **e;   /* the SYMBOLS blocks, in file order */
	uint64_t *size;
	struct embed_dso **out;         /* per block: decoded, or NULL */
	int *state;                     /* 1 good, 0 damaged, -ENOMEM */
	bool *worker;                   /* the block is the worker's */
	size_t n;
	uint64_t crc_end;               /* the worker's too: the CRC of [64, crc_end) */
	uint32_t crc;
};

/* The blocks of one side (worker or not) decoded. */
static void decode_side(struct sym_work *w, bool worker)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < w->n; i++) {
		uint16_t type = 0;
		int ret;

		if (w->worker[i] != worker)
			continue;
		ret = container_reader_payload_into(w->r, w->e[i]->offset, &b, &type);
		if (ret == 1 && type == BLOCK_SYMBOLS) {
			ret = embed_decode(b.data, b.len, &w->out[i], NULL);
			ret = !ret ? 1 : ret == -ENOMEM ? ret : 0;
		} else if (ret == 1) {
			ret = 0;
		}
		w->state[i] = ret;
	}
	buf_free(&b);
}

static void take_crc(struct sym_work *w)
{
	if (w->crc_end && container_reader_crc(w->r, CONTAINER_HEADER_SIZE, w->crc_end, &w->crc))
		w->crc_end = 0;
}

static void *worker_main(void *arg)
{
	decode_side(arg, true);
	take_crc(arg);
	return NULL;
}

/* Largest first, each to the side with less: true when one goes to a
 * worker at all. */
static bool share_out(struct sym_work *w)
{
	uint64_t load[2] = { 0, 0 }, total = 0;

	for (size_t i = 0; i < w->n; i++)
		total += w->size[i];
	if (w->n < 2 || total < SYMBOLS_THREAD_MIN)
		return false;
	for (size_t done = 0; done < w->n; done++) {
		size_t big = w->n;

		for (size_t i = 0; i < w->n; i++)
			if (w->state[i] == 2 && (big == w->n || w->size[i] > w->size[big]))
				big = i;
		w->state[big] = 3;
		w->worker[big] = load[1] < load[0];
		load[w->worker[big]] += w->size[big];
	}
	return load[1] > 0;
}

/* e[0..n): the index of a finished file whose INDEX is at index_offset. */
static int gather(struct sym_work *w, const struct index_entry *e, size_t n,
		  uint64_t index_offset)
{
	for (size_t i = 0; i < n; i++) {
		w->n += e[i].type == BLOCK_SYMBOLS;
		if (e[i].type == BLOCK_ADDR_COUNTS)
			w->crc_end = e[i].offset;       /* the last one's */
	}
	w->e = calloc(w->n + 1, sizeof(*w->e));
	w->size = calloc(w->n + 1, sizeof(*w->size));
	w->out = calloc(w->n + 1, sizeof(*w->out));
	w->state = calloc(w->n + 1, sizeof(*w->state));
	w->worker = calloc(w->n + 1, sizeof(*w->worker));
	if (!w->e || !w->size || !w->out || !w->state || !w->worker)
		return -ENOMEM;
	w->n = 0;
	for (size_t i = 0; i < n; i++) {
		if (e[i].type != BLOCK_SYMBOLS)
			continue;
		w->e[w->n] = &e[i];
		w->size[w->n] = (i + 1 < n ? e[i + 1].offset : index_offset) - e[i].offset;
		w->state[w->n++] = 2;           /* not shared out yet */
	}
	return 0;
}

int session_take_symbols(struct session *s, const struct index_entry *e, size_t n,
			 int (*meanwhile)(struct session *s, void *ctx), void *ctx,
			 bool *damaged, struct err *err)
{
	struct sym_work w = { .r = s->r };
	pthread_t t;
	bool threaded = false;
	int ret = gather(&w, e, n, s->header.index_offset), mret = 0;

	if (!s->counts_want)
		w.crc_end = 0;
	if (!ret && (share_out(&w) || w.crc_end))
		threaded = !thread_create(&t, worker_main, &w);
	if (!ret && !threaded)
		memset(w.worker, 0, w.n * sizeof(*w.worker));
	if (!ret) {
		mret = meanwhile ? meanwhile(s, ctx) : 0;
		decode_side(&w, false);
	}
	if (threaded)
		pthread_join(t, NULL);
	else if (!ret)
		take_crc(&w);
	s->counts_end = w.crc_end;
	s->counts_crc = w.crc;
	for (size_t i = 0; !ret && i < w.n; i++) {
		if (w.state[i] < 0)
			ret = -ENOMEM;
		else if (!w.state[i])
			*damaged = true;
		else if ((ret = session_add_embed(s, w.out[i], err)) == 0)
			w.out[i] = NULL;
	}
	for (size_t i = 0; i < w.n; i++)
		embed_free(w.out[i]);
	free(w.e);
	free(w.size);
	free(w.out);
	free(w.state);
	free(w.worker);
	if (ret == -ENOMEM)
		return err_set(err, ret, "out of memory");
	return ret ? ret : mret;
}
