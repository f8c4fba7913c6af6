/* SPDX-License-Identifier: MIT */
/*
 * The two-column collapsed stacks of a differential, the form FlameGraph's
 * difffolded.pl writes and flamegraph.pl draws as a differential flame
 * graph: one line per stack that either side has,
 *
 *     STACK COUNT_OLD COUNT_NEW
 *
 * STACK as prep export folded writes it (folded.h, with the same options:
 * command-name root, ';' between frames, root first), 0 for the side that
 * does not have it. Stacks are matched by that text, as difffolded.pl
 * matches the lines of its two files: so by function names, never by
 * address, and two builds of a program compare.
 *
 * Each side may be several recordings (runs): a side's count of a stack is
 * the sum over its runs. The counts are the samples (or, with
 * folded_opts.period, the periods) as recorded: when the two sides' totals
 * differ, OLD's counts can be scaled to NEW's total first (normalize,
 * difffolded.pl -n), each rounded to the nearest integer (difffolded.pl
 * truncates with int(), which turns a stack seen once in a larger OLD into
 * 0, as if it had gone). Lines are sorted in byte order (difffolded.pl
 * prints them in Perl's hash order; flamegraph.pl sorts them anyway).
 *
 * Built one run at a time, so that a caller can free each recording once it
 * is added: nothing here points into the stacks added. A recording's
 * stacks as prep export difffolded reads them: diffrun_read() (diffread.h),
 * then diffstacks_add(d, side, &run.st) and diffrun_free().
 */
#ifndef PREC_REPORT_DIFFSTACKS_H
#define PREC_REPORT_DIFFSTACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "folded.h"
#include "report/aggregate/stacks.h"

enum diff_side { DIFF_OLD, DIFF_NEW };

struct diffstacks_opts {
	struct folded_opts fo;  /* how a stack reads (prep export folded --with) */
	bool normalize;         /* OLD's counts scaled to NEW's total (difffolded.pl -n) */
};

/* Opaque: the two sides' lines so far. */
struct diffstacks;

/* An empty differential (o is copied), or NULL when memory is short. */
struct diffstacks *diffstacks_new(const struct diffstacks_opts *o);
/* Add one run's stacks (one event of them: stacks_opts.event) to a side.
 * 0 or -ENOMEM (d keeps what it had). */
int diffstacks_add(struct diffstacks *d, enum diff_side side, const struct stacks *s);
/* The same for a run whose event's samples are durations (diffrun.durations:
 * offcpu-time, wall-time): weighed by their periods, as prep export folded
 * writes them, unless the options ask for counts (folded_opts.count). */
int diffstacks_add_run(struct diffstacks *d, enum diff_side side, const struct stacks *s,
		       bool durations);
/* The lines, "STACK OLD NEW\n" each. 0, or -EIO when out reports an error. */
int diffstacks_write(FILE *out, const struct diffstacks *d);
/* The sides' totals as written (OLD's after normalize). */
void diffstacks_totals(const struct diffstacks *d, uint64_t *old, uint64_t *new_);
void diffstacks_free(struct diffstacks *d);     /* NULL-tolerant */

/* All of it in one call: the runs of each side (nr_old or nr_new may be 0,
 * an empty side). 0, -ENOMEM or -EIO. */
int diffstacks_write_folded(FILE *out, const struct stacks *const *old, size_t nr_old,
			    const struct stacks *const *new_, size_t nr_new,
			    const struct diffstacks_opts *o);

#endif
