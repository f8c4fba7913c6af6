/* SPDX-License-Identifier: MIT */
/*
 * The walk over a perf.data data section: runs of kernel records handed out
 * in place, perf's own records one at a time, and COMPRESSED records
 * decompressed (one zstd stream across the file: perf flushes its
 * compressor after each record but never ends the frame) into a buffer
 * whose whole records are handed out before the next one is read. A record
 * cut in two by the end of a COMPRESSED record's output waits at the end of
 * that buffer for the rest.
 */
#include "perfdata_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

int pd_record_at(const struct perfdata *pd, uint64_t pos, uint64_t end, uint32_t *type,
		 uint16_t *size, uint64_t *total, struct err *err)
{
	const uint8_t *r = pd->base + pos;
	uint64_t extra = 0;

	if (pos >= end)
		return 0;
	if (end - pos < 8)
		return err_set(err, -PREC_ETRUNC, "%" PRIu64 " bytes left, a record header needs 8",
			       end - pos);
	memcpy(type, r, 4);
	memcpy(size, r + 6, 2);
	if (*size < 8)
		return err_set(err, -PREC_ECORRUPT, "record size %u is below its 8-byte header", *size);
	if (*size > end - pos)
		return err_set(err, -PREC_ETRUNC, "record of %u bytes runs past the end (%" PRIu64
			       " bytes left)", *size, end - pos);
	if (*type == PERFDATA_AUXTRACE || *type == PERFDATA_HEADER_TRACING_DATA) {
		if (*type == PERFDATA_AUXTRACE && *size >= 16) {
			memcpy(&extra, r + 8, 8);
		} else if (*type == PERFDATA_HEADER_TRACING_DATA && *size >= 12) {
			uint32_t n;

			memcpy(&n, r + 8, 4);
			extra = n;
		} else {
			return err_set(err, -PREC_ECORRUPT, "%s record of %u bytes is too short",
				       perfdata_type_name(*type), *size);
		}
		if (extra > end - pos - *size)
			return err_set(err, -PREC_ETRUNC, "%s record: %" PRIu64 " bytes of payload "
				       "run past the end", perfdata_type_name(*type), extra);
	}
	*total = *size + extra;
	return 1;
}

static void count_user(struct perfdata *pd, uint32_t type)
{
	if (type < PERFDATA_TYPE_END)
		pd->stats.by_type[type - 64]++;
	else
		pd->stats.unknown_user++;
}

/* ---- decompression ------------------------------------------------------ */

static void zstream_broken(struct perfdata *pd)
{
	pd->zbroken = true;
	pd->stats.bytes_ignored += pd->dbuf.len - pd->dend;
	pd->dbuf.len = pd->dend;
}

/* Append what the payload decompresses to after the bytes kept from the
 * last record; 0, or -ENOMEM (damage is warned about and breaks the stream). */
static int inflate_payload(struct perfdata *pd, const uint8_t *in_p, size_t in_len, uint64_t off)
{
	ZSTD_inBuffer in = { in_p, in_len, 0 };
	size_t start = pd->dbuf.len, stalls = 0;

	if (!pd->zd) {
		pd->zd = ZSTD_createDStream();
		if (!pd->zd || ZSTD_isError(ZSTD_initDStream(pd->zd)))
			return -ENOMEM;
	}
	for (;;) {
		ZSTD_outBuffer out;
		size_t r, before_in = in.pos;

		if (pd->dbuf.len - start > PERFDATA_DECOMP_MAX) {
			pd_problem(pd, off, "COMPRESSED record at offset %" PRIu64 ": decompresses to "
				   "more than %u MiB: the rest of the compressed data is skipped",
				   off, PERFDATA_DECOMP_MAX >> 20);
			zstream_broken(pd);
			return 0;
		}
		if (pd->dbuf.cap - pd->dbuf.len < (64u << 10) &&
		    buf_reserve(&pd->dbuf, pd->dbuf.len > (64u << 10) ? pd->dbuf.len : (64u << 10)))
			return -ENOMEM;
		out = (ZSTD_outBuffer){ pd->dbuf.data + pd->dbuf.len, pd->dbuf.cap - pd->dbuf.len, 0 };
		r = ZSTD_decompressStream(pd->zd, &out, &in);
		if (ZSTD_isError(r)) {
			pd_problem(pd, off, "COMPRESSED record at offset %" PRIu64 ": zstd: %s: the "
				   "rest of the compressed data is skipped", off, ZSTD_getErrorName(r));
			zstream_broken(pd);
			return 0;
		}
		pd->dbuf.len += out.pos;
		if (in.pos == in.size && out.pos < out.size)
			break;
		stalls = in.pos == before_in && !out.pos ? stalls + 1 : 0;
		if (stalls > 2) {
			pd_problem(pd, off, "COMPRESSED record at offset %" PRIu64 ": zstd makes no "
				   "progress: the rest of the compressed data is skipped", off);
			zstream_broken(pd);
			return 0;
		}
	}
	pd->stats.compressed_bytes += in_len;
	pd->stats.decompressed_bytes += pd->dbuf.len - start;
	return 0;
}

/* Decompress one COMPRESSED (or COMPRESSED2) record and find the whole
 * records of the output. */
static int decompress(struct perfdata *pd, const uint8_t *r, uint16_t size, uint32_t type,
		      uint64_t off)
{
	const uint8_t *payload = r + 8;
	size_t len = size - 8u, tail;
	int ret;

	if (pd->zbroken) {
		pd->stats.bad_compressed++;
		return 0;
	}
	if (type == PERFDATA_COMPRESSED2) {
		uint64_t dsize;

		if (size < 16 || (memcpy(&dsize, r + 8, 8), dsize > size - 16u)) {
			pd_problem(pd, off, "COMPRESSED2 record at offset %" PRIu64 ": data size does "
				   "not fit its %u bytes: the rest of the compressed data is skipped",
				   off, size);
			pd->stats.bad_compressed++;
			zstream_broken(pd);
			return 0;
		}
		payload = r + 16;
		len = (size_t)dsize;
	}
	/* keep the start of a record the last output ended in */
	tail = pd->dbuf.len - pd->dend;
	if (tail)
		memmove(pd->dbuf.data, pd->dbuf.data + pd->dend, tail);
	pd->dbuf.len = tail;
	pd->dpos = pd->dend = 0;
	ret = inflate_payload(pd, payload, len, off);
	if (ret || pd->zbroken) {
		pd->stats.bad_compressed += !ret;
		return ret;
	}
	while (pd->dbuf.len - pd->dend >= 8) {
		uint16_t rsize;

		memcpy(&rsize, pd->dbuf.data + pd->dend + 6, 2);
		if (rsize < 8) {
			pd_problem(pd, off, "COMPRESSED record at offset %" PRIu64 ": a record in its "
				   "output has size %u: the rest of the compressed data is skipped",
				   off, rsize);
			zstream_broken(pd);
			break;
		}
		if (rsize > pd->dbuf.len - pd->dend)
			break;
		pd->dend += rsize;
	}
	pd->dactive = pd->dend > 0;
	pd->doff = off;
	return 0;
}

/* ---- chunks --------------------------------------------------------------- */

static int next_decompressed(struct perfdata *pd, struct perfdata_chunk *c)
{
	const uint8_t *p = pd->dbuf.data;
	size_t start = pd->dpos;
	uint32_t type;
	uint16_t size;

	memcpy(&type, p + start, 4);
	memcpy(&size, p + start + 6, 2);
	*c = (struct perfdata_chunk){ .p = p + start, .offset = pd->doff, .compressed = true };
	if (type >= 64) {
		count_user(pd, type);
		c->kind = PERFDATA_CHUNK_USER;
		c->type = type;
		c->len = size;
		pd->dpos += size;
		return 1;
	}
	while (pd->dpos < pd->dend) {
		memcpy(&type, p + pd->dpos, 4);
		memcpy(&size, p + pd->dpos + 6, 2);
		if (type >= 64)
			break;
		pd->dpos += size;
	}
	c->kind = PERFDATA_CHUNK_RECORDS;
	c->len = pd->dpos - start;
	return 1;
}

static void stop(struct perfdata *pd, const char *why)
{
	pd_problem(pd, pd->pos, "record at offset %" PRIu64 ": %s: the last %" PRIu64
		   " bytes of data are not read", pd->pos, why, pd->data_end - pd->pos);
	pd->stats.bytes_ignored += pd->data_end - pd->pos;
	pd->stats.stopped = true;
	pd->ended = true;
}

static int finish(struct perfdata *pd)
{
	size_t tail = pd->dbuf.len - pd->dend;

	if (!pd->ended && tail) {
		pd_problem(pd, pd->doff, "the compressed data ends inside a record: %zu bytes "
			   "ignored", tail);
		pd->stats.bytes_ignored += tail;
	}
	pd->ended = true;
	return 0;
}

/* The pages of a mapped file read this far behind are given back
 * (MADV_DONTNEED): the page cache keeps them, and a record still waiting
 * to be put in time order that lies there is read again from the file (a
 * minor fault), so reading a large file does not hold all of it. */
#define DROP_LAG (1u << 20)
#define DROP_STEP (1u << 20)

static void drop_behind(struct perfdata *pd)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), upto;

	if (!pd->mapped || pd->pos < pd->dropped + DROP_LAG + DROP_STEP)
		return;
	upto = (pd->pos - DROP_LAG) & ~(page - 1);
	if (!madvise((void *)(uintptr_t)(pd->base + pd->dropped), upto - pd->dropped, MADV_DONTNEED))
		pd->dropped = upto;
}

/* A run of kernel records handed out at most this long (a little more):
 * the cache still holds it when the caller reads it. */
#define PERFDATA_RUN_MAX (128u << 10)

/* The run of kernel records from start on, pd->pos past its first one:
 * past every whole kernel record after it (pd_record_at's checks, those
 * of a kernel record inline), to at most PERFDATA_RUN_MAX bytes. */
static void run_on(struct perfdata *pd, uint64_t start)
{
	uint64_t end = pd->data_end, stop = start + PERFDATA_RUN_MAX;

	if (stop > end)
		stop = end;
	while (pd->pos < stop && end - pd->pos >= 8) {
		const uint8_t *r = pd->base + pd->pos;
		uint32_t type;
		uint16_t size;

		memcpy(&type, r, 4);
		memcpy(&size, r + 6, 2);
		if (type >= 64 || size < 8 || size > end - pd->pos)
			return;
		pd->pos += size;
	}
}

int perfdata_next(struct perfdata *pd, struct perfdata_chunk *c, struct err *err)
{
	drop_behind(pd);
	for (;;) {
		struct err why = { 0 };
		uint64_t total, start;
		uint32_t type;
		uint16_t size;
		int ret;

		if (pd->dactive) {
			if (pd->dpos < pd->dend)
				return next_decompressed(pd, c);
			pd->dactive = false;
		}
		if (pd->ended)
			return 0;
		ret = pd_record_at(pd, pd->pos, pd->data_end, &type, &size, &total, &why);
		if (ret == 0)
			return finish(pd);
		if (ret < 0) {
			stop(pd, why.msg);
			return 0;
		}
		if (type == PERFDATA_COMPRESSED || type == PERFDATA_COMPRESSED2) {
			count_user(pd, type);
			ret = decompress(pd, pd->base + pd->pos, size, type, pd->pos);
			if (ret)
				return err_set(err, ret, "out of memory");
			pd->pos += total;
			continue;
		}
		*c = (struct perfdata_chunk){ .p = pd->base + pd->pos, .offset = pd->pos,
					      .stable = true };
		if (type >= 64) {
			count_user(pd, type);
			c->kind = PERFDATA_CHUNK_USER;
			c->type = type;
			c->len = size;
			pd->pos += total;
			return 1;
		}
		/* a run of kernel records, up to perf's next record or damage
		 * (reported by the next call), or a run the cache still holds
		 * when the caller reads it */
		start = pd->pos;
		pd->pos += total;
		run_on(pd, start);
		c->kind = PERFDATA_CHUNK_RECORDS;
		c->len = pd->pos - start;
		return 1;
	}
}

void perfdata_rewind(struct perfdata *pd)
{
	pd->pos = pd->data_start;
	pd->dropped = 0;
	pd->ended = false;
	pd->dactive = pd->zbroken = false;
	pd->dbuf.len = pd->dpos = pd->dend = 0;
	memset(&pd->stats, 0, sizeof(pd->stats));
	if (pd->zd)
		ZSTD_DCtx_reset(pd->zd, ZSTD_reset_session_only);
}

const struct perfdata_stats *perfdata_stats(const struct perfdata *pd)
{
	return &pd->stats;
}

void pd_walk_free(struct perfdata *pd)
{
	ZSTD_freeDStream(pd->zd);
	buf_free(&pd->dbuf);
}
