/* SPDX-License-Identifier: MIT */
/*
 * load_run_memo's memo (load.h): a sample whose bytes, but for its time
 * and period, are those of a sample read before, with no other record
 * between them (nothing that changes threads, maps or commands), has the
 * outcome that one had, which its view kept (load_memo_keep): such a
 * sample is not decoded, its chain not assembled nor resolved again; it is
 * counted (the session's counts, the event's samples and period) and the
 * view's again() does with its time and period what the view did with the
 * other one's.
 *
 * Only where a sample's outcome is a function of those bytes and of the
 * machine's state: no filter on what samples carry (time, CPU, ids), no
 * parallelism; per event, no read values (group deltas), no user stack
 * copy (unwound), not an off-CPU event held for its switch-in. The memo is
 * a direct-mapped table: a sample whose slot holds another one takes the
 * whole way, and leaves its own outcome there if its view keeps one.
 */
#include "load_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "offcpu.h"
#include "sums_build.h"

#define MEMO_SLOTS LOAD_MEMO_SLOTS
#define MEMO_WORDS 64           /* samples of up to 512 bytes */
#define MEMO_MASKED 10          /* the header and the fields up to PERIOD */

struct memo_slot {
	uint64_t hash;
	uint32_t words, gen;    /* gen 0: empty */
	int event;              /* the load's event index */
	uint32_t outcome;
	int32_t cls;            /* its class of the sums being built, or -1 */
	uint64_t period;        /* without PERIOD in the sample: its weight */
};

struct load_memo {
	struct load *l;
	const struct load_memo_ops *ops;
	void *ctx;
	uint32_t gen;
	int8_t ok[LOAD_MAX_EVENTS];     /* the file's events: 1 memo, 0 not, -1 not known yet */
	uint16_t tw[LOAD_MAX_EVENTS], pw[LOAD_MAX_EVENTS];      /* their time and period words */
	uint64_t mask[LOAD_MAX_EVENTS][MEMO_MASKED];            /* ... zero, the others all ones */
	struct memo_slot *pending;      /* where the sample being read goes, once added */
	const uint8_t *pending_p;
	uint64_t pending_hash;
	uint32_t pending_words;
	int32_t pending_cls;
	struct memo_slot *slots;        /* a table of MEMO_SLOTS, small enough for the cache */
	uint64_t (*words)[MEMO_WORDS];  /* each slot's sample */
};

struct load_memo *load_memo_new(struct load *l, const struct load_memo_ops *ops, void *ctx)
{
	struct load_memo *m;

	if (l->par || l->filter.by_sample)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m || !(m->slots = calloc(MEMO_SLOTS, sizeof(*m->slots))) ||
	    !(m->words = malloc(MEMO_SLOTS * sizeof(*m->words)))) {
		load_memo_free(m);
		return NULL;
	}
	m->l = l;
	m->ops = ops;
	m->ctx = ctx;
	load_memo_forget(m);
	return m;
}

void load_memo_free(struct load_memo *m)
{
	if (!m)
		return;
	free(m->slots);
	free(m->words);
	free(m);
}

void load_memo_forget(struct load_memo *m)
{
	if (!++m->gen)          /* 0 marks an empty slot */
		memset(m->slots, 0, MEMO_SLOTS * sizeof(*m->slots)), m->gen = 1;
	m->pending = NULL;
}

void load_memo_file(struct load_memo *m)
{
	memset(m->ok, -1, sizeof(m->ok));
	load_memo_forget(m);
}

/* Event ev of the file: may its samples be taken from the memo? */
static bool event_ok(struct load_memo *m, const struct session *s, int ev)
{
	if (m->ok[ev] < 0) {
		uint64_t st = s->events[ev].attr.sample_type;
		struct sample_offsets off;

		m->ok[ev] = !(st & (PERF_SAMPLE_READ | PERF_SAMPLE_STACK_USER)) &&
			    !offcpu_holds(m->l->off, ev);
		record_sample_offsets(s->layouts, ev, &off);
		m->tw[ev] = off.time / 8u;
		m->pw[ev] = off.period / 8u;
		for (int i = 0; i < MEMO_MASKED; i++)
			m->mask[ev][i] = i && (i == m->tw[ev] || i == m->pw[ev]) ? 0 : ~0ull;
		m->ok[ev] &= m->tw[ev] < MEMO_MASKED && m->pw[ev] < MEMO_MASKED;
	}
	return m->ok[ev];
}

static inline uint64_t word(const uint8_t *p, uint32_t i)
{
	uint64_t v;

	memcpy(&v, p + 8 * i, 8);
	return v;
}

#define K0 0xc2b2ae3d27d4eb4full
#define KSTEP 0x9e3779b97f4a7c16ull     /* even: every K(i) stays odd */
#define K(i) (K0 + (uint64_t)(i) * KSTEP)

/* The sample's words but its time (word tw) and period (pw; 0: no such
 * word, word 0 being the header), each times a constant of its place,
 * summed (two sums, no chain of dependent multiplications): the sum of
 * all less those two. */
static uint64_t words_hash(const uint8_t *p, uint32_t n, uint32_t tw, uint32_t pw)
{
	uint64_t h = n * 0x9e3779b97f4a7c15ull, g = 0;
	uint32_t i = 0;

	for (; i + 1 < n; i += 2) {
		h += word(p, i) * K(i);
		g += word(p, i + 1) * K(i + 1);
	}
	if (i < n)
		h += word(p, i) * K(i);
	h += g - (tw ? word(p, tw) * K(tw) : 0) - (pw ? word(p, pw) * K(pw) : 0);
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

/* The same words but time and period (mask: the first MEMO_MASKED words,
 * those two zero), without a branch per word. */
static bool words_equal(const uint8_t *p, const uint64_t *w, uint32_t n, const uint64_t *mask)
{
	uint64_t diff = 0;
	uint32_t i = 0;

	if (n >= MEMO_MASKED) {
		for (; i < MEMO_MASKED; i++)    /* a constant count: unrolled */
			diff |= (word(p, i) ^ w[i]) & mask[i];
	} else {
		for (; i < n; i++)
			diff |= (word(p, i) ^ w[i]) & mask[i];
	}
	for (; i < n; i++)
		diff |= word(p, i) ^ w[i];
	return !diff;
}

int load_memo_raw(void *ctx, struct session *s, const uint8_t *p, uint32_t len)
{
	struct run_ctx *rc = ctx;
	struct load_memo *m = rc->memo;
	struct load *l = rc->l;
	struct memo_slot *sl;
	uint32_t n = len / 8, tw, pw;
	uint64_t hv, period, time;
	int ev, ret;

	m->pending = NULL;
	m->pending_cls = -1;
	if (len % 8 || n > MEMO_WORDS || !l->mapped[rc->file] ||
	    (ev = record_sample_event(s->layouts, p, len)) < 0 || ev >= LOAD_MAX_EVENTS ||
	    (size_t)ev >= s->nr_events || !event_ok(m, s, ev))
		return 0;
	tw = m->tw[ev];
	pw = m->pw[ev];
	hv = words_hash(p, n, tw, pw);
	sl = &m->slots[hv & (MEMO_SLOTS - 1)];
	if (sl->gen != m->gen || sl->hash != hv || sl->words != n ||
	    !words_equal(p, m->words[sl - m->slots], n, m->mask[ev])) {
		m->pending = sl;
		m->pending_p = p;
		m->pending_hash = hv;
		m->pending_words = n;
		return 0;
	}
	period = pw ? word(p, pw) : sl->period;
	time = tw ? word(p, tw) : 0;
	session_count_sample(s, tw != 0, time);
	l->samples_by_event[sl->event]++;
	l->period_by_event[sl->event] += period;
	if (l->sb && sl->cls >= 0)
		sums_build_again(l->sb, (uint32_t)sl->cls, pw ? period : 0);
	ret = m->ops->again(m->ctx, sl->outcome, time, period);
	return ret < 0 ? ret : 1;
}

void load_memo_class(struct load_memo *m, int cls)
{
	if (m)
		m->pending_cls = cls;
}

int load_memo_slot(const struct load *l, const struct load_sample *ls)
{
	const struct load_memo *m = l->memo;

	return m && m->pending && ls->rec->bytes == m->pending_p ? (int)(m->pending - m->slots) : -1;
}

void load_memo_keep(struct load *l, const struct load_sample *ls, uint32_t outcome)
{
	struct load_memo *m = l->memo;
	struct memo_slot *sl = m ? m->pending : NULL;

	if (!sl || ls->rec->bytes != m->pending_p)
		return;         /* not the sample the memo looked up last (a made one) */
	m->pending = NULL;
	sl->hash = m->pending_hash;
	sl->words = m->pending_words;
	sl->gen = m->gen;
	sl->event = ls->event;
	sl->outcome = outcome;
	sl->cls = m->pending_cls;
	sl->period = ls->period;
	memcpy(m->words[sl - m->slots], m->pending_p, 8 * (size_t)sl->words);
}
