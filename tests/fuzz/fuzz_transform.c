/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the TRANSFORMED encoding must give back exactly the bytes it
 * was given (FORMAT.md 6.3), whatever the records hold.
 *
 * Input: byte 0 picks the event layout (sample_type bits among IDENTIFIER,
 * IP, TID, TIME, CPU, PERIOD, READ, CALLCHAIN, REGS_USER, STACK_USER; one or
 * two events). The rest is cut into records: for each, one byte gives a size
 * in u64 words (1..64), a header is written with that size (type SAMPLE or,
 * when the byte is odd, COMM), and the record's bytes are taken from the
 * input. A DATA payload of one span is built from them, transformed,
 * untransformed and compared; the untransform is also run on the input
 * itself as garbage.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/blocks.h"
#include "format/record.h"
#include "format/transform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct record_layouts *make_layouts(uint8_t sel)
{
	static const uint64_t bits[] = {
		PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_CPU,
		PERF_SAMPLE_READ, PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER,
	};
	struct event_layout l = { .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD |
					  PERF_SAMPLE_CALLCHAIN,
				  .sample_regs_user = 0xff, .sample_id_all = true };
	struct record_layouts *ls = record_layouts_new();
	uint64_t ids[2] = { 7, 8 };

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (sel & (1u << i))
			l.sample_type |= bits[i];
	if (!ls)
		return NULL;
	record_layouts_add(ls, &l, ids, 1, NULL);
	if (sel & 0x80) {
		l.sample_type |= PERF_SAMPLE_IDENTIFIER;
		record_layouts_add(ls, &l, ids + 1, 1, NULL);
	}
	return ls;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf payload = BUF_INIT, recs = BUF_INIT, t = BUF_INIT, back = BUF_INIT;
	struct data_header dh = { 0, 0, 0, 1 };
	uint8_t hdr[DATA_HEADER_SIZE], span[SPAN_HEADER_SIZE];
	struct record_layouts *ls;
	size_t pos = 1;

	if (!size)
		return 0;
	ls = make_layouts(data[0]);
	while (pos < size) {
		uint8_t b = data[pos++];
		size_t words = 1 + (b >> 1) % 64, n = 8 * words, take;
		struct perf_event_header h = { b & 1 ? PERF_RECORD_COMM : PERF_RECORD_SAMPLE, 0,
					       (uint16_t)n };
		size_t at = recs.len;

		if (buf_append_zero(&recs, n))
			break;
		memcpy(recs.data + at, &h, sizeof(h));
		take = size - pos < n - 8 ? size - pos : n - 8;
		memcpy(recs.data + at + 8, data + pos, take);
		pos += take;
		dh.nr_records++;
	}
	data_header_encode(&dh, hdr);
	span_header_encode(0, SPAN_RECORDS, recs.len, span);
	if (ls && !buf_append(&payload, hdr, sizeof(hdr)) &&
	    !buf_append(&payload, span, sizeof(span)) &&
	    !buf_append(&payload, recs.data, recs.len) &&
	    !data_transform(ls, payload.data, payload.len, &t, NULL)) {
		if (data_untransform(t.data, t.len, &back, NULL) || back.len != payload.len ||
		    memcmp(back.data, payload.data, payload.len))
			abort();   /* the rewrite lost or changed bytes */
	}
	data_untransform(data, size, &back, NULL);
	record_layouts_free(ls);
	buf_free(&payload);
	buf_free(&recs);
	buf_free(&t);
	buf_free(&back);
	return 0;
}
