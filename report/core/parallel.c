/* SPDX-License-Identifier: MIT */
/* The parallelism of each sample, from context-switch records; see parallel.h. */
#include "parallel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/hash.h"

/* a thread's state, as the records tell it */
enum {
	TS_UNKNOWN,     /* no switch record yet (or it exited): counted from a sample */
	TS_RUNNING,
	TS_OFF,         /* switched out */
};

struct parallel {
	uint64_t bits[PARALLEL_WORDS];  /* --parallelism: the levels kept */
	bool filter;
	uint32_t *tids;
	uint8_t *state;
	size_t nr, cap;
	struct hmap idx;                /* by tid */
	unsigned running;               /* threads in TS_RUNNING */
	unsigned max_running;
	uint64_t nr_cpus;               /* of the file being read; 0 unknown */
	unsigned cur;                   /* the level of the last sample */
	uint64_t samples, single;
	uint64_t latency[PARALLEL_EVENTS];
};

/* "1,64-128": each level 1..PARALLEL_MAX; one walk, bits set when given. */
int parallel_parse_list(const char *list, uint64_t *bits, struct err *err)
{
	const char *p = list;

	do {
		char *end;
		long a, b;

		if (*p < '0' || *p > '9')
			goto bad;
		a = b = strtol(p, &end, 10);
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				goto bad;
			b = strtol(end + 1, &end, 10);
		}
		if ((*end && *end != ',') || a > b)
			goto bad;
		if (a < 1 || b > PARALLEL_MAX)
			return err_set(err, -EINVAL, "--parallelism '%s': level %ld is invalid "
				       "(levels are 1..%d)", list, a < 1 ? a : b, PARALLEL_MAX);
		for (long l = a; bits && l <= b; l++)
			bits[l / 64] |= UINT64_C(1) << (l % 64);
		p = *end ? end + 1 : end;
	} while (*p || p[-1] == ',');
	return 0;
bad:
	return err_set(err, -EINVAL, "--parallelism '%s': not a list of levels like 1,2-4", list);
}

struct parallel *parallel_new(const char *list, struct err *err)
{
	struct parallel *p = calloc(1, sizeof(*p));

	if (!p) {
		err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	if (list) {
		if (parallel_parse_list(list, p->bits, err)) {
			free(p);
			return NULL;
		}
		p->filter = true;
	}
	return p;
}

void parallel_free(struct parallel *p)
{
	if (!p)
		return;
	free(p->tids);
	free(p->state);
	hmap_free(&p->idx);
	free(p);
}

void parallel_file(struct parallel *p, uint64_t nr_cpus)
{
	if (!p)
		return;
	if (p->nr)
		memset(p->state, TS_UNKNOWN, p->nr);
	p->running = 0;
	p->nr_cpus = nr_cpus;
}

struct tid_key {
	const struct parallel *p;
	uint32_t tid;
};

static bool tid_eq(void *ctx, uint32_t idx)
{
	const struct tid_key *k = ctx;

	return k->p->tids[idx] == k->tid;
}

/* The state of tid, added as unknown when new; NULL on ENOMEM. */
static uint8_t *thread_state(struct parallel *p, uint32_t tid)
{
	struct tid_key k = { p, tid };
	uint64_t h = hash_u64(tid);
	uint32_t i;

	if (hmap_find(&p->idx, h, tid_eq, &k, &i))
		return &p->state[i];
	if (p->nr == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		uint32_t *t = array_realloc(p->tids, cap, sizeof(*t));
		uint8_t *s;

		if (!t)
			return NULL;
		p->tids = t;
		s = array_realloc(p->state, cap, sizeof(*s));
		if (!s)
			return NULL;
		p->state = s;
		p->cap = cap;
	}
	if (hmap_insert(&p->idx, h, (uint32_t)p->nr))
		return NULL;
	p->tids[p->nr] = tid;
	p->state[p->nr] = TS_UNKNOWN;
	return &p->state[p->nr++];
}

static void move(struct parallel *p, uint8_t *s, uint8_t to)
{
	if (*s == TS_RUNNING && to != TS_RUNNING)
		p->running--;
	else if (*s != TS_RUNNING && to == TS_RUNNING && ++p->running > p->max_running)
		p->max_running = p->running;
	*s = to;
}

static int set_state(struct parallel *p, uint32_t tid, uint8_t to)
{
	uint8_t *s;

	if (!tid)               /* the idle task runs whenever nothing else does */
		return 0;
	if (!(s = thread_state(p, tid)))
		return -ENOMEM;
	move(p, s, to);
	return 0;
}

int parallel_record(struct parallel *p, const struct record *rec)
{
	if (!p)
		return 0;
	switch (rec->type) {
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		/* the trailer names the task the record is about: the one going
		 * out, or the one coming in */
		if (!(rec->sid.fields & PERF_SAMPLE_TID))
			return 0;
		return set_state(p, rec->sid.tid,
				 rec->misc & PERF_RECORD_MISC_SWITCH_OUT ? TS_OFF : TS_RUNNING);
	case PERF_RECORD_EXIT:
		/* no switch-out comes after the last one of an exiting thread */
		return set_state(p, rec->u.task.tid, TS_UNKNOWN);
	default:
		return 0;
	}
}

int parallel_sample(struct parallel *p, const struct record *rec, unsigned *level)
{
	const struct sample *smp = &rec->u.sample;
	uint64_t n;

	*level = 0;
	if (!p)
		return 0;
	/* a thread no switch record named yet is running: it is sampled */
	if ((smp->type & PERF_SAMPLE_TID) && smp->tid) {
		uint8_t *s = thread_state(p, smp->tid);

		if (!s)
			return -ENOMEM;
		if (*s == TS_UNKNOWN)
			move(p, s, TS_RUNNING);
	}
	n = p->running;
	if (p->nr_cpus && n > p->nr_cpus)
		n = p->nr_cpus;
	if (n > PARALLEL_MAX)
		n = PARALLEL_MAX;
	p->cur = n ? (unsigned)n : 1;
	p->samples++;
	p->single += p->cur == 1;
	*level = p->cur;
	return 0;
}

void parallel_count(struct parallel *p, int event, uint64_t period)
{
	if (p && event >= 0 && event < PARALLEL_EVENTS)
		p->latency[event] += parallel_latency(period, p->cur);
}

bool parallel_wanted(const struct parallel *p, unsigned level)
{
	if (!p || !p->filter)
		return true;
	return level <= PARALLEL_MAX && (p->bits[level / 64] >> (level % 64) & 1);
}

uint64_t parallel_event_latency(const struct parallel *p, int event)
{
	return p && event >= 0 && event < PARALLEL_EVENTS ? p->latency[event] : 0;
}

uint64_t parallel_samples(const struct parallel *p)
{
	return p ? p->samples : 0;
}

uint64_t parallel_single(const struct parallel *p)
{
	return p ? p->single : 0;
}

unsigned parallel_max_running(const struct parallel *p)
{
	return p ? p->max_running : 0;
}
