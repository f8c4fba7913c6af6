/* SPDX-License-Identifier: MIT */
/*
 * Binaries' files and symbol tables read ahead on a thread (for the
 * symbolizer's symbolizer_prefetch_symbols): each job, a binary named by
 * path and build id, gets what debug_find_files decides and, for one
 * found, its ELF symbol table, on a finder and an arena of the reader's
 * own, so that the thread shares nothing with its caller until
 * ahead_finish. Knows nothing of dsos. Not a public interface.
 */
#ifndef PREC_REPORT_SYMBOLS_AHEAD_H
#define PREC_REPORT_SYMBOLS_AHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols_find.h"
#include "symtab.h"

struct ahead_job {
	/* asked: the strings and bytes are the caller's, unchanged until
	 * ahead_finish */
	const char *path;
	const uint8_t *build_id;
	size_t build_id_size;
	void *owner;
	/* found, when done: found a bin_found; files and syms (their names in
	 * the reader's arena) for the caller to take (zeroed then) */
	bool done;
	int found;
	struct bin_files files;
	bool syms_loaded;
	struct symtab syms;
};

struct ahead;

/* Read the n jobs (taken over, freed by ahead_free) on a thread, with a
 * finder of debug_root and buildid_dir (as debug_find_new): the reader, or
 * NULL when no thread or memory (the jobs freed then). */
struct ahead *ahead_start(const char *debug_root, const char *buildid_dir,
			  struct ahead_job *jobs, size_t n);
/* The thread ended (stop: after the job it reads; else once all are done),
 * its finder's warnings said to w in their order: the jobs, to take what
 * the done ones found. */
struct ahead_job *ahead_finish(struct ahead *a, bool stop, const struct sym_warner *w,
			       size_t *n);
/* After ahead_finish: the jobs, what was not taken, the finder; the arena
 * holding the names of the tables taken goes too, so call it last. */
void ahead_free(struct ahead *a);      /* NULL-tolerant */

#endif
