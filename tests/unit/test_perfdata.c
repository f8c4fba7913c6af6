/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the perf.data importer (format/perfdata*.c) on tiny files
 * built here byte by byte: the header, the attr section and ids, feature
 * sections (hostname, CPUs, command line, event names, build ids), the data
 * walk with perf's own records and FINISHED_ROUND, COMPRESSED records whose
 * zstd stream cuts a record in two, pipe mode, and damaged files: every cut
 * of a good file, a data size of 0, a record too small, the other byte
 * order, the first file version. The session test reads the same file
 * through report/core/session.c and checks perf's ordering of the rounds.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zstd.h>

#include "format/perfdata.h"
#include "report/core/session.h"

#include "perf_bytes.h"

#define EV_ID0 101
#define EV_ID1 102
#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

/* the 128-byte attr of a software cpu-clock event with sample_id_all */
static void attr(struct bb *r)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = 128;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000;
	a.sample_type = ST;
	a.sample_id_all = 1;
	a.comm = a.mmap = 1;
	put(r, &a, 128);
}

/* sample_id trailer of ST: tid, time */
static void trailer(struct bb *r, uint32_t pid, uint64_t time)
{
	p32(r, pid);
	p32(r, pid);
	p64(r, time);
}

static void comm(struct bb *r, uint32_t pid, const char *name, uint64_t time)
{
	char buf[16] = { 0 };

	begin(r, PERF_RECORD_COMM, 0);
	p32(r, pid);
	p32(r, pid);
	strncpy(buf, name, sizeof(buf) - 1);
	put(r, buf, 16);
	trailer(r, pid, time);
	end(r);
}

static void sample(struct bb *r, uint32_t pid, uint64_t ip, uint64_t time)
{
	begin(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	p64(r, ip);
	p32(r, pid);
	p32(r, pid);
	p64(r, time);
	p64(r, 1000);
	end(r);
}

static void exit_rec(struct bb *r, uint32_t pid, uint64_t time)
{
	begin(r, PERF_RECORD_EXIT, 0);
	p32(r, pid);
	p32(r, 1);
	p32(r, pid);
	p32(r, 1);
	p64(r, time);
	trailer(r, pid, time);
	end(r);
}

static void user(struct bb *r, uint32_t type)
{
	begin(r, type, 0);
	end(r);
}

static void id_index(struct bb *r)
{
	begin(r, PERFDATA_ID_INDEX, 0);
	p64(r, 2);
	p64(r, EV_ID0); p64(r, 0); p64(r, 0); p64(r, 10);
	p64(r, EV_ID1); p64(r, 0); p64(r, 1); p64(r, 10);
	end(r);
}

/* The records of the data section: ID_INDEX, a COMM and two samples out
 * of order, a round, a sample, a round, the EXIT. */
static void records(struct bb *r)
{
	id_index(r);
	comm(r, 10, "prog", 50);
	sample(r, 10, 0x1000, 300);
	sample(r, 10, 0x1010, 100);
	user(r, PERFDATA_FINISHED_ROUND);
	sample(r, 10, 0x1020, 200);
	user(r, PERFDATA_FINISHED_ROUND);
	exit_rec(r, 10, 400);
}

enum { F_BUILD_ID = 2, F_HOSTNAME = 3, F_NRCPUS = 7, F_CMDLINE = 11, F_EVENT_DESC = 12 };

static bool no_ids;     /* build_file: an event without ids (an empty ids section) */

/* A whole file: header, attr + ids, data, feature table and sections. */
static void build_file(struct bb *r, void (*data)(struct bb *))
{
	static const unsigned feats[] = { F_BUILD_ID, F_HOSTNAME, F_NRCPUS, F_CMDLINE, F_EVENT_DESC };
	size_t ids_off, data_off, data_end, table;
	uint8_t bits[32] = { 0 };

	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < sizeof(feats) / sizeof(*feats); i++)
		bits[feats[i] / 8] |= (uint8_t)(1u << (feats[i] % 8));
	p64(r, PERFDATA_MAGIC);
	p64(r, 104);
	p64(r, 128 + 16);               /* attr entry */
	p64(r, 104); p64(r, 144);       /* attrs */
	p64(r, 0); p64(r, 0);           /* data: patched */
	p64(r, 0); p64(r, 0);           /* event types */
	put(r, bits, sizeof(bits));
	attr(r);
	p64(r, 0); p64(r, no_ids ? 0 : 16);     /* ids section: patched */
	ids_off = r->len;
	if (!no_ids) {
		p64(r, EV_ID0);
		p64(r, EV_ID1);
	}
	set64(r, 104 + 128, ids_off);
	data_off = r->len;
	data(r);
	data_end = r->len;
	set64(r, 40, data_off);
	set64(r, 48, data_end - data_off);
	table = r->len;
	for (size_t i = 0; i < 2 * sizeof(feats) / sizeof(*feats); i++)
		p64(r, 0);              /* a section (16 bytes) per feature: patched */
	for (size_t i = 0; i < sizeof(feats) / sizeof(*feats); i++) {
		size_t start = r->len;

		switch (feats[i]) {
		case F_BUILD_ID: {
			uint8_t id[24] = { 0xab, 0xcd };

			begin(r, PERFDATA_HEADER_BUILD_ID, PERF_RECORD_MISC_KERNEL | (1u << 15));
			p32(r, (uint32_t)-1);
			id[20] = 2;     /* size */
			put(r, id, 24);
			put(r, "[kernel.kallsyms]", 18);
			end(r);
			break;
		}
		case F_HOSTNAME:
			pstring(r, "testhost");
			break;
		case F_NRCPUS:
			p32(r, 4);      /* available */
			p32(r, 2);      /* online */
			break;
		case F_CMDLINE:
			p32(r, 2);
			pstring(r, "perf");
			pstring(r, "record");
			break;
		case F_EVENT_DESC:
			p32(r, 1);
			p32(r, 128);
			attr(r);
			p32(r, 2);
			pstring(r, "cpu-clock:test");
			p64(r, EV_ID0);
			p64(r, EV_ID1);
			break;
		}
		set64(r, table + 16 * i, start);
		set64(r, table + 16 * i + 8, r->len - start);
	}
}

/* ---- opening and warnings ------------------------------------------------- */

struct warns {
	int n;
	char last[ERR_MSG_MAX];
};

static void on_warn(void *ctx, const struct perfdata_problem *p)
{
	struct warns *w = ctx;

	w->n++;
	snprintf(w->last, sizeof(w->last), "%s", p->msg);
}

/* An exactly-sized heap copy, so that a read past the end is seen. */
static uint8_t *copy_of(const struct bb *r, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	assert_non_null(p);
	memcpy(p, r->b, len);
	return p;
}

static struct bb file;

static void test_header_events_meta(void **state)
{
	struct warns w = { 0 };
	struct perfdata_opts o = { on_warn, &w };
	struct perfdata *pd;
	struct err err = { 0 };
	const struct perfdata_info *in;
	const struct event_desc *ev;
	const struct build_id_entry *b;
	uint8_t *p;
	uint64_t v;
	size_t n;

	(void)state;
	build_file(&file, records);
	p = copy_of(&file, file.len);
	assert_int_equal(perfdata_open_mem(&pd, p, file.len, &o, &err), 0);
	assert_int_equal(w.n, 0);
	in = perfdata_info(pd);
	assert_false(in->pipe);
	assert_false(in->unfinished);
	assert_int_equal(in->data_offset, 104 + 144 + 16);
	ev = perfdata_events(pd, &n);
	assert_int_equal(n, 1);
	assert_string_equal(ev[0].name, "cpu-clock:test");
	assert_int_equal(ev[0].attr.sample_type, ST);
	assert_int_equal(ev[0].nr_ids, 2);
	assert_int_equal(ev[0].ids[1].id, EV_ID1);
	assert_int_equal(ev[0].ids[1].cpu, 1);          /* from ID_INDEX */
	assert_int_equal(ev[0].ids[1].tid, 10);
	assert_string_equal(metadata_get_str(perfdata_meta(pd), META_HOSTNAME), "testhost");
	assert_true(metadata_get_u64(perfdata_meta(pd), META_NR_CPUS_ONLINE, &v));
	assert_int_equal(v, 2);
	assert_true(metadata_get_u64(perfdata_meta(pd), META_NR_CPUS_AVAIL, &v));
	assert_int_equal(v, 4);
	assert_memory_equal(metadata_get(perfdata_meta(pd), META_CMDLINE)->value, "perf\0record", 12);
	b = perfdata_build_ids(pd, &n);
	assert_int_equal(n, 1);
	assert_string_equal(b[0].path, "[kernel.kallsyms]");
	assert_int_equal(b[0].size, 2);
	assert_int_equal(b[0].id[1], 0xcd);
	assert_true(b[0].flags & BUILD_ID_FLAG_KERNEL);
	perfdata_close(pd);
	free(p);
}

/* kinds and record counts of the chunks of a walk, as "R3 U68 R1 ..." */
static void walk_text(struct perfdata *pd, char *out, size_t n)
{
	struct perfdata_chunk ch;
	size_t len = 0;

	out[0] = 0;
	while (perfdata_next(pd, &ch, NULL) == 1) {
		int k = 0;

		if (ch.kind == PERFDATA_CHUNK_RECORDS) {
			for (size_t off = 0, rl; off < ch.len; off += rl, k++)
				assert_int_equal(record_next(ch.p, ch.len, off, &rl, NULL), 1);
			len += (size_t)snprintf(out + len, n - len, "%sR%d", len ? " " : "", k);
		} else {
			len += (size_t)snprintf(out + len, n - len, "%sU%u", len ? " " : "", ch.type);
		}
		assert_true(len < n);
	}
}

static void test_walk(void **state)
{
	struct perfdata *pd;
	char text[256];
	uint8_t *p;

	(void)state;
	build_file(&file, records);
	p = copy_of(&file, file.len);
	assert_int_equal(perfdata_open_mem(&pd, p, file.len, NULL, NULL), 0);
	walk_text(pd, text, sizeof(text));
	assert_string_equal(text, "U69 R3 U68 R1 U68 R1");
	assert_int_equal(perfdata_stats(pd)->by_type[PERFDATA_FINISHED_ROUND - 64], 2);
	assert_int_equal(perfdata_stats(pd)->by_type[PERFDATA_ID_INDEX - 64], 1);
	perfdata_rewind(pd);
	walk_text(pd, text, sizeof(text));
	assert_string_equal(text, "U69 R3 U68 R1 U68 R1");
	perfdata_close(pd);
	free(p);
}

/* ---- the session ------------------------------------------------------------ */

struct seen {
	uint64_t time[16];
	uint32_t type[16];
	int n;
};

static int on_record(void *ctx, struct session *s, const struct record *rec)
{
	struct seen *sn = ctx;

	(void)s;
	assert_true(sn->n < 16);
	sn->type[sn->n] = rec->type;
	sn->time[sn->n++] = rec->type == PERF_RECORD_SAMPLE ? rec->u.sample.time : rec->sid.time;
	return 0;
}

static void check_session(const uint8_t *p, size_t len, const char *name)
{
	struct session s;
	struct seen sn = { .n = 0 };
	struct err err = { 0 };
	static const uint64_t want[] = { 50, 100, 200, 300, 400 };

	assert_int_equal(session_open_mem(&s, "test.data", p, len, true, &err), 0);
	assert_int_equal(s.format, SESSION_PERF);
	assert_int_equal(s.nr_events, 1);
	assert_string_equal(session_event_name(&s, 0), name);
	assert_int_equal(session_read(&s, on_record, &sn, &err), 0);
	assert_int_equal(sn.n, 5);
	for (int i = 0; i < 5; i++)
		assert_int_equal(sn.time[i], want[i]);
	assert_int_equal(sn.type[0], PERF_RECORD_COMM);
	assert_int_equal(sn.type[4], PERF_RECORD_EXIT);
	assert_int_equal(s.stats.samples, 3);
	assert_int_equal(s.stats.bad_records, 0);
	session_close(&s);
}

static void test_session_order(void **state)
{
	uint8_t *p;

	(void)state;
	build_file(&file, records);
	p = copy_of(&file, file.len);
	check_session(p, file.len, "cpu-clock:test");
	free(p);
}

/* ---- COMPRESSED ---------------------------------------------------------------- */

/* The same records, the kernel's ones compressed into two COMPRESSED
 * records with one zstd stream, cut in the middle of a sample. */
static void compressed(struct bb *r)
{
	struct bb plain;
	uint8_t out[4096];
	ZSTD_CStream *z = ZSTD_createCStream();
	size_t cut;

	memset(&plain, 0, sizeof(plain));
	comm(&plain, 10, "prog", 50);
	sample(&plain, 10, 0x1000, 300);
	sample(&plain, 10, 0x1010, 100);
	sample(&plain, 10, 0x1020, 200);
	exit_rec(&plain, 10, 400);
	cut = 48 + 20;                  /* inside the first sample */
	assert_non_null(z);
	ZSTD_initCStream(z, 1);
	id_index(r);
	for (int part = 0; part < 2; part++) {
		ZSTD_inBuffer in = { plain.b + (part ? cut : 0), part ? plain.len - cut : cut, 0 };
		ZSTD_outBuffer o = { out, sizeof(out), 0 };

		assert_false(ZSTD_isError(ZSTD_compressStream(z, &o, &in)));
		assert_int_equal(in.pos, in.size);
		assert_int_equal(ZSTD_flushStream(z, &o), 0);
		begin(r, PERFDATA_COMPRESSED, 0);
		put(r, out, o.pos);
		end_unpadded(r);        /* as perf writes them */
		if (!part)
			user(r, PERFDATA_FINISHED_ROUND);
	}
	user(r, PERFDATA_FINISHED_ROUND);
	ZSTD_freeCStream(z);
}

static void test_compressed(void **state)
{
	struct perfdata *pd;
	char text[256];
	uint8_t *p;

	(void)state;
	build_file(&file, compressed);
	p = copy_of(&file, file.len);
	assert_int_equal(perfdata_open_mem(&pd, p, file.len, NULL, NULL), 0);
	walk_text(pd, text, sizeof(text));
	/* the first output holds the COMM whole; the rest waits for the second */
	assert_string_equal(text, "U69 R1 U68 R4 U68");
	assert_int_equal(perfdata_stats(pd)->by_type[PERFDATA_COMPRESSED - 64], 2);
	assert_int_equal(perfdata_stats(pd)->bad_compressed, 0);
	perfdata_close(pd);
	check_session(p, file.len, "cpu-clock:test");
	free(p);
}

/* ---- pipe mode --------------------------------------------------------------- */

static void pipe_file(struct bb *r)
{
	memset(r, 0, sizeof(*r));
	p64(r, PERFDATA_MAGIC);
	p64(r, 16);
	/* a feature before the attr, as perf writes them */
	begin(r, PERFDATA_HEADER_FEATURE, 0);
	p64(r, F_HOSTNAME);
	pstring(r, "pipehost");
	end(r);
	begin(r, PERFDATA_HEADER_ATTR, 0);
	attr(r);
	p64(r, EV_ID0);
	p64(r, EV_ID1);
	end(r);
	begin(r, PERFDATA_EVENT_UPDATE, 0);
	p64(r, 2);              /* name */
	p64(r, EV_ID1);
	put(r, "piped", 6);
	end(r);
	records(r);
}

static void test_pipe(void **state)
{
	struct perfdata *pd;
	const struct event_desc *ev;
	uint8_t *p;
	size_t n;

	(void)state;
	pipe_file(&file);
	p = copy_of(&file, file.len);
	assert_int_equal(perfdata_open_mem(&pd, p, file.len, NULL, NULL), 0);
	assert_true(perfdata_info(pd)->pipe);
	ev = perfdata_events(pd, &n);
	assert_int_equal(n, 1);
	assert_string_equal(ev[0].name, "piped");
	assert_int_equal(ev[0].ids[0].tid, 10);
	assert_string_equal(metadata_get_str(perfdata_meta(pd), META_HOSTNAME), "pipehost");
	perfdata_close(pd);
	check_session(p, file.len, "piped");
	free(p);
}

/* ---- damage -------------------------------------------------------------------- */

/* Every cut of every kind of file: an error or a walk, never a crash. */
static void test_every_cut(void **state)
{
	void (*makers[])(struct bb *) = { records, compressed };

	(void)state;
	for (int kind = 0; kind < 3; kind++) {
		if (kind < 2)
			build_file(&file, makers[kind]);
		else
			pipe_file(&file);
		for (size_t len = 0; len < file.len; len++) {
			struct warns w = { 0 };
			struct perfdata_opts o = { on_warn, &w };
			struct perfdata *pd;
			struct err err = { 0 };
			char text[256];
			uint8_t *p = copy_of(&file, len);

			if (perfdata_open_mem(&pd, p, len, &o, &err)) {
				assert_true(err.msg[0] != 0);
			} else {
				walk_text(pd, text, sizeof(text));
				perfdata_close(pd);
			}
			free(p);
		}
	}
}

static void test_unfinished(void **state)
{
	struct warns w = { 0 };
	struct perfdata_opts o = { on_warn, &w };
	struct perfdata *pd;
	char text[256];
	uint8_t *p;

	(void)state;
	build_file(&file, records);
	set64(&file, 48, 0);            /* data size 0: perf was killed */
	p = copy_of(&file, file.len);
	assert_int_equal(perfdata_open_mem(&pd, p, file.len, &o, NULL), 0);
	assert_true(perfdata_info(pd)->unfinished);
	assert_int_equal(w.n, 1);
	assert_non_null(strstr(w.last, "did not finish"));
	/* the records are read; what follows them (the features) stops the walk */
	walk_text(pd, text, sizeof(text));
	assert_int_equal(strncmp(text, "U69 R3 U68 R1 U68 R1", 20), 0);
	perfdata_close(pd);
	free(p);
}

static void test_bad_record(void **state)
{
	struct warns w = { 0 };
	struct perfdata_opts o = { on_warn, &w };
	struct perfdata *pd;
	char text[256];
	uint8_t *p;
	uint16_t four = 4;

	(void)state;
	build_file(&file, records);
	/* the second sample (after ID_INDEX 80, COMM 48, a sample 40) says 4 bytes */
	memcpy(file.b + 104 + 144 + 16 + 80 + 48 + 40 + 6, &four, 2);
	p = copy_of(&file, file.len);
	assert_int_equal(perfdata_open_mem(&pd, p, file.len, &o, NULL), 0);
	walk_text(pd, text, sizeof(text));
	assert_string_equal(text, "U69 R2");
	assert_int_equal(w.n, 1);
	assert_non_null(strstr(w.last, "below its 8-byte header"));
	assert_true(perfdata_stats(pd)->stopped);
	perfdata_close(pd);
	free(p);
}

/* One event and no ids at all (nothing to tell events apart by): its
 * records decode all the same, and the names come from EVENT_DESC by place. */
static void test_no_ids(void **state)
{
	struct perfdata *pd;
	const struct event_desc *ev;
	uint8_t *p;
	size_t n;

	(void)state;
	no_ids = true;
	build_file(&file, records);
	no_ids = false;
	p = copy_of(&file, file.len);
	assert_int_equal(perfdata_open_mem(&pd, p, file.len, NULL, NULL), 0);
	ev = perfdata_events(pd, &n);
	assert_int_equal(n, 1);
	assert_int_equal(ev[0].nr_ids, 0);
	assert_string_equal(ev[0].name, "cpu-clock:test");
	perfdata_close(pd);
	check_session(p, file.len, "cpu-clock:test");
	free(p);
}

static void test_refused(void **state)
{
	struct perfdata *pd;
	struct err err = { 0 };
	uint64_t swapped = __builtin_bswap64(PERFDATA_MAGIC);

	(void)state;
	build_file(&file, records);
	memcpy(file.b, &swapped, 8);
	assert_true(perfdata_magic(file.b, file.len));
	assert_int_equal(perfdata_open_mem(&pd, file.b, file.len, NULL, &err), -PREC_EENDIAN);
	assert_non_null(strstr(err.msg, "other byte order"));
	memcpy(file.b, "PERFFILE", 8);
	assert_int_equal(perfdata_open_mem(&pd, file.b, file.len, NULL, &err), -PREC_EVERSION);
	build_file(&file, records);
	set64(&file, 8, 100);
	assert_int_equal(perfdata_open_mem(&pd, file.b, file.len, NULL, &err), -PREC_ECORRUPT);
	assert_non_null(strstr(err.msg, "header size 100"));
	assert_false(perfdata_magic("\x89PREC\r\n\x1a", 8));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_events_meta),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_session_order),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_every_cut),
		cmocka_unit_test(test_unfinished),
		cmocka_unit_test(test_bad_record),
		cmocka_unit_test(test_no_ids),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
