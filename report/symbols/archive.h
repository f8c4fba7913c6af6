/* SPDX-License-Identifier: MIT */
/*
 * Making a recording self-contained: for every binary its samples hit, what
 * the report needs for the hit addresses (symbols, source lines and inline
 * chains, the unwind-table bytes that DWARF unwinding of its stacks reads)
 * is added to the file as SYMBOLS blocks (format/embed.h), keyed by build
 * id. prec does it when a recording ends; `prep archive` on a file
 * recorded without it.
 */
#ifndef PREC_REPORT_ARCHIVE_H
#define PREC_REPORT_ARCHIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "format/container.h"

struct archive_opts {
	const char *symfs;      /* look for binaries under this folder */
	bool quiet;             /* no warnings to the log */
	int level;              /* compression of the blocks (container_writer_opts) */
	const char *output;     /* a perf.data input is converted to this prec.data file */
};

struct archive_stats {
	uint64_t binaries;      /* binaries embedded */
	uint64_t no_file;       /* hit, but no usable file (missing, other build id) */
	uint64_t no_build_id;   /* hit, but without a build id to key them by */
	uint64_t addresses;     /* hit addresses embedded */
	uint64_t symbols;
	uint64_t unwind_bytes;  /* bytes of unwind tables */
	uint64_t bytes;         /* SYMBOLS payload bytes, before compression */
	uint64_t file_growth;   /* bytes the file grew by */
	struct container_repair_stats repair;  /* a file cut short, or a saved
						  stream, made a finished file first */
};

/* Replace the SYMBOLS blocks of the finished samples file at path by what
 * its samples need now. A samples file whose recording did not finish, or a
 * saved stream, is first made a finished file (container_repair()). A perf.data file is first written as the prec.data
 * file o->output (its events, metadata, records in time order and build
 * ids), which then gets them. 0, or a negative code with err set. */
int archive_file(const char *path, const struct archive_opts *o, struct archive_stats *st,
		 struct err *err);

/* `prep archive [-i FILE] [--symfs DIR] [-q]` */
int cmd_archive(int argc, char **argv);

#endif
