/* SPDX-License-Identifier: MIT */
/*
 * prep script's part of load_run_memo: the text a sample printed, kept in
 * its memo slot with its time and period cut out, printed again for each
 * sample like it around that sample's time and period (see script_int.h).
 * A sample's text is kept only when it went into the output buffer whole
 * (no flush in between, SCRIPT_ROOM free before it).
 */
#include "script_int.h"
#include "common/buf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SCRIPT_ROOM ((size_t)16 << 10)

/* The text of a slot: text[0, cut1) time text[cut1, cut2) period
 * text[cut2, len), each field there only when has_time, has_period. */
struct script_tmpl {
	char *text;
	size_t len, cap;
	size_t cut1, cut2;
	bool has_time, has_period;
};

int script_memo_init(struct script *sc)
{
	sc->tmpl = calloc(LOAD_MEMO_SLOTS, sizeof(*sc->tmpl));
	return sc->tmpl ? 0 : -ENOMEM;
}

void script_memo_free(struct script *sc)
{
	for (size_t i = 0; sc->tmpl && i < LOAD_MEMO_SLOTS; i++)
		free(sc->tmpl[i].text);
	free(sc->tmpl);
	sc->tmpl = NULL;
}

void script_memo_begin(struct script *sc, const struct load_sample *s, struct script_mark *m)
{
	struct obuf *o = sc->out;

	m->slot = sc->tmpl ? load_memo_slot(sc->l, s) : -1;
	if (m->slot < 0)
		return;
	if (sizeof(o->b) - o->n < SCRIPT_ROOM)
		ob_flush(o);
	m->start = o->n;
	m->flushes = o->flushes;
	sc->t0 = sc->t1 = sc->p0 = sc->p1 = SIZE_MAX;
}

/* Room in t for len bytes; false (t as it was) when out of memory. */
static bool tmpl_reserve(struct script_tmpl *t, size_t len)
{
	char *p;

	if (len <= t->cap)
		return true;
	p = array_realloc(t->text, len * 2, 1);
	if (!p)
		return false;
	t->text = p;
	t->cap = len * 2;
	return true;
}

/* Append b[from, to) to t (reserved). */
static void tmpl_add(struct script_tmpl *t, const char *b, size_t from, size_t to)
{
	memcpy(t->text + t->len, b + from, to - from);
	t->len += to - from;
}

/* The slot's text replaced (and the memo told) only once it fits: a slot
 * whose text could not be kept still holds the sample it was kept for, and
 * that one's text. */
void script_memo_end(struct script *sc, const struct load_sample *s, const struct script_mark *m)
{
	const struct obuf *o = sc->out;
	struct script_tmpl *t;
	size_t t0 = sc->t0, t1 = sc->t1, p0 = sc->p0, p1 = sc->p1;
	bool has_time = t0 != SIZE_MAX && t0 >= m->start;
	bool has_period = p0 != SIZE_MAX && p0 >= m->start;

	if (m->slot < 0 || o->flushes != m->flushes)
		return;
	if (!has_time)
		t0 = t1 = has_period ? p0 : o->n;
	if (!has_period)
		p0 = p1 = o->n;
	t = &sc->tmpl[m->slot];
	if (!tmpl_reserve(t, (o->n - m->start) - (t1 - t0) - (p1 - p0)))
		return;
	t->has_time = has_time;
	t->has_period = has_period;
	t->len = 0;
	tmpl_add(t, o->b, m->start, t0);
	t->cut1 = t->len;
	tmpl_add(t, o->b, t1, p0);
	t->cut2 = t->len;
	tmpl_add(t, o->b, p1, o->n);
	load_memo_keep(sc->l, s, (uint32_t)m->slot);
}

/* The text around the time and the period written straight into the
 * output buffer (room made once), else field by field. */
int script_memo_again(void *ctx, uint32_t slot, uint64_t time, uint64_t period)
{
	struct script *sc = ctx;
	const struct script_tmpl *t = &sc->tmpl[slot];
	size_t room = t->len + SCRIPT_TIME_MAX + 24;
	char *p;

	if (room > sizeof(sc->out->b)) {
		ob_mem(sc->out, t->text, t->cut1);
		if (t->has_time)
			script_time(sc, time);
		ob_mem(sc->out, t->text + t->cut1, t->cut2 - t->cut1);
		if (t->has_period)
			ob_dec(sc->out, period, 10, ' ', false);
		ob_mem(sc->out, t->text + t->cut2, t->len - t->cut2);
		return 0;
	}
	p = ob_room(sc->out, room);
	memcpy(p, t->text, t->cut1);
	p += t->cut1;
	if (t->has_time)
		p = script_put_time(sc, p, time);
	memcpy(p, t->text + t->cut1, t->cut2 - t->cut1);
	p += t->cut2 - t->cut1;
	if (t->has_period)
		p = ob_put_dec(p, period, 10, ' ');
	memcpy(p, t->text + t->cut2, t->len - t->cut2);
	ob_wrote(sc->out, p + (t->len - t->cut2));
	return 0;
}
