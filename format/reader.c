/* SPDX-License-Identifier: MIT */
/*
 * The container reader: walks blocks forward over a read-only mapping of the
 * file (or caller-owned memory), checks each block header's CRC and limits,
 * decodes the payload (stored payloads are returned in place, zlib ones
 * inflated into a reusable buffer), checks the payload CRC and the structure
 * of known block types, and hands out good blocks. What is damaged is warned
 * about, counted and skipped (FORMAT.md section 6.2).
 */
#include "blocks.h"
#include "container.h"
#include "header.h"
#include "columns.h"
#include "transform.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>

struct container_reader {
	const uint8_t *base;
	size_t size;
	bool mapped;
	struct container_reader_opts opts;
	struct container_header header;
	bool check_reserved;        /* file minor <= ours */
	uint64_t pos;               /* offset of the next block header */
	int64_t last_seq;           /* seq of the last valid block header, -1 */
	bool done;
	struct buf raw;             /* inflated payload */
	struct buf plain;           /* untransformed payload */
	struct buf raw2, plain2;    /* readahead: the set the caller's block is in */
	struct buf raw3, plain3;    /* container_reader_block_at's */
	struct libdeflate_decompressor *zd;
	struct container_stats stats;
	/* readahead: a worker decodes the next block while the caller uses
	 * the one it has */
	bool ra;
	pthread_t ra_thread;
	pthread_mutex_t ra_lock;
	pthread_cond_t ra_cond;
	enum { RA_IDLE, RA_WORK, RA_DONE } ra_state;
	bool ra_stop;
	int ra_ret;
	struct container_block ra_b;
	struct err ra_err;
};

static void buf_swap(struct buf *a, struct buf *b)
{
	struct buf t = *a;

	*a = *b;
	*b = t;
}

static void problem(struct container_reader *r, enum container_problem_kind kind,
		    uint64_t offset, uint64_t bytes, int reason, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static void problem(struct container_reader *r, enum container_problem_kind kind,
		    uint64_t offset, uint64_t bytes, int reason, const char *fmt, ...)
{
	struct container_problem p = { kind, offset, bytes, reason, NULL };
	char msg[ERR_MSG_MAX];
	va_list ap;

	if (!r->opts.warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p.msg = msg;
	r->opts.warn(r->opts.ctx, &p);
}

/* Is there a valid block header at off, with seq after the last good one? */
static bool header_valid_at(const struct container_reader *r, uint64_t off,
			    struct block_header *bh)
{
	if (r->size - off < CONTAINER_BLOCK_HEADER_SIZE)
		return false;
	if (block_header_decode(r->base + off, bh, r->check_reserved))
		return false;
	return (int64_t)bh->seq > r->last_seq;
}

/* A stream ended cleanly when its last 32 bytes are the header of an empty
 * END block (FORMAT.md 7.2): as cheap to check as a file's index offset. */
static void check_stream_end(struct container_reader *r, bool quiet)
{
	uint64_t off = r->size - CONTAINER_BLOCK_HEADER_SIZE;
	struct block_header bh;

	if (r->size >= CONTAINER_HEADER_SIZE + CONTAINER_BLOCK_HEADER_SIZE &&
	    !block_header_decode(r->base + off, &bh, r->check_reserved) &&
	    bh.type == BLOCK_END && bh.stored_len == 0) {
		r->stats.finished = true;
		return;
	}
	if (!quiet)
		problem(r, PROBLEM_UNFINISHED, 0, 0, 0,
			"the stream was cut short (no END block): reading up to the last complete block");
}

static void check_index(struct container_reader *r, bool quiet)
{
	uint64_t off = r->header.index_offset;
	struct block_header bh;

	if (r->header.flags & CONTAINER_FLAG_STREAM) {
		check_stream_end(r, quiet);
		return;
	}
	if (!off) {
		if (!quiet)
			problem(r, PROBLEM_UNFINISHED, 0, 0, 0,
				"the recording did not finish (no index): reading up to the last complete block");
		return;
	}
	if (off < CONTAINER_HEADER_SIZE || off >= r->size ||
	    r->size - off < CONTAINER_BLOCK_HEADER_SIZE ||
	    block_header_decode(r->base + off, &bh, r->check_reserved) ||
	    bh.type != BLOCK_INDEX ||
	    r->size - off - CONTAINER_BLOCK_HEADER_SIZE < bh.stored_len) {
		if (!quiet)
			problem(r, PROBLEM_BAD_INDEX, off, 0, 0,
				"index offset %llu does not point to an index block: index ignored",
				(unsigned long long)off);
		return;
	}
	r->stats.finished = true;
}

static int reader_init(struct container_reader *r, struct err *err)
{
	int ret = container_header_decode(r->base, r->size, &r->header, err);

	if (ret)
		return ret;
	r->check_reserved = r->header.version_minor <= CONTAINER_VERSION_MINOR;
	r->pos = CONTAINER_HEADER_SIZE;
	r->last_seq = -1;
	check_index(r, false);
	return 0;
}

int container_reader_open_mem(struct container_reader **out, const void *data, size_t len,
			      const struct container_reader_opts *opts, struct err *err)
{
	struct container_reader *r = calloc(1, sizeof(*r));
	int ret;

	*out = NULL;
	if (!r)
		return err_set(err, -ENOMEM, "out of memory");
	r->base = data;
	r->size = len;
	if (opts)
		r->opts = *opts;
	ret = reader_init(r, err);
	if (ret) {
		container_reader_close(r);
		return ret;
	}
	*out = r;
	return 0;
}

int container_reader_open(struct container_reader **out, const char *path,
			  const struct container_reader_opts *opts, struct err *err)
{
	struct stat st;
	void *map;
	int fd, ret;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		return err_set(err, ret, "cannot open '%s': %s", path, err_str(ret));
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		ret = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		close(fd);
		return err_set(err, ret, "'%s' is not a regular file", path);
	}
	if ((uint64_t)st.st_size < CONTAINER_HEADER_SIZE) {
		close(fd);
		return err_set(err, -PREC_EFORMAT, "'%s' is not a prec.data file (%lld bytes)",
			       path, (long long)st.st_size);
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	ret = -errno;
	close(fd);
	if (map == MAP_FAILED)
		return err_set(err, ret, "cannot map '%s': %s", path, err_str(ret));
	ret = container_reader_open_mem(out, map, (size_t)st.st_size, opts, err);
	if (ret) {
		munmap(map, (size_t)st.st_size);
		err_prefix(err, "'%s'", path);
		return ret;
	}
	(*out)->mapped = true;
	return 0;
}

static int inflate_payload(struct container_reader *r, const uint8_t *p, uint32_t stored,
			   uint32_t raw_len)
{
	size_t in_used = 0, out_len = 0;
	enum libdeflate_result res;

	if (!r->zd && !(r->zd = libdeflate_alloc_decompressor()))
		return -ENOMEM;
	buf_reset(&r->raw);
	if (buf_reserve(&r->raw, raw_len ? raw_len : 1))
		return -ENOMEM;
	res = libdeflate_zlib_decompress_ex(r->zd, p, stored, r->raw.data, raw_len,
					    &in_used, &out_len);
	/* The stream must end exactly at raw_len and use all stored bytes. */
	if (res != LIBDEFLATE_SUCCESS || out_len != raw_len || in_used != stored)
		return -PREC_ECORRUPT;
	r->raw.len = raw_len;
	return 0;
}

/* The payload of a block with a valid header: 0 with *data, *len set, or
 * -PREC_ECORRUPT (codec failure, wrong length or CRC), -ENOMEM. */
static int block_payload(struct container_reader *r, const struct block_header *bh,
			 const uint8_t *stored, const uint8_t **data, size_t *len)
{
	int ret;

	if (bh->codec == CODEC_STORED && bh->stored_len != bh->raw_len)
		return -PREC_ECORRUPT;
	if (bh->codec == CODEC_ZLIB) {
		ret = inflate_payload(r, stored, bh->stored_len, bh->raw_len);
		if (ret)
			return ret;
		*data = r->raw.data;
	} else {
		*data = stored;
	}
	*len = bh->raw_len;
	/* COLUMNS (FORMAT.md 6.4): the CRC is of the encoded bytes */
	if (bh->flags & BLOCK_FLAG_COLUMNS) {
		if (crc32_of(*data, *len) != bh->raw_crc)
			return -PREC_ECORRUPT;
		ret = columns_decode(*data, *len, &r->plain, NULL);
		if (ret)
			return ret == -ENOMEM ? ret : -PREC_ECORRUPT;
		*data = r->plain.data;
		*len = r->plain.len;
		return 0;
	}
	if (bh->flags & BLOCK_FLAG_TRANSFORMED) {
		ret = data_untransform(*data, *len, &r->plain, NULL);
		if (ret)
			return ret == -ENOMEM ? ret : -PREC_ECORRUPT;
		*data = r->plain.data;
		*len = r->plain.len;
	}
	if (crc32_of(*data, *len) != bh->raw_crc)
		return -PREC_ECORRUPT;
	return 0;
}

/* Skip a damaged block header at r->pos: find the next valid one. */
static void resync(struct container_reader *r, int why)
{
	uint64_t bad = r->pos;
	struct block_header bh;

	r->stats.corrupt_blocks++;
	problem(r, PROBLEM_CORRUPT_HEADER, bad, 0, 0, "corrupt block header at offset %llu (%s)",
		(unsigned long long)bad, why == -PREC_ELIMIT ? "length over the limits" :
		why == -PREC_EFORMAT ? "no block magic" : "checksum mismatch or reserved bits set");
	for (uint64_t off = bad + 1; off + CONTAINER_BLOCK_HEADER_SIZE <= r->size; off++) {
		if (r->base[off] != (uint8_t)CONTAINER_BLOCK_MAGIC[0] || !header_valid_at(r, off, &bh))
			continue;
		problem(r, PROBLEM_RESYNC, off, off - bad, 0,
			"skipped %llu bytes to the next valid block at offset %llu",
			(unsigned long long)(off - bad), (unsigned long long)off);
		r->stats.bytes_skipped += off - bad;
		r->pos = off;
		return;
	}
	problem(r, PROBLEM_TRUNCATED, bad, r->size - bad, 0,
		"no valid block after offset %llu: ignored the last %llu bytes",
		(unsigned long long)bad, (unsigned long long)(r->size - bad));
	r->stats.bytes_ignored += r->size - bad;
	r->done = true;
}

/* Blocks this reader cannot decode are skipped, checked in decoding order. */
static bool block_skippable(struct container_reader *r, uint64_t at,
			    const struct block_header *bh)
{
	static const char *const why[] = {
		[SKIP_UNKNOWN_CODEC] = "unknown codec",
		[SKIP_TRANSFORMED] = "TRANSFORMED flag on a block that is not DATA",
		[SKIP_COLUMNS] = "COLUMNS flag on a block that is not DATA",
		[SKIP_UNKNOWN_FLAGS] = "unknown block flags",
		[SKIP_UNKNOWN_TYPE] = "unknown block type",
	};
	int reason = 0;

	if (bh->codec >= CODEC_MAX)
		reason = SKIP_UNKNOWN_CODEC;
	else if (bh->flags & BLOCK_FLAG_TRANSFORMED && bh->type != BLOCK_DATA)
		reason = SKIP_TRANSFORMED;
	else if (bh->flags & BLOCK_FLAG_COLUMNS && bh->type != BLOCK_DATA)
		reason = SKIP_COLUMNS;
	else if (!block_flags_known(bh->flags))
		reason = SKIP_UNKNOWN_FLAGS;
	else if (!block_type_name(bh->type))
		reason = SKIP_UNKNOWN_TYPE;
	if (!reason)
		return false;
	problem(r, PROBLEM_SKIPPED, at, 0, reason,
		"block at offset %llu (type %u, codec %u, flags 0x%x): %s, skipped",
		(unsigned long long)at, bh->type, bh->codec, bh->flags, why[reason]);
	r->stats.skipped_blocks++;
	return true;
}

static int next_block(struct container_reader *r, struct container_block *b, struct err *err)
{
	while (!r->done && r->pos < r->size) {
		struct block_header bh;
		const uint8_t *data;
		size_t len;
		uint64_t at = r->pos, end;
		struct err sub = { 0 };
		int ret;

		if (r->size - at < CONTAINER_BLOCK_HEADER_SIZE) {
			problem(r, PROBLEM_TRUNCATED, at, r->size - at, 0,
				"incomplete block at offset %llu: ignored the last %llu bytes",
				(unsigned long long)at, (unsigned long long)(r->size - at));
			r->stats.bytes_ignored += r->size - at;
			r->stats.truncated = true;
			break;
		}
		ret = block_header_decode(r->base + at, &bh, r->check_reserved);
		if (ret) {
			resync(r, ret);
			continue;
		}
		end = at + CONTAINER_BLOCK_HEADER_SIZE + bh.stored_len;
		if (end > r->size) {
			problem(r, PROBLEM_TRUNCATED, at, r->size - at, 0,
				"incomplete block at offset %llu (%llu of %u payload bytes): ignored the last %llu bytes",
				(unsigned long long)at,
				(unsigned long long)(r->size - at - CONTAINER_BLOCK_HEADER_SIZE),
				bh.stored_len, (unsigned long long)(r->size - at));
			r->stats.bytes_ignored += r->size - at;
			r->stats.truncated = true;
			break;
		}
		if (r->last_seq >= 0 && bh.seq != r->last_seq + 1)
			problem(r, PROBLEM_SEQ_GAP, at, 0, 0,
				"block at offset %llu has sequence number %u after %lld: blocks are missing",
				(unsigned long long)at, bh.seq, (long long)r->last_seq);
		r->last_seq = bh.seq;
		r->pos = end;
		if (block_skippable(r, at, &bh))
			continue;
		ret = block_payload(r, &bh, r->base + at + CONTAINER_BLOCK_HEADER_SIZE, &data, &len);
		if (ret == -ENOMEM)
			return err_set(err, ret, "out of memory");
		if (ret) {
			problem(r, PROBLEM_CORRUPT_PAYLOAD, at, 0, 0,
				"corrupt %s block at offset %llu: payload does not decode or fails its checksum; skipped",
				block_type_name(bh.type), (unsigned long long)at);
			r->stats.corrupt_blocks++;
			continue;
		}
		ret = block_payload_validate(bh.type, data, len, &sub);
		if (ret) {
			problem(r, PROBLEM_CORRUPT_STRUCTURE, at, 0, 0,
				"corrupt %s block at offset %llu: %s; skipped",
				block_type_name(bh.type), (unsigned long long)at, sub.msg);
			r->stats.corrupt_blocks++;
			continue;
		}
		b->offset = at;
		b->type = bh.type;
		b->codec = bh.codec;
		b->flags = bh.flags;
		b->seq = bh.seq;
	b->stored_len = bh.stored_len;
		b->data = data;
		b->len = len;
		r->stats.blocks++;
		return 1;
	}
	r->done = true;
	return 0;
}

static void *ra_worker(void *arg)
{
	struct container_reader *r = arg;

	pthread_mutex_lock(&r->ra_lock);
	for (;;) {
		struct container_block b = { 0 };
		struct err e = { 0 };
		int ret;

		while (r->ra_state != RA_WORK && !r->ra_stop)
			pthread_cond_wait(&r->ra_cond, &r->ra_lock);
		if (r->ra_stop)
			break;
		pthread_mutex_unlock(&r->ra_lock);
		/* the caller's block stays in the other set */
		buf_swap(&r->raw, &r->raw2);
		buf_swap(&r->plain, &r->plain2);
		ret = next_block(r, &b, &e);
		pthread_mutex_lock(&r->ra_lock);
		r->ra_ret = ret;
		r->ra_b = b;
		r->ra_err = e;
		r->ra_state = RA_DONE;
		pthread_cond_broadcast(&r->ra_cond);
	}
	pthread_mutex_unlock(&r->ra_lock);
	return NULL;
}

/* Wait until the worker is not decoding (the caller's thread only). */
static void ra_quiet(struct container_reader *r)
{
	if (!r->ra)
		return;
	pthread_mutex_lock(&r->ra_lock);
	while (r->ra_state == RA_WORK)
		pthread_cond_wait(&r->ra_cond, &r->ra_lock);
	pthread_mutex_unlock(&r->ra_lock);
}

int container_reader_readahead(struct container_reader *r)
{
	int ret;

	if (r->ra)
		return 0;
	pthread_mutex_init(&r->ra_lock, NULL);
	pthread_cond_init(&r->ra_cond, NULL);
	r->ra_state = RA_IDLE;
	ret = pthread_create(&r->ra_thread, NULL, ra_worker, r);
	if (ret) {
		pthread_mutex_destroy(&r->ra_lock);
		pthread_cond_destroy(&r->ra_cond);
		return -ret;
	}
	r->ra = true;
	return 0;
}

int container_reader_next(struct container_reader *r, struct container_block *b,
			  struct err *err)
{
	int ret;

	if (!r->ra)
		return next_block(r, b, err);
	pthread_mutex_lock(&r->ra_lock);
	if (r->ra_state == RA_IDLE) {
		r->ra_state = RA_WORK;
		pthread_cond_broadcast(&r->ra_cond);
	}
	while (r->ra_state != RA_DONE)
		pthread_cond_wait(&r->ra_cond, &r->ra_lock);
	ret = r->ra_ret;
	*b = r->ra_b;
	if (ret < 0 && err)
		*err = r->ra_err;
	r->ra_state = RA_IDLE;
	if (ret == 1) {         /* start on the block after it */
		r->ra_state = RA_WORK;
		pthread_cond_broadcast(&r->ra_cond);
	}
	pthread_mutex_unlock(&r->ra_lock);
	return ret;
}

static int block_at(struct container_reader *r, uint64_t offset, bool check,
		    struct container_block *b, struct err *err)
{
	struct block_header bh;
	const uint8_t *data;
	size_t len;
	int ret;

	if (offset < CONTAINER_HEADER_SIZE || offset > r->size ||
	    r->size - offset < CONTAINER_BLOCK_HEADER_SIZE ||
	    block_header_decode(r->base + offset, &bh, r->check_reserved) ||
	    r->size - offset - CONTAINER_BLOCK_HEADER_SIZE < bh.stored_len ||
	    bh.codec >= CODEC_MAX || !block_flags_known(bh.flags) ||
	    ((bh.flags & BLOCK_FLAGS_KNOWN) && bh.type != BLOCK_DATA) ||
	    !block_type_name(bh.type))
		return 0;
	/* decode into a set of its own: the others may hold blocks in use */
	ra_quiet(r);
	buf_swap(&r->raw, &r->raw3);
	buf_swap(&r->plain, &r->plain3);
	ret = block_payload(r, &bh, r->base + offset + CONTAINER_BLOCK_HEADER_SIZE, &data, &len);
	buf_swap(&r->raw, &r->raw3);
	buf_swap(&r->plain, &r->plain3);
	if (ret == -ENOMEM)
		return err_set(err, ret, "out of memory");
	if (ret || (check && block_payload_validate(bh.type, data, len, NULL)))
		return 0;
	b->offset = offset;
	b->type = bh.type;
	b->codec = bh.codec;
	b->flags = bh.flags;
	b->seq = bh.seq;
	b->stored_len = bh.stored_len;
	b->data = data;
	b->len = len;
	return 1;
}

int container_reader_block_at(struct container_reader *r, uint64_t offset,
			      struct container_block *b, struct err *err)
{
	return block_at(r, offset, true, b, err);
}

int container_reader_payload_at(struct container_reader *r, uint64_t offset,
				struct container_block *b, struct err *err)
{
	return block_at(r, offset, false, b, err);
}

int container_reader_payload_into(const struct container_reader *r, uint64_t offset,
				  struct buf *out, uint16_t *type)
{
	struct libdeflate_decompressor *zd;
	struct block_header bh;
	const uint8_t *stored;
	size_t in_used = 0, got = 0;
	enum libdeflate_result res;

	if (offset < CONTAINER_HEADER_SIZE || offset > r->size ||
	    r->size - offset < CONTAINER_BLOCK_HEADER_SIZE ||
	    block_header_decode(r->base + offset, &bh, r->check_reserved) ||
	    r->size - offset - CONTAINER_BLOCK_HEADER_SIZE < bh.stored_len ||
	    bh.codec >= CODEC_MAX || bh.flags || !block_type_name(bh.type) ||
	    (bh.codec == CODEC_STORED && bh.stored_len != bh.raw_len))
		return 0;
	stored = r->base + offset + CONTAINER_BLOCK_HEADER_SIZE;
	buf_reset(out);
	if (buf_reserve(out, bh.raw_len ? bh.raw_len : 1))
		return -ENOMEM;
	if (bh.codec == CODEC_STORED) {
		memcpy(out->data, stored, bh.raw_len);
	} else {
		zd = libdeflate_alloc_decompressor();
		if (!zd)
			return -ENOMEM;
		res = libdeflate_zlib_decompress_ex(zd, stored, bh.stored_len, out->data, bh.raw_len,
						    &in_used, &got);
		libdeflate_free_decompressor(zd);
		if (res != LIBDEFLATE_SUCCESS || got != bh.raw_len || in_used != bh.stored_len)
			return 0;
	}
	out->len = bh.raw_len;
	if (crc32_of(out->data, out->len) != bh.raw_crc)
		return 0;
	*type = bh.type;
	return 1;
}

int container_reader_index(struct container_reader *r, struct index_entry **out, size_t *n,
			   struct err *err)
{
	struct container_block b;
	int ret;

	*out = NULL;
	*n = 0;
	if (!r->stats.finished)
		return 0;
	ret = container_reader_block_at(r, r->header.index_offset, &b, err);
	if (ret <= 0 || b.type != BLOCK_INDEX)
		return ret;
	ret = index_decode(b.data, b.len, out, n, err);
	return ret ? ret : 1;
}

void container_reader_rewind(struct container_reader *r)
{
	ra_quiet(r);
	if (r->ra) {
		pthread_mutex_lock(&r->ra_lock);
		r->ra_state = RA_IDLE;          /* a block decoded ahead is dropped */
		pthread_mutex_unlock(&r->ra_lock);
	}
	r->pos = CONTAINER_HEADER_SIZE;
	r->last_seq = -1;
	r->done = false;
	memset(&r->stats, 0, sizeof(r->stats));
	check_index(r, true);
}

const struct container_header *container_reader_header(const struct container_reader *r)
{
	return &r->header;
}

const struct container_stats *container_reader_stats(const struct container_reader *r)
{
	return &r->stats;
}

int container_reader_crc(const struct container_reader *r, uint64_t from, uint64_t to,
			 uint32_t *crc)
{
	if (from > to || to > r->size)
		return -EINVAL;
	*crc = crc32_of(r->base + from, (size_t)(to - from));
	return 0;
}

uint64_t container_reader_size(const struct container_reader *r)
{
	return r->size;
}

void container_reader_close(struct container_reader *r)
{
	if (!r)
		return;
	if (r->ra) {
		pthread_mutex_lock(&r->ra_lock);
		r->ra_stop = true;
		pthread_cond_broadcast(&r->ra_cond);
		pthread_mutex_unlock(&r->ra_lock);
		pthread_join(r->ra_thread, NULL);
		pthread_mutex_destroy(&r->ra_lock);
		pthread_cond_destroy(&r->ra_cond);
	}
	if (r->mapped)
		munmap((void *)r->base, r->size);
	libdeflate_free_decompressor(r->zd);
	buf_free(&r->raw);
	buf_free(&r->plain);
	buf_free(&r->raw2);
	buf_free(&r->plain2);
	buf_free(&r->raw3);
	buf_free(&r->plain3);
	free(r);
}
