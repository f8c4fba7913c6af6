/* SPDX-License-Identifier: MIT */
/*
 * prep stat report on perf stat record files (format/perfstat.c,
 * report/stat/stat_perf.c) built here byte by byte: the record decoders (every
 * CPU_MAP encoding, bad counts), a pipe-mode run printed as perf's report
 * prints it, -I rounds (differences of running totals, a round that did not
 * count, perf's running means for the metrics), multiplexing and
 * --no-scale, a file-mode -a run with its CPU topology regrouped per core,
 * socket and node (units in perf's order, a CPU that did not count making
 * its unit not counted), per-thread readings, and damage: unknown ids,
 * CPUs and threads outside the maps, every cut of every file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <linux/perf_event.h>

#include "format/perfdata.h"
#include "format/perfstat.h"
#include "report/stat/stat_perf.h"

#include "perf_bytes.h"

/* ---- perf stat's records -------------------------------------------------- */

#define TASK_CLOCK 0
#define PAGE_FAULTS 1

static void attr(struct bb *r, int ev)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = 128;
	a.config = ev == TASK_CLOCK ? PERF_COUNT_SW_TASK_CLOCK : PERF_COUNT_SW_PAGE_FAULTS;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	put(r, &a, 128);
}

/* the id of event ev on CPU index ci */
static uint64_t id_of(int ev, int ci)
{
	return 100u * (uint64_t)(ev + 1) + (uint64_t)ci;
}

static void header_attr(struct bb *r, int ev, int ncpu)
{
	begin(r, PERFDATA_HEADER_ATTR, 0);
	attr(r, ev);
	for (int ci = 0; ci < ncpu; ci++)
		p64(r, id_of(ev, ci));
	end(r);
}

static void unit_and_scale(struct bb *r)
{
	double scale = 1e-6;

	begin(r, PERFDATA_EVENT_UPDATE, 0);
	p64(r, 0);
	p64(r, id_of(TASK_CLOCK, 0));
	put(r, "msec", 5);
	end(r);
	begin(r, PERFDATA_EVENT_UPDATE, 0);
	p64(r, 1);
	p64(r, id_of(TASK_CLOCK, 0));
	put(r, &scale, 8);
	end(r);
}

static void thread_map(struct bb *r, int n)
{
	static const char *const names[] = { "app", "worker-a", "worker-b" };
	char comm[16];

	begin(r, PERFDATA_THREAD_MAP, 0);
	p64(r, (uint64_t)n);
	for (int i = 0; i < n; i++) {
		memset(comm, 0, sizeof(comm));
		strcpy(comm, n == 1 ? "" : names[i]);
		p64(r, n == 1 ? (uint64_t)-1 : 1000u + (uint64_t)i);
		put(r, comm, 16);
	}
	end(r);
}

static void cpu_map_none(struct bb *r)
{
	begin(r, PERFDATA_CPU_MAP, 0);
	p16(r, 0);
	p16(r, 1);
	p16(r, 0xffff);
	end(r);
}

static void cpu_map_range(struct bb *r, uint16_t first, uint16_t last)
{
	begin(r, PERFDATA_CPU_MAP, 0);
	p16(r, 2);
	p8(r, 0);
	p8(r, 0);
	p16(r, first);
	p16(r, last);
	end(r);
}

static void stat_config(struct bb *r, uint64_t aggr, uint64_t interval, uint64_t scale)
{
	begin(r, PERFDATA_STAT_CONFIG, 0);
	p64(r, 3);
	p64(r, 0); p64(r, aggr);
	p64(r, 1); p64(r, interval);
	p64(r, 2); p64(r, scale);
	end(r);
}

static void stat(struct bb *r, uint64_t id, int32_t cpu, uint32_t thread, uint64_t val,
		 uint64_t ena, uint64_t run)
{
	begin(r, PERFDATA_STAT, 0);
	p64(r, id);
	p32(r, (uint32_t)cpu);
	p32(r, thread);
	p64(r, val);
	p64(r, ena);
	p64(r, run);
	end(r);
}

static void stat_round(struct bb *r, uint64_t type, uint64_t time)
{
	begin(r, PERFDATA_STAT_ROUND, 0);
	p64(r, type);
	p64(r, time);
	end(r);
}

/* ---- running the report --------------------------------------------------- */

struct warns {
	int n;
	char last[ERR_MSG_MAX];
};

static void on_warn(void *ctx, const char *msg)
{
	struct warns *w = ctx;

	w->n++;
	snprintf(w->last, sizeof(w->last), "%s", msg);
}

static void on_problem(void *ctx, const struct perfdata_problem *p)
{
	on_warn(ctx, p->msg);
}

/* The report of bytes as text (malloc'ed), its return code in *ret. */
static char *report(const uint8_t *p, size_t len, struct stat_perf_opts o, struct warns *w,
		    int *ret)
{
	struct perfdata_opts pdo = { on_problem, w };
	struct perfdata *pd;
	struct err err = { 0 };
	char *text = NULL;
	size_t n = 0;
	uint8_t *copy = malloc(len ? len : 1);

	assert_non_null(copy);
	memcpy(copy, p, len);
	o.out = open_memstream(&text, &n);
	o.warn = on_warn;
	o.ctx = w;
	assert_non_null(o.out);
	*ret = perfdata_open_mem(&pd, copy, len, &pdo, &err);
	if (!*ret) {
		*ret = stat_perf_report(pd, &o, &err);
		perfdata_close(pd);
	}
	if (*ret)
		assert_true(err.msg[0] != 0);
	fclose(o.out);
	free(copy);
	return text;
}

static char *report_ok(const struct bb *f, struct stat_perf_opts o)
{
	struct warns w = { 0 };
	int ret;
	char *t = report(f->b, f->len, o, &w, &ret);

	assert_int_equal(ret, 0);
	assert_int_equal(w.n, 0);
	return t;
}

static void pipe_start(struct bb *r, int nev, int ncpu)
{
	memset(r, 0, sizeof(*r));
	p64(r, PERFDATA_MAGIC);
	p64(r, 16);
	for (int ev = 0; ev < nev; ev++)
		header_attr(r, ev, ncpu);
	unit_and_scale(r);
}

static struct bb f;

/* ---- the decoders ------------------------------------------------------------- */

static void test_decoders(void **state)
{
	struct bb r;
	int *cpus;
	size_t n;
	struct perfstat_config c;
	struct perfstat_thread *t;
	struct err err = { 0 };

	(void)state;
	memset(&r, 0, sizeof(r));
	cpu_map_range(&r, 2, 5);
	assert_int_equal(perfstat_cpus_decode(r.b, r.len, &cpus, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_int_equal(cpus[0], 2);
	assert_int_equal(cpus[3], 5);
	free(cpus);
	/* a mask of 64-bit words: CPUs 1 and 65 */
	memset(&r, 0, sizeof(r));
	begin(&r, PERFDATA_CPU_MAP, 0);
	p16(&r, 1); p16(&r, 2); p16(&r, 8); p32(&r, 0);
	p64(&r, 2); p64(&r, 2);
	end(&r);
	assert_int_equal(perfstat_cpus_decode(r.b, r.len, &cpus, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(cpus[0], 1);
	assert_int_equal(cpus[1], 65);
	free(cpus);
	/* 32-bit words: CPU 0 and 33 */
	memset(&r, 0, sizeof(r));
	begin(&r, PERFDATA_CPU_MAP, 0);
	p16(&r, 1); p16(&r, 2); p16(&r, 4);
	p32(&r, 1); p32(&r, 2);
	end(&r);
	assert_int_equal(perfstat_cpus_decode(r.b, r.len, &cpus, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(cpus[1], 33);
	free(cpus);
	/* refused: a list longer than the record, a range backwards, a type */
	memset(&r, 0, sizeof(r));
	begin(&r, PERFDATA_CPU_MAP, 0);
	p16(&r, 0); p16(&r, 100); p16(&r, 0);
	end(&r);
	assert_int_not_equal(perfstat_cpus_decode(r.b, r.len, &cpus, &n, &err), 0);
	assert_non_null(strstr(err.msg, "cannot hold"));
	memset(&r, 0, sizeof(r));
	cpu_map_range(&r, 5, 2);
	assert_int_not_equal(perfstat_cpus_decode(r.b, r.len, &cpus, &n, &err), 0);
	assert_non_null(strstr(err.msg, "ends before it starts"));
	memset(&r, 0, sizeof(r));
	begin(&r, PERFDATA_CPU_MAP, 0);
	p16(&r, 7);
	end(&r);
	assert_int_not_equal(perfstat_cpus_decode(r.b, r.len, &cpus, &n, &err), 0);
	/* STAT_CONFIG: known tags, an unknown one counted, a count too large */
	memset(&r, 0, sizeof(r));
	begin(&r, PERFDATA_STAT_CONFIG, 0);
	p64(&r, 2);
	p64(&r, 1); p64(&r, 100);
	p64(&r, 9); p64(&r, 1);
	end(&r);
	assert_int_equal(perfstat_config_decode(r.b, r.len, &c, &err), 0);
	assert_true(c.has_interval && !c.has_aggr);
	assert_int_equal(c.interval, 100);
	assert_int_equal(c.unknown_tags, 1);
	set64(&r, 8, 1000);
	assert_int_not_equal(perfstat_config_decode(r.b, r.len, &c, &err), 0);
	/* THREAD_MAP: names cut at 16 bytes */
	memset(&r, 0, sizeof(r));
	thread_map(&r, 3);
	assert_int_equal(perfstat_threads_decode(r.b, r.len, &t, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(t[1].pid, 1001);
	assert_string_equal(t[1].comm, "worker-a");
	free(t);
	assert_int_not_equal(perfstat_threads_decode(r.b, 30, &t, &n, &err), 0);
	/* aggregation numbering by perf version: core is 4, 5 (6.5), 6 (6.8) */
	assert_int_equal(perfstat_aggr_mode(4, "6.1.187", false), 4);
	assert_int_equal(perfstat_aggr_mode(5, "6.5.0", true), 4);
	assert_int_equal(perfstat_aggr_mode(4, "6.5.0", true), PERFSTAT_AGGR_OTHER);
	assert_int_equal(perfstat_aggr_mode(6, "6.10.3", true), 4);
	assert_int_equal(perfstat_aggr_mode(9, "6.10.3", true), 7);
	assert_int_equal(perfstat_aggr_mode(7, NULL, false), 7);
	assert_int_equal(perfstat_aggr_mode(99, NULL, false), PERFSTAT_AGGR_OTHER);
}

/* ---- a pipe-mode run ------------------------------------------------------------ */

/* 1 s of task-clock and 2500 page faults in a 2 s run */
static void pipe_run(struct bb *r)
{
	pipe_start(r, 2, 1);
	thread_map(r, 1);
	cpu_map_none(r);
	stat_config(r, 1, 0, 1);
	stat(r, id_of(TASK_CLOCK, 0), -1, 0, 1000000000, 1000000000, 1000000000);
	stat(r, id_of(PAGE_FAULTS, 0), -1, 0, 2500, 1000000000, 1000000000);
	stat_round(r, 1, 2000000000);
}

static void test_pipe_run(void **state)
{
	struct stat_perf_opts o = { .big_num = true };
	char *t;

	(void)state;
	pipe_run(&f);
	t = report_ok(&f, o);
	assert_string_equal(t,
		"\n Performance counter stats for 'pipe':\n\n"
		"           1000.00 msec task-clock                       #    0.500 CPUs utilized          \n"
		"              2500      page-faults                      #    2.500 K/sec                  \n"
		"\n       2.000000000 seconds time elapsed\n\n");
	free(t);
	o.sep = ",";
	t = report_ok(&f, o);
	assert_string_equal(t, "1000.00,msec,task-clock,1000000000,100.00,0.500,CPUs utilized\n"
			    "2500,,page-faults,1000000000,100.00,2.500,K/sec\n");
	free(t);
	o.sep = NULL;
	o.json = true;
	t = report_ok(&f, o);
	assert_non_null(strstr(t, "{\"counter-value\" : \"2500.000000\", \"unit\" : \"\", \"event\" : "
			       "\"page-faults\", \"event-runtime\" : 1000000000, \"pcnt-running\" : "
			       "100.00, \"metric-value\" : 2.500000, \"metric-unit\" : \"K/sec\"}\n"));
	free(t);
}

/* ---- intervals ------------------------------------------------------------------ */

/* Running totals read every 100 ms: 100 ms and 10 faults, then a round in
 * which nothing ran, then 50 ms and 10 faults; page faults are multiplexed
 * (half the time) in the last round. */
static void interval_run(struct bb *r, uint64_t scale)
{
	pipe_start(r, 2, 1);
	thread_map(r, 1);
	cpu_map_none(r);
	stat_config(r, 1, 100, scale);
	stat(r, id_of(TASK_CLOCK, 0), -1, 0, 100000000, 100000000, 100000000);
	stat(r, id_of(PAGE_FAULTS, 0), -1, 0, 10, 100000000, 100000000);
	stat_round(r, 0, 100000000);
	stat(r, id_of(TASK_CLOCK, 0), -1, 0, 100000000, 100000000, 100000000);
	stat(r, id_of(PAGE_FAULTS, 0), -1, 0, 10, 100000000, 100000000);
	stat_round(r, 0, 200000000);
	stat(r, id_of(TASK_CLOCK, 0), -1, 0, 150000000, 150000000, 150000000);
	stat(r, id_of(PAGE_FAULTS, 0), -1, 0, 15, 150000000, 125000000);
	stat_round(r, 0, 300000000);
}

static void test_intervals(void **state)
{
	struct stat_perf_opts o = { 0 };
	char *t;

	(void)state;
	interval_run(&f, 1);
	t = report_ok(&f, o);
	/* no final round: CPUs utilized has no wall time (blank, as perf's
	 * report); the last /sec divides by the mean task-clock of the three
	 * rounds (100, 0, 50 ms); 5 faults in half the time show as 10 */
	assert_string_equal(t,
		"#           time             counts unit events\n"
		"     0.100000000             100.00 msec task-clock                                                         \n"
		"     0.100000000                 10      page-faults                      #  100.000 /sec                   \n"
		"     0.200000000      <not counted> msec task-clock                                                  \n"
		"     0.200000000      <not counted>      page-faults                                                 \n"
		"     0.300000000              50.00 msec task-clock                                                         \n"
		"     0.300000000                 10      page-faults                      #  200.000 /sec                     (50.00%)\n");
	free(t);
	o.json = true;
	t = report_ok(&f, o);
	assert_non_null(strstr(t, "{\"interval\" : 0.300000000, \"counter-value\" : \"50.000000\", "
			       "\"unit\" : \"msec\", \"event\" : \"task-clock\", \"event-runtime\" : "
			       "50000000, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, "
			       "\"metric-unit\" : \"CPUs utilized\"}\n"));
	assert_non_null(strstr(t, "\"event-runtime\" : 25000000, \"pcnt-running\" : 50.00, "));
	free(t);
	/* recorded with --no-scale: the 5 faults as counted */
	interval_run(&f, 0);
	o.json = false;
	t = report_ok(&f, o);
	assert_non_null(strstr(t, "     0.300000000                  5      page-faults                      #  100.000 /sec                     (50.00%)\n"));
	free(t);
}

/* ---- a file-mode -a run with its topology ----------------------------------------- */

#define F_NRCPUS 7
#define F_CMDLINE 11
#define F_CPU_TOPOLOGY 13
#define F_NUMA_TOPOLOGY 14
#define F_STAT 19

static bool cpu3_idle;  /* CPU 3's page faults never ran */

static void system_data(struct bb *r)
{
	cpu_map_range(r, 0, 3);
	thread_map(r, 1);
	stat_config(r, 1, 0, 1);
	for (int ci = 0; ci < 4; ci++) {
		stat(r, id_of(TASK_CLOCK, ci), ci, 0, 500000000, 500000000, 500000000);
		stat(r, id_of(PAGE_FAULTS, ci), ci, 0, 100u * (uint64_t)(ci + 1), 500000000,
		     cpu3_idle && ci == 3 ? 0 : 500000000);
	}
	stat_round(r, 1, 500000000);
}

/* 4 CPUs: cores 1 0 1 0 on sockets 1 1 0 0 (perf orders units by socket,
 * die, core), all on node 0 */
static void system_file(struct bb *r)
{
	static const unsigned feats[] = { F_NRCPUS, F_CMDLINE, F_CPU_TOPOLOGY, F_NUMA_TOPOLOGY,
					  F_STAT };
	const size_t nf = sizeof(feats) / sizeof(*feats);
	uint8_t bits[32] = { 0 };
	size_t ids[2], data_off, table;

	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < nf; i++)
		bits[feats[i] / 8] |= (uint8_t)(1u << (feats[i] % 8));
	p64(r, PERFDATA_MAGIC);
	p64(r, 104);
	p64(r, 128 + 16);
	p64(r, 104); p64(r, 2 * 144);
	p64(r, 0); p64(r, 0);
	p64(r, 0); p64(r, 0);
	put(r, bits, sizeof(bits));
	for (int ev = 0; ev < 2; ev++) {
		attr(r, ev);
		ids[ev] = r->len;
		p64(r, 0); p64(r, 4 * 8);
	}
	for (int ev = 0; ev < 2; ev++) {
		set64(r, ids[ev], r->len);
		for (int ci = 0; ci < 4; ci++)
			p64(r, id_of(ev, ci));
	}
	data_off = r->len;
	unit_and_scale(r);
	system_data(r);
	set64(r, 40, data_off);
	set64(r, 48, r->len - data_off);
	table = r->len;
	for (size_t i = 0; i < 2 * nf; i++)
		p64(r, 0);
	for (size_t i = 0; i < nf; i++) {
		size_t start = r->len;

		switch (feats[i]) {
		case F_NRCPUS:
			p32(r, 4);
			p32(r, 4);
			break;
		case F_CMDLINE:
			p32(r, 3);
			pstring(r, "/usr/bin/perf");
			pstring(r, "stat");
			pstring(r, "record");
			break;
		case F_CPU_TOPOLOGY: {
			static const uint32_t core[] = { 1, 0, 1, 0 }, socket[] = { 1, 1, 0, 0 };

			p32(r, 1); pstring(r, "0-3");           /* core siblings */
			p32(r, 1); pstring(r, "0-3");           /* thread siblings */
			for (int c = 0; c < 4; c++) {
				p32(r, core[c]);
				p32(r, socket[c]);
			}
			p32(r, 1); pstring(r, "0-3");           /* die siblings */
			for (int c = 0; c < 4; c++)
				p32(r, 0);
			break;
		}
		case F_NUMA_TOPOLOGY:
			p32(r, 1);
			p32(r, 0);
			p64(r, 1 << 20);
			p64(r, 1 << 19);
			pstring(r, "0-3");
			break;
		}
		set64(r, table + 16 * i, start);
		set64(r, table + 16 * i + 8, r->len - start);
	}
}

static void test_system_units(void **state)
{
	struct stat_perf_opts o = { .aggr_set = true, .aggr = AGGR_CORE };
	char *t;

	(void)state;
	cpu3_idle = false;
	system_file(&f);
	o.aggr_set = false;
	t = report_ok(&f, o);
	assert_non_null(strstr(t, " Performance counter stats for '/usr/bin/perf stat record':\n"));
	assert_non_null(strstr(t, "           2000.00 msec task-clock                       #    4.000 CPUs utilized          \n"));
	assert_non_null(strstr(t, "              1000      page-faults                      #  500.000 /sec                   \n"));
	free(t);
	o.aggr_set = true;
	t = report_ok(&f, o);
	/* per core, in perf's order: socket 0 (CPUs 2 and 3) first */
	assert_non_null(strstr(t, "\nS0-D0-C0           1             500.00 msec task-clock"));
	assert_non_null(strstr(t, "\nS0-D0-C0           1                400      page-faults                      #  800.000 /sec"));
	assert_non_null(strstr(t, "\nS0-D0-C1           1                300      page-faults"));
	assert_non_null(strstr(t, "\nS1-D0-C1           1                100      page-faults                      #  200.000 /sec"));
	assert_true(strstr(t, "S0-D0-C1") < strstr(t, "S1-D0-C0"));
	free(t);
	o.aggr = AGGR_SOCKET;
	o.sep = ";";
	t = report_ok(&f, o);
	assert_string_equal(t, "S0;2;1000.00;msec;task-clock;1000000000;100.00;2.000;CPUs utilized\n"
			    "S0;2;700;;page-faults;1000000000;100.00;700.000;/sec\n"
			    "S1;2;1000.00;msec;task-clock;1000000000;100.00;2.000;CPUs utilized\n"
			    "S1;2;300;;page-faults;1000000000;100.00;300.000;/sec\n");
	free(t);
	o.aggr = AGGR_NODE;
	o.sep = NULL;
	o.json = true;
	t = report_ok(&f, o);
	assert_non_null(strstr(t, "{\"node\" : \"N0\", \"aggregate-number\" : 4, \"counter-value\" : \"2000.000000\""));
	free(t);
	/* one CPU of socket 0 did not count page faults: the socket did not */
	cpu3_idle = true;
	system_file(&f);
	o.aggr = AGGR_SOCKET;
	o.json = false;
	t = report_ok(&f, o);
	assert_non_null(strstr(t, "\nS0        2      <not counted>      page-faults"));
	assert_non_null(strstr(t, "\nS1        2                300      page-faults"));
	free(t);
	o.aggr = AGGR_NONE;
	t = report_ok(&f, o);
	assert_non_null(strstr(t, "\nCPU3            <not counted>      page-faults                                                   (0.00%)\n"));
	assert_non_null(strstr(t, "\nCPU2                      300      page-faults                      #  600.000 /sec"));
	free(t);
	cpu3_idle = false;
}

/* ---- threads -------------------------------------------------------------------- */

static void test_threads(void **state)
{
	struct stat_perf_opts o = { .aggr_set = true, .aggr = AGGR_NONE };
	struct warns w = { 0 };
	char *t;
	int ret;

	(void)state;
	pipe_start(&f, 1, 1);
	thread_map(&f, 3);
	cpu_map_none(&f);
	stat_config(&f, 5, 0, 1);
	stat(&f, id_of(TASK_CLOCK, 0), -1, 0, 0, 0, 0);
	stat(&f, id_of(TASK_CLOCK, 0), -1, 1, 20000000, 20000000, 20000000);
	stat(&f, id_of(TASK_CLOCK, 0), -1, 2, 30000000, 30000000, 30000000);
	stat_round(&f, 1, 100000000);
	/* -A on task data: perf's warning, the file's aggregation */
	t = report(f.b, f.len, o, &w, &ret);
	assert_int_equal(ret, 0);
	assert_int_equal(w.n, 1);
	assert_string_equal(w.last, "processing task data, aggregation mode not set");
	/* largest first; the thread that did not run last */
	assert_non_null(strstr(t, "\n        worker-b-1002                  30.00 msec task-clock                       #    0.300 CPUs utilized          \n"
			       "        worker-a-1001                  20.00 msec task-clock                       #    0.200 CPUs utilized          \n"
			       "             app-1000          <not counted> msec task-clock                                                  \n"));
	free(t);
}

/* ---- damage --------------------------------------------------------------------- */

static void test_damage(void **state)
{
	struct stat_perf_opts o = { 0 };
	struct warns w = { 0 };
	char *t;
	int ret;

	(void)state;
	/* readings that fit no event, CPU or thread: warned about, skipped */
	pipe_start(&f, 2, 1);
	thread_map(&f, 1);
	cpu_map_none(&f);
	stat_config(&f, 1, 0, 1);
	stat(&f, 999, -1, 0, 1, 1, 1);
	stat(&f, id_of(TASK_CLOCK, 0), 7, 0, 1, 1, 1);
	stat(&f, id_of(PAGE_FAULTS, 0), -1, 5, 1, 1, 1);
	stat_round(&f, 1, 1000);
	t = report(f.b, f.len, o, &w, &ret);
	assert_int_equal(ret, 0);
	assert_int_equal(w.n, 3);
	assert_non_null(strstr(w.last, "thread 5 of page-faults is not in the thread map"));
	assert_non_null(strstr(t, "   <not supported> msec task-clock"));
	free(t);
	/* no maps before the readings: one CPU and one thread assumed */
	pipe_start(&f, 1, 1);
	stat(&f, id_of(TASK_CLOCK, 0), -1, 0, 1000000, 1000000, 1000000);
	stat_round(&f, 1, 2000000);
	w.n = 0;
	t = report(f.b, f.len, o, &w, &ret);
	assert_int_equal(ret, 0);
	assert_int_equal(w.n, 2);
	assert_non_null(strstr(t, "              1.00 msec task-clock                       #    0.500 CPUs utilized"));
	free(t);
	/* no round: an error */
	pipe_start(&f, 1, 1);
	stat(&f, id_of(TASK_CLOCK, 0), -1, 0, 1, 1, 1);
	t = report(f.b, f.len, o, &w, &ret);
	assert_int_equal(ret, -PREC_EFORMAT);
	free(t);
}

/* Every cut of every file, in every output mode: an error or a report. */
static void test_every_cut(void **state)
{
	struct stat_perf_opts modes[] = {
		{ 0 }, { .sep = "," }, { .json = true }, { .aggr_set = true, .aggr = AGGR_CORE },
		{ .aggr_set = true, .aggr = AGGR_NONE },
	};

	(void)state;
	for (int kind = 0; kind < 3; kind++) {
		if (kind == 0)
			pipe_run(&f);
		else if (kind == 1)
			interval_run(&f, 1);
		else
			system_file(&f);
		for (size_t len = 0; len <= f.len; len++)
			for (size_t m = 0; m < sizeof(modes) / sizeof(*modes); m++) {
				struct warns w = { 0 };
				int ret;

				free(report(f.b, len, modes[m], &w, &ret));
			}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decoders),
		cmocka_unit_test(test_pipe_run),
		cmocka_unit_test(test_intervals),
		cmocka_unit_test(test_system_units),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_damage),
		cmocka_unit_test(test_every_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
