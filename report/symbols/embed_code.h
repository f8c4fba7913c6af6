/* SPDX-License-Identifier: MIT */
/*
 * The code bytes of the functions a recording sampled, embedded with the
 * rest of a binary's SYMBOLS data (format/embed.h, FORMAT.md 5.8, since
 * 1.6): they are added to the byte ranges of that block, so that `prep
 * annotate` disassembles the same bytes once the binary is gone. Writing
 * side (embed.c calls embed_code_add for each binary) and reading side
 * (embed_code_find, and symbolizer_embedded_code in symbols.h).
 *
 * The bound: a function (a symbol covering a hit address) is embedded
 * whole when its size is 1..EMBED_CODE_FN_MAX bytes; a larger one is not
 * embedded at all. Per binary at most EMBED_CODE_BIN_MAX bytes of code are
 * added, functions taken in address order: those that would go past it are
 * left out, and so are those whose line rows (FORMAT.md 5.8.1) would take
 * the binary past EMBED_CODE_ROWS_MAX. What was left out is counted in the
 * stats (prec -v, prep archive say it).
 */
#ifndef PREC_REPORT_SYMBOLS_EMBED_CODE_H
#define PREC_REPORT_SYMBOLS_EMBED_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "format/embed.h"

#define EMBED_CODE_FN_MAX (256u * 1024)          /* bytes of one function */
#define EMBED_CODE_BIN_MAX (8u * 1024 * 1024)    /* bytes of code of one binary */
#define EMBED_CODE_ROWS_MAX (256u * 1024)        /* line rows of one binary (FORMAT 5.8.1) */

struct embed_code_stats {
	uint64_t functions;     /* functions whose code was embedded */
	uint64_t bytes;         /* their bytes (before joining with the unwind ranges) */
	uint64_t too_big;       /* left out: larger than EMBED_CODE_FN_MAX */
	uint64_t over_budget;   /* left out: past EMBED_CODE_BIN_MAX */
	uint64_t unreadable;    /* left out: no binary file, or not in its file's segments */
};

struct embed_code_piece {       /* bytes of the image to add */
	uint64_t vaddr;
	uint32_t len;
	const uint8_t *data;
};

/* The bound: whether a function of size bytes is taken when *used bytes of
 * the binary's budget are used (and if so, *used grows); st counts the
 * refusals (and may be NULL). */
bool embed_code_take(uint64_t size, uint64_t *used, struct embed_code_stats *st);

/* Make e's ranges (their bytes in *bytes, the array e->ranges malloc'd with
 * room for *cap) the union of what they hold and of the pieces: sorted, and
 * ranges that overlap or touch joined. e->bytes and bytes_len are set to
 * the new bytes. 0, -ENOMEM or -E2BIG (more than the format holds). */
int embed_code_merge(struct embed_dso *e, struct buf *bytes, size_t *cap,
		     const struct embed_code_piece *p, size_t n);

/* Asked for each function within the bound before its code is read: 1
 * take it (the caller has added its line rows, FORMAT.md 5.8.1), 0 leave it
 * out (counted as over_budget: its rows would pass the caller's bound), or
 * a negative error. It must not change e's syms. */
typedef int (*embed_code_admit_fn)(void *ctx, const struct embed_sym *s);

/* Add the code of e's symbols (sorted, as bin_finish leaves them) read from
 * the binary at bin_path (NULL: none readable; its build id must be e's),
 * within the bound; admit (NULL: take all) may refuse some. 0, -ENOMEM,
 * -E2BIG or admit's error. */
int embed_code_add(struct embed_dso *e, struct buf *bytes, size_t *cap, const char *bin_path,
		   struct embed_code_stats *st, embed_code_admit_fn admit, void *ctx);

/* The embedded bytes at vaddr of the binary with this build id: how many
 * of the n bytes from vaddr on are there in one piece (0: none), *out
 * pointing at them. */
size_t embed_code_find(const struct embed_list *l, const uint8_t *id, size_t id_size,
		       uint64_t vaddr, size_t n, const uint8_t **out);

/* The source position entry of vaddr: its own hit-address entry, else,
 * when vaddr is inside a symbol whose code is embedded (whole), the entry
 * at or before it in that symbol (the writer put one at every line-table
 * row of it, FORMAT.md 5.8.1); NULL when neither. */
const struct embed_addr *embed_code_addr(const struct embed_dso *e, uint64_t vaddr);

#endif
