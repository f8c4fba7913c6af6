/* SPDX-License-Identifier: MIT */
/*
 * The ADDR_COUNTS block (FORMAT.md 5.11, since 1.7): how many samples, and
 * how much period, fell on each sampled address of a recording, per event,
 * with each event's totals. Written once the recording is over, from a
 * reading of the file, so that a view that needs only these counts
 * (`prep annotate`) can skip reading the samples; it says which bytes of
 * the file it was counted from (their CRC-32), so that a reader uses it
 * only on those very bytes.
 *
 * An address is a binary's file offset (`dso` names the binary, by path
 * and build id), or an address as it was sampled: a kernel one (flag
 * ADDRCOUNTS_KERNEL), one in a mapping whose addresses are no file offsets
 * (anonymous memory), or one no mapping held (`dso` ADDRCOUNTS_NONE).
 *
 * Ownership: addrcounts_decode allocates one block of memory holding the
 * struct, its arrays and strings; free it with addrcounts_free (free()).
 */
#ifndef PREC_FORMAT_ADDRCOUNTS_H
#define PREC_FORMAT_ADDRCOUNTS_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"

#define ADDRCOUNTS_HEADER_SIZE 32
#define ADDRCOUNTS_DSO_SIZE 72
#define ADDRCOUNTS_EVENT_SIZE 16
#define ADDRCOUNTS_ENTRY_SIZE 32
#define ADDRCOUNTS_NONE 0xffffffffu     /* entry.dso: no binary */
#define ADDRCOUNTS_KERNEL 0x01          /* entry.flags: a kernel address */
#define ADDRCOUNTS_MAX_EVENTS 65536

struct addrcounts_dso {
	uint32_t path;                  /* offset in strings */
	uint8_t build_id_size;          /* 0..64; 0: none known */
	uint8_t build_id[64];
};

struct addrcounts_event {
	uint64_t samples, period;       /* the sums of its entries */
};

struct addrcounts_entry {
	uint64_t addr;
	uint64_t samples;               /* >= 1 */
	uint64_t period;
	uint32_t dso;                   /* index in dsos, or ADDRCOUNTS_NONE */
	uint16_t event;                 /* the number of its EVENT block */
	uint8_t flags;                  /* ADDRCOUNTS_KERNEL */
};

struct addrcounts {
	uint64_t covered_end;           /* the file offset of this block's header */
	uint32_t covered_crc;           /* CRC-32 of the file's bytes [64, covered_end) */
	struct addrcounts_dso *dsos;    /* paths unique */
	uint32_t nr_dsos;
	struct addrcounts_event *events;        /* one per EVENT block */
	uint32_t nr_events;
	struct addrcounts_entry *entries;       /* in the order their first sample came */
	uint32_t nr_entries;
	const char *strings;            /* strings_len bytes, the last one NUL (or none) */
	uint32_t strings_len;
};

/* Append the payload of c to out. 0, -ENOMEM, or -EINVAL when c breaks a
 * rule of FORMAT.md 5.11 (encoders must not). */
int addrcounts_encode(const struct addrcounts *c, struct buf *out);
/* Check and decode a payload. 0, -ENOMEM, or -PREC_ECORRUPT with err set. */
int addrcounts_decode(const uint8_t *p, size_t len, struct addrcounts **out, struct err *err);
void addrcounts_free(struct addrcounts *c);     /* NULL: nothing */

#endif
