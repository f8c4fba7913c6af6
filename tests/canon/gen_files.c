/* SPDX-License-Identifier: MIT */
/*
 * Writes prec.data files for the reader tests and the reader fuzz corpus:
 * well-formed files with every block type (through the real writer), files
 * with blocks a 1.0 reader must skip, a file cut short, and, with -m N, N
 * damaged copies (flipped bytes, zeroed ranges, truncations) from a fixed
 * seed.
 *
 *   gen_files [-m N] [-s SEED] [-b] DIR
 *
 * -b writes big files too (many DATA blocks); the default keeps every file
 * small enough for a fuzz corpus.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../../format/blocks.h"
#include "../../format/container.h"
#include "../../format/record.h"
#include "../../tools/synth.h"

static const char *dir;

static void die(const char *what, const struct err *err)
{
	fprintf(stderr, "gen_files: %s: %s\n", what, err ? err->msg : strerror(errno));
	exit(1);
}

static char *path_of(const char *name)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

static uint64_t record_time(void *ctx, const void *rec, size_t len)
{
	struct perf_event_header h;
	uint64_t t;

	(void)ctx;
	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_RECORD_SAMPLE && len >= 40) {
		memcpy(&t, (const uint8_t *)rec + 32, 8);   /* after id, ip, pid/tid */
		return t;
	}
	if (len >= 32) {                                 /* trailer: tid, time, cpu, id */
		memcpy(&t, (const uint8_t *)rec + len - 24, 8);
		return t;
	}
	return 0;
}

static void put_meta(struct container_writer *w)
{
	struct metadata m = { 0 };
	char *argv[] = { "prec", "-F", "4000", "-g", "--", "./app" };
	struct buf b = BUF_INIT;
	struct err err = { 0 };

	metadata_set_str(&m, META_HOSTNAME, "testhost");
	metadata_set_str(&m, META_OS_RELEASE, "6.18.0-test");
	metadata_set_str(&m, META_ARCH, "x86_64");
	metadata_set_u64(&m, META_NR_CPUS_ONLINE, 2);
	metadata_set_str(&m, META_CPU_DESC, "Synthetic CPU \"quoted\" \\ \x01");
	metadata_set_strlist(&m, META_CMDLINE, 6, argv);
	metadata_set_u64(&m, META_PAGE_SIZE, 4096);
	metadata_set_u64(&m, META_PERF_EVENT_PARANOID, (uint64_t)-1);
	metadata_set_bytes(&m, 999, META_BYTES, "\x01\x02\xff", 3);
	if (metadata_encode(&m, &b) || container_write_block(w, BLOCK_METADATA, b.data, b.len, &err))
		die("metadata", &err);
	metadata_free(&m);
	buf_free(&b);
}

static void put_event(struct container_writer *w, const char *name, uint64_t id0)
{
	struct perf_event_attr attr;
	struct event_id ids[2] = { { id0, 0, -1 }, { id0 + 1, 1, -1 } };
	struct buf b = BUF_INIT;
	struct err err = { 0 };

	synth_attr(&attr);
	if (event_block_encode(&attr, sizeof(attr), name, ids, 2, &b) ||
	    container_write_block(w, BLOCK_EVENT, b.data, b.len, &err))
		die("event", &err);
	buf_free(&b);
}

static void put_records(struct container_writer *w, size_t nr_samples, uint64_t seed)
{
	static uint8_t buf[1 << 16];
	struct synth s[2];
	struct err err = { 0 };
	size_t n;

	synth_init(&s[0], seed, 100, 1000);
	synth_init(&s[1], seed + 1, 101, 1000);
	n = synth_comm(&s[0], buf, "app", 0xFFFFFFFF);
	n += synth_mmap2(&s[0], buf + n, "/usr/bin/app", 0x400000, 0xFFFFFFFF);
	if (container_write_records(w, SPAN_CPU_SYNTH, buf, n, NULL, 0, &err))
		die("records", &err);
	for (size_t done = 0; done < nr_samples;) {
		for (uint32_t cpu = 0; cpu < 2; cpu++) {
			size_t off = 0, cut;

			for (int i = 0; i < 40 && done < nr_samples; i++, done++)
				off += synth_sample(&s[cpu], buf + off, cpu);
			/* hand the span over in two pieces, as a wrapped ring does */
			cut = off / 2 - (off / 2) % 8 + 4;
			if (cut > off)
				cut = off;
			if (container_write_records(w, cpu, buf, cut, buf + cut, off - cut, &err))
				die("records", &err);
		}
		if (container_write_round(w, &err))
			die("round", &err);
	}
}

static void put_tail(struct container_writer *w)
{
	struct build_id_entry bid[2] = {
		{ .size = 20, .flags = 0, .path = "/usr/bin/app" },
		{ .size = 20, .flags = BUILD_ID_FLAG_KERNEL, .path = "[kernel.kallsyms]" },
	};
	struct count_reading cr[2] = {
		{ 0, 0, -1, COUNT_FLAG_INTERVAL, 100000000, 12345, 100000000, 50000000 },
		{ 0, -1, -1, COUNT_FLAG_FINAL, 200000000, 67890, 200000000, 200000000 },
	};
	struct metadata m = { 0 };
	struct buf b = BUF_INIT;
	struct err err = { 0 };

	for (int i = 0; i < 20; i++) {
		bid[0].id[i] = (uint8_t)(0xa0 + i);
		bid[1].id[i] = (uint8_t)(0x10 + i);
	}
	if (build_ids_encode(bid, 2, &b) || container_write_block(w, BLOCK_BUILD_IDS, b.data, b.len, &err))
		die("build ids", &err);
	buf_reset(&b);
	if (counts_encode(cr, 2, &b) || container_write_block(w, BLOCK_COUNTS, b.data, b.len, &err))
		die("counts", &err);
	buf_reset(&b);
	{
		static const char ks[] = "ffffffff81000000 T _text\n"
					 "ffffffff81001000 t do_one_initcall\n"
					 "FFFFFFFFA0000010 t e1000_probe\t[e1000]\n"
					 "0 W weak_one\n";

		if (container_write_block(w, BLOCK_KALLSYMS, ks, sizeof(ks) - 1, &err))
			die("kallsyms", &err);
	}
	metadata_set_u64(&m, META_NR_SAMPLES, 12345);
	metadata_set_u64(&m, META_NR_LOST_SAMPLES, 0);
	if (metadata_encode(&m, &b) || container_write_block(w, BLOCK_METADATA, b.data, b.len, &err))
		die("metadata", &err);
	metadata_free(&m);
	buf_free(&b);
}

static void write_file(const char *name, int level, size_t block_size, size_t samples,
		       bool finish, uint8_t kind)
{
	struct container_writer_opts o = { .kind = kind, .level = level, .block_size = block_size,
					   .record_time = record_time };
	struct container_writer *w;
	struct record_layouts *ls = NULL;
	struct err err = { 0 };

	if (container_writer_open(&w, path_of(name), &o, &err))
		die(name, &err);
	if (strstr(name, "transformed")) {
		/* the writer rewrites DATA blocks (FORMAT.md 6.3) given layouts */
		struct perf_event_attr attr;
		struct event_layout l;
		uint64_t ids[2] = { 100, 101 };

		synth_attr(&attr);
		event_layout_from_attr(&l, &attr, sizeof(attr));
		ls = record_layouts_new();
		if (!ls || record_layouts_add(ls, &l, ids, 2, &err) < 0)
			die(name, &err);
		container_writer_set_layouts(w, ls);
	}
	put_meta(w);
	put_event(w, "cpu-clock", 100);
	if (samples)
		put_records(w, samples, 7);
	put_tail(w);
	if (!finish) {
		container_writer_flush(w, &err);
		container_writer_abort(w);
	} else if (container_writer_close(w, &err)) {
		die(name, &err);
	}
	record_layouts_free(ls);
}

static uint8_t *slurp(const char *name, size_t *len)
{
	FILE *f = fopen(path_of(name), "rb");
	uint8_t *p;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		die(name, NULL);
	p = malloc((size_t)n + 1);
	if (!p || fread(p, 1, (size_t)n, f) != (size_t)n)
		die(name, NULL);
	fclose(f);
	*len = (size_t)n;
	return p;
}

static void spit(const char *name, const uint8_t *p, size_t len)
{
	FILE *f = fopen(path_of(name), "wb");

	if (!f || fwrite(p, 1, len, f) != len || fclose(f))
		die(name, NULL);
}

/* Offset of the n-th block header (walking stored lengths). */
static size_t block_at(const uint8_t *p, size_t len, int n)
{
	size_t off = CONTAINER_HEADER_SIZE;

	while (n-- > 0 && off + 32 <= len) {
		uint32_t stored;

		memcpy(&stored, p + off + 8, 4);
		off += 32 + stored;
	}
	return off;
}

static void fix_block_crc(uint8_t *b)
{
	uint32_t crc = (uint32_t)crc32(0, b, 28);

	memcpy(b + 28, &crc, 4);
}

/* Files a reader must partly skip, made from a good one by editing headers. */
static void special_files(void)
{
	size_t len, off;
	uint8_t *good = slurp("good_small.data", &len), *p = malloc(len + 64);

	/* the first DATA block (block 2) with an unknown type, codec or flag;
	 * the EVENT block (1) flagged TRANSFORMED, which only DATA blocks may be;
	 * the DATA block flagged TRANSFORMED without being so: corrupt */
	static const struct { const char *name; int block, field; uint8_t value; } edits[] = {
		{ "skip_type.data", 2, 4, 77 },
		{ "skip_codec.data", 2, 6, 9 },
		{ "skip_transformed.data", 1, 7, 1 },
		{ "skip_flags.data", 2, 7, 4 },
		{ "corrupt_transformed.data", 2, 7, 1 },
	};
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		memcpy(p, good, len);
		off = block_at(p, len, edits[i].block);
		p[off + edits[i].field] = edits[i].value;
		if (edits[i].field == 4)
			p[off + 5] = 0;
		fix_block_crc(p + off);
		spit(edits[i].name, p, len);
	}
	/* payload CRC wrong (header fine) */
	memcpy(p, good, len);
	off = block_at(p, len, 1);
	p[off + 16] ^= 0x55;
	fix_block_crc(p + off);
	spit("corrupt_payload_crc.data", p, len);
	/* header CRC wrong: resync to the next block */
	memcpy(p, good, len);
	off = block_at(p, len, 2);
	p[off + 9] ^= 0x01;
	spit("corrupt_header.data", p, len);
	/* a block missing from the middle: sequence gap */
	memcpy(p, good, len);
	{
		size_t a = block_at(good, len, 2), b = block_at(good, len, 3);

		memcpy(p + a, good + b, len - b);
		spit("seq_gap.data", p, len - (b - a));
	}
	/* cut short in the middle of a block, and in a block header */
	off = block_at(good, len, 3);
	spit("truncated_payload.data", good, off + 40);
	spit("truncated_header.data", good, off + 20);
	/* wrong magic, newer major, big-endian records */
	memcpy(p, good, len);
	p[1] = 'X';
	spit("bad_magic.data", p, len);
	free(good);
	free(p);
}

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void mutants(int n)
{
	size_t lens[2];
	uint8_t *goods[2] = { slurp("good_small.data", &lens[0]),
			      slurp("good_transformed.data", &lens[1]) };
	uint8_t *p = malloc(lens[0] > lens[1] ? lens[0] : lens[1]);
	char name[64];

	for (int i = 0; i < n; i++) {
		/* every other one from the file with TRANSFORMED blocks */
		uint8_t *good = goods[(i / 4) % 2];
		size_t len = lens[(i / 4) % 2], cut = len;

		memcpy(p, good, len);
		switch (i % 4) {
		case 0: /* flip one byte */
			p[next_rand() % len] ^= (uint8_t)(1 + next_rand() % 255);
			break;
		case 1: /* zero a range */
		{
			size_t at = next_rand() % len, n2 = 1 + next_rand() % 64;

			memset(p + at, 0, at + n2 > len ? len - at : n2);
			break;
		}
		case 2: /* truncate */
			cut = next_rand() % len;
			break;
		default: /* flip three bytes and truncate */
			for (int k = 0; k < 3; k++)
				p[next_rand() % len] ^= (uint8_t)(1 + next_rand() % 255);
			cut = len - next_rand() % (len / 4 + 1);
			break;
		}
		snprintf(name, sizeof(name), "mutant_%03d.data", i);
		spit(name, p, cut);
	}
	free(goods[0]);
	free(goods[1]);
	free(p);
}

int main(int argc, char **argv)
{
	int nmut = 0, c;
	bool big = false;

	while ((c = getopt(argc, argv, "m:s:b")) != -1) {
		switch (c) {
		case 'm': nmut = atoi(optarg); break;
		case 's': rng ^= strtoull(optarg, NULL, 0) * 0x9E3779B97F4A7C15ull; break;
		case 'b': big = true; break;
		default:
			fprintf(stderr, "usage: gen_files [-m N] [-s SEED] [-b] DIR\n");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: gen_files [-m N] [-s SEED] [-b] DIR\n");
		return 2;
	}
	dir = argv[optind];
	mkdir(dir, 0755);
	write_file("good_small.data", 1, 0, 120, true, CONTAINER_KIND_SAMPLES);
	write_file("good_stored.data", 0, 0, 60, true, CONTAINER_KIND_SAMPLES);
	write_file("good_transformed.data", 1, 0, 120, true, CONTAINER_KIND_SAMPLES);
	write_file("counts.data", 1, 0, 0, true, CONTAINER_KIND_COUNTS);
	write_file("unfinished.data", 1, 0, 60, false, CONTAINER_KIND_SAMPLES);
	if (big)
		write_file("good_big.data", 1, 0, 200000, true, CONTAINER_KIND_SAMPLES);
	special_files();
	mutants(nmut);
	return 0;
}
