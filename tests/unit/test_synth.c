/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of record/synth.c: records synthesized from a fake /proc tree
 * built under mkdtemp(), from the real /proc for this test's own process,
 * failing emit callbacks and missing processes.
 *
 * Every emitted record is decoded with the project's decoder
 * (format/record.c), trailer included, for several sample_types, and its
 * string padding is checked byte by byte.
 *
 * The unit-test build links only build/libprec.a (common/ and format/),
 * which does not hold record/, and synth.c keeps all but its API static:
 * so this file includes the .c directly. The API is renamed on the way in,
 * so that a build that also links record/synth.c (the standalone command
 * line) has no duplicate symbols; the tests call the included copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "format/record.h"
#define synth_process	test_copy_synth_process
#define synth_thread	test_copy_synth_thread
#define synth_all	test_copy_synth_all
#define synth_kernel	test_copy_synth_kernel
#include "record/synth.c"

/* ---- collecting what is emitted ---------------------------------------- */

struct rec_copy {
	uint8_t *bytes;
	size_t len;
};

struct sink {
	struct rec_copy *v;
	size_t n, cap;
	size_t calls;
	int fail_code;          /* != 0: returned by the call after fail_after records */
	size_t fail_after;
};

static int sink_emit(void *ctx, const void *rec, size_t len)
{
	struct sink *s = ctx;
	struct rec_copy *v;

	s->calls++;
	if (s->fail_code && s->n == s->fail_after)
		return s->fail_code;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		v = realloc(s->v, s->cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->v = v;
	}
	s->v[s->n].bytes = malloc(len);   /* exact size: ASan sees reads past the end */
	if (!s->v[s->n].bytes)
		return -ENOMEM;
	memcpy(s->v[s->n].bytes, rec, len);
	s->v[s->n++].len = len;
	return 0;
}

static void sink_free(struct sink *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].bytes);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

#define TEST_ID 0x123456789aULL
#define SID_BITS (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
		  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

/* with and without IDENTIFIER, TIME, CPU, ID; some with non-trailer bits */
static const uint64_t sample_types[] = {
	0,
	PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
	PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
		PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
	PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN,
	PERF_SAMPLE_IDENTIFIER,
	PERF_SAMPLE_CPU | PERF_SAMPLE_STREAM_ID,
};
#define NR_TYPES (sizeof(sample_types) / sizeof(sample_types[0]))

static struct synth_params params(struct sink *s, uint64_t st, const char *proc)
{
	memset(s, 0, sizeof(*s));
	return (struct synth_params){ st, TEST_ID, proc, sink_emit, s, false };
}

/* ---- decoding and checking every record -------------------------------- */

struct decoded {
	struct record *r;
	size_t n;
	struct record_layouts *ls;
};

static void decoded_free(struct decoded *d)
{
	free(d->r);
	record_layouts_free(d->ls);
	memset(d, 0, sizeof(*d));
}

/* The string of a COMM / MMAP / MMAP2 runs to the trailer: strlen + 1
 * rounded up to 8, zeros after the NUL. */
static void check_padding(const struct record *r, const char *str, uint64_t st)
{
	const uint8_t *end = r->bytes + r->size - 8 * __builtin_popcountll(st & SID_BITS);
	size_t n = strlen(str), room = (size_t)(end - (const uint8_t *)str);

	assert_int_equal(room, (n + 8) / 8 * 8);
	for (size_t i = n; i < room; i++)
		assert_int_equal(str[i], 0);
}

static void own_ids(const struct record *r, uint32_t *pid, uint32_t *tid, const char **str)
{
	*pid = *tid = 0;
	*str = NULL;
	switch (r->type) {
	case PERF_RECORD_COMM:
		*pid = r->u.comm.pid, *tid = r->u.comm.tid, *str = r->u.comm.comm;
		break;
	case PERF_RECORD_FORK:
		*pid = r->u.task.pid, *tid = r->u.task.tid;
		break;
	case PERF_RECORD_MMAP:
		*pid = r->u.mmap.pid, *tid = r->u.mmap.tid, *str = r->u.mmap.filename;
		break;
	case PERF_RECORD_MMAP2:
		*pid = r->u.mmap2.pid, *tid = r->u.mmap2.tid, *str = r->u.mmap2.filename;
		break;
	default:
		fail_msg("unexpected record type %u", r->type);
	}
}

/* Framing, trailer and padding of one decoded record. */
static void check_frame(const struct record *r, uint64_t st)
{
	uint32_t pid, tid;
	const char *str;

	assert_true(r->known);
	assert_int_equal(r->size % 8, 0);
	assert_int_equal(r->event, 0);
	own_ids(r, &pid, &tid, &str);
	if (str)
		check_padding(r, str, st);
	assert_int_equal(r->sid.fields, st & SID_BITS);
	assert_int_equal(r->sid.pid, st & PERF_SAMPLE_TID ? pid : 0);
	assert_int_equal(r->sid.tid, st & PERF_SAMPLE_TID ? tid : 0);
	assert_int_equal(r->sid.time, 0);
	assert_int_equal(r->sid.id, st & PERF_SAMPLE_ID ? TEST_ID : 0);
	assert_int_equal(r->sid.stream_id, st & PERF_SAMPLE_STREAM_ID ? TEST_ID : 0);
	assert_int_equal(r->sid.cpu, st & PERF_SAMPLE_CPU ? 0xffffffffu : 0);
	assert_int_equal(r->sid.cpu_res, 0);
	assert_int_equal(r->sid.identifier, st & PERF_SAMPLE_IDENTIFIER ? TEST_ID : 0);
}

/* Decode everything the sink holds, as records of one event with `st`. */
static void decode_all(const struct sink *s, uint64_t st, struct decoded *d)
{
	struct event_layout l = { .sample_type = st, .sample_id_all = true };
	uint64_t id = TEST_ID;
	struct err err = { 0 };

	d->n = s->n;
	d->r = calloc(s->n ? s->n : 1, sizeof(*d->r));
	d->ls = record_layouts_new();
	assert_non_null(d->r);
	assert_non_null(d->ls);
	assert_int_equal(record_layouts_add(d->ls, &l, &id, 1, &err), 0);
	for (size_t i = 0; i < s->n; i++) {
		assert_true(s->v[i].len <= 65535);
		if (record_decode(d->ls, s->v[i].bytes, s->v[i].len, &d->r[i], &err))
			fail_msg("record %zu: %s", i, err.msg);
		check_frame(&d->r[i], st);
	}
}

static void check_comm(const struct record *r, uint32_t pid, uint32_t tid, const char *comm)
{
	assert_int_equal(r->type, PERF_RECORD_COMM);
	assert_int_equal(r->misc, PERF_RECORD_MISC_USER);
	assert_int_equal(r->u.comm.pid, pid);
	assert_int_equal(r->u.comm.tid, tid);
	assert_string_equal(r->u.comm.comm, comm);
}

static void check_fork(const struct record *r, uint32_t pid, uint32_t tid)
{
	assert_int_equal(r->type, PERF_RECORD_FORK);
	assert_int_equal(r->misc, PERF_RECORD_MISC_USER);
	assert_int_equal(r->u.task.pid, pid);
	assert_int_equal(r->u.task.ppid, pid);
	assert_int_equal(r->u.task.tid, tid);
	assert_int_equal(r->u.task.ptid, pid);
	assert_int_equal(r->u.task.time, 0);
}

struct exp_map {
	uint64_t start, len, pgoff;
	uint32_t maj, min;
	uint64_t ino;
	uint32_t prot, flags;
	const char *name;
};

static void check_mmap2(const struct record *r, uint32_t pid, uint32_t tid,
			const struct exp_map *e)
{
	assert_int_equal(r->type, PERF_RECORD_MMAP2);
	assert_int_equal(r->misc, PERF_RECORD_MISC_USER);
	assert_int_equal(r->u.mmap2.pid, pid);
	assert_int_equal(r->u.mmap2.tid, tid);
	assert_int_equal(r->u.mmap2.addr, e->start);
	assert_int_equal(r->u.mmap2.len, e->len);
	assert_int_equal(r->u.mmap2.pgoff, e->pgoff);
	assert_int_equal(r->u.mmap2.maj, e->maj);
	assert_int_equal(r->u.mmap2.min, e->min);
	assert_int_equal(r->u.mmap2.ino, e->ino);
	assert_int_equal(r->u.mmap2.ino_generation, 0);
	assert_int_equal(r->u.mmap2.prot, e->prot);
	assert_int_equal(r->u.mmap2.flags, e->flags);
	assert_string_equal(r->u.mmap2.filename, e->name);
}

static void check_kmmap(const struct record *r, uint64_t start, uint64_t len,
			uint64_t pgoff, const char *name)
{
	assert_int_equal(r->type, PERF_RECORD_MMAP);
	assert_int_equal(r->misc, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(r->u.mmap.pid, 0xffffffffu);
	assert_int_equal(r->u.mmap.tid, 0);
	assert_int_equal(r->u.mmap.addr, start);
	assert_int_equal(r->u.mmap.len, len);
	assert_int_equal(r->u.mmap.pgoff, pgoff);
	assert_string_equal(r->u.mmap.filename, name);
}

/* ---- the fake /proc ----------------------------------------------------- */

static char root[64];   /* the fake /proc */

static void mkdirs(const char *path)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + strlen(root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0755) && errno != EEXIST)
			fail_msg("mkdir %s: %s", tmp, strerror(errno));
		*p = '/';
	}
}

/* <dir>/rel with len bytes of data, parent folders created */
static void wfile_in(const char *dir, const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	mkdirs(path);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void wfile(const char *rel, const char *s)
{
	wfile_in(root, rel, s, strlen(s));
}

#define MAPS_PAD "                          "
static const char fake_maps[] =
	"00400000-00401000 r--p 00000000 08:01 1234" MAPS_PAD "/usr/bin/fake\n"
	"00401000-00405000 r-xp 00001000 08:01 1234" MAPS_PAD "/usr/bin/fake\n"
	"00405000-00406000 rw-p 00005000 08:01 1234" MAPS_PAD "/usr/bin/fake\n"
	"7f0000000000-7f0000010000 r-xp 00002000 fd:01 99" MAPS_PAD "/opt/my app/lib thing.so\n"
	"7f0000020000-7f0000030000 r-xs 00000000 00:05 77" MAPS_PAD "/memfd:jit (deleted)\n"
	"7f0000040000-7f0000041000 rwxp 00000000 00:00 0 \n"
	"7f0000050000-7f0000051000 r-xp 00000000 00:00 0\n"
	"7f0000060000-7f0000061000 r-xp 00000000 00:00 0" MAPS_PAD "[anon:jit code]\n"
	"garbage line\n"
	"\n"
	"7f0000070000-7f0000071000 r-xq 00000000 00:00 0   /bad/perms\n"
	"7f0000090000-7f0000080000 r-xp 00000000 08:01 5   /end/before/start\n"
	"7f00000a0000-7f00000a1000 r-xp 00000000 08:01 5x  /glued/inode\n"
	"7f00000b0000-7f00000b1000 r-xp 00000000 08:01 99999999999999999999999 /huge/inode\n"
	"%s"    /* the over-long name */
	"7ffc00000000-7ffc00002000 r-xp 00000000 00:00 0" MAPS_PAD "[vdso]\n"
	"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0" MAPS_PAD "[stack]\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0" MAPS_PAD "[vsyscall]";

#define RX (PROT_READ | PROT_EXEC)
static const struct exp_map fake_exp[] = {
	{ 0x401000, 0x4000, 0x1000, 8, 1, 1234, RX, MAP_PRIVATE, "/usr/bin/fake" },
	{ 0x7f0000000000, 0x10000, 0x2000, 0xfd, 1, 99, RX, MAP_PRIVATE, "/opt/my app/lib thing.so" },
	{ 0x7f0000020000, 0x10000, 0, 0, 5, 77, RX, MAP_SHARED, "/memfd:jit (deleted)" },
	{ 0x7f0000040000, 0x1000, 0, 0, 0, 0, RX | PROT_WRITE, MAP_PRIVATE, "//anon" },
	{ 0x7f0000050000, 0x1000, 0, 0, 0, 0, RX, MAP_PRIVATE, "//anon" },
	{ 0x7f0000060000, 0x1000, 0, 0, 0, 0, RX, MAP_PRIVATE, "//anon" },
	{ 0x7ffc00000000, 0x2000, 0, 0, 0, 0, RX, MAP_PRIVATE, "[vdso]" },
	{ 0xffffffffff600000, 0x1000, 0, 0, 0, 0, PROT_EXEC, MAP_PRIVATE, "[vsyscall]" },
};
#define NR_FAKE_MAPS (sizeof(fake_exp) / sizeof(fake_exp[0]))

/* a name of PATH_MAX bytes (skipped) and of PATH_MAX - 1 (kept) */
static char *long_name(size_t len)
{
	char *s = malloc(len + 1);

	assert_non_null(s);
	s[0] = '/';
	memset(s + 1, 'b', len - 1);
	s[len] = 0;
	return s;
}

/* the maps of 1000: a line with a NUL inside first (skipped), then
 * fake_maps with a name of PATH_MAX bytes (skipped) */
static void write_maps(void)
{
	static const char nul_line[] = "7f00000c0000-7f00000c1000 r-xp 00000000 08:01 5 /nul\0name\n";
	char *name = long_name(PATH_MAX), *line, *maps, *all;
	size_t n;

	assert_true(asprintf(&line, "7f0000080000-7f0000081000 r-xp 00000000 08:01 55 %s\n",
			     name) > 0);
	assert_true(asprintf(&maps, fake_maps, line) > 0);
	n = sizeof(nul_line) - 1 + strlen(maps);
	all = malloc(n);
	assert_non_null(all);
	memcpy(all, nul_line, sizeof(nul_line) - 1);
	memcpy(all + sizeof(nul_line) - 1, maps, strlen(maps));
	wfile_in(root, "1000/maps", all, n);
	free(name);
	free(line);
	free(maps);
	free(all);
}

#define LONG_COMM_LEN 300

static void write_processes(void)
{
	char *kept = long_name(PATH_MAX - 1), *line, comm[LONG_COMM_LEN + 2];

	wfile("1000/status", "Name:\tfakeproc\nUmask:\t0022\nState:\tS (sleeping)\n"
	      "Tgid:\t1000\nNgid:\t0\nPid:\t1000\nPPid:\t1\n");
	wfile("1000/task/1000/comm", "fakeproc\n");
	wfile("1000/task/1001/comm", "worker 1\n");
	wfile("1000/task/1002/status", "Tgid:\t1000\n");   /* exited: no comm */
	wfile("1001/status", "Name:\tworker 1\nTgid:\t1000\nPid:\t1001\n");
	write_maps();
	/* a kernel thread: empty maps */
	wfile("2/status", "Name:\tkthreadd\nTgid:\t2\n");
	wfile("2/task/2/comm", "kthreadd\n");
	wfile("2/maps", "");
	/* exited between status and comm */
	wfile("3000/status", "Tgid:\t3000\n");
	wfile("3000/task/3000/status", "Tgid:\t3000\n");
	/* a long comm, a name of PATH_MAX - 1 bytes */
	memset(comm, 'c', LONG_COMM_LEN);
	strcpy(comm + LONG_COMM_LEN, "\n");
	wfile("4000/status", "Tgid:\t4000\n");
	wfile("4000/task/4000/comm", comm);
	assert_true(asprintf(&line, "10000-11000 r-xp 00000000 08:01 7 %s\n", kept) > 0);
	wfile("4000/maps", line);
	/* a status without Tgid */
	wfile("5000/status", "Name:\tbroken\n");
	free(kept);
	free(line);
}

static const char fake_kallsyms[] =
	"0000000000000000 A fixed_percpu_data\n"
	"0000000000000000 A __per_cpu_start\n"
	"bogus\n"
	"ffffffffc0001000 t _text\t[fakemod]\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff80fff000 T _text\n"
	"ffffffff81000010 T startup_64\n";

static const char fake_modules[] =
	"nf_tables 364544 0 - Live 0xffffffffc0a00000 (E)\n"
	"bridge 421888 1 br_netfilter, Live 0xffffffffc0900000\n"
	"loading 4096 0 - Loading 0x0000000000000000\n"
	"garbage\n"
	"nosize x 0 - Live 0xffffffffc0800000\n"
	"badaddr 4096 0 - Live 0xzz\n"
	"\n";

static int group_setup(void **state)
{
	char link[PATH_MAX];

	(void)state;
	strcpy(root, "/tmp/test_synth.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	write_processes();
	wfile("kallsyms", fake_kallsyms);
	wfile("modules", fake_modules);
	wfile("version", "not a process\n");
	snprintf(link, sizeof(link), "%s/self", root);
	return symlink("1000", link);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int group_teardown(void **state)
{
	(void)state;
	return nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* a fresh directory under root for a kernel variant */
static void kernel_tree(char *dir, size_t size, const char *name,
			const char *kallsyms, const char *modules)
{
	snprintf(dir, size, "%s/%s", root, name);
	wfile_in(dir, "kallsyms", kallsyms, strlen(kallsyms));
	if (modules)
		wfile_in(dir, "modules", modules, strlen(modules));
}

/* ---- fake /proc: processes ---------------------------------------------- */

/* what synth_process(1000) emits, from record `at` on */
static size_t check_fake_1000(const struct decoded *d, size_t at)
{
	size_t i;

	assert_true(d->n >= at + 1 + NR_FAKE_MAPS + 2);
	check_comm(&d->r[at++], 1000, 1000, "fakeproc");
	for (i = 0; i < NR_FAKE_MAPS; i++)
		check_mmap2(&d->r[at++], 1000, 1000, &fake_exp[i]);
	check_fork(&d->r[at++], 1000, 1001);
	check_comm(&d->r[at++], 1000, 1001, "worker 1");
	return at;
}

static void test_fake_process(void **state)
{
	(void)state;
	for (size_t t = 0; t < NR_TYPES; t++) {
		struct sink s;
		struct synth_params p = params(&s, sample_types[t], root);
		struct err err = { 0 };
		struct decoded d;

		if (synth_process(1000, &p, &err))
			fail_msg("%s", err.msg);
		decode_all(&s, sample_types[t], &d);
		assert_int_equal(check_fake_1000(&d, 0), d.n);
		decoded_free(&d);
		sink_free(&s);
	}
}

/* a thread id given to synth_process means its process */
static void test_fake_process_of_thread(void **state)
{
	struct sink s;
	struct synth_params p = params(&s, PERF_SAMPLE_TID, root);
	struct err err = { 0 };
	struct decoded d;

	(void)state;
	assert_int_equal(synth_process(1001, &p, &err), 0);
	decode_all(&s, PERF_SAMPLE_TID, &d);
	assert_int_equal(check_fake_1000(&d, 0), d.n);
	decoded_free(&d);
	sink_free(&s);
}

static void test_fake_thread(void **state)
{
	(void)state;
	for (size_t t = 0; t < NR_TYPES; t++) {
		struct sink s;
		struct synth_params p = params(&s, sample_types[t], root);
		struct err err = { 0 };
		struct decoded d;

		if (synth_thread(1001, &p, &err))
			fail_msg("%s", err.msg);
		decode_all(&s, sample_types[t], &d);
		assert_int_equal(d.n, 1 + NR_FAKE_MAPS);
		check_comm(&d.r[0], 1000, 1001, "worker 1");
		for (size_t i = 0; i < NR_FAKE_MAPS; i++)
			check_mmap2(&d.r[1 + i], 1000, 1001, &fake_exp[i]);
		decoded_free(&d);
		sink_free(&s);
	}
}

/* -d (p.data): the readable data mappings too, between the executable
 * ones in maps order, marked MMAP_DATA; unreadable ones never */
static void test_fake_thread_data(void **state)
{
	static const struct { uint64_t start; uint32_t prot; const char *name; } data[] = {
		{ 0x400000, PROT_READ, "/usr/bin/fake" },
		{ 0x405000, PROT_READ | PROT_WRITE, "/usr/bin/fake" },
		{ 0x7ffd00000000, PROT_READ | PROT_WRITE, "[stack]" },
	};
	struct sink s;
	struct synth_params p = params(&s, PERF_SAMPLE_TID, root);
	struct err err = { 0 };
	struct decoded d;
	size_t exec = 0, nd = 0;

	(void)state;
	p.data = true;
	if (synth_thread(1001, &p, &err))
		fail_msg("%s", err.msg);
	decode_all(&s, PERF_SAMPLE_TID, &d);
	assert_int_equal(d.n, 1 + NR_FAKE_MAPS + 3);
	for (size_t i = 1; i < d.n; i++) {
		const struct record *r = &d.r[i];

		assert_int_equal(r->type, PERF_RECORD_MMAP2);
		if (r->misc == PERF_RECORD_MISC_USER) {
			check_mmap2(r, 1000, 1001, &fake_exp[exec++]);
			continue;
		}
		assert_int_equal(r->misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA);
		assert_int_equal(r->u.mmap2.addr, data[nd].start);
		assert_int_equal(r->u.mmap2.prot, data[nd].prot);
		assert_string_equal(r->u.mmap2.filename, data[nd].name);
		nd++;
	}
	assert_int_equal(exec, NR_FAKE_MAPS);
	decoded_free(&d);
	sink_free(&s);
}

/* 255-byte comm, a PATH_MAX - 1 name kept */
static void test_fake_long(void **state)
{
	struct sink s;
	uint64_t st = SID_BITS;
	struct synth_params p = params(&s, st, root);
	struct err err = { 0 };
	struct decoded d;
	char comm[COMM_MAX + 1];
	char *name = long_name(PATH_MAX - 1);
	struct exp_map e = { 0x10000, 0x1000, 0, 8, 1, 7, RX, MAP_PRIVATE, name };

	(void)state;
	assert_int_equal(synth_process(4000, &p, &err), 0);
	decode_all(&s, st, &d);
	assert_int_equal(d.n, 2);
	memset(comm, 'c', COMM_MAX);
	comm[COMM_MAX] = 0;
	check_comm(&d.r[0], 4000, 4000, comm);
	check_mmap2(&d.r[1], 4000, 4000, &e);
	assert_int_equal(d.r[1].size, 8 + 64 + PATH_MAX + 48);
	decoded_free(&d);
	sink_free(&s);
	free(name);
}

/* gone after its status was read: nothing, no error */
static void test_fake_vanished(void **state)
{
	struct sink s;
	struct synth_params p = params(&s, PERF_SAMPLE_TID, root);
	struct err err = { 0 };

	(void)state;
	assert_int_equal(synth_process(3000, &p, &err), 0);
	assert_int_equal(synth_thread(3000, &p, &err), 0);
	assert_int_equal(s.calls, 0);
	sink_free(&s);
}

static void test_fake_bad_status(void **state)
{
	struct sink s;
	struct synth_params p = params(&s, 0, root);
	struct err err = { 0 };

	(void)state;
	assert_int_equal(synth_process(5000, &p, &err), -PREC_ECORRUPT);
	assert_non_null(strstr(err.msg, "5000/status"));
	assert_int_equal(s.calls, 0);
	sink_free(&s);
}

static void test_fake_all(void **state)
{
	(void)state;
	for (size_t t = 0; t < NR_TYPES; t++) {
		struct sink s;
		struct synth_params p = params(&s, sample_types[t], root);
		struct err err = { 0 };
		struct decoded d;
		size_t i = 0, seen = 0;
		int ret = synth_all(&p, &err);

		if (ret < 0)
			fail_msg("%s", err.msg);
		assert_int_equal(ret, 3);     /* 1000, 2, 4000 */
		decode_all(&s, sample_types[t], &d);
		while (i < d.n) {
			assert_int_equal(d.r[i].type, PERF_RECORD_COMM);
			switch (d.r[i].u.comm.pid) {
			case 1000:
				i = check_fake_1000(&d, i);
				seen |= 1;
				break;
			case 2:         /* kernel thread: COMM only */
				check_comm(&d.r[i++], 2, 2, "kthreadd");
				seen |= 2;
				break;
			case 4000:
				i += 2;
				seen |= 4;
				break;
			default:
				fail_msg("COMM of unexpected pid %u", d.r[i].u.comm.pid);
			}
		}
		assert_int_equal(seen, 7);
		assert_int_equal(d.n, (1 + NR_FAKE_MAPS + 2) + 1 + 2);
		decoded_free(&d);
		sink_free(&s);
	}
}

/* ---- fake /proc: the kernel --------------------------------------------- */

static void test_fake_kernel(void **state)
{
	(void)state;
	for (size_t t = 0; t < NR_TYPES; t++) {
		struct sink s;
		struct synth_params p = params(&s, sample_types[t], root);
		struct err err = { 0 };
		struct decoded d;
		const uint64_t text = 0xffffffff80fff000ULL;
		bool restricted = true;

		if (synth_kernel(&p, &restricted, &err))
			fail_msg("%s", err.msg);
		assert_false(restricted);
		decode_all(&s, sample_types[t], &d);
		assert_int_equal(d.n, 3);
		check_kmmap(&d.r[0], text, ~0ULL - text, text, "[kernel.kallsyms]_text");
		check_kmmap(&d.r[1], 0xffffffffc0a00000ULL, 364544, 0, "[nf_tables]");
		check_kmmap(&d.r[2], 0xffffffffc0900000ULL, 421888, 0, "[bridge]");
		decoded_free(&d);
		sink_free(&s);
	}
}

/* _stext when there is no _text; no modules file: no modules */
static void test_fake_kernel_stext(void **state)
{
	char dir[PATH_MAX];
	struct sink s;
	struct synth_params p;
	struct err err = { 0 };
	struct decoded d;

	(void)state;
	kernel_tree(dir, sizeof(dir), "k_stext",
		    "ffffffff81000000 T startup_64\nffffffff81000000 T _stext\n", NULL);
	p = params(&s, PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER, dir);
	assert_int_equal(synth_kernel(&p, NULL, &err), 0);
	decode_all(&s, p.sample_type, &d);
	assert_int_equal(d.n, 1);
	check_kmmap(&d.r[0], 0xffffffff81000000ULL, ~0ULL - 0xffffffff81000000ULL,
		    0xffffffff81000000ULL, "[kernel.kallsyms]_text");
	decoded_free(&d);
	sink_free(&s);
}

static void test_fake_kernel_restricted(void **state)
{
	char dir[PATH_MAX];
	struct sink s;
	struct synth_params p;
	struct err err = { 0 };
	bool restricted = false;

	(void)state;
	kernel_tree(dir, sizeof(dir), "k_zero",
		    "0000000000000000 A fixed_percpu_data\n0000000000000000 T _stext\n"
		    "0000000000000000 T _text\n0000000000000000 T startup_64\n",
		    "nf_tables 364544 0 - Live 0x0000000000000000\n");
	p = params(&s, SID_BITS, dir);
	assert_int_equal(synth_kernel(&p, &restricted, &err), 0);
	assert_true(restricted);
	assert_int_equal(s.calls, 0);
	sink_free(&s);
}

static void test_fake_kernel_no_text(void **state)
{
	char dir[PATH_MAX];
	struct sink s;
	struct synth_params p;
	struct err err = { 0 };
	bool restricted = true;

	(void)state;
	kernel_tree(dir, sizeof(dir), "k_none", "ffffffff81000000 T startup_64\n", NULL);
	p = params(&s, 0, dir);
	assert_int_equal(synth_kernel(&p, &restricted, &err), -ENOENT);
	assert_false(restricted);
	assert_non_null(strstr(err.msg, "_text"));
	assert_int_equal(s.calls, 0);
	sink_free(&s);
}

/* ---- the real /proc ----------------------------------------------------- */

struct helper {
	int to_main[2], to_helper[2];
};

static void *helper_main(void *arg)
{
	struct helper *h = arg;
	pid_t tid = gettid();
	char c;

	if (write(h->to_main[1], &tid, sizeof(tid)) != sizeof(tid))
		return NULL;
	while (read(h->to_helper[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void read_line(const char *path, char *out, size_t size)
{
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_non_null(fgets(out, (int)size, f));
	fclose(f);
	out[strcspn(out, "\n")] = 0;
}

static const struct record *find_mmap2(const struct decoded *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct record *r = &d->r[i];
		const char *base;

		if (r->type != PERF_RECORD_MMAP2)
			continue;
		base = strrchr(r->u.mmap2.filename, '/');
		base = base ? base + 1 : r->u.mmap2.filename;
		if (name[0] == '/' ? !strcmp(r->u.mmap2.filename, name) :
		    !strncmp(base, name, strlen(name)))
			return r;
	}
	return NULL;
}

static void check_real_maps(const struct decoded *d, uint32_t pid, uint32_t tid)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const struct record *r;

	assert_true(n > 0);
	exe[n] = 0;
	r = find_mmap2(d, exe);
	if (!r)
		fail_msg("no MMAP2 of %s", exe);
	assert_true(r->u.mmap2.prot & PROT_EXEC);
	assert_int_equal(r->u.mmap2.pid, pid);
	assert_int_equal(r->u.mmap2.tid, tid);
	assert_true(r->u.mmap2.ino != 0);
	r = find_mmap2(d, "libc.so");
	if (!r)
		r = find_mmap2(d, "libc-");
	if (!r)
		fail_msg("no MMAP2 of libc");
	assert_int_equal(r->u.mmap2.flags, MAP_PRIVATE);
}

static void test_real_self(void **state)
{
	struct helper h;
	pthread_t th;
	pid_t tid = 0, pid = getpid();
	char comm[64];
	struct sink s;
	struct synth_params p = params(&s, SID_BITS, NULL);
	struct err err = { 0 };
	struct decoded d;
	size_t forks = 0;

	(void)state;
	assert_int_equal(pipe(h.to_main), 0);
	assert_int_equal(pipe(h.to_helper), 0);
	assert_int_equal(pthread_create(&th, NULL, helper_main, &h), 0);
	assert_int_equal(pthread_setname_np(th, "synth-helper"), 0);
	assert_int_equal(read(h.to_main[0], &tid, sizeof(tid)), sizeof(tid));
	read_line("/proc/self/comm", comm, sizeof(comm));
	if (synth_process(pid, &p, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(write(h.to_helper[1], "x", 1), 1);
	pthread_join(th, NULL);
	for (int i = 0; i < 2; i++) {
		close(h.to_main[i]);
		close(h.to_helper[i]);
	}
	decode_all(&s, SID_BITS, &d);
	check_comm(&d.r[0], (uint32_t)pid, (uint32_t)pid, comm);
	check_real_maps(&d, (uint32_t)pid, (uint32_t)pid);
	for (size_t i = 0; i + 1 < d.n; i++) {
		if (d.r[i].type != PERF_RECORD_FORK || d.r[i].u.task.tid != (uint32_t)tid)
			continue;
		check_fork(&d.r[i], (uint32_t)pid, (uint32_t)tid);
		check_comm(&d.r[i + 1], (uint32_t)pid, (uint32_t)tid, "synth-helper");
		forks++;
	}
	assert_int_equal(forks, 1);
	decoded_free(&d);
	sink_free(&s);
}

static void test_real_thread(void **state)
{
	struct sink s;
	struct synth_params p = params(&s, PERF_SAMPLE_TID | PERF_SAMPLE_CPU, "/proc");
	struct err err = { 0 };
	struct decoded d;
	char comm[64];

	(void)state;
	read_line("/proc/thread-self/comm", comm, sizeof(comm));
	if (synth_thread(gettid(), &p, &err))
		fail_msg("%s", err.msg);
	decode_all(&s, p.sample_type, &d);
	check_comm(&d.r[0], (uint32_t)getpid(), (uint32_t)gettid(), comm);
	check_real_maps(&d, (uint32_t)getpid(), (uint32_t)gettid());
	decoded_free(&d);
	sink_free(&s);
}

/* Restricted or not, depending on where the test runs: both are checked. */
static void test_real_kernel(void **state)
{
	struct sink s;
	struct synth_params p = params(&s, SID_BITS, NULL);
	struct err err = { 0 };
	struct decoded d;
	bool restricted;

	(void)state;
	if (access("/proc/kallsyms", R_OK))
		skip();
	if (synth_kernel(&p, &restricted, &err))
		fail_msg("%s", err.msg);
	decode_all(&s, SID_BITS, &d);
	if (restricted) {
		assert_int_equal(d.n, 0);
	} else {
		uint64_t start;

		assert_true(d.n >= 1);
		start = d.r[0].u.mmap.addr;
		check_kmmap(&d.r[0], start, ~0ULL - start, start, "[kernel.kallsyms]_text");
		for (size_t i = 1; i < d.n; i++)
			assert_int_equal(d.r[i].u.mmap.filename[0], '[');
	}
	decoded_free(&d);
	sink_free(&s);
}

/* ---- errors ------------------------------------------------------------- */

/* fail the emit at every position: the code comes back, nothing follows */
static void fail_each(int (*run)(const struct synth_params *p, struct err *err),
		      const char *proc, size_t total)
{
	for (size_t k = 0; k < total; k++) {
		struct sink s;
		struct synth_params p = params(&s, PERF_SAMPLE_TID, proc);
		struct err err = { 0 };

		s.fail_code = -EIO;
		s.fail_after = k;
		assert_int_equal(run(&p, &err), -EIO);
		assert_int_equal(err.code, -EIO);
		assert_non_null(strstr(err.msg, "cannot write synthesized"));
		assert_int_equal(s.calls, k + 1);
		assert_int_equal(s.n, k);
		sink_free(&s);
	}
}

static int run_process(const struct synth_params *p, struct err *err)
{
	return synth_process(1000, p, err);
}

static int run_thread(const struct synth_params *p, struct err *err)
{
	return synth_thread(1001, p, err);
}

static int run_all(const struct synth_params *p, struct err *err)
{
	return synth_all(p, err);
}

static int run_kernel(const struct synth_params *p, struct err *err)
{
	return synth_kernel(p, NULL, err);
}

static int run_self(const struct synth_params *p, struct err *err)
{
	return synth_process(getpid(), p, err);
}

static void test_emit_fails(void **state)
{
	(void)state;
	fail_each(run_process, root, 1 + NR_FAKE_MAPS + 2);
	fail_each(run_thread, root, 1 + NR_FAKE_MAPS);
	fail_each(run_all, root, (1 + NR_FAKE_MAPS + 2) + 1 + 2);
	fail_each(run_kernel, root, 3);
	fail_each(run_self, "/proc", 3);
}

static void check_no_pid(int ret, const struct err *err, pid_t pid)
{
	char num[16];

	snprintf(num, sizeof(num), "%d", (int)pid);
	assert_int_equal(ret, -ESRCH);
	assert_int_equal(err->code, -ESRCH);
	if (!strstr(err->msg, num))
		fail_msg("'%s' does not name pid %s", err->msg, num);
}

static void test_no_such_pid(void **state)
{
	char line[32];
	struct sink s;
	struct synth_params fake = params(&s, 0, root), real = fake;
	struct err err = { 0 };
	pid_t none;

	(void)state;
	real.proc = "/proc";
	read_line("/proc/sys/kernel/pid_max", line, sizeof(line));
	none = (pid_t)atoi(line) + 1;
	check_no_pid(synth_process(4242, &fake, &err), &err, 4242);
	check_no_pid(synth_thread(4242, &fake, &err), &err, 4242);
	check_no_pid(synth_process(none, &real, &err), &err, none);
	check_no_pid(synth_thread(none, &real, &err), &err, none);
	check_no_pid(synth_process(0, &real, &err), &err, 0);
	check_no_pid(synth_process(-1, &real, &err), &err, -1);
	assert_int_equal(s.calls, 0);
	sink_free(&s);
}

static void test_bad_params(void **state)
{
	struct sink s;
	struct synth_params p = params(&s, 0, "/nonexistent/proc");
	struct err err = { 0 };

	(void)state;
	assert_int_equal(synth_process(1, &p, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/proc"));
	assert_int_equal(synth_all(&p, &err), -ENOENT);
	assert_int_equal(synth_kernel(&p, NULL, &err), -ENOENT);
	p.emit = NULL;
	assert_int_equal(synth_thread(1, &p, &err), -EINVAL);
	assert_int_equal(synth_process(1, NULL, &err), -EINVAL);
	assert_int_equal(synth_all(NULL, NULL), -EINVAL);
	sink_free(&s);
}

/* ---- the parsers alone -------------------------------------------------- */

static void test_parse_maps_lines(void **state)
{
	static const char *const bad[] = {
		"", "\n", "0-1", "1000-2000 r-xp", "1000-2000 r-xp 0 08:01",
		"1000-2000 rwx 0 08:01 5 /x", "1000-2000 r-xp 0 0801 5 /x",
		"10000000000000000-2000 r-xp 0 08:01 5 /x",
		"1000-2000 r-xp 0 123456789:01 5 /x", "1000-2000  r-xp 0 08:01 5 /x",
		"g000-2000 r-xp 0 08:01 5 /x",
	};
	static const char good[] = "A000-B000 r-xs 10 Fd:0a 5    /a  b \n";
	struct map_line m;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse_maps_line(bad[i], strlen(bad[i]), &m))
			fail_msg("'%s' parsed", bad[i]);
	assert_true(parse_maps_line(good, strlen(good), &m));
	assert_int_equal(m.start, 0xa000);
	assert_int_equal(m.end, 0xb000);
	assert_int_equal(m.pgoff, 0x10);
	assert_int_equal(m.maj, 0xfd);
	assert_int_equal(m.min, 0xa);
	assert_int_equal(m.flags, MAP_SHARED);
	assert_int_equal(m.prot, PROT_READ | PROT_EXEC);
	assert_int_equal(m.name_len, 6);        /* trailing blanks belong to the name */
	assert_memory_equal(m.name, "/a  b ", 6);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_fake_process),
	cmocka_unit_test(test_fake_process_of_thread),
	cmocka_unit_test(test_fake_thread),
	cmocka_unit_test(test_fake_thread_data),
	cmocka_unit_test(test_fake_long),
	cmocka_unit_test(test_fake_vanished),
	cmocka_unit_test(test_fake_bad_status),
	cmocka_unit_test(test_fake_all),
	cmocka_unit_test(test_fake_kernel),
	cmocka_unit_test(test_fake_kernel_stext),
	cmocka_unit_test(test_fake_kernel_restricted),
	cmocka_unit_test(test_fake_kernel_no_text),
	cmocka_unit_test(test_real_self),
	cmocka_unit_test(test_real_thread),
	cmocka_unit_test(test_real_kernel),
	cmocka_unit_test(test_emit_fails),
	cmocka_unit_test(test_no_such_pid),
	cmocka_unit_test(test_bad_params),
	cmocka_unit_test(test_parse_maps_lines),
};

int main(void)
{
	return cmocka_run_group_tests_name("synth", tests, group_setup, group_teardown);
}
