/* SPDX-License-Identifier: MIT */
/*
 * prep: reports on prec.data files: `prep [report]` (perf report --stdio),
 * `prep script` (perf script), `prep dump` / `--dump-raw` (every block and
 * record), `prep export` and `prep flamegraph` (files for other viewers).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/opts.h"
#include "archive.h"
#include "dump.h"
#include "export.h"
#include "report.h"
#include "stat.h"

#define PREP_VERSION "0.1"

struct prep_opts {
	const char *input;
	bool dump_raw;
	bool help;
	bool version;
};

static const char usage_line[] = "prep dump [-i FILE]";

static int cmd_dump(int argc, char **argv)
{
	struct prep_opts o = { .input = "prec.data" };
	const struct opt table[] = {
		OPTION_STRING('i', "input", &o.input, "file", "input file name (default: prec.data)"),
		OPTION_FLAG('D', "dump-raw", &o.dump_raw, "print every block and record of the file"),
		OPTION_FLAG('h', "help", &o.help, "show this help"),
		OPTION_FLAG(0, "version", &o.version, "show the version"),
		OPTION_END,
	};
	struct err err = { 0 };
	int first;

	o.dump_raw = true;
	first = opts_parse(table, argc, argv, &err);
	if (first < 0) {
		fprintf(stderr, "prep: %s\n", err.msg);
		opts_usage(stderr, usage_line, table);
		return 129;
	}
	if (o.help) {
		opts_usage(stdout, usage_line, table);
		return 0;
	}
	if (o.version) {
		printf("prep %s\n", PREP_VERSION);
		return 0;
	}
	if (first < argc) {
		fprintf(stderr, "prep: unexpected argument '%s'\n", argv[first]);
		return 129;
	}
	if (dump_file(o.input, stdout, &err)) {
		fprintf(stderr, "prep: %s\n", err.msg);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "dump"))
		return cmd_dump(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "report"))
		return cmd_report(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "archive"))
		return cmd_archive(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "script"))
		return cmd_script(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "export"))
		return cmd_export(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "flamegraph"))
		return cmd_flamegraph(argc - 1, argv + 1);
	if (argc > 2 && !strcmp(argv[1], "stat") && !strcmp(argv[2], "report"))
		return cmd_stat_report(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "--version")) {
		printf("prep %s\n", PREP_VERSION);
		return 0;
	}
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-D") || !strcmp(argv[i], "--dump-raw"))
			return cmd_dump(argc, argv);
	return cmd_report(argc, argv);
}
