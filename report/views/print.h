/* SPDX-License-Identifier: MIT */
/* The text output of prep report: perf report --stdio's layout. */
#ifndef PREC_REPORT_PRINT_H
#define PREC_REPORT_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "report/aggregate/hist.h"
#include "report/core/load.h"

enum cg_mode { CG_GRAPH, CG_FLAT, CG_FRACTAL, CG_FOLDED, CG_NONE };

struct print_opts {
	enum cg_mode mode;
	double threshold;       /* call-graph percent limit */
	double percent_limit;   /* entries */
	bool children, callchain;
	bool show_nr, show_period;
	bool absolute;
	bool quiet;
	const char *event;      /* only this event's section; NULL: every event */
	/* graph mode: a single root's first name is not printed (perf does
	 * this when the sort order starts with "sym": in callee order that
	 * name is the entry's own symbol) */
	bool skip_first;
	bool header_shown;      /* --header printed before the report */
	bool group;             /* --group: the events of a group side by side */
	bool color;             /* percentages in perf's colours (a terminal) */
	uint64_t count_filter;  /* only entries of more samples than this (perf top -f) */
};

/* -g/--call-graph's printing: graph|flat|fractal|folded|none[,THRESHOLD]
 * [,caller|callee] (perf's print-limit and key words are taken and left
 * alone) into po and ho; *order_set when caller or callee was given. 0, or
 * -EINVAL with a message naming the word. */
int print_parse_callgraph(const char *arg, struct print_opts *po, struct hist_opts *ho,
			  bool *order_set, struct err *err);
int print_report(FILE *out, struct load *l, struct hist *h, const struct print_opts *po);
void print_header(FILE *out, const struct load *l);
/* For live views (prec top), under a header of their own: the lines of
 * h's entries (hist_build done) as the report prints them, each with its
 * call graph, of those that pass po->percent_limit, po->count_filter and
 * the frame filters (--dso, --symbols), at most max of them (0: all);
 * percentages of total. Returns how many were printed. */
size_t print_entry_lines(FILE *out, struct load *l, struct hist *h, const struct print_opts *po,
			 int event, uint64_t total, size_t max);
/* The entries print_entry_lines would print, marked in mark (h's
 * nr_entries elements, zeroed by the caller): how many. */
size_t print_entry_mark(struct load *l, struct hist *h, const struct print_opts *po, int event,
			uint64_t total, size_t max, bool *mark);
/* The period and samples the percentages are of: with --dso or --symbols,
 * of the entries they let through, else all of h's. */
void print_shown_totals(struct load *l, const struct hist *h, uint64_t *period, uint64_t *count);
/* "# ========" and the "# captured on" line of perf's --header (the
 * recording's start time, local time; "unknown" without one) */
struct metadata;
void print_captured_on(FILE *out, const struct metadata *m);
/* perf's --header of a perf.data file (header_perf.c) */
void print_perf_header(FILE *out, const struct session *s);
/* ", name = value" for each attr field that is not zero, as perf names them */
void print_attr_fields(FILE *out, const struct perf_event_attr *a);
void print_stats(FILE *out, const struct load *l, const struct hist *h);

/* -T/--threads (print_threads.c): per-thread counts, gathered from the
 * samples that read counts and from PERF_RECORD_READ records. */
struct thread_counts;
struct thread_counts *thread_counts_new(void);                  /* NULL: no memory */
void thread_counts_free(struct thread_counts *tc);              /* NULL: nothing */
int thread_counts_sample(struct thread_counts *tc, const struct load_sample *s);
int thread_counts_record(struct thread_counts *tc, struct load *l, const struct session *s,
			 const struct record *rec);
void thread_counts_print(FILE *out, const struct load *l, const struct thread_counts *tc);

#endif
