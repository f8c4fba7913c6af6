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
#include "columns.h"
#include "reader_int.h"
#include "transform.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>

static void problem(const struct container_reader *r, const struct walk_sink *sink,
		    enum container_problem_kind kind, uint64_t offset, uint64_t bytes, int reason,
		    const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* Tell a problem, or keep it for later in sink (a step done ahead); NULL
 * sink: at once. */
static void problem(const struct container_reader *r, const struct walk_sink *sink,
		    enum container_problem_kind kind, uint64_t offset, uint64_t bytes, int reason,
		    const char *fmt, ...)
{
	struct container_problem p = { kind, offset, bytes, reason, NULL };
	struct problem_notes *n = sink ? sink->later : NULL;
	char msg[ERR_MSG_MAX];
	va_list ap;

	if (!r->opts.warn)
		return;
	if (n && n->nr == n->cap && array_grow((void **)&n->v, &n->cap, n->nr + 1, sizeof(*n->v)))
		n = NULL;       /* no memory to keep it: told now, out of its place */
	va_start(ap, fmt);
	vsnprintf(n ? n->v[n->nr].msg : msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n) {
		n->v[n->nr++].p = p;
		return;
	}
	p.msg = msg;
	r->opts.warn(r->opts.ctx, &p);
}

void reader_tell(struct container_reader *r, struct problem_notes *n)
{
	for (size_t i = 0; i < n->nr; i++) {
		n->v[i].p.msg = n->v[i].msg;
		r->opts.warn(r->opts.ctx, &n->v[i].p);
	}
	n->nr = 0;
}

void stats_add(struct container_stats *to, const struct container_stats *from)
{
	to->blocks += from->blocks;
	to->corrupt_blocks += from->corrupt_blocks;
	to->skipped_blocks += from->skipped_blocks;
	to->bytes_skipped += from->bytes_skipped;
	to->bytes_ignored += from->bytes_ignored;
	to->truncated |= from->truncated;
}

void decoder_free(struct decoder *d)
{
	libdeflate_free_decompressor(d->zd);
	buf_free(&d->raw);
	buf_free(&d->plain);
	buf_free(&d->marks);
	d->zd = NULL;
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
		problem(r, NULL, PROBLEM_UNFINISHED, 0, 0, 0,
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
			problem(r, NULL, PROBLEM_UNFINISHED, 0, 0, 0,
				"the recording did not finish (no index): reading up to the last complete block");
		return;
	}
	if (off < CONTAINER_HEADER_SIZE || off >= r->size ||
	    r->size - off < CONTAINER_BLOCK_HEADER_SIZE ||
	    block_header_decode(r->base + off, &bh, r->check_reserved) ||
	    bh.type != BLOCK_INDEX ||
	    r->size - off - CONTAINER_BLOCK_HEADER_SIZE < bh.stored_len) {
		if (!quiet)
			problem(r, NULL, PROBLEM_BAD_INDEX, off, 0, 0,
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

static int inflate_payload(struct decoder *d, struct buf *to, const uint8_t *p, uint32_t stored,
			   uint32_t raw_len)
{
	size_t in_used = 0, out_len = 0;
	enum libdeflate_result res;

	if (!d->zd && !(d->zd = libdeflate_alloc_decompressor()))
		return -ENOMEM;
	buf_reset(to);
	if (buf_reserve(to, raw_len ? raw_len : 1))
		return -ENOMEM;
	res = libdeflate_zlib_decompress_ex(d->zd, p, stored, to->data, raw_len,
					    &in_used, &out_len);
	/* The stream must end exactly at raw_len and use all stored bytes. */
	if (res != LIBDEFLATE_SUCCESS || out_len != raw_len || in_used != stored)
		return -PREC_ECORRUPT;
	to->len = raw_len;
	return 0;
}

/* The payload of a block with a valid header, decoded with d into out
 * (through d's own buffer when it is transformed; in place when stored):
 * 0 with *data, *len set, or -PREC_ECORRUPT (codec failure, wrong length or
 * CRC), -ENOMEM. */
static int block_payload(struct decoder *d, struct buf *out, const struct block_header *bh,
			 const uint8_t *stored, const uint8_t **data, size_t *len,
			 const struct columns_lazy *lz)
{
	/* both encodings decode from d's own buffer into out */
	bool tr = bh->flags & (BLOCK_FLAG_TRANSFORMED | BLOCK_FLAG_COLUMNS);
	int ret;

	if (bh->codec == CODEC_STORED && bh->stored_len != bh->raw_len)
		return -PREC_ECORRUPT;
	if (bh->codec == CODEC_ZLIB) {
		ret = inflate_payload(d, tr ? &d->raw : out, stored, bh->stored_len, bh->raw_len);
		if (ret)
			return ret;
		*data = tr ? d->raw.data : out->data;
	} else {
		*data = stored;
	}
	*len = bh->raw_len;
	/* COLUMNS (FORMAT.md 6.4): the CRC is of the encoded bytes */
	if (bh->flags & BLOCK_FLAG_COLUMNS) {
		if (crc32_of(*data, *len) != bh->raw_crc)
			return -PREC_ECORRUPT;
		ret = columns_decode_lazy(*data, *len, out, lz, NULL);
		if (ret)
			return ret == -ENOMEM ? ret : -PREC_ECORRUPT;
		*data = out->data;
		*len = out->len;
		return 0;
	}
	if (tr) {
		ret = data_untransform(*data, *len, out, NULL);
		if (ret)
			return ret == -ENOMEM ? ret : -PREC_ECORRUPT;
		*data = out->data;
		*len = out->len;
	}
	if (crc32_of(*data, *len) != bh->raw_crc)
		return -PREC_ECORRUPT;
	return 0;
}

/* Skip a damaged block header at r->pos: find the next valid one. */
static void resync(struct container_reader *r, const struct walk_sink *sink, int why)
{
	uint64_t bad = r->pos;
	struct block_header bh;

	sink->stats->corrupt_blocks++;
	problem(r, sink, PROBLEM_CORRUPT_HEADER, bad, 0, 0, "corrupt block header at offset %llu (%s)",
		(unsigned long long)bad, why == -PREC_ELIMIT ? "length over the limits" :
		why == -PREC_EFORMAT ? "no block magic" : "checksum mismatch or reserved bits set");
	for (uint64_t off = bad + 1; off + CONTAINER_BLOCK_HEADER_SIZE <= r->size; off++) {
		if (r->base[off] != (uint8_t)CONTAINER_BLOCK_MAGIC[0] || !header_valid_at(r, off, &bh))
			continue;
		problem(r, sink, PROBLEM_RESYNC, off, off - bad, 0,
			"skipped %llu bytes to the next valid block at offset %llu",
			(unsigned long long)(off - bad), (unsigned long long)off);
		sink->stats->bytes_skipped += off - bad;
		r->pos = off;
		return;
	}
	problem(r, sink, PROBLEM_TRUNCATED, bad, r->size - bad, 0,
		"no valid block after offset %llu: ignored the last %llu bytes",
		(unsigned long long)bad, (unsigned long long)(r->size - bad));
	sink->stats->bytes_ignored += r->size - bad;
	r->done = true;
}

/* Blocks this reader cannot decode are skipped, checked in decoding order. */
static bool block_skippable(const struct container_reader *r, const struct walk_sink *sink,
			    uint64_t at, const struct block_header *bh)
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
	problem(r, sink, PROBLEM_SKIPPED, at, 0, reason,
		"block at offset %llu (type %u, codec %u, flags 0x%x): %s, skipped",
		(unsigned long long)at, bh->type, bh->codec, bh->flags, why[reason]);
	sink->stats->skipped_blocks++;
	return true;
}

/* The pages of a mapped file this far behind the walk are given back
 * (MADV_DONTNEED): blocks are decoded into buffers of their own, the page
 * cache keeps the file, and a block read again (container_reader_block_at,
 * a stored block held) faults its pages back in, so reading a large file
 * does not hold all of it. */
#define DROP_LAG (256u << 10)
#define DROP_STEP (256u << 10)

void reader_drop_behind(struct container_reader *r, uint64_t off)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), upto;

	if (!r->mapped || off < r->dropped + DROP_LAG + DROP_STEP)
		return;
	upto = (off - DROP_LAG) & ~(page - 1);
	if (!madvise((void *)(uintptr_t)(r->base + r->dropped), upto - r->dropped, MADV_DONTNEED))
		r->dropped = upto;
}

int reader_scan(struct container_reader *r, const struct walk_sink *sink, uint64_t *at_out,
		struct block_header *bh_out)
{
	while (!r->done && r->pos < r->size) {
		struct block_header bh;
		uint64_t at = r->pos, end;
		int ret;

		if (r->size - at < CONTAINER_BLOCK_HEADER_SIZE) {
			problem(r, sink, PROBLEM_TRUNCATED, at, r->size - at, 0,
				"incomplete block at offset %llu: ignored the last %llu bytes",
				(unsigned long long)at, (unsigned long long)(r->size - at));
			sink->stats->bytes_ignored += r->size - at;
			sink->stats->truncated = true;
			break;
		}
		ret = block_header_decode(r->base + at, &bh, r->check_reserved);
		if (ret) {
			resync(r, sink, ret);
			continue;
		}
		end = at + CONTAINER_BLOCK_HEADER_SIZE + bh.stored_len;
		if (end > r->size) {
			problem(r, sink, PROBLEM_TRUNCATED, at, r->size - at, 0,
				"incomplete block at offset %llu (%llu of %u payload bytes): ignored the last %llu bytes",
				(unsigned long long)at,
				(unsigned long long)(r->size - at - CONTAINER_BLOCK_HEADER_SIZE),
				bh.stored_len, (unsigned long long)(r->size - at));
			sink->stats->bytes_ignored += r->size - at;
			sink->stats->truncated = true;
			break;
		}
		if (r->last_seq >= 0 && bh.seq != r->last_seq + 1)
			problem(r, sink, PROBLEM_SEQ_GAP, at, 0, 0,
				"block at offset %llu has sequence number %u after %lld: blocks are missing",
				(unsigned long long)at, bh.seq, (long long)r->last_seq);
		r->last_seq = bh.seq;
		r->pos = end;
		if (block_skippable(r, sink, at, &bh))
			continue;
		*at_out = at;
		*bh_out = bh;
		return 1;
	}
	r->done = true;
	return 0;
}

int reader_decode(const struct container_reader *r, const struct walk_sink *sink,
		  struct decoder *d, struct buf *out, struct buf *marks, uint64_t at,
		  const struct block_header *bh, struct container_block *b)
{
	const uint8_t *data;
	struct err sub = { 0 };
	size_t len;
	struct columns_lazy lz = { at, marks };
	int ret;

	if (marks)
		buf_reset(marks);
	ret = block_payload(d, out, bh, r->base + at + CONTAINER_BLOCK_HEADER_SIZE, &data, &len,
			    marks && r->opts.lazy_stacks && bh->type == BLOCK_DATA ? &lz : NULL);

	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		problem(r, sink, PROBLEM_CORRUPT_PAYLOAD, at, 0, 0,
			"corrupt %s block at offset %llu: payload does not decode or fails its checksum; skipped",
			block_type_name(bh->type), (unsigned long long)at);
		sink->stats->corrupt_blocks++;
		return 0;
	}
	ret = block_payload_validate(bh->type, data, len, &sub);
	if (ret) {
		problem(r, sink, PROBLEM_CORRUPT_STRUCTURE, at, 0, 0,
			"corrupt %s block at offset %llu: %s; skipped",
			block_type_name(bh->type), (unsigned long long)at, sub.msg);
		sink->stats->corrupt_blocks++;
		return 0;
	}
	b->offset = at;
	b->type = bh->type;
	b->codec = bh->codec;
	b->flags = bh->flags;
	b->seq = bh->seq;
	b->stored_len = bh->stored_len;
	b->data = data;
	b->len = len;
	b->marks = marks ? (const uint32_t *)(const void *)marks->data : NULL;
	b->nr_marks = marks ? marks->len / sizeof(uint32_t) : 0;
	sink->stats->blocks++;
	return 1;
}

/* The walk without readahead: scan and decode on this thread. */
static int next_block(struct container_reader *r, struct container_block *b, struct err *err)
{
	const struct walk_sink sink = { NULL, &r->stats };

	for (;;) {
		struct block_header bh;
		uint64_t at;
		int ret;

		if (!reader_scan(r, &sink, &at, &bh))
			return 0;
		reader_drop_behind(r, at);
		ret = reader_decode(r, &sink, &r->walk, &r->walk.plain, &r->walk.marks, at, &bh, b);
		if (ret < 0)
			return err_set(err, ret, "out of memory");
		if (ret)
			return 1;
	}
}

int container_reader_readahead(struct container_reader *r)
{
	return r->ra ? 0 : reader_ra_start(r);
}

int container_reader_next(struct container_reader *r, struct container_block *b,
			  struct err *err)
{
	return r->ra ? reader_ra_next(r, b, err) : next_block(r, b, err);
}

int container_reader_hold(struct container_reader *r, uint64_t *handle)
{
	return r->ra ? reader_ra_hold(r, handle) : 0;
}

void container_reader_release(struct container_reader *r, uint64_t handle)
{
	if (r->ra)
		reader_ra_release(r, handle);
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
	/* decoded with a decoder of its own: the walk's blocks stay */
	ret = block_payload(&r->at, &r->at.plain, &bh, r->base + offset + CONTAINER_BLOCK_HEADER_SIZE,
			    &data, &len, NULL);
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
	b->marks = NULL;
	b->nr_marks = 0;
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
	if (r->ra)
		reader_ra_pause(r);     /* the blocks decoded ahead are dropped */
	r->pos = CONTAINER_HEADER_SIZE;
	r->last_seq = -1;
	r->done = false;
	r->dropped = 0;
	memset(&r->stats, 0, sizeof(r->stats));
	check_index(r, true);
	if (r->ra)
		reader_ra_resume(r);
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
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), step = 4u << 20;
	uint32_t c = 0;

	if (from > to || to > r->size)
		return -EINVAL;
	/* a mapped file's pages read here are given back as it goes, past
	 * what the walk has already dropped: a whole file's CRC does not
	 * leave the whole file resident */
	for (uint64_t at = from; at < to; at += step) {
		uint64_t n = to - at < step ? to - at : step, a0 = at & ~(page - 1);

		c = libdeflate_crc32(c, r->base + at, (size_t)n);
		if (r->mapped && a0 >= r->dropped && at + n > a0 + page)
			madvise((void *)(uintptr_t)(r->base + a0), (at + n - a0) & ~(page - 1),
				MADV_DONTNEED);
	}
	*crc = c;
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
	if (r->ra)
		reader_ra_stop(r);
	if (r->mapped)
		munmap((void *)r->base, r->size);
	decoder_free(&r->walk);
	decoder_free(&r->at);
	free(r);
}
