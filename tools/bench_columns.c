/* SPDX-License-Identifier: MIT */
/*
 * The DATA block encodings on a real recording: each DATA block of FILE
 * (any prec.data; `prec -z 0` keeps them plain) encoded in columns
 * (FORMAT.md 6.4) and with the older TRANSFORMED rewrite (6.3), each then
 * deflated at LEVEL (libdeflate, as the writer does), decoded back and
 * compared with the original bytes.
 *
 *   build/tools/bench_columns [-l LEVEL] [-m N] FILE
 *
 * -m N makes each block of N consecutive DATA blocks of the file (their
 * spans back to back), to see what larger blocks would give.
 *
 * Prints bytes per sample after deflate and CPU time per sample (thread
 * clock) of encoding, deflating, inflating and
 * decoding, for both encodings; zstd -1 on the plain bytes (perf -z) for
 * reference. Exits 1 if a block does not come back exactly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libdeflate.h>
#include <zstd.h>

#include "format/blocks.h"
#include "format/columns.h"
#include "format/container.h"
#include "format/record.h"
#include "format/transform.h"

enum { T_ENC, T_DEFL, T_INFL, T_DEC, NR_T };

struct way {
	const char *name;
	double t[NR_T];
	size_t packed;
};

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, const struct err *e)
{
	fprintf(stderr, "bench_columns: %s: %s\n", what, e ? e->msg : "failed");
	exit(2);
}

static size_t samples_in(const uint8_t *p, size_t len)
{
	struct data_iter it;
	struct data_span s;
	size_t n = 0;

	if (data_iter_init(&it, p, len, NULL))
		return 0;
	while (data_iter_next(&it, &s, NULL) == 1)
		for (size_t off = 0, l; record_next(s.records, s.len, off, &l, NULL) == 1; off += l) {
			struct perf_event_header h;

			memcpy(&h, s.records + off, sizeof(h));
			n += h.type == PERF_RECORD_SAMPLE;
		}
	return n;
}

/* One block one way: encode, deflate, inflate, decode, compare. */
static void one(struct way *w, int cols, struct columns_enc *ce, const struct record_layouts *ls,
		struct libdeflate_compressor *zc, struct libdeflate_decompressor *zd,
		const uint8_t *p, size_t len, struct buf *enc, struct buf *back)
{
	struct err e = { 0 };
	size_t cap = len + 1024, out = 0;
	uint8_t *z = malloc(cap), *inf;
	double t0 = cpu_now(), t1, t2, t3;
	int ret;

	ret = cols ? columns_encode(ce, ls, p, len, enc, &e) : data_transform(ls, p, len, enc, &e);
	if (ret || !z)
		die("encode", &e);
	t1 = cpu_now();
	out = libdeflate_zlib_compress(zc, enc->data, enc->len, z, cap);
	t2 = cpu_now();
	w->t[T_ENC] += t1 - t0;
	w->t[T_DEFL] += t2 - t1;
	w->packed += out + CONTAINER_BLOCK_HEADER_SIZE;
	inf = malloc(enc->len + 1);
	if (!inf || libdeflate_zlib_decompress(zd, z, out, inf, enc->len, NULL) != LIBDEFLATE_SUCCESS)
		die("inflate", NULL);
	t3 = cpu_now();
	w->t[T_INFL] += t3 - t2;
	ret = cols ? columns_decode(inf, enc->len, back, &e) : data_untransform(inf, enc->len, back, &e);
	w->t[T_DEC] += cpu_now() - t3;
	if (ret)
		die("decode", &e);
	if (back->len != len || memcmp(back->data, p, len)) {
		fprintf(stderr, "bench_columns: %s: a block does not come back exactly\n", w->name);
		exit(1);
	}
	free(inf);
	free(z);
}

/* The data header of spans put together: their counts. */
static void fix_header(struct buf *p)
{
	struct data_header dh = { 0 };
	struct data_iter it;
	struct data_span s;

	if (data_iter_init(&it, p->data, p->len, NULL))
		return;
	dh.time_min = it.h.time_min;
	dh.time_max = it.h.time_max;
	it.h.nr_spans = 0xffffffffu;
	while (data_iter_next(&it, &s, NULL) == 1) {
		dh.nr_spans++;
		for (size_t off = 0, l; record_next(s.records, s.len, off, &l, NULL) == 1; off += l)
			dh.nr_records++;
	}
	data_header_encode(&dh, p->data);
}

static int add_event(struct record_layouts *ls, const struct container_block *b)
{
	struct event_desc ev;
	struct event_layout l;
	uint64_t *ids;
	int ret;

	if (event_block_decode(b->data, b->len, &ev, NULL))
		return -1;
	ids = calloc(ev.nr_ids + 1, sizeof(*ids));
	for (size_t j = 0; ids && j < ev.nr_ids; j++)
		ids[j] = ev.ids[j].id;
	event_layout_from_attr(&l, ev.attr_bytes, ev.attr_size);
	ret = ids ? record_layouts_add(ls, &l, ids, ev.nr_ids, NULL) : -1;
	free(ids);
	event_desc_free(&ev);
	return ret < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct way ways[2] = { { "columns (6.4)", { 0 }, 0 }, { "transformed (6.3)", { 0 }, 0 } };
	struct record_layouts *ls = record_layouts_new();
	struct columns_enc *ce = columns_enc_new();
	struct buf enc = BUF_INIT, back = BUF_INIT, copy = BUF_INIT;
	struct container_reader *r;
	struct container_block b;
	struct err e = { 0 };
	size_t samples = 0, raw = 0, zstd = 0;
	int level = 1, merge = 1, opt, pending = 0;
	struct libdeflate_compressor *zc;
	struct libdeflate_decompressor *zd = libdeflate_alloc_decompressor();

	while ((opt = getopt(argc, argv, "l:m:")) != -1)
		if (opt == 'l')
			level = atoi(optarg);
		else if (opt == 'm')
			merge = atoi(optarg) > 0 ? atoi(optarg) : 1;
	if (optind >= argc) {
		fprintf(stderr, "usage: bench_columns [-l LEVEL] FILE\n");
		return 2;
	}
	zc = libdeflate_alloc_compressor(level);
	if (!ls || !ce || !zc || !zd || container_reader_open(&r, argv[optind], NULL, &e))
		die(argv[optind], &e);
	while (container_reader_next(r, &b, &e) == 1) {
		if (b.type == BLOCK_EVENT && add_event(ls, &b))
			die("an EVENT block", NULL);
		if (b.type != BLOCK_DATA)
			continue;
		if (!pending) {
			buf_reset(&copy);
			if (buf_append(&copy, b.data, b.len))
				die("out of memory", NULL);
		} else if (buf_append(&copy, b.data + DATA_HEADER_SIZE, b.len - DATA_HEADER_SIZE)) {
			die("out of memory", NULL);
		}
		if (++pending < merge)
			continue;
		pending = 0;
		fix_header(&copy);
		samples += samples_in(copy.data, copy.len);
		raw += copy.len;
		for (int i = 0; i < 2; i++)
			one(&ways[i], i == 0, ce, ls, zc, zd, copy.data, copy.len, &enc, &back);
		{
			size_t cap = ZSTD_compressBound(copy.len);
			void *zb = malloc(cap);

			zstd += zb ? ZSTD_compress(zb, cap, copy.data, copy.len, 1) : 0;
			free(zb);
		}
	}
	if (!samples)
		die("no samples", NULL);
	printf("%s: %zu samples, %.1f plain bytes per sample; zstd -1 (perf -z) %.2f B/sample\n",
	       argv[optind], samples, (double)raw / (double)samples, (double)zstd / (double)samples);
	printf("%-18s %10s %10s %10s %10s %10s\n", "level", "B/sample", "enc ns", "deflate ns",
	       "inflate ns", "dec ns");
	for (int i = 0; i < 2; i++)
		printf("%-18s %10.2f %10.1f %10.1f %10.1f %10.1f\n", ways[i].name,
		       (double)ways[i].packed / (double)samples,
		       ways[i].t[T_ENC] / (double)samples * 1e9, ways[i].t[T_DEFL] / (double)samples * 1e9,
		       ways[i].t[T_INFL] / (double)samples * 1e9, ways[i].t[T_DEC] / (double)samples * 1e9);
	container_reader_close(r);
	columns_enc_free(ce);
	record_layouts_free(ls);
	libdeflate_free_compressor(zc);
	libdeflate_free_decompressor(zd);
	buf_free(&enc);
	buf_free(&back);
	buf_free(&copy);
	return 0;
}
