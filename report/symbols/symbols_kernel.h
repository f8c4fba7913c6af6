/* SPDX-License-Identifier: MIT */
/*
 * The kernel part of the symbolizer (symbols_kernel.c): function symbols
 * from /proc/kallsyms text, the recording's copy or this machine's, in
 * numbered tables (one per recording of a merged report; table 0 is the
 * default one, read from kallsyms_path on first use unless loaded). Knows
 * nothing of dsos or of the symbolizer, whose facade (symbols.h) documents
 * the behaviour. Not a public interface: use symbols.h.
 */
#ifndef PREC_REPORT_SYMBOLS_KERNEL_H
#define PREC_REPORT_SYMBOLS_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "symtab.h"

struct kernel_syms;

struct kernel_syms_stats {
	uint64_t lookups;       /* kernel_syms_lookup calls that got to a table */
	uint64_t unresolved;    /* of which found no symbol */
	bool cached;            /* table 0 came from a kept index */
};

/* kallsyms_path: table 0's text when never loaded; cache_dir: where its
 * index may be kept between runs (NULL: not kept). The strings are copied.
 * NULL on ENOMEM. */
struct kernel_syms *kernel_syms_new(const char *kallsyms_path, const char *cache_dir,
				    struct sym_warner warn);
void kernel_syms_free(struct kernel_syms *k);   /* NULL-tolerant */

/* Read and index table 0's text on a thread now. Always 0. */
int kernel_syms_prefetch(struct kernel_syms *k);
/* Table `table` from this text (copied; table 0 discards a prefetch).
 * 0, -ENOMEM, or -PREC_ECORRUPT with err set. */
int kernel_syms_load(struct kernel_syms *k, unsigned table, const uint8_t *text, size_t len,
		     struct err *err);
/* The symbol covering addr in that table (table 0 when it was never
 * loaded): out->name NULL when none; *module (when module is not NULL) NULL
 * for the core kernel. Names live until kernel_syms_free. 0 or -ENOMEM. */
int kernel_syms_lookup(struct kernel_syms *k, unsigned table, uint64_t addr, struct sym *out,
		       const char **module);
void kernel_syms_get_stats(const struct kernel_syms *k, struct kernel_syms_stats *st);

#endif
