/* SPDX-License-Identifier: MIT */
/* The ADDR_COUNTS block payload; see addrcounts.h and FORMAT.md 5.11. */
#include "addrcounts.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"

/* ---- the rules beyond the lengths -------------------------------------- */

struct seen {
	const struct addrcounts *c;
	uint32_t i;             /* the dso or entry asked about */
};

static bool path_eq(void *ctx, uint32_t j)
{
	const struct seen *s = ctx;

	return !strcmp(s->c->strings + s->c->dsos[j].path, s->c->strings + s->c->dsos[s->i].path);
}

static bool entry_eq(void *ctx, uint32_t j)
{
	const struct seen *s = ctx;
	const struct addrcounts_entry *a = &s->c->entries[j], *b = &s->c->entries[s->i];

	return a->addr == b->addr && a->dso == b->dso && a->event == b->event &&
	       a->flags == b->flags;
}

static uint64_t entry_hash(const struct addrcounts_entry *e)
{
	return hash_combine(hash_combine(hash_u64(e->addr), e->dso),
			    (uint64_t)e->event << 8 | e->flags);
}

static const char *check_dsos(const struct addrcounts *c, struct hmap *idx)
{
	struct seen s = { c, 0 };

	for (s.i = 0; s.i < c->nr_dsos; s.i++) {
		const struct addrcounts_dso *d = &c->dsos[s.i];
		uint64_t h;
		uint32_t j;

		if (d->path >= c->strings_len || !c->strings[d->path])
			return "binary path outside the string table, or empty";
		if (d->build_id_size > sizeof(d->build_id))
			return "build id longer than 64 bytes";
		h = hash_bytes(c->strings + d->path, strlen(c->strings + d->path), 11);
		if (hmap_find(idx, h, path_eq, &s, &j))
			return "a binary path twice";
		if (hmap_insert(idx, h, s.i))
			return "";
	}
	return NULL;
}

static const char *check_entries(const struct addrcounts *c, struct hmap *idx,
				 struct addrcounts_event *sum)
{
	struct seen s = { c, 0 };

	for (s.i = 0; s.i < c->nr_entries; s.i++) {
		const struct addrcounts_entry *e = &c->entries[s.i];
		uint64_t h = entry_hash(e);
		uint32_t j;

		if (e->dso != ADDRCOUNTS_NONE && e->dso >= c->nr_dsos)
			return "entry names a binary that is not there";
		if (e->event >= c->nr_events)
			return "entry names an event that is not there";
		if (e->flags & ~ADDRCOUNTS_KERNEL)
			return "entry flags not defined";
		if (!e->samples)
			return "entry without samples";
		if (hmap_find(idx, h, entry_eq, &s, &j))
			return "an address twice";
		if (hmap_insert(idx, h, s.i))
			return "";
		sum[e->event].samples += e->samples;
		sum[e->event].period += e->period;
	}
	for (uint32_t i = 0; i < c->nr_events; i++)
		if (sum[i].samples != c->events[i].samples || sum[i].period != c->events[i].period)
			return "event totals are not the sums of its entries";
	return NULL;
}

/* NULL when c keeps the rules of FORMAT.md 5.11; "" when out of memory. */
static const char *check(const struct addrcounts *c)
{
	struct hmap idx = HMAP_INIT;
	struct addrcounts_event *sum;
	const char *why = NULL;

	if (c->strings_len && c->strings[c->strings_len - 1])
		return "string table does not end with NUL";
	if (c->nr_events > ADDRCOUNTS_MAX_EVENTS)
		return "more than 65536 events";
	sum = calloc(c->nr_events ? c->nr_events : 1, sizeof(*sum));
	if (!sum)
		return "";
	why = check_dsos(c, &idx);
	hmap_free(&idx);
	idx = (struct hmap)HMAP_INIT;
	if (!why)
		why = check_entries(c, &idx, sum);
	hmap_free(&idx);
	free(sum);
	return why;
}

/* ---- encoding ------------------------------------------------------------ */

int addrcounts_encode(const struct addrcounts *c, struct buf *out)
{
	uint8_t h[ADDRCOUNTS_HEADER_SIZE] = { 0 }, e[ADDRCOUNTS_DSO_SIZE];
	const char *why = check(c);
	int ret;

	if (why)
		return *why ? -EINVAL : -ENOMEM;
	le_put64(h, c->covered_end);
	le_put32(h + 8, c->covered_crc);
	le_put32(h + 12, c->nr_dsos);
	le_put32(h + 16, c->nr_events);
	le_put32(h + 20, c->nr_entries);
	le_put32(h + 24, c->strings_len);
	ret = buf_append(out, h, sizeof(h));
	for (uint32_t i = 0; !ret && i < c->nr_dsos; i++) {
		const struct addrcounts_dso *d = &c->dsos[i];

		memset(e, 0, sizeof(e));
		le_put32(e, d->path);
		e[4] = d->build_id_size;
		memcpy(e + 8, d->build_id, d->build_id_size);
		ret = buf_append(out, e, ADDRCOUNTS_DSO_SIZE);
	}
	for (uint32_t i = 0; !ret && i < c->nr_events; i++) {
		le_put64(e, c->events[i].samples);
		le_put64(e + 8, c->events[i].period);
		ret = buf_append(out, e, ADDRCOUNTS_EVENT_SIZE);
	}
	for (uint32_t i = 0; !ret && i < c->nr_entries; i++) {
		const struct addrcounts_entry *x = &c->entries[i];

		le_put64(e, x->addr);
		le_put64(e + 8, x->samples);
		le_put64(e + 16, x->period);
		le_put32(e + 24, x->dso);
		le_put16(e + 28, x->event);
		e[30] = x->flags;
		e[31] = 0;
		ret = buf_append(out, e, ADDRCOUNTS_ENTRY_SIZE);
	}
	return ret ? ret : buf_append(out, c->strings, c->strings_len);
}

/* ---- decoding ------------------------------------------------------------ */

static bool zeros(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* The dsos' bytes into c->dsos: NULL, or what breaks a rule. */
static const char *read_dsos(struct addrcounts *c, const uint8_t *p)
{
	for (uint32_t i = 0; i < c->nr_dsos; i++, p += ADDRCOUNTS_DSO_SIZE) {
		struct addrcounts_dso *d = &c->dsos[i];

		d->path = le_get32(p);
		d->build_id_size = p[4];
		if (!zeros(p + 5, 3))
			return "reserved bytes of a binary not 0";
		if (d->build_id_size > sizeof(d->build_id) ||
		    !zeros(p + 8 + d->build_id_size, sizeof(d->build_id) - d->build_id_size))
			return "build id longer than its size says";
		memcpy(d->build_id, p + 8, sizeof(d->build_id));
	}
	return NULL;
}

int addrcounts_decode(const uint8_t *p, size_t len, struct addrcounts **out, struct err *err)
{
	const uint8_t *base = p;
	uint64_t nd, ne, nx, ns, need;
	struct addrcounts *c;
	const char *why;
	uint8_t *mem;

	*out = NULL;
	if (len < ADDRCOUNTS_HEADER_SIZE)
		return err_set(err, -PREC_ECORRUPT, "ADDR_COUNTS block: shorter than its header");
	nd = le_get32(p + 12);
	ne = le_get32(p + 16);
	nx = le_get32(p + 20);
	ns = le_get32(p + 24);
	need = ADDRCOUNTS_HEADER_SIZE + nd * ADDRCOUNTS_DSO_SIZE + ne * ADDRCOUNTS_EVENT_SIZE +
	       nx * ADDRCOUNTS_ENTRY_SIZE + ns;
	if (need != len)
		return err_set(err, -PREC_ECORRUPT, "ADDR_COUNTS block: %zu bytes, its counts say %llu",
			       len, (unsigned long long)need);
	if (le_get32(p + 28))
		return err_set(err, -PREC_ECORRUPT, "ADDR_COUNTS block: reserved bytes not 0");
	mem = malloc(sizeof(*c) + nd * sizeof(*c->dsos) + ne * sizeof(*c->events) +
		     nx * sizeof(*c->entries) + ns);
	if (!mem)
		return err_set(err, -ENOMEM, "out of memory");
	c = (struct addrcounts *)mem;
	c->covered_end = le_get64(p);
	c->covered_crc = le_get32(p + 8);
	c->nr_dsos = (uint32_t)nd;
	c->nr_events = (uint32_t)ne;
	c->nr_entries = (uint32_t)nx;
	c->strings_len = (uint32_t)ns;
	c->dsos = (struct addrcounts_dso *)(mem + sizeof(*c));
	c->events = (struct addrcounts_event *)(c->dsos + nd);
	c->entries = (struct addrcounts_entry *)(c->events + ne);
	p += ADDRCOUNTS_HEADER_SIZE;
	why = read_dsos(c, p);
	p += nd * ADDRCOUNTS_DSO_SIZE;
	for (uint64_t i = 0; i < ne; i++, p += ADDRCOUNTS_EVENT_SIZE)
		c->events[i] = (struct addrcounts_event){ le_get64(p), le_get64(p + 8) };
	for (uint64_t i = 0; !why && i < nx; i++, p += ADDRCOUNTS_ENTRY_SIZE) {
		c->entries[i] = (struct addrcounts_entry){ le_get64(p), le_get64(p + 8), le_get64(p + 16),
							   le_get32(p + 24), le_get16(p + 28), p[30] };
		if (p[31])
			why = "reserved byte of an entry not 0";
	}
	memcpy(c->entries + nx, base + len - ns, ns);
	c->strings = (const char *)(c->entries + nx);
	if (!why)
		why = check(c);
	if (why) {
		free(c);
		if (!*why)
			return err_set(err, -ENOMEM, "out of memory");
		return err_set(err, -PREC_ECORRUPT, "ADDR_COUNTS block: %s", why);
	}
	*out = c;
	return 0;
}

void addrcounts_free(struct addrcounts *c)
{
	free(c);
}
