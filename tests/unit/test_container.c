/* SPDX-License-Identifier: MIT */
/* Unit tests of the container: header, writer, reader, block payloads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/blocks.h"
#include "format/container.h"
#include "format/header.h"
#include "format/record.h"
#include "tools/synth.h"

static char tmpdir[] = "/tmp/test_container.XXXXXX";

static const char *tmp_path(const char *name)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s/%s", tmpdir, name);
	return buf;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc((size_t)n + 1);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return p;
}

/* Problems reported by the reader, by kind. */
struct seen {
	int kinds[16];
	uint64_t last_offset, last_bytes;
	int last_reason;
};

static void on_problem(void *ctx, const struct container_problem *p)
{
	struct seen *s = ctx;

	s->kinds[p->kind]++;
	s->last_offset = p->offset;
	s->last_bytes = p->bytes;
	s->last_reason = p->reason;
	assert_non_null(p->msg);
	assert_true(strlen(p->msg) > 0);
}

/* ---- a reference file -------------------------------------------------- */

#define NR_SAMPLES 3000

static uint8_t records[NR_SAMPLES * 256];
static size_t records_len;

static void make_records(void)
{
	struct synth s;

	synth_init(&s, 42, 7, 500);
	records_len = 0;
	for (int i = 0; i < NR_SAMPLES; i++)
		records_len += synth_sample(&s, records + records_len, 0);
}

/* Write meta, event, records (in wrapped pieces of ~4 KiB, one round per
 * 8), build ids, counts; small blocks so that there are several DATA blocks. */
static bool background;   /* write_reference() with the compression thread */

static void write_reference(const char *path, int level, bool finish)
{
	struct container_writer_opts o = { .level = level, .block_size = 70000,
					   .background = background };
	struct container_writer *w;
	struct perf_event_attr attr;
	struct event_id ids[1] = { { 7, -1, 500 } };
	struct metadata m = { 0 };
	struct buf b = BUF_INIT;
	struct err err = { 0 };
	size_t off = 0;
	int n = 0;

	assert_int_equal(container_writer_open(&w, path, &o, &err), 0);
	metadata_set_str(&m, META_HOSTNAME, "host");
	metadata_set_u64(&m, META_NR_CPUS_ONLINE, 2);
	assert_int_equal(metadata_encode(&m, &b), 0);
	assert_int_equal(container_write_block(w, BLOCK_METADATA, b.data, b.len, &err), 0);
	metadata_free(&m);
	buf_reset(&b);
	synth_attr(&attr);
	assert_int_equal(event_block_encode(&attr, sizeof(attr), "cpu-clock", ids, 1, &b), 0);
	assert_int_equal(container_write_block(w, BLOCK_EVENT, b.data, b.len, &err), 0);
	buf_free(&b);
	while (off < records_len) {
		size_t end = off, cut;

		/* whole records, about 4 KiB, handed over as two pieces */
		while (end < records_len && end - off < 4096) {
			struct perf_event_header h;

			memcpy(&h, records + end, sizeof(h));
			end += h.size;
		}
		cut = off + (end - off) / 3;
		assert_int_equal(container_write_records(w, (uint32_t)(n & 1), records + off,
							 cut - off, records + cut, end - cut, &err), 0);
		if (++n % 8 == 0)
			assert_int_equal(container_write_round(w, &err), 0);
		off = end;
	}
	if (finish) {
		assert_int_equal(container_writer_close(w, &err), 0);
	} else {
		assert_int_equal(container_writer_flush(w, &err), 0);
		container_writer_abort(w);
	}
}

/* Read a file back: concatenated records of all RECORDS spans, counts. */
struct readback {
	struct buf recs;
	int blocks_by_type[BLOCK_TYPE_MAX];
	int rounds;
	struct container_stats stats;
	struct seen seen;
};

static int read_back(const char *path, struct readback *rb)
{
	struct container_reader_opts o = { .warn = on_problem, .ctx = &rb->seen };
	struct container_reader *r;
	struct container_block b;
	struct err err = { 0 };
	int ret;

	memset(rb, 0, sizeof(*rb));
	ret = container_reader_open(&r, path, &o, &err);
	if (ret)
		return ret;
	while ((ret = container_reader_next(r, &b, &err)) == 1) {
		assert_true(b.type < BLOCK_TYPE_MAX);
		rb->blocks_by_type[b.type]++;
		if (b.type == BLOCK_DATA) {
			struct data_iter it;
			struct data_span s;

			assert_int_equal(data_iter_init(&it, b.data, b.len, &err), 0);
			while (data_iter_next(&it, &s, &err) == 1) {
				if (s.kind == SPAN_ROUND_END)
					rb->rounds++;
				else
					buf_append(&rb->recs, s.records, s.len);
			}
		}
	}
	assert_int_equal(ret, 0);
	rb->stats = *container_reader_stats(r);
	container_reader_close(r);
	return 0;
}

static void test_round_trip(void **state)
{
	(void)state;
	for (int level = 0; level <= 1; level++) {
		struct readback rb;

		write_reference(tmp_path("ref.data"), level, true);
		assert_int_equal(read_back(tmp_path("ref.data"), &rb), 0);
		assert_int_equal(rb.recs.len, records_len);
		assert_memory_equal(rb.recs.data, records, records_len);
		assert_int_equal(rb.blocks_by_type[BLOCK_METADATA], 1);
		assert_int_equal(rb.blocks_by_type[BLOCK_EVENT], 1);
		assert_true(rb.blocks_by_type[BLOCK_DATA] > 3);
		assert_int_equal(rb.blocks_by_type[BLOCK_INDEX], 1);
		assert_true(rb.rounds > 10);
		assert_true(rb.stats.finished);
		assert_false(rb.stats.truncated);
		assert_int_equal(rb.stats.corrupt_blocks, 0);
		assert_int_equal(rb.seen.kinds[PROBLEM_UNFINISHED], 0);
		buf_free(&rb.recs);
	}
}

static void test_round_trip_background(void **state)
{
	background = true;
	test_round_trip(state);
	background = false;
}

/* A write failure is never lost: with or without the compression thread,
 * it comes back from a later call (here: past a file size limit). */
static void test_write_failure_reported(void **state)
{
	struct rlimit old, lim;

	(void)state;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 100000;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (int bg = 0; bg <= 1; bg++) {
		struct container_writer_opts o = { .level = 0, .block_size = 70000, .background = bg };
		struct container_writer *w;
		struct err err = { 0 };
		int ret = 0;

		assert_int_equal(container_writer_open(&w, tmp_path("big.data"), &o, &err), 0);
		for (int i = 0; i < 4 && !ret; i++)
			ret = container_write_records(w, 0, records, records_len, NULL, 0, &err);
		if (!ret)
			ret = container_writer_close(w, &err);
		else
			container_writer_abort(w);
		assert_int_equal(ret, -EFBIG);
		assert_non_null(strstr(err.msg, "cannot write"));
	}
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
}

/* ... and it stops the writer: the file ends with its last complete block
 * (read back without damage, as a recording cut short there), every later
 * call returns the same error, and the stats say what the file holds. */
static void test_write_failure_keeps_blocks(void **state)
{
	struct rlimit old, lim;

	(void)state;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 250000;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (int bg = 0; bg <= 1; bg++) {
		struct container_writer_opts o = { .level = 0, .block_size = 70000, .background = bg };
		struct container_writer_stats st;
		struct container_writer *w;
		struct container_reader *r;
		struct container_block b;
		struct seen seen = { 0 };
		struct container_reader_opts ro = { .warn = on_problem, .ctx = &seen };
		struct err err = { 0 };
		uint64_t nr = 0;
		struct stat sb;
		int ret = 0;

		assert_int_equal(container_writer_open(&w, tmp_path("cut.data"), &o, &err), 0);
		for (int i = 0; i < 4 && !ret; i++)
			ret = container_write_records(w, 0, records, records_len, NULL, 0, &err);
		/* the worker's blocks may still wait in its queue: a block of our
		 * own waits for them, and sees their failure */
		if (!ret)
			ret = container_write_block(w, BLOCK_METADATA, "x", 1, &err);
		assert_int_equal(ret, -EFBIG);
		assert_int_equal(container_write_records(w, 0, records, 64, NULL, 0, &err), -EFBIG);
		assert_int_equal(container_write_round(w, &err), -EFBIG);
		assert_int_equal(container_writer_flush(w, &err), -EFBIG);
		assert_int_equal(container_write_block(w, BLOCK_METADATA, "x", 1, &err), -EFBIG);
		container_writer_get_stats(w, &st);
		assert_int_equal(st.error, -EFBIG);
		assert_true(st.samples > 0);
		assert_int_equal(st.samples, st.records);
		container_writer_abort(w);
		assert_int_equal(stat(tmp_path("cut.data"), &sb), 0);
		assert_int_equal((uint64_t)sb.st_size, st.file_bytes);

		assert_int_equal(container_reader_open(&r, tmp_path("cut.data"), &ro, &err), 0);
		while (container_reader_next(r, &b, &err) == 1) {
			uint32_t n;

			assert_int_equal(b.type, BLOCK_DATA);
			memcpy(&n, b.data + 16, sizeof(n));
			nr += n;
		}
		assert_int_equal(nr, st.records);
		assert_int_equal(seen.kinds[PROBLEM_UNFINISHED], 1);
		assert_int_equal(seen.kinds[PROBLEM_TRUNCATED], 0);
		assert_int_equal(container_reader_stats(r)->corrupt_blocks, 0);
		container_reader_close(r);
	}
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
}

static void test_index_matches_blocks(void **state)
{
	struct container_reader *r;
	struct container_block b;
	struct index_entry *idx = NULL;
	size_t nidx = 0, nblocks = 0;
	uint64_t offsets[256];
	struct err err = { 0 };

	(void)state;
	write_reference(tmp_path("idx.data"), 1, true);
	assert_int_equal(container_reader_open(&r, tmp_path("idx.data"), NULL, &err), 0);
	while (container_reader_next(r, &b, &err) == 1) {
		if (b.type == BLOCK_INDEX) {
			assert_int_equal(b.offset, container_reader_header(r)->index_offset);
			assert_int_equal(index_decode(b.data, b.len, &idx, &nidx, &err), 0);
		} else {
			assert_true(nblocks < 256);
			offsets[nblocks++] = b.offset;
		}
	}
	assert_int_equal(nidx, nblocks);
	for (size_t i = 0; i < nidx; i++) {
		assert_int_equal(idx[i].offset, offsets[i]);
		assert_int_equal(idx[i].seq, i);
	}
	free(idx);
	container_reader_close(r);
}

static uint64_t sample_time(void *ctx, const void *rec, size_t len)
{
	uint64_t t;

	(void)ctx;
	(void)len;
	memcpy(&t, (const uint8_t *)rec + 32, 8);
	return t;
}

static void check_time_ranges(bool bg)
{
	struct container_writer_opts o = { .level = 1, .record_time = sample_time,
					   .background = bg };
	struct container_writer *w;
	struct container_reader *r;
	struct container_block b;
	struct err err = { 0 };
	struct data_iter it;

	assert_int_equal(container_writer_open(&w, tmp_path("t.data"), &o, &err), 0);
	assert_int_equal(container_write_records(w, 0, records, records_len, NULL, 0, &err), 0);
	assert_int_equal(container_writer_close(w, &err), 0);
	assert_int_equal(container_reader_open(&r, tmp_path("t.data"), NULL, &err), 0);
	assert_int_equal(container_reader_next(r, &b, &err), 1);
	assert_int_equal(b.type, BLOCK_DATA);
	assert_int_equal(data_iter_init(&it, b.data, b.len, &err), 0);
	assert_int_equal(it.h.nr_records, NR_SAMPLES);
	assert_int_equal(it.h.time_min, sample_time(NULL, records, 0));
	assert_true(it.h.time_max > it.h.time_min);
	container_reader_close(r);
}

static void test_time_ranges(void **state)
{
	(void)state;
	check_time_ranges(false);
	check_time_ranges(true);
}

static void test_unfinished_file(void **state)
{
	struct readback rb;

	(void)state;
	write_reference(tmp_path("unf.data"), 1, false);
	assert_int_equal(read_back(tmp_path("unf.data"), &rb), 0);
	assert_false(rb.stats.finished);
	assert_int_equal(rb.seen.kinds[PROBLEM_UNFINISHED], 1);
	assert_int_equal(rb.recs.len, records_len);
	buf_free(&rb.recs);
}

/* Cut the file at every length: never an error, never a crash, and the
 * records read back are always a prefix of what was written. */
static void test_truncation_everywhere(void **state)
{
	size_t len;
	uint8_t *full;
	const char *cut_path = tmp_path("cut.data");

	(void)state;
	write_reference(tmp_path("full.data"), 1, true);
	full = slurp(tmp_path("full.data"), &len);
	for (size_t cut = 0; cut < len; cut += (cut < 200 ? 1 : 97)) {
		struct readback rb;
		int fd = open(cut_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int ret;

		assert_true(fd >= 0);
		assert_int_equal(write(fd, full, cut), (ssize_t)cut);
		close(fd);
		ret = read_back(cut_path, &rb);
		if (cut < CONTAINER_HEADER_SIZE) {
			assert_int_equal(ret, -PREC_EFORMAT);
			continue;
		}
		assert_int_equal(ret, 0);
		assert_true(rb.recs.len <= records_len);
		if (rb.recs.len)
			assert_memory_equal(rb.recs.data, records, rb.recs.len);
		if (cut > CONTAINER_HEADER_SIZE && rb.stats.bytes_ignored == 0) {
			/* cut exactly at a block boundary: nothing ignored */
			assert_false(rb.stats.truncated);
		}
		assert_int_equal(rb.stats.corrupt_blocks, 0);
		buf_free(&rb.recs);
	}
	free(full);
}

/* Repair the file cut at many lengths: it then reads as a finished file,
 * without a warning, with the records the cut file gave, an index that
 * matches its blocks, and metadata that counts the samples and says it was
 * repaired. A finished file is left as it is. */
static void check_repaired(const char *path, const struct readback *cut, uint64_t bytes_cut)
{
	struct container_reader *r;
	struct container_block b;
	struct index_entry *idx = NULL;
	struct metadata m = { 0 };
	struct readback rb;
	struct err err = { 0 };
	size_t nidx = 0, n = 0;
	uint64_t v, samples = 0;

	assert_int_equal(read_back(path, &rb), 0);
	assert_true(rb.stats.finished);
	for (int k = 0; k <= PROBLEM_SEQ_GAP; k++)
		assert_int_equal(rb.seen.kinds[k], 0);
	assert_int_equal(rb.recs.len, cut->recs.len);
	if (rb.recs.len)
		assert_memory_equal(rb.recs.data, cut->recs.data, rb.recs.len);
	for (size_t off = 0; off < rb.recs.len; off += ((struct perf_event_header *)(rb.recs.data + off))->size)
		samples += ((struct perf_event_header *)(rb.recs.data + off))->type == PERF_RECORD_SAMPLE;
	assert_int_equal(container_reader_open(&r, path, NULL, &err), 0);
	assert_int_equal(container_reader_index(r, &idx, &nidx, &err), 1);
	while (container_reader_next(r, &b, &err) == 1) {
		if (b.type == BLOCK_METADATA)
			assert_int_equal(metadata_decode(&m, b.data, b.len, &err), 0);
		if (b.type == BLOCK_INDEX)
			continue;
		assert_true(n < nidx);
		assert_int_equal(idx[n].offset, b.offset);
		assert_int_equal(idx[n].type, b.type);
		assert_int_equal(idx[n++].seq, b.seq);
	}
	assert_int_equal(n, nidx);
	assert_true(metadata_get_u64(&m, META_NR_SAMPLES, &v));
	assert_int_equal(v, samples);
	assert_true(metadata_get_u64(&m, META_REPAIRED, &v));
	assert_int_equal(v, bytes_cut);
	metadata_free(&m);
	free(idx);
	container_reader_close(r);
	buf_free(&rb.recs);
}

static void test_repair(void **state)
{
	const char *cut_path = tmp_path("rep.data");
	struct container_repair_stats st;
	struct err err = { 0 };
	uint8_t *full;
	size_t len, good;

	(void)state;
	write_reference(tmp_path("full.data"), 1, false);
	full = slurp(tmp_path("full.data"), &len);
	for (size_t cut = CONTAINER_HEADER_SIZE; cut <= len; cut += 331) {
		struct readback rb;
		int fd = open(cut_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, full, cut), (ssize_t)cut);
		close(fd);
		assert_int_equal(read_back(cut_path, &rb), 0);
		assert_int_equal(container_repair(cut_path, -1, &st, &err), 0);
		assert_true(st.repaired);
		assert_false(st.stream);
		assert_int_equal(st.file_size, cut);
		assert_int_equal(st.bytes_cut, rb.stats.bytes_ignored);
		check_repaired(cut_path, &rb, st.bytes_cut);
		buf_free(&rb.recs);
	}
	/* a finished file: nothing to do */
	free(slurp(cut_path, &good));
	assert_int_equal(container_repair(cut_path, -1, &st, &err), 0);
	assert_false(st.repaired);
	assert_int_equal(st.blocks, 0);
	free(slurp(cut_path, &len));
	assert_int_equal(len, good);
	free(full);
}

/* Flip every byte in turn: every change is caught by a CRC somewhere. */
static void test_every_flip_detected(void **state)
{
	size_t len;
	uint8_t *full, *p;
	const char *path = tmp_path("flip.data");
	struct container_writer_opts o = { .level = 1 };
	struct container_writer *w;
	struct err err = { 0 };
	size_t small_len = 0;

	(void)state;
	/* a small, well-formed file: 20 records and an index */
	assert_int_equal(container_writer_open(&w, tmp_path("small.data"), &o, &err), 0);
	{
		size_t off = 0, n = 0;

		while (n < 20) {
			struct perf_event_header h;

			memcpy(&h, records + off, sizeof(h));
			off += h.size;
			n++;
		}
		assert_int_equal(container_write_records(w, 1, records, off, NULL, 0, &err), 0);
		small_len = off;
	}
	assert_int_equal(container_writer_close(w, &err), 0);
	full = slurp(tmp_path("small.data"), &len);
	p = malloc(len);
	for (size_t i = 0; i < len; i++) {
		struct readback rb;
		int fd, ret;

		memcpy(p, full, len);
		p[i] ^= 0x20;
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		assert_int_equal(write(fd, p, len), (ssize_t)len);
		close(fd);
		ret = read_back(path, &rb);
		if (ret) {
			assert_true(i < CONTAINER_HEADER_SIZE);
		} else {
			/* Either the damage is reported, or it did not change what
			 * the file decodes to (e.g. unused padding bits at the end of
			 * a deflate stream): never a silent wrong answer. */
			if (rb.stats.corrupt_blocks + rb.stats.skipped_blocks == 0 &&
			    rb.stats.finished) {
				assert_int_equal(rb.recs.len, small_len);
				assert_memory_equal(rb.recs.data, records, small_len);
			}
		}
		buf_free(&rb.recs);
	}
	free(p);
	free(full);
}

static void test_header_checks(void **state)
{
	struct container_header h = { 1, 0, CONTAINER_KIND_SAMPLES, 0, 0, 12345, 0 }, out;
	uint8_t b[CONTAINER_HEADER_SIZE];
	struct err err = { 0 };

	(void)state;
	h.byte_order = container_host_byte_order();
	container_header_encode(&h, b);
	assert_int_equal(container_header_decode(b, sizeof(b), &out, &err), 0);
	assert_int_equal(out.created_ns, 12345);
	assert_int_equal(container_header_decode(b, 63, &out, &err), -PREC_EFORMAT);

	h.version_major = 2;
	container_header_encode(&h, b);
	assert_int_equal(container_header_decode(b, sizeof(b), &out, &err), -PREC_EVERSION);
	assert_non_null(strstr(err.msg, "2.0"));

	h.version_major = 1;
	h.byte_order = container_host_byte_order() == 1 ? 2 : 1;
	container_header_encode(&h, b);
	assert_int_equal(container_header_decode(b, sizeof(b), &out, &err), -PREC_EENDIAN);

	/* reserved bytes: corrupt for 1.0, accepted for a newer minor */
	h.byte_order = container_host_byte_order();
	container_header_encode(&h, b);
	b[50] = 1;
	b[20] = b[21] = b[22] = b[23] = 0;
	{
		uint32_t crc = crc32_of(b, sizeof(b));

		memcpy(b + 20, &crc, 4);
	}
	assert_int_equal(container_header_decode(b, sizeof(b), &out, &err), -PREC_ECORRUPT);
	h.version_minor = CONTAINER_VERSION_MINOR + 1;
	container_header_encode(&h, b);
	b[50] = 1;
	b[20] = b[21] = b[22] = b[23] = 0;
	{
		uint32_t crc = crc32_of(b, sizeof(b));

		memcpy(b + 20, &crc, 4);
	}
	assert_int_equal(container_header_decode(b, sizeof(b), &out, &err), 0);

	h.version_minor = 0;
	h.kind = 9;
	container_header_encode(&h, b);
	assert_int_equal(container_header_decode(b, sizeof(b), &out, &err), -PREC_ECORRUPT);
}

static void test_open_errors(void **state)
{
	struct container_reader *r;
	struct err err = { 0 };
	int fd;

	(void)state;
	assert_int_equal(container_reader_open(&r, tmp_path("missing"), NULL, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "missing"));
	assert_int_equal(container_reader_open(&r, tmpdir, NULL, &err), -EISDIR);
	fd = open(tmp_path("empty"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	close(fd);
	assert_int_equal(container_reader_open(&r, tmp_path("empty"), NULL, &err), -PREC_EFORMAT);
	assert_non_null(strstr(err.msg, "not a prec.data file"));
	assert_null(r);
}

static void test_unknown_block_skipped(void **state)
{
	struct container_writer *w;
	struct err err = { 0 };
	struct readback rb;

	(void)state;
	assert_int_equal(container_writer_open(&w, tmp_path("unk.data"), NULL, &err), 0);
	assert_int_equal(container_write_block(w, 300, "hello", 5, &err), 0);
	{
		struct perf_event_header h;

		memcpy(&h, records, sizeof(h));
		assert_int_equal(container_write_records(w, 0, records, h.size, NULL, 0, &err), 0);
	}
	assert_int_equal(container_writer_close(w, &err), 0);
	assert_int_equal(read_back(tmp_path("unk.data"), &rb), 0);
	assert_int_equal(rb.stats.skipped_blocks, 1);
	assert_int_equal(rb.seen.kinds[PROBLEM_SKIPPED], 1);
	assert_int_equal(rb.seen.last_reason, SKIP_UNKNOWN_TYPE);
	buf_free(&rb.recs);
}

struct ksym_seen {
	size_t n;
	uint64_t last_addr;
	char last_type;
	char name[64], module[64];
};

static int ksym_note(void *ctx, const struct kallsym *s)
{
	struct ksym_seen *k = ctx;

	k->n++;
	k->last_addr = s->addr;
	k->last_type = s->type;
	snprintf(k->name, sizeof(k->name), "%.*s", (int)s->name_len, s->name);
	snprintf(k->module, sizeof(k->module), "%.*s", (int)s->module_len, s->module ? s->module : "");
	return 0;
}

static void test_kallsyms_walk(void **state)
{
	static const char *const bad[] = {
		"ffffffff81000000 T _text",             /* no newline at the end */
		"\n",                                   /* empty line */
		"ffffffff81000000 T \n",                /* no name */
		"ffffffff81000000T _text\n",            /* no space after the address */
		"xyz T _text\n",                        /* not hex */
		"11112222333344445 T _text\n",          /* 17 digits */
		"ffffffff81000000 T _text [mod]\n",     /* space, not a tab */
		"ffffffff81000000 T _text\t[]\n",       /* empty module */
		"ffffffff81000000 T _text\t[mod\n",     /* unclosed module */
		"ffffffff81000000 T _te\x01xt\n",       /* control byte in the name */
	};
	const char *good = "ffffffff81000000 T _text\n0 w weak\nFFFFFFFFa0000010 t probe\t[e1000]\n";
	struct ksym_seen k = { 0 };
	struct err err = { 0 };
	size_t n;

	(void)state;
	assert_int_equal(kallsyms_walk((const uint8_t *)good, strlen(good), ksym_note, &k, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(k.n, 3);
	assert_true(k.last_addr == 0xffffffffa0000010ull);
	assert_int_equal(k.last_type, 't');
	assert_string_equal(k.name, "probe");
	assert_string_equal(k.module, "e1000");
	assert_int_equal(kallsyms_walk(NULL, 0, NULL, NULL, &n, &err), 0);
	assert_int_equal(n, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = 0;
		assert_int_equal(block_payload_validate(BLOCK_KALLSYMS, (const uint8_t *)bad[i],
							strlen(bad[i]), &err), -PREC_ECORRUPT);
		assert_non_null(strstr(err.msg, "KALLSYMS"));
	}
}

static void test_writer_rejects_partial_records(void **state)
{
	struct container_writer *w;
	struct container_writer_opts o = { .level = 13 };
	struct err err = { 0 };
	uint8_t bad[16] = { 9, 0, 0, 0, 0, 0, 4, 0 };   /* size 4 < 8 */

	(void)state;
	assert_int_equal(container_writer_open(&w, tmp_path("lvl.data"), &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "compression level 13"));
	assert_int_equal(container_writer_open(&w, tmp_path("bad.data"), NULL, &err), 0);
	assert_int_equal(container_write_records(w, 0, records, 20, NULL, 0, &err), -EINVAL);
	assert_int_equal(container_write_records(w, 0, bad, sizeof(bad), NULL, 0, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "size 4"));
	container_writer_abort(w);
	assert_int_equal(container_writer_open(&w, "/nonexistent/dir/x.data", NULL, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "cannot create"));
}

static void test_metadata_round_trip(void **state)
{
	struct metadata m = { 0 }, back = { 0 };
	char *argv[] = { "prec", "", "-g" };
	struct buf b = BUF_INIT;
	struct err err = { 0 };
	const struct meta_item *it;
	uint64_t v;

	(void)state;
	assert_int_equal(metadata_set_u64(&m, META_PAGE_SIZE, 4096), 0);
	assert_int_equal(metadata_set_str(&m, META_HOSTNAME, "a"), 0);
	assert_int_equal(metadata_set_str(&m, META_HOSTNAME, "b"), 0);   /* replaces */
	assert_int_equal(metadata_set_strlist(&m, META_CMDLINE, 3, argv), 0);
	assert_int_equal(metadata_set_bytes(&m, 4000, 77, "xyz", 3), 0);
	assert_int_equal(m.nr, 4);
	assert_int_equal(metadata_encode(&m, &b), 0);
	assert_int_equal(metadata_decode(&back, b.data, b.len, &err), 0);
	assert_true(metadata_get_u64(&back, META_PAGE_SIZE, &v));
	assert_int_equal(v, 4096);
	assert_string_equal(metadata_get_str(&back, META_HOSTNAME), "b");
	it = metadata_get(&back, META_CMDLINE);
	assert_non_null(it);
	assert_int_equal(it->len, 9);
	assert_memory_equal(it->value, "prec\0\0-g\0", 9);
	it = metadata_get(&back, 4000);
	assert_int_equal(it->kind, 77);
	assert_false(metadata_get_u64(&back, META_HOSTNAME, &v));
	assert_null(metadata_get_str(&back, META_ARCH));
	assert_string_equal(meta_field_find(META_CMDLINE)->name, "cmdline");
	assert_null(meta_field_find(9999));

	/* malformed payloads */
	{
		uint8_t u64_short[12] = { 13, 0, 1, 0, 4, 0, 0, 0, 1, 2, 3, 4 };
		uint8_t too_long[10] = { 1, 0, 2, 0, 100, 0, 0, 0, 'a', 'b' };
		uint8_t list_nonul[10] = { 7, 0, 3, 0, 2, 0, 0, 0, 'a', 'b' };

		assert_int_equal(metadata_decode(NULL, u64_short, sizeof(u64_short), &err), -PREC_ECORRUPT);
		assert_int_equal(metadata_decode(NULL, too_long, sizeof(too_long), &err), -PREC_ECORRUPT);
		assert_int_equal(metadata_decode(NULL, list_nonul, sizeof(list_nonul), &err), -PREC_ECORRUPT);
		assert_int_equal(metadata_decode(NULL, too_long, 5, &err), -PREC_ECORRUPT);
	}
	metadata_free(&m);
	metadata_free(&back);
	buf_free(&b);
}

static void test_event_round_trip(void **state)
{
	uint8_t attr[200];
	struct event_id ids[3] = { { 1, 0, -1 }, { 2, 1, -1 }, { 0xffffffffffull, -1, 4242 } };
	struct event_desc ev;
	struct buf b = BUF_INIT;
	struct err err = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(attr); i++)
		attr[i] = (uint8_t)i;
	assert_int_equal(event_block_encode(attr, sizeof(attr), "cycles:u", ids, 3, &b), 0);
	assert_int_equal(event_block_decode(b.data, b.len, &ev, &err), 0);
	assert_int_equal(ev.attr_size, 200);
	assert_memory_equal(ev.attr_bytes, attr, 200);
	assert_memory_equal(&ev.attr, attr, sizeof(ev.attr));
	assert_string_equal(ev.name, "cycles:u");
	assert_int_equal(ev.nr_ids, 3);
	assert_int_equal(ev.ids[2].id, 0xffffffffffull);
	assert_int_equal(ev.ids[2].cpu, -1);
	assert_int_equal(ev.ids[2].tid, 4242);
	event_desc_free(&ev);
	/* wrong sizes */
	assert_int_equal(event_block_decode(b.data, b.len - 1, &ev, &err), -PREC_ECORRUPT);
	assert_int_equal(event_block_decode(b.data, 10, &ev, &err), -PREC_ECORRUPT);
	b.data[0] = 10;   /* attr_size 10 < 64 */
	assert_int_equal(event_block_decode(b.data, b.len, &ev, &err), -PREC_ECORRUPT);
	assert_non_null(strstr(err.msg, "attr size"));
	assert_int_equal(event_block_encode(attr, 20, "x", NULL, 0, &b), -EINVAL);
	buf_free(&b);
}

static void test_build_ids_counts_index(void **state)
{
	struct build_id_entry in[2] = { { .size = 20, .path = "/bin/true" },
					{ .size = 8, .flags = 1, .path = "[kernel.kallsyms]" } }, *out;
	struct count_reading cr[2] = { { 1, 0, -1, 1, 5, 6, 7, 8 }, { 2, -1, 99, 2, 9, 10, 11, 12 } }, *cout;
	struct index_entry ie[1] = { { 64, BLOCK_DATA, 3, 100, 200 } }, *iout;
	struct buf b = BUF_INIT;
	struct err err = { 0 };
	size_t n;

	(void)state;
	memset(in[0].id, 0xab, 20);
	memset(in[1].id, 0x11, 8);
	assert_int_equal(build_ids_encode(in, 2, &b), 0);
	assert_int_equal(build_ids_decode(b.data, b.len, &out, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(out[1].path, "[kernel.kallsyms]");
	assert_int_equal(out[1].size, 8);
	assert_int_equal(out[1].flags, 1);
	assert_memory_equal(out[0].id, in[0].id, 20);
	build_ids_free(out, n);
	assert_int_equal(build_ids_decode(b.data, b.len - 1, &out, &n, &err), -PREC_ECORRUPT);
	b.data[0] = 0;   /* id size 0 */
	assert_int_equal(build_ids_decode(b.data, b.len, &out, &n, &err), -PREC_ECORRUPT);

	buf_reset(&b);
	assert_int_equal(counts_encode(cr, 2, &b), 0);
	assert_int_equal(b.len, 8 + 2 * 48);
	assert_int_equal(counts_decode(b.data, b.len, &cout, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_memory_equal(cout, cr, sizeof(cr));
	free(cout);
	assert_int_equal(counts_decode(b.data, b.len - 8, &cout, &n, &err), -PREC_ECORRUPT);
	assert_int_equal(block_payload_validate(BLOCK_COUNTS, b.data, b.len + 0, &err), 0);

	buf_reset(&b);
	assert_int_equal(index_encode(ie, 1, &b), 0);
	assert_int_equal(index_decode(b.data, b.len, &iout, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(iout[0].offset, 64);
	assert_int_equal(iout[0].seq, 3);
	assert_int_equal(iout[0].time_max, 200);
	free(iout);
	b.data[18] = 1;   /* reserved field of entry 0 */
	assert_int_equal(index_decode(b.data, b.len, &iout, &n, &err), -PREC_ECORRUPT);
	buf_free(&b);
}

static void test_data_payload_checks(void **state)
{
	uint8_t p[DATA_HEADER_SIZE + SPAN_HEADER_SIZE + 16];
	struct data_header h = { 0, 0, 1, 1 };
	struct err err = { 0 };
	struct perf_event_header rec = { PERF_RECORD_SWITCH, 0, 16 };

	(void)state;
	data_header_encode(&h, p);
	span_header_encode(0, SPAN_RECORDS, 16, p + DATA_HEADER_SIZE);
	memset(p + DATA_HEADER_SIZE + SPAN_HEADER_SIZE, 0, 16);
	memcpy(p + DATA_HEADER_SIZE + SPAN_HEADER_SIZE, &rec, sizeof(rec));
	assert_int_equal(block_payload_validate(BLOCK_DATA, p, sizeof(p), &err), 0);
	/* wrong record count */
	h.nr_records = 2;
	data_header_encode(&h, p);
	assert_int_equal(block_payload_validate(BLOCK_DATA, p, sizeof(p), &err), -PREC_ECORRUPT);
	assert_non_null(strstr(err.msg, "records"));
	h.nr_records = 1;
	data_header_encode(&h, p);
	/* span longer than the payload */
	span_header_encode(0, SPAN_RECORDS, 1000, p + DATA_HEADER_SIZE);
	assert_int_equal(block_payload_validate(BLOCK_DATA, p, sizeof(p), &err), -PREC_ECORRUPT);
	/* record size 0 */
	span_header_encode(0, SPAN_RECORDS, 16, p + DATA_HEADER_SIZE);
	rec.size = 0;
	memcpy(p + DATA_HEADER_SIZE + SPAN_HEADER_SIZE, &rec, sizeof(rec));
	assert_true(block_payload_validate(BLOCK_DATA, p, sizeof(p), &err) < 0);
	/* unknown span kind, round end with length */
	rec.size = 16;
	memcpy(p + DATA_HEADER_SIZE + SPAN_HEADER_SIZE, &rec, sizeof(rec));
	span_header_encode(0, 7, 16, p + DATA_HEADER_SIZE);
	assert_int_equal(block_payload_validate(BLOCK_DATA, p, sizeof(p), &err), -PREC_ECORRUPT);
	span_header_encode(0, SPAN_ROUND_END, 16, p + DATA_HEADER_SIZE);
	assert_int_equal(block_payload_validate(BLOCK_DATA, p, sizeof(p), &err), -PREC_ECORRUPT);
	/* too short for its data header */
	assert_int_equal(block_payload_validate(BLOCK_DATA, p, 10, &err), -PREC_ECORRUPT);
	/* unknown types pass */
	assert_int_equal(block_payload_validate(500, p, 3, &err), 0);
}

static void test_big_record_spans_split(void **state)
{
	/* 200 KiB of records into 70,000-byte blocks: split at record edges. */
	struct container_writer_opts o = { .level = 0, .block_size = 70000 };
	struct container_writer *w;
	struct err err = { 0 };
	struct readback rb;
	size_t off = 0;

	(void)state;
	while (off < 200000) {
		struct perf_event_header h;

		memcpy(&h, records + off, sizeof(h));
		off += h.size;
	}
	assert_int_equal(container_writer_open(&w, tmp_path("split.data"), &o, &err), 0);
	assert_int_equal(container_write_records(w, 3, records, 1001 * 8, records + 1001 * 8,
						 off - 1001 * 8, &err), 0);
	assert_int_equal(container_writer_close(w, &err), 0);
	assert_int_equal(read_back(tmp_path("split.data"), &rb), 0);
	assert_int_equal(rb.blocks_by_type[BLOCK_DATA], 3);
	assert_int_equal(rb.recs.len, off);
	assert_memory_equal(rb.recs.data, records, off);
	buf_free(&rb.recs);
}

/* ---- readahead --------------------------------------------------------- */

/* The problems warned about, kept without calling cmocka: with readahead the
 * callback runs on the reader's worker thread. */
#define MAX_PROBLEMS 32

struct problem_log {
	int n;
	struct {
		int kind, reason;
		uint64_t offset, bytes;
	} p[MAX_PROBLEMS];
};

static void log_problem(void *ctx, const struct container_problem *p)
{
	struct problem_log *l = ctx;

	if (l->n < MAX_PROBLEMS) {
		l->p[l->n].kind = (int)p->kind;
		l->p[l->n].reason = p->reason;
		l->p[l->n].offset = p->offset;
		l->p[l->n].bytes = p->bytes;
	}
	l->n++;
}

/* The blocks of a plain walk, their payloads copied out (owned). */
struct walk {
	struct container_block *blocks;
	size_t n;
	struct container_stats stats;
	struct problem_log log;
};

static void walk_free(struct walk *w)
{
	for (size_t i = 0; i < w->n; i++)
		free((void *)w->blocks[i].data);
	free(w->blocks);
	memset(w, 0, sizeof(*w));
}

static void walk_plain(const uint8_t *file, size_t len, struct walk *w)
{
	struct container_reader_opts o = { .warn = log_problem, .ctx = &w->log };
	struct container_reader *r;
	struct container_block b;
	struct err err = { 0 };
	int ret;

	memset(w, 0, sizeof(*w));
	assert_int_equal(container_reader_open_mem(&r, file, len, &o, &err), 0);
	while ((ret = container_reader_next(r, &b, &err)) == 1) {
		uint8_t *copy = malloc(b.len ? b.len : 1);

		assert_non_null(copy);
		memcpy(copy, b.data, b.len);
		w->blocks = realloc(w->blocks, (w->n + 1) * sizeof(*w->blocks));
		assert_non_null(w->blocks);
		w->blocks[w->n] = b;
		w->blocks[w->n++].data = copy;
	}
	assert_int_equal(ret, 0);
	w->stats = *container_reader_stats(r);
	container_reader_close(r);
}

static void check_block(const struct container_block *b, const struct container_block *want)
{
	assert_int_equal(b->offset, want->offset);
	assert_int_equal(b->type, want->type);
	assert_int_equal(b->codec, want->codec);
	assert_int_equal(b->flags, want->flags);
	assert_int_equal(b->seq, want->seq);
	assert_int_equal(b->len, want->len);
	assert_memory_equal(b->data, want->data, want->len);
}

static void check_stats(const struct container_stats *s, const struct container_stats *want)
{
	assert_int_equal(s->blocks, want->blocks);
	assert_int_equal(s->corrupt_blocks, want->corrupt_blocks);
	assert_int_equal(s->skipped_blocks, want->skipped_blocks);
	assert_int_equal(s->bytes_skipped, want->bytes_skipped);
	assert_int_equal(s->bytes_ignored, want->bytes_ignored);
	assert_int_equal(s->finished, want->finished);
	assert_int_equal(s->truncated, want->truncated);
}

static void check_log(const struct problem_log *l, const struct problem_log *want)
{
	assert_int_equal(l->n, want->n);
	for (int i = 0; i < l->n && i < MAX_PROBLEMS; i++) {
		assert_int_equal(l->p[i].kind, want->p[i].kind);
		assert_int_equal(l->p[i].reason, want->p[i].reason);
		assert_int_equal(l->p[i].offset, want->p[i].offset);
		assert_int_equal(l->p[i].bytes, want->p[i].bytes);
	}
}

/* A reader over file[0..len) (or the file at path) with readahead on. */
static struct container_reader *open_ra(const uint8_t *file, size_t len, const char *path,
					struct problem_log *log)
{
	struct container_reader_opts o = { .warn = log_problem, .ctx = log };
	struct container_reader *r;
	struct err err = { 0 };

	memset(log, 0, sizeof(*log));
	if (path)
		assert_int_equal(container_reader_open(&r, path, &o, &err), 0);
	else
		assert_int_equal(container_reader_open_mem(&r, file, len, &o, &err), 0);
	assert_int_equal(container_reader_readahead(r), 0);
	return r;
}

/* The next block of the walk must be want->blocks[*i]. */
static void ra_step(struct container_reader *r, const struct walk *want, size_t *i,
		    struct container_block *b)
{
	struct err err = { 0 };

	assert_true(*i < want->n);
	assert_int_equal(container_reader_next(r, b, &err), 1);
	check_block(b, &want->blocks[(*i)++]);
}

/* Walk to the end: the same blocks and stats as want. With pause, block k
 * is checked again after a readahead worker has had time to decode block
 * k + 1, right before the next call. */
static void ra_walk_rest(struct container_reader *r, const struct walk *want, size_t i,
			 bool pause)
{
	struct container_block b;
	struct err err = { 0 };

	while (i < want->n) {
		ra_step(r, want, &i, &b);
		if (pause) {
			usleep(1000);
			assert_memory_equal(b.data, want->blocks[i - 1].data, b.len);
		}
	}
	assert_int_equal(container_reader_next(r, &b, &err), 0);
	assert_int_equal(container_reader_next(r, &b, &err), 0);
	check_stats(container_reader_stats(r), &want->stats);
}

static void ra_walk(const uint8_t *file, size_t len, const char *path, const struct walk *want,
		    bool pause)
{
	struct problem_log log;
	struct container_reader *r = open_ra(file, len, path, &log);

	ra_walk_rest(r, want, 0, pause);
	check_log(&log, &want->log);
	container_reader_close(r);
}

/* records[from..to) in pieces of about 4 KiB, a round every 8. */
static void feed_records(struct container_writer *w, size_t from, size_t to)
{
	struct err err = { 0 };
	int n = 0;

	while (from < to) {
		size_t end = from;

		while (end < to && end - from < 4096) {
			struct perf_event_header h;

			memcpy(&h, records + end, sizeof(h));
			end += h.size;
		}
		assert_int_equal(container_write_records(w, (uint32_t)(n & 1), records + from,
							 end - from, NULL, 0, &err), 0);
		if (++n % 8 == 0)
			assert_int_equal(container_write_round(w, &err), 0);
		from = end;
	}
}

/* Many DATA blocks (the smallest size the writer allows) of three kinds: zlib + TRANSFORMED, stored, and
 * plain zlib; METADATA, EVENT, BUILD_IDS, KALLSYMS, COUNTS, INDEX blocks and
 * one block of an unknown type (skipped with a warning). */
static void write_mixed(const char *path)
{
	struct container_writer_opts o = { .level = 1, .block_size = 1 };   /* raised to 64 KiB */
	struct build_id_entry bid = { .size = 20, .path = "/bin/true" };
	struct count_reading cr = { 1, 0, -1, 1, 5, 6, 7, 8 };
	const char *ksyms = "ffffffff81000000 T _text\nffffffffa0000010 t probe\t[e1000]\n";
	struct record_layouts *ls = record_layouts_new();
	struct container_writer *w;
	struct perf_event_attr attr;
	struct event_layout l;
	struct event_id ids[1] = { { 7, -1, 500 } };
	struct metadata m = { 0 };
	struct buf b = BUF_INIT;
	struct err err = { 0 };
	uint64_t id = 7;

	assert_non_null(ls);
	synth_attr(&attr);
	event_layout_from_attr(&l, &attr, sizeof(attr));
	assert_int_equal(record_layouts_add(ls, &l, &id, 1, NULL), 0);
	o.layouts = ls;
	assert_int_equal(container_writer_open(&w, path, &o, &err), 0);
	metadata_set_str(&m, META_HOSTNAME, "host");
	assert_int_equal(metadata_encode(&m, &b), 0);
	metadata_free(&m);
	assert_int_equal(container_write_block(w, BLOCK_METADATA, b.data, b.len, &err), 0);
	buf_reset(&b);
	assert_int_equal(event_block_encode(&attr, sizeof(attr), "cpu-clock", ids, 1, &b), 0);
	assert_int_equal(container_write_block(w, BLOCK_EVENT, b.data, b.len, &err), 0);
	feed_records(w, 0, records_len);
	buf_reset(&b);
	memset(bid.id, 0xab, 20);
	assert_int_equal(build_ids_encode(&bid, 1, &b), 0);
	assert_int_equal(container_write_block(w, BLOCK_BUILD_IDS, b.data, b.len, &err), 0);
	assert_int_equal(container_writer_close(w, &err), 0);

	o.level = 0;
	o.layouts = NULL;
	assert_int_equal(container_writer_append(&w, path, &o, 0, 0, 0, &err), 0);
	assert_int_equal(container_write_block(w, 300, "hello", 5, &err), 0);
	feed_records(w, 0, records_len);
	assert_int_equal(container_write_block(w, BLOCK_KALLSYMS, ksyms, strlen(ksyms), &err), 0);
	assert_int_equal(container_writer_close(w, &err), 0);

	o.level = 1;
	assert_int_equal(container_writer_append(&w, path, &o, 0, 0, 0, &err), 0);
	feed_records(w, 0, records_len);
	buf_reset(&b);
	assert_int_equal(counts_encode(&cr, 1, &b), 0);
	assert_int_equal(container_write_block(w, BLOCK_COUNTS, b.data, b.len, &err), 0);
	assert_int_equal(container_writer_close(w, &err), 0);

	/* and blocks of the older encoding (FORMAT.md 6.3), as 1.7 wrote them */
	o.layouts = ls;
	o.legacy_transform = true;
	assert_int_equal(container_writer_append(&w, path, &o, 0, 0, 0, &err), 0);
	feed_records(w, 0, records_len);
	assert_int_equal(container_writer_close(w, &err), 0);
	buf_free(&b);
	record_layouts_free(ls);
}

/* The reference walk of the mixed file, checked to hold what it should. */
static uint8_t *mixed_file(size_t *len, struct walk *ref)
{
	int stored = 0, zlib = 0, xform = 0, cols = 0, other = 0;
	uint8_t *file;

	write_mixed(tmp_path("mixed.data"));
	file = slurp(tmp_path("mixed.data"), len);
	walk_plain(file, *len, ref);
	for (size_t i = 0; i < ref->n; i++) {
		const struct container_block *b = &ref->blocks[i];

		if (b->type != BLOCK_DATA)
			other++;
		else if (b->flags & BLOCK_FLAG_TRANSFORMED)
			xform++;
		else if (b->flags & BLOCK_FLAG_COLUMNS)
			cols++;
		else if (b->codec == CODEC_ZLIB)
			zlib++;
		else
			stored++;
	}
	assert_true(stored >= 6 && zlib >= 6 && xform >= 6 && cols >= 6);
	assert_int_equal(other, 6);
	assert_true(ref->stats.finished);
	assert_int_equal(ref->stats.skipped_blocks, 1);
	assert_int_equal(ref->stats.corrupt_blocks, 0);
	assert_int_equal(ref->log.n, 1);
	assert_int_equal(ref->log.p[0].kind, PROBLEM_SKIPPED);
	return file;
}

static void test_readahead_same_blocks(void **state)
{
	struct walk ref;
	size_t len;
	uint8_t *file;

	(void)state;
	file = mixed_file(&len, &ref);
	ra_walk(file, len, NULL, &ref, true);
	ra_walk(file, len, NULL, &ref, false);
	ra_walk(NULL, 0, tmp_path("mixed.data"), &ref, true);
	ra_walk(NULL, 0, tmp_path("mixed.data"), &ref, false);
	walk_free(&ref);
	free(file);
}

/* container_reader_block_at at every step of a walk (with readahead: right
 * after next(), the worker busy, or after a pause): the right block, the
 * walk's current block intact, and the walk goes on undisturbed. The block
 * after the current one is looked up first, so that a lookup decoding over
 * the block the worker has ready would show. */
static void check_block_at_walk(bool ra)
{
	struct container_reader_opts o = { .warn = log_problem };
	struct container_reader *r;
	struct container_block b, at;
	struct problem_log log;
	struct index_entry *idx;
	struct walk ref;
	struct err err = { 0 };
	size_t len, i = 0, nidx;
	uint8_t *file;

	file = mixed_file(&len, &ref);
	if (ra) {
		r = open_ra(file, len, NULL, &log);
	} else {
		memset(&log, 0, sizeof(log));
		o.ctx = &log;
		assert_int_equal(container_reader_open_mem(&r, file, len, &o, &err), 0);
	}
	/* before the walk starts */
	assert_int_equal(container_reader_block_at(r, ref.blocks[3].offset, &at, &err), 1);
	check_block(&at, &ref.blocks[3]);
	while (i < ref.n) {
		size_t j = (i * 7 + 3) % ref.n;

		ra_step(r, &ref, &i, &b);
		if (i % 2)
			usleep(1000);
		if (i < ref.n) {
			assert_int_equal(container_reader_block_at(r, ref.blocks[i].offset, &at, &err), 1);
			check_block(&at, &ref.blocks[i]);
		}
		assert_int_equal(container_reader_block_at(r, ref.blocks[j].offset, &at, &err), 1);
		check_block(&at, &ref.blocks[j]);
		assert_int_equal(container_reader_block_at(r, ref.blocks[i - 1].offset, &at, &err), 1);
		check_block(&at, &ref.blocks[i - 1]);
		/* no block there */
		assert_int_equal(container_reader_block_at(r, ref.blocks[j].offset + 1, &at, &err), 0);
		check_block(&b, &ref.blocks[i - 1]);
		if (i == ref.n / 2) {
			assert_int_equal(container_reader_index(r, &idx, &nidx, &err), 1);
			/* every block but the INDEX, with the skipped one */
			assert_int_equal(nidx, ref.n);
			for (size_t k = 0, m = 0; k < nidx; k++)
				if (idx[k].type != 300)
					assert_int_equal(idx[k].offset, ref.blocks[m++].offset);
			free(idx);
			check_block(&b, &ref.blocks[i - 1]);
		}
	}
	ra_walk_rest(r, &ref, i, false);
	/* after the end */
	assert_int_equal(container_reader_block_at(r, ref.blocks[0].offset, &at, &err), 1);
	check_block(&at, &ref.blocks[0]);
	check_stats(container_reader_stats(r), &ref.stats);
	check_log(&log, &ref.log);
	container_reader_close(r);
	walk_free(&ref);
	free(file);
}

static void test_readahead_block_at(void **state)
{
	(void)state;
	check_block_at_walk(true);
	check_block_at_walk(false);
}

/* Rewind at any point of a readahead walk (before it, with the worker busy
 * or done, at and past the end): the walk restarts from the first block. */
static void test_readahead_rewind(void **state)
{
	struct walk ref;
	size_t len;
	uint8_t *file;

	(void)state;
	file = mixed_file(&len, &ref);
	for (size_t stop = 0; stop <= ref.n + 1; stop += stop < 3 || stop + 3 > ref.n ? 1 : 5) {
		struct problem_log log;
		struct container_reader *r = open_ra(file, len, NULL, &log);
		struct container_block b;
		struct err err = { 0 };
		size_t i = 0;

		while (i < stop && i < ref.n)
			ra_step(r, &ref, &i, &b);
		if (stop > ref.n)
			assert_int_equal(container_reader_next(r, &b, &err), 0);
		if (stop % 2)
			usleep(1000);
		container_reader_rewind(r);
		if (stop % 3 == 0)
			container_reader_rewind(r);
		/* the worker is quiet after a rewind: the log can be reset */
		memset(&log, 0, sizeof(log));
		ra_walk_rest(r, &ref, 0, stop % 4 == 1);
		check_log(&log, &ref.log);
		container_reader_close(r);
	}
	walk_free(&ref);
	free(file);
}

/* Damage is warned about and skipped exactly as without readahead. */
static void check_damage_same(const uint8_t *file, size_t len, int kind, uint64_t offset)
{
	struct walk want;
	bool seen = false;

	walk_plain(file, len, &want);
	for (int i = 0; i < want.log.n && i < MAX_PROBLEMS; i++)
		if (want.log.p[i].kind == kind && want.log.p[i].offset == offset)
			seen = true;
	assert_true(seen);
	ra_walk(file, len, NULL, &want, true);
	ra_walk(file, len, NULL, &want, false);
	walk_free(&want);
}

static void test_readahead_damage(void **state)
{
	struct walk ref;
	size_t len, stored = 0, xform = 0, cols = 0;
	uint8_t *file, *bad;

	(void)state;
	file = mixed_file(&len, &ref);
	bad = malloc(len);
	assert_non_null(bad);
	for (size_t i = ref.n / 4; i < ref.n; i++) {
		const struct container_block *b = &ref.blocks[i];

		if (b->type != BLOCK_DATA)
			continue;
		if (!stored && b->codec == CODEC_STORED)
			stored = i;
		if (!xform && (b->flags & BLOCK_FLAG_TRANSFORMED))
			xform = i;
		if (!cols && (b->flags & BLOCK_FLAG_COLUMNS))
			cols = i;
	}
	assert_true(stored && xform && cols);
	for (int k = 0; k < 3; k++) {
		uint64_t off = ref.blocks[k == 2 ? cols : k ? xform : stored].offset;
		struct block_header bh;
		struct walk want;

		/* a payload byte: CRC or codec failure, that one block skipped */
		memcpy(bad, file, len);
		assert_int_equal(block_header_decode(bad + off, &bh, true), 0);
		bad[off + CONTAINER_BLOCK_HEADER_SIZE + bh.stored_len / 2] ^= 0x10;
		check_damage_same(bad, len, PROBLEM_CORRUPT_PAYLOAD, off);
		walk_plain(bad, len, &want);
		assert_int_equal(want.n, ref.n - 1);
		assert_int_equal(want.stats.corrupt_blocks, 1);
		walk_free(&want);
		/* a header byte: resync to the next block */
		memcpy(bad, file, len);
		bad[off + 9] ^= 0x10;
		check_damage_same(bad, len, PROBLEM_CORRUPT_HEADER, off);
	}
	/* cut inside a block: no index, the tail ignored */
	check_damage_same(file, ref.blocks[xform].offset + 100, PROBLEM_TRUNCATED,
			  ref.blocks[xform].offset);
	free(bad);
	walk_free(&ref);
	free(file);
}

/* Closing at any point of a readahead walk neither hangs nor leaks (the
 * ASan build checks the leaks). */
static void test_readahead_close(void **state)
{
	struct walk ref;
	size_t len;
	uint8_t *file;

	(void)state;
	file = mixed_file(&len, &ref);
	alarm(120);
	for (size_t stop = 0; stop <= ref.n + 1; stop++) {
		for (int pause = 0; pause <= 1; pause++) {
			struct problem_log log;
			struct container_reader *r = open_ra(file, len, NULL, &log);
			struct container_block b;
			struct err err = { 0 };
			size_t i = 0;

			assert_int_equal(container_reader_readahead(r), 0);   /* twice: no-op */
			while (i < stop && i < ref.n)
				ra_step(r, &ref, &i, &b);
			if (stop > ref.n)
				assert_int_equal(container_reader_next(r, &b, &err), 0);
			if (pause)
				usleep(200);
			container_reader_close(r);
		}
	}
	alarm(0);
	walk_free(&ref);
	free(file);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	make_records();
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_round_trip_background),
		cmocka_unit_test(test_write_failure_reported),
		cmocka_unit_test(test_write_failure_keeps_blocks),
		cmocka_unit_test(test_index_matches_blocks),
		cmocka_unit_test(test_time_ranges),
		cmocka_unit_test(test_unfinished_file),
		cmocka_unit_test(test_truncation_everywhere),
		cmocka_unit_test(test_repair),
		cmocka_unit_test(test_every_flip_detected),
		cmocka_unit_test(test_header_checks),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_unknown_block_skipped),
		cmocka_unit_test(test_kallsyms_walk),
		cmocka_unit_test(test_writer_rejects_partial_records),
		cmocka_unit_test(test_metadata_round_trip),
		cmocka_unit_test(test_event_round_trip),
		cmocka_unit_test(test_build_ids_counts_index),
		cmocka_unit_test(test_data_payload_checks),
		cmocka_unit_test(test_big_record_spans_split),
		cmocka_unit_test(test_readahead_same_blocks),
		cmocka_unit_test(test_readahead_block_at),
		cmocka_unit_test(test_readahead_rewind),
		cmocka_unit_test(test_readahead_damage),
		cmocka_unit_test(test_readahead_close),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
