/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the container reader and every block decoder, as prep uses
 * them. The input is a whole prec.data file. Every good block is decoded with
 * its type's decoder; EVENT blocks feed a record_layouts table, and the
 * records of DATA blocks are decoded against it, as the report will.
 *
 * Each input is read twice: as it is, and with the checksums of the file
 * header and of every stored block recomputed, so that mutated payloads get
 * past the CRCs and reach the block and record decoders.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fix_crcs.h"
#include "format/blocks.h"
#include "format/container.h"
#include "format/header.h"
#include "format/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void ignore(void *ctx, const struct container_problem *p)
{
	size_t *n = ctx;

	*n += p->kind;
}

static void decode_data(const struct record_layouts *ls, const struct container_block *b)
{
	struct data_iter it;
	struct data_span s;

	if (data_iter_init(&it, b->data, b->len, NULL))
		return;
	while (data_iter_next(&it, &s, NULL) == 1) {
		size_t off = 0, len;

		while (record_next(s.records, s.len, off, &len, NULL) == 1) {
			struct record rec;

			if (record_layouts_count(ls))
				record_decode(ls, s.records + off, len, &rec, NULL);
			off += len;
		}
	}
}

static void decode_block(struct record_layouts *ls, struct metadata *m,
			 const struct container_block *b)
{
	struct event_desc ev;
	struct build_id_entry *bid;
	struct count_reading *cr;
	struct index_entry *ie;
	struct event_layout l;
	size_t n;

	switch (b->type) {
	case BLOCK_METADATA:
		metadata_decode(m, b->data, b->len, NULL);
		break;
	case BLOCK_EVENT:
		if (event_block_decode(b->data, b->len, &ev, NULL))
			break;
		event_layout_from_attr(&l, ev.attr_bytes, ev.attr_size);
		{
			uint64_t *ids = calloc(ev.nr_ids + 1, sizeof(*ids));

			for (size_t i = 0; ids && i < ev.nr_ids; i++)
				ids[i] = ev.ids[i].id;
			if (ids)
				record_layouts_add(ls, &l, ids, ev.nr_ids, NULL);
			free(ids);
		}
		event_desc_free(&ev);
		break;
	case BLOCK_DATA:
		decode_data(ls, b);
		break;
	case BLOCK_BUILD_IDS:
		if (!build_ids_decode(b->data, b->len, &bid, &n, NULL))
			build_ids_free(bid, n);
		break;
	case BLOCK_COUNTS:
		if (!counts_decode(b->data, b->len, &cr, &n, NULL))
			free(cr);
		break;
	case BLOCK_INDEX:
		if (!index_decode(b->data, b->len, &ie, &n, NULL))
			free(ie);
		break;
	}
}

static void read_all(const uint8_t *data, size_t size)
{
	size_t problems = 0;
	struct container_reader_opts o = { .warn = ignore, .ctx = &problems };
	struct container_reader *r;
	struct container_block b;
	struct record_layouts *ls;
	struct metadata m = { 0 };

	if (container_reader_open_mem(&r, data, size, &o, NULL))
		return;
	ls = record_layouts_new();
	while (ls && container_reader_next(r, &b, NULL) == 1)
		decode_block(ls, &m, &b);
	record_layouts_free(ls);
	metadata_free(&m);
	container_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	read_all(data, size);
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fix_crcs(copy, size);
	read_all(copy, size);
	free(copy);
	return 0;
}
