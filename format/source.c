/* SPDX-License-Identifier: MIT */
/* The SOURCE block payload; see source.h and FORMAT.md 5.10. */
#include "source.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define FILE_SIZE 12
#define LINE_SIZE 8

/* The rules of FORMAT.md 5.10 beyond the lengths; NULL when b keeps them. */
static const char *check(const struct source_block *b)
{
	if (b->strings_len && b->strings[b->strings_len - 1])
		return "string table does not end with NUL";
	for (uint32_t i = 0; i < b->nr_files; i++) {
		const struct source_file *f = &b->files[i];

		if (f->path >= b->strings_len)
			return "path outside the string table";
		if (i && strcmp(b->strings + b->files[i - 1].path, b->strings + f->path) >= 0)
			return "files not sorted by path, or one twice";
		if (f->first > b->nr_lines || f->nr > b->nr_lines - f->first)
			return "file lines outside the line table";
		for (uint32_t j = f->first; j < f->first + f->nr; j++) {
			if (b->lines[j].text >= b->strings_len)
				return "line text outside the string table";
			if (!b->lines[j].line || (j > f->first && b->lines[j].line <= b->lines[j - 1].line))
				return "line numbers not increasing from 1";
		}
	}
	return NULL;
}

int source_encode(const struct source_block *b, struct buf *out)
{
	uint8_t h[SOURCE_HEADER_SIZE] = { 0 }, e[FILE_SIZE];
	int ret;

	if (check(b))
		return -EINVAL;
	le_put32(h, b->nr_files);
	le_put32(h + 4, b->nr_lines);
	le_put32(h + 8, b->strings_len);
	ret = buf_append(out, h, sizeof(h));
	for (uint32_t i = 0; !ret && i < b->nr_files; i++) {
		le_put32(e, b->files[i].path);
		le_put32(e + 4, b->files[i].first);
		le_put32(e + 8, b->files[i].nr);
		ret = buf_append(out, e, FILE_SIZE);
	}
	for (uint32_t i = 0; !ret && i < b->nr_lines; i++) {
		le_put32(e, b->lines[i].line);
		le_put32(e + 4, b->lines[i].text);
		ret = buf_append(out, e, LINE_SIZE);
	}
	return ret ? ret : buf_append(out, b->strings, b->strings_len);
}

int source_decode(const uint8_t *p, size_t len, struct source_block **out, struct err *err)
{
	uint64_t nf, nl, ns, need;
	struct source_block *b;
	const char *why;
	uint8_t *mem;

	*out = NULL;
	if (len < SOURCE_HEADER_SIZE)
		return err_set(err, -PREC_ECORRUPT, "SOURCE block: shorter than its header");
	nf = le_get32(p);
	nl = le_get32(p + 4);
	ns = le_get32(p + 8);
	need = SOURCE_HEADER_SIZE + nf * FILE_SIZE + nl * LINE_SIZE + ns;
	if (need != len)
		return err_set(err, -PREC_ECORRUPT, "SOURCE block: %zu bytes, its counts say %llu",
			       len, (unsigned long long)need);
	if (le_get32(p + 12))
		return err_set(err, -PREC_ECORRUPT, "SOURCE block: reserved bytes not 0");
	mem = malloc(sizeof(*b) + nf * sizeof(*b->files) + nl * sizeof(*b->lines) + ns);
	if (!mem)
		return err_set(err, -ENOMEM, "out of memory");
	b = (struct source_block *)mem;
	b->nr_files = (uint32_t)nf;
	b->nr_lines = (uint32_t)nl;
	b->strings_len = (uint32_t)ns;
	b->files = (struct source_file *)(mem + sizeof(*b));
	b->lines = (struct source_line *)(b->files + nf);
	p += SOURCE_HEADER_SIZE;
	for (uint64_t i = 0; i < nf; i++, p += FILE_SIZE)
		b->files[i] = (struct source_file){ le_get32(p), le_get32(p + 4), le_get32(p + 8) };
	for (uint64_t i = 0; i < nl; i++, p += LINE_SIZE)
		b->lines[i] = (struct source_line){ le_get32(p), le_get32(p + 4) };
	memcpy(b->lines + nl, p, ns);
	b->strings = (const char *)(b->lines + nl);
	why = check(b);
	if (why) {
		free(b);
		return err_set(err, -PREC_ECORRUPT, "SOURCE block: %s", why);
	}
	*out = b;
	return 0;
}

void source_free(struct source_block *b)
{
	free(b);
}

const char *source_find(const struct source_block *b, const char *path, uint32_t line)
{
	size_t lo = 0, hi = b->nr_files;
	const struct source_file *f;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(b->strings + b->files[mid].path, path);

		if (!c) {
			lo = mid;
			break;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= b->nr_files || strcmp(b->strings + b->files[lo].path, path))
		return NULL;
	f = &b->files[lo];
	lo = f->first;
	hi = (size_t)f->first + f->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->lines[mid].line < line)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < (size_t)f->first + f->nr && b->lines[lo].line == line ?
	       b->strings + b->lines[lo].text : NULL;
}
