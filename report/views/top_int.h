/* SPDX-License-Identifier: MIT */
/* Inside prec top's view: what top.c (the engine) shares with top_print.c
 * (the stdio table). Not for other views: they use top.h. */
#ifndef PREC_REPORT_TOP_INT_H
#define PREC_REPORT_TOP_INT_H

#include "top.h"

#include "common/buf.h"
#include "print.h"
#include "report/aggregate/hist.h"
#include "report/core/load.h"

/* top_print.c: perf top's title additions for the browser: ", 4000 Hz"
 * after the event's name (nothing for a fixed period); " lost: 0/0 drop:
 * 0/0" at its end (of the interval and in all), " [z]" while zero is on. */
void top_title_note(const struct top *t, char *buf, size_t len);
void top_title_tail(const struct top *t, const struct top_snapshot *snap, char *buf,
		    size_t len);

struct top {
	struct top_opts opts;
	struct load *load;              /* a live reading */
	struct hist_opts ho;
	struct hist hist;               /* every sample so far, aged */
	bool hist_ready;
	struct print_opts po;
	bool order_set;                 /* --call-graph said caller or callee */
	struct buf block;               /* the DATA block of the drain pass going on */
	struct top_counts now;          /* counted since the last refresh */
	uint64_t lost_total;
	double last_refresh;            /* its time (CLOCK_MONOTONIC s); at first top_new's */
};

#endif
