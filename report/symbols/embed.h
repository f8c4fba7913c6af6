/* SPDX-License-Identifier: MIT */
/*
 * Making a recording self-contained: for every binary its samples hit, what
 * the report needs for the hit addresses (symbols, source lines and inline
 * chains, the unwind-table bytes that DWARF unwinding of its stacks reads,
 * and the code of the functions hit with their line rows: embed_code.h)
 * is added to the file as SYMBOLS blocks (format/embed.h), keyed by build
 * id; with embed_source, the source lines around the lines hit as a SOURCE
 * block (embed_source.h); for a recording without kernel symbols, those of the kernel
 * functions hit (a KALLSYMS block). A report of the file elsewhere then
 * needs none of the binaries.
 *
 * This is the public interface prec uses at the end of a recording (its
 * only use of report/ besides the stat printer, see DESIGN.md), and what
 * `prep archive` runs after making its input a finished prec.data file.
 * The file is read as a report reads it (ordering, machine model, folding,
 * unwinding), so what is embedded is what a report looks up. Nothing is
 * printed: failures come back in err, the rest in the stats; warnings of
 * the reading go to the log (common/log.h) unless quiet.
 */
#ifndef PREC_REPORT_SYMBOLS_EMBED_H
#define PREC_REPORT_SYMBOLS_EMBED_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"

struct embed_opts {
	const char *symfs;      /* look for binaries under this folder (NULL: as recorded) */
	bool quiet;             /* no warnings of the reading to the log */
	int level;              /* compression of the blocks (container_writer_opts) */
	bool embed_source;      /* also a SOURCE block (embed_source.h) */
};

struct embed_stats {
	uint64_t binaries;      /* binaries embedded */
	uint64_t no_file;       /* hit, but no usable file (missing, other build id) */
	uint64_t no_build_id;   /* hit, but without a build id to key them by */
	uint64_t addresses;     /* hit addresses embedded */
	uint64_t symbols;
	uint64_t unwind_bytes;  /* bytes of unwind tables */
	uint64_t code_functions; /* functions hit whose code was embedded (embed_code.h) */
	uint64_t code_bytes;    /* their bytes */
	uint64_t code_left_out; /* functions hit whose code was not: past the bound, unreadable */
	uint64_t source_files;  /* --embed-source: files with lines embedded */
	uint64_t source_lines;
	uint64_t source_unreadable; /* files hit that could not be read */
	uint64_t source_left_out;   /* files past the bound */
	uint64_t counted_addresses; /* sampled addresses of the ADDR_COUNTS block (0: none) */
	uint64_t summed_records; /* records of the SAMPLE_SUMS block (0: none) */
	uint64_t bytes;         /* SYMBOLS payload bytes, before compression */
	uint64_t file_growth;   /* bytes the file grew by */
};

/*
 * Replace the SYMBOLS blocks that end the finished samples file at path by
 * what its samples need now (blocks are appended after the last one and
 * the index rewritten). A file that did not finish (no index), a saved
 * stream and a counting recording are refused. st may be NULL. 0, or a
 * negative code with err set; a failure while writing leaves an index over
 * what was written.
 */
int embed_binaries_hit(const char *path, const struct embed_opts *o, struct embed_stats *st,
		       struct err *err);

#endif
