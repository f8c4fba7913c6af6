/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the sort-key table (report/aggregate/sortkey.c) and of the
 * histograms built with it (report/aggregate/hist.c): lookup by name, each
 * key's order and cell text, column widths in prep report's layout
 * (report/views/print.c), totals, self and children along call chains, and
 * entries merged by the keys in use. The machine is made from hand-written
 * COMM and MMAP records and the frames are named by hand (no binaries), as
 * the symbolizer would name them without DWARF.
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

#include "report/aggregate/hist.h"
#include "report/aggregate/sortkey.h"
/* the reading's insides: report_text gives the printer events and their
 * periods by hand, without a file */
#include "report/core/load_int.h"
#include "report/views/print.h"

static int sign(int c)
{
	return (c > 0) - (c < 0);
}

/* ---- the table ------------------------------------------------------------ */

static void test_lookup(void **state)
{
	static const char *const names[SORT_NR] = {
		"comm", "pid", "tid", "dso", "sym", "srcline", "srcfile", "cpu", "symoff",
		"period", "parent", "symbol_daddr", "dso_daddr", "cgroup", "parallelism",
	};
	enum sort_key_id id;

	(void)state;
	for (size_t i = 0; i < SORT_NR; i++) {
		const struct sort_key *sk = sort_key_get((enum sort_key_id)i);

		id = SORT_NR;
		assert_int_equal(sort_key_find(names[i], strlen(names[i]), &id), 0);
		assert_int_equal(id, i);
		assert_string_equal(sk->name, names[i]);
		assert_non_null(sk->title);
		assert_non_null(sk->cmp);
		assert_non_null(sk->text);
		/* only period is a column without a key of its own */
		assert_true(!sk->fill == (i == SORT_PERIOD));
	}
	/* the length given counts, not the terminator: "sym" of "symoff" */
	assert_int_equal(sort_key_find("symoff", 3, &id), 0);
	assert_int_equal(id, SORT_SYM);
	assert_int_equal(sort_key_find("sy", 2, &id), -ENOENT);
	assert_int_equal(sort_key_find("Sym", 3, &id), -ENOENT);
	assert_int_equal(sort_key_find("bogus", 5, &id), -ENOENT);
	assert_int_equal(sort_key_find("", 0, &id), -ENOENT);
	assert_int_equal(sort_key_find("overhead", 8, &id), -ENOENT);

	assert_string_equal(sort_key_get(SORT_COMM)->title, "Command");
	assert_string_equal(sort_key_get(SORT_PID)->title, "    Pid:Command");
	assert_string_equal(sort_key_get(SORT_DSO)->title, "Shared Object");
	assert_string_equal(sort_key_get(SORT_SRCLINE)->title, "Source:Line");
	assert_int_equal(sort_key_get(SORT_PERIOD)->min_width, 12);
	assert_string_equal(sort_key_get(SORT_SYM_DADDR)->title, "Data Symbol");
	assert_string_equal(sort_key_get(SORT_DSO_DADDR)->title, "Data Object");
	/* perf's Parallelism column: 11 wide, right-aligned */
	assert_string_equal(sort_key_get(SORT_PARALLELISM)->title, "Parallelism");
	assert_int_equal(sort_key_get(SORT_PARALLELISM)->min_width, 11);
}

static void test_names_and_flags(void **state)
{
	const char *all = "comm, pid, tid, dso, sym, srcline, srcfile, cpu, symoff, period, parent, "
			  "symbol_daddr, dso_daddr, cgroup, parallelism";
	char buf[168], small[10];

	(void)state;
	assert_int_equal(sort_key_names(buf, sizeof(buf)), strlen(all));
	assert_string_equal(buf, all);
	/* cut as snprintf cuts, the whole length returned */
	assert_int_equal(sort_key_names(small, sizeof(small)), strlen(all));
	assert_string_equal(small, "comm, pid");
	assert_int_equal(sort_key_names(NULL, 0), strlen(all));

	assert_true(sort_keys_have((enum sort_key_id[]){ SORT_COMM, SORT_SRCFILE }, 2, SK_SRC));
	assert_false(sort_keys_have((enum sort_key_id[]){ SORT_COMM, SORT_SYM }, 2, SK_SRC));
	assert_true(sort_keys_have((enum sort_key_id[]){ SORT_DSO, SORT_SYM }, 2, SK_FUNCTION));
	/* symoff is symbol-like but keys no function entries */
	assert_false(sort_keys_have((enum sort_key_id[]){ SORT_SYMOFF }, 1, SK_FUNCTION));
	assert_true(sort_keys_have((enum sort_key_id[]){ SORT_SYMOFF }, 1, SK_SYMBOL_LIKE));
	assert_true(sort_keys_have((enum sort_key_id[]){ SORT_PARENT }, 1, SK_PARENT));
	assert_true(sort_keys_have((enum sort_key_id[]){ SORT_CPU }, 1, SK_RIGHT));
	/* every flag asked, by one key */
	assert_false(sort_keys_have((enum sort_key_id[]){ SORT_CPU, SORT_SYM }, 2,
				    SK_RIGHT | SK_SYMBOL_LIKE));
	assert_false(sort_keys_have(NULL, 0, SK_SRC));
	/* the data keys, and only they, read data addresses */
	assert_true(sort_keys_have((enum sort_key_id[]){ SORT_COMM, SORT_DSO_DADDR }, 2, SK_DATA));
	assert_true(sort_keys_have((enum sort_key_id[]){ SORT_SYM_DADDR }, 1, SK_DATA));
	assert_false(sort_keys_have((enum sort_key_id[]){ SORT_SYM, SORT_DSO }, 2, SK_DATA));
	/* parallelism, and only it, reads the samples' parallelism */
	assert_true(sort_keys_have((enum sort_key_id[]){ SORT_COMM, SORT_PARALLELISM }, 2,
				   SK_PARALLEL | SK_RIGHT));
	assert_false(sort_keys_have((enum sort_key_id[]){ SORT_CPU, SORT_SYM }, 2, SK_PARALLEL));
}

/* ---- compare and text on hand-made entries -------------------------------- */

static struct dso app_dso = { .path = (char *)"/bin/app", .short_name = "app" };
static struct dso libc_dso = { .path = (char *)"/lib/libc.so.6", .short_name = "libc.so.6" };
static struct frame hand_frames[] = {
	{ .dso = &app_dso, .sym = "alpha", .addr = 0x100, .vaddr = 0x110, .sym_start = 0x100 },
	{ .dso = &app_dso, .sym = "beta", .addr = 0x50, .vaddr = 0x50, .sym_start = 0x50 },
	{ .dso = &libc_dso, .addr = 0x10 },
	{ .addr = 0x20 },
	{ .dso = &app_dso, .sym = "k_fn", .addr = 0xffffffff81000010, .kernel = true,
	  .vaddr = 0xffffffff81000010, .sym_start = 0xffffffff81000000 },
};

static int key_cmp(enum sort_key_id k, const struct hentry *a, const struct hentry *b)
{
	struct hist h = { .frames = hand_frames };

	return sign(sort_key_get(k)->cmp(&h, a, b));
}

/* a before b, b after a, each equal to itself */
static void assert_before(enum sort_key_id k, const struct hentry *a, const struct hentry *b)
{
	assert_int_equal(key_cmp(k, a, b), -1);
	assert_int_equal(key_cmp(k, b, a), 1);
	assert_int_equal(key_cmp(k, a, a), 0);
}

static void test_compare(void **state)
{
	struct hentry a = { 0 }, b = { 0 };

	(void)state;
	a.key.comm = "apple", b.key.comm = "banana";
	assert_before(SORT_COMM, &a, &b);
	/* numbers, not their text ("10" < "9") */
	a.key.pid = 9, b.key.pid = 10;
	assert_before(SORT_PID, &a, &b);
	a.key.tid = 9, b.key.tid = 10;
	assert_before(SORT_TID, &a, &b);
	a.key.cpu = 2, b.key.cpu = 10;
	assert_before(SORT_CPU, &a, &b);
	a.self_period = 5, b.self_period = 7;
	assert_before(SORT_PERIOD, &a, &b);
	/* by the dso's name, no dso last */
	a.key.dso = &app_dso, b.key.dso = &libc_dso;
	assert_before(SORT_DSO, &a, &b);
	b.key.dso = NULL;
	assert_before(SORT_DSO, &a, &b);
	a.key.srcline = "a.c:10", b.key.srcline = "a.c:9";      /* as text, as perf */
	assert_before(SORT_SRCLINE, &a, &b);
	a.key.srcfile = "a.c", b.key.srcfile = "b.c";
	assert_before(SORT_SRCFILE, &a, &b);
	a.key.parent = "[other]", b.key.parent = "main";
	assert_before(SORT_PARENT, &a, &b);
	/* the other keys' fields do not count */
	assert_int_equal(key_cmp(SORT_COMM, &b, &b), 0);
	a.key.comm = b.key.comm = "same";
	assert_int_equal(key_cmp(SORT_COMM, &a, &b), 0);
}

static void test_compare_sym(void **state)
{
	struct hentry a = { 0 }, b = { 0 };

	(void)state;
	a.frame = 0, b.frame = 1;               /* alpha, beta */
	assert_before(SORT_SYM, &a, &b);
	a.frame = 1, b.frame = 2;               /* named before unnamed, whatever the address */
	assert_before(SORT_SYM, &a, &b);
	a.frame = 2, b.frame = 3;               /* unnamed: by address */
	assert_before(SORT_SYM, &a, &b);
	a.key.ip = 0x30;                        /* children: the address as sampled */
	assert_before(SORT_SYM, &b, &a);
	a.key.ip = 0;
	a.frame = 1, b.frame = 0;               /* an inlined name is the entry's name */
	a.key.inl = "zeta (inlined)";
	assert_before(SORT_SYM, &b, &a);
	a.key.inl = NULL;
	/* symoff: the symbol first, then the offset */
	a.frame = b.frame = 0;
	a.key.symoff = 0x108, b.key.symoff = 0x110;
	assert_int_equal(key_cmp(SORT_SYM, &a, &b), 0);
	assert_before(SORT_SYMOFF, &a, &b);
	a.frame = 1;                            /* beta after alpha, whatever the offset */
	assert_before(SORT_SYMOFF, &b, &a);
}

static void test_data_keys(void **state)
{
	struct hentry a = { 0 }, b = { 0 };
	static char buf[256];
	struct hist h = { 0 };

	(void)state;
	/* named before unnamed, names as text, addresses by value */
	a.key.dsym = "big_array", b.key.dsym = "counter";
	assert_before(SORT_SYM_DADDR, &a, &b);
	b.key.dsym = NULL, b.key.daddr = 0x1000;
	assert_before(SORT_SYM_DADDR, &a, &b);
	a.key.dsym = NULL, a.key.daddr = 0x20;
	assert_before(SORT_SYM_DADDR, &a, &b);
	a.key.ddso = &app_dso, b.key.ddso = &libc_dso;
	assert_before(SORT_DSO_DADDR, &a, &b);
	b.key.ddso = NULL;
	assert_before(SORT_DSO_DADDR, &a, &b);
	/* cells as perf prints them */
	a.key.dsym = "big_array", a.key.dmark = '.';
	sort_key_get(SORT_SYM_DADDR)->text(&h, &a, buf, sizeof(buf));
	assert_string_equal(buf, "[.] big_array");
	b.key.dmark = 'k';
	sort_key_get(SORT_SYM_DADDR)->text(&h, &b, buf, sizeof(buf));
	assert_string_equal(buf, "[k] 0x0000000000001000");
	sort_key_get(SORT_DSO_DADDR)->text(&h, &a, buf, sizeof(buf));
	assert_string_equal(buf, "app");
	sort_key_get(SORT_DSO_DADDR)->text(&h, &b, buf, sizeof(buf));
	assert_string_equal(buf, "[unknown]");
}

static const char *cell(enum sort_key_id k, const struct hentry *e)
{
	static char buf[256];
	struct hist h = { .frames = hand_frames };

	sort_key_get(k)->text(&h, e, buf, sizeof(buf));
	return buf;
}

static void test_text(void **state)
{
	struct thread t = { .pid = 10, .tid = 11, .comm = "worker" };
	struct hentry e = { .thread = &t, .self_period = 12345 };
	const struct sort_key *pid = sort_key_get(SORT_PID);

	(void)state;
	e.key.comm = "app";
	e.key.pid = 10, e.key.tid = 11, e.key.cpu = 7;
	assert_string_equal(cell(SORT_COMM, &e), "app");
	assert_string_equal(cell(SORT_PID, &e), "     10:worker");
	assert_string_equal(cell(SORT_TID, &e), "     11:worker");
	assert_string_equal(cell(SORT_CPU, &e), "007");
	assert_string_equal(cell(SORT_PERIOD, &e), "12345");
	assert_string_equal(cell(SORT_SRCFILE, &e), "[unknown]");       /* no line */
	e.key.srcfile = "app.c";
	assert_string_equal(cell(SORT_SRCFILE, &e), "app.c");
	e.frame = 0;
	assert_string_equal(cell(SORT_DSO, &e), "app");
	assert_string_equal(cell(SORT_SYM, &e), "[.] alpha");
	assert_string_equal(cell(SORT_SYMOFF, &e), "[.] alpha+0x10");
	e.frame = 3;                            /* no map: no dso, the address */
	assert_string_equal(cell(SORT_DSO, &e), "[unknown]");
	assert_string_equal(cell(SORT_SYM, &e), "[.] 0x0000000000000020");
	e.frame = 4;
	assert_string_equal(cell(SORT_SYM, &e), "[k] k_fn");
	e.level = '.';                          /* the mark met on the chain wins */
	assert_string_equal(cell(SORT_SYM, &e), "[.] k_fn");
	e.key.inl = "g (inlined)";
	assert_string_equal(cell(SORT_SYM, &e), "[.] g (inlined)");

	/* the pid column fits "%7u:comm" whole, even when the text was cut */
	assert_int_equal(pid->width(&e, "     10:worker"), 14);
	assert_int_equal(pid->width(&e, "x"), 14);
	assert_int_equal(pid->width(&e, "   12345678:worker"), 18);
	assert_null(sort_key_get(SORT_SYM)->width);
}

/* cgroup: the path of the CGROUP record that named the id, as perf: N/A
 * without an id, unknown for one no record named; the larger id first */
static void test_cgroup(void **state)
{
	struct record rec = { .type = PERF_RECORD_CGROUP };
	struct hentry a = { 0 }, b = { 0 };
	char buf[64];
	struct hist h = { 0 };
	struct machine m;
	const struct sort_key *sk = sort_key_get(SORT_CGROUP);

	(void)state;
	machine_init(&m);
	h.machine = &m;
	rec.u.cgroup.id = 25;
	rec.u.cgroup.path = "/cg";
	assert_int_equal(machine_process(&m, &rec), 0);
	rec.u.cgroup.id = 1;
	rec.u.cgroup.path = "/";
	assert_int_equal(machine_process(&m, &rec), 0);
	a.key.cgroup = 25;
	sk->text(&h, &a, buf, sizeof(buf));
	assert_string_equal(buf, "/cg");
	a.key.cgroup = 1;
	sk->text(&h, &a, buf, sizeof(buf));
	assert_string_equal(buf, "/");
	a.key.cgroup = 7;
	sk->text(&h, &a, buf, sizeof(buf));
	assert_string_equal(buf, "unknown");
	a.key.cgroup = 0;
	sk->text(&h, &a, buf, sizeof(buf));
	assert_string_equal(buf, "N/A");
	a.key.cgroup = 25;
	b.key.cgroup = 1;
	assert_true(sk->cmp(&h, &a, &b) < 0);
	assert_true(sk->flags & SK_SYMBOL_LIKE);
	machine_free(&m);
}

/* ---- histograms from samples ---------------------------------------------- */

#define APP 0x400000ull
#define LIBC 0x7f0000000000ull
#define KERN 0xffffffff81000000ull

/* what the symbolizer would say, by dso and file offset */
static const struct { const char *dso, *name; uint64_t start, end; } fake_syms[] = {
	{ "app", "main", 0x1000, 0x1100 },
	{ "app", "a", 0x1100, 0x1200 },
	{ "app", "b", 0x1200, 0x1300 },
	{ "libc.so.6", "memcpy", 0x2000, 0x2100 },
	{ "[kernel.kallsyms]", "do_syscall", KERN, KERN + 0x100 },
};

struct fx {
	struct machine m;
	struct hist h;
	struct thread *app, *worker, *other;
};

static void record(struct machine *m, struct record *r)
{
	assert_int_equal(machine_process(m, r), 0);
}

static void comm(struct machine *m, uint32_t pid, uint32_t tid, const char *name)
{
	struct record r = { .type = PERF_RECORD_COMM };

	r.u.comm.pid = pid, r.u.comm.tid = tid, r.u.comm.comm = name;
	record(m, &r);
}

static void map_file(struct machine *m, uint32_t pid, uint64_t addr, uint64_t len,
		     const char *path)
{
	struct record r = { .type = PERF_RECORD_MMAP };

	r.u.mmap.pid = r.u.mmap.tid = pid;
	r.u.mmap.addr = addr, r.u.mmap.len = len, r.u.mmap.filename = path;
	record(m, &r);
}

static void fx_init(struct fx *x, const enum sort_key_id *keys, size_t nk, bool children,
		    const char *parent_re)
{
	struct hist_opts o = { .nr_keys = nk, .children = children, .parent_re = parent_re };

	memcpy(o.keys, keys, nk * sizeof(*keys));
	machine_init(&x->m);
	comm(&x->m, 10, 10, "app");
	comm(&x->m, 10, 11, "worker");
	comm(&x->m, 20, 20, "other");
	map_file(&x->m, 10, APP, 0x10000, "/bin/app");
	map_file(&x->m, 10, LIBC, 0x100000, "/lib/libc.so.6");
	map_file(&x->m, 20, APP, 0x10000, "/bin/app");
	x->app = machine_thread(&x->m, 10, 10);
	x->worker = machine_thread(&x->m, 10, 11);
	x->other = machine_thread(&x->m, 20, 20);
	assert_non_null(x->app);
	assert_string_equal(x->worker->comm, "worker");
	assert_int_equal(hist_init(&x->h, &o, &x->m, NULL), 0);
}

static void fx_free(struct fx *x)
{
	hist_free(&x->h);
	machine_free(&x->m);
}

/* one sample: addrs[0] sampled, then its callers; kernel above KERN */
static void add(struct fx *x, int event, struct thread *t, uint32_t cpu, uint64_t period,
		const uint64_t *addrs, size_t n)
{
	bool kernel[16];

	for (size_t i = 0; i < n; i++)
		kernel[i] = addrs[i] >= KERN;
	assert_int_equal(hist_add(&x->h, event, t, cpu, period, addrs, kernel, n, 0), 0);
}

#define ADD(x, ev, t, cpu, period, ...) \
	add(x, ev, t, cpu, period, (const uint64_t[]){ __VA_ARGS__ }, \
	    sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t))

/* Name the frames as hist_resolve does, from fake_syms; no source lines. */
static void name_frames(struct fx *x)
{
	for (size_t i = 0; i < x->h.nr_frames; i++) {
		struct frame *f = &x->h.frames[i];

		f->src_done = true;
		f->vaddr = f->sym_start = f->addr;
		f->sym_id = (uint32_t)(100 + i);        /* unresolved: one id per address */
		for (uint32_t j = 0; j < sizeof(fake_syms) / sizeof(fake_syms[0]); j++) {
			if (!f->dso || strcmp(f->dso->short_name, fake_syms[j].dso) ||
			    f->addr < fake_syms[j].start || f->addr >= fake_syms[j].end)
				continue;
			f->sym = machine_intern(&x->m, fake_syms[j].name);
			f->sym_start = fake_syms[j].start;
			f->sym_id = j;
		}
	}
}

static void build(struct fx *x, int event)
{
	name_frames(x);
	assert_int_equal(hist_build(&x->h, event), 0);
}

static const char *sym_of(const struct fx *x, const struct hentry *e)
{
	const struct frame *f = &x->h.frames[e->frame];

	return e->key.inl ? e->key.inl : f->sym ? f->sym : "?";
}

/* the one entry of function name */
static const struct hentry *entry(const struct fx *x, const char *name)
{
	const struct hentry *found = NULL;

	for (size_t i = 0; i < x->h.nr_entries; i++) {
		if (strcmp(sym_of(x, &x->h.entries[i]), name))
			continue;
		assert_null(found);             /* one entry per function */
		found = &x->h.entries[i];
	}
	assert_non_null(found);
	return found;
}

static void test_totals(void **state)
{
	enum sort_key_id keys[] = { SORT_SYM };
	struct fx x;

	(void)state;
	fx_init(&x, keys, 1, false, NULL);
	ADD(&x, 0, x.app, 0, 10, APP + 0x1010);
	ADD(&x, 0, x.app, 0, 15, APP + 0x1010);         /* the same stack again */
	ADD(&x, 0, x.app, 0, 20, APP + 0xf000);         /* no symbol there */
	ADD(&x, 1, x.app, 0, 7, APP + 0x1110);          /* another event */
	assert_int_equal(x.h.nr_stacks, 3);
	build(&x, 0);
	assert_int_equal(x.h.total_period, 45);
	assert_int_equal(x.h.total_count, 3);
	assert_int_equal(x.h.unresolved, 1);
	assert_int_equal(x.h.nr_entries, 2);
	assert_int_equal(entry(&x, "main")->self_period, 25);
	assert_int_equal(entry(&x, "main")->self_count, 2);
	/* largest first */
	assert_string_equal(sym_of(&x, &x.h.entries[0]), "main");
	assert_null(x.h.frames[x.h.entries[1].frame].sym);
	build(&x, 1);
	assert_int_equal(x.h.total_period, 7);
	assert_int_equal(x.h.total_count, 1);
	assert_int_equal(x.h.unresolved, 0);
	assert_int_equal(x.h.nr_entries, 1);
	assert_string_equal(sym_of(&x, &x.h.entries[0]), "a");
	fx_free(&x);
}

/* b <- a <- main, a <- main, and a recursion b <- a <- a <- main */
static void chains(struct fx *x)
{
	ADD(x, 0, x->app, 0, 10, APP + 0x1210, APP + 0x1120, APP + 0x1030);
	ADD(x, 0, x->app, 0, 20, APP + 0x1110, APP + 0x1030);
	ADD(x, 0, x->app, 0, 5, APP + 0x1210, APP + 0x1120, APP + 0x1120, APP + 0x1030);
}

static void test_self(void **state)
{
	enum sort_key_id keys[] = { SORT_SYM };
	struct fx x;

	(void)state;
	fx_init(&x, keys, 1, false, NULL);
	chains(&x);
	build(&x, 0);
	/* without children, only the sampled functions */
	assert_int_equal(x.h.nr_entries, 2);
	assert_string_equal(sym_of(&x, &x.h.entries[0]), "a");
	assert_string_equal(sym_of(&x, &x.h.entries[1]), "b");
	assert_int_equal(entry(&x, "a")->self_period, 20);
	assert_int_equal(entry(&x, "b")->self_period, 15);
	assert_int_equal(entry(&x, "b")->total_period, 0);
	fx_free(&x);
}

static void test_children(void **state)
{
	enum sort_key_id keys[] = { SORT_SYM };
	struct fx x;

	(void)state;
	fx_init(&x, keys, 1, true, NULL);
	chains(&x);
	build(&x, 0);
	assert_int_equal(x.h.total_period, 35);
	assert_int_equal(x.h.nr_entries, 3);
	assert_int_equal(entry(&x, "b")->self_period, 15);
	assert_int_equal(entry(&x, "b")->total_period, 15);
	assert_int_equal(entry(&x, "a")->self_period, 20);
	/* the recursion counts once */
	assert_int_equal(entry(&x, "a")->total_period, 35);
	assert_int_equal(entry(&x, "a")->total_count, 3);
	assert_int_equal(entry(&x, "main")->self_period, 0);
	assert_int_equal(entry(&x, "main")->total_period, 35);
	/* by total, then self */
	assert_string_equal(sym_of(&x, &x.h.entries[0]), "a");
	assert_string_equal(sym_of(&x, &x.h.entries[1]), "main");
	assert_string_equal(sym_of(&x, &x.h.entries[2]), "b");
	fx_free(&x);
}

/* An unresolved caller: under sym, an entry keyed by the address as
 * sampled (perf's); under symoff, by its place in the file. */
static void test_children_unresolved(void **state)
{
	static const struct { enum sort_key_id key; const char *text; } cases[] = {
		{ SORT_SYM, "[.] 0x000000000040f000" },
		{ SORT_SYMOFF, "[.] 0x000000000000f000" },
	};

	(void)state;
	for (size_t c = 0; c < 2; c++) {
		const struct sort_key *sk = sort_key_get(cases[c].key);
		struct fx x;
		char buf[64];
		size_t found = 0;

		fx_init(&x, &cases[c].key, 1, true, NULL);
		ADD(&x, 0, x.app, 0, 10, APP + 0x1210, APP + 0xf000, APP + 0x1030);
		build(&x, 0);
		assert_int_equal(x.h.nr_entries, 3);
		for (size_t i = 0; i < x.h.nr_entries; i++) {
			sk->text(&x.h, &x.h.entries[i], buf, sizeof(buf));
			if (!strcmp(buf, cases[c].text)) {
				found++;
				assert_int_equal(x.h.entries[i].total_period, 10);
				assert_int_equal(x.h.entries[i].self_period, 0);
			}
		}
		assert_int_equal(found, 1);
		fx_free(&x);
	}
}

/* samples of main from three threads, memcpy from one */
static void spread(struct fx *x)
{
	ADD(x, 0, x->app, 1, 10, APP + 0x1010);
	ADD(x, 0, x->worker, 2, 20, APP + 0x1010);
	ADD(x, 0, x->other, 1, 30, APP + 0x1010);
	ADD(x, 0, x->worker, 3, 40, LIBC + 0x2010, APP + 0x1120);
}

static size_t nr_entries(const enum sort_key_id *keys, size_t nk, const char *parent_re)
{
	struct fx x;
	size_t n;

	fx_init(&x, keys, nk, false, parent_re);
	spread(&x);
	build(&x, 0);
	n = x.h.nr_entries;
	assert_int_equal(x.h.total_period, 100);
	fx_free(&x);
	return n;
}

static void test_merge(void **state)
{
	(void)state;
	assert_int_equal(nr_entries((enum sort_key_id[]){ SORT_SYM }, 1, NULL), 2);
	assert_int_equal(nr_entries((enum sort_key_id[]){ SORT_COMM }, 1, NULL), 3);
	assert_int_equal(nr_entries((enum sort_key_id[]){ SORT_PID }, 1, NULL), 3);
	assert_int_equal(nr_entries((enum sort_key_id[]){ SORT_CPU }, 1, NULL), 3);
	assert_int_equal(nr_entries((enum sort_key_id[]){ SORT_DSO }, 1, NULL), 2);
	assert_int_equal(nr_entries((enum sort_key_id[]){ SORT_COMM, SORT_SYM }, 2, NULL), 4);
	assert_int_equal(nr_entries((enum sort_key_id[]){ SORT_CPU, SORT_DSO }, 2, NULL), 3);
	/* period is a column: it splits nothing */
	assert_int_equal(nr_entries((enum sort_key_id[]){ SORT_PERIOD }, 1, NULL), 1);
	/* srcline without lines: sym+offset, one per address */
	assert_int_equal(nr_entries((enum sort_key_id[]){ SORT_SRCLINE }, 1, NULL), 2);
	assert_int_equal(nr_entries((enum sort_key_id[]){ SORT_SRCFILE }, 1, NULL), 1);
	/* memcpy's caller a matches; the others are [other] */
	assert_int_equal(nr_entries((enum sort_key_id[]){ SORT_PARENT }, 1, "^a$"), 2);
	assert_int_equal(nr_entries((enum sort_key_id[]){ SORT_PARENT }, 1, "^zz$"), 1);
}

static void test_merge_values(void **state)
{
	enum sort_key_id keys[] = { SORT_COMM, SORT_PARENT };
	struct fx x;

	(void)state;
	fx_init(&x, keys, 2, false, "^a$");
	spread(&x);
	build(&x, 0);
	/* worker's two stacks: main ([other]) and memcpy (under a) */
	assert_int_equal(x.h.nr_entries, 4);
	assert_string_equal(x.h.entries[0].key.comm, "worker");
	assert_string_equal(x.h.entries[0].key.parent, "a");
	assert_int_equal(x.h.entries[0].self_period, 40);
	assert_string_equal(x.h.entries[1].key.comm, "other");
	assert_string_equal(x.h.entries[1].key.parent, "[other]");
	assert_string_equal(x.h.entries[3].key.comm, "app");
	assert_int_equal(x.h.entries[3].self_count, 1);
	fx_free(&x);
}

/* ---- columns in prep report's layout -------------------------------------- */

static char *report_text(const enum sort_key_id *keys, size_t nk)
{
	struct load *l = calloc(1, sizeof(*l));
	struct print_opts po = { .mode = CG_NONE };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct fx x;

	assert_non_null(l);
	assert_non_null(out);
	fx_init(&x, keys, nk, false, NULL);
	ADD(&x, 0, x.app, 1, 300, APP + 0x1010);
	ADD(&x, 0, x.worker, 2, 100, LIBC + 0x2010);
	ADD(&x, 0, x.app, 1, 100, APP + 0xf000);
	name_frames(&x);
	l->nr_events = 1;
	l->events[0] = "cycles";
	l->period_by_event[0] = 500;
	assert_int_equal(print_report(out, l, &x.h, &po), 0);
	fclose(out);
	fx_free(&x);
	free(l);
	return text;
}

static const char report_head[] =
	"# To display the prec.data header info, please use --header/--header-only options.\n"
	"#\n"
	"#\n"
	"# Total Lost Samples: 0\n"
	"#\n"
	"# Samples: 3  of event 'cycles'\n"
	"# Event count (approx.): 500\n"
	"#\n";

static void test_report_columns(void **state)
{
	/* pid wide as its title; dso 16 for the unresolved entry; sym as
	 * wide as its widest cell in the title, unpadded as the last column;
	 * equal periods in pid order */
	static const char want[] =
		"# Overhead      Pid:Command  Shared Object     Symbol                \n"
		"# ........  ...............  ................  ......................\n"
		"#\n"
		"    60.00%       10:app      app               [.] main\n"
		"    20.00%       10:app      app               [.] 0x000000000000f000\n"
		"    20.00%       11:worker   libc.so.6         [.] memcpy\n"
		"\n\n";
	char *text = report_text((enum sort_key_id[]){ SORT_PID, SORT_DSO, SORT_SYM }, 3);

	(void)state;
	assert_memory_equal(text, report_head, sizeof(report_head) - 1);
	assert_string_equal(text + sizeof(report_head) - 1, want);
	free(text);
}

static void test_report_right(void **state)
{
	/* cpu and period right-aligned, period at least 12 wide, padded even
	 * as the last column; period merges nothing */
	static const char want[] =
		"# Overhead  CPU        Period\n"
		"# ........  ...  ............\n"
		"#\n"
		"    80.00%  001           400\n"
		"    20.00%  002           100\n"
		"\n\n";
	char *text = report_text((enum sort_key_id[]){ SORT_CPU, SORT_PERIOD }, 2);

	(void)state;
	assert_string_equal(text + sizeof(report_head) - 1, want);
	free(text);
}

/* ---- latency profiles (prep --latency) ------------------------------------ */

static void add_at(struct fx *x, struct thread *t, unsigned level, uint64_t period,
		   const uint64_t *addrs, size_t n)
{
	hist_set_parallelism(&x->h, level);
	add(x, 0, t, 0, period, addrs, n);
}

#define AT(x, t, level, period, ...) \
	add_at(x, t, level, period, (const uint64_t[]){ __VA_ARGS__ }, \
	       sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t))

/* The parallelism key splits entries by the samples' level; each entry's
 * latency is its periods over their levels (x1000); the order is by latency
 * first with prefer_latency, by period first otherwise, the other next. */
static void test_parallelism_key(void **state)
{
	enum sort_key_id keys[] = { SORT_PARALLELISM, SORT_SYM };
	const struct sort_key *sk = sort_key_get(SORT_PARALLELISM);
	char buf[16];
	struct fx x;

	(void)state;
	fx_init(&x, keys, 2, false, NULL);
	x.h.opts.latency = x.h.opts.prefer_latency = true;
	AT(&x, x.app, 1, 30, APP + 0x1010);
	AT(&x, x.worker, 2, 10, APP + 0x1110);
	AT(&x, x.worker, 2, 10, APP + 0x1110);  /* the same stack at the same level */
	AT(&x, x.worker, 1, 10, APP + 0x1110);  /* another level: another stack */
	assert_int_equal(x.h.nr_stacks, 3);
	build(&x, 0);
	assert_int_equal(x.h.total_period, 60);
	assert_int_equal(x.h.total_latency, 30000 + 5000 + 5000 + 10000);
	assert_int_equal(x.h.nr_entries, 3);
	/* main 30000; then the two a entries of 10000: by period, 20 then 10 */
	assert_string_equal(sym_of(&x, &x.h.entries[0]), "main");
	assert_int_equal(x.h.entries[1].key.par, 2);
	assert_int_equal(x.h.entries[1].self_period, 20);
	assert_int_equal(x.h.entries[1].self_latency, 10000);
	assert_int_equal(x.h.entries[2].key.par, 1);
	assert_int_equal(x.h.entries[2].self_latency, 10000);
	sk->text(&x.h, &x.h.entries[1], buf, sizeof(buf));
	assert_string_equal(buf, "2");
	assert_true(sk->cmp(&x.h, &x.h.entries[2], &x.h.entries[1]) < 0);
	/* by period first: main 30, a at 2 (20), a at 1 (10) all the same */
	x.h.opts.prefer_latency = false;
	build(&x, 0);
	assert_int_equal(x.h.entries[1].key.par, 2);
	fx_free(&x);

	/* without the key, one entry per function, the levels summed */
	fx_init(&x, keys + 1, 1, false, NULL);
	x.h.opts.latency = true;
	AT(&x, x.worker, 2, 10, APP + 0x1110);
	AT(&x, x.worker, 1, 10, APP + 0x1110);
	assert_int_equal(x.h.nr_stacks, 1);
	build(&x, 0);
	assert_int_equal(entry(&x, "a")->self_latency, 15000);
	fx_free(&x);
}

/* The printed layout of a latency profile, as perf's: a chain main > a >
 * memcpy of the worker at level 2, main alone at level 1. */
static char *latency_text(bool children, enum print_latency mode)
{
	struct load *l = calloc(1, sizeof(*l));
	struct print_opts po = { .mode = CG_NONE, .children = children, .latency = mode };
	enum sort_key_id keys[] = { SORT_SYM };
	char *text = NULL, *body;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct fx x;

	assert_non_null(l);
	assert_non_null(out);
	fx_init(&x, keys, 1, children, NULL);
	x.h.opts.latency = true;
	x.h.opts.prefer_latency = mode == PL_FIRST;
	AT(&x, x.app, 1, 300, APP + 0x1010);
	AT(&x, x.worker, 2, 100, LIBC + 0x2010, APP + 0x1110, APP + 0x1010);
	name_frames(&x);
	l->nr_events = 1;
	l->events[0] = "cycles";
	l->period_by_event[0] = 400;
	assert_int_equal(print_report(out, l, &x.h, &po), 0);
	fclose(out);
	fx_free(&x);
	free(l);
	/* after the header lines: the titles on */
	body = strstr(text, "(approx.): ");
	assert_non_null(body);
	body = strchr(body, '\n') + 3;
	memmove(text, body, strlen(body) + 1);
	return text;
}

static void test_report_latency(void **state)
{
	/* --latency: Latency first; without it, after Overhead (perf's
	 * enabled latency); both 8 wide */
	static const char first[] =
		"#  Latency  Overhead  Symbol    \n"
		"# ........  ........  ..........\n"
		"#\n"
		"    85.71%    75.00%  [.] main\n"
		"    14.29%    25.00%  [.] memcpy\n"
		"\n\n";
	static const char after[] =
		"# Overhead   Latency  Symbol    \n"
		"# ........  ........  ..........\n"
		"#\n"
		"    75.00%    85.71%  [.] main\n"
		"    25.00%    14.29%  [.] memcpy\n"
		"\n\n";
	/* children: the children's Latency is 7 wide (perf gives it no width
	 * of its own: its title's), so 100.00% overflows it as in perf */
	static const char children_first[] =
		"# Latency  Children   Latency      Self  Symbol    \n"
		"# .......  ........  ........  ........  ..........\n"
		"#\n"
		"   100.00%   100.00%    85.71%    75.00%  [.] main\n"
		"   14.29%    25.00%    14.29%    25.00%  [.] memcpy\n"
		"   14.29%    25.00%     0.00%     0.00%  [.] a\n"
		"\n\n";
	static const char children_after[] =
		"# Children  Latency      Self   Latency  Symbol    \n"
		"# ........  .......  ........  ........  ..........\n"
		"#\n"
		"   100.00%   100.00%    75.00%    85.71%  [.] main\n"
		"    25.00%   14.29%    25.00%    14.29%  [.] memcpy\n"
		"    25.00%   14.29%     0.00%     0.00%  [.] a\n"
		"\n\n";
	char *t;

	(void)state;
	t = latency_text(false, PL_FIRST);
	assert_string_equal(t, first);
	free(t);
	t = latency_text(false, PL_AFTER);
	assert_string_equal(t, after);
	free(t);
	t = latency_text(true, PL_FIRST);
	assert_string_equal(t, children_first);
	free(t);
	t = latency_text(true, PL_AFTER);
	assert_string_equal(t, children_after);
	free(t);
}

/* sort_keys_parse: names to ids, skipped fields, the limit, the messages */
static bool skip_period(void *ctx, const char *name, size_t len)
{
	(*(int *)ctx)++;
	return len == 6 && !memcmp(name, "period", 6);
}

static void test_parse_list(void **state)
{
	enum sort_key_id keys[3];
	struct err err = { 0 };
	size_t nr = 0;
	int calls = 0;

	(void)state;
	assert_int_equal(sort_keys_parse("dso,,sym", keys, &nr, 3, NULL, NULL, &err), 0);
	assert_int_equal(nr, 2);
	assert_int_equal(keys[0], SORT_DSO);
	assert_int_equal(keys[1], SORT_SYM);
	nr = 0;
	assert_int_equal(sort_keys_parse("period,comm,pid,tid,cpu", keys, &nr, 3, skip_period,
					 &calls, &err), 0);
	assert_int_equal(calls, 5);
	assert_int_equal(nr, 3);        /* cpu checked, then dropped */
	assert_int_equal(keys[0], SORT_COMM);
	nr = 0;
	assert_int_equal(sort_keys_parse("dso,bogus", keys, &nr, 3, NULL, NULL, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "unknown sort key 'bogus'"));
	nr = 0;
	assert_int_equal(sort_keys_parse("period", keys, &nr, 3, skip_period, &calls, &err), -EINVAL);
	assert_string_equal(err.msg, "'period': no sort key");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_parse_list),
		cmocka_unit_test(test_names_and_flags),
		cmocka_unit_test(test_data_keys),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_compare_sym),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_cgroup),
		cmocka_unit_test(test_totals),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_children),
		cmocka_unit_test(test_children_unresolved),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_merge_values),
		cmocka_unit_test(test_report_columns),
		cmocka_unit_test(test_report_right),
		cmocka_unit_test(test_parallelism_key),
		cmocka_unit_test(test_report_latency),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
