/* SPDX-License-Identifier: MIT */
/*
 * The SOURCE block (FORMAT.md 5.10, since 1.6): lines of source files as
 * they were when the recording was made (`prec --embed-source`), the lines
 * around those the samples hit, so that `prep annotate` shows source text on
 * a machine without the files. Keyed by the file's path as the binaries'
 * line tables name it.
 *
 * Ownership: source_decode allocates one block of memory holding the struct,
 * its arrays and strings; free it with free() (source_free).
 */
#ifndef PREC_FORMAT_SOURCE_H
#define PREC_FORMAT_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"

#define SOURCE_HEADER_SIZE 16

struct source_file {
	uint32_t path;          /* offset in strings */
	uint32_t first, nr;     /* its lines: lines[first .. first + nr) */
};

struct source_line {
	uint32_t line;          /* 1-based line number */
	uint32_t text;          /* offset in strings: the line without its newline */
};

struct source_block {
	struct source_file *files;      /* sorted by path (strcmp), paths unique */
	struct source_line *lines;      /* of each file: by strictly increasing line */
	uint32_t nr_files, nr_lines;
	const char *strings;            /* strings_len bytes, the last one NUL (or none) */
	uint32_t strings_len;
};

/* Append the payload of b to out. 0, -ENOMEM, or -EINVAL when b breaks a
 * rule above (encoders must not). */
int source_encode(const struct source_block *b, struct buf *out);
/* Check and decode a payload. 0, -ENOMEM, or -PREC_ECORRUPT with err set. */
int source_decode(const uint8_t *p, size_t len, struct source_block **out, struct err *err);
void source_free(struct source_block *b);

/* The text of line `line` of the file at path, or NULL when not there. */
const char *source_find(const struct source_block *b, const char *path, uint32_t line);

#endif
