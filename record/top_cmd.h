/* SPDX-License-Identifier: MIT */
/* prec top's front end: its command line (top_opts.c) and its loop (top.c). */
#ifndef PREC_RECORD_TOP_CMD_H
#define PREC_RECORD_TOP_CMD_H

#include "record.h"
#include "report/views/top.h"

struct top_cmd {
	struct record_opts ro;          /* what is opened and how it is sampled */
	struct top_opts to;             /* what the view makes of it */
	const char *freq, *callgraph, *delay, *duration, *record;
	const char *count, *entries_arg, *count_filter, *max_stack, *mmap_pages;
	const char *event_args[64];     /* -e, parsed with the other values */
	size_t nr_event_args;
	bool fp, all_cpus, stdio, children, no_children;
	long entries;                   /* -E, 0: from the terminal */
	char cg_record[64];             /* --call-graph's recording part */
	double delay_s, duration_s;     /* -d, --duration (0: none) */
};

/* argv into c (exits for --help): 0, or 129 after printing the error. */
int top_parse_args(struct top_cmd *c, int argc, char **argv);

#endif
