/* SPDX-License-Identifier: MIT */
/*
 * Command-line option tables. A command describes its options once, in an
 * array of struct opt ending with OPT_END; opts_parse() fills the fields the
 * table points at (members of the command's own options struct, never
 * globals) and opts_usage() prints the help text generated from the same
 * table, so the two cannot disagree.
 *
 * Accepted forms: -x, -xVALUE, -x VALUE, --long, --long=VALUE, --long VALUE,
 * grouped short flags (-qv), --no-LONG for flags marked OPT_NEGATABLE, and
 * "--" to end the options. Parsing stops at the first non-option argument
 * (the workload's command line follows it).
 */
#ifndef PREC_COMMON_OPTS_H
#define PREC_COMMON_OPTS_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"

enum opt_type {
	OPT_END = 0,
	OPT_FLAG,       /* bool *, set true (false for --no-LONG) */
	OPT_COUNT,      /* int *, incremented (-v -v) */
	OPT_INT,        /* long *, decimal, range-checked against min/max */
	OPT_STRING,     /* const char **, the argument as given */
	OPT_LIST,       /* a callback for repeatable or parsed options */
};

#define OPT_NEGATABLE 0x1
/* OPT_INT whose value is optional: -z5, --level=5 or -z 5 (a number in
 * range as the next argument) give one; a bare -z or --level sets `def`
 * (perf's -z). */
#define OPT_OPTARG 0x2

struct opt;
typedef int (*opt_cb)(const struct opt *o, const char *arg, struct err *err);

struct opt {
	enum opt_type type;
	char short_name;        /* 0 if none */
	const char *long_name;  /* NULL if none */
	void *dest;
	const char *argname;    /* for the help; NULL for flags */
	const char *help;
	long min, max;          /* OPT_INT range */
	long def;               /* OPT_INT with OPT_OPTARG: the value when none is given */
	unsigned flags;
	opt_cb cb;              /* OPT_LIST: called with the argument */
};

#define OPTION_FLAG(s, l, d, h) \
	{ .type = OPT_FLAG, .short_name = (s), .long_name = (l), .dest = (d), .help = (h) }
#define OPTION_NEGFLAG(s, l, d, h) \
	{ .type = OPT_FLAG, .short_name = (s), .long_name = (l), .dest = (d), .help = (h), \
	  .flags = OPT_NEGATABLE }
#define OPTION_COUNT(s, l, d, h) \
	{ .type = OPT_COUNT, .short_name = (s), .long_name = (l), .dest = (d), .help = (h) }
#define OPTION_STRING(s, l, d, a, h) \
	{ .type = OPT_STRING, .short_name = (s), .long_name = (l), .dest = (d), .argname = (a), \
	  .help = (h) }
#define OPTION_INT(s, l, d, a, h, lo, hi) \
	{ .type = OPT_INT, .short_name = (s), .long_name = (l), .dest = (d), .argname = (a), \
	  .help = (h), .min = (lo), .max = (hi) }
#define OPTION_INT_OPTARG(s, l, d, a, h, lo, hi, dflt) \
	{ .type = OPT_INT, .short_name = (s), .long_name = (l), .dest = (d), .argname = (a), \
	  .help = (h), .min = (lo), .max = (hi), .def = (dflt), .flags = OPT_OPTARG }
#define OPTION_CALLBACK(s, l, d, a, h, f) \
	{ .type = OPT_LIST, .short_name = (s), .long_name = (l), .dest = (d), .argname = (a), \
	  .help = (h), .cb = (f) }
/* A callback whose value is optional: called with NULL when none is given. */
#define OPTION_CALLBACK_OPTARG(s, l, d, a, h, f) \
	{ .type = OPT_LIST, .short_name = (s), .long_name = (l), .dest = (d), .argname = (a), \
	  .help = (h), .cb = (f), .flags = OPT_OPTARG }
#define OPTION_END { .type = OPT_END }

/* Parse argv[1..]; returns the index of the first argument that is not an
 * option (argc if none), or a negative code with a message naming the
 * option. */
int opts_parse(const struct opt *table, int argc, char **argv, struct err *err);
void opts_usage(FILE *f, const char *usage_line, const struct opt *table);
/* A command line that takes options only: a bad option or a stray argument
 * is one line "PROG: ..." plus the usage on stderr (exit status 129); with
 * *help (set by the table) the usage goes to stdout (status 0). Returns -1
 * when the command goes on, else the exit status to return. */
int opts_parse_command(const struct opt *table, int argc, char **argv, const char *prog,
		       const char *usage_line, const bool *help);

#endif
