/* SPDX-License-Identifier: MIT */
/*
 * Distributions ship debug files with compressed sections (libc6-dbg here:
 * 4 MB that inflate to 10); libdw inflates every one of them into memory at
 * each open. A copy with the sections stored plain, kept in the cache
 * folder by build id (at most 64 of them, the oldest dropped), is mapped
 * instead: only the pages a lookup reads are loaded (symbols_dwarf.c).
 */
#ifndef PREC_REPORT_SYMBOLS_PLAIN_H
#define PREC_REPORT_SYMBOLS_PLAIN_H

#include <libelf.h>

/* The kept plain copy of e (made now if need be): its path (malloc'ed, for
 * free()), or NULL to use e as it is (no cache folder, no build id, no
 * compressed debug section, or the copy could not be made). */
char *debug_plain_copy(const char *cache_dir, Elf *e);

#endif
