/* SPDX-License-Identifier: MIT */
/*
 * prep: reports on prec.data files. This release reads and dumps the
 * container (--dump-raw); the perf-style report, script and stat report
 * build on the same reader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/opts.h"
#include "dump.h"

#define PREP_VERSION "0.1"

struct prep_opts {
	const char *input;
	bool dump_raw;
	bool help;
	bool version;
};

static const char usage_line[] = "prep [--dump-raw] [-i FILE]\n       prep dump [-i FILE]";

int main(int argc, char **argv)
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

	if (argc > 1 && !strcmp(argv[1], "dump")) {
		o.dump_raw = true;
		argv++;
		argc--;
	}
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
	if (!o.dump_raw) {
		fprintf(stderr, "prep: no report mode given: this version reads files with --dump-raw\n");
		opts_usage(stderr, usage_line, table);
		return 129;
	}
	if (dump_file(o.input, stdout, &err)) {
		fprintf(stderr, "prep: %s\n", err.msg);
		return 1;
	}
	return 0;
}
