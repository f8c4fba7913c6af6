/* SPDX-License-Identifier: MIT */
/*
 * The one printer of counting results (perf stat's layout): live `prec stat`
 * hands it the readings it just took, `prep stat report` the readings of a
 * file, so the two outputs cannot drift apart. This is the only part of
 * report/ that record/ uses.
 */
#ifndef PREC_REPORT_STAT_H
#define PREC_REPORT_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"

/* Aggregation: one line per CPU (-A), per socket, die, core, NUMA node, or
 * per thread (-p/-t --per-thread); GLOBAL sums everything. */
enum stat_aggr { AGGR_GLOBAL, AGGR_NONE, AGGR_SOCKET, AGGR_DIE, AGGR_CORE, AGGR_NODE, AGGR_THREAD,
		 AGGR_CLUSTER, AGGR_CACHE };

#define STAT_CACHE_LEVELS 4     /* the cache ids kept of each CPU: L1 to L4 */

struct stat_unit {
	int cpu, socket, die, core, node;       /* the unit's, or its first CPU's */
	int nr;                                 /* CPUs in it */
	int tid;
	char comm[32];
	/* --per-cluster, --per-cache: the CPU's cluster, the id of its cache
	 * of each level (-1: none), and the level aggregated (1..4) */
	int cluster, cache_id[STAT_CACHE_LEVELS], cache_level;
};

struct stat_counter {
	const char *name;       /* as the user named it (or perf's default name) */
	uint32_t type;          /* perf_event_attr type and config: for units and metrics */
	uint64_t config;
	bool supported;         /* opened */
	const char *unit;       /* NULL: "msec" for cpu-clock and task-clock, else none */
	double scale;           /* shown: the count times this; 0: 1e-6 for the clocks, else 1 */
	/* per run: the value scaled by enabled/running, and the two times */
	double *values;
	uint64_t *enabled, *running;
	/* with aggregation: per unit, of the last run */
	double *uvalues;
	uint64_t *uenabled, *urunning;
};

/* What perf's metrics divide by (its "runtime stats"): the clocks' time,
 * cycles, branches, ... of a unit, and the wall-clock time of the run (ns). */
enum stat_ref {
	STAT_REF_NSECS, STAT_REF_CYCLES, STAT_REF_STALLED_FRONT, STAT_REF_STALLED_BACK,
	STAT_REF_BRANCHES, STAT_REF_CACHE_REFS, STAT_REF_L1D, STAT_REF_L1I, STAT_REF_LL,
	STAT_REF_DTLB, STAT_REF_ITLB, STAT_REF_WALL, STAT_REFS,
};

/* perf's running means of the references and how many updates each had. */
struct stat_refs {
	double mean[STAT_REFS];
	uint64_t n[STAT_REFS];
};

/* One more update, computed as perf's update_stats does (so the means are
 * the same to the last bit). */
void stat_refs_update(struct stat_refs *s, enum stat_ref k, uint64_t v);

/* The reference a counter of this type and config updates, or STAT_REFS. */
enum stat_ref stat_ref_of(uint32_t type, uint64_t config);

struct stat_result {
	const char *cmd;        /* the workload's command line, or NULL (-a, -p, -t) */
	const char *target;     /* "'system wide'", "process id '123'" ... when no cmd */
	struct stat_counter *c;
	size_t nr;
	int runs;               /* -r */
	double *elapsed_s;      /* per run */
	double user_s, sys_s;   /* of the last run (shown when runs == 1) */
	bool show_times;        /* user/sys lines (not in `perf stat report`'s own output) */
	enum stat_aggr aggr;
	struct stat_unit *units;
	size_t nr_units;
	/* NULL: metrics divide by the readings printed (the live run). Else
	 * one per unit ([0] without aggregation) as perf stat report keeps
	 * them: means over every round read so far; refs[0] also holds the
	 * wall-clock time. */
	const struct stat_refs *refs;
	int unit_width;         /* of the unit column; 0: the widest unit, at least 4 */
	int cache_level;        /* --per-cache: the level asked; 0: the highest */
};

/* A count of a multiplexed counter (running < enabled) scaled to the
 * whole time it was enabled, as perf does; others as they are. */
double stat_scaled(double value, uint64_t enabled, uint64_t running);

/* The unit of a CPU in this aggregation (from the topology read off /sys
 * for each CPU); stat_units_for_cpus fills units and maps cpus to them. */
int stat_units_for_cpus(enum stat_aggr aggr, const struct stat_unit *cpu_topo, size_t nr_cpus,
			struct stat_unit **units, size_t *nr_units, int *unit_of_cpu);
/* Free the units of an aggregation and the counters' per-unit values. */
void stat_units_free(struct stat_result *r, struct stat_counter *c, size_t n);
/* Topology of CPUs 0..n-1 from /sys (socket, die, core, node). */
int stat_read_topology(struct stat_unit *topo, size_t n);
/* The same for one CPU. */
void stat_read_cpu_topology(struct stat_unit *u, int cpu);
/* --per-cache: the level aggregated (0: the highest any CPU has) into each
 * CPU's cache_level; the level chosen, or 0 when no CPU has one. */
int stat_set_cache_level(struct stat_unit *cpus, size_t n, int level);

struct stat_print_opts {
	const char *sep;        /* -x: CSV with this separator */
	bool json;              /* -j: one JSON object per line */
	bool big_num;           /* -B: thousands separators */
	bool no_scale;
	double interval;        /* -I: the interval's end (s since the start), or < 0 */
	bool summary;           /* -I --summary -x: lines start with a "summary" field */
	bool table;             /* --table: with -r, each run's elapsed time (stat_extra.c) */
	bool metric_only;       /* --metric-only: the metrics alone (stat_extra.c) */
};

void stat_print(FILE *out, const struct stat_result *r, const struct stat_print_opts *o);
/* -I: the column titles (text only), printed before the first interval and
 * again every 25 intervals, as perf does. */
#define STAT_HEADER_EVERY 25
void stat_print_interval_header(FILE *out, enum stat_aggr aggr, const struct stat_print_opts *o);

/* stat_extra.c: --metric-only's lines (for stat_print) and its -I titles,
 * printed in place of stat_print_interval_header's. */
void stat_print_metric_only(FILE *out, const struct stat_result *r, const struct stat_print_opts *o);
void stat_print_metric_only_header(FILE *out, const struct stat_result *r,
				   const struct stat_print_opts *o);
/* --table: each run's elapsed time and its difference from the mean m,
 * printed with prec decimals before -r's final line. */
void stat_print_table(FILE *out, const struct stat_result *r, double m, int prec);

/* A metric of a counter: fmt NULL for the unit alone, unit NULL for none. */
struct stat_metric {
	const char *fmt, *unit;
	double v;
};
/* Counter c's metrics (two at most) of unit u (-1: the total): whether it
 * counted, as stat_print shows it; m[] as its `#` column would say (had
 * it counted). */
bool stat_metrics_of(const struct stat_result *r, const struct stat_counter *c, long u,
		     struct stat_metric m[2]);

/* --per-cluster and --per-cache: a unit's name (S0-D0-CLS0, S0-D0-L3-ID0). */
struct stat_label {
	char s[64];
};
struct stat_label stat_unit_label(enum stat_aggr aggr, const struct stat_unit *u);

/* prep stat report */
int cmd_stat_report(int argc, char **argv);

#endif
