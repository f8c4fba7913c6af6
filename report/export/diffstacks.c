/* SPDX-License-Identifier: MIT */
/* The two-column collapsed stacks of a differential; see diffstacks.h. */
#include "diffstacks.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

/* a stack's text (bytes [off, off + len) of text) and its count per side */
struct dline {
	size_t off, len;
	uint64_t w[2];
};

struct diffstacks {
	struct diffstacks_opts o;
	struct buf text;
	struct dline *v;        /* sorted by text, each text once */
	size_t nr;
	uint64_t total[2];
};

struct diffstacks *diffstacks_new(const struct diffstacks_opts *o)
{
	struct diffstacks *d = calloc(1, sizeof(*d));

	if (d)
		d->o = *o;
	return d;
}

void diffstacks_free(struct diffstacks *d)
{
	if (!d)
		return;
	buf_free(&d->text);
	free(d->v);
	free(d);
}

static int cmp_text(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
	int c = memcmp(a, b, na < nb ? na : nb);

	return c ? c : na < nb ? -1 : na > nb;
}

/* one merged line: its text into text, counts as given */
static int put(struct buf *text, struct dline *v, size_t *n, const uint8_t *s, size_t len,
	       uint64_t w_old, uint64_t w_new)
{
	size_t off = text->len;

	if (buf_append(text, s, len))
		return -ENOMEM;
	v[(*n)++] = (struct dline){ off, len, { w_old, w_new } };
	return 0;
}

/* d's lines and fl's (one run of side) merged by text, both being sorted */
int diffstacks_add(struct diffstacks *d, enum diff_side side, const struct stacks *s)
{
	struct folded_lines fl;
	struct buf text = BUF_INIT;
	struct dline *v;
	size_t i = 0, j = 0, n = 0;
	uint64_t sum = 0;
	int ret = folded_lines_build(&fl, s, &d->o.fo);

	if (ret)
		return ret;
	v = calloc(d->nr + fl.nr + 1, sizeof(*v));
	if (!v || buf_reserve(&text, d->text.len + fl.text.len)) {
		ret = -ENOMEM;
		goto out;
	}
	while (!ret && (i < d->nr || j < fl.nr)) {
		const struct dline *a = i < d->nr ? &d->v[i] : NULL;
		const struct folded_line *b = j < fl.nr ? &fl.v[j] : NULL;
		int c = !a ? 1 : !b ? -1 : cmp_text(d->text.data + a->off, a->len,
						     fl.text.data + b->off, b->len);
		uint64_t w[2] = { 0, 0 };

		if (c <= 0)
			memcpy(w, a->w, sizeof(w));
		if (c >= 0) {
			w[side] += b->weight;
			sum += b->weight;
		}
		ret = c <= 0 ? put(&text, v, &n, d->text.data + a->off, a->len, w[0], w[1])
			     : put(&text, v, &n, fl.text.data + b->off, b->len, w[0], w[1]);
		i += c <= 0;
		j += c >= 0;
	}
	if (ret)
		goto out;
	buf_free(&d->text);
	free(d->v);
	d->text = text;
	d->v = v;
	d->nr = n;
	d->total[side] += sum;
	text = (struct buf)BUF_INIT;
	v = NULL;
out:
	buf_free(&text);
	free(v);
	folded_lines_free(&fl);
	return ret;
}

int diffstacks_add_run(struct diffstacks *d, enum diff_side side, const struct stacks *s,
		       bool durations)
{
	bool period = d->o.fo.period;
	int ret;

	d->o.fo.period = period || (durations && !d->o.fo.count);
	ret = diffstacks_add(d, side, s);
	d->o.fo.period = period;
	return ret;
}

/* OLD's count scaled to NEW's total, to the nearest integer (halves up) */
static uint64_t scaled(const struct diffstacks *d, uint64_t w)
{
	unsigned __int128 x;

	if (!d->o.normalize || !d->total[DIFF_OLD] || d->total[DIFF_OLD] == d->total[DIFF_NEW])
		return w;
	x = (unsigned __int128)w * d->total[DIFF_NEW] * 2 + d->total[DIFF_OLD];
	x /= (unsigned __int128)d->total[DIFF_OLD] * 2;
	return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

void diffstacks_totals(const struct diffstacks *d, uint64_t *old, uint64_t *new_)
{
	uint64_t t = 0;

	for (size_t i = 0; i < d->nr; i++)
		t += scaled(d, d->v[i].w[DIFF_OLD]);
	*old = t;
	*new_ = d->total[DIFF_NEW];
}

int diffstacks_write(FILE *out, const struct diffstacks *d)
{
	for (size_t i = 0; i < d->nr; i++) {
		fwrite(d->text.data + d->v[i].off, 1, d->v[i].len, out);
		fprintf(out, " %" PRIu64 " %" PRIu64 "\n", scaled(d, d->v[i].w[DIFF_OLD]),
			d->v[i].w[DIFF_NEW]);
	}
	return ferror(out) ? -EIO : 0;
}

int diffstacks_write_folded(FILE *out, const struct stacks *const *old, size_t nr_old,
			    const struct stacks *const *new_, size_t nr_new,
			    const struct diffstacks_opts *o)
{
	struct diffstacks *d = diffstacks_new(o);
	int ret = d ? 0 : -ENOMEM;

	for (size_t i = 0; i < nr_old && !ret; i++)
		ret = diffstacks_add(d, DIFF_OLD, old[i]);
	for (size_t i = 0; i < nr_new && !ret; i++)
		ret = diffstacks_add(d, DIFF_NEW, new_[i]);
	if (!ret)
		ret = diffstacks_write(out, d);
	diffstacks_free(d);
	return ret;
}
