/* SPDX-License-Identifier: MIT */
/* The SOURCE block of `--embed-source`: reading the lines around the hit
 * lines from the source files, within the bound; see embed_source.h. */
#include "embed_source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/source.h"

struct src {
	struct buf strings;
	struct source_file *files;
	struct source_line *lines;
	size_t nr_files, cap_files, nr_lines, cap_lines;
};

static int cmp_hit(const void *pa, const void *pb)
{
	const struct embed_source_hit *a = pa, *b = pb;
	int c = strcmp(a->path, b->path);

	return c ? c : a->line < b->line ? -1 : a->line > b->line;
}

/* The whole file at path (NUL-terminated), or NULL. */
static char *slurp(const char *path, size_t *len)
{
	struct stat st;
	FILE *f = fopen(path, "rb");
	char *p = NULL;

	if (f && !fstat(fileno(f), &st) && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size <= EMBED_SOURCE_FILE_MAX &&
	    (p = malloc((size_t)st.st_size + 1))) {
		*len = fread(p, 1, (size_t)st.st_size, f);
		p[*len] = 0;
	}
	if (f)
		fclose(f);
	return p;
}

static int add_line(struct src *s, uint32_t no, const char *p, size_t n)
{
	if (n > EMBED_SOURCE_LINE_MAX)
		n = EMBED_SOURCE_LINE_MAX;
	if (n && p[n - 1] == '\r')
		n--;
	if (s->strings.len > UINT32_MAX - n - 1)
		return -E2BIG;
	if (array_grow((void **)&s->lines, &s->cap_lines, s->nr_lines + 1, sizeof(*s->lines)))
		return -ENOMEM;
	s->lines[s->nr_lines++] = (struct source_line){ no, (uint32_t)s->strings.len };
	if (buf_append(&s->strings, p, n) || buf_append_zero(&s->strings, 1))
		return -ENOMEM;
	return 0;
}

/* The wanted lines of one file (hits h[0..n), sorted): 1 added, 0 not. */
static int add_file(struct src *s, const struct embed_source_hit *h, size_t n,
		    struct embed_source_stats *st)
{
	size_t len = 0, strings0 = s->strings.len, lines0 = s->nr_lines, k = 0;
	char *text = slurp(h[0].path, &len), *p;
	uint32_t no = 1, path;
	int ret = 0;

	if (!text) {
		st->unreadable++;
		return 0;
	}
	path = (uint32_t)s->strings.len;
	ret = buf_append(&s->strings, h[0].path, strlen(h[0].path) + 1) ? -ENOMEM : 0;
	/* walk the lines once; a line is wanted when a hit is within CONTEXT */
	for (p = text; !ret && p < text + len && k < n; no++) {
		char *nl = memchr(p, '\n', (size_t)(text + len - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(text + len - p);

		while (k < n && h[k].line + (uint64_t)EMBED_SOURCE_CONTEXT < no)
			k++;
		if (k < n && no + (uint64_t)EMBED_SOURCE_CONTEXT >= h[k].line)
			ret = add_line(s, no, p, ll);
		p += ll + 1;
	}
	free(text);
	if (!ret && s->nr_lines > lines0 && s->strings.len <= EMBED_SOURCE_MAX &&
	    !array_grow((void **)&s->files, &s->cap_files, s->nr_files + 1, sizeof(*s->files))) {
		s->files[s->nr_files++] = (struct source_file){ path, (uint32_t)lines0,
								(uint32_t)(s->nr_lines - lines0) };
		st->files++;
		st->lines += s->nr_lines - lines0;
		return 1;
	}
	if (!ret && s->nr_lines > lines0 && s->strings.len > EMBED_SOURCE_MAX)
		st->left_out++;
	s->strings.len = strings0;
	s->nr_lines = lines0;
	return ret;
}

int embed_source_build(struct embed_source_hit *hits, size_t n, struct buf *out,
		       struct embed_source_stats *st)
{
	struct src s = { .strings = BUF_INIT };
	struct source_block b;
	int ret = 0;

	if (n > 1)
		qsort(hits, n, sizeof(*hits), cmp_hit);
	for (size_t i = 0, j; ret >= 0 && i < n; i = j) {
		for (j = i; j < n && !strcmp(hits[j].path, hits[i].path); j++)
			;
		if (hits[i].path[0])
			ret = add_file(&s, hits + i, j - i, st);
	}
	if (ret >= 0 && s.nr_files) {
		b = (struct source_block){ s.files, s.lines, (uint32_t)s.nr_files,
					   (uint32_t)s.nr_lines, (const char *)s.strings.data,
					   (uint32_t)s.strings.len };
		ret = source_encode(&b, out);
	}
	buf_free(&s.strings);
	free(s.files);
	free(s.lines);
	return ret < 0 ? ret : 0;
}
