/* SPDX-License-Identifier: MIT */
/*
 * Inside prep export: the options a command line fills (struct
 * export_opts), the table of exporters (struct exporter, in export.c) and
 * the formats' parts of it. Private to report/export.
 */
#ifndef PREC_REPORT_EXPORT_INT_H
#define PREC_REPORT_EXPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/opts.h"
#include "report/core/load.h"

/* What an export's command line sets: the inputs and filters (the loader's
 * fields), what every format takes, and each format's own options. */
struct export_opts {
	struct load_opts lo;     /* the inputs, filters and symbol options */
	const char *output;     /* NULL: the format's default */
	const char *event;      /* NULL: the first event with samples */
	bool no_inline;
	long max_stack;
	int quiet;
	bool help;
	const char *with;       /* folded: period,pid,tid,kernel,inline,no-comm */
	long level;             /* pprof: the gzip level */
	bool svg, icicle, no_comm;      /* flamegraph */
	bool no_annotate;
	const char *title;
	long width;
	/* the old spelling prep export --speedscope|--pprof */
	bool speedscope, pprof;
	const char *pprof_e;    /* its -e (--pprof's short --event) */
	/* differentials: flamegraph --diff, difffolded (export_diff.c) */
	bool diff;
	const char *base, *new_list;    /* --base LIST, --new LIST */
	const char *alpha;              /* flamegraph --diff: --alpha P */
	const char *min_share;          /* and --min-share PCT */
	bool normalize;                 /* difffolded: OLD scaled to NEW's total */
	const char *args[3];            /* the arguments among the options ([OLD] NEW) */
	size_t nr_args;
	bool inputs_given;              /* -i was given (before the default) */
};

/* The input, filter and symbol options, with the output and the event: one
 * block, that the shared option fragment of the loader will replace. */
#define COMMON_OPTIONS(c) \
	LOAD_OPT_INPUTS(&(c).lo), \
	COMMON_OPTIONS_NO_INPUT(c)
/* the same without -i: the differentials name their inputs otherwise */
#define COMMON_OPTIONS_NO_INPUT(c) \
	OPTION_STRING('o', "output", &(c).output, "file", "output file ('-': standard output)"), \
	OPTION_STRING(0, "event", &(c).event, "name", "only this event"), \
	OPTION_FLAG(0, "no-inline", &(c).no_inline, "no frames for inlined functions"), \
	OPTION_INT(0, "max-stack", &(c).max_stack, "n", "use at most n frames of each call chain", 1, 100000), \
	LOAD_SYMBOL_OPTIONS(&(c).lo), \
	LOAD_FILTER_OPTIONS(&(c).lo), \
	OPTION_COUNT('q', "quiet", &(c).quiet, "no warnings"), \
	OPTION_FLAG('h', "help", &(c).help, "show this help")

/* room for any format's options, its old flag and the end */
#define EXPORT_MAX_OPTS 40

/* One format of prep export. */
struct exporter {
	const char *name;       /* prep export NAME */
	const char *flag;       /* the old spelling prep export --FLAG; NULL if none */
	const char *output;     /* the default output file; "-": the standard output */
	const char *about;      /* its line in prep export --help (and the flag's help) */
	const char *args;       /* its usage line after the command */
	const char *args2;      /* a second usage line, NULL if none */
	size_t max_args;        /* arguments it takes among its options (0: none) */
	/* Its options into t (EXPORT_MAX_OPTS - 2 at most, no end); their number. */
	size_t (*options)(struct export_opts *o, struct opt *t);
	/* Read the inputs and write the output (o->output: x->output unless
	 * given; the inputs defaulted). The exit status; messages printed. */
	int (*run)(const struct exporter *x, struct export_opts *o);
};

/* The output file ("-": the standard output), or NULL with the message
 * printed; closed by export_close, given the writer's code: the exit
 * status, a write error printed. */
FILE *export_open(const char *path);
int export_close(FILE *out, const char *path, int ret);

/* The formats' parts of the table (export_stacks.c, export_pprof.c,
 * export_diff.c). */
size_t folded_options(struct export_opts *o, struct opt *t);
size_t speedscope_options(struct export_opts *o, struct opt *t);
size_t flame_options(struct export_opts *o, struct opt *t);
size_t pprof_options(struct export_opts *o, struct opt *t);
size_t difffolded_options(struct export_opts *o, struct opt *t);
int folded_run(const struct exporter *x, struct export_opts *o);
int speedscope_run(const struct exporter *x, struct export_opts *o);
int flame_run(const struct exporter *x, struct export_opts *o);
int pprof_run(const struct exporter *x, struct export_opts *o);
int difffolded_run(const struct exporter *x, struct export_opts *o);
/* flamegraph with --diff, --base or --new (flame_run hands it over) */
int flame_diff_run(const struct exporter *x, struct export_opts *o);
/* The options both differentials take (the sides) and --alpha. */
#define DIFF_SIDE_OPTIONS(c) \
	OPTION_STRING(0, "base", &(c).base, "list", "OLD: recordings, comma-separated (runs of one side)"), \
	OPTION_STRING(0, "new", &(c).new_list, "list", "NEW: recordings, comma-separated (runs of one side)")

#endif
