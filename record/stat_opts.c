/* SPDX-License-Identifier: MIT */
/*
 * prec stat's command line: the option table (which also makes --help),
 * perf stat's default events and -d sets, and --all-user/--all-kernel
 * applied to every event. The checks of the whole are stat_check.c's.
 */
#include "stat_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/opts.h"
#include "record/record.h"

/* perf stat's default set; system-wide (-a, -C) it counts cpu-clock, the
 * time of the CPUs, instead of task-clock */
#define DEFAULT_EVENTS "task-clock," DEFAULT_EVENTS_REST
#define DEFAULT_EVENTS_CPUS "cpu-clock," DEFAULT_EVENTS_REST
#define DEFAULT_EVENTS_REST "context-switches,cpu-migrations,page-faults," \
			    "cycles,instructions,branches,branch-misses"

/* -d, -dd, -ddd: perf's detailed sets, each adding to the one before */
static const char *const detailed_events[] = {
	"L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses",
	"L1-icache-loads,L1-icache-load-misses,dTLB-loads,dTLB-load-misses,iTLB-loads,"
	"iTLB-load-misses",
	"L1-dcache-prefetches,L1-dcache-prefetch-misses",
};

static const char usage_line[] = "prec stat [record [-o FILE]] [-e EVENTS] [-a|-C LIST|-p PID|-t TID] "
				 "[-r N] [-x SEP] [--] [command [args]]";

/* The events of text, parsed as a list of their own (its groups numbered
 * from 0), appended to o's. */
static int add_events(struct stat_opts *o, const char *text, struct err *err)
{
	struct event_list more = { 0 };
	int ret = events_parse(text, NULL, &more, err);

	if (ret)
		return ret;
	if (array_grow((void **)&o->events.ev, &o->cap_events, o->events.nr + more.nr,
		       sizeof(*more.ev))) {
		event_list_free(&more);
		return err_set(err, -ENOMEM, "out of memory");
	}
	memcpy(o->events.ev + o->events.nr, more.ev, more.nr * sizeof(*more.ev));
	o->events.nr += more.nr;
	free(more.ev);
	return 0;
}

static int cb_event(const struct opt *opt, const char *arg, struct err *err)
{
	return add_events(opt->dest, arg, err);
}

/* Without -e, perf stat's set; -d's sets after either (not with -n). */
static int add_default_events(struct stat_opts *o, struct err *err)
{
	int ret = 0;

	if (o->null)
		return 0;
	if (!o->events.nr)
		ret = add_events(o, o->all_cpus || o->cpu_list ? DEFAULT_EVENTS_CPUS : DEFAULT_EVENTS,
				 err);
	for (int d = 0; !ret && d < o->detailed && d < 3; d++)
		ret = add_events(o, detailed_events[d], err);
	return ret;
}

/* A hardware PMU named cpu (x86's core PMU) in sysfs. */
static bool pmu_present(void)
{
	return !access("/sys/bus/event_source/devices/cpu", F_OK) ||
	       !access("/sys/bus/event_source/devices/cpu_core", F_OK);
}

/* What the options ask of every event, and the defaults. */
static int finish_opts(struct stat_opts *o, struct err *err)
{
	int ret = add_default_events(o, err);

	for (size_t i = 0; !ret && i < o->events.nr; i++) {
		if (o->all_user)
			o->events.ev[i].attr.exclude_kernel = o->events.ev[i].attr.exclude_hv = 1;
		if (o->all_kernel)
			o->events.ev[i].attr.exclude_user = 1;
	}
	if (!o->repeat)
		o->repeat = 1;
	return ret;
}

int stat_parse(struct stat_opts *o, int argc, char **argv)
{
	const struct opt table[] = {
		OPTION_CALLBACK('e', "event", o, "events", "events to count (default: perf stat's set; also mem:ADDR|VAR, u:|ur:PATH:FUNC, k:|kr:FUNC)", cb_event),
		OPTION_FLAG('a', "all-cpus", &o->all_cpus, "count on every CPU"),
		OPTION_STRING('C', "cpu", &o->cpu_list, "list", "count on these CPUs (0-2,5)"),
		OPTION_STRING('p', "pid", &o->pids, "pids", "count these processes (all their threads)"),
		OPTION_STRING('t', "tid", &o->tids, "tids", "count these threads"),
		OPTION_FLAG(0, "no-inherit", &o->no_inherit, "do not count the workload's children"),
		OPTION_INT('r', "repeat", &o->repeat, "n", "run the command n times, print means and variation", 1, 100000),
		OPTION_STRING('x', "field-separator", &o->sep, "sep", "CSV output with this separator"),
		OPTION_STRING('o', "output", &o->output, "file", "write the output to this file (stat record: the data file)"),
		OPTION_FLAG(0, "append", &o->append, "append to the -o file"),
		OPTION_FLAG('B', "big-num", &o->big_num, "thousands separators in counts"),
		OPTION_FLAG(0, "no-big-num", &o->no_big_num, "no thousands separators"),
		OPTION_FLAG('n', "null", &o->null, "count nothing, only the elapsed time"),
		OPTION_INT('I', "interval-print", &o->interval_ms, "ms", "print the counts every ms milliseconds", 10, 1L << 30),
		OPTION_INT(0, "interval-count", &o->interval_count, "n", "stop after n intervals (with -I)", 1, 1L << 30),
		OPTION_FLAG(0, "interval-clear", &o->interval_clear, "clear the screen before each interval"),
		OPTION_FLAG('j', "json-output", &o->json, "one JSON object per counter"),
		OPTION_COUNT('d', "detailed", &o->detailed, "add cache events (-dd, -ddd: more)"),
		OPTION_FLAG('T', "transaction", &o->transaction, "transactional memory events (needs the cpu PMU)"),
		OPTION_FLAG(0, "topdown", &o->topdown, "top-down metrics (needs -a and the cpu PMU)"),
		OPTION_STRING('M', "metrics", &o->metrics, "list", "metric groups (need the CPU's metric tables)"),
		OPTION_FLAG(0, "smi-cost", &o->smi_cost, "SMI cost (needs freeze_on_smi)"),
		OPTION_FLAG(0, "all-user", &o->all_user, "count user space only, for every event"),
		OPTION_FLAG(0, "all-kernel", &o->all_kernel, "count kernel space only, for every event"),
		OPTION_FLAG(0, "no-scale", &o->no_scale, "do not scale counts of multiplexed events"),
		OPTION_INT('D', "delay", &o->delay_ms, "ms", "start counting after ms milliseconds "
			   "(-1: when --control says enable)", -1, 1L << 30),
		OPTION_STRING(0, "control", &o->control, "fifo:ctl[,ack]|fd:ctl[,ack]",
			      "commands enable, disable, stop, ping (answered ack)"),
		OPTION_FLAG(0, "summary", &o->summary, "with -I: print the totals at the end too"),
		OPTION_FLAG(0, "no-csv-summary", &o->no_csv_summary, "with --summary -x: no 'summary' field"),
		OPTION_COUNT('v', "verbose", &o->verbose, "print each counter's raw value, enabled and running times"),
		OPTION_FLAG('A', "no-aggr", &o->no_aggr, "one line per CPU (with -a or -C)"),
		OPTION_FLAG(0, "per-socket", &o->per_socket, "one line per socket (with -a or -C)"),
		OPTION_FLAG(0, "per-die", &o->per_die, "one line per die (with -a or -C)"),
		OPTION_FLAG(0, "per-core", &o->per_core, "one line per core (with -a or -C)"),
		OPTION_FLAG(0, "per-node", &o->per_node, "one line per NUMA node (with -a or -C)"),
		OPTION_FLAG(0, "per-thread", &o->per_thread, "one line per thread (with -p or -t)"),
		STAT_MORE_OPTIONS(o),
		OPTION_INT(0, "timeout", &o->timeout_ms, "ms", "stop after this many milliseconds", 1, 1L << 40),
		OPTION_COUNT('q', "quiet", &o->quiet, "print nothing (stat record still writes its file)"),
		OPTION_FLAG('h', "help", &o->help, "show this help"),
		OPTION_END,
	};
	struct err err = { 0 };
	bool no_metrics;
	int first = opts_parse(table, argc, argv, &err), ret;

	if (first < 0) {
		fprintf(stderr, "prec stat: %s\n", err.msg);
		opts_usage(stderr, usage_line, table);
		return 129;
	}
	if (o->help) {
		opts_usage(stdout, usage_line, table);
		return -1;
	}
	o->argc = argc - first;
	o->argv = argv + first;
	no_metrics = false;
	ret = stat_more_check(o, pmu_present(), &err);
	if (!ret)
		ret = stat_check(o, pmu_present(), &no_metrics, &err);
	if (no_metrics)
		fprintf(stderr, "Cannot find metric or group `%s'\n", o->metrics);
	if (ret) {
		fprintf(stderr, "%s\n", err.msg);
		if (!stat_opts_has_target(o))
			opts_usage(stderr, usage_line, table);
		return ret == -EINVAL ? 129 : 1;
	}
	if (finish_opts(o, &err)) {
		fprintf(stderr, "prec stat: %s\n", err.msg);
		return 1;
	}
	if (probes_resolve(&o->events, o->argc ? o->argv : NULL, o->pids ? o->pids : o->tids,
			   &err)) {
		fprintf(stderr, "prec stat: %s\n", err.msg);
		return 129;
	}
	return 0;
}
