/* SPDX-License-Identifier: MIT */
/* Inside prep report's printing: what print.c shares with print_group.c
 * (the group view) and print_threads.c (-T). Not for other views. */
#ifndef PREC_REPORT_PRINT_INT_H
#define PREC_REPORT_PRINT_INT_H

#include "print.h"
#include "print_line.h"

/* --error's cell: "± x.xx%", the standard error of a share of pct
 * percent counted from n samples, sqrt(p (1 - p) / n) (7 columns on the
 * screen for errors under 10 points, in 9 bytes: ± is two) */
void error_cell(double pct, uint64_t n, char *buf, size_t len);
#define ERROR_WIDTH 7

/* Each column as wide as its title and its widest cell in h->entries
 * (print_cols_init, with the reading's --dso list). */
void col_widths(const struct load *l, const struct hist *h, struct col *cols, size_t nc);
/* An entry's call graph (e->tree), percentages of total. */
void print_callchain(FILE *out, const struct print_opts *po, const struct hentry *e,
		     uint64_t total);
/* One event's section. */
int print_event(FILE *out, struct load *l, struct hist *h, const struct print_opts *po,
		int event);

/* print_group.c: the file has leader-sampling groups ({a,b}:S). */
bool print_has_groups(const struct load *l);
/* Every group's section, its members side by side, and single events as
 * print_event; with po->group and no groups in the files, all events as
 * one group (perf's way). */
int print_groups(FILE *out, struct load *l, struct hist *h, const struct print_opts *po);

#endif
