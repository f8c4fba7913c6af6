/* SPDX-License-Identifier: MIT */
/*
 * The arena, sorted symbol tables and warnings of symtab.h.
 */
#include "symtab.h"

#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

/* ---- arena ------------------------------------------------------------ */

#define ARENA_CHUNK (64 * 1024)

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

void *arena_alloc(struct arena *a, size_t size)
{
	struct arena_chunk *c = a->head;
	size_t need = (size + 15) & ~(size_t)15;

	if (need < size)
		return NULL;
	if (!c || c->cap - c->used < need) {
		size_t cap = need > ARENA_CHUNK / 4 ? need : ARENA_CHUNK;

		if (cap > SIZE_MAX - sizeof(*c))
			return NULL;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		if (cap == ARENA_CHUNK || !a->head) {
			c->next = a->head;
			a->head = c;
		} else {
			/* a big one-off: keep the current chunk on top for small strings */
			c->next = a->head->next;
			a->head->next = c;
		}
	}
	c->used += need;
	return c->data + c->used - need;
}

char *arena_strndup(struct arena *a, const char *p, size_t n)
{
	char *q = n + 1 ? arena_alloc(a, n + 1) : NULL;

	if (q) {
		memcpy(q, p, n);
		q[n] = 0;
	}
	return q;
}

char *arena_strdup(struct arena *a, const char *p)
{
	return arena_strndup(a, p, strlen(p));
}

void arena_free(struct arena *a)
{
	while (a->head) {
		struct arena_chunk *c = a->head;

		a->head = c->next;
		free(c);
	}
}

/* ---- warnings --------------------------------------------------------- */

void sym_warn(const struct sym_warner *w, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!w->fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	w->fn(w->ctx, msg);
}

/* ---- sorted symbol tables -------------------------------------------- */

static unsigned leading_underscores(const char *p)
{
	unsigned n = 0;

	while (p[n] == '_')
		n++;
	return n;
}

/*
 * Of two symbols at the same address, whether a is the one to keep. The
 * order is perf's choose_best_symbol(): a symbol with a size over one
 * without, a typed symbol over STT_NOTYPE, non-weak over weak, global over
 * local, fewer leading underscores, then the longer name. On a full tie
 * perf keeps the one met first in the symbol table, and so do we.
 */
bool sym_better(const struct rawsym *a, const struct rawsym *b)
{
	size_t la, lb;
	unsigned ua, ub;

	if ((a->size > 0) != (b->size > 0))
		return a->size > 0;
	if (a->type != b->type && (a->type == STT_NOTYPE || b->type == STT_NOTYPE))
		return b->type == STT_NOTYPE;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return b->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL;
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la > lb;
	return a->seq <= b->seq;
}

int rawsyms_push(struct rawsyms *r, const struct rawsym *s)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;
		struct rawsym *v;

		if (cap > SIZE_MAX / sizeof(*v))
			return -ENOMEM;
		v = array_realloc(r->v, cap, sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n] = *s;
	r->v[r->n].seq = (uint32_t)r->n;
	r->n++;
	return 0;
}

static int rawsym_cmp(const void *pa, const void *pb)
{
	const struct rawsym *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

struct start_key {
	uint64_t start;
	uint32_t i;
};

/* r->v ordered by (start, seq) as rawsym_cmp orders them: a stable radix
 * sort on start, seq being the arrival order (a tenth of qsort's time on
 * the 26k symbols of libpython). 0, or -ENOMEM with r->v as it was. */
static int sort_by_start(struct rawsyms *r)
{
	struct start_key *k = malloc(2 * r->n * sizeof(*k)), *a, *b, *t;
	struct rawsym *v = malloc(r->n * sizeof(*v));
	size_t count[256];

	if (!k || !v) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	a = k;
	b = k + r->n;
	for (size_t i = 0; i < r->n; i++)
		a[i] = (struct start_key){ r->v[i].start, (uint32_t)i };
	for (unsigned shift = 0; shift < 64; shift += 8) {
		size_t sum = 0;

		memset(count, 0, sizeof(count));
		for (size_t i = 0; i < r->n; i++)
			count[(a[i].start >> shift) & 0xff]++;
		if (count[(a[0].start >> shift) & 0xff] == r->n)
			continue;       /* this byte is the same in all */
		for (size_t c = 0; c < 256; c++) {
			size_t here = count[c];

			count[c] = sum;
			sum += here;
		}
		for (size_t i = 0; i < r->n; i++)
			b[count[(a[i].start >> shift) & 0xff]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	for (size_t i = 0; i < r->n; i++)
		v[i] = r->v[a[i].i];
	free(r->v);
	r->v = v;
	r->cap = r->n;
	free(k);
	return 0;
}

int rawsyms_finish(struct rawsyms *r, struct symtab *out, const char ***aux_out)
{
	struct sym *v = NULL;
	const char **aux = NULL;
	size_t n = 0;

	out->v = NULL;
	out->n = 0;
	if (aux_out)
		*aux_out = NULL;
	if (!r->n)
		goto done;
	if (sort_by_start(r))
		qsort(r->v, r->n, sizeof(*r->v), rawsym_cmp);
	v = calloc(r->n, sizeof(*v));
	if (aux_out)
		aux = calloc(r->n, sizeof(*aux));
	if (!v || (aux_out && !aux)) {
		free(v);
		free(aux);
		free(r->v);
		r->v = NULL;
		r->n = r->cap = 0;
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->n;) {
		size_t best = i, j = i + 1;

		for (; j < r->n && r->v[j].start == r->v[i].start; j++)
			if (sym_better(&r->v[j], &r->v[best]))
				best = j;
		/* zero size: up to the next symbol, never past the section */
		if (!r->v[best].size) {
			uint64_t end = j < r->n ? r->v[j].start : r->v[best].limit;

			if (r->v[best].limit > r->v[best].start && r->v[best].limit < end)
				end = r->v[best].limit;
			if (end > r->v[best].start)
				r->v[best].size = end - r->v[best].start;
		}
		v[n].start = r->v[best].start;
		v[n].size = r->v[best].size;
		v[n].name = r->v[best].name;
		if (aux)
			aux[n] = r->v[best].aux;
		n++;
		i = j;
	}
done:
	free(r->v);
	r->v = NULL;
	r->n = r->cap = 0;
	out->v = v;
	out->n = n;
	if (aux_out)
		*aux_out = aux;
	return 0;
}

/* The symbol covering addr: the nearest start at or below it, or, when that
 * one ends before addr, an enclosing one a few entries further back. */
const struct sym *symtab_find(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = 0; k < 8 && lo > k; k++) {
		const struct sym *s = &t->v[lo - 1 - k];

		if (addr - s->start < s->size)
			return s;
	}
	return NULL;
}
