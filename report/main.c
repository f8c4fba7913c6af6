/* SPDX-License-Identifier: MIT */
/*
 * prep: reports on prec.data files. One table of commands (git's
 * commands[]) dispatches and is what `prep help` prints; `prep [options]`
 * is `prep report [options]` (perf report --stdio).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/opts.h"
#include "report/views/annotate.h"
#include "report/views/archive.h"
#include "report/views/diff.h"
#include "report/views/dump.h"
#include "report/export/export.h"
#include "report/views/report.h"
#include "report/stat/stat.h"

struct dump_opts {
	const char *input;
	bool dump_raw;
	bool help;
	bool version;
};

static const char dump_usage[] = "prep dump [-i FILE]";

static int cmd_dump(int argc, char **argv)
{
	struct dump_opts o = { .input = "prec.data" };
	const struct opt table[] = {
		OPTION_STRING('i', "input", &o.input, "file", "input file name (default: prec.data)"),
		OPTION_FLAG('D', "dump-raw", &o.dump_raw, "print every block and record of the file"),
		OPTION_FLAG('h', "help", &o.help, "show this help"),
		OPTION_FLAG(0, "version", &o.version, "show the version"),
		OPTION_END,
	};
	struct err err = { 0 };
	int ret = opts_parse_command(table, argc, argv, "prep", dump_usage, &o.help);

	if (ret >= 0)
		return ret;
	if (o.version) {
		printf("prep %s\n", PREP_VERSION);
		return 0;
	}
	if (dump_file(o.input, stdout, &err)) {
		fprintf(stderr, "prep: %s\n", err.msg);
		return 1;
	}
	return 0;
}

static int cmd_stat(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "report"))
		return cmd_stat_report(argc - 1, argv + 1);
	fprintf(stderr, "prep stat: %s%s%suse 'prep stat report' to print a counting file "
		"(prec stat record writes one)\n", argc > 1 ? "unknown command '" : "",
		argc > 1 ? argv[1] : "", argc > 1 ? "': " : "");
	return 129;
}

static int cmd_help(int argc, char **argv);

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "report", cmd_report, "the profile, as perf report --stdio prints it (the default)" },
	{ "script", cmd_script, "one line per sample, as perf script prints them" },
	{ "annotate", cmd_annotate, "per-instruction profiles of the hottest symbols, as perf annotate --stdio" },
	{ "export", cmd_export, "write the samples for another tool: folded, pprof, speedscope, flamegraph or difffolded" },
	{ "diff", cmd_diff, "compare profiles as perf diff does, and tell a change from the noise" },
	{ "flamegraph", cmd_flamegraph, "write a flame graph: an interactive HTML page, or SVG; --diff OLD NEW: what changed" },
	{ "archive", cmd_archive, "embed what the report needs of the binaries hit; perf.data to prec.data" },
	{ "dump", cmd_dump, "every block and record of a file, decoded (also prep -D)" },
	{ "stat", cmd_stat, "'prep stat report': the counts of prec stat record, as perf stat prints them" },
	{ "help", cmd_help, "this list, or 'prep help COMMAND': the options of a command" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* The list of commands, then the report's own options. */
static int print_help(void)
{
	char *av[] = { "prep", "--help", NULL };

	printf("usage: prep [--version] [--help] [COMMAND] [<options>]\n\n"
	       "The prep commands are:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		printf("   %-12s %s\n", commands[i].name, commands[i].help);
	printf("\nSee 'prep help COMMAND' (or 'prep COMMAND --help') for a command's options.\n"
	       "Without a command, prep is prep report:\n\n");
	fflush(stdout);
	return cmd_report(2, av);
}

static int cmd_help(int argc, char **argv)
{
	const struct command *c;
	char *av[4] = { NULL };

	if (argc < 2)
		return print_help();
	c = find_command(argv[1]);
	if (!c) {
		fprintf(stderr, "prep: '%s' is not a prep command (see 'prep help')\n", argv[1]);
		return 129;
	}
	/* prep help stat: prep stat report --help */
	av[0] = argv[1];
	av[1] = c->fn == cmd_stat ? "report" : "--help";
	av[2] = c->fn == cmd_stat ? "--help" : NULL;
	return c->fn(c->fn == cmd_stat ? 3 : 2, av);
}

/* The progress line (LOG_PROGRESS) on the terminal: each one overwrites
 * the last, padded to cover a longer one; an empty one erases it. */
static void show_progress(int *shown, const char *msg)
{
	int n;

	if (!*msg) {
		if (*shown)
			fprintf(stderr, "\r%*s\r", *shown, "");
		*shown = 0;
		return;
	}
	n = fprintf(stderr, "\rprep: %s", msg);
	if (n > 0 && n - 1 < *shown)
		fprintf(stderr, "%*s", *shown - (n - 1), "");
	if (n > 0 && n - 1 > *shown)
		*shown = n - 1;         /* without the \r */
}

/* What the report code says (common/log.h): "prep: warning: ..." */
static void on_log(void *ctx, enum log_level level, const char *msg)
{
	if (level == LOG_PROGRESS)
		show_progress(ctx, msg);
	else
		fprintf(stderr, "prep: %s%s\n", log_level_tag(level), msg);
}

int main(int argc, char **argv)
{
	int progress_shown = 0;         /* columns of the progress line shown */
	const struct command *c;

	/* the progress line only on a terminal */
	log_set_handler(on_log, &progress_shown,
			isatty(STDERR_FILENO) ? LOG_ALL : LOG_ALL & ~LOG_MASK(LOG_PROGRESS));
	if (argc < 2) {
		print_help();
		return 1;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return print_help();
	c = find_command(argv[1]);
	if (c)
		return c->fn(argc - 1, argv + 1);
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-D") || !strcmp(argv[i], "--dump-raw"))
			return cmd_dump(argc, argv);
	return cmd_report(argc, argv);
}
