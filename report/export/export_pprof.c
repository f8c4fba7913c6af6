/* SPDX-License-Identifier: MIT */
/*
 * prep export pprof: its options and its run (the writer is pprof.c); the
 * inputs, filters and symbol options are the report's (load.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "export_int.h"
#include "pprof.h"
#include "report/core/progress.h"

size_t pprof_options(struct export_opts *o, struct opt *t)
{
	/* the list --pprof has had from the start: the shared input and filter
	 * block of the loader will take the place of its part of it */
	const struct opt v[] = {
		OPTION_STRING('o', "output", &o->output, "file", "output file, - for the standard output (default: prec.pb.gz)"),
		LOAD_OPT_INPUTS(&o->lo),
		OPTION_STRING('e', "event", &o->event, "name", "the event to export (default: the first with samples)"),
		OPTION_INT('z', "compression-level", &o->level, "n", "gzip level, 0 (none) to 9 (default 1)", 0, 9),
		LOAD_OPT_WALL(&o->lo),
		LOAD_SYMBOL_OPTIONS(&o->lo),
		LOAD_SAMPLE_FILTER_OPTIONS(&o->lo),
		OPTION_COUNT('q', "quiet", &o->quiet, "no summary or warnings"),
		OPTION_FLAG('h', "help", &o->help, "show this help"),
	};

	_Static_assert(sizeof(v) / sizeof(v[0]) <= EXPORT_MAX_OPTS - 2, "EXPORT_MAX_OPTS");
	memcpy(t, v, sizeof(v));
	return sizeof(v) / sizeof(v[0]);
}

/* The summary line (and a note when the input had other events). */
static void summary(const struct export_opts *o, const struct pprof_result *r)
{
	const char *out = strcmp(o->output, "-") ? o->output : "the standard output";

	if (r->nr_events > 1 && !o->event)
		fprintf(stderr, "prep: note: %s has %zu events, exported '%s' (choose one with --event)\n",
			o->lo.inputs[0], r->nr_events, r->event);
	fprintf(stderr, "prep: wrote %s: %" PRIu64 " samples of %s in %zu stacks, %zu locations, "
		"%zu functions, %zu mappings (%.1f KiB)\n", out, r->samples, r->event, r->nr_samples,
		r->nr_locations, r->nr_functions, r->nr_mappings, (double)r->bytes / 1024.0);
}

int pprof_run(const struct exporter *x, struct export_opts *o)
{
	struct pprof_opts po = { .output = o->output, .event = o->event, .level = (int)o->level };
	struct pprof_result r;
	struct err err = { 0 };
	struct progress pg;
	struct load *l;
	int ret = 0;

	(void)x;
	progress_install(&pg, &o->lo);
	l = load_new(&o->lo, &err);
	if (!l || pprof_export(l, &po, &r, &err)) {
		fprintf(stderr, "prep: %s\n", err.msg);
		ret = 1;
	} else if (!o->quiet) {
		summary(o, &r);
	}
	load_free(l);
	return ret;
}
