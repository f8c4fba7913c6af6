/* SPDX-License-Identifier: MIT */
/*
 * Repairing a file whose recording did not finish (FORMAT.md 8): its good
 * blocks are kept where they are, the incomplete block at its end is cut
 * off, a METADATA block with what the clean close would have said and can
 * still be counted is added, then the INDEX and the header, as a clean
 * close writes them. A saved stream becomes a file the same way.
 */
#include "blocks.h"
#include "container.h"
#include "record.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct walk {
	struct index_entry *e;
	size_t n, cap;
	uint64_t cut;                   /* end of the last block kept */
	uint64_t samples, lost_samples, lost_records;
};

/* Count what the final metadata says of the records of a DATA block. */
static void count_records(struct walk *w, const struct container_block *b)
{
	struct data_iter it;
	struct data_span sp;

	if (data_iter_init(&it, b->data, b->len, NULL))
		return;
	while (data_iter_next(&it, &sp, NULL) == 1) {
		for (size_t off = 0, len; record_next(sp.records, sp.len, off, &len, NULL) == 1;
		     off += len) {
			struct perf_event_header h;
			uint64_t lost;

			memcpy(&h, sp.records + off, sizeof(h));
			if (h.type == PERF_RECORD_SAMPLE)
				w->samples++;
			if (h.type == PERF_RECORD_LOST && h.size >= 24) {
				memcpy(&lost, sp.records + off + 16, 8);  /* after header and id */
				w->lost_samples += lost;
				w->lost_records++;
			} else if (h.type == PERF_RECORD_LOST_SAMPLES && h.size >= 16) {
				memcpy(&lost, sp.records + off + 8, 8);
				w->lost_samples += lost;
				w->lost_records++;
			}
		}
	}
}

static int keep(struct walk *w, const struct container_block *b)
{
	struct index_entry ie = { .offset = b->offset, .type = b->type, .seq = b->seq };
	struct data_iter it;

	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		struct index_entry *e = array_realloc(w->e, cap, sizeof(*e));

		if (!e)
			return -ENOMEM;
		w->e = e;
		w->cap = cap;
	}
	if (b->type == BLOCK_DATA && !data_iter_init(&it, b->data, b->len, NULL)) {
		ie.time_min = it.h.time_min;
		ie.time_max = it.h.time_max;
		count_records(w, b);
	}
	w->e[w->n++] = ie;
	w->cut = b->offset + CONTAINER_BLOCK_HEADER_SIZE + b->stored_len;
	return 0;
}

/* Every good block up to an INDEX or END block, if any (they end a file
 * or stream: what follows one is not kept). */
static int walk(struct container_reader *r, struct walk *w, struct err *err)
{
	struct container_block b;
	int got;

	w->cut = CONTAINER_HEADER_SIZE;
	while ((got = container_reader_next(r, &b, err)) == 1) {
		if (b.type == BLOCK_INDEX || b.type == BLOCK_END)
			break;
		if (keep(w, &b))
			return err_set(err, -ENOMEM, "out of memory");
	}
	return got < 0 ? got : 0;
}

static int write_final_metadata(struct container_writer *cw, const struct walk *w,
				uint64_t cut_off, struct err *err)
{
	struct metadata m = { 0 };
	struct buf b = BUF_INIT;
	int ret;

	ret = metadata_set_u64(&m, META_NR_SAMPLES, w->samples) ||
	      metadata_set_u64(&m, META_NR_LOST_SAMPLES, w->lost_samples) ||
	      metadata_set_u64(&m, META_NR_LOST_RECORDS, w->lost_records) ||
	      metadata_set_u64(&m, META_REPAIRED, cut_off) ||
	      metadata_encode(&m, &b) ? -ENOMEM : 0;
	if (ret)
		err_set(err, ret, "out of memory");
	else
		ret = container_write_block(cw, BLOCK_METADATA, b.data, b.len, err);
	metadata_free(&m);
	buf_free(&b);
	return ret;
}

int container_repair(const char *path, int level, struct container_repair_stats *st,
		     struct err *err)
{
	struct container_writer_opts wo = { .level = level };
	struct container_writer *cw;
	struct container_reader *r;
	struct container_header h;
	struct walk w = { 0 };
	bool finished;
	int ret;

	memset(st, 0, sizeof(*st));
	ret = container_reader_open(&r, path, NULL, err);
	if (ret)
		return ret;
	h = *container_reader_header(r);
	finished = container_reader_stats(r)->finished;
	if (finished && !(h.flags & CONTAINER_FLAG_STREAM)) {
		container_reader_close(r);
		return 0;
	}
	if (h.byte_order != container_host_byte_order()) {
		container_reader_close(r);
		return err_set(err, -EINVAL, "'%s': its records are in the other byte order: "
			       "it cannot be repaired on this machine", path);
	}
	ret = walk(r, &w, err);
	st->file_size = container_reader_size(r);
	container_reader_close(r);
	if (ret) {
		free(w.e);
		return ret;
	}
	st->stream = h.flags & CONTAINER_FLAG_STREAM;
	st->repaired = !finished;
	st->blocks = w.n;
	st->bytes_cut = st->file_size - w.cut;
	st->samples = w.samples;
	h.flags &= ~CONTAINER_FLAG_STREAM;
	wo.kind = h.kind;
	ret = container_writer_resume(&cw, path, &wo, &h, w.e, w.n, w.cut, err);
	if (ret)
		return ret;
	if (!finished && (ret = write_final_metadata(cw, &w, st->bytes_cut, err))) {
		struct err e2;

		container_writer_close(cw, &e2);        /* an index over what is there */
		return ret;
	}
	return container_writer_close(cw, err);
}
