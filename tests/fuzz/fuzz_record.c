/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for format/record.c and format/sample.c: a set of events, then
 * a stream of ring-buffer records walked with record_next() and decoded with
 * record_decode(); record_peek_time() must agree with the decoded time.
 *
 * Input (host byte order, like the records themselves):
 *
 *	u8	nr_events       1 + (value & 3) events follow
 *	nr_events x 57 bytes:
 *		u64	sample_type         masked to the bits the decoder knows
 *		u64	read_format         masked to the PERF_FORMAT_* bits
 *		u64	sample_regs_user
 *		u64	sample_regs_intr
 *		u64	branch_sample_type
 *		u8	flags               bit 0: sample_id_all, bit 1: two ids
 *		u64	id[2]               the event's ids (id[1] only with bit 1)
 *	records, back to back, to the end of the input
 *
 * An event record_layouts_add() refuses (duplicate id, mixed sample_id_all)
 * is left out. Every record is decoded from its own exactly-sized heap copy,
 * and every span the decoder returns is checked to lie inside that copy and
 * then read, so that AddressSanitizer sees any wrong pointer or length.
 * tests/fuzz/gen_record_corpus.c writes the committed corpus.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define EVENT_DESC	57
#define SAMPLE_BITS	((1ULL << 25) - 1)
#define FORMAT_BITS	((1ULL << 5) - 1)

static volatile uint64_t sink;

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* n bytes at p must lie inside the record; read them all. */
static void touch(const struct record *rec, const void *p, uint64_t n)
{
	const uint8_t *b = p, *end = rec->bytes + rec->size;
	uint64_t sum = 0;

	if (n == 0)
		return;
	if (!b || b < rec->bytes || b > end || n > (uint64_t)(end - b))
		abort();
	for (uint64_t i = 0; i < n; i++)
		sum += b[i];
	sink += sum;
}

static void touch_array(const struct record *rec, const void *p, uint64_t n, uint64_t unit)
{
	uint64_t bytes;

	if (__builtin_mul_overflow(n, unit, &bytes))
		abort();
	touch(rec, p, bytes);
}

/* A string must end with a NUL inside the record. */
static void touch_str(const struct record *rec, const char *s)
{
	const uint8_t *end = rec->bytes + rec->size;
	size_t max;

	if (!s || (const uint8_t *)s < rec->bytes || (const uint8_t *)s >= end)
		abort();
	max = (size_t)(end - (const uint8_t *)s);
	if (strnlen(s, max) == max)
		abort();
	touch(rec, s, strlen(s) + 1);
}

static void touch_read(const struct record *rec, const struct read_values *rv)
{
	uint64_t times = __builtin_popcountll(rv->format &
		(PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING));

	if (rv->format & PERF_FORMAT_GROUP)
		touch_array(rec, rv->entries, rv->nr, 8ULL * rv->stride);
	else
		touch_array(rec, rv->entries, rv->stride + times, 8);
	for (uint64_t i = 0; i < rv->nr; i++)
		sink += read_values_value(rv, i) + read_values_id(rv, i) +
			read_values_lost(rv, i);
}

static void touch_sample(const struct record *rec)
{
	const struct sample *s = &rec->u.sample;

	if (s->type & PERF_SAMPLE_READ)
		touch_read(rec, &s->read);
	touch_array(rec, s->callchain, s->callchain_nr, 8);
	touch(rec, s->raw, s->raw_size);
	touch_array(rec, s->branch_entries, s->branch_nr, 24);
	touch_array(rec, s->regs_user.regs, s->regs_user.nr, 8);
	touch(rec, s->stack_data, s->stack_size);
	touch_array(rec, s->regs_intr.regs, s->regs_intr.nr, 8);
	touch(rec, s->aux, s->aux_size);
}

static void touch_record(const struct record *rec)
{
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		touch_sample(rec);
		break;
	case PERF_RECORD_MMAP:
		touch_str(rec, rec->u.mmap.filename);
		break;
	case PERF_RECORD_MMAP2:
		touch_str(rec, rec->u.mmap2.filename);
		break;
	case PERF_RECORD_COMM:
		touch_str(rec, rec->u.comm.comm);
		break;
	case PERF_RECORD_KSYMBOL:
		touch_str(rec, rec->u.ksymbol.name);
		break;
	case PERF_RECORD_CGROUP:
		touch_str(rec, rec->u.cgroup.path);
		break;
	case PERF_RECORD_READ:
		touch_read(rec, &rec->u.read.values);
		break;
	case PERF_RECORD_NAMESPACES:
		touch_array(rec, rec->u.namespaces.entries, rec->u.namespaces.nr, 16);
		break;
	case PERF_RECORD_TEXT_POKE:
		touch(rec, rec->u.text_poke.bytes,
		      (uint64_t)rec->u.text_poke.old_len + rec->u.text_poke.new_len);
		break;
	}
}

static void decode_one(const struct record_layouts *ls, const uint8_t *p, size_t len)
{
	uint8_t *copy = malloc(len);
	struct record rec;
	struct err err = { 0, "" };
	int ret;

	if (!copy)
		abort();
	memcpy(copy, p, len);
	ret = record_decode(ls, copy, len, &rec, &err);
	if (ret) {
		/* a failure names itself */
		if (ret != err.code || !err.msg[0] || ret > -PREC_EBASE)
			abort();
	} else {
		if (rec.size != len || rec.bytes != copy || rec.event < -1 ||
		    rec.event >= (int)record_layouts_count(ls))
			abort();
		if (rec.known)
			touch_record(&rec);
		/* the shortcut the report sorts by gives the decoder's time */
		if (rec.known && rec.event >= 0) {
			uint64_t t = rec.type == PERF_RECORD_SAMPLE ?
				((rec.u.sample.type & PERF_SAMPLE_TIME) ? rec.u.sample.time : 0) :
				((rec.sid.fields & PERF_SAMPLE_TIME) ? rec.sid.time : 0);

			if (record_peek_time(ls, copy, len) != t)
				abort();
		}
	}
	(void)record_peek_time(ls, copy, len);  /* never reads outside the record */
	free(copy);
}

static size_t read_events(struct record_layouts *ls, const uint8_t *data, size_t size)
{
	size_t nr = 1 + (data[0] & 3), off = 1;

	for (size_t i = 0; i < nr && size - off >= EVENT_DESC; i++, off += EVENT_DESC) {
		const uint8_t *d = data + off;
		struct event_layout l = {
			.sample_type = get_u64(d) & SAMPLE_BITS,
			.read_format = get_u64(d + 8) & FORMAT_BITS,
			.sample_regs_user = get_u64(d + 16),
			.sample_regs_intr = get_u64(d + 24),
			.branch_sample_type = get_u64(d + 32),
			.sample_id_all = d[40] & 1,
		};
		uint64_t ids[2] = { get_u64(d + 41), get_u64(d + 49) };

		record_layouts_add(ls, &l, ids, (d[40] & 2) ? 2 : 1, NULL);
	}
	return off;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct record_layouts *ls;
	size_t off, len;

	if (size < 1)
		return 0;
	ls = record_layouts_new();
	if (!ls)
		abort();
	off = read_events(ls, data, size);
	while (record_next(data, size, off, &len, NULL) == 1) {
		decode_one(ls, data + off, len);
		off += len;
	}
	record_layouts_free(ls);
	return 0;
}
