/* SPDX-License-Identifier: MIT */
/* The SAMPLE_SUMS block payload; see samplesums.h and FORMAT.md 5.12. */
#include "samplesums.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static size_t padded(uint32_t len)
{
	return ((size_t)len + 7) & ~(size_t)7;
}

/* The items of p[0..len) after the header, counted (out->items NULL) or
 * filled: 0, or a message. */
static const char *walk_items(const uint8_t *p, size_t len, struct samplesums *out)
{
	uint64_t samples = 0;
	size_t n = 0;

	for (size_t off = SAMPLESUMS_HEADER_SIZE; off < len; n++) {
		struct samplesums_item it;
		uint32_t flags;

		if (len - off < SAMPLESUMS_ITEM_SIZE)
			return "an item cut short";
		it.len = le_get32(p + off);
		flags = le_get32(p + off + 4);
		it.count = le_get64(p + off + 8);
		it.period = le_get64(p + off + 16);
		it.sum = flags & SAMPLESUMS_SUM;
		off += SAMPLESUMS_ITEM_SIZE;
		if (flags & ~(uint32_t)SAMPLESUMS_SUM)
			return "an item with unknown flags";
		if (it.len < 8 || padded(it.len) > len - off)
			return "an item's record is shorter than a record header or runs past the block";
		for (size_t i = it.len; i < padded(it.len); i++)
			if (p[off + i])
				return "an item's padding is not zero";
		if (it.sum ? !it.count : it.count || it.period)
			return "an item's count does not fit its kind";
		if (it.sum && samples + it.count < samples)
			return "the counts overflow";
		samples += it.count;
		it.rec = p + off;
		off += padded(it.len);
		if (out->items)
			out->items[n] = it;
	}
	if (n != out->nr_items)
		return "nr_items is not the number of items";
	if (samples != out->samples)
		return "the items' counts do not add up to samples";
	return NULL;
}

int samplesums_decode(const uint8_t *p, size_t len, struct samplesums *out, struct err *err)
{
	const char *why;

	memset(out, 0, sizeof(*out));
	if (len < SAMPLESUMS_HEADER_SIZE)
		return err_set(err, -EINVAL, "SAMPLE_SUMS block: shorter than its header");
	out->covered_end = le_get64(p);
	out->covered_crc = le_get32(p + 8);
	out->nr_events = le_get32(p + 12);
	out->samples = le_get64(p + 16);
	out->tmin = le_get64(p + 24);
	out->tmax = le_get64(p + 32);
	out->nr_items = le_get32(p + 40);
	if (le_get32(p + 44))
		return err_set(err, -EINVAL, "SAMPLE_SUMS block: reserved field not zero");
	if (out->tmin > out->tmax)
		return err_set(err, -EINVAL, "SAMPLE_SUMS block: tmin after tmax");
	/* each item takes at least 32 bytes: a count past that is corrupt
	 * before anything is allocated for it */
	if (out->nr_items > (len - SAMPLESUMS_HEADER_SIZE) / (SAMPLESUMS_ITEM_SIZE + 8))
		return err_set(err, -EINVAL, "SAMPLE_SUMS block: nr_items is not the number of items");
	why = walk_items(p, len, out);
	if (why)
		return err_set(err, -EINVAL, "SAMPLE_SUMS block: %s", why);
	out->items = calloc(out->nr_items + 1, sizeof(*out->items));
	if (!out->items)
		return err_set(err, -ENOMEM, "out of memory");
	walk_items(p, len, out);
	return 0;
}

void samplesums_free(struct samplesums *s)
{
	if (!s)
		return;
	free(s->items);
	s->items = NULL;
	s->nr_items = 0;
}

int samplesums_begin(struct buf *b)
{
	buf_reset(b);
	return buf_append_zero(b, SAMPLESUMS_HEADER_SIZE);
}

int samplesums_add(struct buf *b, const uint8_t *rec, uint32_t len, bool sum, uint64_t period,
		   size_t *at)
{
	uint8_t head[SAMPLESUMS_ITEM_SIZE];

	le_put32(head, len);
	le_put32(head + 4, sum ? SAMPLESUMS_SUM : 0);
	le_put64(head + 8, sum);
	le_put64(head + 16, sum ? period : 0);
	*at = b->len + 8;
	if (buf_append(b, head, sizeof(head)) || buf_append(b, rec, len) ||
	    buf_append_zero(b, padded(len) - len))
		return -ENOMEM;
	return 0;
}

void samplesums_set(struct buf *b, size_t at, uint64_t count, uint64_t period)
{
	le_put64(b->data + at, count);
	le_put64(b->data + at + 8, period);
}

void samplesums_finish(struct buf *b, const struct samplesums *h, size_t nr_items)
{
	le_put64(b->data, h->covered_end);
	le_put32(b->data + 8, h->covered_crc);
	le_put32(b->data + 12, h->nr_events);
	le_put64(b->data + 16, h->samples);
	le_put64(b->data + 24, h->tmin);
	le_put64(b->data + 32, h->tmax);
	le_put32(b->data + 40, (uint32_t)nr_items);
	le_put32(b->data + 44, 0);
}

void samplesums_cover(struct buf *b, uint64_t covered_end, uint32_t covered_crc)
{
	le_put64(b->data, covered_end);
	le_put32(b->data + 8, covered_crc);
}

size_t samplesums_nr_items(const struct buf *b)
{
	return b->len >= SAMPLESUMS_HEADER_SIZE ? le_get32(b->data + 40) : 0;
}
