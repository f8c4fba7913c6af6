/* SPDX-License-Identifier: MIT */
/*
 * The SYMBOLS block (FORMAT.md 5.8): what a report needs of one binary, for
 * the addresses a recording hit, so that the file reports the same on a
 * machine without that binary: its loadable segments, the symbols covering
 * the hit addresses, each hit address's source line and inline chain, and
 * the bytes of its unwind tables that DWARF unwinding of the recorded stacks
 * reads. Keyed by build id.
 *
 * Ownership: embed_decode allocates one block of memory holding the struct
 * and all its arrays and strings; free it with free() (embed_free).
 */
#ifndef PREC_FORMAT_EMBED_H
#define PREC_FORMAT_EMBED_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"

#define EMBED_HEADER_SIZE 128    /* with the 64-byte build id field */
#define EMBED_BUILD_ID_MAX 64
#define EMBED_NONE UINT32_MAX       /* a string reference that names nothing */

struct embed_seg {                  /* a PT_LOAD program header */
	uint64_t offset, vaddr, filesz, memsz;
	uint32_t flags;                 /* PF_* */
};

struct embed_sym {                  /* [start, start + size): name */
	uint64_t start, size;
	uint32_t name;                  /* offset in strings */
};

struct embed_addr {                 /* a hit address and its inline chain */
	uint64_t vaddr;
	uint32_t first, nr;             /* frames[first .. first + nr), innermost first */
};

struct embed_frame {
	uint32_t function, file;        /* offsets in strings, or EMBED_NONE */
	uint32_t line;
};

struct embed_range {                /* bytes of the binary image at vaddr */
	uint64_t vaddr;
	uint32_t len;
	uint32_t data;                  /* offset in bytes */
};

struct embed_dso {
	uint8_t build_id[EMBED_BUILD_ID_MAX];
	uint8_t build_id_size;          /* 1..64 */
	uint32_t path;                  /* offset in strings: the path as recorded */
	uint64_t eh_frame_hdr;          /* vaddr of .eh_frame_hdr, 0: none */
	uint64_t fde_count;             /* entries of its search table */
	struct embed_seg *segs;
	struct embed_sym *syms;         /* sorted by start, starts unique */
	struct embed_addr *addrs;       /* sorted by vaddr, unique */
	struct embed_frame *frames;
	struct embed_range *ranges;     /* sorted by vaddr, not overlapping */
	uint32_t nr_segs, nr_syms, nr_addrs, nr_frames, nr_ranges;
	const char *strings;            /* strings_len bytes, the last one NUL */
	uint32_t strings_len;
	const uint8_t *bytes;
	uint32_t bytes_len;
};

/* Append the payload of d to out. 0 or -ENOMEM (-EINVAL if d breaks a rule
 * above, which encoders must not do). */
int embed_encode(const struct embed_dso *d, struct buf *out);
/* Check and decode a payload. 0, -ENOMEM, or -PREC_ECORRUPT with err set. */
int embed_decode(const uint8_t *p, size_t len, struct embed_dso **out, struct err *err);
void embed_free(struct embed_dso *d);

/* The SYMBOLS data of one or more files, looked up by build id. The list
 * holds pointers: the entries are borrowed and must outlive it. */
struct embed_list {
	const struct embed_dso **v;
	size_t n, cap;
};

int embed_list_add(struct embed_list *l, struct embed_dso *const *v, size_t n);  /* -ENOMEM */
/* The entry of a binary: by build id; by the recorded path when id_size is
 * 0 and path is not NULL; else NULL. Of several, the last one added (a
 * merged entry added later replaces those it was made of). */
const struct embed_dso *embed_list_find(const struct embed_list *l, const uint8_t *id,
					size_t id_size, const char *path);
void embed_list_free(struct embed_list *l);

/* The data of one binary from two files (same build id) as one: a's
 * segments, path and strings, then b's strings; the union of the symbols
 * and of the hit addresses (a's entry where both have one), with their
 * frames; the union of the bytes (ranges that overlap or touch joined).
 * *out is one allocation, as embed_decode's. 0, -ENOMEM, -EINVAL (build
 * ids differ) or -E2BIG (a count or length would not fit the format). */
int embed_merge(const struct embed_dso *a, const struct embed_dso *b, struct embed_dso **out);

/* A string of d (NULL for EMBED_NONE). */
const char *embed_str(const struct embed_dso *d, uint32_t off);
/* The hit address entry at vaddr, or NULL. */
const struct embed_addr *embed_find_addr(const struct embed_dso *d, uint64_t vaddr);
/* The bytes of the range holding vaddr, from vaddr to the range's end:
 * their number (*out points at them), or 0 (*out NULL) when no range holds
 * vaddr. */
size_t embed_range_at(const struct embed_dso *d, uint64_t vaddr, const uint8_t **out);
/* n bytes at vaddr from the ranges, or NULL when not all of them are there. */
const uint8_t *embed_find_bytes(const struct embed_dso *d, uint64_t vaddr, size_t n);

#endif
