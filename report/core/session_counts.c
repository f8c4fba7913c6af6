/* SPDX-License-Identifier: MIT */
/*
 * A file's ADDR_COUNTS block (FORMAT.md 5.11) where it may stand for a
 * reading of the file's samples; see session_addr_counts() in session.h.
 */
#include "session.h"

#include <errno.h>
#include <stdlib.h>

#include "format/addrcounts.h"

/* What may follow the block: what does not change the samples, and what a
 * session reads (and checks) at open or through session_read_heads. */
static bool may_follow(unsigned type)
{
	return type == BLOCK_METADATA || type == BLOCK_BUILD_IDS || type == BLOCK_KALLSYMS ||
	       type == BLOCK_SYMBOLS || type == BLOCK_SOURCE;
}

/* The index entry of the block to use: 1 and *at, or 0. */
static int pick_block(const struct index_entry *e, size_t n, size_t *at, uint32_t *nr_events)
{
	size_t i, last = n;

	*nr_events = 0;
	for (i = 0; i < n; i++) {
		/* a type this reader does not know, or a block missing: the walk
		 * would say so */
		if (!block_type_name(e[i].type) || e[i].seq != i)
			return 0;
		if (e[i].type == BLOCK_ADDR_COUNTS)
			last = i;
		*nr_events += e[i].type == BLOCK_EVENT;
	}
	if (last == n)
		return 0;
	for (i = last + 1; i < n; i++)
		if (!may_follow(e[i].type))
			return 0;
	*at = last;
	return 1;
}

/* The block at e, if it covers the file up to itself: 1 and *out, or 0. */
static int take_block(struct session *s, const struct index_entry *e, uint32_t nr_events,
		      struct addrcounts **out, struct err *err)
{
	struct container_block b;
	struct addrcounts *c;
	uint32_t crc;
	int ret = container_reader_block_at(s->r, e->offset, &b, err);

	if (ret <= 0 || b.type != BLOCK_ADDR_COUNTS)
		return ret < 0 ? ret : 0;
	ret = addrcounts_decode(b.data, b.len, &c, err);
	if (ret)
		return ret == -ENOMEM ? ret : 0;
	/* taken at open (session_open_counts), else now */
	if (s->counts_end && s->counts_end == c->covered_end)
		crc = s->counts_crc;
	else if (container_reader_crc(s->r, CONTAINER_HEADER_SIZE, c->covered_end, &crc))
		crc = ~c->covered_crc;
	if (c->covered_end != e->offset || c->nr_events != nr_events || crc != c->covered_crc) {
		addrcounts_free(c);
		return 0;
	}
	*out = c;
	return 1;
}

int session_addr_counts(struct session *s, struct addrcounts **out, struct err *err)
{
	struct index_entry *e = NULL;
	uint32_t nr_events;
	size_t n = 0, at;
	int ret;

	*out = NULL;
	/* a finished file that read clean so far, its blocks at the end too */
	if (!s->r || !s->cstats->finished || (s->header.flags & CONTAINER_FLAG_STREAM) ||
	    s->header.kind != CONTAINER_KIND_SAMPLES || s->warnings || !s->early ||
	    s->early_damaged || s->nr_events)
		return 0;
	ret = container_reader_index(s->r, &e, &n, err);
	if (ret > 0)
		ret = pick_block(e, n, &at, &nr_events);
	if (ret > 0)
		ret = take_block(s, &e[at], nr_events, out, err);
	free(e);
	if (ret > 0 && (ret = session_read_heads(s, err)) <= 0) {
		addrcounts_free(*out);
		*out = NULL;
	}
	return ret;
}
