/* SPDX-License-Identifier: MIT */
/*
 * The set of events a decoder knows: each event's layout from its
 * perf_event_attr (sample_type, read_format, sample_id_all, ...) and the
 * sample ids that tell records of several events apart. record.c reads it
 * to attribute and decode records.
 */
#include "record_int.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

/* ---- event layouts from attrs ------------------------------------------ */

/* The flags word that holds the attr bitfields (disabled ... sigtrap). */
#define ATTR_FLAGS_OFF	40
_Static_assert(offsetof(struct perf_event_attr, read_format) + 8 == ATTR_FLAGS_OFF,
	       "the attr bitfields follow read_format");

/* sample_id_all is the 19th bitfield (disabled is the first). Bitfields are
 * allocated from the least significant bit on little-endian ABIs and from
 * the most significant one on big-endian ABIs. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ATTR_SAMPLE_ID_ALL	(1ULL << 18)
#else
#define ATTR_SAMPLE_ID_ALL	(1ULL << (63 - 18))
#endif

/* A u64 of the attr at `off`; bytes at or past `size` read as zero, so older
 * (shorter) attrs give 0 for the fields they lack. */
static uint64_t attr_u64(const void *attr, size_t size, size_t off)
{
	uint8_t b[8] = { 0 };
	uint64_t v;

	if (off < size)
		memcpy(b, (const uint8_t *)attr + off, size - off < 8 ? size - off : 8);
	memcpy(&v, b, sizeof(v));
	return v;
}

void event_layout_from_attr(struct event_layout *l, const void *attr, size_t size)
{
#define F(field) attr_u64(attr, size, offsetof(struct perf_event_attr, field))
	memset(l, 0, sizeof(*l));
	l->sample_type = F(sample_type);
	l->read_format = F(read_format);
	l->branch_sample_type = F(branch_sample_type);
	l->sample_regs_user = F(sample_regs_user);
	l->sample_regs_intr = F(sample_regs_intr);
	l->sample_id_all = attr_u64(attr, size, ATTR_FLAGS_OFF) & ATTR_SAMPLE_ID_ALL;
#undef F
}

/* ---- the set of events ------------------------------------------------- */

struct record_layouts *record_layouts_new(void)
{
	return calloc(1, sizeof(struct record_layouts));
}

void record_layouts_free(struct record_layouts *ls)
{
	if (!ls)
		return;
	free(ls->ev);
	free(ls->plans);
	free(ls->ids);
	free(ls);
}

size_t record_layouts_count(const struct record_layouts *ls)
{
	return ls ? ls->nr : 0;
}

const struct event_layout *record_layouts_get(const struct record_layouts *ls, size_t idx)
{
	return ls && idx < ls->nr ? &ls->ev[idx] : NULL;
}

int record_layouts_find(const struct record_layouts *ls, uint64_t id)
{
	size_t lo = 0, hi = ls ? ls->nr_ids : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ls->ids[mid].id == id)
			return ls->ids[mid].event;
		if (ls->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static void layouts_update(struct record_layouts *ls)
{
	bool all_ident = true, same_type = true;
	size_t i;

	ls->same_read_format = true;
	for (i = 0; i < ls->nr; i++) {
		all_ident &= !!(ls->ev[i].sample_type & PERF_SAMPLE_IDENTIFIER);
		same_type &= ls->ev[i].sample_type == ls->ev[0].sample_type;
		ls->same_read_format &= ls->ev[i].read_format == ls->ev[0].read_format;
	}
	if (ls->nr <= 1)
		ls->how = BY_ONE;
	else if (all_ident)
		ls->how = BY_IDENTIFIER;
	else if (same_type && (ls->ev[0].sample_type & PERF_SAMPLE_ID))
		ls->how = BY_ID_POS;
	else
		ls->how = BY_NOTHING;
}

static int cmp_id(const void *a, const void *b)
{
	const struct id_map *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int dup_id(const struct id_map *a, const struct id_map *b, int event,
		  struct err *err)
{
	if (a->event == b->event)
		return err_set(err, -PREC_ECORRUPT, "event %d: id %" PRIu64 " is given twice",
			       event, a->id);
	return err_set(err, -PREC_ECORRUPT, "event %d: id %" PRIu64 " is also given to event %d",
		       event, a->id, a->event == event ? b->event : a->event);
}

/* Merge `n` new ids of `event` into the sorted index; on a duplicate the
 * index is left as it was. */
static int ids_merge(struct record_layouts *ls, const uint64_t *ids, size_t n,
		     int event, struct err *err)
{
	struct id_map *add = NULL, *out = NULL;
	size_t i, j, k, total, bytes;
	int ret = -ENOMEM;

	if (n == 0)
		return 0;
	if (size_add(ls->nr_ids, n, &total) || size_mul(total, sizeof(*out), &bytes))
		goto out;
	add = malloc(n * sizeof(*add));
	out = malloc(bytes);
	if (!add || !out)
		goto out;
	for (i = 0; i < n; i++)
		add[i] = (struct id_map){ ids[i], event };
	qsort(add, n, sizeof(*add), cmp_id);
	for (i = j = k = 0; i < ls->nr_ids || j < n; k++) {
		if (j == n || (i < ls->nr_ids && ls->ids[i].id < add[j].id))
			out[k] = ls->ids[i++];
		else
			out[k] = add[j++];
		if (k && out[k].id == out[k - 1].id) {
			ret = dup_id(&out[k - 1], &out[k], event, err);
			goto out;
		}
	}
	free(ls->ids);
	ls->ids = out;
	ls->nr_ids = total;
	out = NULL;
	ret = 0;
out:
	free(add);
	free(out);
	return ret;
}

static int layouts_grow(struct record_layouts *ls)
{
	size_t cap = ls->cap ? 2 * ls->cap : 4;
	struct event_layout *p;
	struct sample_plan *pl;

	p = array_realloc(ls->ev, cap, sizeof(*p));
	if (!p)
		return -ENOMEM;
	ls->ev = p;
	pl = array_realloc(ls->plans, cap, sizeof(*pl));
	if (!pl)
		return -ENOMEM;
	ls->plans = pl;
	ls->cap = cap;
	return 0;
}

int record_layouts_add(struct record_layouts *ls, const struct event_layout *l,
		       const uint64_t *ids, size_t nr_ids, struct err *err)
{
	int idx, ret;

	if (!ls || !l || (nr_ids && !ids))
		return err_set(err, -EINVAL, "record_layouts_add: missing argument");
	if (ls->nr >= INT_MAX)
		return err_set(err, -PREC_ELIMIT, "too many events");
	if (ls->nr && l->sample_id_all != ls->ev[0].sample_id_all)
		return err_set(err, -PREC_ECORRUPT,
			       "event %zu: sample_id_all differs from event 0", ls->nr);
	if (ls->nr == ls->cap && (ret = layouts_grow(ls)))
		return err_set(err, ret, "cannot add event: out of memory");
	idx = (int)ls->nr;
	ret = ids_merge(ls, ids, nr_ids, idx, err);
	if (ret)
		return ret == -ENOMEM ? err_set(err, ret, "cannot add event ids: out of memory") : ret;
	ls->ev[ls->nr] = *l;
	record__sample_plan(l, &ls->plans[ls->nr++]);
	layouts_update(ls);
	return idx;
}
