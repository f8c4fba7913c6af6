/* SPDX-License-Identifier: MIT */
/*
 * Inside the container reader, for reader.c (the walk, one block at a time,
 * and the random reads) and reader_ra.c (the readahead: blocks decoded
 * ahead of the walk on worker threads). Not for other callers.
 *
 * A step of the walk is two parts: the scan finds the next block to decode
 * (past damage, blocks to skip, the end), which must go in file order; the
 * decoding of its payload does not, and the readahead's workers do that
 * part of several blocks at once. What a step finds wrong is told through
 * the warn callback in file order all the same: a step done ahead keeps
 * its problems (and its counts) in a sink until the walk gets there.
 */
#ifndef PREC_FORMAT_READER_INT_H
#define PREC_FORMAT_READER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"
#include "container.h"
#include "header.h"

/* What decoding payloads needs, one per thread that decodes. */
struct decoder {
	struct libdeflate_decompressor *zd;
	struct buf raw;         /* inflated payload, to untransform */
	struct buf plain;       /* the decoded payload (the walk's, block_at's) */
	struct buf marks;       /* its records with lazy stack copies (the walk's) */
};

void decoder_free(struct decoder *d);

/* Problems found by a step done ahead, to be told later. */
struct problem_note {
	struct container_problem p;     /* p.msg is set when told */
	char msg[ERR_MSG_MAX];
};

struct problem_notes {
	struct problem_note *v;
	size_t nr, cap;
};

/* Where a step's findings go: problems told at once (later NULL) or kept,
 * and the counts. */
struct walk_sink {
	struct problem_notes *later;
	struct container_stats *stats;
};

struct container_ra;

struct container_reader {
	const uint8_t *base;
	size_t size;
	bool mapped;
	struct container_reader_opts opts;
	struct container_header header;
	bool check_reserved;        /* file minor <= ours */
	uint64_t pos;               /* offset of the next block header */
	int64_t last_seq;           /* seq of the last valid block header, -1 */
	bool done;
	uint64_t dropped;           /* the mapping's pages before this are given back */
	struct decoder walk;        /* the walk's, without readahead */
	struct decoder at;          /* container_reader_block_at's */
	struct container_stats stats;
	struct container_ra *ra;    /* readahead, or NULL */
};

/* The scan: the next block of the walk to decode, from r->pos: 1 with *at
 * and *bh (r->pos past it), 0 at the end (r->done). */
int reader_scan(struct container_reader *r, const struct walk_sink *sink, uint64_t *at,
		struct block_header *bh);
/* The payload of the block scanned at `at`, decoded with d into out and
 * checked: 1 and *b (its data in out, or in the file when stored), 0 when
 * it is damaged (told, counted), or -ENOMEM. Stack copies are left lazy
 * when the reader was opened so and marks is given (b->marks then in it).
 * Reads nothing of r that the walk changes. */
int reader_decode(const struct container_reader *r, const struct walk_sink *sink,
		  struct decoder *d, struct buf *out, struct buf *marks, uint64_t at,
		  const struct block_header *bh, struct container_block *b);
/* Tell the kept problems, in their order, and forget them. */
void reader_tell(struct container_reader *r, struct problem_notes *n);
void stats_add(struct container_stats *to, const struct container_stats *from);
/* Give back the mapping's pages well before off (MADV_DONTNEED). */
void reader_drop_behind(struct container_reader *r, uint64_t off);

/* reader_ra.c: the readahead (container_reader_readahead and the calls
 * that go through it once it runs). */
int reader_ra_start(struct container_reader *r);
int reader_ra_next(struct container_reader *r, struct container_block *b, struct err *err);
int reader_ra_hold(struct container_reader *r, uint64_t *handle);
void reader_ra_release(struct container_reader *r, uint64_t handle);
/* Stop decoding ahead and drop what was (held blocks stay); the caller
 * moves the walk, then reader_ra_resume. */
void reader_ra_pause(struct container_reader *r);
void reader_ra_resume(struct container_reader *r);
void reader_ra_stop(struct container_reader *r);

#endif
