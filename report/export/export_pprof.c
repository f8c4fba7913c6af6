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
			l->inputs[0], r.nr_events, r.event);
	fprintf(stderr, "prep: wrote %s: %" PRIu64 " samples of %s in %zu stacks, %zu locations, "
		"%zu functions, %zu mappings (%.1f KiB)\n",
		po.output[0] == '-' && !po.output[1] ? "the standard output" : po.output, r.samples,
		r.event, r.nr_samples, r.nr_locations, r.nr_functions, r.nr_mappings,
		(double)r.bytes / 1024.0);
	return 0;
}

int cmd_export_pprof(int argc, char **argv)
{
	struct load l = { 0 };
	struct export_opts eo = { .level = 1 };
	struct progress pg;
	const struct opt table[] = {
		OPTION_FLAG(0, "pprof", &eo.pprof, "gzipped profile.proto, for go tool pprof, Pyroscope, Parca"),
		OPTION_STRING('o', "output", &eo.output, "file", "output file, - for the standard output (default: prec.pb.gz)"),
		OPTION_CALLBACK('i', "input", &l, "file", "input file (default prec.data); repeat to merge", load_opt_input),
		OPTION_STRING('e', "event", &eo.event, "name", "the event to export (default: the first with samples)"),
		OPTION_INT('z', "compression-level", &eo.level, "n", "gzip level, 0 (none) to 9 (default 1)", 0, 9),
		OPTION_STRING(0, "symfs", &l.symfs, "dir", "look for binaries under this folder"),
		OPTION_FLAG(0, "no-embedded", &l.no_embedded, "ignore what the file embedded of its binaries: read them on this machine"),
		OPTION_STRING(0, "kallsyms", &l.kallsyms_path, "file", "kernel symbols from this file (default: the recording's copy, else /proc/kallsyms)"),
		OPTION_STRING(0, "comm", &l.f.comms, "list", "only these commands"),
		OPTION_STRING(0, "pid", &l.f.pids, "list", "only these process ids"),
		OPTION_STRING(0, "tid", &l.f.tids, "list", "only these thread ids"),
		OPTION_STRING('C', "cpu", &l.f.cpus, "list", "only these CPUs (0-2,5)"),
		OPTION_STRING(0, "time", &l.f.time, "start,end", "only samples in this time range (seconds, or 10%-20%)"),
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
	if (!l.nr_inputs)
		l.inputs[l.nr_inputs++] = "prec.data";
	l.quiet = eo.quiet > 0;
	progress_install(&pg, &l);
	if (load_init(&l, &err)) {
		fprintf(stderr, "prep: %s\n", err.msg);
		load_free(&l);
		return 1;
	}
	ret = export_pprof(&l, &eo);
	load_free(&l);
	return ret;
}
