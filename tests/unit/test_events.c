/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the -e event-list parser (common/events.c, events_pmu.c).
 *
 * Builtin names are checked against the linux/perf_event.h constants; PMU
 * and tracepoint syntax against a fake sysfs and tracefs built under a
 * mkdtemp directory, so nothing here depends on the machine except the one
 * test of the real /sys, which skips itself when there is nothing to read.
 */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <linux/hw_breakpoint.h>

#include "common/events.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static char tmpdir[] = "/tmp/test_events.XXXXXX";
static char pmu_root[256], tracefs[256], no_tracefs[256];
static struct event_env env;

/* ---- the fake tree ----------------------------------------------------------- */

static void put_file(const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	for (slash = strchr(path + strlen(tmpdir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char *const fake_files[][2] = {
	{ "pmu/cpu/type", "4\n" },
	{ "pmu/cpu/format/event", "config:0-7\n" },
	{ "pmu/cpu/format/umask", "config:8-15\n" },
	{ "pmu/cpu/format/cmask", "config:24-31\n" },
	{ "pmu/cpu/format/inv", "config:23\n" },
	{ "pmu/cpu/format/any", "config:21\n" },
	{ "pmu/cpu/format/split", "config:0-3,32-35\n" },
	{ "pmu/cpu/format/wide", "config1:0-63\n" },
	{ "pmu/cpu/format/ldlat", "config1:0-15\n" },
	{ "pmu/cpu/format/bad", "config9:0-7\n" },
	{ "pmu/cpu/format/backwards", "config:7-0\n" },
	{ "pmu/cpu/events/instructions", "event=0xc0,umask=0x00\n" },
	{ "pmu/cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=?\n" },
	{ "pmu/cpu/events/broken", "event=0xcd,nosuch=1\n" },
	{ "pmu/msr/type", "9\n" },
	{ "pmu/msr/format/event", "config:0-63\n" },
	{ "pmu/msr/events/tsc", "event=0x00\n" },
	{ "pmu/msr/events/aperf", "event=0x01\n" },
	{ "pmu/software/type", "1\n" },
	{ "pmu/armv8_pmuv3/type", "10\n" },
	{ "pmu/armv8_pmuv3/cpus", "0-3\n" },
	{ "pmu/uncore_imc/type", "12\n" },
	{ "pmu/uncore_imc/cpumask", "0\n" },
	{ "pmu/badtype/type", "four\n" },
	{ "pmu/hugetype/type", "4294967296\n" },
	{ "trace/events/sched/sched_switch/id", "316\n" },
	{ "trace/events/syscalls/sys_enter_openat/id", "614\n" },
	{ "trace/events/bad/garbage/id", "0x\n" },
	{ "trace/events/ftrace/hwlat/format", "no id: not an event\n" },
	{ "trace/events/enable", "0\n" },
	{ "pmu/cpu/events/instructions.scale", "1\n" },
	{ "empty/.keep", "" },
};

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(fake_files); i++)
		put_file(fake_files[i][0], fake_files[i][1]);
	snprintf(pmu_root, sizeof(pmu_root), "%s/pmu", tmpdir);
	snprintf(tracefs, sizeof(tracefs), "%s/trace", tmpdir);
	snprintf(no_tracefs, sizeof(no_tracefs), "%s/empty", tmpdir);
	env.pmu_root = pmu_root;
	env.tracefs = tracefs;
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	(void)state;
	return nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- helpers ------------------------------------------------------------------- */

/* Parse text that must give exactly one event. */
static struct event_spec one(const char *text)
{
	struct event_list l = { 0, NULL };
	struct err e = { 0, "" };
	struct event_spec ev;
	int ret = events_parse(text, &env, &l, &e);

	if (ret)
		print_error("'%s': %s\n", text, e.msg);
	assert_int_equal(ret, 0);
	assert_int_equal(l.nr, 1);
	ev = l.ev[0];
	event_list_free(&l);
	assert_int_equal(ev.attr.size, sizeof(ev.attr));
	return ev;
}

static struct perf_event_attr attr_of(uint32_t type, uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	return a;
}

static void same_attr(const struct event_spec *ev, const struct perf_event_attr *want)
{
	if (memcmp(&ev->attr, want, sizeof(*want))) {
		print_error("'%s': type %u config %#llx, want type %u config %#llx\n",
			    ev->name, ev->attr.type, (unsigned long long)ev->attr.config,
			    want->type, (unsigned long long)want->config);
		fail();
	}
}

/* text is one plain event of this type and config, without modifiers */
static void expect_event(const char *text, uint32_t type, uint64_t config, bool hw)
{
	struct event_spec ev = one(text);
	struct perf_event_attr want = attr_of(type, config);

	same_attr(&ev, &want);
	assert_string_equal(ev.name, text);
	assert_int_equal(ev.group, -1);
	assert_false(ev.group_leader);
	assert_int_equal(ev.is_hardware, hw);
	assert_false(ev.explicit_period);
}

static void expect_err(const char *text, int code, const char *msg)
{
	struct event_list l = { 0, NULL };
	struct err e = { 0, "" };
	int ret = events_parse(text, &env, &l, &e);

	if (ret != code)
		print_error("'%s': got %d (%s), want %d\n", text, ret, e.msg, code);
	assert_int_equal(ret, code);
	assert_int_equal(e.code, code);
	assert_string_equal(e.msg, msg);
	assert_int_equal(l.nr, 0);
	assert_null(l.ev);
}

/* ---- builtin families ------------------------------------------------------------ */

static const struct {
	const char *name;
	uint64_t config;
} hw_names[] = {
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
};

static const struct {
	const char *name;
	uint64_t config;
} sw_names[] = {
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_COUNT_SW_DUMMY },
	{ "bpf-output", PERF_COUNT_SW_BPF_OUTPUT },
	{ "cgroup-switches", PERF_COUNT_SW_CGROUP_SWITCHES },
};

static void test_hardware_names(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(hw_names); i++)
		expect_event(hw_names[i].name, PERF_TYPE_HARDWARE, hw_names[i].config, true);
	expect_err("Cycles", -PREC_EUNKNOWN, "event 'Cycles': unknown event name");
	expect_err("cyclez", -PREC_EUNKNOWN, "event 'cyclez': unknown event name");
	expect_err("cycles-", -PREC_EUNKNOWN, "event 'cycles-': unknown event name");
}

static void test_software_names(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(sw_names); i++)
		expect_event(sw_names[i].name, PERF_TYPE_SOFTWARE, sw_names[i].config, false);
	expect_err("duration_time", -PREC_EUNKNOWN, "event 'duration_time': unknown event name");
}

/* hw-cache names, typed here from perf's tables, not from the parser's */
static const struct {
	const char *name;
	unsigned id;
} t_caches[] = {
	{ "L1-dcache", PERF_COUNT_HW_CACHE_L1D }, { "l1-d", PERF_COUNT_HW_CACHE_L1D },
	{ "l1d", PERF_COUNT_HW_CACHE_L1D }, { "L1-data", PERF_COUNT_HW_CACHE_L1D },
	{ "L1-icache", PERF_COUNT_HW_CACHE_L1I }, { "l1-i", PERF_COUNT_HW_CACHE_L1I },
	{ "l1i", PERF_COUNT_HW_CACHE_L1I }, { "L1-instruction", PERF_COUNT_HW_CACHE_L1I },
	{ "LLC", PERF_COUNT_HW_CACHE_LL }, { "L2", PERF_COUNT_HW_CACHE_LL },
	{ "dTLB", PERF_COUNT_HW_CACHE_DTLB }, { "d-tlb", PERF_COUNT_HW_CACHE_DTLB },
	{ "Data-TLB", PERF_COUNT_HW_CACHE_DTLB },
	{ "iTLB", PERF_COUNT_HW_CACHE_ITLB }, { "i-tlb", PERF_COUNT_HW_CACHE_ITLB },
	{ "Instruction-TLB", PERF_COUNT_HW_CACHE_ITLB },
	{ "branch", PERF_COUNT_HW_CACHE_BPU }, { "branches", PERF_COUNT_HW_CACHE_BPU },
	{ "bpu", PERF_COUNT_HW_CACHE_BPU }, { "btb", PERF_COUNT_HW_CACHE_BPU },
	{ "bpc", PERF_COUNT_HW_CACHE_BPU },
	{ "node", PERF_COUNT_HW_CACHE_NODE },
};

static const struct {
	const char *name;
	int id;		/* -1: none given, which means read */
} t_ops[] = {
	{ NULL, -1 },
	{ "load", PERF_COUNT_HW_CACHE_OP_READ }, { "loads", PERF_COUNT_HW_CACHE_OP_READ },
	{ "read", PERF_COUNT_HW_CACHE_OP_READ },
	{ "store", PERF_COUNT_HW_CACHE_OP_WRITE }, { "stores", PERF_COUNT_HW_CACHE_OP_WRITE },
	{ "write", PERF_COUNT_HW_CACHE_OP_WRITE },
	{ "prefetch", PERF_COUNT_HW_CACHE_OP_PREFETCH },
	{ "prefetches", PERF_COUNT_HW_CACHE_OP_PREFETCH },
	{ "speculative-read", PERF_COUNT_HW_CACHE_OP_PREFETCH },
	{ "speculative-load", PERF_COUNT_HW_CACHE_OP_PREFETCH },
};

static const struct {
	const char *name;
	unsigned id;
} t_results[] = {
	{ NULL, PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "refs", PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "Reference", PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "ops", PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "access", PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "accesses", PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "misses", PERF_COUNT_HW_CACHE_RESULT_MISS },
	{ "miss", PERF_COUNT_HW_CACHE_RESULT_MISS },
};

/* Ops perf allows per cache (evsel__is_cache_op_valid) */
static bool t_op_ok(unsigned cache, int op)
{
	switch (cache) {
	case PERF_COUNT_HW_CACHE_L1I:
		return op != PERF_COUNT_HW_CACHE_OP_WRITE;
	case PERF_COUNT_HW_CACHE_ITLB:
	case PERF_COUNT_HW_CACHE_BPU:
		return op == PERF_COUNT_HW_CACHE_OP_READ;
	default:
		return true;
	}
}

static const char *t_op_canon(int op)
{
	static const char *const names[] = { "load", "store", "prefetch" };

	return names[op];
}

static const char *t_cache_canon(unsigned c)
{
	static const char *const names[] = {
		"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node",
	};

	return names[c];
}

static void check_cache(const char *name, unsigned cache, int op, unsigned res)
{
	char msg[512];
	uint64_t config;

	for (size_t i = 0; i < ARRAY_SIZE(hw_names); i++) {
		if (!strcmp(name, hw_names[i].name))
			return;	/* "branches", "branch-misses": hardware first */
	}
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (!t_op_ok(cache, op)) {
		snprintf(msg, sizeof(msg), "event '%s': %s has no %s events", name,
			 t_cache_canon(cache), t_op_canon(op));
		expect_err(name, -EINVAL, msg);
		return;
	}
	config = cache | (uint64_t)op << 8 | (uint64_t)res << 16;
	expect_event(name, PERF_TYPE_HW_CACHE, config, true);
}

static void test_cache_all_combinations(void **state)
{
	char name[128];
	size_t n = 0;

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(t_caches); c++) {
		for (size_t o = 0; o < ARRAY_SIZE(t_ops); o++) {
			for (size_t r = 0; r < ARRAY_SIZE(t_results); r++) {
				snprintf(name, sizeof(name), "%s%s%s%s%s", t_caches[c].name,
					 t_ops[o].name ? "-" : "", t_ops[o].name ? t_ops[o].name : "",
					 t_results[r].name ? "-" : "",
					 t_results[r].name ? t_results[r].name : "");
				check_cache(name, t_caches[c].id, t_ops[o].id, t_results[r].id);
				n++;
			}
		}
	}
	assert_int_equal(n, 22 * 11 * 8);
}

static void test_cache_perf_names(void **state)
{
	(void)state;
	expect_event("L1-dcache-loads", PERF_TYPE_HW_CACHE, 0x00000, true);
	expect_event("L1-dcache-load-misses", PERF_TYPE_HW_CACHE, 0x10000, true);
	expect_event("L1-dcache-stores", PERF_TYPE_HW_CACHE, 0x00100, true);
	expect_event("L1-dcache-prefetch-misses", PERF_TYPE_HW_CACHE, 0x10200, true);
	expect_event("L1-icache-load-misses", PERF_TYPE_HW_CACHE, 0x10001, true);
	expect_event("LLC-loads", PERF_TYPE_HW_CACHE, 0x00002, true);
	expect_event("LLC-store-misses", PERF_TYPE_HW_CACHE, 0x10102, true);
	expect_event("LLC-prefetches", PERF_TYPE_HW_CACHE, 0x00202, true);
	expect_event("dTLB-load-misses", PERF_TYPE_HW_CACHE, 0x10003, true);
	expect_event("dTLB-stores", PERF_TYPE_HW_CACHE, 0x00103, true);
	expect_event("iTLB-loads", PERF_TYPE_HW_CACHE, 0x00004, true);
	expect_event("iTLB-load-misses", PERF_TYPE_HW_CACHE, 0x10004, true);
	expect_event("branch-loads", PERF_TYPE_HW_CACHE, 0x00005, true);
	expect_event("branch-load-misses", PERF_TYPE_HW_CACHE, 0x10005, true);
	expect_event("node-loads", PERF_TYPE_HW_CACHE, 0x00006, true);
	expect_event("node-store-misses", PERF_TYPE_HW_CACHE, 0x10106, true);
	/* perf also takes the result before the op, and any case */
	expect_event("LLC-misses-stores", PERF_TYPE_HW_CACHE, 0x10102, true);
	expect_event("l1-DCACHE-LOAD-MISSES", PERF_TYPE_HW_CACHE, 0x10000, true);
	expect_err("L1-icache-stores", -EINVAL, "event 'L1-icache-stores': L1-icache has no store events");
	expect_err("branch-prefetches", -EINVAL, "event 'branch-prefetches': branch has no prefetch events");
	expect_err("iTLB-write-misses", -EINVAL, "event 'iTLB-write-misses': iTLB has no store events");
	expect_err("LLC-", -PREC_EUNKNOWN, "event 'LLC-': unknown event name");
	expect_err("LLC-loadz", -PREC_EUNKNOWN, "event 'LLC-loadz': unknown event name");
	expect_err("LLC-loads-stores", -PREC_EUNKNOWN, "event 'LLC-loads-stores': unknown event name");
	expect_err("LLC-misses-misses", -PREC_EUNKNOWN, "event 'LLC-misses-misses': unknown event name");
	expect_err("LLC-load-misses-x", -PREC_EUNKNOWN, "event 'LLC-load-misses-x': unknown event name");
	expect_err("L1-dcacheloads", -PREC_EUNKNOWN, "event 'L1-dcacheloads': unknown event name");
	expect_err("L3-loads", -PREC_EUNKNOWN, "event 'L3-loads': unknown event name");
}

static void test_raw(void **state)
{
	(void)state;
	expect_event("r0", PERF_TYPE_RAW, 0, true);
	expect_event("r1a2b", PERF_TYPE_RAW, 0x1a2b, true);
	expect_event("rC0", PERF_TYPE_RAW, 0xc0, true);
	expect_event("r53003c", PERF_TYPE_RAW, 0x53003c, true);
	expect_event("rffffffffffffffff", PERF_TYPE_RAW, UINT64_MAX, true);
	expect_event("r0000000000000001", PERF_TYPE_RAW, 1, true);
	/* r followed by non-hex is not raw */
	expect_event("ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, true);
	expect_err("r", -PREC_EUNKNOWN, "event 'r': unknown event name");
	expect_err("rx12", -PREC_EUNKNOWN, "event 'rx12': unknown event name");
	expect_err("r0x12", -PREC_EUNKNOWN, "event 'r0x12': unknown event name");
	expect_err("r12g", -PREC_EUNKNOWN, "event 'r12g': unknown event name");
	expect_err("R12", -PREC_EUNKNOWN, "event 'R12': unknown event name");
	expect_err("r10000000000000000", -PREC_ELIMIT,
		   "event 'r10000000000000000': raw config longer than 16 hex digits");
}

/* ---- modifiers ---------------------------------------------------------------------- */

struct mod_case {
	const char *mods;
	bool eu, ek, eh, eG, eH;
	unsigned precise;
};

static const struct mod_case mod_cases[] = {
	{ "u", 0, 1, 1, 0, 0, 0 },
	{ "k", 1, 0, 1, 0, 0, 0 },
	{ "h", 1, 1, 0, 0, 0, 0 },
	{ "uk", 0, 0, 1, 0, 0, 0 },
	{ "ku", 0, 0, 1, 0, 0, 0 },
	{ "kh", 1, 0, 0, 0, 0, 0 },
	{ "ukh", 0, 0, 0, 0, 0, 0 },
	{ "uu", 0, 1, 1, 0, 0, 0 },
	{ "G", 0, 0, 0, 0, 1, 0 },
	{ "H", 0, 0, 0, 1, 0, 0 },
	{ "GH", 0, 0, 0, 0, 0, 0 },
	{ "p", 0, 0, 0, 0, 0, 1 },
	{ "pp", 0, 0, 0, 0, 0, 2 },
	{ "ppp", 0, 0, 0, 0, 0, 3 },
	{ "upp", 0, 1, 1, 0, 0, 2 },
	{ "ppu", 0, 1, 1, 0, 0, 2 },
	{ "kG", 1, 0, 1, 0, 1, 0 },
	{ "uH", 0, 1, 1, 1, 0, 0 },
	{ "ukppH", 0, 0, 1, 1, 0, 2 },
};

static struct perf_event_attr with_mods(struct perf_event_attr a, const struct mod_case *m)
{
	a.exclude_user = m->eu;
	a.exclude_kernel = m->ek;
	a.exclude_hv = m->eh;
	a.exclude_guest = m->eG;
	a.exclude_host = m->eH;
	a.precise_ip = m->precise;
	return a;
}

static void test_modifiers(void **state)
{
	static const char *const bases[] = { "cycles", "cs", "LLC-load-misses", "r1a2b",
					     "cpu/event=0x3c/", "sched:sched_switch" };
	struct perf_event_attr want[ARRAY_SIZE(bases)];
	char text[128];

	(void)state;
	want[0] = attr_of(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	want[1] = attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
	want[2] = attr_of(PERF_TYPE_HW_CACHE, 0x10002);
	want[3] = attr_of(PERF_TYPE_RAW, 0x1a2b);
	want[4] = attr_of(4, 0x3c);
	want[5] = attr_of(PERF_TYPE_TRACEPOINT, 316);
	for (size_t b = 0; b < ARRAY_SIZE(bases); b++) {
		for (size_t i = 0; i < ARRAY_SIZE(mod_cases); i++) {
			struct perf_event_attr w = with_mods(want[b], &mod_cases[i]);
			struct event_spec ev;

			snprintf(text, sizeof(text), "%s:%s", bases[b], mod_cases[i].mods);
			ev = one(text);
			same_attr(&ev, &w);
			assert_string_equal(ev.name, text);
		}
	}
}

static void test_modifier_errors(void **state)
{
	(void)state;
	expect_err("cycles:x", -PREC_EUNKNOWN, "event 'cycles:x': unknown modifier 'x'");
	expect_err("cycles:uz", -PREC_EUNKNOWN, "event 'cycles:uz': unknown modifier 'z'");
	expect_err("cycles:P", -PREC_EUNKNOWN, "event 'cycles:P': unknown modifier 'P'");
	expect_err("cycles:u:k", -PREC_EUNKNOWN, "event 'cycles:u:k': unknown modifier ':'");
	expect_err("cycles:pppp", -EINVAL, "event 'cycles:pppp': precise level above 3");
	expect_err("cycles:", -EINVAL, "event 'cycles:': empty modifier");
	expect_err("cpu/event=1/:", -EINVAL, "event 'cpu/event=1/:': empty modifier");
	expect_err("cpu/event=1/x", -PREC_EUNKNOWN, "event 'cpu/event=1/x': unknown modifier 'x'");
	expect_err("sched:sched_switch:q", -PREC_EUNKNOWN,
		   "event 'sched:sched_switch:q': unknown modifier 'q'");
}

static void test_pmu_modifiers_without_colon(void **state)
{
	struct event_spec ev = one("cpu/event=0x3c/upp");
	struct mod_case m = { "upp", 0, 1, 1, 0, 0, 2 };
	struct perf_event_attr want = with_mods(attr_of(4, 0x3c), &m);

	(void)state;
	same_attr(&ev, &want);
	assert_string_equal(ev.name, "cpu/event=0x3c/upp");
}

/* ---- groups and lists ----------------------------------------------------------------- */

static void test_list_and_whitespace(void **state)
{
	struct event_list l = { 0, NULL };
	struct err e = { 0, "" };

	(void)state;
	assert_int_equal(events_parse("  cycles , instructions,\tcs\n", &env, &l, &e), 0);
	assert_int_equal(l.nr, 3);
	assert_string_equal(l.ev[0].name, "cycles");
	assert_string_equal(l.ev[1].name, "instructions");
	assert_string_equal(l.ev[2].name, "cs");
	for (size_t i = 0; i < l.nr; i++) {
		assert_int_equal(l.ev[i].group, -1);
		assert_false(l.ev[i].group_leader);
	}
	assert_int_equal(l.ev[1].attr.config, PERF_COUNT_HW_INSTRUCTIONS);
	assert_int_equal(l.ev[2].attr.type, PERF_TYPE_SOFTWARE);
	event_list_free(&l);
	assert_null(l.ev);
	assert_int_equal(l.nr, 0);
	event_list_free(NULL);
}

static void test_groups(void **state)
{
	struct event_list l = { 0, NULL };
	struct err e = { 0, "" };
	static const struct {
		const char *name;
		int group;
		bool leader;
	} want[] = {
		{ "cycles", 0, true }, { "instructions", 0, false },
		{ "task-clock", -1, false },
		{ "cpu/event=1,umask=2/", 1, true }, { "sched:sched_switch", 1, false },
		{ "cs", 1, false },
		{ "faults", 2, true },
		{ "r10", -1, false },
	};

	(void)state;
	assert_int_equal(events_parse("{cycles,instructions},task-clock,"
				      " { cpu/event=1,umask=2/ , sched:sched_switch,cs } ,{faults},r10",
				      &env, &l, &e), 0);
	assert_int_equal(l.nr, ARRAY_SIZE(want));
	for (size_t i = 0; i < l.nr; i++) {
		assert_string_equal(l.ev[i].name, want[i].name);
		assert_int_equal(l.ev[i].group, want[i].group);
		assert_int_equal(l.ev[i].group_leader, want[i].leader);
	}
	assert_int_equal(l.ev[3].attr.config, 0x201);
	assert_int_equal(l.ev[4].attr.config, 316);
	event_list_free(&l);
}

static void test_group_modifiers(void **state)
{
	struct event_list l = { 0, NULL };
	struct err e = { 0, "" };
	struct mod_case u = { "u", 0, 1, 1, 0, 0, 0 };
	struct mod_case uk = { "ku", 0, 0, 1, 0, 0, 0 };
	struct mod_case up = { "ppu", 0, 1, 1, 0, 0, 2 };
	struct mod_case gu = { "Gu", 0, 1, 1, 0, 1, 0 };
	struct perf_event_attr w;

	(void)state;
	assert_int_equal(events_parse("{cycles,instructions:k,cpu/event=3/pp,"
				      "cpu/event=4,name=four/,cs:G,sched:sched_switch} :u",
				      &env, &l, &e), 0);
	assert_int_equal(l.nr, 6);
	w = with_mods(attr_of(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES), &u);
	same_attr(&l.ev[0], &w);
	assert_string_equal(l.ev[0].name, "cycles:u");
	/* a member's own k, then the group's u: both levels, as perf */
	w = with_mods(attr_of(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS), &uk);
	same_attr(&l.ev[1], &w);
	assert_string_equal(l.ev[1].name, "instructions:ku");
	w = with_mods(attr_of(4, 3), &up);
	same_attr(&l.ev[2], &w);
	assert_string_equal(l.ev[2].name, "cpu/event=3/ppu");
	w = with_mods(attr_of(4, 4), &u);
	same_attr(&l.ev[3], &w);
	assert_string_equal(l.ev[3].name, "four");
	w = with_mods(attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES), &gu);
	same_attr(&l.ev[4], &w);
	assert_string_equal(l.ev[4].name, "cs:Gu");
	w = with_mods(attr_of(PERF_TYPE_TRACEPOINT, 316), &u);
	same_attr(&l.ev[5], &w);
	assert_string_equal(l.ev[5].name, "sched:sched_switch:u");
	for (size_t i = 0; i < l.nr; i++) {
		assert_int_equal(l.ev[i].group, 0);
		assert_int_equal(l.ev[i].group_leader, i == 0);
	}
	event_list_free(&l);

	assert_int_equal(events_parse("{cycles:pp}:p", &env, &l, &e), 0);
	assert_int_equal(l.ev[0].attr.precise_ip, 3);
	assert_string_equal(l.ev[0].name, "cycles:ppp");
	event_list_free(&l);
	expect_err("{cycles:pp}:pp", -EINVAL, "event '{cycles:pp}:pp': precise level above 3");
	expect_err("{cycles}:x", -PREC_EUNKNOWN, "event '{cycles}:x': unknown modifier 'x'");
	expect_err("{cycles}:", -EINVAL, "event '{cycles}:': empty modifier");
}

/* S: leader sampling; every member is marked, and S stays out of the names */
static void test_group_sample_read(void **state)
{
	struct event_list l = { 0, NULL };
	struct err e = { 0, "" };

	(void)state;
	assert_int_equal(events_parse("{cpu-clock,page-faults}:S", &env, &l, &e), 0);
	assert_int_equal(l.nr, 2);
	assert_string_equal(l.ev[0].name, "cpu-clock");
	assert_string_equal(l.ev[1].name, "page-faults");
	assert_true(l.ev[0].sample_read && l.ev[1].sample_read);
	assert_false(l.ev[0].attr.exclude_kernel);
	event_list_free(&l);
	assert_int_equal(events_parse("{cpu-clock,page-faults:k}:uS,cs", &env, &l, &e), 0);
	assert_string_equal(l.ev[0].name, "cpu-clock:u");
	assert_string_equal(l.ev[1].name, "page-faults:ku");
	assert_true(l.ev[0].attr.exclude_kernel);
	assert_true(l.ev[0].sample_read && l.ev[1].sample_read);
	assert_false(l.ev[2].sample_read);
	event_list_free(&l);
	assert_int_equal(events_parse("{cycles,cs}", &env, &l, &e), 0);
	assert_false(l.ev[0].sample_read || l.ev[1].sample_read);
	event_list_free(&l);
	expect_err("{cpu-clock,page-faults}:Z", -PREC_EUNKNOWN,
		   "event '{cpu-clock,page-faults}:Z': unknown modifier 'Z'");
}

static void test_group_errors(void **state)
{
	(void)state;
	expect_err("{cycles", -EINVAL, "group '{cycles': missing '}'");
	expect_err("{cycles,instructions", -EINVAL, "group '{cycles,instructions': missing '}'");
	expect_err("cycles}", -EINVAL, "event 'cycles}': unbalanced '}'");
	expect_err("{cycles},}", -EINVAL, "event '}': unbalanced '}'");
	expect_err("{cycles}}", -EINVAL, "group '{cycles}}': unexpected text after '}'");
	expect_err("{cycles,{cs}}", -EINVAL, "group '{cycles,{cs}}': nested '{'");
	expect_err("{}", -EINVAL, "group '{}': empty event");
	expect_err("{cycles,}", -EINVAL, "group '{cycles,}': empty event");
	expect_err("{cycles}x", -EINVAL, "group '{cycles}x': unexpected text after '}'");
	expect_err("{cycles}{cs}", -EINVAL, "group '{cycles}{': unexpected text after '}'");
	expect_err("cycles{cs}", -EINVAL, "event 'cycles{': unexpected '{'");
	expect_err("{cycles,cyclez}", -PREC_EUNKNOWN, "event 'cyclez': unknown event name");
}

static void test_list_errors(void **state)
{
	(void)state;
	expect_err("", -EINVAL, "empty event list");
	expect_err(" \t\n", -EINVAL, "empty event list");
	expect_err("cycles,", -EINVAL, "event list 'cycles,': empty event");
	expect_err(",cycles", -EINVAL, "event list ',cycles': empty event");
	expect_err("cycles,,cs", -EINVAL, "event list 'cycles,,cs': empty event");
	expect_err("cycles,cyclez", -PREC_EUNKNOWN, "event 'cyclez': unknown event name");
	/* messages stay on one printable line */
	expect_err("cyc\x01les", -PREC_EUNKNOWN, "event 'cyc?les': unknown event name");
}

static void test_append_and_group_numbers(void **state)
{
	struct event_list l = { 0, NULL };
	struct err e = { 0, "" };

	(void)state;
	assert_int_equal(events_parse("cycles", &env, &l, &e), 0);
	assert_int_equal(events_parse("{instructions,cs}", &env, &l, &e), 0);
	assert_int_equal(events_parse("{faults},{cpu-clock,task-clock}", &env, &l, &e), 0);
	assert_int_equal(l.nr, 6);
	assert_int_equal(l.ev[0].group, -1);
	assert_int_equal(l.ev[1].group, 0);
	assert_true(l.ev[1].group_leader);
	assert_int_equal(l.ev[3].group, 1);
	assert_int_equal(l.ev[4].group, 2);
	assert_true(l.ev[4].group_leader);
	assert_false(l.ev[5].group_leader);
	assert_string_equal(l.ev[5].name, "task-clock");
	/* a failed parse leaves the list as it was */
	assert_int_equal(events_parse("{dummy},cyclez", &env, &l, &e), -PREC_EUNKNOWN);
	assert_int_equal(l.nr, 6);
	assert_string_equal(l.ev[5].name, "task-clock");
	assert_int_equal(events_parse("{dummy}", &env, &l, NULL), 0);
	assert_int_equal(l.ev[6].group, 3);
	/* a NULL err is allowed */
	assert_int_equal(events_parse("cyclez", &env, &l, NULL), -PREC_EUNKNOWN);
	assert_int_equal(events_parse(NULL, &env, &l, &e), -EINVAL);
	event_list_free(&l);
}

static void test_limits(void **state)
{
	struct event_list l = { 0, NULL };
	struct err e = { 0, "" };
	char name[300], big[300];
	char *text;
	size_t n = EVENT_LIST_MAX + 1;

	(void)state;
	/* 255 characters is fine, 256 is not */
	memset(name, 0, sizeof(name));
	strcpy(name, "cpu/event=1");
	memset(name + strlen(name), ' ', 254 - strlen(name));
	name[254] = '/';
	assert_int_equal(strlen(name), 255);
	assert_int_equal(one(name).attr.config, 1);
	memmove(name + 1, name, 256);
	name[0] = 'r';
	name[1] = 'x';
	snprintf(big, sizeof(big), "event '%.32s...': longer than 255 characters", name);
	expect_err(name, -PREC_ELIMIT, big);

	/* 4096 events, then one more */
	text = malloc(3 * n + 1);
	assert_non_null(text);
	for (size_t i = 0; i < n; i++)
		memcpy(text + 3 * i, "cs,", 3);
	text[3 * n - 1] = '\0';
	expect_err(text, -PREC_ELIMIT, "more than 4096 events");
	text[3 * (n - 1) - 1] = '\0';
	assert_int_equal(events_parse(text, &env, &l, &e), 0);
	assert_int_equal(l.nr, EVENT_LIST_MAX);
	assert_int_equal(events_parse("cs", &env, &l, &e), -PREC_ELIMIT);
	assert_string_equal(e.msg, "more than 4096 events");
	assert_int_equal(l.nr, EVENT_LIST_MAX);
	event_list_free(&l);
	free(text);
}

/* ---- PMU syntax -------------------------------------------------------------------------- */

static void test_pmu_terms(void **state)
{
	struct event_spec ev;
	struct perf_event_attr w;

	(void)state;
	expect_event("cpu/event=0x3c/", 4, 0x3c, true);
	expect_event("cpu/event=0x3c,umask=0x1,cmask=2,inv,any/", 4,
		     0x3c | 1 << 8 | 2ULL << 24 | 1 << 23 | 1 << 21, true);
	expect_event("cpu/ event = 60 , umask = 0X0f /", 4, 0xf3c, true);
	expect_event("cpu/inv=1,inv=0/", 4, 0, true);
	expect_event("cpu/event=0xff,event=1/", 4, 1, true);
	expect_event("cpu//", 4, 0, true);
	expect_event("cpu/split=0xab/", 4, 0xbULL | 0xaULL << 32, true);
	expect_event("cpu/config=0x1234/", 4, 0x1234, true);
	expect_event("msr/event=0xffffffffffffffff/", 9, UINT64_MAX, false);
	expect_event("software/config=3/", PERF_TYPE_SOFTWARE, 3, false);
	expect_event("armv8_pmuv3/config=0x11/", 10, 0x11, true);
	expect_event("uncore_imc/config=1/", 12, 1, false);

	ev = one("cpu/config1=5,config2=6,wide=0xffffffffffffffff,ldlat=3/");
	w = attr_of(4, 0);
	w.config1 = 3;	/* ldlat's bits 0-15 written after wide's 0-63 */
	w.config1 |= 0xffffffffffff0000ULL;
	w.config2 = 6;
	same_attr(&ev, &w);

	ev = one("cpu/event=0x3c,period=100003/");
	w = attr_of(4, 0x3c);
	w.sample_period = 100003;
	same_attr(&ev, &w);
	assert_true(ev.explicit_period);

	ev = one("cpu/freq=4000,event=1/");
	w = attr_of(4, 1);
	w.sample_freq = 4000;
	w.freq = 1;
	same_attr(&ev, &w);
	assert_true(ev.explicit_period);

	ev = one("cpu/event=0x3c,name=my-cycles/");
	assert_string_equal(ev.name, "my-cycles");
	assert_int_equal(ev.attr.config, 0x3c);
}

static void test_pmu_aliases(void **state)
{
	struct event_list l = { 0, NULL };
	struct err e = { 0, "" };

	(void)state;
	expect_event("cpu/instructions/", 4, 0xc0, true);
	expect_event("msr/tsc/", 9, 0, false);
	expect_event("msr/aperf/", 9, 1, false);
	/* "ldlat=?" in an alias is left for the user to give */
	assert_int_equal(events_parse("cpu/mem-loads,ldlat=30/p,msr/tsc/,cpu/instructions/k",
				      &env, &l, &e), 0);
	assert_int_equal(l.nr, 3);
	assert_int_equal(l.ev[0].attr.config, 0x1cd);
	assert_int_equal(l.ev[0].attr.config1, 30);
	assert_int_equal(l.ev[0].attr.precise_ip, 1);
	assert_int_equal(l.ev[1].attr.type, 9);
	assert_true(l.ev[2].attr.exclude_user);
	event_list_free(&l);
	expect_err("cpu/broken/", -PREC_EUNKNOWN, "event 'cpu/broken/': unknown term 'nosuch' for PMU 'cpu'");
	/* an alias with a value is a format term, and there is none */
	expect_err("cpu/instructions=1/", -PREC_EUNKNOWN,
		   "event 'cpu/instructions=1/': unknown term 'instructions' for PMU 'cpu'");
}

static void test_pmu_errors(void **state)
{
	char msg[512];

	(void)state;
	expect_err("cpu/foo=1/", -PREC_EUNKNOWN, "event 'cpu/foo=1/': unknown term 'foo' for PMU 'cpu'");
	expect_err("cpu/foo/", -PREC_EUNKNOWN, "event 'cpu/foo/': unknown term 'foo' for PMU 'cpu'");
	expect_err("nosuchpmu/config=1/", -ENOENT, "event 'nosuchpmu/config=1/': no PMU 'nosuchpmu'");
	expect_err("cpu/event=1", -EINVAL, "event 'cpu/event=1': missing closing '/'");
	expect_err("cpu/event=1,umask=2", -EINVAL, "event 'cpu/event=1,umask=2': missing closing '/'");
	expect_err("{cpu/event=1}", -EINVAL, "event 'cpu/event=1}': missing closing '/'");
	expect_err("cpu/event=0x100/", -EINVAL,
		   "event 'cpu/event=0x100/': value 0x100 too big for term 'event' of PMU 'cpu'");
	expect_err("cpu/inv=2/", -EINVAL, "event 'cpu/inv=2/': value 0x2 too big for term 'inv' of PMU 'cpu'");
	expect_err("cpu/event=zz/", -EINVAL, "event 'cpu/event=zz/': bad value 'zz' for term 'event'");
	expect_err("cpu/event=/", -EINVAL, "event 'cpu/event=/': bad value '' for term 'event'");
	expect_err("cpu/event=-1/", -EINVAL, "event 'cpu/event=-1/': bad value '-1' for term 'event'");
	expect_err("cpu/config=0x10000000000000000/", -EINVAL,
		   "event 'cpu/config=0x10000000000000000/': bad value '0x10000000000000000' for term 'config'");
	expect_err("cpu/period/", -EINVAL, "event 'cpu/period/': term 'period' needs a value");
	expect_err("cpu/config/", -EINVAL, "event 'cpu/config/': term 'config' needs a value");
	expect_err("cpu/name=/", -EINVAL, "event 'cpu/name=/': bad name ''");
	expect_err("cpu/event=1,,umask=1/", -EINVAL, "event 'cpu/event=1,,umask=1/': empty term");
	expect_err("cpu/=1/", -EINVAL, "event 'cpu/=1/': bad term '=1'");
	expect_err("cpu/..=1/", -EINVAL, "event 'cpu/..=1/': bad term '..=1'");
	expect_err("cpu/a b=1/", -EINVAL, "event 'cpu/a b=1/': bad term 'a b=1'");
	expect_err("../config=1/", -EINVAL, "event '../config=1/': bad PMU name '..'");
	snprintf(msg, sizeof(msg), "event 'cpu/bad=1/': bad format 'config9:0-7' in %s/cpu/format/bad",
		 pmu_root);
	expect_err("cpu/bad=1/", -EINVAL, msg);
	snprintf(msg, sizeof(msg),
		 "event 'cpu/backwards=1/': bad format 'config:7-0' in %s/cpu/format/backwards", pmu_root);
	expect_err("cpu/backwards=1/", -EINVAL, msg);
	snprintf(msg, sizeof(msg), "event 'badtype/config=1/': cannot read %s/badtype/type: %s",
		 pmu_root, strerror(EINVAL));
	expect_err("badtype/config=1/", -EINVAL, msg);
	snprintf(msg, sizeof(msg), "event 'hugetype//': cannot read %s/hugetype/type: %s",
		 pmu_root, strerror(EINVAL));
	expect_err("hugetype//", -EINVAL, msg);
}

/* ---- tracepoints and breakpoints ------------------------------------------------------------ */

static void test_tracepoints(void **state)
{
	struct event_env saved = env;
	char msg[512];

	(void)state;
	expect_event("sched:sched_switch", PERF_TYPE_TRACEPOINT, 316, false);
	expect_event("syscalls:sys_enter_openat", PERF_TYPE_TRACEPOINT, 614, false);
	snprintf(msg, sizeof(msg), "tracepoint 'sched:nope': not found in %s/events", tracefs);
	expect_err("sched:nope", -ENOENT, msg);
	snprintf(msg, sizeof(msg), "tracepoint 'nosys:nope': not found in %s/events", tracefs);
	expect_err("nosys:nope:u", -ENOENT, msg);
	snprintf(msg, sizeof(msg), "tracepoint 'bad:garbage': cannot read id in %s/events: %s",
		 tracefs, strerror(EINVAL));
	expect_err("bad:garbage", -EINVAL, msg);
	expect_err("sched:sched_*", -EINVAL, "tracepoint 'sched:sched_*': bad name");
	expect_err("sched:", -EINVAL, "tracepoint 'sched:': bad name");
	expect_err(":sched_switch", -EINVAL, "tracepoint ':sched_switch': bad name");
	expect_err("..:..", -EINVAL, "tracepoint '..:..': bad name");
	/* a mistyped event before a modifier reads as a tracepoint, as in perf */
	snprintf(msg, sizeof(msg), "tracepoint 'cyclez:u': not found in %s/events", tracefs);
	expect_err("cyclez:u", -ENOENT, msg);
	env.tracefs = no_tracefs;
	snprintf(msg, sizeof(msg), "tracepoint 'sched:sched_switch': not found in %s/events", no_tracefs);
	expect_err("sched:sched_switch", -ENOENT, msg);
	env = saved;
}

static void test_breakpoints(void **state)
{
	struct event_spec ev;
	struct perf_event_attr w;

	(void)state;
	ev = one("mem:0x1000");
	w = attr_of(PERF_TYPE_BREAKPOINT, 0);
	w.bp_type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
	w.bp_addr = 0x1000;
	w.bp_len = HW_BREAKPOINT_LEN_4;
	w.sample_period = 1;
	same_attr(&ev, &w);
	assert_true(ev.explicit_period);
	assert_false(ev.is_hardware);

	ev = one("mem:4096/8:w");
	w.bp_type = HW_BREAKPOINT_W;
	w.bp_len = 8;
	same_attr(&ev, &w);

	ev = one("mem:0x1000:x");
	w.bp_type = HW_BREAKPOINT_X;
	w.bp_len = sizeof(long);
	same_attr(&ev, &w);

	ev = one("mem:0x1000/2:wr:uk");
	w.bp_type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
	w.bp_len = 2;
	w.exclude_hv = 1;
	same_attr(&ev, &w);

	ev = one("mem:0x1000:u");
	w.bp_len = 4;
	w.exclude_kernel = 1;
	same_attr(&ev, &w);
	assert_string_equal(ev.name, "mem:0x1000:u");

	expect_err("mem:9zz", -EINVAL, "event 'mem:9zz': bad address");	/* zz: a symbol */
	expect_err("mem:", -EINVAL, "event 'mem:': bad address");
	expect_err("mem:0x10/3", -EINVAL, "event 'mem:0x10/3': length must be 1, 2, 4 or 8");
	expect_err("mem:0x10:rr", -PREC_EUNKNOWN, "event 'mem:0x10:rr': unknown modifier 'r'");
	expect_err("mem:0x10:w:", -EINVAL, "event 'mem:0x10:w:': empty modifier");
}

static void test_type_names(void **state)
{
	(void)state;
	assert_string_equal(event_type_name(PERF_TYPE_HARDWARE), "hardware");
	assert_string_equal(event_type_name(PERF_TYPE_SOFTWARE), "software");
	assert_string_equal(event_type_name(PERF_TYPE_TRACEPOINT), "tracepoint");
	assert_string_equal(event_type_name(PERF_TYPE_HW_CACHE), "hw-cache");
	assert_string_equal(event_type_name(PERF_TYPE_RAW), "raw");
	assert_string_equal(event_type_name(PERF_TYPE_BREAKPOINT), "breakpoint");
	assert_null(event_type_name(PERF_TYPE_MAX));
	assert_null(event_type_name(UINT32_MAX));
}

/* The machine's own sysfs and tracefs, with a NULL env. */
static void test_real_sys(void **state)
{
	struct event_list l = { 0, NULL };
	struct err e = { 0, "" };
	char msg[512];
	unsigned long long id;
	FILE *f;

	(void)state;
	if (access("/sys/bus/event_source/devices/software/type", R_OK)) {
		skip();
		return;
	}
	assert_int_equal(events_parse("software/config=3/,cycles:u", NULL, &l, &e), 0);
	assert_int_equal(l.ev[0].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(l.ev[0].attr.config, 3);
	assert_int_equal(l.ev[1].attr.type, PERF_TYPE_HARDWARE);
	event_list_free(&l);
	expect_err("nosuchpmu_x/config=1/", -ENOENT, "event 'nosuchpmu_x/config=1/': no PMU 'nosuchpmu_x'");
	f = fopen("/sys/kernel/tracing/events/sched/sched_switch/id", "r");
	if (!f)
		f = fopen("/sys/kernel/debug/tracing/events/sched/sched_switch/id", "r");
	if (f) {
		assert_int_equal(fscanf(f, "%llu", &id), 1);
		fclose(f);
		assert_int_equal(events_parse("sched:sched_switch", NULL, &l, &e), 0);
		assert_int_equal(l.ev[0].attr.config, id);
		event_list_free(&l);
	} else if (access("/sys/kernel/tracing/events", F_OK) &&
		   access("/sys/kernel/debug/tracing/events", F_OK) && errno == ENOENT) {
		/* not mounted: root mounts it, as perf does; others are told how */
		int ret = events_parse("sched:sched_switch", NULL, &l, &e);

		event_list_free(&l);
		if (ret) {
			assert_int_equal(ret, -ENOENT);
			snprintf(msg, sizeof(msg), "tracepoint 'sched:sched_switch': tracefs is not "
				 "mounted and mounting it failed (%s); as root: mount -t tracefs "
				 "nodev /sys/kernel/tracing", strerror(EPERM));
			assert_string_equal(e.msg, msg);
		}
	}
}

/* ---- listing ----------------------------------------------------------------- */

/* Every name the iterator gives parses back to its type and config, and
 * every row of the parser's tables is given once, as a name or an alias. */
static void expect_builtin(uint32_t type, size_t names, size_t aliases)
{
	struct event_name n;
	size_t pos = 0, nn = 0, na = 0;

	while (events_builtin_next(type, &pos, &n)) {
		assert_int_equal(n.type, type);
		expect_event(n.name, type, n.config, type != PERF_TYPE_SOFTWARE);
		nn++;
		if (n.alias) {
			expect_event(n.alias, type, n.config, type != PERF_TYPE_SOFTWARE);
			na++;
		}
	}
	assert_int_equal(nn, names);
	assert_int_equal(na, aliases);
	assert_false(events_builtin_next(type, &pos, &n));
}

static void test_builtin_iterator(void **state)
{
	struct event_name n;
	size_t pos = 0;

	(void)state;
	expect_builtin(PERF_TYPE_HARDWARE, 10, 4);
	expect_builtin(PERF_TYPE_SOFTWARE, 12, 3);
	/* perf's 32: every cache with the ops it has, refs and misses */
	expect_builtin(PERF_TYPE_HW_CACHE, 32, 0);
	assert_true(events_builtin_next(PERF_TYPE_HARDWARE, &pos, &n));
	assert_string_equal(n.name, "cpu-cycles");
	assert_string_equal(n.alias, "cycles");
	pos = 0;
	assert_true(events_builtin_next(PERF_TYPE_HW_CACHE, &pos, &n));
	assert_string_equal(n.name, "L1-dcache-loads");
	assert_true(events_builtin_next(PERF_TYPE_HW_CACHE, &pos, &n));
	assert_string_equal(n.name, "L1-dcache-load-misses");
	assert_int_equal(n.config, PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	pos = 0;
	assert_false(events_builtin_next(PERF_TYPE_RAW, &pos, &n));
	assert_false(events_builtin_next(PERF_TYPE_TRACEPOINT, &pos, &n));
}

struct seen {
	char text[1024];
	int stop_after;		/* return 42 from this call on, when > 0 */
	int calls;
};

static int collect(const struct event_item *it, void *ctx)
{
	struct seen *s = ctx;
	size_t n = strlen(s->text);

	snprintf(s->text + n, sizeof(s->text) - n, "%s/%s=%s ", it->group, it->name,
		 it->value ? it->value : "-");
	return ++s->calls == s->stop_after ? 42 : 0;
}

static void expect_walk(enum event_walk what, const char *want)
{
	struct seen s = { "", 0, 0 };
	struct err e = { 0, "" };

	assert_int_equal(events_for_each(&env, what, collect, &s, &e), 0);
	assert_string_equal(s.text, want);
}

static void test_walk(void **state)
{
	struct event_env saved = env;
	struct seen s = { "", 2, 0 };
	struct err e = { 0, "" };
	char msg[512];

	(void)state;
	/* sorted; .scale files, dot files and folders without events are left out */
	expect_walk(EVENT_WALK_PMU_ALIASES,
		    "cpu/broken=event=0xcd,nosuch=1 cpu/instructions=event=0xc0,umask=0x00 "
		    "cpu/mem-loads=event=0xcd,umask=0x1,ldlat=? msr/aperf=event=0x01 "
		    "msr/tsc=event=0x00 ");
	expect_walk(EVENT_WALK_PMU_FORMATS,
		    "cpu/any=config:21 cpu/backwards=config:7-0 cpu/bad=config9:0-7 "
		    "cpu/cmask=config:24-31 cpu/event=config:0-7 cpu/inv=config:23 "
		    "cpu/ldlat=config1:0-15 cpu/split=config:0-3,32-35 cpu/umask=config:8-15 "
		    "cpu/wide=config1:0-63 msr/event=config:0-63 ");
	/* only events with an id: ftrace/hwlat and the enable file are not */
	expect_walk(EVENT_WALK_TRACEPOINTS,
		    "bad/garbage=- sched/sched_switch=- syscalls/sys_enter_openat=- ");
	/* the callback stops the walk */
	assert_int_equal(events_for_each(&env, EVENT_WALK_TRACEPOINTS, collect, &s, &e), 42);
	assert_int_equal(s.calls, 2);
	env.pmu_root = no_tracefs;
	expect_walk(EVENT_WALK_PMU_ALIASES, "");
	snprintf(msg, sizeof(msg), "%s/nope", tmpdir);
	env.pmu_root = msg;
	assert_int_equal(events_for_each(&env, EVENT_WALK_PMU_ALIASES, collect, &s, &e), -ENOENT);
	env = saved;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hardware_names),
		cmocka_unit_test(test_software_names),
		cmocka_unit_test(test_cache_all_combinations),
		cmocka_unit_test(test_cache_perf_names),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_modifiers),
		cmocka_unit_test(test_modifier_errors),
		cmocka_unit_test(test_pmu_modifiers_without_colon),
		cmocka_unit_test(test_list_and_whitespace),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_group_modifiers),
		cmocka_unit_test(test_group_sample_read),
		cmocka_unit_test(test_group_errors),
		cmocka_unit_test(test_list_errors),
		cmocka_unit_test(test_append_and_group_numbers),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_pmu_terms),
		cmocka_unit_test(test_pmu_aliases),
		cmocka_unit_test(test_pmu_errors),
		cmocka_unit_test(test_tracepoints),
		cmocka_unit_test(test_breakpoints),
		cmocka_unit_test(test_type_names),
		cmocka_unit_test(test_real_sys),
		cmocka_unit_test(test_builtin_iterator),
		cmocka_unit_test(test_walk),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
