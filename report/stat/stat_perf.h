/* SPDX-License-Identifier: MIT */
/*
 * prep stat report on a file of perf stat record (perf.data with perf's
 * STAT_CONFIG, STAT and STAT_ROUND records), printed by the stat printer
 * (stat.h) as perf 6.1's `perf stat report` prints it. What comes from the
 * file: the events (names, units and scales from EVENT_UPDATE), the
 * aggregation mode, the interval and --no-scale (STAT_CONFIG), the CPU and
 * thread maps, the readings, the rounds (each prints: an interval line set
 * with -I, else the whole summary with the run's time), the command line for
 * the heading ('pipe' without one), the CPU topology (features; this
 * machine's for a pipe-mode file). What the command line may change: -x,
 * -j, --no-big-num, and -A / --per-socket / --per-die / --per-core /
 * --per-node when the file has per-CPU readings (else perf's warning
 * "processing task data, aggregation mode not set").
 */
#ifndef PREC_REPORT_STAT_PERF_H
#define PREC_REPORT_STAT_PERF_H

#include <stdbool.h>
#include <stdio.h>

#include "common/err.h"
#include "format/perfdata.h"
#include "stat.h"

struct stat_perf_opts {
	const char *sep;        /* -x */
	bool json;              /* -j */
	bool big_num;           /* thousands separators (perf's default) */
	bool aggr_set;          /* -A or --per-*: aggr replaces the file's mode */
	enum stat_aggr aggr;
	FILE *out;
	/* Damage and perf's warnings, one line each without a prefix; NULL
	 * for none. */
	void (*warn)(void *ctx, const char *msg);
	void *ctx;
};

/* Walk the whole data section and print every round. 0; -PREC_EFORMAT
 * when the file holds no counting records (a perf record file), or no
 * round to print; -ENOMEM. err says why. */
int stat_perf_report(struct perfdata *pd, const struct stat_perf_opts *o, struct err *err);

#endif
