/* SPDX-License-Identifier: MIT */
/*
 * prep export --pprof: the command line (the writer is pprof.c); the
 * inputs, filters and symbol options are the report's (load.h).
 */
#include "export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "common/opts.h"
#include "report/core/load.h"
#include "report/core/progress.h"
#include "pprof.h"

struct export_opts {
	bool pprof;
	const char *output;
	const char *event;
	long level;
	int quiet;
	bool help;
};

static const char usage_line[] = "prep export --pprof [-i FILE] [-o FILE] [--event NAME] [options]";

static int export_pprof(struct load *l, const struct export_opts *eo)
{
	struct pprof_opts po = {
		.output = eo->output ? eo->output : "prec.pb.gz",
		.event = eo->event,
		.level = (int)eo->level,
	};
	struct pprof_result r;
	struct err err = { 0 };

	if (pprof_export(l, &po, &r, &err)) {
		fprintf(stderr, "prep: %s\n", err.msg);
		return 1;
	}
	if (eo->quiet)
		return 0;
	if (r.nr_events > 1 && !eo->event)
		fprintf(stderr, "prep: note: %s has %zu events, exported '%s' (choose one with --event)\n",
			l->opts.inputs[0], r.nr_events, r.event);
	fprintf(stderr, "prep: wrote %s: %" PRIu64 " samples of %s in %zu stacks, %zu locations, "
		"%zu functions, %zu mappings (%.1f KiB)\n",
		po.output[0] == '-' && !po.output[1] ? "the standard output" : po.output, r.samples,
		r.event, r.nr_samples, r.nr_locations, r.nr_functions, r.nr_mappings,
		(double)r.bytes / 1024.0);
	return 0;
}

int cmd_export_pprof(int argc, char **argv)
{
	struct load_opts lo = { 0 };
	struct load l;
	struct export_opts eo = { .level = 1 };
	struct progress pg;
	const struct opt table[] = {
		OPTION_FLAG(0, "pprof", &eo.pprof, "gzipped profile.proto, for go tool pprof, Pyroscope, Parca"),
		OPTION_STRING('o', "output", &eo.output, "file", "output file, - for the standard output (default: prec.pb.gz)"),
		LOAD_OPT_INPUTS(&lo),
		OPTION_STRING('e', "event", &eo.event, "name", "the event to export (default: the first with samples)"),
		OPTION_INT('z', "compression-level", &eo.level, "n", "gzip level, 0 (none) to 9 (default 1)", 0, 9),
		LOAD_SYMBOL_OPTIONS(&lo),
		LOAD_SAMPLE_FILTER_OPTIONS(&lo),
		OPTION_COUNT('q', "quiet", &eo.quiet, "no summary or warnings"),
		OPTION_FLAG('h', "help", &eo.help, "show this help"),
		OPTION_END,
	};
	struct err err = { 0 };
	int ret;

	ret = opts_parse_command(table, argc, argv, "prep", usage_line, &eo.help);
	if (ret >= 0)
		return ret;
	if (!eo.pprof) {
		fprintf(stderr, "prep: export: choose a format: --pprof\n");
		opts_usage(stderr, usage_line, table);
		return 129;
	}
	load_opts_default_input(&lo);
	lo.quiet = eo.quiet > 0;
	progress_install(&pg, &lo);
	if (load_init(&l, &lo, &err)) {
		fprintf(stderr, "prep: %s\n", err.msg);
		load_free(&l);
		return 1;
	}
	ret = export_pprof(&l, &eo);
	load_free(&l);
	return ret;
}
