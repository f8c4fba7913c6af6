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
#include <stdio.h>

#include "report/aggregate/stacks.h"

struct flame_opts {
	const char *title;      /* NULL: "Flame Graph" */
	const char *subtitle;   /* e.g. the event and the input; may be NULL */
	bool no_comm;           /* no command-name level under the root */
	bool icicle;            /* root at the top (the page can toggle it) */
	int width;              /* SVG: pixels (default 1200) */
};

/* 0, -ENOMEM, or -EIO when out reports a write error. */
int flame_write_html(FILE *out, const struct stacks *s, const struct flame_opts *o);
int flame_write_svg(FILE *out, const struct stacks *s, const struct flame_opts *o);

#endif
