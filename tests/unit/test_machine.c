/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the report's machine model (report/core/machine.c), fed
 * with decoded records built here: threads from COMM, FORK and EXIT (the
 * names perf gives unknown ones, a reused tid), the command name as it
 * changes, per-process maps from MMAP and MMAP2 (overlaps cut and split,
 * copied on fork, kept across exec until replaced, the kernel's own maps),
 * the lookup of an address, and dsos: one per path in the machine, carrying
 * the build id MMAP2 gave, and one per (path, build id) in the symbolizer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "report/core/machine.h"
#include "report/symbols/symbols.h"

#define KPID 0xffffffffu        /* the pid of the kernel's maps */

static struct record comm_rec(uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct record r = { .type = PERF_RECORD_COMM, .known = true };

	r.misc = exec ? PERF_RECORD_MISC_COMM_EXEC : 0;
	r.u.comm.pid = pid;
	r.u.comm.tid = tid;
	r.u.comm.comm = comm;
	return r;
}

static struct record task_rec(uint32_t type, uint32_t pid, uint32_t tid, uint32_t ppid,
			      uint32_t ptid)
{
	struct record r = { .type = type, .known = true };

	r.u.task.pid = pid;
	r.u.task.tid = tid;
	r.u.task.ppid = ppid;
	r.u.task.ptid = ptid;
	return r;
}

static struct record mmap_rec(uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff,
			      const char *file)
{
	struct record r = { .type = PERF_RECORD_MMAP, .known = true };

	r.misc = pid == KPID ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	r.u.mmap.pid = r.u.mmap.tid = pid;
	r.u.mmap.addr = addr;
	r.u.mmap.len = len;
	r.u.mmap.pgoff = pgoff;
	r.u.mmap.filename = file;
	return r;
}

/* An MMAP2 with a build id of n bytes, each `fill` (n 0: none). */
static struct record mmap2_rec(uint32_t pid, uint64_t addr, uint64_t len, const char *file,
			       uint8_t fill, uint8_t n)
{
	struct record r = { .type = PERF_RECORD_MMAP2, .known = true };

	r.misc = PERF_RECORD_MISC_USER | (n ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0);
	r.u.mmap2.pid = r.u.mmap2.tid = pid;
	r.u.mmap2.addr = addr;
	r.u.mmap2.len = len;
	r.u.mmap2.has_build_id = n > 0;
	r.u.mmap2.build_id_size = n;
	memset(r.u.mmap2.build_id, fill, n);
	r.u.mmap2.filename = file;
	return r;
}

static void feed(struct machine *m, struct record r)
{
	assert_int_equal(machine_process(m, &r), 0);
}

/* The dso of the map holding addr in process pid's maps, or NULL. */
static const struct map *map_at(struct machine *m, uint32_t pid, uint64_t addr)
{
	struct thread *t = machine_thread(m, pid, pid);

	assert_non_null(t);
	return machine_find_map(m, t, addr, false);
}

static void assert_map(const struct map *mp, uint64_t start, uint64_t end, uint64_t pgoff,
		       const char *path)
{
	assert_non_null(mp);
	assert_int_equal(mp->start, start);
	assert_int_equal(mp->end, end);
	assert_int_equal(mp->pgoff, pgoff);
	assert_string_equal(mp->dso->path, path);
}

/* ---- threads ------------------------------------------------------------ */

static void test_threads(void **state)
{
	struct machine m;
	struct thread *t, *child;

	(void)state;
	machine_init(&m);
	feed(&m, comm_rec(10, 10, "prog", true));
	feed(&m, task_rec(PERF_RECORD_FORK, 10, 11, 10, 10));   /* a thread of 10 */
	feed(&m, task_rec(PERF_RECORD_FORK, 12, 12, 10, 10));   /* a child process */
	t = machine_thread(&m, 10, 10);
	child = machine_thread(&m, 12, 12);
	assert_string_equal(t->comm, "prog");
	assert_int_equal(m.unknown_threads, 0);
	/* a thread shares its process; a child process has its own */
	assert_ptr_equal(machine_thread(&m, 10, 11)->proc, t->proc);
	assert_ptr_equal(machine_thread(&m, 10, 11)->comm, t->comm);
	assert_ptr_not_equal(child->proc, t->proc);
	assert_int_equal(child->ppid, 10);
	assert_string_equal(child->comm, "prog");
	assert_false(child->exited);
	feed(&m, task_rec(PERF_RECORD_EXIT, 12, 12, 10, 10));
	assert_true(child->exited);
	assert_ptr_equal(machine_thread(&m, 12, 12), child);
	/* an EXIT of a thread never seen is no error */
	feed(&m, task_rec(PERF_RECORD_EXIT, 99, 99, 1, 1));
	assert_int_equal(m.unknown_threads, 0);
	/* no COMM or FORK: ":tid", a thread of a known process takes its name,
	 * tid 0 is perf's "swapper" */
	assert_string_equal(machine_thread(&m, 20, 20)->comm, ":20");
	assert_string_equal(machine_thread(&m, 20, 21)->comm, ":20");
	assert_string_equal(machine_thread(&m, 10, 13)->comm, "prog");
	assert_string_equal(machine_thread(&m, 0, 0)->comm, "swapper");
	assert_int_equal(m.unknown_threads, 4);
	/* the kernel's pid names no process: the tid's thread as it is */
	assert_ptr_equal(machine_thread(&m, KPID, 11), machine_thread(&m, 10, 11));
	/* a FORK whose parent is unknown names the child by its tid */
	feed(&m, task_rec(PERF_RECORD_FORK, 40, 40, 39, 39));
	assert_string_equal(machine_thread(&m, 40, 40)->comm, ":40");
	machine_free(&m);
}

static void test_comm_history(void **state)
{
	struct machine m;
	struct thread *t, *old;
	const char *first;

	(void)state;
	machine_init(&m);
	feed(&m, comm_rec(10, 10, "sh", false));
	t = machine_thread(&m, 10, 10);
	first = t->comm;
	/* exec: the name changes, the old one stays valid for what kept it */
	feed(&m, comm_rec(10, 10, "prog", true));
	assert_ptr_equal(machine_thread(&m, 10, 10), t);
	assert_string_equal(t->comm, "prog");
	assert_string_equal(first, "sh");
	/* equal names are one string */
	feed(&m, comm_rec(11, 11, "sh", false));
	assert_ptr_equal(machine_thread(&m, 11, 11)->comm, first);
	assert_ptr_equal(machine_intern(&m, "prog"), t->comm);
	/* a tid reused by another process: a new thread for lookups, the old
	 * one kept as it was for those that point to it */
	old = t;
	feed(&m, comm_rec(30, 10, "other", false));
	t = machine_thread(&m, 30, 10);
	assert_ptr_not_equal(t, old);
	assert_int_equal(t->pid, 30);
	assert_string_equal(t->comm, "other");
	assert_int_equal(old->pid, 10);
	assert_string_equal(old->comm, "prog");
	assert_ptr_equal(machine_thread(&m, 30, 10), t);
	machine_free(&m);
}

/* ---- maps --------------------------------------------------------------- */

static void test_maps_overlap(void **state)
{
	struct machine m;
	uint64_t gen;

	(void)state;
	machine_init(&m);
	feed(&m, mmap_rec(10, 0x10000, 0x40000, 0, "/bin/a"));
	assert_map(map_at(&m, 10, 0x10000), 0x10000, 0x50000, 0, "/bin/a");
	assert_map(map_at(&m, 10, 0x4ffff), 0x10000, 0x50000, 0, "/bin/a");
	assert_null(map_at(&m, 10, 0xffff));
	assert_null(map_at(&m, 10, 0x50000));
	/* inside: a hole, the tail keeps its file offset */
	gen = m.maps_gen;
	feed(&m, mmap_rec(10, 0x20000, 0x10000, 0x3000, "/lib/b"));
	assert_true(m.maps_gen > gen);
	assert_map(map_at(&m, 10, 0x1ffff), 0x10000, 0x20000, 0, "/bin/a");
	assert_map(map_at(&m, 10, 0x20000), 0x20000, 0x30000, 0x3000, "/lib/b");
	assert_map(map_at(&m, 10, 0x30000), 0x30000, 0x50000, 0x20000, "/bin/a");
	/* over the end of one and the start of the next */
	feed(&m, mmap_rec(10, 0x28000, 0x10000, 0, "/lib/c"));
	assert_map(map_at(&m, 10, 0x27fff), 0x20000, 0x28000, 0x3000, "/lib/b");
	assert_map(map_at(&m, 10, 0x28000), 0x28000, 0x38000, 0, "/lib/c");
	assert_map(map_at(&m, 10, 0x38000), 0x38000, 0x50000, 0x28000, "/bin/a");
	/* over all of them: they go */
	feed(&m, mmap_rec(10, 0x0, 0x60000, 0, "/lib/d"));
	assert_map(map_at(&m, 10, 0x10000), 0, 0x60000, 0, "/lib/d");
	assert_map(map_at(&m, 10, 0x4ffff), 0, 0x60000, 0, "/lib/d");
	assert_int_equal(machine_thread(&m, 10, 10)->proc->maps.nr, 1);
	/* an empty map changes nothing */
	feed(&m, mmap_rec(10, 0x1000, 0, 0, "/lib/e"));
	assert_map(map_at(&m, 10, 0x1000), 0, 0x60000, 0, "/lib/d");
	/* other processes see none of it */
	assert_null(map_at(&m, 11, 0x10000));
	machine_free(&m);
}

static void test_maps_fork_exec(void **state)
{
	struct machine m;
	uint64_t gen;

	(void)state;
	machine_init(&m);
	feed(&m, comm_rec(10, 10, "sh", false));
	feed(&m, mmap2_rec(10, 0x400000, 0x1000, "/bin/sh", 0, 0));
	feed(&m, mmap2_rec(10, 0x7f0000, 0x1000, "/lib/libc.so", 0, 0));
	/* a child starts with a copy of its parent's maps */
	feed(&m, task_rec(PERF_RECORD_FORK, 12, 12, 10, 10));
	assert_map(map_at(&m, 12, 0x400000), 0x400000, 0x401000, 0, "/bin/sh");
	/* the child execs: the old maps stay until new ones replace them */
	gen = m.maps_gen;
	feed(&m, comm_rec(12, 12, "prog", true));
	assert_true(m.maps_gen > gen);
	assert_int_equal(machine_thread(&m, 12, 12)->proc->gen, m.maps_gen);
	assert_map(map_at(&m, 12, 0x400000), 0x400000, 0x401000, 0, "/bin/sh");
	feed(&m, mmap2_rec(12, 0x400000, 0x2000, "/usr/bin/prog", 0, 0));
	assert_map(map_at(&m, 12, 0x400000), 0x400000, 0x402000, 0, "/usr/bin/prog");
	assert_map(map_at(&m, 12, 0x7f0000), 0x7f0000, 0x7f1000, 0, "/lib/libc.so");
	/* the parent's maps are its own */
	assert_map(map_at(&m, 10, 0x400000), 0x400000, 0x401000, 0, "/bin/sh");
	/* a thread (not a process) shares them */
	feed(&m, task_rec(PERF_RECORD_FORK, 12, 13, 12, 12));
	assert_map(machine_find_map(&m, machine_thread(&m, 12, 13), 0x400000, false),
		   0x400000, 0x402000, 0, "/usr/bin/prog");
	machine_free(&m);
}

static void test_kernel_maps(void **state)
{
	struct machine m;
	struct thread *t;
	const struct map *mp;

	(void)state;
	machine_init(&m);
	/* prec's and perf's kernel map: from _text to the end of the space */
	feed(&m, mmap_rec(KPID, 0xffffffff81000000ull, 0x7effffffull, 0xffffffff81000000ull,
			  "[kernel.kallsyms]_text"));
	feed(&m, mmap_rec(KPID, 0xffffffffc0000000ull, 0x10000, 0, "/lib/modules/x/ext4.ko"));
	feed(&m, mmap_rec(10, 0x400000, 0x1000, 0, "/bin/a"));
	t = machine_thread(&m, 10, 10);
	mp = machine_find_map(&m, t, 0xffffffff81234567ull, true);
	assert_non_null(mp);
	assert_true(mp->dso->kernel);
	assert_ptr_equal(mp->dso, m.kernel_dso);
	assert_string_equal(mp->dso->short_name, "[kernel.kallsyms]");
	mp = machine_find_map(&m, t, 0xffffffffc0000010ull, true);
	assert_non_null(mp);
	assert_string_equal(mp->dso->path, "/lib/modules/x/ext4.ko");
	/* kernel maps and user maps are apart */
	assert_null(machine_find_map(&m, t, 0xffffffff81234567ull, false));
	assert_null(machine_find_map(&m, t, 0x400000, true));
	assert_non_null(machine_find_map(&m, t, 0x400000, false));
	assert_null(machine_find_map(&m, NULL, 0x400000, false));
	machine_free(&m);
}

/* ---- dsos --------------------------------------------------------------- */

static void test_dsos(void **state)
{
	struct machine m;
	struct dso *a, *jit;

	(void)state;
	machine_init(&m);
	feed(&m, mmap2_rec(10, 0x400000, 0x1000, "/usr/lib/liba.so", 0, 0));
	feed(&m, mmap2_rec(11, 0x500000, 0x1000, "/usr/lib/liba.so", 0xab, 20));
	a = map_at(&m, 10, 0x400000)->dso;
	/* one dso per path: a map without a build id and one with it share it,
	 * and it carries the build id */
	assert_ptr_equal(map_at(&m, 11, 0x500000)->dso, a);
	assert_ptr_equal(machine_dso(&m, "/usr/lib/liba.so"), a);
	assert_int_equal(m.nr_dsos, 1);
	assert_ptr_equal(m.dsos[a->idx], a);
	assert_string_equal(a->short_name, "liba.so");
	assert_int_equal(a->build_id_size, 20);
	assert_int_equal(a->build_id[0], 0xab);
	assert_int_equal(a->build_id[19], 0xab);
	assert_false(a->anon || a->kernel);
	/* the first build id given stays */
	feed(&m, mmap2_rec(12, 0x600000, 0x1000, "/usr/lib/liba.so", 0xcd, 20));
	assert_int_equal(a->build_id[0], 0xab);
	/* anonymous memory: perf's JIT map file of the process */
	feed(&m, mmap_rec(42, 0x700000, 0x1000, 0, "//anon"));
	jit = map_at(&m, 42, 0x700000)->dso;
	assert_string_equal(jit->path, "/tmp/perf-42.map");
	assert_string_equal(jit->short_name, "[JIT] tid 42");
	assert_true(jit->anon && jit->identity);
	assert_true(machine_dso(&m, "[heap]")->anon);
	assert_true(machine_dso(&m, "[heap]")->identity);
	assert_false(machine_dso(&m, "[vdso]")->identity);
	assert_int_equal(m.nr_dsos, 4);
	machine_free(&m);
}

/* What the report symbolizes: one symbolizer dso per (path, build id),
 * opened lazily, so two builds of one path are never mixed up. */
static void test_sym_dsos(void **state)
{
	static const uint8_t id1[20] = { 1 }, id2[20] = { 2 };
	struct symbolizer *s = symbolizer_new(NULL);
	struct sym_dso *d1, *d2, *none;
	size_t n;

	(void)state;
	assert_non_null(s);
	d1 = symbolizer_dso(s, "/usr/lib/liba.so", id1, sizeof(id1));
	d2 = symbolizer_dso(s, "/usr/lib/liba.so", id2, sizeof(id2));
	none = symbolizer_dso(s, "/usr/lib/liba.so", NULL, 0);
	assert_non_null(d1);
	assert_non_null(d2);
	assert_non_null(none);
	assert_ptr_not_equal(d1, d2);
	assert_ptr_not_equal(d1, none);
	assert_ptr_equal(symbolizer_dso(s, "/usr/lib/liba.so", id1, sizeof(id1)), d1);
	assert_ptr_equal(symbolizer_dso(s, "/usr/lib/liba.so", id2, 0), none);
	assert_ptr_not_equal(symbolizer_dso(s, "/usr/lib/libb.so", id1, sizeof(id1)), d1);
	assert_memory_equal(sym_dso_build_id(d2, &n), id2, sizeof(id2));
	assert_int_equal(n, sizeof(id2));
	assert_string_equal(sym_dso_path(d2), "/usr/lib/liba.so");
	symbolizer_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_comm_history),
		cmocka_unit_test(test_maps_overlap),
		cmocka_unit_test(test_maps_fork_exec),
		cmocka_unit_test(test_kernel_maps),
		cmocka_unit_test(test_dsos),
		cmocka_unit_test(test_sym_dsos),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
