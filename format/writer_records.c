/* SPDX-License-Identifier: MIT */
/*
 * The container writer's way in for ring-buffer bytes: spans copied once
 * into the current DATA block (a wrapped ring's two pieces seen as one),
 * records kept whole inside a block, and the round markers. Blocks are
 * written out by writer.c.
 */
#include "writer_int.h"

#include <errno.h>
#include <string.h>

#include "blocks.h"
#include "record.h"

/* The two pieces of a wrapped ring buffer, seen as one byte sequence. */
struct pieces {
	const uint8_t *p1, *p2;
	size_t n1, n2;
};

static void pieces_copy(const struct pieces *pc, size_t off, size_t len, uint8_t *out)
{
	if (off < pc->n1) {
		size_t a = pc->n1 - off < len ? pc->n1 - off : len;

		memcpy(out, pc->p1 + off, a);
		out += a;
		off += a;
		len -= a;
	}
	if (len)
		memcpy(out, pc->p2 + (off - pc->n1), len);
}

/* Count the records just copied in (by type, and what LOST records say was
 * lost) and hand the side-band ones to the caller's hook. */
static void account(struct container_writer *w, const uint8_t *p, size_t len)
{
	size_t off = 0;

	while (off + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header h;
		uint64_t lost;

		memcpy(&h, p + off, sizeof(h));
		if (h.type < sizeof(w->stats.by_type) / sizeof(w->stats.by_type[0]))
			w->stats.by_type[h.type]++;
		if (h.type == PERF_RECORD_SAMPLE)
			w->nr_samples++;
		if (h.type == PERF_RECORD_LOST && h.size >= 24) {
			memcpy(&lost, p + off + 16, 8);         /* after header and id */
			w->stats.lost_samples += lost;
		} else if (h.type == PERF_RECORD_LOST_SAMPLES && h.size >= 16) {
			memcpy(&lost, p + off + 8, 8);
			w->stats.lost_samples += lost;
		}
		if (h.type != PERF_RECORD_SAMPLE && w->opts.on_sideband)
			w->opts.on_sideband(w->opts.ctx, p + off, h.size);
		off += h.size;
	}
}

static int append_span(struct container_writer *w, uint32_t cpu, uint16_t kind,
		       const struct pieces *pc, size_t off, size_t len, uint32_t nr_records)
{
	int ret = buf_reserve(&w->data, SPAN_HEADER_SIZE + len);
	uint8_t *records;

	if (ret)
		return ret;
	span_header_encode(cpu, kind, len, w->data.data + w->data.len);
	w->data.len += SPAN_HEADER_SIZE;
	records = w->data.data + w->data.len;
	if (len)
		pieces_copy(pc, off, len, records);
	w->data.len += len;
	w->nr_spans++;
	w->nr_records += nr_records;
	account(w, records, len);
	return 0;
}

/* Records whose sizes tile p[0..len) exactly: their number, or -1 with the
 * offset of the first bad size in *bad. */
static long count_records(const uint8_t *p, size_t len, size_t *bad)
{
	size_t off = 0;
	long nr = 0;

	while (off < len) {
		struct perf_event_header h;

		if (len - off < sizeof(h))
			break;
		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off)
			break;
		off += h.size;
		nr++;
	}
	*bad = off;
	return off == len ? nr : -1;
}

/* The common case: the whole drain fits in the current block. Copy it in
 * with two memcpy (the ring buffer is read once, in order), then check the
 * record sizes on the copy, where they are in cache. 1 if done, 0 if it does
 * not fit, negative if the bytes are not whole records. */
static int append_whole(struct container_writer *w, uint32_t cpu, const struct pieces *pc,
			struct err *err)
{
	size_t total = pc->n1 + pc->n2, at = w->data.len, bad;
	uint8_t *records;
	long nr;

	if (at + SPAN_HEADER_SIZE + total > w->opts.block_size)
		return 0;
	records = w->data.data + at + SPAN_HEADER_SIZE;
	pieces_copy(pc, 0, total, records);
	nr = count_records(records, total, &bad);
	if (nr < 0) {
		struct perf_event_header h;

		if (total - bad < sizeof(h))
			return err_set(err, -EINVAL, "cpu %u: %zu bytes left over after the last record",
				       cpu, total - bad);
		memcpy(&h, records + bad, sizeof(h));
		return err_set(err, -EINVAL, "cpu %u: record of size %u at byte %zu of %zu", cpu,
			       h.size, bad, total);
	}
	span_header_encode(cpu, SPAN_RECORDS, total, w->data.data + at);
	w->data.len = at + SPAN_HEADER_SIZE + total;
	w->nr_spans++;
	w->nr_records += (uint32_t)nr;
	account(w, records, total);
	return 1;
}

int container_write_records(struct container_writer *w, uint32_t cpu,
			    const void *p1, size_t n1, const void *p2, size_t n2,
			    struct err *err)
{
	struct pieces pc = { p1, p2, n1, n2 };
	size_t total = n1 + n2, start = 0, off = 0;
	uint32_t nr = 0;
	int ret = writer__failed(w, err);

	if (ret || !total)
		return ret;
	ret = append_whole(w, cpu, &pc, err);
	if (ret)
		return ret < 0 ? ret : 0;
	/* Too big for what is left of the block: split at record boundaries. */
	while (off < total) {
		struct perf_event_header h;
		size_t room;

		if (total - off < sizeof(h))
			return err_set(err, -EINVAL, "cpu %u: %zu bytes left over after the last record",
				       cpu, total - off);
		pieces_copy(&pc, off, sizeof(h), (uint8_t *)&h);
		if (h.size < sizeof(h) || h.size > total - off)
			return err_set(err, -EINVAL, "cpu %u: record of size %u at byte %zu of %zu",
				       cpu, h.size, off, total);
		room = w->opts.block_size - w->data.len;
		if (off - start + h.size + SPAN_HEADER_SIZE > room) {
			/* This record does not fit: close the span so far, then the block. */
			if (off > start) {
				ret = append_span(w, cpu, SPAN_RECORDS, &pc, start, off - start, nr);
				if (ret)
					return err_set(err, ret, "out of memory");
			}
			ret = container_writer_flush(w, err);
			if (ret)
				return ret;
			start = off;
			nr = 0;
		}
		off += h.size;
		nr++;
	}
	if (off > start) {
		ret = append_span(w, cpu, SPAN_RECORDS, &pc, start, off - start, nr);
		if (ret)
			return err_set(err, ret, "out of memory");
	}
	return 0;
}

int container_write_round(struct container_writer *w, struct err *err)
{
	int ret = writer__failed(w, err);

	if (ret)
		return ret;
	if (w->data.len + SPAN_HEADER_SIZE > w->opts.block_size) {
		ret = container_writer_flush(w, err);
		if (ret)
			return ret;
	}
	ret = append_span(w, SPAN_CPU_SYNTH, SPAN_ROUND_END, NULL, 0, 0, 0);
	return ret ? err_set(err, ret, "out of memory") : 0;
}
