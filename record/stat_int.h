/* SPDX-License-Identifier: MIT */
/*
 * prec stat's pieces, private to record/stat*.c: the options (stat_opts.c
 * parses them, stat_check.c checks them without side effects), the counters
 * (stat_counters.c opens, reads and scales them), the run loop with its -I
 * intervals and -r repeats (stat_loop.c), and the counting file of `prec
 * stat record` (stat_file.c). stat.c is the command that ties them.
 *
 * struct stat_opts is what the command line asked for; struct stat_run is
 * the runtime state of one command, built from it. The one change to the
 * options after parsing is the user-only fallback renaming an event NAME:u
 * (as in prec, the event stays so for later runs and for the file).
 */
#ifndef PREC_RECORD_STAT_INT_H
#define PREC_RECORD_STAT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/events.h"
#include "common/opts.h"
#include "report/stat/stat.h"

struct stat_opts {
	struct event_list events;       /* -e, then the defaults and -d's sets */
	size_t cap_events;              /* allocated entries of events.ev */
	bool all_cpus, no_inherit, big_num, no_big_num, append, null;
	bool no_aggr, per_socket, per_die, per_core, per_node, per_thread;
	bool json, interval_clear;
	long interval_ms, interval_count;
	int detailed, verbose;
	bool transaction, topdown, smi_cost, all_user, all_kernel, no_scale, summary, no_csv_summary;
	const char *metrics;
	long delay_ms;                  /* -D; -1: disabled until --control's enable */
	const char *control;            /* --control fifo:CTL[,ACK] or fd:N[,M] */
	const char *cpu_list, *pids, *tids, *sep, *output;
	long repeat, timeout_ms;
	int quiet;
	bool help;
	/* stat_more.c: the rest of perf-stat(1)'s options */
	bool table, metric_only, per_cluster, no_merge, percore_show_thread;
	bool metric_no_group, metric_no_merge, bpf_counters;
	const char *per_cache;          /* --per-cache[=LEVEL]: "" for the highest */
	long log_fd, td_level;
	const char *pre, *post, *cputype, *pmu_filter, *bpf_prog;
	bool record;                    /* prec stat record */
	const char *record_file;        /* its data file */
	int argc;                       /* the workload */
	char **argv;
};

/* What is counted: CPUs (-a, -C), threads (-p, -t) or, with neither, the
 * workload of the current run. */
struct stat_target {
	int *cpus;
	size_t nr_cpus;
	pid_t *tids;
	size_t nr_tids, cap_tids;
	pid_t workload;                 /* counted with inherit, enabled on exec */
};

struct counter_fd {
	int fd;
	int cpu;
	pid_t tid;                      /* -p / -t: the thread; else -1 */
};

struct counter {
	struct event_spec *ev;
	struct counter *leader;         /* {a,b}: the group's first counter, read for all */
	struct counter_fd *fds;
	size_t nr_fds;
	bool supported;
	bool user_only;                 /* refused, then opened excluding the kernel (NAME:u) */
	uint64_t *ids;
};

/* One fd's reading, or a sum of them. */
struct reading {
	uint64_t value, enabled, running;
	int cpu;
	pid_t tid;
};

/* -I: what the last tick read, and the intervals kept for stat record. */
struct intervals {
	struct reading **prev;          /* per event, per fd */
	size_t *prev_n;
	uint64_t last_ns;               /* since the start */
	long done;
	struct buf *blocks;             /* encoded COUNTS payloads */
	size_t nr_blocks, cap_blocks;   /* with -r (no -I): the runs before the last */
	unsigned printed;               /* intervals printed: the titles come back every 25 */
};

/* One `prec stat` command. Arrays "per event" have o->events.nr entries. */
struct stat_run {
	struct stat_opts *o;
	struct stat_target t;
	struct counter *c;              /* per event */
	struct stat_counter *sc;        /* per event: what the printer shows */
	struct reading **per;           /* per event: the last run's reading of each fd */
	size_t *per_n;
	struct stat_result r;
	struct stat_print_opts po;
	struct intervals iv;
	int runs;                       /* runs done (Ctrl-C ends -r early) */
	uint64_t *elapsed_ns;           /* per run (-r) */
	uint64_t user_ns, sys_ns;       /* the last run's workload */
	struct stat_unit *topo;         /* -a, -C: every CPU's topology, for the file */
	size_t nr_topo;
	char *cmd;                      /* the workload's command line */
	char target[128];               /* the heading without one: "'system wide'" ... */
	int status;                     /* the workload's wait status */
	FILE *out;                      /* stderr, or -o */
	struct control *control;        /* --control, or NULL */
};

/* stat_opts.c: the command line into o. 0; -1 after --help; or the exit
 * status after printing why (129: a misuse, 1: perf's refusal). */
int stat_parse(struct stat_opts *o, int argc, char **argv);

/* stat_check.c, without side effects (unit-tested): 0, -EINVAL for a
 * misuse (exit 129) or -EOPNOTSUPP for counters this machine lacks (exit
 * 1, perf's words), with the whole line to print in err. cpu_pmu: a cpu
 * PMU is present. *no_metrics: -M's warning is due, before any error that
 * follows (the checks get that far). */
int stat_check(const struct stat_opts *o, bool cpu_pmu, bool *no_metrics, struct err *err);
/* A command or a target (-a, -C, -p, -t) to count. */
bool stat_opts_has_target(const struct stat_opts *o);

/* stat_more.c: the options it adds (STAT_MORE_OPTIONS(o) in the option
 * table), their checks (as stat_check's: 0, -EINVAL or -EOPNOTSUPP with
 * err set), --log-fd's stream (NULL, and err set, when the fd is not
 * open), and --pre/--post run through the shell: 0, or -ECANCELED with err
 * saying how it failed. */
int stat_cb_per_cache(const struct opt *opt, const char *arg, struct err *err);
#define STAT_MORE_OPTIONS(o) \
	OPTION_FLAG(0, "table", &(o)->table, "with -r: a table of each run's elapsed time"), \
	OPTION_FLAG(0, "metric-only", &(o)->metric_only, "print only the metrics, one column each"), \
	OPTION_INT(0, "log-fd", &(o)->log_fd, "fd", "write the output to this open fd, not stderr", 1, INT_MAX), \
	OPTION_STRING(0, "pre", &(o)->pre, "cmd", "run this shell command before each run"), \
	OPTION_STRING(0, "post", &(o)->post, "cmd", "run this shell command after each run"), \
	OPTION_FLAG(0, "per-cluster", &(o)->per_cluster, "one line per CPU cluster (with -a or -C)"), \
	{ .type = OPT_LIST, .long_name = "per-cache", .dest = (o), .argname = "level", \
	  .help = "one line per cache instance (L1, L2 ...; default: the highest) (with -a or -C)", \
	  .flags = OPT_OPTARG, .cb = stat_cb_per_cache }, \
	OPTION_FLAG(0, "no-merge", &(o)->no_merge, "do not merge events of the same name from several PMUs"), \
	OPTION_FLAG(0, "percore-show-thread", &(o)->percore_show_thread, "percore events: the core's sum on each of its CPUs"), \
	OPTION_FLAG(0, "metric-no-group", &(o)->metric_no_group, "-M: events of metrics outside groups"), \
	OPTION_FLAG(0, "metric-no-merge", &(o)->metric_no_merge, "-M: no events shared between metric groups"), \
	OPTION_INT(0, "td-level", &(o)->td_level, "n", "top-down metrics of this level (0: the deepest)", 0, INT_MAX), \
	OPTION_STRING(0, "cputype", &(o)->cputype, "type", "hybrid CPUs: count on CPUs of this type (core, atom)"), \
	OPTION_STRING(0, "pmu-filter", &(o)->pmu_filter, "pmu", "count only on this PMU of several of one type"), \
	OPTION_STRING('b', "bpf-prog", &(o)->bpf_prog, "ids", "count BPF programs (needs BPF: not in prec)"), \
	OPTION_FLAG(0, "bpf-counters", &(o)->bpf_counters, "share counters through BPF (needs BPF: not in prec)")
int stat_more_check(const struct stat_opts *o, bool cpu_pmu, struct err *err);
FILE *stat_log_fd(const struct stat_opts *o, struct err *err);
int stat_hook(const char *which, const char *cmd, struct err *err);

/* stat_counters.c */
int counters_open(struct stat_run *run, struct err *err);
void counters_enable(struct counter *c, size_t n);
/* mem:SYMBOL breakpoints of a PIE workload, just started: moved to where
 * it was loaded (record/probes.c), then it goes on. */
int counters_probes_at_exec(struct stat_run *run, pid_t pid, struct err *err);
void counters_close(struct counter *c, size_t n);
/* The note that events fell back to user space only, once. */
void counters_note_user_only(const struct counter *c, size_t n);
/* A counter's sum and per-fd readings (nr_fds of them into per). */
void counter_read(const struct counter *c, struct reading *sum, struct reading *per);
/* The printer's view of event i from a sum read for run k. */
void counter_show(struct stat_run *run, size_t i, int k, const struct reading *sum);
/* The last reading of run k into run->per and run->sc. */
int counters_read_run(struct stat_run *run, int k, struct err *err);
/* The output's units (CPUs grouped by topology, or threads) and each
 * counter's readings per unit; *topo: every CPU's topology (-a, -C). */
int counters_aggregate(struct stat_run *run, struct reading **per, const size_t *per_n,
		       struct stat_unit **topo, size_t *nr_topo);

/* stat_loop.c: every run (-r), each waited for with its -D and -I. */
int stat_runs(struct stat_run *run, struct err *err);

/* stat_control.c: carry out the commands that arrived on --control. */
void stat_control_process(struct stat_run *run);

/* stat_file.c: the counting file of prec stat record (the counters still
 * open: their ids). argc/argv: prec's own command line. */
int stat_write_file(const struct stat_run *run, int argc, char **argv, struct err *err);
/* -r: run k's readings (just read; not the last run's) kept for the file. */
int stat_keep_run(struct stat_run *run, int k, struct err *err);

#endif
