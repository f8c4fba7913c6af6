// SPDX-License-Identifier: MIT
/*
 * srctext_line(): source files read whole once, with an index of where
 * each line starts, and paths remapped by --prefix / --prefix-strip.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "srctext.h"

struct src_file {
	char *path;             /* as asked */
	char *text;             /* NULL: could not be read */
	size_t len;
	size_t *starts;         /* of each line */
	size_t nr_lines;
};

struct srctext {
	const char *prefix;
	unsigned strip;
	struct src_file *files;
	size_t nr, cap;
	srctext_embedded_fn embedded;   /* lines the recording embedded */
	const void *embedded_ctx;
};

struct srctext *srctext_new(const char *prefix, unsigned strip)
{
	struct srctext *st = calloc(1, sizeof(*st));

	if (st) {
		st->prefix = prefix;
		st->strip = strip;
	}
	return st;
}

void srctext_free(struct srctext *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nr; i++) {
		free(st->files[i].path);
		free(st->files[i].text);
		free(st->files[i].starts);
	}
	free(st->files);
	free(st);
}

/* The path to open: strip leading folders, then the prefix. */
static void remap(const struct srctext *st, const char *path, char *out, size_t size)
{
	const char *p = path;

	for (unsigned i = 0; i < st->strip; i++) {
		const char *s = strchr(p[0] == '/' ? p + 1 : p, '/');

		if (!s)
			break;
		p = s;
	}
	if (st->prefix && *st->prefix)
		snprintf(out, size, "%s%s%s", st->prefix, p[0] == '/' ? "" : "/", p);
	else
		snprintf(out, size, "%s", p);
}

static void src_load(const struct srctext *st, struct src_file *f)
{
	char path[4096];
	FILE *in;
	long n;

	remap(st, f->path, path, sizeof(path));
	in = fopen(path, "rb");
	if (!in)
		return;
	if (fseek(in, 0, SEEK_END) || (n = ftell(in)) < 0 || fseek(in, 0, SEEK_SET) ||
	    !(f->text = malloc((size_t)n + 1)) || fread(f->text, 1, (size_t)n, in) != (size_t)n) {
		free(f->text);
		f->text = NULL;
		fclose(in);
		return;
	}
	fclose(in);
	f->len = (size_t)n;
	f->text[n] = '\n';
	f->starts = malloc(sizeof(*f->starts) * ((size_t)n + 2));
	if (!f->starts) {
		free(f->text);
		f->text = NULL;
		return;
	}
	f->starts[f->nr_lines++] = 0;
	for (size_t i = 0; i < f->len; i++)
		if (f->text[i] == '\n')
			f->starts[f->nr_lines++] = i + 1;
	if (f->len && f->text[f->len - 1] != '\n')
		f->starts[f->nr_lines++] = f->len + 1;      /* the sentinel newline */
}

static struct src_file *src_find(struct srctext *st, const char *path)
{
	struct src_file *f;

	for (size_t i = 0; i < st->nr; i++)
		if (!strcmp(st->files[i].path, path))
			return &st->files[i];
	if (array_grow((void **)&st->files, &st->cap, st->nr + 1, sizeof(*st->files)))
		return NULL;
	f = &st->files[st->nr];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	st->nr++;
	src_load(st, f);
	return f;
}

void srctext_set_embedded(struct srctext *st, srctext_embedded_fn fn, const void *ctx)
{
	st->embedded = fn;
	st->embedded_ctx = ctx;
}

const char *srctext_line(struct srctext *st, const char *path, unsigned line, size_t *len)
{
	const char *t = st->embedded && path ? st->embedded(st->embedded_ctx, path, line) : NULL;
	struct src_file *f;
	size_t a, b;

	if (t) {
		*len = strlen(t);
		return t;
	}
	f = path ? src_find(st, path) : NULL;
	if (!f || !f->text || !line || line >= f->nr_lines)
		return NULL;
	a = f->starts[line - 1];
	b = f->starts[line] - 1;
	if (b > a && f->text[b - 1] == '\r')
		b--;
	*len = b - a;
	return f->text + a;
}
