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
 *
 * SYMBOLS blocks (FORMAT.md 5.8): good_symbols.data holds two well-formed
 * ones (with the edge cases the rules allow), and each symbols_bad_*.data
 * holds a good one and one that breaks one rule of 5.8, written with a
 * right CRC so that the damage reaches the structure check.
 *
 * Streams (FORMAT.md 7): stream_*.data are good files turned into their
 * stream form by format/stream.c: whole, cut short (no END), and with
 * bytes after the END block.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "format/blocks.h"
#include "format/container.h"
#include "format/addrcounts.h"
#include "format/samplesums.h"
#include "format/embed.h"
#include "format/record.h"
#include "tools/synth.h"

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
		       bool finish, uint8_t kind, void (*extra)(struct container_writer *))
{
	struct container_writer_opts o = { .kind = kind, .level = level, .block_size = block_size,
					   .record_time = record_time,
					   .legacy_transform = strstr(name, "transformed") != NULL };
	struct container_writer *w;
	struct record_layouts *ls = NULL;
	struct err err = { 0 };

	if (container_writer_open(&w, path_of(name), &o, &err))
		die(name, &err);
	if (strstr(name, "transformed") || strstr(name, "columns")) {
		/* the writer encodes DATA blocks given layouts: in columns
		 * (FORMAT.md 6.4), or as 1.7 did (6.3) for *transformed* */
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
	if (extra)
		extra(w);
	if (!finish) {
		container_writer_flush(w, &err);
		container_writer_abort(w);
	} else if (container_writer_close(w, &err)) {
		die(name, &err);
	}
	record_layouts_free(ls);
}

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* ---- samples with user registers and stack copies (FORMAT.md 6.4) ------ */

#define STK_SIZE 512
#define STK_REGS ((1ull << 0) | (1ull << 6) | (1ull << 7) | (1ull << 8))   /* AX BP SP IP */
#define STK_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		  PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
		  PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)

static void put64(uint8_t *p, size_t *off, uint64_t v)
{
	memcpy(p + *off, &v, 8);
	*off += 8;
}

/* A dwarf-style sample of thread tid (0..2): a stack image that changes a
 * little, the stack pointer moving by a few words; every 7th without
 * registers or stack (a sample in the kernel's own thread). */
static size_t stack_sample(uint8_t *p, uint32_t cpu, uint32_t tid, uint64_t t, uint8_t img[3][1024])
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 };
	uint64_t r = next_rand(), depth = 1 + r % 3, sp = 0x7ff000 + 0x10000 * tid + 8 * (r % 5);
	size_t off = 8, size = (r >> 8) % 7 ? STK_SIZE : 0;
	uint32_t pt[2] = { 300, 300 + tid };

	put64(p, &off, 300);                            /* identifier */
	put64(p, &off, 0x401000 + (r >> 16) % 32);      /* ip */
	memcpy(p + off, pt, 8);
	off += 8;
	put64(p, &off, t);
	put64(p, &off, cpu);
	put64(p, &off, 250000);
	put64(p, &off, depth);
	for (uint64_t i = 0; i < depth; i++)
		put64(p, &off, 0x402000 + 16 * i + tid);
	put64(p, &off, size ? PERF_SAMPLE_REGS_ABI_64 : 0);
	if (size) {
		put64(p, &off, next_rand());            /* AX */
		put64(p, &off, sp + 64);                /* BP */
		put64(p, &off, sp);
		put64(p, &off, 0x401000 + (r >> 16) % 32);
	}
	put64(p, &off, size);
	if (size) {
		img[tid][64 + (r >> 24) % 128] ^= (uint8_t)r;
		memcpy(p + off, img[tid] + (sp & 0xff), size);
		off += size;
		put64(p, &off, (r >> 32) % 4 ? size : size - 8 * ((r >> 40) % 20));
	}
	h.size = (uint16_t)off;
	memcpy(p, &h, sizeof(h));
	return off;
}

static void write_stack_file(const char *name, size_t samples)
{
	struct container_writer_opts o = { .level = 1, .record_time = record_time };
	struct perf_event_attr attr;
	struct event_id ids[1] = { { 300, -1, -1 } };
	struct event_layout l;
	struct record_layouts *ls = record_layouts_new();
	struct container_writer *w;
	static uint8_t img[3][1024], buf[1 << 16];
	struct buf b = BUF_INIT;
	struct err err = { 0 };
	uint64_t id = 300, t = 2000000000;

	for (size_t i = 0; i < sizeof(img); i++)
		img[i / 1024][i % 1024] = (uint8_t)(i % 7 ? i * 13 : 0);
	synth_attr(&attr);
	attr.sample_type = STK_TYPE;
	attr.sample_regs_user = STK_REGS;
	attr.sample_stack_user = STK_SIZE;
	event_layout_from_attr(&l, &attr, sizeof(attr));
	if (!ls || record_layouts_add(ls, &l, &id, 1, &err) < 0 ||
	    container_writer_open(&w, path_of(name), &o, &err))
		die(name, &err);
	container_writer_set_layouts(w, ls);
	put_meta(w);
	if (event_block_encode(&attr, sizeof(attr), "cpu-clock", ids, 1, &b) ||
	    container_write_block(w, BLOCK_EVENT, b.data, b.len, &err))
		die(name, &err);
	for (size_t done = 0; done < samples; done += 10) {
		for (uint32_t cpu = 0; cpu < 2; cpu++) {
			size_t off = 0;

			for (int i = 0; i < 5; i++, t += 250000)
				off += stack_sample(buf + off, cpu, (uint32_t)(next_rand() % 3), t, img);
			if (container_write_records(w, cpu, buf, off, NULL, 0, &err))
				die(name, &err);
		}
		if (container_write_round(w, &err))
			die(name, &err);
	}
	if (container_writer_close(w, &err))
		die(name, &err);
	buf_free(&b);
	record_layouts_free(ls);
}

/* ---- SYMBOLS blocks (FORMAT.md 5.8) ------------------------------------ */

static char sym_strtab[256];
static uint32_t sym_strtab_len;

static uint32_t sym_str(const char *s)
{
	uint32_t off = sym_strtab_len;
	size_t n = strlen(s) + 1;

	if (sym_strtab_len + n > sizeof(sym_strtab))
		abort();
	memcpy(sym_strtab + off, s, n);
	sym_strtab_len += (uint32_t)n;
	return off;
}

/* A binary with everything in it, at the edges the rules allow: a symbol
 * nested in another, one ending at the top of the address space and one
 * named by an offset into the middle of a string; an address without line
 * information (first == nr_frames), frames with unknown strings; ranges
 * back to back, two sharing their bytes, one ending at the top. */
static struct embed_seg rich_segs[2] = {
	{ 0, 0, 0x1000, 0x1000, 4 },
	{ 0x1000, 0x401000, 0x2345, 0x3000, 5 },
};
static struct embed_sym rich_syms[4] = {
	{ 0x401000, 0x100, 0 }, { 0x401100, 0x200, 0 }, { 0x401180, 0x20, 0 },
	{ 0xffffffffffffff00ull, 0xff, 0 },
};
static struct embed_addr rich_addrs[4] = {
	{ 0x401010, 0, 1 }, { 0x401184, 1, 2 }, { 0x401190, 3, 2 }, { 0x401200, 5, 0 },
};
static struct embed_frame rich_frames[5];
static struct embed_range rich_ranges[5] = {
	{ 0x2010, 12, 0 }, { 0x401180, 4, 12 }, { 0x401184, 8, 16 }, { 0x401300, 12, 0 },
	{ 0xfffffffffffffff0ull, 15, 24 },
};
static uint8_t rich_bytes[40];

static struct embed_dso rich, tiny;

static void make_dsos(void)
{
	uint32_t main_, work, inner, file, odd, path;

	if (rich.build_id_size)
		return;
	path = sym_str("/usr/bin/app");
	main_ = sym_str("main");
	work = sym_str("work");
	inner = sym_str("inner");
	file = sym_str("app.c");
	odd = sym_str("w\xc3\xa9\"q\\\t.h");
	rich_syms[0].name = main_;
	rich_syms[1].name = work;
	rich_syms[2].name = inner;
	rich_syms[3].name = work + 1;          /* "ork" */
	rich_frames[0] = (struct embed_frame){ main_, file, 10 };
	rich_frames[1] = (struct embed_frame){ inner, odd, 5 };
	rich_frames[2] = (struct embed_frame){ work, file, 42 };
	rich_frames[3] = (struct embed_frame){ EMBED_NONE, file, 7 };
	rich_frames[4] = (struct embed_frame){ work, EMBED_NONE, 0 };
	for (size_t i = 0; i < sizeof(rich_bytes); i++)
		rich_bytes[i] = (uint8_t)(i * 37 + 1);
	rich.build_id_size = 20;
	for (int i = 0; i < 20; i++)
		rich.build_id[i] = (uint8_t)(0xa0 + i);
	rich.path = path;
	rich.eh_frame_hdr = 0x2010;
	rich.fde_count = 3;
	rich.segs = rich_segs;
	rich.nr_segs = 2;
	rich.syms = rich_syms;
	rich.nr_syms = 4;
	rich.addrs = rich_addrs;
	rich.nr_addrs = 4;
	rich.frames = rich_frames;
	rich.nr_frames = 5;
	rich.ranges = rich_ranges;
	rich.nr_ranges = 5;
	rich.strings = sym_strtab;
	rich.strings_len = sym_strtab_len;
	rich.bytes = rich_bytes;
	rich.bytes_len = sizeof(rich_bytes);
	/* the least a block can hold: an empty path, a 64-byte build id */
	tiny.build_id_size = EMBED_BUILD_ID_MAX;
	memset(tiny.build_id, 0xff, EMBED_BUILD_ID_MAX);
	tiny.path = 0;
	tiny.strings = "";
	tiny.strings_len = 1;
}

static void encode_dso(const struct embed_dso *d, struct buf *b)
{
	struct embed_dso *back;

	buf_reset(b);
	if (embed_encode(d, b) || embed_decode(b->data, b->len, &back, NULL))
		die("SYMBOLS payload", NULL);
	embed_free(back);
}

static void put_symbols_payload(struct container_writer *w, const uint8_t *p, size_t len)
{
	struct err err = { 0 };

	if (container_write_block(w, BLOCK_SYMBOLS, p, len, &err))
		die("symbols", &err);
}

/* An ADDR_COUNTS block (FORMAT.md 5.11) over what was written so far: two
 * binaries (one with a build id, one without), the one event, an address
 * of each binary, a kernel address and one no binary holds. */
static void put_addr_counts(struct container_writer *w)
{
	static const char strs[] = "/usr/bin/x\0[kernel.kallsyms]_text";
	struct addrcounts_dso dsos[2] = { { 0, 3, { 0xab, 0xcd, 0xef } }, { 11, 0, { 0 } } };
	struct addrcounts_entry ents[4] = {
		{ 0x1234, 3, 3000, 0, 0, 0 }, { 0xffffffff81000010ull, 1, 1000, 1, 0, ADDRCOUNTS_KERNEL },
		{ 0x7f0000001000ull, 2, 2000, ADDRCOUNTS_NONE, 0, 0 }, { 0x1238, 1, 1000, 0, 0, 0 },
	};
	struct addrcounts_event ev = { 7, 7000 };
	struct addrcounts c = { .dsos = dsos, .nr_dsos = 2, .events = &ev, .nr_events = 1,
				.entries = ents, .nr_entries = 4, .strings = strs,
				.strings_len = sizeof(strs) };
	struct buf b = BUF_INIT;
	struct err err = { 0 };

	if (container_writer_crc(w, &c.covered_end, &c.covered_crc, &err) ||
	    addrcounts_encode(&c, &b) ||
	    container_write_block(w, BLOCK_ADDR_COUNTS, b.data, b.len, &err))
		die("addr_counts", &err);
	buf_free(&b);
}

/* A SAMPLE_SUMS block (FORMAT.md 5.12) over what was written so far: a
 * class of three samples, a record, a class of one (the records' bytes
 * are not the block's to check). */
static void put_sample_sums(struct container_writer *w)
{
	static const uint8_t smp[24] = { 9, 0, 0, 0, 2, 0, 24, 0, 0x10, 0x12 };
	static const uint8_t comm[20] = { 3, 0, 0, 0, 0, 0, 20, 0, 1, 0, 0, 0, 1, 0, 0, 0, 'x' };
	struct samplesums h = { .nr_events = 1, .samples = 4, .tmin = 1000, .tmax = 4000 };
	struct buf b = BUF_INIT;
	struct err err = { 0 };
	size_t at1, at2, at3;

	if (samplesums_begin(&b) || samplesums_add(&b, smp, sizeof(smp), true, 3000, &at1) ||
	    samplesums_add(&b, comm, sizeof(comm), false, 0, &at2) ||
	    samplesums_add(&b, smp, sizeof(smp), true, 1000, &at3))
		die("sample_sums", &err);
	samplesums_set(&b, at1, 3, 3000);
	samplesums_finish(&b, &h, 3);
	if (container_writer_crc(w, &h.covered_end, &h.covered_crc, &err))
		die("sample_sums", &err);
	samplesums_cover(&b, h.covered_end, h.covered_crc);
	if (container_write_block(w, BLOCK_SAMPLE_SUMS, b.data, b.len, &err))
		die("sample_sums", &err);
	buf_free(&b);
}

static void put_symbols(struct container_writer *w)
{
	struct buf b = BUF_INIT;

	put_sample_sums(w);
	put_addr_counts(w);
	make_dsos();
	encode_dso(&rich, &b);
	put_symbols_payload(w, b.data, b.len);
	encode_dso(&tiny, &b);
	put_symbols_payload(w, b.data, b.len);
	buf_free(&b);
}

/* Where the arrays of the rich payload start. */
#define S_SEG(i) (128 + 40 * (i))
#define S_SYM(i) (S_SEG(2) + 20 * (i))
#define S_ADDR(i) (S_SYM(4) + 16 * (i))
#define S_FRAME(i) (S_ADDR(4) + 12 * (i))
#define S_RANGE(i) (S_FRAME(5) + 16 * (i))
#define S_STR S_RANGE(5)
#define S_BYTES (S_STR + (int)sym_strtab_len)

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The damaged SYMBOLS payload of the current symbols_bad file. */
static uint8_t bad_payload[1024];
static size_t bad_len;

static void put_bad_symbols(struct container_writer *w)
{
	struct buf b = BUF_INIT;

	encode_dso(&tiny, &b);
	put_symbols_payload(w, b.data, b.len);
	put_symbols_payload(w, bad_payload, bad_len);
	buf_free(&b);
}

/* One file per rule of 5.8: the rich payload with one field changed (at
 * off, n bytes, to v), or with its length changed by grow bytes. */
static void symbols_files(void)
{
	static const struct {
		const char *name;
		int off, n;         /* n 0: no field edit */
		uint64_t v;
		int grow;           /* bytes added (or, negative, cut) at the end */
	} bad[] = {
		{ "len_short", 0, 0, 0, -1 },
		{ "len_long", 0, 0, 0, 1 },
		{ "len_count", 32, 4, 5, 0 },            /* nr_syms 5 */
		{ "len_big_count", 40, 4, 0x80000000u, 0 },
		{ "no_header", 0, 0, 0, -10000 },        /* 127 bytes */
		{ "reserved_low", 3, 1, 1, 0 },
		{ "reserved_high", 63, 1, 0x80, 0 },
		{ "build_id_size_0", 0, 1, 0, 0 },
		{ "build_id_size_65", 0, 1, 65, 0 },
		{ "build_id_tail", 64 + 20, 1, 1, 0 },
		{ "build_id_last", 127, 1, 1, 0 },
		{ "path_out", 24, 4, 0xffffffffu, 0 },
		{ "path_end", 24, 4, 1000, 0 },          /* set to strings_len below */
		{ "strings_no_nul", -1, 1, 'x', 0 },     /* the last string byte */
		{ "sym_name_out", S_SYM(1) + 16, 4, 1000, 0 },
		{ "sym_name_none", S_SYM(1) + 16, 4, 0xffffffffu, 0 },
		{ "sym_same_start", S_SYM(1), 8, 0x401000, 0 },
		{ "sym_unsorted", S_SYM(2), 8, 0x400000, 0 },
		{ "sym_wrap", S_SYM(3) + 8, 8, 0x100, 0 },
		{ "sym_wrap_far", S_SYM(3) + 8, 8, ~0ull, 0 },
		{ "addr_same", S_ADDR(1), 8, 0x401010, 0 },
		{ "addr_unsorted", S_ADDR(3), 8, 0x401000, 0 },
		{ "addr_first_out", S_ADDR(3) + 8, 4, 6, 0 },
		{ "addr_nr_out", S_ADDR(2) + 12, 4, 3, 0 },
		{ "addr_nr_wrap", S_ADDR(2) + 12, 4, 0xffffffffu, 0 },
		{ "frame_function_out", S_FRAME(2), 4, 1000, 0 },
		{ "frame_file_out", S_FRAME(1) + 4, 4, 0xfffffffeu, 0 },
		{ "range_len_0", S_RANGE(1) + 8, 4, 0, 0 },
		{ "range_data_out", S_RANGE(4) + 12, 4, 26, 0 },   /* 26 + 15 > 40 */
		{ "range_data_wrap", S_RANGE(1) + 12, 4, 0xfffffffeu, 0 },
		{ "range_len_big", S_RANGE(0) + 8, 4, 41, 0 },
		{ "range_wrap", S_RANGE(4) + 8, 4, 16, 0 },
		{ "range_overlap", S_RANGE(2), 8, 0x401183, 0 },
		{ "range_same", S_RANGE(2), 8, 0x401180, 0 },
		{ "range_unsorted", S_RANGE(3), 8, 0x1000, 0 },
		{ "seg_reserved", S_SEG(1) + 36, 4, 1, 0 },
	};
	struct buf b = BUF_INIT;
	char name[64];

	make_dsos();
	encode_dso(&rich, &b);
	if (b.len > sizeof(bad_payload) - 16 || (size_t)S_BYTES + rich.bytes_len != b.len)
		die("SYMBOLS layout", NULL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct embed_dso *d;
		struct err err = { 0 };
		int off = bad[i].off;

		memcpy(bad_payload, b.data, b.len);
		bad_len = b.len;
		if (off < 0)
			off = S_BYTES - 1;
		if (bad[i].n)
			put_le(bad_payload + off, bad[i].v, bad[i].n);
		if (!strcmp(bad[i].name, "path_end"))
			put_le(bad_payload + off, sym_strtab_len, 4);
		if (bad[i].grow > 0) {
			memset(bad_payload + bad_len, 0, (size_t)bad[i].grow);
			bad_len += (size_t)bad[i].grow;
		} else if (bad[i].grow < 0) {
			bad_len = (size_t)-bad[i].grow > bad_len ? 127 : bad_len - (size_t)-bad[i].grow;
		}
		/* the real decoder must reject it: a generator that thinks a
		 * file damaged when it is not would make the cross-check blind */
		if (embed_decode(bad_payload, bad_len, &d, &err) != -PREC_ECORRUPT) {
			fprintf(stderr, "gen_files: symbols_bad_%s: the decoder accepts it\n", bad[i].name);
			exit(1);
		}
		snprintf(name, sizeof(name), "symbols_bad_%s.data", bad[i].name);
		write_file(name, 1, 0, 0, true, CONTAINER_KIND_SAMPLES, put_bad_symbols);
	}
	/* the string table empty: no room even for the path */
	encode_dso(&tiny, &b);
	memcpy(bad_payload, b.data, b.len);
	put_le(bad_payload + 48, 0, 4);
	bad_len = b.len - 1;
	write_file("symbols_bad_strings_empty.data", 1, 0, 0, true, CONTAINER_KIND_SAMPLES,
		   put_bad_symbols);
	buf_free(&b);
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
	 * the EVENT block (1) flagged TRANSFORMED or COLUMNS, which only DATA
	 * blocks may be; the DATA block flagged TRANSFORMED or COLUMNS without
	 * being so: corrupt; and flagged both: skipped */
	static const struct { const char *name; int block, field; uint8_t value; } edits[] = {
		{ "skip_type.data", 2, 4, 77 },
		{ "skip_codec.data", 2, 6, 9 },
		{ "skip_transformed.data", 1, 7, 1 },
		{ "skip_flags.data", 2, 7, 4 },
		{ "corrupt_transformed.data", 2, 7, 1 },
		{ "skip_columns.data", 1, 7, 2 },
		{ "skip_both.data", 2, 7, 3 },
		{ "corrupt_columns.data", 2, 7, 2 },
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


static void mutants(int n)
{
	size_t lens[5];
	uint8_t *goods[5] = { slurp("good_small.data", &lens[0]),
			      slurp("good_transformed.data", &lens[1]),
			      slurp("good_symbols.data", &lens[2]),
			      slurp("stream_symbols.data", &lens[3]),
			      slurp("good_columns.data", &lens[4]) };
	uint8_t *p = malloc(lens[0] + lens[1] + lens[2] + lens[3] + lens[4]);
	char name[64];

	for (int i = 0; i < n; i++) {
		/* in turns from the plain file, the one with TRANSFORMED blocks,
		 * the one with SYMBOLS blocks, its stream form, and the one with
		 * COLUMNS blocks */
		uint8_t *good = goods[(i / 4) % 5];
		size_t len = lens[(i / 4) % 5], cut = len;

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
	free(goods[2]);
	free(goods[3]);
	free(goods[4]);
	free(p);
}

/* The stream form of the file `from` (format/stream.c), as `name`. */
static void stream_of(const char *from, const char *name)
{
	struct container_stream *cs;
	struct err err = { 0 };
	int in = open(path_of(from), O_RDONLY | O_CLOEXEC);
	int out = open(path_of(name), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (in < 0 || out < 0)
		die(name, NULL);
	if (container_stream_new(&cs, in, out, &err) || container_stream_end(cs, &err))
		die(name, &err);
	container_stream_free(cs);
	close(in);
	close(out);
}

/* COLUMNS payloads damaged behind a right CRC (FORMAT.md 6.4), so that the
 * damage reaches the decoders: the first DATA block of good_columns.data
 * inflated, one byte of its encoded payload changed, stored (codec 0) with
 * its CRC recomputed; the file ends after it (no index). */
static void columns_mutants(const char *from, const char *prefix, int n)
{
	size_t len, off;
	uint8_t *good = slurp(from, &len), *p;
	uint32_t stored, raw;
	uLongf got;
	char name[64];

	off = block_at(good, len, 2);
	memcpy(&stored, good + off + 8, 4);
	memcpy(&raw, good + off + 12, 4);
	p = malloc(off + 32 + raw);
	got = raw;
	if (!p || good[off + 6] != CODEC_ZLIB || good[off + 7] != BLOCK_FLAG_COLUMNS ||
	    uncompress(p + off + 32, &got, good + off + 32, stored) != Z_OK || got != raw)
		die(from, NULL);
	for (int i = 0; i < n; i++) {
		uint8_t *b = p + off, *payload = b + 32;
		size_t at = 4 + next_rand() % (raw - 4);
		uint32_t crc;

		memcpy(p, good, off);
		memset(p + 24, 0, 8);                   /* no index */
		memset(p + 20, 0, 4);
		crc = (uint32_t)crc32(0, p, 64);
		memcpy(p + 20, &crc, 4);
		memcpy(b, good + off, 32);
		uncompress(payload, &got, good + off + 32, stored);
		payload[at] = i % 3 ? (uint8_t)(payload[at] ^ (1u << (next_rand() % 8))) :
			      (uint8_t)next_rand();
		b[6] = CODEC_STORED;
		memcpy(b + 8, &raw, 4);
		crc = (uint32_t)crc32(0, payload, raw);
		memcpy(b + 16, &crc, 4);
		fix_block_crc(b);
		snprintf(name, sizeof(name), "%s_%03d.data", prefix, i);
		spit(name, p, off + 32 + raw);
	}
	free(good);
	free(p);
}

static void stream_files(void)
{
	size_t len;
	uint8_t *p;

	stream_of("good_small.data", "stream_small.data");
	stream_of("good_symbols.data", "stream_symbols.data");
	stream_of("counts.data", "stream_counts.data");
	p = slurp("stream_small.data", &len);
	spit("stream_cut.data", p, len - len / 3);
	spit("stream_no_end.data", p, len - CONTAINER_BLOCK_HEADER_SIZE);
	p = realloc(p, len + 7);
	if (!p)
		die("stream_trailing.data", NULL);
	memcpy(p + len, "garbage", 7);
	spit("stream_trailing.data", p, len + 7);
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
	write_file("good_small.data", 1, 0, 120, true, CONTAINER_KIND_SAMPLES, NULL);
	write_file("good_stored.data", 0, 0, 60, true, CONTAINER_KIND_SAMPLES, NULL);
	write_file("good_transformed.data", 1, 0, 120, true, CONTAINER_KIND_SAMPLES, NULL);
	write_file("good_columns.data", 1, 0, 120, true, CONTAINER_KIND_SAMPLES, NULL);
	write_stack_file("good_columns_stack.data", 90);
	write_file("counts.data", 1, 0, 0, true, CONTAINER_KIND_COUNTS, NULL);
	write_file("unfinished.data", 1, 0, 60, false, CONTAINER_KIND_SAMPLES, NULL);
	if (big)
		write_file("good_big.data", 1, 0, 200000, true, CONTAINER_KIND_SAMPLES, NULL);
	write_file("good_symbols.data", 1, 0, 40, true, CONTAINER_KIND_SAMPLES, put_symbols);
	special_files();
	symbols_files();
	stream_files();
	mutants(nmut);
	columns_mutants("good_columns.data", "columns_mutant", nmut / 4);
	columns_mutants("good_columns_stack.data", "stack_mutant", nmut / 4);
	return 0;
}
