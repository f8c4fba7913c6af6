/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of reading by sums (report/core/session_sum.c, sum_settle.c,
 * load_run_sum): on perf.data files built here, whose records come as
 * perf writes them (each round one CPU buffer's span after another's), the
 * counts per sampled address and the session's counts are those of a
 * reading that puts every sample in time order (load_run), when a child's
 * FORK comes after its first samples, an exec after samples past it (and
 * after samples on both sides of it), a kernel map after kernel samples, a sample at the very time of a
 * boundary, with call chains and with two events; and a histogram keyed
 * by command, pid and CPU (prep diff's) the same. Files that cannot be
 * read so (a record session_read would hand on late, a COMPRESSED record)
 * are read the ordered way, with the same results. And the settling
 * alone: which late boundaries are taken and which refused, and where it
 * gives up (samples that do not sum). And the kept results (sum_cache.c):
 * read back as written, for their file and key only, and not at all once
 * a byte of them changed or they were cut short.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "common/buf.h"
#include "format/perfdata.h"
#include "report/aggregate/addr_hits.h"
#include "report/aggregate/hist.h"
#include "report/core/load.h"
#include "report/core/session.h"
#include "report/core/sum_cache.h"
#include "report/core/sum_settle.h"

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)
#define KPID 0xffffffffu

/* ---- perf.data bytes -------------------------------------------------- */

struct file {
	struct buf b;
	size_t start;           /* of the record being written */
	int nr_events;          /* 2: IDENTIFIER first in every sample */
	bool chains;            /* samples carry a call chain */
	bool cpus;              /* samples (and trailers) carry the CPU */
};

static void put(struct file *f, const void *p, size_t n)
{
	assert_int_equal(buf_append(&f->b, p, n), 0);
}

static void p32(struct file *f, uint32_t v) { put(f, &v, 4); }
static void p64(struct file *f, uint64_t v) { put(f, &v, 8); }

static void set64(struct file *f, size_t off, uint64_t v)
{
	memcpy(f->b.data + off, &v, 8);
}

static uint64_t sample_type(const struct file *f)
{
	return ST | (f->nr_events > 1 ? PERF_SAMPLE_IDENTIFIER : 0) |
	       (f->chains ? PERF_SAMPLE_CALLCHAIN : 0) | (f->cpus ? PERF_SAMPLE_CPU : 0);
}

static void begin(struct file *f, uint32_t type, uint16_t misc)
{
	f->start = f->b.len;
	p32(f, type);
	put(f, &misc, 2);
	put(f, &(uint16_t){ 0 }, 2);
}

static void end_unpadded(struct file *f)
{
	uint16_t size = (uint16_t)(f->b.len - f->start);

	memcpy(f->b.data + f->start + 6, &size, 2);
}

static void end(struct file *f)
{
	while ((f->b.len - f->start) % 8)
		put(f, "", 1);
	end_unpadded(f);
}

/* the sample_id trailer: tid, time (cpu), and the identifier of event 0 */
static void trailer(struct file *f, uint32_t pid, uint64_t time)
{
	p32(f, pid);
	p32(f, pid);
	p64(f, time);
	if (f->cpus)
		p64(f, time % 2);
	if (f->nr_events > 1)
		p64(f, 100);
}

static void sample_ev(struct file *f, int ev, uint32_t pid, uint64_t ip, uint64_t time,
		      bool kernel)
{
	begin(f, PERF_RECORD_SAMPLE, kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER);
	if (f->nr_events > 1)
		p64(f, 100 + (uint64_t)ev);
	p64(f, ip);
	p32(f, pid);
	p32(f, pid);
	p64(f, time);
	if (f->cpus)
		p64(f, time % 3 == 0);  /* cpu, res */
	p64(f, 1000 + time % 7);        /* periods that differ */
	if (f->chains) {
		p64(f, 3);
		p64(f, kernel ? PERF_CONTEXT_KERNEL : PERF_CONTEXT_USER);
		p64(f, ip);
		p64(f, 0x1800 + time % 3);
	}
	end(f);
}

static void sample(struct file *f, uint32_t pid, uint64_t ip, uint64_t time)
{
	sample_ev(f, 0, pid, ip, time, false);
}

static void comm(struct file *f, uint32_t pid, const char *name, uint64_t time, bool exec)
{
	char buf[16] = { 0 };

	begin(f, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	p32(f, pid);
	p32(f, pid);
	strncpy(buf, name, sizeof(buf) - 1);
	put(f, buf, 16);
	trailer(f, pid, time);
	end(f);
}

static void mmap_rec(struct file *f, uint32_t pid, uint64_t start, uint64_t len, const char *path,
		     uint64_t time)
{
	begin(f, PERF_RECORD_MMAP, pid == KPID ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER);
	p32(f, pid);
	p32(f, pid);
	p64(f, start);
	p64(f, len);
	p64(f, 0);
	put(f, path, strlen(path) + 1);
	while ((f->b.len - f->start) % 8)
		put(f, "", 1);
	trailer(f, pid, time);
	end(f);
}

static void fork_rec(struct file *f, uint32_t pid, uint32_t ppid, uint64_t time)
{
	begin(f, PERF_RECORD_FORK, 0);
	p32(f, pid);
	p32(f, ppid);
	p32(f, pid);
	p32(f, ppid);
	p64(f, time);
	trailer(f, ppid, time);
	end(f);
}

static void round_end(struct file *f)
{
	begin(f, PERFDATA_FINISHED_ROUND, 0);
	end(f);
}

static void attr(struct file *f)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = 128;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000;
	a.sample_type = sample_type(f);
	a.sample_id_all = 1;
	a.comm = a.mmap = a.task = 1;
	put(f, &a, 128);
}

/* Header, attr section (an id each), then the data that fill() writes. */
static void build(struct file *f, int nr_events, bool chains, bool cpus,
		  void (*fill)(struct file *))
{
	size_t attrs, data;

	*f = (struct file){ .b = BUF_INIT, .nr_events = nr_events, .chains = chains, .cpus = cpus };
	p64(f, PERFDATA_MAGIC);
	p64(f, 104);
	p64(f, 128 + 16);
	p64(f, 104);
	p64(f, (uint64_t)nr_events * 144);
	p64(f, 0);                      /* data: patched */
	p64(f, 0);
	p64(f, 0);
	p64(f, 0);
	put(f, (uint8_t[32]){ 0 }, 32);
	attrs = f->b.len;
	for (int i = 0; i < nr_events; i++) {
		attr(f);
		p64(f, 0);
		p64(f, 8);              /* ids: patched */
	}
	for (int i = 0; i < nr_events; i++) {
		set64(f, attrs + 144 * (size_t)i + 128, f->b.len);
		p64(f, 100 + (uint64_t)i);
	}
	data = f->b.len;
	fill(f);
	set64(f, 40, data);
	set64(f, 48, f->b.len - data);
}

/* ---- what a reading gives --------------------------------------------- */

struct hits {
	struct addr_hits h;
	struct session_stats stats;
	uint64_t first, last;
	char text[1 << 16];     /* each entry, in order: dso, offset, counts */
};

static int on_sample(void *ctx, struct load *l, const struct load_sample *s)
{
	return addr_hits_add(&((struct hits *)ctx)->h, l, s);
}

/* A reading of f (ip_only) with fn into ctx: by sums (by_cpu) or in time
 * order. Free it with load_free. */
static struct load *read_with(const struct file *f, bool sum, bool by_cpu, load_sample_fn fn,
			      void *ctx, struct hist *h)
{
	struct load_opts o = { .nr_inputs = 1, .quiet = true, .no_kallsyms = true, .no_cache = true,
			       .ip_only = true, .mem = f->b.data, .mem_len = f->b.len };
	struct hist_opts ho = { .keys = { SORT_COMM, SORT_PID, SORT_CPU, SORT_DSO, SORT_SYM },
				.nr_keys = 5 };
	struct err err = { 0 };
	struct load *l;

	o.inputs[0] = "sum.data";
	l = load_new(&o, &err);
	assert_non_null(l);
	if (h)
		assert_int_equal(hist_init(h, &ho, load_machine(l), load_symbolizer(l)), 0);
	if (sum)
		assert_int_equal(load_run_sum(l, fn, ctx, by_cpu, &err), 0);
	else
		assert_int_equal(load_run(l, fn, NULL, ctx, &err), 0);
	return l;
}

static void read_file(const struct file *f, bool sum, struct hits *out)
{
	struct load *l;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	out->h = (struct addr_hits)ADDR_HITS_INIT;
	l = read_with(f, sum, false, on_sample, out, NULL);
	for (size_t i = 0; i < out->h.nr; i++) {
		const struct addr_hit *e = &out->h.v[i];

		n += (size_t)snprintf(out->text + n, sizeof(out->text) - n,
				      "%s %#llx ev%d k%d %llu %llu\n",
				      e->dso ? e->dso->path : "-", (unsigned long long)e->off,
				      e->event, e->kernel, (unsigned long long)e->count,
				      (unsigned long long)e->period);
		assert_true(n < sizeof(out->text));
	}
	out->stats = load_session(l, 0)->stats;
	out->first = load_session(l, 0)->first_time;
	out->last = load_session(l, 0)->last_time;
	addr_hits_free(&out->h);
	load_free(l);
}

/* A histogram keyed by command, pid, CPU and address (prep diff's way, by
 * its stacks): each stack's thread, CPU, first frame, count and period, in
 * order. */
static void read_hist(const struct file *f, bool sum, char *text, size_t size)
{
	struct hist h;
	struct load *l = read_with(f, sum, true, load_add_to_hist, &h, &h);
	size_t n = 0;

	text[0] = 0;

	for (size_t i = 0; i < h.nr_stacks; i++) {
		const struct stack *st = &h.stacks[i];
		const struct frame *fr = &h.frames[h.frame_ids[st->first]];

		n += (size_t)snprintf(text + n, size - n, "%u/%u %s cpu%u %s %#llx %llu %llu\n",
				      st->thread->pid, st->thread->tid, st->comm, st->cpu,
				      fr->dso ? fr->dso->path : "-", (unsigned long long)fr->addr,
				      (unsigned long long)st->count, (unsigned long long)st->period);
		assert_true(n < size);
	}
	hist_free(&h);
	load_free(l);
}

/* load_run_sum gives what load_run gives, entry by entry and count by
 * count, and a histogram the same stacks. */
static void same_both_ways(const struct file *f)
{
	static struct hits a, b;
	static char ha[1 << 16], hb[1 << 16];

	read_file(f, false, &a);
	read_file(f, true, &b);
	assert_string_equal(a.text, b.text);
	assert_memory_equal(&a.stats, &b.stats, sizeof(a.stats));
	assert_int_equal(a.first, b.first);
	assert_int_equal(a.last, b.last);
	assert_true(a.stats.samples > 0);
	read_hist(f, false, ha, sizeof(ha));
	read_hist(f, true, hb, sizeof(hb));
	assert_string_equal(ha, hb);
}

/* How session_read_sum reads f: whether by sums, and how many classes
 * (first samples) it handed on. */
struct sums {
	size_t classes, records;
	uint64_t counted;
};

static int sum_record(void *ctx, struct session *s, const struct record *rec)
{
	(void)s;
	(void)rec;
	((struct sums *)ctx)->records++;
	return 0;
}

static int sum_class(void *ctx, struct session *s, const struct record *rec, uint64_t count,
		     uint64_t period)
{
	struct sums *g = ctx;

	(void)s;
	(void)rec;
	(void)period;
	g->classes++;
	g->counted += count;
	return 0;
}

static void ip_key(void *ctx, const struct sample_head *h, uint16_t misc, uint64_t key[2])
{
	(void)ctx;
	key[0] = h->ip;
	key[1] = misc & PERF_RECORD_MISC_CPUMODE_MASK;
}

static bool summed(const struct file *f, struct sums *g)
{
	static const struct session_sum_ops ops = { sum_record, sum_class, ip_key,
						    machine_record_scope, SUM_KEY_CALL };
	struct session s;
	struct err err = { 0 };
	bool done = false;

	memset(g, 0, sizeof(*g));
	assert_int_equal(session_open_mem(&s, "sum.data", f->b.data, f->b.len, true, &err), 0);
	assert_int_equal(session_read_sum(&s, &ops, g, NULL, &done, &err), 0);
	assert_true(g->counted <= s.stats.samples);
	session_close(&s);
	return done;
}

/* ---- the files -------------------------------------------------------- */

#define N 5000  /* samples per span: more than a batch (BATCH_MIN) */

static uint64_t ip_at(uint64_t i)
{
	return 0x1000 + 0x10 * (i % 37);
}

/* A parent maps /bin/a; its child's samples (CPU 0's span) come before
 * the child's FORK (CPU 1's, in the parent's context), a round later. */
static void fill_fork(struct file *f)
{
	comm(f, 10, "parent", 5, false);
	mmap_rec(f, 10, 0x1000, 0x1000, "/bin/a", 10);
	mmap_rec(f, KPID, 0xffffffff81000000ull, 0x1000000, "[kernel.kallsyms]_text", 1);
	round_end(f);
	for (uint64_t i = 0; i < N; i++)
		sample(f, 11, ip_at(i), 1000 + 2 * i);
	round_end(f);
	sample(f, 10, 0x1100, 40);
	fork_rec(f, 11, 10, 50);
	sample(f, 10, 0x1200, 60);
	for (uint64_t i = 0; i < 100; i++)
		sample_ev(f, 0, 10, 0xffffffff81000100ull + 8 * (i % 5), 70 + i, true);
	round_end(f);
	for (uint64_t i = 0; i < N; i++)
		sample(f, 11, ip_at(i + 5), 20000 + i);
	round_end(f);
}

/* A process's samples past its exec (CPU 0's span) come a round before
 * the exec and its new map (CPU 1's), with samples before it: the walk
 * starts again the exact way. One sample is at the very time of the
 * exec. */
static void fill_exec(struct file *f)
{
	comm(f, 10, "prog", 5, false);
	mmap_rec(f, 10, 0x1000, 0x1000, "/bin/a", 10);
	round_end(f);
	for (uint64_t i = 0; i < N; i++)
		sample(f, 10, ip_at(i), 3000 + i);
	round_end(f);
	for (uint64_t i = 0; i < 500; i++)
		sample(f, 10, ip_at(i), 1000 + i);
	sample(f, 10, 0x1100, 2000);
	comm(f, 10, "prog2", 2000, true);
	mmap_rec(f, 10, 0x1000, 0x1000, "/bin/b", 2001);
	round_end(f);
	for (uint64_t i = 0; i < N; i++)
		sample(f, 10, ip_at(i + 3), 9000 + i);
	round_end(f);
}

/* Samples before and after an exec (CPU 0's span) a round before it (CPU
 * 1's, with no sample): the walk starts again the exact way. */
static void fill_exec_between(struct file *f)
{
	comm(f, 10, "prog", 5, false);
	mmap_rec(f, 10, 0x1000, 0x1000, "/bin/a", 10);
	round_end(f);
	for (uint64_t i = 0; i < 500; i++)
		sample(f, 10, ip_at(i), 1000 + i);
	for (uint64_t i = 0; i < N; i++)
		sample(f, 10, ip_at(i + 1), 3000 + i);
	round_end(f);
	comm(f, 10, "prog2", 2000, true);
	mmap_rec(f, 10, 0x1000, 0x1000, "/bin/b", 2001);
	round_end(f);
}

/* A kernel module's map comes after kernel samples in it, and after
 * samples before it. */
static void fill_kernel_map(struct file *f)
{
	comm(f, 10, "prog", 5, false);
	mmap_rec(f, 10, 0x1000, 0x1000, "/bin/a", 10);
	mmap_rec(f, KPID, 0xffffffff81000000ull, 0x1000000, "[kernel.kallsyms]_text", 1);
	round_end(f);
	for (uint64_t i = 0; i < N; i++)
		sample_ev(f, 0, 10, 0xffffffffa0000000ull + ip_at(i), 3000 + i, true);
	round_end(f);
	for (uint64_t i = 0; i < 200; i++)
		sample_ev(f, 0, 10, 0xffffffffa0000000ull + ip_at(i), 100 + i, true);
	mmap_rec(f, KPID, 0xffffffffa0000000ull, 0x100000, "[mod]", 1000);
	round_end(f);
	round_end(f);
}

/* Two processes, two events, and the rounds in order: read at once. */
static void fill_plain(struct file *f)
{
	comm(f, 10, "a", 5, false);
	comm(f, 20, "b", 6, false);
	mmap_rec(f, 10, 0x1000, 0x1000, "/bin/a", 10);
	mmap_rec(f, 20, 0x1000, 0x1000, "/bin/b", 11);
	for (int r = 0; r < 4; r++) {
		for (uint64_t i = 0; i < 3000; i++)
			sample_ev(f, (int)(i % 2), 10, ip_at(i), 100 + 10000 * (uint64_t)r + 2 * i,
				  false);
		for (uint64_t i = 0; i < 3000; i++)
			sample_ev(f, (int)(i % 3 == 0), 20, ip_at(i * 7), 101 + 10000 * (uint64_t)r +
				  2 * i, false);
		round_end(f);
	}
	mmap_rec(f, 20, 0x1000, 0x1000, "/bin/c", 39000);
	for (uint64_t i = 0; i < 100; i++)
		sample(f, 20, ip_at(i), 39001 + i);
	round_end(f);
}

/* A record older than what a round end let go: session_read hands it on
 * late, so the file is not read by sums. */
static void fill_late(struct file *f)
{
	comm(f, 10, "prog", 5, false);
	mmap_rec(f, 10, 0x1000, 0x1000, "/bin/a", 10);
	for (uint64_t i = 0; i < 100; i++)
		sample(f, 10, ip_at(i), 100 + i);
	round_end(f);
	for (uint64_t i = 0; i < 100; i++)
		sample(f, 10, ip_at(i), 300 + i);
	round_end(f);
	sample(f, 10, 0x1100, 150);
	round_end(f);
}

/* The records of fill_late but its last round, in one COMPRESSED record. */
static void fill_compressed(struct file *f)
{
	struct file inner = { .b = BUF_INIT, .nr_events = f->nr_events, .chains = f->chains,
			      .cpus = f->cpus };
	size_t cap, n;
	void *z;

	comm(&inner, 10, "prog", 5, false);
	mmap_rec(&inner, 10, 0x1000, 0x1000, "/bin/a", 10);
	for (uint64_t i = 0; i < 1000; i++)
		sample(&inner, 10, ip_at(i), 100 + i);
	round_end(&inner);
	cap = ZSTD_compressBound(inner.b.len);
	z = malloc(cap);
	assert_non_null(z);
	n = ZSTD_compress(z, cap, inner.b.data, inner.b.len, 1);
	assert_false(ZSTD_isError(n));
	assert_true(n + 8 < 65536);
	begin(f, PERFDATA_COMPRESSED, 0);
	put(f, z, n);
	end_unpadded(f);        /* as perf writes them */
	free(z);
	buf_free(&inner.b);
}

/* ---- tests ------------------------------------------------------------ */

static void check(void (*fill)(struct file *), int nr_events, bool chains, bool expect_summed)
{
	struct file f;
	struct sums g;

	build(&f, nr_events, chains, nr_events > 1, fill);
	same_both_ways(&f);
	assert_int_equal(summed(&f, &g), expect_summed);
	if (expect_summed)
		assert_true(g.classes < g.counted / 10);        /* samples were summed */
	buf_free(&f.b);
}

static void test_fork_after_child(void **state)
{
	(void)state;
	check(fill_fork, 1, false, true);
}

static void test_exec_after_samples(void **state)
{
	(void)state;
	check(fill_exec, 1, false, true);
	check(fill_exec_between, 1, false, true);
}

static void test_kernel_map_late(void **state)
{
	(void)state;
	check(fill_kernel_map, 1, false, true);
}

static void test_events_and_chains(void **state)
{
	(void)state;
	check(fill_plain, 2, false, true);
	check(fill_plain, 2, true, true);
	check(fill_fork, 1, true, true);
	check(fill_exec, 2, true, true);
}

static void test_not_summed(void **state)
{
	(void)state;
	check(fill_late, 1, false, false);
	check(fill_compressed, 1, false, false);
}

/* ---- the settling alone ----------------------------------------------- */

static struct sum_pend pend(uint32_t pid, uint64_t time, uint64_t ip)
{
	static const uint8_t bytes[8];

	return (struct sum_pend){ .time = time, .period = 1, .pos = time, .key = { ip, 0 },
				  .pid = pid, .tid = pid, .p = bytes, .len = 8 };
}

/* Hand one batch over: at once (or the exact way, limit). */
static int batch(struct settle *st, const struct sum_bound *bounds, size_t nb,
		 const struct sum_pend *samples, size_t ns, bool at_once, uint64_t limit,
		 bool last)
{
	struct sum_batch b = { .limit = limit, .last = last, .at_once = at_once };
	int ret;

	b.bounds = calloc(nb + 1, sizeof(*b.bounds));
	b.pend = calloc(ns + 1, sizeof(*b.pend));
	assert_non_null(b.bounds);
	assert_non_null(b.pend);
	if (nb)
		memcpy(b.bounds, bounds, nb * sizeof(*bounds));
	if (ns)
		memcpy(b.pend, samples, ns * sizeof(*samples));
	b.nr_bounds = nb;
	b.nr_pend = ns;
	ret = settle_batch(st, &b);
	free(b.bounds);
	free(b.pend);
	return ret;
}

static void test_late_boundaries(void **state)
{
	struct sum_pend s1[] = { pend(7, 100, 0x10), pend(7, 120, 0x10), pend(8, 80, 0x10),
				 pend(8, 90, 0x10) };
	struct sum_bound fork7 = { 7, false, 50 }, exec8 = { 8, false, 85 };
	struct sum_pend before = pend(7, 40, 0x10), after = pend(7, 130, 0x10);
	struct settle_out o;
	struct settle *st = settle_new();

	(void)state;
	assert_non_null(st);
	assert_int_equal(batch(st, NULL, 0, s1, 4, true, 0, false), 0);
	/* past every sample of 7 so far: taken; one of 7 after it settles
	 * in a class of its own, one before it is refused */
	assert_int_equal(batch(st, &fork7, 1, &after, 1, true, 0, false), 0);
	settle_results(st, &o);
	assert_int_equal(o.nr_cls, 3);
	assert_int_equal(batch(st, NULL, 0, &before, 1, true, 0, false), 1);
	/* 8 has samples before and after it: refused */
	assert_int_equal(batch(st, &exec8, 1, NULL, 0, true, 0, false), 1);
	settle_free(st);
}

static void test_exact_way(void **state)
{
	struct sum_pend s[] = { pend(7, 100, 0x10), pend(7, 300, 0x10), pend(7, 200, 0x10),
				pend(7, 250, 0x10) };
	struct sum_bound exec7 = { 7, false, 200 };
	struct settle_out o;
	struct settle *st = settle_new();

	(void)state;
	assert_non_null(st);
	/* below 150 settles; the boundary at 200 then comes late, and is
	 * taken: the exact way refuses nothing */
	assert_int_equal(batch(st, NULL, 0, s, 4, false, 150, false), 0);
	settle_results(st, &o);
	assert_int_equal(o.samples, 1);
	assert_int_equal(batch(st, &exec7, 1, NULL, 0, false, 0, true), 0);
	settle_results(st, &o);
	/* 100 | 250, 300 in two classes; 200 alone (the boundary's time) */
	assert_int_equal(o.nr_cls, 2);
	assert_int_equal(o.samples, 3);
	assert_int_equal(o.nr_alone, 1);
	assert_int_equal(o.alone[0].time, 200);
	assert_int_equal(o.cls[0].count + o.cls[1].count, 3);
	assert_int_equal(o.tmin, 100);
	assert_int_equal(o.tmax, 300);
	settle_free(st);
}

/* Samples that do not sum (a class each): past SETTLE_CLASSES_MAX, the
 * settling gives up. */
static void test_too_many_classes(void **state)
{
	size_t n = SETTLE_CLASSES_MAX + 1;
	struct sum_pend *v = calloc(n, sizeof(*v));
	struct settle *st = settle_new();

	(void)state;
	assert_non_null(v);
	assert_non_null(st);
	for (size_t i = 0; i < n; i++)
		v[i] = pend(7, 100 + i, 0x1000 + 16 * i);
	assert_int_equal(batch(st, NULL, 0, v, n - 1, true, 0, false), 0);
	assert_int_equal(batch(st, NULL, 0, v + n - 1, 1, true, 0, false), SETTLE_FULL);
	settle_free(st);
	free(v);
}

/* ---- the kept results ------------------------------------------------- */

static char *kept_file(const char *dir)
{
	char cmd[4200];
	FILE *p;
	char *path = calloc(1, 4200);

	assert_non_null(path);
	snprintf(cmd, sizeof(cmd), "ls %s/sums-*.bin 2>/dev/null", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	if (!fgets(path, 4200, p))
		path[0] = 0;
	pclose(p);
	path[strcspn(path, "\n")] = 0;
	return path;
}

static void test_kept_results(void **state)
{
	static const uint8_t r1[16] = { 9, 0, 0, 0, 0, 0, 16 }, r2[24] = { 9, 0, 0, 0, 0, 0, 24, 0, 7 };
	const struct sum_out v[] = { { r1, 16, false, 0, 0 }, { r2, 24, true, 41, 4100 } };
	struct sum_cache_key k = { 3, 77, 5u << 20, 1000, 2000, 1 }, other = k;
	char dir[] = "/tmp/test_sum_kept.XXXXXX", *path;
	struct sum_cached c;
	struct stat st;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	sum_cache_store(dir, &k, 41, 100, 900, v, 2);
	assert_int_equal(sum_cache_load(dir, &k, &c), 0);
	assert_int_equal(c.samples, 41);
	assert_int_equal(c.tmin, 100);
	assert_int_equal(c.tmax, 900);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.v[0].len, 16);
	assert_false(c.v[0].sum);
	assert_memory_equal(c.v[0].p, r1, 16);
	assert_true(c.v[1].sum);
	assert_int_equal(c.v[1].count, 41);
	assert_int_equal(c.v[1].period, 4100);
	assert_memory_equal(c.v[1].p, r2, 24);
	sum_cached_free(&c);
	/* another file (changed since: its times), another key */
	other.mtime_ns++;
	assert_int_equal(sum_cache_load(dir, &other, &c), -1);
	other = k;
	other.tag = 2;
	assert_int_equal(sum_cache_load(dir, &other, &c), -1);
	/* a byte changed in the body, then cut short */
	path = kept_file(dir);
	assert_int_equal(stat(path, &st), 0);
	f = fopen(path, "r+");
	assert_non_null(f);
	fseek(f, st.st_size - 3, SEEK_SET);
	fputc(0x5a, f);
	fclose(f);
	assert_int_equal(sum_cache_load(dir, &k, &c), -1);
	sum_cache_store(dir, &k, 41, 100, 900, v, 2);
	assert_int_equal(sum_cache_load(dir, &k, &c), 0);
	sum_cached_free(&c);
	assert_int_equal(truncate(path, st.st_size - 8), 0);
	assert_int_equal(sum_cache_load(dir, &k, &c), -1);
	/* a folder that cannot be made: nothing kept, nothing said */
	sum_cache_store("/proc/no/such/folder", &k, 41, 100, 900, v, 2);
	assert_int_equal(sum_cache_load("/proc/no/such/folder", &k, &c), -1);
	unlink(path);
	free(path);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fork_after_child),
		cmocka_unit_test(test_exec_after_samples),
		cmocka_unit_test(test_kernel_map_late),
		cmocka_unit_test(test_events_and_chains),
		cmocka_unit_test(test_not_summed),
		cmocka_unit_test(test_late_boundaries),
		cmocka_unit_test(test_exact_way),
		cmocka_unit_test(test_too_many_classes),
		cmocka_unit_test(test_kept_results),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
