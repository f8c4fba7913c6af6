/* SPDX-License-Identifier: MIT */
/* A reading's samples summed by class, for the SAMPLE_SUMS block; see
 * sums_build.h. */
#include "sums_build.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "format/record.h"
#include "format/samplesums.h"
#include "load.h"
#include "offcpu.h"

struct sum_class {
	size_t at;              /* its count's offset in the payload (samplesums_add) */
	size_t rec;             /* its first sample's bytes there */
	uint64_t count, period;
	uint32_t epoch, len;
	int ev;
};

struct sums_build {
	struct buf payload;
	struct sum_class *cls;
	size_t nr_cls, cap_cls, nr_items;
	struct hmap idx;        /* the classes, by their hash (the epoch in it) */
	uint32_t epoch;         /* records that are not samples so far */
	uint64_t samples;
	uint32_t last;          /* the class of the last sample */
	bool failed;
	int8_t ok[LOAD_MAX_EVENTS];     /* per event: 1 fit, -1 not looked at yet */
	uint16_t tw[LOAD_MAX_EVENTS], pw[LOAD_MAX_EVENTS];     /* time, period words (0: none) */
	/* the sample being looked up, for same() */
	const uint8_t *cur;
	uint32_t cur_len;
	int cur_ev;
};

bool sums_event_fit(const struct event_desc *e)
{
	return !(e->attr.sample_type & (PERF_SAMPLE_READ | PERF_SAMPLE_STACK_USER)) &&
	       !offcpu_event_attr(e->name, &e->attr);
}

struct sums_build *sums_build_new(void)
{
	struct sums_build *b = calloc(1, sizeof(*b));

	if (b)
		memset(b->ok, -1, sizeof(b->ok));
	return b;
}

static void give_up(struct sums_build *b)
{
	b->failed = true;
	buf_free(&b->payload);
	free(b->cls);
	b->cls = NULL;
	b->nr_cls = b->cap_cls = 0;
	hmap_free(&b->idx);
}

void sums_build_free(struct sums_build *b)
{
	if (!b)
		return;
	give_up(b);
	free(b);
}

/* May event ev's samples be summed? Its time and period words noted. */
static bool event_fit(struct sums_build *b, const struct session *s, int ev)
{
	if (b->ok[ev] < 0) {
		const struct event_desc *e = &s->events[ev];
		struct sample_offsets off;

		record_sample_offsets(s->layouts, ev, &off);
		b->ok[ev] = sums_event_fit(e) && off.time % 8 == 0 && off.period % 8 == 0;
		b->tw[ev] = off.time / 8;
		b->pw[ev] = off.period / 8;
	}
	return b->ok[ev] > 0;
}

static inline uint64_t word(const uint8_t *p, uint32_t i)
{
	uint64_t v;

	memcpy(&v, p + 8 * (size_t)i, 8);
	return v;
}

/* The sample's words but its time (tw) and period (pw), and the epoch. */
static uint64_t sample_hash(const uint8_t *p, uint32_t n, uint32_t tw, uint32_t pw,
			    uint32_t epoch)
{
	uint64_t h = hash_u64((uint64_t)epoch << 32 | n);

	for (uint32_t i = 0; i < n; i++)
		if (!i || (i != tw && i != pw))         /* word 0: the header */
			h = (h ^ word(p, i)) * 0x9e3779b97f4a7c15ull + i;
	return hash_u64(h);
}

static bool same(void *ctx, uint32_t idx)
{
	const struct sums_build *b = ctx;
	const struct sum_class *c = &b->cls[idx];
	const uint8_t *q = b->payload.data + c->rec;
	uint32_t tw = b->tw[b->cur_ev], pw = b->pw[b->cur_ev];

	if (c->epoch != b->epoch || c->len != b->cur_len || c->ev != b->cur_ev)
		return false;
	for (uint32_t i = 0; i < b->cur_len / 8; i++)
		if ((!i || (i != tw && i != pw)) && word(q, i) != word(b->cur, i))
			return false;
	return true;
}

static int add_item(struct sums_build *b, const uint8_t *p, uint32_t len, bool sum,
		    uint64_t period, size_t *at)
{
	if (!b->payload.len && samplesums_begin(&b->payload))
		return -ENOMEM;
	if (samplesums_add(&b->payload, p, len, sum, period, at))
		return -ENOMEM;
	b->nr_items++;
	/* past a few MiB, a payload of more than one item for every 4
	 * samples so far would need three times as many samples again, all
	 * of classes already seen, to come down to one in 16: given up
	 * before it holds the recorder's memory */
	if (b->payload.len > SUMS_MAX_BYTES ||
	    (b->payload.len > SUMS_EARLY_BYTES && b->nr_items > b->samples / 4))
		return -E2BIG;
	return 0;
}

static int add_sample(struct sums_build *b, const uint8_t *p, uint32_t len, int ev)
{
	uint32_t tw = b->tw[ev], pw = b->pw[ev];
	uint64_t period = pw ? word(p, pw) : 0;
	uint64_t h = sample_hash(p, len / 8, tw, pw, b->epoch);
	struct sum_class *c;
	uint32_t i;
	size_t at;

	b->cur = p;
	b->cur_len = len;
	b->cur_ev = ev;
	if (hmap_find(&b->idx, h, same, b, &i)) {
		b->cls[i].count++;
		b->cls[i].period += period;
		b->last = i;
		return 0;
	}
	if (b->nr_cls == SUMS_MAX_CLASSES)
		return -E2BIG;
	if (array_grow((void **)&b->cls, &b->cap_cls, b->nr_cls + 1, sizeof(*b->cls)) ||
	    add_item(b, p, len, true, period, &at) ||
	    hmap_insert(&b->idx, h, (uint32_t)b->nr_cls))
		return -ENOMEM;
	b->last = (uint32_t)b->nr_cls;
	c = &b->cls[b->nr_cls++];
	*c = (struct sum_class){ at, at + 16, 1, period, b->epoch, len, ev };
	return 0;
}

int sums_build_record(struct sums_build *b, const struct session *s, const uint8_t *p,
		      uint32_t len)
{
	uint32_t type;
	size_t at;
	int ev, ret;

	if (b->failed)
		return -1;
	memcpy(&type, p, 4);
	if (type != PERF_RECORD_SAMPLE) {
		b->epoch++;
		ret = add_item(b, p, len, false, 0, &at);
	} else {
		ev = record_sample_event(s->layouts, p, len);
		b->samples++;
		ret = ev < 0 || ev >= LOAD_MAX_EVENTS || (size_t)ev >= s->nr_events ||
		      len % 8 || !event_fit(b, s, ev) ? -EINVAL : add_sample(b, p, len, ev);
	}
	if (ret) {
		give_up(b);
		return -1;
	}
	return type == PERF_RECORD_SAMPLE ? (int)b->last : -1;
}

void sums_build_again(struct sums_build *b, uint32_t cls, uint64_t period)
{
	if (b->failed || cls >= b->nr_cls)
		return;
	b->samples++;
	b->cls[cls].count++;
	b->cls[cls].period += period;
}

int sums_build_payload(struct sums_build *b, const struct session *s, struct buf **payload)
{
	struct samplesums head = { .nr_events = (uint32_t)s->nr_events,
				   .samples = b->samples, .tmin = s->first_time,
				   .tmax = s->last_time };

	if (b->failed || !b->samples || b->samples != s->stats.samples ||
	    b->nr_items > b->samples / SUMS_MIN_RATIO || head.tmin > head.tmax)
		return 0;
	for (size_t i = 0; i < b->nr_cls; i++)
		samplesums_set(&b->payload, b->cls[i].at, b->cls[i].count, b->cls[i].period);
	samplesums_finish(&b->payload, &head, b->nr_items);
	*payload = &b->payload;
	return 1;
}
