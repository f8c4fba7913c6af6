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
			o->period = false;
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

struct line {
	size_t off, len;
	uint64_t weight;
};

/* ctx: the text the lines are in */
static int cmp_lines(const void *pa, const void *pb, void *ctx)
{
	const struct line *a = pa, *b = pb;
	const uint8_t *text = ctx;
	int c = memcmp(text + a->off, text + b->off, a->len < b->len ? a->len : b->len);

	if (c)
		return c;
	return a->len < b->len ? -1 : a->len > b->len;
}

int folded_write(FILE *out, const struct stacks *s, const struct folded_opts *o)
{
	struct buf text = BUF_INIT;
	struct line *lines = calloc(s->nr_stacks + 1, sizeof(*lines));
	size_t n = 0;
	int ret = 0;

	if (!lines)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr_stacks && !ret; i++) {
		const struct sstack *st = &s->stacks[i];
		size_t start = text.len;

		if (!o->no_comm && (ret = put_root(&text, st, o)))
			break;
		for (uint32_t j = 0; j < st->nr && !ret; j++) {
			const struct sframe *f = &s->frames[s->ids[st->first + j]];

			if (text.len > start && (ret = buf_append(&text, ";", 1)))
				break;
			ret = put_name(&text, f->name, false);
			if (!ret && o->kernel_mark && f->kind == SF_KERNEL)
				ret = buf_append(&text, "_[k]", 4);
			if (!ret && o->inline_mark && f->kind == SF_INLINE)
				ret = buf_append(&text, "_[i]", 4);
		}
		lines[n++] = (struct line){ start, text.len - start, o->period ? st->period : st->count };
	}
	if (ret)
		goto out;
	if (n)
		qsort_r(lines, n, sizeof(*lines), cmp_lines, text.data);
	for (size_t i = 0; i < n;) {
		uint64_t w = lines[i].weight;
		size_t j = i + 1;

		/* stacks of other threads may read the same */
		while (j < n && !cmp_lines(&lines[i], &lines[j], text.data))
			w += lines[j++].weight;
		if (w) {
			fwrite(text.data + lines[i].off, 1, lines[i].len, out);
			fprintf(out, " %" PRIu64 "\n", w);
		}
		i = j;
	}
	if (ferror(out))
		ret = -EIO;
out:
	free(lines);
	buf_free(&text);
	return ret;
}
