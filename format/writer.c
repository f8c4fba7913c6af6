/* SPDX-License-Identifier: MIT */
/*
 * The container writer. Spans of ring-buffer bytes are copied once, into the
 * payload of the current DATA block; the block is compressed and written when
 * it reaches opts.block_size. Only record sizes are looked at on the way in
 * (to keep records whole inside a block); timestamps are read when a block
 * is written out, and only if the caller asked for time ranges.
 *
 * With opts.background, full DATA blocks are handed to a worker thread that
 * compresses and writes them while the caller fills the next one. They wait
 * for it in a queue of opts.queue_bytes (64 MiB by default), so that a
 * worker kept from the CPU for a while (a loaded machine) does not hold the
 * caller up, which would leave the kernel's ring buffers to overflow; the
 * payload buffers are allocated only as the queue grows, and kept until
 * the writer closes (a burst faults their pages in once). While 4 blocks
 * or more wait, the worker compresses at level 1 (its fastest) whatever
 * the level asked; while more than half of the queue waits, it writes
 * blocks as they are (stored, FORMAT.md 6.1: a CRC and a write, no
 * encoding or codec) until it has caught up: a larger file rather than
 * lost samples. The caller waits only when the queue is full, and before
 * it writes anything else itself, so blocks reach the file in call order.
 * Everything that touches the file, the compressor or the index runs either
 * in the worker while it owns a block, or in the caller after waiting for
 * the worker to be idle.
 *
 * A failure to write the file (disk full, I/O error, file size limit) stops
 * the writer: the file is cut back to the end of its last complete block, and
 * every later call returns the same error, so that no block is ever missing
 * from the middle of a file. A failure of the worker is seen by the caller's
 * next call, whatever it is (one atomic load on the way in).
 */
#include "writer_int.h"

#include "blocks.h"
#include "container.h"
#include "header.h"
#include "record.h"
#include "columns.h"
#include "transform.h"
#include "common/thread.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <libdeflate.h>


/* Stop the writer for good on failure `ret` (message in *e). */
static int writer_stop(struct container_writer *w, int ret, const struct err *e)
{
	if (__atomic_load_n(&w->failed, __ATOMIC_ACQUIRE))
		return ret;
	w->fail_err = *e;
	w->fail_err.code = ret;
	__atomic_store_n(&w->failed, ret, __ATOMIC_RELEASE);
	return ret;
}

int writer__failed(struct container_writer *w, struct err *err)
{
	int ret = __atomic_load_n(&w->failed, __ATOMIC_ACQUIRE);

	if (ret && err)
		*err = w->fail_err;
	return ret;
}

static int write_all(int fd, const struct iovec *iov, int n, struct err *err)
{
	struct iovec v[2];

	memcpy(v, iov, (size_t)n * sizeof(*v));
	while (n) {
		ssize_t done = writev(fd, v, n);

		if (done < 0) {
			if (errno == EINTR)
				continue;
			return err_set(err, -errno, "cannot write: %s", err_str(-errno));
		}
		while (n && (size_t)done >= v[0].iov_len) {
			done -= (ssize_t)v[0].iov_len;
			memmove(v, v + 1, sizeof(*v) * (size_t)(--n));
		}
		if (n) {
			v[0].iov_base = (uint8_t *)v[0].iov_base + done;
			v[0].iov_len -= (size_t)done;
		}
	}
	return 0;
}

/* This thread's CPU time, ns. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Compress p into w->packed as a zlib stream at `level` (libdeflate: whole
 * buffers, about twice zlib's speed at level 1, the same stream format). 1 if
 * the result is smaller than the input, 0 if storing it raw is better,
 * negative on failure. */
static int pack(struct container_writer *w, const uint8_t *p, size_t len, int level)
{
	size_t out;

	if (w->zc_level != level) {
		libdeflate_free_compressor(w->zc);
		w->zc = libdeflate_alloc_compressor(level);
		w->zc_level = w->zc ? level : -1;
		if (!w->zc)
			return -ENOMEM;
	}
	buf_reset(&w->packed);
	if (len < 2)
		return 0;
	if (buf_reserve(&w->packed, len))
		return -ENOMEM;
	/* Room for len - 1 bytes: 0 back means it would not be smaller. */
	out = libdeflate_zlib_compress(w->zc, p, len, w->packed.data, len - 1);
	w->packed.len = out;
	return out != 0;
}

static int index_add(struct container_writer *w, const struct index_entry *e)
{
	if (w->nr_index == w->cap_index) {
		size_t cap = w->cap_index ? 2 * w->cap_index : 64;
		struct index_entry *n = array_realloc(w->index, cap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		w->index = n;
		w->cap_index = cap;
	}
	w->index[w->nr_index++] = *e;
	return 0;
}

/* Write one block: p[0..len) is what the codec is applied to (for a
 * TRANSFORMED block, the transformed bytes); raw_crc is the CRC of the
 * payload as FORMAT.md defines it (before any transform). */
static int emit_block(struct container_writer *w, unsigned type, uint8_t flags, const uint8_t *p,
		      size_t len, uint32_t raw_crc, int level, uint64_t tmin, uint64_t tmax,
		      struct err *err)
{
	struct block_header bh = { .type = (uint16_t)type, .flags = flags, .seq = w->seq };
	struct index_entry ie = { .offset = w->offset, .type = (uint16_t)type, .seq = w->seq,
				  .time_min = tmin, .time_max = tmax };
	uint8_t hdr[CONTAINER_BLOCK_HEADER_SIZE];
	struct iovec iov[2];
	struct err e = { 0 };
	int packed = 0, ret;

	if (len > CONTAINER_MAX_RAW)
		return err_set(err, -PREC_ELIMIT, "block of %zu bytes exceeds the %u byte limit",
			       len, CONTAINER_MAX_RAW);
	if (level > 0) {
		uint64_t t0 = type == BLOCK_DATA ? thread_cpu_ns() : 0;

		packed = pack(w, p, len, level);
		if (type == BLOCK_DATA)
			w->stats.cpu_compress_ns += thread_cpu_ns() - t0;
		if (packed < 0)
			return err_set(err, packed, "cannot compress a %s block",
				       block_type_name(type));
	}
	bh.codec = packed ? CODEC_ZLIB : CODEC_STORED;
	bh.raw_len = (uint32_t)len;
	bh.stored_len = packed ? (uint32_t)w->packed.len : (uint32_t)len;
	bh.raw_crc = raw_crc;
	block_header_encode(&bh, hdr);
	iov[0].iov_base = hdr;
	iov[0].iov_len = sizeof(hdr);
	iov[1].iov_base = packed ? w->packed.data : (void *)p;
	iov[1].iov_len = bh.stored_len;
	ret = write_all(w->fd, iov, 2, &e);
	if (ret) {
		/* Part of the block may be in the file: cut it off, so that the
		 * file reads as a recording cut short after its last block. */
		if (!ftruncate(w->fd, (off_t)w->offset))
			lseek(w->fd, (off_t)w->offset, SEEK_SET);
		writer_stop(w, ret, &e);
		if (err)
			*err = e;
		return ret;
	}
	if (type != BLOCK_INDEX && index_add(w, &ie))
		return err_set(err, -ENOMEM, "out of memory");
	w->offset += sizeof(hdr) + bh.stored_len;
	w->seq++;
	w->stats.blocks++;
	w->stats.raw_bytes += len;
	w->stats.file_bytes = w->offset;
	return 0;
}

static void data_block_start(struct container_writer *w)
{
	buf_reset(&w->data);
	w->data.len = DATA_HEADER_SIZE;   /* reserved by buf_reserve in open */
	w->nr_spans = 0;
	w->nr_records = 0;
	w->nr_samples = 0;
}

/* Time range of the records in a DATA payload, through the callback. */
static void data_time_range(const struct container_writer *w, const struct buf *payload,
			    uint64_t *tmin, uint64_t *tmax)
{
	struct data_iter it;
	struct data_span s;

	*tmin = *tmax = 0;
	if (!w->opts.record_time || data_iter_init(&it, payload->data, payload->len, NULL))
		return;
	while (data_iter_next(&it, &s, NULL) == 1) {
		size_t off = 0, rec_len;

		while (record_next(s.records, s.len, off, &rec_len, NULL) == 1) {
			uint64_t t = w->opts.record_time(w->opts.ctx, s.records + off, rec_len);

			if (t && (!*tmin || t < *tmin))
				*tmin = t;
			if (t > *tmax)
				*tmax = t;
			off += rec_len;
		}
	}
}

/* Clear the unwritten tail of every user-stack copy (opts.layouts). */
static void clear_stack_tails(const struct container_writer *w, struct buf *payload)
{
	struct data_iter it;
	struct data_span s;

	if (data_iter_init(&it, payload->data, payload->len, NULL))
		return;
	while (data_iter_next(&it, &s, NULL) == 1) {
		size_t off = 0, rec_len;

		while (record_next(s.records, s.len, off, &rec_len, NULL) == 1) {
			const uint8_t *rec = s.records + off;
			struct perf_event_header h;
			struct record r;

			off += rec_len;
			memcpy(&h, rec, sizeof(h));
			if (h.type != PERF_RECORD_SAMPLE ||
			    record_decode(w->opts.layouts, rec, rec_len, &r, NULL) ||
			    !(r.u.sample.type & PERF_SAMPLE_STACK_USER) ||
			    r.u.sample.stack_dyn_size >= r.u.sample.stack_size)
				continue;
			/* the record lies in our own buffer: the cast is ours to make */
			memset((uint8_t *)r.u.sample.stack_data + r.u.sample.stack_dyn_size, 0,
			       r.u.sample.stack_size - r.u.sample.stack_dyn_size);
		}
	}
}

/* The payload encoded for the codec (FORMAT.md 6.4, or 6.3 with
 * opts.legacy_transform) into w->xform: its block flag, or 0 when it stays
 * as it is (no layouts, or stored blocks: encoding pays off only before a
 * real codec). */
static uint8_t encode_data(struct container_writer *w, const struct buf *payload, int level)
{
	if (!w->opts.layouts || level <= 0)
		return 0;
	if (w->opts.legacy_transform)
		return !data_transform(w->opts.layouts, payload->data, payload->len, &w->xform, NULL) &&
		       w->xform.len <= CONTAINER_MAX_RAW ? BLOCK_FLAG_TRANSFORMED : 0;
	if (!w->cols && !(w->cols = columns_enc_new()))
		return 0;
	return !columns_encode(w->cols, w->opts.layouts, payload->data, payload->len, &w->xform,
			       NULL) && w->xform.len <= CONTAINER_MAX_RAW ? BLOCK_FLAG_COLUMNS : 0;
}

/* Complete a DATA payload's header and write the block at `level` (0:
 * stored, as it is). */
static int emit_data(struct container_writer *w, struct buf *payload, uint32_t nr_spans,
		     uint32_t nr_records, uint32_t nr_samples, int level, struct err *err)
{
	struct data_header dh = { .nr_records = nr_records, .nr_spans = nr_spans };
	uint64_t t0 = thread_cpu_ns();
	uint32_t crc;
	uint8_t flag;
	int ret;

	if (w->clear_stacks)
		clear_stack_tails(w, payload);
	data_time_range(w, payload, &dh.time_min, &dh.time_max);
	data_header_encode(&dh, payload->data);
	flag = encode_data(w, payload, level);
	/* the CRC of what the block holds: the encoded bytes for COLUMNS, the
	 * records themselves otherwise (6.3 included) */
	crc = flag == BLOCK_FLAG_COLUMNS ? crc32_of(w->xform.data, w->xform.len) :
	      crc32_of(payload->data, payload->len);
	w->stats.cpu_transform_ns += thread_cpu_ns() - t0;
	if (flag)
		ret = emit_block(w, BLOCK_DATA, flag, w->xform.data, w->xform.len, crc, level,
				 dh.time_min, dh.time_max, err);
	else
		ret = emit_block(w, BLOCK_DATA, 0, payload->data, payload->len, crc,
				 level, dh.time_min, dh.time_max, err);
	if (ret)
		return ret;
	w->stats.records += nr_records;
	w->stats.samples += nr_samples;
	w->stats.blocks_stored_behind += !level && w->opts.level;
	w->stats.blocks_eased += level && level < w->opts.level;
	if (dh.time_min && (!w->stats.time_min || dh.time_min < w->stats.time_min))
		w->stats.time_min = dh.time_min;
	if (dh.time_max > w->stats.time_max)
		w->stats.time_max = dh.time_max;
	return 0;
}

/* The level of the block the worker takes from the queue (q_len counts
 * it): the writer's; its fastest (1) while 4 or more wait; stored while
 * more than half of the queue waits. */
static int queue_level(const struct container_writer *w)
{
	if (w->q_max >= 4 && w->q_len > w->q_max / 2)
		return 0;
	if (w->opts.level > 1 && w->q_len >= 4)
		return 1;
	return w->opts.level;
}

static void *bg_worker(void *arg)
{
	struct container_writer *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct err err = { 0 };
		struct writer_slot *slot;
		int level, ret;

		while (!w->q_len && !w->stop)
			pthread_cond_wait(&w->cond, &w->lock);
		if (!w->q_len)
			break;
		/* the caller fills only slots past the queue's end */
		slot = &w->q[w->q_head];
		level = queue_level(w);
		pthread_mutex_unlock(&w->lock);
		/* a block that could not be written must not be followed by
		 * others: the queue behind it is dropped */
		ret = writer__failed(w, NULL) ? 0 :
		      emit_data(w, &slot->payload, slot->spans, slot->records, slot->samples, level,
				&err);
		if (ret)
			writer_stop(w, ret, &err);
		pthread_mutex_lock(&w->lock);
		w->spare[w->nr_spare++] = slot->payload;
		slot->payload = (struct buf)BUF_INIT;
		w->q_head = (w->q_head + 1) % w->q_max;
		w->q_len--;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* Wait until no block waits for the worker nor is owned by it (they are
 * then in the file); report the failure that stopped the writer, if any. */
static int bg_wait_idle(struct container_writer *w, struct err *err)
{
	if (w->bg) {
		pthread_mutex_lock(&w->lock);
		while (w->q_len)
			pthread_cond_wait(&w->cond, &w->lock);
		pthread_mutex_unlock(&w->lock);
	}
	return writer__failed(w, err);
}

static void bg_stop(struct container_writer *w)
{
	if (!w->bg)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	w->bg = false;
}

/* A payload buffer for the caller to fill next, once the queue has room
 * for the one it fills now: a spare one, a new one, or (short of memory)
 * the next one the worker gives back. */
static int bg_next_buffer(struct container_writer *w, struct buf *next, struct err *err)
{
	pthread_mutex_lock(&w->lock);
	if (w->q_len == w->q_max)
		w->stats.queue_waits++;
	while (w->q_len == w->q_max)
		pthread_cond_wait(&w->cond, &w->lock);
	if (w->nr_spare)
		*next = w->spare[--w->nr_spare];
	pthread_mutex_unlock(&w->lock);
	if (next->data || !buf_reserve(next, w->opts.block_size))
		return 0;
	pthread_mutex_lock(&w->lock);
	while (!w->nr_spare && w->q_len)
		pthread_cond_wait(&w->cond, &w->lock);
	if (w->nr_spare)
		*next = w->spare[--w->nr_spare];
	pthread_mutex_unlock(&w->lock);
	return next->data ? 0 : err_set(err, -ENOMEM, "out of memory");
}

int container_writer_flush(struct container_writer *w, struct err *err)
{
	struct buf next = BUF_INIT;
	struct writer_slot *slot;
	int ret;

	ret = writer__failed(w, err);
	if (ret || !w->nr_spans)
		return ret;
	if (!w->bg) {
		ret = emit_data(w, &w->data, w->nr_spans, w->nr_records, w->nr_samples, w->opts.level,
				err);
		data_block_start(w);
		return ret;
	}
	/* Queue the full payload and fill another buffer. */
	ret = bg_next_buffer(w, &next, err);
	if (ret)
		return ret;
	pthread_mutex_lock(&w->lock);
	slot = &w->q[(w->q_head + w->q_len) % w->q_max];
	*slot = (struct writer_slot){ .payload = w->data, .spans = w->nr_spans,
				      .records = w->nr_records, .samples = w->nr_samples };
	if (++w->q_len > w->stats.queue_peak)
		w->stats.queue_peak = w->q_len;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	w->data = next;
	data_block_start(w);
	return 0;
}

int container_write_block(struct container_writer *w, unsigned type,
			  const void *payload, size_t len, struct err *err)
{
	int ret = container_writer_flush(w, err);

	if (!ret)
		ret = bg_wait_idle(w, err);
	if (ret)
		return ret;
	return emit_block(w, type, 0, payload, len, crc32_of(payload, len),
			  w->opts.level ? META_LEVEL : 0, 0, 0, err);
}

int container_writer_crc(struct container_writer *w, uint64_t *end, uint32_t *crc,
			 struct err *err)
{
	uint8_t chunk[1 << 16];
	uint64_t off = CONTAINER_HEADER_SIZE;
	int ret = container_writer_flush(w, err);

	if (!ret)
		ret = bg_wait_idle(w, err);
	if (ret)
		return ret;
	*crc = 0;
	*end = w->offset;
	while (off < w->offset) {
		size_t want = w->offset - off < sizeof(chunk) ? (size_t)(w->offset - off) : sizeof(chunk);
		ssize_t got = pread(w->fd, chunk, want, (off_t)off);

		if (got <= 0) {
			ret = got < 0 ? -errno : -EIO;
			return err_set(err, ret, "cannot read the file back: %s", err_str(ret));
		}
		*crc = libdeflate_crc32(*crc, chunk, (size_t)got);
		off += (uint64_t)got;
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void writer_free(struct container_writer *w)
{
	bg_stop(w);
	if (w->fd >= 0)
		close(w->fd);
	libdeflate_free_compressor(w->zc);
	buf_free(&w->data);
	for (size_t i = 0; w->q && i < w->q_max; i++)
		buf_free(&w->q[i].payload);
	free(w->q);
	for (size_t i = 0; i < w->nr_spare; i++)
		buf_free(&w->spare[i]);
	free(w->spare);
	buf_free(&w->packed);
	buf_free(&w->xform);
	columns_enc_free(w->cols);
	free(w->index);
	free(w);
}

/* A writer with its options checked and buffers reserved, no file yet. */
static int writer_new(struct container_writer **out, const struct container_writer_opts *opts,
		      struct err *err)
{
	struct container_writer *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (!w)
		return err_set(err, -ENOMEM, "out of memory");
	w->fd = -1;
	w->zc_level = -1;
	if (opts)
		w->opts = *opts;
	if (!w->opts.kind)
		w->opts.kind = CONTAINER_KIND_SAMPLES;
	if (w->opts.level < 0)
		w->opts.level = CONTAINER_DEFAULT_LEVEL;
	if (w->opts.level > CONTAINER_MAX_LEVEL) {
		int level = w->opts.level;

		writer_free(w);
		return err_set(err, -EINVAL, "compression level %d is not in 0..%d", level,
			       CONTAINER_MAX_LEVEL);
	}
	if (!w->opts.block_size)
		w->opts.block_size = CONTAINER_DEFAULT_BLOCK;
	if (w->opts.block_size < (64u << 10) + DATA_HEADER_SIZE + SPAN_HEADER_SIZE)
		w->opts.block_size = (64u << 10) + DATA_HEADER_SIZE + SPAN_HEADER_SIZE;
	if (w->opts.block_size > CONTAINER_MAX_RAW)
		w->opts.block_size = CONTAINER_MAX_RAW;
	if (w->opts.background) {
		size_t bytes = w->opts.queue_bytes ? w->opts.queue_bytes : CONTAINER_DEFAULT_QUEUE;

		w->q_max = bytes / w->opts.block_size ? bytes / w->opts.block_size : 1;
		w->q = calloc(w->q_max, sizeof(*w->q));
		w->spare = calloc(w->q_max + 1, sizeof(*w->spare));
		w->nr_spare = !!w->spare;
	}
	if (buf_reserve(&w->data, w->opts.block_size) ||
	    (w->opts.background &&
	     (!w->q || !w->spare || buf_reserve(&w->spare[0], w->opts.block_size)))) {
		writer_free(w);
		return err_set(err, -ENOMEM, "out of memory");
	}
	data_block_start(w);
	container_writer_set_layouts(w, w->opts.layouts);
	*out = w;
	return 0;
}

int container_writer_open(struct container_writer **out, const char *path,
			  const struct container_writer_opts *opts, struct err *err)
{
	struct container_writer *w;
	uint8_t hdr[CONTAINER_HEADER_SIZE];
	struct iovec iov = { hdr, sizeof(hdr) };
	int ret = writer_new(&w, opts, err);

	if (ret)
		return ret;
	w->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (w->fd < 0) {
		ret = -errno;
		writer_free(w);
		return err_set(err, ret, "cannot create '%s': %s", path, err_str(ret));
	}
	w->header.version_major = CONTAINER_VERSION_MAJOR;
	w->header.version_minor = CONTAINER_VERSION_MINOR;
	w->header.kind = w->opts.kind;
	w->header.byte_order = container_host_byte_order();
	w->header.created_ns = now_ns();
	container_header_encode(&w->header, hdr);
	ret = write_all(w->fd, &iov, 1, NULL);
	if (ret) {
		writer_free(w);
		return err_set(err, ret, "cannot write '%s': %s", path, err_str(ret));
	}
	w->offset = CONTAINER_HEADER_SIZE;
	if (w->opts.background) {
		pthread_mutex_init(&w->lock, NULL);
		pthread_cond_init(&w->cond, NULL);
		ret = -thread_create(&w->thread, bg_worker, w);
		if (ret) {
			pthread_mutex_destroy(&w->lock);
			pthread_cond_destroy(&w->cond);
			writer_free(w);
			return err_set(err, ret, "cannot start the compression thread: %s",
				       err_str(ret));
		}
		w->bg = true;
	}
	*out = w;
	return 0;
}

int container_writer_close(struct container_writer *w, struct err *err)
{
	uint8_t hdr[CONTAINER_HEADER_SIZE];
	struct buf idx = BUF_INIT;
	uint64_t index_offset;
	int ret;

	ret = container_writer_flush(w, err);
	if (!ret)
		ret = bg_wait_idle(w, err);
	bg_stop(w);
	if (!ret) {
		ret = index_encode(w->index, w->nr_index, &idx);
		if (ret)
			err_set(err, ret, "out of memory");
	}
	index_offset = w->offset;
	if (!ret)
		ret = emit_block(w, BLOCK_INDEX, 0, idx.data, idx.len, crc32_of(idx.data, idx.len),
				 w->opts.level ? META_LEVEL : 0, 0, 0, err);
	if (!ret) {
		w->header.index_offset = index_offset;
		container_header_encode(&w->header, hdr);
		if (pwrite(w->fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr))
			ret = err_set(err, -EIO, "cannot update the file header: %s",
				      strerror(errno));
	}
	if (!ret && close(w->fd) < 0)
		ret = err_set(err, -errno, "cannot close: %s", err_str(-errno));
	w->fd = -1;
	buf_free(&idx);
	writer_free(w);
	return ret;
}

int container_writer_resume(struct container_writer **out, const char *path,
			    const struct container_writer_opts *opts,
			    const struct container_header *h, struct index_entry *e, size_t n,
			    uint64_t cut, struct err *err)
{
	struct container_writer *w;
	int ret = writer_new(&w, opts, err);

	*out = NULL;
	if (ret) {
		free(e);
		return ret;
	}
	w->header = *h;
	if (w->header.version_minor < CONTAINER_VERSION_MINOR)
		w->header.version_minor = CONTAINER_VERSION_MINOR;
	w->header.index_offset = 0;
	w->index = e;
	w->nr_index = w->cap_index = n;
	w->seq = n ? w->index[n - 1].seq + 1 : 0;
	w->offset = cut;
	w->fd = open(path, O_RDWR | O_CLOEXEC);
	if (w->fd < 0 || ftruncate(w->fd, (off_t)cut) || lseek(w->fd, (off_t)cut, SEEK_SET) < 0) {
		ret = -errno;
		writer_free(w);
		return err_set(err, ret, "cannot write to '%s': %s", path, err_str(ret));
	}
	*out = w;
	return 0;
}

int container_writer_append(struct container_writer **out, const char *path,
			    const struct container_writer_opts *opts, unsigned replace,
			    unsigned replace_before, unsigned replace_before2, struct err *err)
{
	struct container_reader *r;
	struct index_entry *e = NULL;
	uint64_t cut;
	size_t n = 0;
	int ret;

	*out = NULL;
	ret = container_reader_open(&r, path, NULL, err);
	if (ret)
		return ret;
	ret = container_reader_index(r, &e, &n, err);
	if (ret < 0)
		goto out;
	if (ret == 0) {
		ret = err_set(err, -EINVAL, "'%s' did not finish cleanly (no index): "
			      "nothing can be added to it", path);
		goto out;
	}
	cut = container_reader_header(r)->index_offset;
	while (replace && n && e[n - 1].type == replace)
		cut = e[--n].offset;
	if (replace_before && n && e[n - 1].type == replace_before)
		cut = e[--n].offset;
	if (replace_before2 && n && e[n - 1].type == replace_before2)
		cut = e[--n].offset;
	for (size_t i = 0; i < n; i++)
		if (replace && e[i].type == replace) {
			ret = err_set(err, -EINVAL, "'%s': its %s blocks are not at its end: "
				      "they cannot be replaced", path, block_type_name(replace));
			goto out;
		}
	ret = container_writer_resume(out, path, opts, container_reader_header(r), e, n, cut, err);
	e = NULL;
out:
	free(e);
	container_reader_close(r);
	return ret < 0 ? ret : 0;
}

void container_writer_set_layouts(struct container_writer *w, const struct record_layouts *ls)
{
	bg_wait_idle(w, NULL);
	w->opts.layouts = ls;
	w->clear_stacks = false;
	for (size_t i = 0; ls && i < record_layouts_count(ls); i++)
		if (record_layouts_get(ls, i)->sample_type & PERF_SAMPLE_STACK_USER)
			w->clear_stacks = true;
}

void container_writer_abort(struct container_writer *w)
{
	if (w)
		writer_free(w);
}

void container_writer_get_stats(struct container_writer *w, struct container_writer_stats *st)
{
	clockid_t cid;
	struct timespec ts;

	bg_wait_idle(w, NULL);
	*st = w->stats;
	st->error = writer__failed(w, NULL);
	if (w->bg && !pthread_getcpuclockid(w->thread, &cid) && !clock_gettime(cid, &ts))
		st->cpu_worker_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
