/* SPDX-License-Identifier: MIT */
/*
 * The bottom of the symbolizer, used by its parts (symbols_elf.c,
 * symbols_kernel.c, symbols_dwarf.c, symbols_find.c) and its facade
 * (symbols.c); it uses none of them. Not a public interface: use symbols.h.
 *
 * - an arena: names and frame arrays, freed all at once with the arena;
 * - symbol tables: symbols collected in any order (rawsyms), then sorted
 *   and deduplicated into a table (symtab) looked up by address;
 * - the warning callback the parts report through (they never print).
 */
#ifndef PREC_REPORT_SYMTAB_H
#define PREC_REPORT_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- arena ---- */

/* Bump allocator, 16-byte aligned; what it hands out lives until
 * arena_free. Zero-initialized is an empty arena. */
struct arena_chunk;

struct arena {
	struct arena_chunk *head;
};

void *arena_alloc(struct arena *a, size_t size);        /* NULL on ENOMEM */
char *arena_strndup(struct arena *a, const char *p, size_t n);
char *arena_strdup(struct arena *a, const char *p);
void arena_free(struct arena *a);

/* ---- symbol tables ---- */

/* A symbol of a sorted table: [start, start + size), no overlap decisions
 * left (duplicates at one address were resolved while loading). */
struct sym {
	uint64_t start;
	uint64_t size;
	const char *name;       /* owned by whoever filled the table (an arena) */
};

/* A symbol while a table is being collected. */
struct rawsym {
	uint64_t start;
	uint64_t size;
	uint64_t limit;         /* a zero-size symbol never extends past this (section end) */
	const char *name;
	uint8_t bind;           /* STB_* */
	uint8_t type;           /* STT_* */
	const char *aux;        /* carried to the table's parallel array (kernel: module) */
	uint32_t seq;           /* order of arrival (set by rawsyms_push) */
};

struct rawsyms {
	struct rawsym *v;
	size_t n, cap;
};

struct symtab {
	struct sym *v;
	size_t n;
};

/* rawsyms: append, and turn into a sorted, deduplicated table whose
 * zero-size symbols extend to the next symbol (perf's choice among
 * duplicates, see sym_better). rawsyms_finish frees r's array either way;
 * the table (and *aux_out, when asked for) are the caller's to free. */
int rawsyms_push(struct rawsyms *r, const struct rawsym *s);
int rawsyms_finish(struct rawsyms *r, struct symtab *out, const char ***aux_out);
/* Of two symbols at the same address, whether a is the one perf keeps. */
bool sym_better(const struct rawsym *a, const struct rawsym *b);
/* The symbol covering addr, or NULL. */
const struct sym *symtab_find(const struct symtab *t, uint64_t addr);

/* ---- warnings ---- */

/* Where the parts say what went wrong without failing (a file that does
 * not match, kernel symbols hidden, ...): one line, no prefix. */
struct sym_warner {
	void (*fn)(void *ctx, const char *msg);
	void *ctx;
};

void sym_warn(const struct sym_warner *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
