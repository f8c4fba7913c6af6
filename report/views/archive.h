/* SPDX-License-Identifier: MIT */
/*
 * `prep archive`: a recording made self-contained after the fact, for a
 * file recorded with --no-embed, one cut short (repaired first), a saved
 * stream, or a perf.data file (converted to a prec.data file first). The
 * embedding is report/symbols/embed.h, as prec does it when a recording
 * ends.
 */
#ifndef PREC_REPORT_ARCHIVE_H
#define PREC_REPORT_ARCHIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "format/container.h"
#include "report/symbols/embed.h"

struct archive_opts {
	const char *symfs;      /* look for binaries under this folder */
	bool quiet;             /* no warnings to the log */
	int level;              /* compression of the blocks (container_writer_opts) */
	const char *output;     /* a perf.data input is converted to this prec.data file */
	bool embed_source;      /* --embed-source */
};

struct archive_stats {
	struct embed_stats embed;
	struct container_repair_stats repair;  /* a file cut short, or a saved
						  stream, made a finished file first */
};

/* Make the file at path self-contained (embed_binaries_hit). A samples file
 * whose recording did not finish, or a saved stream, is first made a
 * finished file (container_repair()). A perf.data file is first written as
 * the prec.data file o->output (its events, metadata, records in time order
 * and build ids), which then gets the blocks. 0, or a negative code with
 * err set. */
int archive_file(const char *path, const struct archive_opts *o, struct archive_stats *st,
		 struct err *err);

/* `prep archive [-i FILE] [-o FILE] [--symfs DIR] [--embed-source] [-q]` */
int cmd_archive(int argc, char **argv);

#endif
