/* SPDX-License-Identifier: MIT */
/*
 * prep export and prep flamegraph: the command lines. Both read their
 * inputs through the report's loader (load.h), so every input the report
 * reads, and every sample filter it has, serves them too.
 */
#include "export.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/opts.h"
#include "flame.h"
#include "report/aggregate/hist.h"
#include "report/core/load.h"
#include "report/core/progress.h"
#include "speedscope.h"
#include "report/aggregate/stacks.h"

/* What both commands take besides their own options. */
struct export_common {
	struct load_opts lo;
	struct load l;
	const char *output;
	const char *event;
	bool no_inline;
	long max_stack;
	int quiet;
	bool help;
};

#define COMMON_OPTIONS(c) \
	LOAD_OPT_INPUTS(&(c).lo), \
	OPTION_STRING('o', "output", &(c).output, "file", "output file ('-': standard output)"), \
	OPTION_STRING(0, "event", &(c).event, "name", "only this event"), \
	OPTION_FLAG(0, "no-inline", &(c).no_inline, "no frames for inlined functions"), \
	OPTION_INT(0, "max-stack", &(c).max_stack, "n", "use at most n frames of each call chain", 1, 100000), \
	LOAD_SYMBOL_OPTIONS(&(c).lo), \
	LOAD_FILTER_OPTIONS(&(c).lo), \
	OPTION_COUNT('q', "quiet", &(c).quiet, "no warnings"), \
	OPTION_FLAG('h', "help", &(c).help, "show this help")

/* Parse; 0 to go on, else the exit status (help: 0 is returned as -1). */
static int parse(const struct opt *table, const char *usage, struct export_common *c, int argc,
		 char **argv)
{
	struct err err = { 0 };
	int first = opts_parse(table, argc, argv, &err);

	if (first < 0) {
		fprintf(stderr, "prep: %s\n", err.msg);
		opts_usage(stderr, usage, table);
		return 129;
	}
	if (c->help) {
		opts_usage(stdout, usage, table);
		return -1;
	}
	if (first < argc) {
		fprintf(stderr, "prep: unexpected argument '%s'\n", argv[first]);
		return 129;
	}
	load_opts_default_input(&c->lo);
	c->lo.quiet = c->quiet > 0;
	return 0;
}

/* Read the inputs into st: the named event's stacks, or the first event's
 * (all events when all_events and none is named). 0, or 1 with the message
 * printed. */
static int read_stacks(struct export_common *c, struct hist *h, struct stacks *st, bool src,
		       bool all_events)
{
	struct hist_opts ho = { .callchain = true, .inline_frames = !c->no_inline,
				.max_stack = (int)c->max_stack, .symfs = c->lo.symfs };
	struct stacks_opts so = { .inline_frames = !c->no_inline, .src = src, .l = &c->l };
	struct err err = { 0 };
	struct progress pg;

	ho.keys[ho.nr_keys++] = SORT_SYM;
	progress_install(&pg, &c->lo);
	if (load_init(&c->l, &c->lo, &err) ||
	    hist_init(h, &ho, load_machine(&c->l), load_symbolizer(&c->l)) ||
	    load_run(&c->l, load_add_to_hist, NULL, h, &err)) {
		fprintf(stderr, "prep: %s\n", err.msg);
		return 1;
	}
	so.event = all_events && !c->event ? -1 : stacks_pick_event(&c->l, h, c->event, &err);
	if (so.event < 0 && (c->event || !all_events)) {
		fprintf(stderr, "prep: %s%s\n", c->event ? "--event: " : "", err.msg);
		return 1;
	}
	if (!all_events && !c->event && !c->quiet)
		for (size_t i = 0; i < h->nr_stacks; i++)
			if (h->stacks[i].event != so.event) {
				fprintf(stderr, "prep: event '%s' only (--event NAME for another)\n",
					load_event_name(&c->l, so.event));
				break;
			}
	if (hist_resolve(h) || stacks_build(st, h, &so)) {
		fprintf(stderr, "prep: out of memory\n");
		return 1;
	}
	return 0;
}

/* The output file, "-" for standard output. */
static FILE *open_output(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f)
		fprintf(stderr, "prep: cannot create '%s': %s\n", path, strerror(errno));
	return f;
}

static int close_output(FILE *f, const char *path, int ret)
{
	if (!ret && fflush(f))
		ret = -EIO;
	if (f != stdout && fclose(f) && !ret)
		ret = -EIO;
	if (ret)
		fprintf(stderr, "prep: %s: %s\n", path, ret == -ENOMEM ? "out of memory" : "write error");
	return ret ? 1 : 0;
}

static const char export_usage[] = "prep export --speedscope|--pprof [-i FILE] [-o FILE] [options]";

int cmd_export(int argc, char **argv)
{
	struct export_common c = { .output = NULL };
	bool speedscope = false;
	const struct opt table[] = {
		OPTION_FLAG(0, "speedscope", &speedscope, "speedscope's JSON file format (https://www.speedscope.app)"),
		COMMON_OPTIONS(c),
		OPTION_END,
	};
	struct hist h = { 0 };
	struct stacks st = { 0 };
	FILE *out;
	int ret;

	/* pprof's writer has options of its own (export_pprof.c) */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--pprof"))
			return cmd_export_pprof(argc, argv);
	ret = parse(table, export_usage, &c, argc, argv);
	if (ret < 0) {
		/* --pprof has options of its own: its help follows */
		char *av[] = { "export", "--pprof", "--help", NULL };

		printf("\n");
		fflush(stdout);
		return cmd_export_pprof(3, av);
	}
	if (ret)
		return ret;
	if (!speedscope) {
		fprintf(stderr, "prep: export: which format? --speedscope or --pprof\n");
		opts_usage(stderr, export_usage, table);
		return 129;
	}
	if (!c.output)
		c.output = "prec.speedscope.json";
	ret = read_stacks(&c, &h, &st, true, true);
	if (!ret && !(out = open_output(c.output)))
		ret = 1;
	if (!ret)
		ret = close_output(out, c.output,
				   speedscope_write(out, &c.l, &st, c.lo.inputs[0], "prep"));
	stacks_free(&st);
	hist_free(&h);
	load_free(&c.l);
	return ret;
}

static const char flame_usage[] = "prep flamegraph [-i FILE] [-o FILE.html] [--svg] [options]";

int cmd_flamegraph(int argc, char **argv)
{
	struct export_common c = { .output = NULL };
	struct flame_opts fo = { .width = 1200 };
	bool svg = false;
	long width = 1200;
	const struct opt table[] = {
		OPTION_FLAG(0, "svg", &svg, "a static SVG image instead of the interactive page"),
		OPTION_STRING(0, "title", &fo.title, "text", "the title (default \"Flame Graph\")"),
		OPTION_FLAG(0, "icicle", &fo.icicle, "root at the top (the page can switch)"),
		OPTION_FLAG(0, "no-comm", &fo.no_comm, "no level of command names under the root"),
		OPTION_INT(0, "width", &width, "px", "SVG width (default 1200)", 200, 100000),
		COMMON_OPTIONS(c),
		OPTION_END,
	};
	struct hist h = { 0 };
	struct stacks st = { 0 };
	char sub[512];
	FILE *out;
	int ret = parse(table, flame_usage, &c, argc, argv);

	if (ret)
		return ret < 0 ? 0 : ret;
	fo.width = (int)width;
	if (!c.output)
		c.output = svg ? "flamegraph.svg" : "flamegraph.html";
	ret = read_stacks(&c, &h, &st, false, false);
	if (!ret && !(out = open_output(c.output)))
		ret = 1;
	if (!ret) {
		snprintf(sub, sizeof(sub), "%s, %s",
			 load_event_name(&c.l, st.nr_stacks ? st.stacks[0].event : 0), c.lo.inputs[0]);
		fo.subtitle = sub;
		ret = close_output(out, c.output, svg ? flame_write_svg(out, &st, &fo) :
						   flame_write_html(out, &st, &fo));
	}
	stacks_free(&st);
	hist_free(&h);
	load_free(&c.l);
	return ret;
}
