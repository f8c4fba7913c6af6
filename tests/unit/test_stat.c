/* SPDX-License-Identifier: MIT */
/*
 * The stat printer (report/stat/stat.c) on readings made up here: what a machine
 * without a PMU cannot produce live (multiplexed counters, hardware metrics)
 * and the exact layout of each kind of line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/stat/stat.h"

struct fixture {
	struct stat_counter c[4];
	double v[4][2];
	uint64_t en[4][2], run[4][2];
	double elapsed[2];
	struct stat_result r;
};

static void setup_fixture(struct fixture *f, int runs)
{
	static const struct { const char *name; uint32_t type; uint64_t config; } ev[4] = {
		{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
		{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
		{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	};

	memset(f, 0, sizeof(*f));
	for (int i = 0; i < 4; i++) {
		f->c[i].name = ev[i].name;
		f->c[i].type = ev[i].type;
		f->c[i].config = ev[i].config;
		f->c[i].supported = true;
		f->c[i].values = f->v[i];
		f->c[i].enabled = f->en[i];
		f->c[i].running = f->run[i];
		for (int k = 0; k < runs; k++)
			f->en[i][k] = f->run[i][k] = 1000000000;
	}
	/* 1 s of task-clock in a 2 s run; 3 G cycles; 6 G instructions */
	for (int k = 0; k < runs; k++) {
		f->v[0][k] = 1e9;
		f->v[1][k] = 3e9;
		f->v[2][k] = 6e9;
		f->v[3][k] = 2500;
		f->elapsed[k] = 2.0;
	}
	f->r.cmd = "./app";
	f->r.c = f->c;
	f->r.nr = 4;
	f->r.runs = runs;
	f->r.elapsed_s = f->elapsed;
	f->r.show_times = true;
	f->r.user_s = 0.5;
	f->r.sys_s = 0.25;
}

static char *print(const struct stat_result *r, const struct stat_print_opts *o)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	stat_print(f, r, o);
	fclose(f);
	return text;
}

static void test_layout_and_metrics(void **state)
{
	struct stat_print_opts o = { .interval = -1 };
	struct fixture f;
	char *t;

	(void)state;
	setup_fixture(&f, 1);
	t = print(&f.r, &o);
	assert_non_null(strstr(t, "\n Performance counter stats for './app':\n\n"));
	assert_non_null(strstr(t, "           1000.00 msec task-clock                       #    0.500 CPUs utilized          \n"));
	assert_non_null(strstr(t, "        3000000000      cycles                           #    3.000 GHz                    \n"));
	assert_non_null(strstr(t, "        6000000000      instructions                     #    2.00  insn per cycle         \n"));
	assert_non_null(strstr(t, "              2500      page-faults                      #    2.500 K/sec                  \n"));
	assert_non_null(strstr(t, "\n       2.000000000 seconds time elapsed\n\n"
				  "       0.500000000 seconds user\n       0.250000000 seconds sys\n\n\n"));
	free(t);
}

static void test_stalled_cycles(void **state)
{
	struct stat_print_opts o = { .interval = -1 };
	struct fixture f;
	char *t;

	(void)state;
	setup_fixture(&f, 1);
	/* page-faults becomes stalled-cycles-frontend: 1.5 G of 3 G cycles */
	f.c[3].name = "stalled-cycles-frontend";
	f.c[3].type = PERF_TYPE_HARDWARE;
	f.c[3].config = PERF_COUNT_HW_STALLED_CYCLES_FRONTEND;
	f.v[3][0] = 1.5e9;
	t = print(&f.r, &o);
	/* perf's formats: percentages with two decimals, the second line of
	 * instructions 49 columns in (perf's do_new_line_std) */
	assert_non_null(strstr(t, "stalled-cycles-frontend          #   50.00% frontend cycles idle   \n"));
	assert_non_null(strstr(t, "insn per cycle         \n"
				  "                                                  #    0.25  "
				  "stalled cycles per insn\n"));
	free(t);
}

static void test_multiplexed_and_missing(void **state)
{
	struct stat_print_opts o = { .interval = -1 };
	struct fixture f;
	char *t;

	(void)state;
	setup_fixture(&f, 1);
	f.run[1][0] = 250000000;        /* cycles ran a quarter of the time */
	f.c[2].supported = false;
	f.run[3][0] = 0;                /* opened, never scheduled */
	t = print(&f.r, &o);
	assert_non_null(strstr(t, " GHz                      (25.00%)\n"));
	assert_non_null(strstr(t, "   <not supported>      instructions                                                \n"));
	/* enabled but never running: perf shows the 0% it ran */
	assert_non_null(strstr(t, "     <not counted>      page-faults                                                   (0.00%)\n"));
	free(t);
}

static void test_repeat_csv_json(void **state)
{
	struct stat_print_opts o = { .interval = -1, .sep = ";" };
	struct fixture f;
	char *t;

	(void)state;
	setup_fixture(&f, 2);
	f.v[0][1] = 1.1e9;              /* the runs differ: a variation */
	f.elapsed[1] = 2.2;
	t = print(&f.r, &o);
	/* value;unit;event;variance;run time;percent;metric;unit */
	assert_non_null(strstr(t, "1050.00;msec;task-clock;4.76%;1000000000;100.00;0.500;CPUs utilized\n"));
	free(t);
	o.sep = NULL;
	t = print(&f.r, &o);
	assert_non_null(strstr(t, "(2 runs):"));
	assert_non_null(strstr(t, "CPUs utilized            ( +-  4.76% )\n"));
	/* the elapsed mean with the error to its first significant digit + 2 */
	assert_non_null(strstr(t, "             2.100 +- 0.100 seconds time elapsed  ( +-  4.76% )\n"));
	free(t);
	o.json = true;
	setup_fixture(&f, 1);
	t = print(&f.r, &o);
	assert_non_null(strstr(t, "{\"counter-value\" : \"1000.000000\", \"unit\" : \"msec\", \"event\" : "
				  "\"task-clock\", \"event-runtime\" : 1000000000, \"pcnt-running\" : 100.00, "
				  "\"metric-value\" : 0.500000, \"metric-unit\" : \"CPUs utilized\"}\n"));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_and_metrics),
		cmocka_unit_test(test_stalled_cycles),
		cmocka_unit_test(test_multiplexed_and_missing),
		cmocka_unit_test(test_repeat_csv_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
