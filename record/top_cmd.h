/* SPDX-License-Identifier: MIT */
/* prec top's front end: its command line (top_opts.c), its loop (top.c)
 * and the browser's drain and refresh hook (top_tui.c). */
#ifndef PREC_RECORD_TOP_CMD_H
#define PREC_RECORD_TOP_CMD_H

#include <termios.h>

#include "record.h"
#include "report/views/top.h"

struct top_cmd {
	struct record_opts ro;          /* what is opened and how it is sampled */
	struct top_opts to;             /* what the view makes of it */
	const char *freq, *callgraph, *delay, *duration, *record;
	const char *count, *entries_arg, *count_filter, *max_stack, *mmap_pages;
	const char *event_args[64];     /* -e, parsed with the other values */
	size_t nr_event_args;
	bool fp, all_cpus, stdio, tui, children, no_children;
	bool browse;                    /* the browser, else text (--stdio, no terminal) */
	long entries;                   /* -E, 0: from the terminal */
	char cg_record[64];             /* --call-graph's recording part */
	double delay_s, duration_s;     /* -d, --duration (0: none) */
};

/* argv into c (exits for --help): 0, or 129 after printing the error. */
int top_parse_args(struct top_cmd *c, int argc, char **argv);

/* A run: the recording's session, the view, the terminal. */
struct top_run {
	struct top_cmd *c;
	struct session s;
	struct top *view;
	struct record_sink sink;        /* the view's (the stdio loop drains into it) */
	bool keys;                      /* stdin is a terminal: q quits, z toggles -z */
	struct termios saved;           /* its mode before */
	bool quit;
};

/* top_tui.c: the browser (the view's top_browse), once the run has
 * started, until q, Ctrl-C, SIGINT, SIGTERM or --duration, with the rings
 * drained on a thread of their own meanwhile. 0, or negative with err
 * set. */
int top_tui_run(struct top_run *r, struct err *err);

#endif
