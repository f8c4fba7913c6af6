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
