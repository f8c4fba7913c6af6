/* SPDX-License-Identifier: MIT */
/*
 * prep export FORMAT: one table of exporters (name, default output, usage,
 * options, run) behind one command. The older spellings are aliases into
 * the same table: prep flamegraph (here), prep --folded (the report hands
 * its stacks to export_folded_report) and prep export --speedscope|--pprof,
 * whose command line is parsed once with the options of both and then
 * checked against the one chosen, so that it takes what it always took.
 */
#include "export.h"

#include <stdio.h>
#include <string.h>

#include "export_int.h"

static const struct exporter exporters[] = {
	{
		.name = "folded", .output = "-",
		.about = "collapsed stacks, the input of FlameGraph's flamegraph.pl",
		.args = "[-i FILE] [-o FILE] [--with LIST] [options]",
		.options = folded_options, .run = folded_run,
	}, {
		.name = "pprof", .flag = "pprof", .output = "prec.pb.gz",
		.about = "gzipped profile.proto, for go tool pprof, Pyroscope, Parca",
		.args = "[-i FILE] [-o FILE] [--event NAME] [options]",
		.options = pprof_options, .run = pprof_run,
	}, {
		.name = "speedscope", .flag = "speedscope", .output = "prec.speedscope.json",
		.about = "speedscope's JSON file format (https://www.speedscope.app)",
		.args = "[-i FILE] [-o FILE] [options]",
		.options = speedscope_options, .run = speedscope_run,
	}, {
		.name = "flamegraph", .output = "flamegraph.html",
		.about = "a flame graph: an interactive HTML page, or SVG; --diff OLD NEW: what changed",
		.args = "[-i FILE] [-o FILE.html] [--svg] [options]",
		.args2 = "--diff [OLD[,OLD...]] NEW[,NEW...] [-o FILE.html] [--alpha P] [options]",
		.max_args = 2,
		.options = flame_options, .run = flame_run,
	}, {
		.name = "difffolded", .output = "-",
		.about = "two-column collapsed stacks of OLD and NEW, as FlameGraph's difffolded.pl",
		.args = "[OLD[,OLD...]] NEW[,NEW...] [-o FILE] [--normalize] [--with LIST] [options]",
		.max_args = 2,
		.options = difffolded_options, .run = difffolded_run,
	},
};

#define NR_EXPORTERS (sizeof(exporters) / sizeof(exporters[0]))

static const char export_usage[] = "prep export FORMAT [-i FILE] [-o FILE] [options]";
/* the usage of the old spellings */
static const char old_usage[] = "prep export --speedscope|--pprof [-i FILE] [-o FILE] [options]";

static const struct exporter *find_exporter(const char *name)
{
	for (size_t i = 0; i < NR_EXPORTERS; i++)
		if (!strcmp(exporters[i].name, name))
			return &exporters[i];
	return NULL;
}

/* "folded, pprof, speedscope, flamegraph or difffolded" */
static void print_formats(FILE *f)
{
	for (size_t i = 0; i < NR_EXPORTERS; i++)
		fprintf(f, "%s%s", !i ? "" : i + 1 < NR_EXPORTERS ? ", " : " or ", exporters[i].name);
}

/* "CMD ARGS", and "   or: CMD ARGS2" on a line of its own */
static void usage_line(char *buf, size_t n, const char *cmd, const struct exporter *x)
{
	if (x->args2)
		snprintf(buf, n, "%s %s\n   or: %s %s", cmd, x->args, cmd, x->args2);
	else
		snprintf(buf, n, "%s %s", cmd, x->args);
}

static void init_opts(struct export_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->level = 1;
	o->width = 1200;
}

/* The options of x, ended; old: its older spelling, its flag first. */
static void build_table(const struct exporter *x, struct export_opts *o, bool old, struct opt *t)
{
	size_t n = 0;

	if (old)
		t[n++] = (struct opt)OPTION_FLAG(0, x->flag, !strcmp(x->flag, "pprof") ?
						 &o->pprof : &o->speedscope, x->about);
	n += x->options(o, t + n);
	t[n] = (struct opt)OPTION_END;
}

/* The command line is parsed: default the inputs and the output, run. */
static int run(const struct exporter *x, struct export_opts *o)
{
	o->inputs_given = o->lo.nr_inputs > 0;
	load_opts_default_input(&o->lo);
	o->lo.quiet = o->quiet > 0;
	if (!o->output)
		o->output = x->output;
	return x->run(x, o);
}

/* Options with arguments among them (x->max_args at most): -1 when the
 * command goes on, else the exit status (messages printed), as
 * opts_parse_command. After "--" every word is an argument. */
static int parse_with_args(const struct exporter *x, const struct opt *t, struct export_opts *o,
			   int argc, char **argv, const char *usage)
{
	struct err err = { 0 };
	int at = 0, first;

	for (;;) {
		/* argv[at] stands for the command name: the argument before */
		first = opts_parse(t, argc - at, argv + at, &err);
		if (first < 0) {
			fprintf(stderr, "prep: %s\n", err.msg);
			opts_usage(stderr, usage, t);
			return 129;
		}
		first += at;
		if (first >= argc)
			break;
		if (!strcmp(argv[first - 1], "--")) {
			for (; first < argc; first++)
				if (o->nr_args++ < 3)
					o->args[o->nr_args - 1] = argv[first];
			break;
		}
		if (o->nr_args++ < 3)
			o->args[o->nr_args - 1] = argv[first];
		at = first;
	}
	if (o->help) {
		opts_usage(stdout, usage, t);
		return 0;
	}
	if (o->nr_args > x->max_args) {
		fprintf(stderr, "prep: unexpected argument '%s' (OLD and NEW are two: several runs "
			"a side are a comma list)\n", o->args[x->max_args]);
		return 129;
	}
	return -1;
}

/* prep export NAME ... and prep flamegraph ...: cmd names it in the usage */
static int run_format(const struct exporter *x, const char *cmd, int argc, char **argv)
{
	struct export_opts o;
	struct opt t[EXPORT_MAX_OPTS];
	char usage[512];
	int ret;

	init_opts(&o);
	build_table(x, &o, false, t);
	usage_line(usage, sizeof(usage), cmd, x);
	if (x->max_args)
		ret = parse_with_args(x, t, &o, argc, argv, usage);
	else
		ret = opts_parse_command(t, argc, argv, "prep", usage, &o.help);
	return ret >= 0 ? ret : run(x, &o);
}

/* ---- help ------------------------------------------------------------------- */

static void format_usage(FILE *f, const struct exporter *x, bool old)
{
	struct export_opts o;
	struct opt t[EXPORT_MAX_OPTS];
	char usage[512], cmd[64];

	init_opts(&o);
	build_table(x, &o, old, t);
	snprintf(cmd, sizeof(cmd), "prep export %s", x->name);
	if (old && strcmp(x->name, "pprof"))
		snprintf(usage, sizeof(usage), "%s", old_usage);
	else if (old)
		snprintf(usage, sizeof(usage), "prep export --%s %s", x->flag, x->args);
	else
		usage_line(usage, sizeof(usage), cmd, x);
	opts_usage(f, usage, t);
}

/* prep export --help: the formats, then each format's options */
static void export_help(FILE *f)
{
	struct export_opts o;
	struct opt old[NR_EXPORTERS + 1];
	size_t n = 0;

	fprintf(f, "usage: %s\n\nThe formats are:\n", export_usage);
	for (size_t i = 0; i < NR_EXPORTERS; i++)
		fprintf(f, "   %-12s %s (default: %s)\n", exporters[i].name, exporters[i].about,
			strcmp(exporters[i].output, "-") ? exporters[i].output : "standard output");
	fprintf(f, "\nSee 'prep export FORMAT --help' for the options of one format. Older spellings,\n"
		"kept: prep --folded[=LIST], prep flamegraph, and the flags at the end.\n");
	for (size_t i = 0; i < NR_EXPORTERS; i++) {
		fputc('\n', f);
		format_usage(f, &exporters[i], false);
	}
	/* a table for the help only: nothing parses it */
	init_opts(&o);
	for (size_t i = 0; i < NR_EXPORTERS; i++)
		if (exporters[i].flag)
			old[n++] = (struct opt)OPTION_FLAG(0, exporters[i].flag, &o.help,
							   exporters[i].about);
	old[n] = (struct opt)OPTION_END;
	fputc('\n', f);
	opts_usage(f, old_usage, old);
}

/* ---- the older spelling: prep export --speedscope|--pprof ----------------- */

/* --pprof and --speedscope never had each other's own options */
static const char *foreign_option(const struct export_opts *o)
{
	if (o->pprof) {
		if (o->speedscope)
			return "--speedscope";
		if (o->lo.f.dsos)
			return "--dso";
		if (o->lo.f.syms)
			return "--symbols";
		if (o->no_inline)
			return "--no-inline";
		return o->max_stack ? "--max-stack" : NULL;
	}
	if (o->pprof_e)
		return "-e";
	return o->level >= 0 ? "--compression-level" : NULL;
}

/* An error line, then the older usage of the format. */
static int old_error(const struct exporter *x, const char *fmt, const char *what)
{
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
	format_usage(stderr, x, true);
	return 129;
}

static int old_spelling(int argc, char **argv)
{
	struct export_opts o;
	struct opt t[EXPORT_MAX_OPTS] = {
		OPTION_FLAG(0, "speedscope", &o.speedscope, "speedscope"),
		OPTION_FLAG(0, "pprof", &o.pprof, "pprof"),
		COMMON_OPTIONS(o),
		OPTION_STRING('e', NULL, &o.pprof_e, "name", "--pprof: the event"),
		OPTION_INT('z', "compression-level", &o.level, "n", "--pprof: the gzip level", 0, 9),
		OPTION_END,
	};
	const struct exporter *x;
	struct err err = { 0 };
	int first;

	init_opts(&o);
	o.level = -1;   /* not given */
	first = opts_parse(t, argc, argv, &err);
	x = find_exporter(o.pprof ? "pprof" : "speedscope");
	if (first < 0)
		return old_error(x, "prep: %s", err.msg);
	if ((o.pprof || o.speedscope) && foreign_option(&o))
		return old_error(x, "prep: unknown option '%s'", foreign_option(&o));
	if (o.help && !o.pprof && !o.speedscope) {
		export_help(stdout);
		return 0;
	}
	if (o.help) {
		format_usage(stdout, x, true);
		if (!o.pprof) {
			/* --speedscope --help: --pprof's help follows, as it always did */
			printf("\n");
			format_usage(stdout, find_exporter("pprof"), true);
		}
		return 0;
	}
	if (first < argc) {
		fprintf(stderr, "prep: unexpected argument '%s'\n", argv[first]);
		return 129;
	}
	if (!o.pprof && !o.speedscope) {
		fprintf(stderr, "prep: export: which format? --speedscope or --pprof, or prep export "
			"FORMAT (");
		print_formats(stderr);
		fprintf(stderr, ")\n");
		return 129;
	}
	if (o.pprof_e)
		o.event = o.pprof_e;
	if (o.level < 0)
		o.level = 1;
	return run(x, &o);
}

/* ---- the commands ----------------------------------------------------------- */

int cmd_export(int argc, char **argv)
{
	const struct exporter *x;
	char cmd[64];

	if (argc < 2 || argv[1][0] == '-')
		return old_spelling(argc, argv);
	x = find_exporter(argv[1]);
	if (!x) {
		fprintf(stderr, "prep: export: unknown format '%s' (known: ", argv[1]);
		print_formats(stderr);
		fprintf(stderr, ")\n");
		return 129;
	}
	snprintf(cmd, sizeof(cmd), "prep export %s", x->name);
	return run_format(x, cmd, argc - 1, argv + 1);
}

int cmd_flamegraph(int argc, char **argv)
{
	return run_format(find_exporter("flamegraph"), "prep flamegraph", argc, argv);
}
