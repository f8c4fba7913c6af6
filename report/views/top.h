/* SPDX-License-Identifier: MIT */
/*
 * prec top's view: the live histogram of what prec top samples, and its
 * stdio table (perf top --stdio's layout). This header is the whole
 * interface between record/top.c, which opens the events, drains the ring
 * buffers and drives the refreshes, and the report side, which names and
 * counts (DESIGN.md: record/ resolves no symbol).
 *
 * record/top.c hands over what a prec.data file would hold: the EVENT
 * blocks first (top_block), then the raw records of each drain pass as they
 * were copied out of each ring buffer (top_records; synthesized ones under
 * SPAN_CPU_SYNTH) and the end of the pass (top_round). Each pass becomes one
 * DATA block in memory, laid out as FORMAT.md 5.3 says, and goes to the
 * reading core as a live input (report/core/load.h, load_live_*): time
 * order across CPU buffers, the machine model (processes started meanwhile
 * and their libraries are named from their COMM and MMAP2 records), the
 * filters and the call chains, exactly as a file's records.
 *
 * At each refresh, top_refresh builds the entries of the samples so far
 * for whatever shows them (top_print's table), or top_update names them
 * for the browser, which builds them itself (top_browse), and top_age then
 * ages them as perf top does:
 * every entry's period and samples times 7/8, or, with -z, all of them
 * dropped.
 *
 * Nothing here prints but top_print (to the FILE it is given) and
 * top_browse (to the terminal), and nothing exits; errors come back as
 * negative codes with a message in err.
 */
#ifndef PREC_REPORT_TOP_H
#define PREC_REPORT_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "report/core/filter.h"

/* What the command line asks of the view (strings borrowed: argv's). */
struct top_opts {
	const char *sort;               /* -s: sort keys; NULL: dso,sym (perf top's) */
	const char *callgraph;          /* --call-graph's printing part: graph|flat|fractal|
					   folded|none, threshold, caller|callee; NULL: defaults */
	int children;                   /* --children 1, --no-children 0, -1: with call chains */
	const char *percent_limit;      /* --percent-limit */
	long count_filter;              /* -f: only entries of more samples than this */
	long max_stack;                 /* --max-stack: frames of a chain used; 0: all */
	bool show_nr, show_period;      /* -n, --show-total-period */
	bool zero;                      /* -z: start again at each refresh */
	bool hide_kernel, hide_user;    /* -K, -U */
	struct load_filter_opts f;      /* --comms, --dsos, --symbols */
	const char *kallsyms;           /* --kallsyms: kernel symbols from this file */
	bool quiet;                     /* no warnings */
	/* what the header says is watched: -p, -t, -C lists, the CPUs */
	const char *pids, *tids, *cpu_list;
	size_t nr_cpus;
};

/* The values of o: 0, or -EINVAL with a one-line message naming the
 * option and its value. Changes nothing. */
int top_opts_check(const struct top_opts *o, struct err *err);

struct top;

/* A new view (top_opts_check first), or NULL with the reason in err. */
struct top *top_new(const struct top_opts *o, struct err *err);
void top_free(struct top *t);   /* NULL: nothing */

/* A block as a prec.data file holds it (BLOCK_EVENT, BLOCK_METADATA; the
 * EVENT blocks before any record). */
int top_block(struct top *t, unsigned type, const void *payload, size_t len, struct err *err);
/* The records drained from one ring buffer (cpu; SPAN_CPU_SYNTH for
 * synthesized ones): n1 bytes at p1 then n2 at p2 (a ring that wrapped),
 * whole records together. Copied: the ring may be reused at once. */
int top_records(struct top *t, uint32_t cpu, const void *p1, size_t n1, const void *p2, size_t n2,
		struct err *err);
/* The end of a drain pass: the records given since the last one are read. */
int top_round(struct top *t, struct err *err);
/* The end of the session: every record still waiting is read. */
int top_end(struct top *t, struct err *err);

/* What the header counts, for one interval between two refreshes. */
struct top_counts {
	uint64_t samples;               /* all events, before any filter */
	uint64_t kernel;                /* of them taken in the kernel */
	uint64_t exact;                 /* with PERF_RECORD_MISC_EXACT_IP */
	uint64_t lost;                  /* samples the kernel lost (LOST records) */
};

/* One refresh, for a view to show: valid until top_age or top_free. */
struct load;
struct hist;
struct top_snapshot {
	struct load *load;
	struct hist *hist;              /* its entries built and named */
	int event;                      /* the event shown (the first) */
	uint64_t total;                 /* the period the percentages are of */
	bool children, callchain;       /* two columns; call graphs under entries */
	struct top_counts interval;     /* since the refresh before */
	uint64_t lost_total;
	double interval_s;              /* seconds since the refresh before */
};

/* Build the entries of the samples so far (named: their binaries are read
 * as they are first hit), with call graphs for the first `entries` of those
 * that the table would show (0: for all of them); now: CLOCK_MONOTONIC
 * seconds. */
int top_refresh(struct top *t, double now, size_t entries, struct top_snapshot *snap,
		struct err *err);
/* For a browser that builds the entries itself (top_browse): the samples
 * so far named (hist_resolve), the header's counts of the interval taken,
 * no entries built (snap->total is 0). Then top_age once it has shown
 * them. */
int top_update(struct top *t, double now, struct top_snapshot *snap, struct err *err);
/* perf top's header line, without its newline: "   PerfTop:    5442
 * irqs/sec  kernel:49.5%  exact:  0.0% lost: 0/0 drop: 0/0 [4000Hz
 * cpu-clock],  (all, 2 CPUs)". */
void top_header(const struct top *t, const struct top_snapshot *snap, char *buf, size_t len);
/* -z turned on or off (prec top's z key). */
void top_set_zero(struct top *t, bool zero);
/* After a refresh was shown: older samples weigh 7/8 (-z: nothing). */
int top_age(struct top *t, struct err *err);

/* ---- the browser (report/tui/browser.h; top_browse.c) ---- */

/* Whether the browser can run here: stdin and stdout are a terminal, and
 * TERM names one (set, not dumb). */
bool top_can_browse(void);

/* What the browser's loop asks of prec top's front end (record/top_tui.c,
 * which drains the rings meanwhile). Called on the browser's thread,
 * between keys. */
struct top_browse_ops {
	/* Every 100 ms: 0 to go on, 1 to end as q does (SIGINT, SIGTERM,
	 * --duration), negative to end with err set. */
	int (*tick)(void *ctx, struct err *err);
	/* At each refresh, after the aging and before the naming: the records
	 * drained since the last one to the view (top_records, top_round). 0,
	 * or negative with err set. */
	int (*feed)(void *ctx, struct top *t, struct err *err);
	/* A note for the status line after the PerfTop line, or NULL. */
	const char *(*note)(void *ctx);
	void *ctx;
	double delay_s;                 /* -d: seconds between refreshes */
	size_t entries;                 /* -E; 0: every entry */
};

/* The view in the browser until the user quits or ops->tick ends it, as
 * perf top's TUI shows it: its title ("Samples: 7K of event 'cpu-clock',
 * 4000 Hz, Event count (approx.): ... lost: 0/0 drop: 0/0"), the entries
 * and their call graphs in the browser's keys (expand, zoom, /, annotate
 * live, P, h), the PerfTop line as the status line, z to zero the samples
 * at each refresh or age them again; a refresh every ops->delay_s
 * seconds, also while annotate, the help or a prompt shows. Messages of
 * the log go to its message line meanwhile. 0, or negative with err set. */
int top_browse(struct top *t, const struct top_browse_ops *ops, struct err *err);

/* Where the stdio table goes. */
struct top_screen {
	bool terminal;                  /* clear it first; colours unless no_color */
	bool no_color;                  /* NO_COLOR */
	size_t rows, cols;              /* its size; cols 0: lines are not cut */
	size_t entries;                 /* -E; 0: rows less the 5 lines of the header */
};

/* A refresh printed as perf top --stdio prints it (top_refresh, the
 * table, top_age): on a terminal the screen is cleared first, and lines
 * are cut to its width. */
int top_print(struct top *t, FILE *out, const struct top_screen *scr, double now,
	      struct err *err);

#endif
