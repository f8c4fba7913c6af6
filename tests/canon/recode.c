/*
 * recode: a copy of a prec.data file whose DATA blocks are written again in
 * another encoding, so that tests can check that what prep reports does not
 * depend on it (FORMAT.md 6.3, 6.4).
 *
 *   recode [-t | -c | -p] IN OUT
 *
 *   -c  COLUMNS blocks (6.4), the writer's default
 *   -t  TRANSFORMED blocks (6.3), as writers of 1.0 to 1.7 wrote them
 *   -p  plain DATA blocks (deflated, no encoding)
 *
 * Every good block of IN is read through the container reader, in file
 * order. DATA blocks are written again span by span (the same records, CPU
 * and rounds), one block of OUT for each of IN; the layouts come from the
 * EVENT blocks before them. INDEX and END blocks are made anew by the
 * writer; ADDR_COUNTS blocks are dropped (they hold the CRC of the bytes
 * before them, which change: prep counts the addresses itself then). The
 * other blocks are copied as they are. Exit 0, or 1 with a message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/blocks.h"
#include "format/container.h"
#include "format/record.h"

static void die(const char *what, const struct err *e)
{
	fprintf(stderr, "recode: %s: %s\n", what, e && e->msg[0] ? e->msg : "failed");
	exit(1);
}

static uint64_t rec_time(void *ctx, const void *rec, size_t len)
{
	return record_peek_time(ctx, rec, len);
}

static void add_event(struct record_layouts *ls, const struct container_block *b)
{
	struct event_desc ev;
	struct event_layout l;
	struct err err = { 0 };
	uint64_t *ids;

	if (event_block_decode(b->data, b->len, &ev, &err))
		die("an EVENT block", &err);
	event_layout_from_attr(&l, ev.attr_bytes, ev.attr_size);
	ids = calloc(ev.nr_ids + 1, sizeof(*ids));
	for (size_t i = 0; ids && i < ev.nr_ids; i++)
		ids[i] = ev.ids[i].id;
	if (!ids || record_layouts_add(ls, &l, ids, ev.nr_ids, &err) < 0)
		die("the events' layouts", &err);
	free(ids);
	event_desc_free(&ev);
}

static void copy_data(struct container_writer *w, const struct container_block *b)
{
	struct data_iter it;
	struct data_span s;
	struct err err = { 0 };
	int ret;

	if (data_iter_init(&it, b->data, b->len, &err))
		die("a DATA block", &err);
	while ((ret = data_iter_next(&it, &s, &err)) == 1) {
		if (s.kind == SPAN_ROUND_END)
			ret = container_write_round(w, &err);
		else
			ret = container_write_records(w, s.cpu, s.records, (size_t)s.len, NULL, 0,
						      &err);
		if (ret)
			die("writing records", &err);
	}
	if (ret < 0 || container_writer_flush(w, &err))
		die("a DATA block", &err);
}

int main(int argc, char **argv)
{
	struct container_writer_opts o = { .level = 1, .block_size = CONTAINER_MAX_RAW / 2,
					   .record_time = rec_time };
	struct record_layouts *ls = record_layouts_new();
	struct container_reader *r;
	struct container_writer *w;
	struct container_block b;
	struct err err = { 0 };
	bool plain = false;
	int ret;

	if (argc == 4 && !strcmp(argv[1], "-t"))
		o.legacy_transform = true;
	else if (argc == 4 && !strcmp(argv[1], "-p"))
		plain = true;
	else if (argc != 4 || strcmp(argv[1], "-c")) {
		fprintf(stderr, "usage: recode [-t | -c | -p] IN OUT\n");
		return 2;
	}
	o.ctx = ls;
	if (!ls)
		die("layouts", NULL);
	if (container_reader_open(&r, argv[2], NULL, &err))
		die(argv[2], &err);
	if (container_writer_open(&w, argv[3], &o, &err))
		die(argv[3], &err);
	if (!plain)
		container_writer_set_layouts(w, ls);
	while ((ret = container_reader_next(r, &b, &err)) == 1) {
		if (b.type == BLOCK_INDEX || b.type == BLOCK_END || b.type == BLOCK_ADDR_COUNTS)
			continue;
		if (b.type == BLOCK_DATA) {
			copy_data(w, &b);
			continue;
		}
		if (b.type == BLOCK_EVENT)
			add_event(ls, &b);
		if (container_write_block(w, b.type, b.data, b.len, &err))
			die(argv[3], &err);
	}
	if (ret < 0)
		die(argv[2], &err);
	container_reader_close(r);
	if (container_writer_close(w, &err))
		die(argv[3], &err);
	record_layouts_free(ls);
	return 0;
}
