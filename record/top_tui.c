/* SPDX-License-Identifier: MIT */
/*
 * prec top in the browser: the view shows itself there (top_browse in
 * report/views/top.h: the title, the PerfTop status line, the refreshes,
 * the aging, z); this file keeps the rings drained meanwhile and hands the
 * view what they held at each refresh.
 *
 * Draining while the browser waits. The browser calls its hook only from
 * its waits for a key, and the main thread may be busy for a while
 * elsewhere (the first refresh reads the symbols of every binary hit; a
 * function is disassembled for annotate). So the rings are drained by a
 * thread of its own (drain_main): it polls them (their wakeup watermark,
 * else every DRAIN_MS), copies what they hold without decoding into a
 * queue (and, with --record, into the container writer, which only it
 * touches while it runs), and publishes the rings' tails at once. The
 * browser's refresh hook, on the main thread, takes the whole queue at each
 * refresh (feed) and hands it to the view, so the view, its histogram and
 * the machine model are only ever touched by the main thread, and the
 * browser reads them between two refreshes undisturbed. The queue holds what one refresh interval
 * brings (the browser keeps calling the hook in the annotate view, the
 * help box and the filter's prompt); it is bounded by QUEUE_MAX in case the
 * main thread is held much longer: the thread then leaves the rings
 * alone, and what the kernel loses it counts in LOST records, which the
 * title shows. The thread blocks every signal, so that SIGWINCH (curses's
 * resize), SIGINT and SIGTERM end the main thread's wait for a key.
 */
#include "top_cmd.h"
#include "common/thread.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DRAIN_MS 100            /* the thread drains at least this often */
#define QUEUE_MAX (256u << 20)  /* bytes queued before the rings are left alone */
#define SPARE_KEEP (16u << 20)  /* a queue's memory kept for the next one */
#define TQ_ROUND UINT32_MAX     /* a queue entry's cpu: the end of a drain pass */

/* One queue entry: this header, then len bytes of one ring's records. */
struct tq_head {
	uint32_t cpu;
	uint32_t len;
};

struct top_tui {
	struct top_run *r;
	/* the queue, between the drain thread and the main thread */
	pthread_mutex_t mu;
	pthread_cond_t taken;           /* the main thread took the queue, or stop */
	struct buf queue;
	bool stop;                      /* the thread is to end */
	bool ended;                     /* every task followed has exited */
	bool failed;                    /* the thread failed: err says why */
	struct err err;
	/* the drain thread's */
	pthread_t thread;
	bool running;
	struct record_sink sink;
	/* the main thread's */
	struct buf spare;               /* the queue's other buffer */
	double deadline;                /* --duration's end (0: none) */
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the drain thread ------------------------------------------------------ */

static int queue_put(struct top_tui *u, uint32_t cpu, const void *p1, size_t n1, const void *p2,
		     size_t n2, struct err *err)
{
	struct tq_head h = { cpu, (uint32_t)(n1 + n2) };
	int ret;

	if (n1 + n2 > UINT32_MAX)
		return err_set(err, -E2BIG, "a ring buffer's records over 4 GiB");
	pthread_mutex_lock(&u->mu);
	ret = buf_append(&u->queue, &h, sizeof(h));
	if (!ret && n1)
		ret = buf_append(&u->queue, p1, n1);
	if (!ret && n2)
		ret = buf_append(&u->queue, p2, n2);
	pthread_mutex_unlock(&u->mu);
	return ret ? err_set(err, -ENOMEM, "out of memory") : 0;
}

static int sink_records(void *ctx, uint32_t cpu, const void *p1, size_t n1, const void *p2,
			size_t n2, struct err *err)
{
	return n1 + n2 ? queue_put(ctx, cpu, p1, n1, p2, n2, err) : 0;
}

static int sink_round(void *ctx, struct err *err)
{
	return queue_put(ctx, TQ_ROUND, NULL, 0, NULL, 0, err);
}

/* Until stop, or while the queue is full: whether to stop. */
static bool drain_wait(struct top_tui *u)
{
	bool stop;

	pthread_mutex_lock(&u->mu);
	while (!u->stop && u->queue.len >= QUEUE_MAX) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += DRAIN_MS * 1000000L;
		ts.tv_sec += ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&u->taken, &u->mu, &ts);
	}
	stop = u->stop;
	pthread_mutex_unlock(&u->mu);
	return stop;
}

/* One wakeup: what the rings hold into the queue (and the writer). A pass
 * that found nothing after one that found something ends a round, so that
 * the view's time order lets that one's records through (as the stdio
 * loop's second pass does). 1 when every task followed has exited. */
static int drain_once(struct top_tui *u, bool *had, double *flush_at, struct err *err)
{
	struct session *s = &u->r->s;
	int hung = session_poll(s, DRAIN_MS), ret = 0;
	long n;

	if (hung < 0)
		return err_set(err, hung, "poll: %s", strerror(-hung));
	n = session_drain(s, err);
	if (n < 0)
		return (int)n;
	if (!n && *had)
		ret = sink_round(u, err);
	*had = n > 0;
	/* --record's file keeps up with the screen */
	if (!ret && s->writer && mono_s() >= *flush_at) {
		*flush_at = mono_s() + u->r->c->delay_s;
		ret = container_writer_flush(s->writer, err);
	}
	return ret ? ret : hung;
}

static void *drain_main(void *arg)
{
	struct top_tui *u = arg;
	double flush_at = mono_s() + u->r->c->delay_s;
	struct err err = { 0 };
	bool had = false;
	int ret = 0;

	while (!ret && !drain_wait(u))
		ret = drain_once(u, &had, &flush_at, &err);
	/* the last pass's records through the time order too */
	if (ret == 1 && had && sink_round(u, &err))
		ret = -ENOMEM;
	pthread_mutex_lock(&u->mu);
	/* the rings are hung up: polling them again would not wait */
	u->ended = ret == 1;
	if (ret < 0) {
		u->failed = true;
		u->err = err;
	}
	pthread_mutex_unlock(&u->mu);
	return NULL;
}

static int drain_start(struct top_tui *u, struct err *err)
{
	sigset_t all, old;
	int ret;

	u->sink = (struct record_sink){ NULL, sink_records, sink_round, u };
	u->r->s.sink = &u->sink;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = thread_create(&u->thread, drain_main, u);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return err_set(err, -ret, "cannot start the drain thread: %s", strerror(ret));
	u->running = true;
	return 0;
}

/* The thread ended; the session's sink is the view's again (the last drain
 * of finish() goes to it). */
static void drain_stop(struct top_tui *u)
{
	if (u->running) {
		pthread_mutex_lock(&u->mu);
		u->stop = true;
		pthread_cond_signal(&u->taken);
		pthread_mutex_unlock(&u->mu);
		pthread_join(u->thread, NULL);
		u->running = false;
	}
	u->r->s.sink = &u->r->sink;
}

/* ---- the main thread: what the browser's loop asks ------------------------------ */

/* What the drain thread queued, to the view, pass by pass. */
static int feed(void *ctx, struct top *view, struct err *err)
{
	struct top_tui *u = ctx;
	struct buf q;
	int ret = 0;

	buf_reset(&u->spare);
	pthread_mutex_lock(&u->mu);
	q = u->queue;
	u->queue = u->spare;
	pthread_cond_signal(&u->taken);
	pthread_mutex_unlock(&u->mu);
	for (size_t at = 0; !ret && at + sizeof(struct tq_head) <= q.len;) {
		struct tq_head h;

		memcpy(&h, q.data + at, sizeof(h));
		at += sizeof(h);
		if (h.cpu == TQ_ROUND)
			ret = top_round(view, err);
		else
			ret = top_records(view, h.cpu, q.data + at, h.len, NULL, 0, err);
		at += h.len;
	}
	if (q.cap > SPARE_KEEP)
		buf_free(&q);
	u->spare = q;
	return ret;
}

/* The drain thread's state: its failure (negative, err set), else whether
 * every task followed has exited. */
static int drain_state(struct top_tui *u, struct err *err)
{
	int ret;

	pthread_mutex_lock(&u->mu);
	ret = u->ended;
	if (u->failed) {
		*err = u->err;
		ret = err->code ? err->code : -EIO;
	}
	pthread_mutex_unlock(&u->mu);
	return ret;
}

/* The end asked (SIGINT, SIGTERM, --duration), or the drain thread's
 * failure. */
static int tick(void *ctx, struct err *err)
{
	struct top_tui *u = ctx;
	int ret;

	if (stop_requested() || (u->deadline && mono_s() >= u->deadline))
		return 1;
	ret = drain_state(u, err);
	return ret < 0 ? ret : 0;
}

static const char *note(void *ctx)
{
	struct err err = { 0 };

	/* as perf top, the browser stays: the last samples fade out */
	return drain_state(ctx, &err) == 1 ? "every task followed has exited" : NULL;
}

int top_tui_run(struct top_run *r, struct err *err)
{
	struct top_tui u = { .r = r, .queue = BUF_INIT, .spare = BUF_INIT };
	struct top_browse_ops ops = { tick, feed, note, &u, r->c->delay_s,
				      r->c->entries > 0 ? (size_t)r->c->entries : 0 };
	int ret;

	pthread_mutex_init(&u.mu, NULL);
	pthread_cond_init(&u.taken, NULL);
	u.deadline = r->c->duration_s > 0 ? mono_s() + r->c->duration_s : 0;
	ret = drain_start(&u, err);
	if (!ret)
		ret = top_browse(r->view, &ops, err);
	drain_stop(&u);
	if (!ret && drain_state(&u, err) < 0)
		ret = err->code;
	/* what waits, to the view too: the tables go on from there when the
	 * terminal could not be started (and top_end reads it at the end) */
	if (!ret || ret == -ENOTTY) {
		struct err ferr = { 0 };
		int fret = feed(&u, r->view, &ferr);

		if (fret) {
			*err = ferr;
			ret = fret;
		}
	}
	buf_free(&u.queue);
	buf_free(&u.spare);
	pthread_cond_destroy(&u.taken);
	pthread_mutex_destroy(&u.mu);
	return ret;
}
