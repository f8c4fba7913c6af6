/* SPDX-License-Identifier: MIT */
/*
 * `prec --embed-source` (and `prep archive --embed-source`): the source
 * lines around each line the samples hit, read from the source files when
 * the recording is made, as one SOURCE block (format/source.h, FORMAT.md
 * 5.10). embed.c gives the hit lines (file and line of every frame of every
 * hit address, inline callers included); the reader side is
 * load_source_line (report/core/load.h).
 *
 * The bound: the lines hit ± EMBED_SOURCE_CONTEXT; a line longer than
 * EMBED_SOURCE_LINE_MAX bytes is cut there; a file larger than
 * EMBED_SOURCE_FILE_MAX is not read; at most EMBED_SOURCE_MAX bytes of text
 * in all: a file whose lines would go past it is left out whole (files in
 * path order). What is left out is counted.
 */
#ifndef PREC_REPORT_SYMBOLS_EMBED_SOURCE_H
#define PREC_REPORT_SYMBOLS_EMBED_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

#define EMBED_SOURCE_CONTEXT 10
#define EMBED_SOURCE_LINE_MAX 1024u
#define EMBED_SOURCE_FILE_MAX (64u * 1024 * 1024)
#define EMBED_SOURCE_MAX (4u * 1024 * 1024)

struct embed_source_hit {
	const char *path;       /* as the line table names it */
	uint32_t line;
};

struct embed_source_stats {
	uint64_t files;         /* files with lines embedded */
	uint64_t lines;
	uint64_t unreadable;    /* files that could not be read (or too large) */
	uint64_t left_out;      /* files past EMBED_SOURCE_MAX */
};

/* The SOURCE payload for these hits (sorted here; duplicates allowed) into
 * out (nothing when no line could be read). 0, -ENOMEM or -E2BIG. */
int embed_source_build(struct embed_source_hit *hits, size_t n, struct buf *out,
		       struct embed_source_stats *st);

#endif
