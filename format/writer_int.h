/* SPDX-License-Identifier: MIT */
/* Internal to format/writer.c and format/writer_records.c: the writer's
 * state (writer.c's header comment says who touches what, and when). */
#ifndef PREC_FORMAT_WRITER_INT_H
#define PREC_FORMAT_WRITER_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <libdeflate.h>

#include "common/buf.h"
#include "common/err.h"
#include "container.h"
#include "header.h"

struct columns_enc;

/* A full DATA payload handed to the background worker. */
struct writer_slot {
	struct buf payload;
	uint32_t spans, records, samples;
};

#define META_LEVEL 6

struct container_writer {
	int fd;
	struct container_writer_opts opts;
	uint64_t offset;                /* where the next block goes */
	uint32_t seq;
	struct container_header header;

	struct buf data;                /* current DATA payload (header space first) */
	uint32_t nr_spans;
	uint32_t nr_records;
	uint32_t nr_samples;

	struct buf packed;              /* compressed payload scratch */
	struct buf xform;               /* encoded DATA payload scratch */
	struct columns_enc *cols;       /* the COLUMNS encoder, made on first use */
	bool clear_stacks;              /* some event copies user stacks */
	struct libdeflate_compressor *zc;
	int zc_level;                   /* level zc was made for, -1 = none */

	struct index_entry *index;
	size_t nr_index, cap_index;
	struct container_writer_stats stats;

	/* background compression (opts.background): full DATA payloads wait
	 * in q (a ring of q_max) for the worker, which owns q[q_head] while it
	 * writes it; spare (room for q_max + 1) holds the emptied payload
	 * buffers for the caller: kept, so that a burst faults its pages in
	 * once, not at every block */
	bool bg;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct writer_slot *q;
	size_t q_max, q_head, q_len;
	struct buf *spare;
	size_t nr_spare;
	bool stop;

	/* The failure that stopped the writer, 0 while none: set once (with
	 * fail_err filled first), by the worker or the caller, read by both. */
	int failed;
	struct err fail_err;
};

/* The failure that stopped the writer, into *err (if not NULL); 0 if none. */
int writer__failed(struct container_writer *w, struct err *err);

#endif
