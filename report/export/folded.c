/* SPDX-License-Identifier: MIT */
/* Collapsed stacks for FlameGraph; see folded.h. */
#include "folded.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

int folded_parse(const char *arg, struct folded_opts *o, struct err *err)
{
	char buf[256];
	char *save = NULL;

	if (!arg)
		return 0;
	if (strlen(arg) >= sizeof(buf))
		return err_set(err, -EINVAL, "value too long");
	snprintf(buf, sizeof(buf), "%s", arg);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "period"))
			o->period = true;
		else if (!strcmp(t, "count"))
			o->period = false, o->count = true;
		else if (!strcmp(t, "pid"))
			o->pid = true;
		else if (!strcmp(t, "tid"))
			o->tid = true;
		else if (!strcmp(t, "kernel"))
			o->kernel_mark = true;
		else if (!strcmp(t, "inline"))
			o->inline_mark = true;
		else if (!strcmp(t, "no-comm"))
			o->no_comm = true;
		else
			return err_set(err, -EINVAL, "'%s' is not period, count, pid, tid, kernel, "
				       "inline or no-comm", t);
	}
	return 0;
}

/* a name as one frame of a line: ';' separates frames, '\n' lines */
static int put_name(struct buf *b, const char *s, bool spaces)
{
	size_t n = strlen(s);

	if (buf_reserve(b, n))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == ';')
			c = ':';
		else if (c == '\n' || c == '\r' || (spaces && c == ' '))
			c = spaces ? '_' : ' ';
		b->data[b->len++] = (uint8_t)c;
	}
	return 0;
}

static int put_root(struct buf *b, const struct sstack *st, const struct folded_opts *o)
{
	char ids[48];

	if (put_name(b, st->comm ? st->comm : "", true))
		return -ENOMEM;
	if (o->tid)
		snprintf(ids, sizeof(ids), "-%u/%u", st->thread->pid, st->thread->tid);
	else if (o->pid)
		snprintf(ids, sizeof(ids), "-%u", st->thread->pid);
	else
		ids[0] = 0;
	return buf_append(b, ids, strlen(ids));
}

/* ctx: the text the lines are in */
static int cmp_lines(const void *pa, const void *pb, void *ctx)
{
	const struct folded_line *a = pa, *b = pb;
	const uint8_t *text = ctx;
	int c = memcmp(text + a->off, text + b->off, a->len < b->len ? a->len : b->len);

	if (c)
		return c;
	return a->len < b->len ? -1 : a->len > b->len;
}

void folded_lines_free(struct folded_lines *fl)
{
	if (!fl)
		return;
	free(fl->v);
	buf_free(&fl->text);
	memset(fl, 0, sizeof(*fl));
}

/* the line of one stack into fl->text */
static int put_line(struct buf *text, const struct stacks *s, const struct sstack *st,
		    const struct folded_opts *o)
{
	size_t start = text->len;
	int ret = 0;

	if (!o->no_comm && (ret = put_root(text, st, o)))
		return ret;
	for (uint32_t j = 0; j < st->nr && !ret; j++) {
		const struct sframe *f = &s->frames[s->ids[st->first + j]];

		if (text->len > start && (ret = buf_append(text, ";", 1)))
			break;
		ret = put_name(text, f->name, false);
		if (!ret && o->kernel_mark && f->kind == SF_KERNEL)
			ret = buf_append(text, "_[k]", 4);
		if (!ret && o->inline_mark && f->kind == SF_INLINE)
			ret = buf_append(text, "_[i]", 4);
	}
	return ret;
}

int folded_lines_build(struct folded_lines *fl, const struct stacks *s, const struct folded_opts *o)
{
	size_t n = 0, k = 0;
	int ret = 0;

	memset(fl, 0, sizeof(*fl));
	fl->v = calloc(s->nr_stacks + 1, sizeof(*fl->v));
	if (!fl->v)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr_stacks && !ret; i++) {
		const struct sstack *st = &s->stacks[i];
		size_t start = fl->text.len;

		ret = put_line(&fl->text, s, st, o);
		fl->v[n++] = (struct folded_line){ start, fl->text.len - start,
						   o->period ? st->period : st->count };
	}
	if (ret) {
		folded_lines_free(fl);
		return ret;
	}
	if (n)
		qsort_r(fl->v, n, sizeof(*fl->v), cmp_lines, fl->text.data);
	/* stacks of other threads may read the same: one line, their sum */
	for (size_t i = 0; i < n;) {
		struct folded_line l = fl->v[i];
		size_t j = i + 1;

		while (j < n && !cmp_lines(&fl->v[i], &fl->v[j], fl->text.data))
			l.weight += fl->v[j++].weight;
		if (l.weight)
			fl->v[k++] = l;
		i = j;
	}
	fl->nr = k;
	return 0;
}

int folded_write(FILE *out, const struct stacks *s, const struct folded_opts *o)
{
	struct folded_lines fl;
	int ret = folded_lines_build(&fl, s, o);

	if (ret)
		return ret;
	for (size_t i = 0; i < fl.nr; i++) {
		fwrite(fl.text.data + fl.v[i].off, 1, fl.v[i].len, out);
		fprintf(out, " %" PRIu64 "\n", fl.v[i].weight);
	}
	if (ferror(out))
		ret = -EIO;
	folded_lines_free(&fl);
	return ret;
}
