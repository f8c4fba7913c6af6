/* SPDX-License-Identifier: MIT */
/*
 * The debug-file lookup of the symbolizer (symbols_find.c): which files
 * serve a binary recorded as (path, build id), and whether they are
 * trusted: the binary and a separate debug file, by build id on this
 * machine (the debug root, perf's build-id cache, .gnu_debuglink), from
 * debuginfod, or at the recorded path (the order is in symbols.h); and the
 * program headers that turn its file offsets into addresses. Knows nothing
 * of dsos or of the symbolizer. Not a public interface: use symbols.h.
 */
#ifndef PREC_REPORT_SYMBOLS_FIND_H
#define PREC_REPORT_SYMBOLS_FIND_H

#include <stddef.h>
#include <stdint.h>

#include "sym_types.h"
#include "symtab.h"

struct debug_find;

/* What was decided for one binary; the caller owns the strings and the
 * array (bin_files_free). */
struct bin_files {
	char *bin_path;                 /* the binary, when found and trusted */
	char *debug_path;               /* a separate debug file, when found */
	struct load_seg *segs;          /* its PT_LOAD headers */
	size_t nsegs;
};

enum bin_found {
	BIN_OK,                         /* a binary, or a debug file with program headers */
	BIN_MISSING,                    /* no file at the path, none by build id */
	BIN_MISMATCH,                   /* the file at the path has another build id */
};

struct debug_find_stats {
	uint64_t debuginfod_asked;      /* questions sent (one per build id and kind) */
	uint64_t debuginfod_files;      /* of which answered with a file that was trusted */
};

/* debug_root: where debug files are kept by build id; buildid_dir: perf's
 * build-id cache, NULL for $PERF_BUILDID_DIR or else $HOME/.debug, "" for
 * none. The strings are copied. NULL on ENOMEM. */
struct debug_find *debug_find_new(const char *debug_root, const char *buildid_dir,
				  struct sym_warner warn);
void debug_find_free(struct debug_find *f);     /* NULL-tolerant */

/* Decide the files of the binary recorded at path with build id bid (bid_n
 * 0: unknown) into *out: a bin_found, or -ENOMEM (*out left empty). A
 * build-id mismatch is warned about here. */
int debug_find_files(struct debug_find *f, const char *path, const uint8_t *bid, size_t bid_n,
		     struct bin_files *out);
void bin_files_free(struct bin_files *b);
void debug_find_get_stats(const struct debug_find *f, struct debug_find_stats *st);

#endif
