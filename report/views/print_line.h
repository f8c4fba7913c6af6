/* SPDX-License-Identifier: MIT */
/*
 * The text report's lines, one at a time: the column titles, an entry's
 * line and the lines of its call graph, formatted in one place for every
 * output. The text report (print.c) writes them to its file; the browser
 * (report/tui/) draws them, folds the call graphs and colours the
 * percentages, so that both show the same columns, widths, percentages and
 * graph drawing.
 *
 * Lines go into a struct buf (common/buf.h) without their newline; a
 * formatter appends to it and returns 0 or -ENOMEM.
 */
#ifndef PREC_REPORT_PRINT_LINE_H
#define PREC_REPORT_PRINT_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "print.h"

/* "682 " or "12K": perf's sample count with a unit letter (the
 * "Samples: ... of event" title) */
void unit_count(uint64_t v, char *buf, size_t n);

/* a column of a sort key: its table entry and its width for this event */
struct col {
	const struct sort_key *sk;
	int width;
};

/* The columns of h's sort keys, each as wide as its title (or the key's
 * least width) and its widest cell in h->entries: every entry, those that
 * filters hide included (as perf). An entry without a symbol widens the
 * symbol column to perf's unresolved width unless dso_list (a --dso list
 * chose the objects). nc: h->opts.nr_keys columns are set. */
void print_cols_init(const struct hist *h, bool dso_list, struct col *cols, size_t *nc);

/* "# Children      Self  Command ..." (the titles) and "# ........ ..."
 * (the dots under them), as the text report's two title lines. */
int print_title_line(struct buf *b, const struct print_opts *po, const struct col *cols,
		     size_t nc);
int print_dots_line(struct buf *b, const struct print_opts *po, const struct col *cols,
		    size_t nc);

/* Where an entry line's percentages are (the browser colours them):
 * column (byte offset) and width of each, and the value. */
struct print_pcts {
	size_t nr;
	size_t at[2], width[2];
	double pct[2];
};

/* What an entry line's percentages are of: the period total (Overhead,
 * Children, Self), the Latency columns' total (prep --latency:
 * latency_total()) and the samples the period total counts (--error's
 * standard error). */
struct print_totals {
	uint64_t period, latency, samples;
};

/* Entry e's line, its percentages of *t; *pcts (may be NULL) says where
 * the share percentages are in the line (not the Latency columns). */
int print_entry_line(struct buf *b, const struct hist *h, const struct print_opts *po,
		     const struct col *cols, size_t nc, const struct hentry *e,
		     const struct print_totals *t, struct print_pcts *pcts);

/* One line of a call graph, valid during the callback: its text, the node
 * whose name it shows (NULL for the "|" lines between branches, the empty
 * line after a graph, and every line of the flat and folded modes), and
 * whether lines beneath that node would be drawn (what folding it hides). */
struct print_gline {
	const char *text;
	size_t len;
	const struct cnode *node;
	bool more;
};

/* 0 to go on; a negative value stops the drawing and is returned. */
typedef int (*print_gline_fn)(void *ctx, const struct print_gline *gl);
/* A folded node is drawn without the lines beneath it. */
typedef bool (*print_folded_fn)(void *ctx, const struct cnode *n);

/* Entry e's call graph as the text report draws it (graph, fractal, flat
 * or folded, po->threshold, percentages of total), one line at a time to
 * fn. folded (may be NULL: nothing folded, the text report) is asked for
 * each node the graph and fractal modes draw with lines beneath it. 0, or
 * fn's or the buffer's negative return. */
int print_callchain_lines(const struct print_opts *po, const struct hentry *e, uint64_t total,
			  print_folded_fn folded, void *fctx, print_gline_fn fn, void *ctx);

#endif
