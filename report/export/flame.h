/* SPDX-License-Identifier: MIT */
/*
 * prep flamegraph: the stacks merged into one call tree (root "all", then
 * the command names, then the frames root first; siblings in name order, as
 * in a FlameGraph), written as a self-contained interactive HTML page
 * (report/export/flamegraph.html: canvas drawing, no network) or as a static SVG.
 * Widths are sample counts.
 */
#ifndef PREC_REPORT_FLAME_H
#define PREC_REPORT_FLAME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/aggregate/stacks.h"

struct annot_pass;

struct flame_opts {
	const char *title;      /* NULL: "Flame Graph" */
	const char *subtitle;   /* e.g. the event and the input; may be NULL */
	bool no_comm;           /* no command-name level under the root */
	bool icicle;            /* root at the top (the page can toggle it) */
	int width;              /* SVG: pixels (default 1200) */
	struct annot_pass *annot;       /* the page's annotate pane data; NULL: none */
	int event;              /* the load event index of the stacks (for annot) */
	bool period;            /* widths by period in ns (offcpu-time, wall-time), not samples */
};

/* The annotate pane's bounds: functions with at least this share (in
 * thousandths) of the samples as their own, the hottest first, at most
 * this many, each with at most this many instructions, and at most this
 * many instructions in all (the last function cut to fit). prep-flamegraph(1) says so. */
#define FLAME_ANNOT_MIN_PERMILLE 10
#define FLAME_ANNOT_MAX_FUNCS 30
#define FLAME_ANNOT_MAX_INSNS 2000
#define FLAME_ANNOT_MAX_TOTAL 10000

/* The frames' labels as the page numbers them. */
struct flame_labels {
	const char *const *names;
	const uint8_t *kinds;           /* enum sframe_kind; larger: not a function */
	const struct dso *const *dsos;
	size_t nr;
	struct annot_pass *annot;
	int event;
	bool period;            /* the page's widths are periods (flame_opts.period) */
};

/* ,"annot":{...} into the page's data (flame_annot.c): per label index,
 * {"n":SAMPLES,"lines":[[PCT,"ADDR","TEXT"] or [LINE,"SOURCE"],...],
 * "cut":BOOL} or {"n":SAMPLES,"why":"REASON"}; with period, n is the
 * function's own period, in the unit of total (the root's width) and of
 * the page. 0, -ENOMEM. */
int flame_write_annot(FILE *out, const struct flame_labels *fl, uint64_t total);

/* 0, -ENOMEM, or -EIO when out reports a write error. */
int flame_write_html(FILE *out, const struct stacks *s, const struct flame_opts *o);

/* The differential page (prep flamegraph --diff, flame_diff.c): the tree of
 * two sides merged by name path (difftree.h), drawn with NEW's widths,
 * each frame coloured by its change (dt: the marks of difftree_test); of
 * o, the title, subtitle and icicle. 0, -ENOMEM or -EIO. */
struct difftree;
struct difftest;
int flame_write_diff_html(FILE *out, const struct difftree *t, const struct difftest *dt,
			  const struct flame_opts *o);
int flame_write_svg(FILE *out, const struct stacks *s, const struct flame_opts *o);

#endif
