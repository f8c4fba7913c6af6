/* SPDX-License-Identifier: MIT */
/*
 * prep report -T/--threads: perf report -T's table of per-thread event
 * counts, printed after the report ("#  PID  TID  name..."). perf takes
 * them from PERF_RECORD_READ records, which the kernel writes when a
 * thread with inherit_stat counters exits (prec -s, perf record -s); each
 * (pid, tid, event) is the sum of its records. Where a thread has no such
 * record for an event whose samples read the counts ({a,b}:S), the sum of
 * its samples' deltas stands in: the thread's count up to its last sample.
 */
#include "print_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "report/core/session.h"

struct trow {
	uint32_t pid, tid;
	uint64_t read[LOAD_MAX_EVENTS], delta[LOAD_MAX_EVENTS];
	bool has_read[LOAD_MAX_EVENTS];
};

struct thread_counts {
	struct trow *rows;
	size_t nr, cap;
	bool used[LOAD_MAX_EVENTS];     /* a column */
	int order[LOAD_MAX_EVENTS];     /* columns in the order first seen */
	size_t nr_cols;
};

struct thread_counts *thread_counts_new(void)
{
	return calloc(1, sizeof(struct thread_counts));
}

void thread_counts_free(struct thread_counts *tc)
{
	if (tc)
		free(tc->rows);
	free(tc);
}

static struct trow *row(struct thread_counts *tc, uint32_t pid, uint32_t tid)
{
	for (size_t i = 0; i < tc->nr; i++)
		if (tc->rows[i].pid == pid && tc->rows[i].tid == tid)
			return &tc->rows[i];
	if (array_grow((void **)&tc->rows, &tc->cap, tc->nr + 1, sizeof(*tc->rows)))
		return NULL;
	memset(&tc->rows[tc->nr], 0, sizeof(*tc->rows));
	tc->rows[tc->nr].pid = pid;
	tc->rows[tc->nr].tid = tid;
	return &tc->rows[tc->nr++];
}

static void use(struct thread_counts *tc, int event)
{
	if (!tc->used[event]) {
		tc->used[event] = true;
		tc->order[tc->nr_cols++] = event;
	}
}

int thread_counts_sample(struct thread_counts *tc, const struct load_sample *s)
{
	struct trow *r;

	if (!(s->rec->u.sample.type & PERF_SAMPLE_READ) || s->event < 0 ||
	    s->event >= LOAD_MAX_EVENTS)
		return 0;
	r = row(tc, s->thread->pid, s->thread->tid);
	if (!r)
		return -1;
	use(tc, s->event);
	r->delta[s->event] += s->period;
	return 0;
}

int thread_counts_record(struct thread_counts *tc, struct load *l, const struct session *s,
			 const struct record *rec)
{
	const struct read_values *rv = &rec->u.read.values;
	struct trow *r;

	if (rec->type != PERF_RECORD_READ)
		return 0;
	r = row(tc, rec->u.read.pid, rec->u.read.tid);
	if (!r)
		return -1;
	for (uint64_t i = 0; i < rv->nr; i++) {
		int ev = (rv->format & PERF_FORMAT_ID) ?
			 record_layouts_find(s->layouts, read_values_id(rv, i)) : rec->event;
		int g = ev < 0 ? -1 : load_event_index(l, session_event_name(s, ev));

		if (g < 0 || g >= LOAD_MAX_EVENTS)
			continue;
		use(tc, g);
		r->read[g] += read_values_value(rv, i);
		r->has_read[g] = true;
	}
	return 0;
}

static int digits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

void thread_counts_print(FILE *out, const struct load *l, const struct thread_counts *tc)
{
	int pw = 3, tw = 3, cw[LOAD_MAX_EVENTS];

	for (size_t c = 0; c < tc->nr_cols; c++)
		cw[c] = (int)strlen(load_event_name(l, tc->order[c]));
	for (size_t i = 0; i < tc->nr; i++) {
		const struct trow *r = &tc->rows[i];

		pw = digits(r->pid) > pw ? digits(r->pid) : pw;
		tw = digits(r->tid) > tw ? digits(r->tid) : tw;
		for (size_t c = 0; c < tc->nr_cols; c++) {
			int e = tc->order[c];
			int d = digits(r->has_read[e] ? r->read[e] : r->delta[e]);

			cw[c] = d > cw[c] ? d : cw[c];
		}
	}
	fprintf(out, "# %*s  %*s", pw, "PID", tw, "TID");
	for (size_t c = 0; c < tc->nr_cols; c++)
		fprintf(out, "  %*s", cw[c], load_event_name(l, tc->order[c]));
	fputc('\n', out);
	for (size_t i = 0; i < tc->nr; i++) {
		const struct trow *r = &tc->rows[i];

		fprintf(out, "  %*" PRIu32 "  %*" PRIu32, pw, r->pid, tw, r->tid);
		for (size_t c = 0; c < tc->nr_cols; c++) {
			int e = tc->order[c];

			fprintf(out, "  %*" PRIu64, cw[c], r->has_read[e] ? r->read[e] : r->delta[e]);
		}
		fputc('\n', out);
	}
}
