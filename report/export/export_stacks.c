/* SPDX-License-Identifier: MIT */
/*
 * The exporters that write named stacks (stacks.h): folded, speedscope and
 * the flame graph. Each reads the inputs through the report's loader into
 * a histogram, takes one event (speedscope: every event), builds the
 * stacks and writes them to the output file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "export.h"
#include "export_int.h"
#include "flame.h"
#include "folded.h"
#include "report/aggregate/stacks.h"
#include "report/core/offcpu.h"
#include "report/core/progress.h"
#include "report/views/annotate_lines.h"
#include "speedscope.h"

#define NR_OPTS(v) (sizeof(v) / sizeof((v)[0]))

/* What a stacks exporter reads and writes. */
struct job {
	struct export_opts *o;
	struct load *l;         /* the reading, built from o->lo */
	struct hist h;
	struct stacks st;
	FILE *out;
	bool annotate;          /* also count per address for the annotate pane */
	struct annot_pass *ap;
};

/* The loader's callback with the annotate pass: each sample to both. */
static int job_sample(void *ctx, struct load *l, const struct load_sample *s)
{
	struct job *j = ctx;
	int ret = load_add_to_hist(&j->h, l, s);

	return ret ? ret : annot_pass_sample(j->ap, l, s);
}

/* Which events go out: all, one, or one if any has samples (else none). */
enum pick { ALL_EVENTS, ONE_EVENT, ONE_EVENT_OR_NONE };

/* The one event to write (stacks_pick_event), with a note when others have
 * samples too (note: its prefix). -1 when no event has samples (err says
 * so); -2 when the event named is not there (printed). */
static int one_event(const struct load *l, const struct hist *h, const char *name, bool quiet,
		     const char *note, struct err *err)
{
	int ev = stacks_pick_event(l, h, name, err);

	if (ev < 0 && name) {
		fprintf(stderr, "prep: --event: %s\n", err->msg);
		return -2;
	}
	if (ev < 0 || name || quiet)
		return ev;
	for (size_t i = 0; i < h->nr_stacks; i++)
		if (h->stacks[i].event != ev) {
			fprintf(stderr, "prep: %sevent '%s' only (--event NAME for another)\n", note,
				load_event_name(l, ev));
			break;
		}
	return ev;
}

/* Read the inputs into j->h and build the stacks of the events chosen (src:
 * with source files and lines). 0, or 1 with the message printed. */
static int job_read(struct job *j, enum pick how, bool src)
{
	struct export_opts *o = j->o;
	struct hist_opts ho = { .callchain = true, .inline_frames = !o->no_inline,
				.max_stack = (int)o->max_stack, .symfs = o->lo.symfs };
	struct stacks_opts so = { .event = -1, .inline_frames = !o->no_inline, .src = src };
	struct err err = { 0 };
	struct progress pg;

	ho.keys[ho.nr_keys++] = SORT_SYM;
	progress_install(&pg, &o->lo);
	if (!(j->l = load_new(&o->lo, &err)) ||
	    hist_init(&j->h, &ho, load_machine(j->l), load_symbolizer(j->l))) {
		fprintf(stderr, "prep: %s\n", err.msg);
		return 1;
	}
	if (j->annotate && !(j->ap = annot_pass_new(j->l))) {
		fprintf(stderr, "prep: out of memory\n");
		return 1;
	}
	if (j->ap ? load_run(j->l, job_sample, NULL, j, &err)
		  : load_run(j->l, load_add_to_hist, NULL, &j->h, &err)) {
		fprintf(stderr, "prep: %s\n", err.msg);
		return 1;
	}
	if (j->ap && annot_pass_group(j->ap)) {
		fprintf(stderr, "prep: out of memory\n");
		return 1;
	}
	so.l = j->l;
	if (how != ALL_EVENTS || o->event)
		so.event = one_event(j->l, &j->h, o->event, o->quiet > 0, "", &err);
	if (so.event == -2)
		return 1;
	if (so.event == -1 && how == ONE_EVENT) {
		fprintf(stderr, "prep: %s\n", err.msg);
		return 1;
	}
	if (so.event == -1 && how == ONE_EVENT_OR_NONE)
		return 0;       /* no samples: nothing to write */
	if (hist_resolve(&j->h) || stacks_build(&j->st, &j->h, &so)) {
		fprintf(stderr, "prep: out of memory\n");
		return 1;
	}
	return 0;
}

FILE *export_open(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f)
		fprintf(stderr, "prep: cannot create '%s': %s\n", path, strerror(errno));
	return f;
}

int export_close(FILE *out, const char *path, int ret)
{
	if (!ret && fflush(out))
		ret = -EIO;
	if (out != stdout && fclose(out) && !ret)
		ret = -EIO;
	if (ret)
		fprintf(stderr, "prep: %s: %s\n", path, ret == -ENOMEM ? "out of memory" : "write error");
	return ret ? 1 : 0;
}

/* The output file, "-" for standard output. 0, or 1 with the message printed. */
static int job_open(struct job *j)
{
	j->out = export_open(j->o->output);
	return j->out ? 0 : 1;
}

/* Close the output; ret: the writer's. The exit status (messages printed). */
static int job_close(struct job *j, int ret)
{
	ret = export_close(j->out, j->o->output, ret);
	j->out = NULL;
	return ret;
}

static void job_free(struct job *j)
{
	annot_pass_free(j->ap);
	stacks_free(&j->st);
	hist_free(&j->h);
	load_free(j->l);
}

/* ---- folded --------------------------------------------------------------- */

/* offcpu-time and wall-time are durations: weighed by them unless --with
 * count (or --folded=count) asks for the number of samples. */
static void by_period(const struct load *l, int event, struct folded_opts *fo)
{
	if (!fo->count && offcpu_weighted_event(load_event_name(l, event)))
		fo->period = true;
}

size_t folded_options(struct export_opts *o, struct opt *t)
{
	const struct opt v[] = {
		OPTION_STRING(0, "with", &o->with, "list", "period, count, pid, tid, kernel, inline, no-comm (as prep --folded=LIST)"),
		LOAD_OPT_WALL(&o->lo),
		COMMON_OPTIONS(*o),
	};

	_Static_assert(NR_OPTS(v) <= EXPORT_MAX_OPTS - 2, "EXPORT_MAX_OPTS");
	memcpy(t, v, sizeof(v));
	return NR_OPTS(v);
}

int folded_run(const struct exporter *x, struct export_opts *o)
{
	struct folded_opts fo = { 0 };
	struct job j = { .o = o };
	struct err err = { 0 };
	int ret;

	(void)x;
	if (folded_parse(o->with, &fo, &err)) {
		fprintf(stderr, "prep: --with: %s\n", err.msg);
		return 129;
	}
	ret = job_read(&j, ONE_EVENT_OR_NONE, false);
	if (!ret)
		ret = job_open(&j);
	if (!ret && j.st.nr_stacks)
		by_period(j.l, j.st.stacks[0].event, &fo);
	if (!ret)
		ret = job_close(&j, folded_write(j.out, &j.st, &fo));
	job_free(&j);
	return ret;
}

int export_folded_report(struct load *l, struct hist *h, const char *event, bool quiet,
			 const struct folded_opts *fo)
{
	struct stacks_opts so = { .inline_frames = h->opts.inline_frames, .l = l };
	struct folded_opts fw = *fo;
	struct stacks st = { 0 };
	struct err err = { 0 };
	int ret;

	so.event = one_event(l, h, event, quiet, "--folded: ", &err);
	if (so.event < 0)
		return so.event == -2;  /* no samples: no lines */
	ret = stacks_build(&st, h, &so);
	if (ret) {
		fprintf(stderr, "prep: out of memory\n");
		stacks_free(&st);
		return 1;
	}
	by_period(l, so.event, &fw);
	ret = folded_write(stdout, &st, &fw);
	if (!ret && fflush(stdout))
		ret = -EIO;
	if (ret)
		fprintf(stderr, "prep: --folded: %s\n", ret == -EIO ? "write error" : "out of memory");
	stacks_free(&st);
	return ret ? 1 : 0;
}

/* ---- speedscope ------------------------------------------------------------- */

size_t speedscope_options(struct export_opts *o, struct opt *t)
{
	const struct opt v[] = { LOAD_OPT_WALL(&o->lo), COMMON_OPTIONS(*o) };

	_Static_assert(NR_OPTS(v) <= EXPORT_MAX_OPTS - 2, "EXPORT_MAX_OPTS");
	memcpy(t, v, sizeof(v));
	return NR_OPTS(v);
}

int speedscope_run(const struct exporter *x, struct export_opts *o)
{
	struct job j = { .o = o };
	int ret = job_read(&j, ALL_EVENTS, true);

	(void)x;
	if (!ret)
		ret = job_open(&j);
	if (!ret)
		ret = job_close(&j, speedscope_write(j.out, j.l, &j.st, o->lo.inputs[0], "prep"));
	job_free(&j);
	return ret;
}

/* ---- flame graph ------------------------------------------------------------ */

size_t flame_options(struct export_opts *o, struct opt *t)
{
	const struct opt v[] = {
		OPTION_FLAG(0, "svg", &o->svg, "a static SVG image instead of the interactive page"),
		OPTION_STRING(0, "title", &o->title, "text", "the title (default \"Flame Graph\")"),
		OPTION_FLAG(0, "icicle", &o->icicle, "root at the top (the page can switch)"),
		OPTION_FLAG(0, "no-comm", &o->no_comm, "no level of command names under the root"),
		OPTION_INT(0, "width", &o->width, "px", "SVG width (default 1200)", 200, 100000),
		OPTION_FLAG(0, "no-annotate", &o->no_annotate, "page: no annotate pane (no per-instruction data)"),
		OPTION_FLAG(0, "diff", &o->diff, "a differential page: NEW coloured by its change from OLD"),
		DIFF_SIDE_OPTIONS(*o),
		OPTION_STRING(0, "alpha", &o->alpha, "p", "--diff: false discovery rate of the change marks (default 0.05)"),
		OPTION_STRING(0, "min-share", &o->min_share, "pct", "--diff: test frames with at least this share, both sides' mean (default 0.5)"),
		LOAD_OPT_WALL(&o->lo),
		COMMON_OPTIONS(*o),
	};

	_Static_assert(NR_OPTS(v) <= EXPORT_MAX_OPTS - 2, "EXPORT_MAX_OPTS");
	memcpy(t, v, sizeof(v));
	return NR_OPTS(v);
}

int flame_run(const struct exporter *x, struct export_opts *o)
{
	struct flame_opts fo = { .title = o->title, .icicle = o->icicle, .no_comm = o->no_comm,
				 .width = (int)o->width };
	struct job j = { .o = o };
	char sub[512];
	int ret;

	if (o->diff || o->base || o->new_list)
		return flame_diff_run(x, o);
	if (o->nr_args) {
		fprintf(stderr, "prep: unexpected argument '%s' (a differential: --diff OLD NEW)\n",
			o->args[0]);
		return 129;
	}
	if (o->alpha || o->min_share) {
		fprintf(stderr, "prep: %s '%s': only with --diff\n", o->alpha ? "--alpha" : "--min-share",
			o->alpha ? o->alpha : o->min_share);
		return 129;
	}
	/* with --svg, the default output is an SVG file */
	if (o->svg && o->output == x->output)
		o->output = "flamegraph.svg";
	j.annotate = !o->svg && !o->no_annotate;
	ret = job_read(&j, ONE_EVENT, false);
	if (!ret)
		ret = job_open(&j);
	if (!ret) {
		fo.annot = j.ap;
		fo.event = j.st.nr_stacks ? j.st.stacks[0].event : 0;
		fo.period = offcpu_weighted_event(load_event_name(j.l, fo.event));
		snprintf(sub, sizeof(sub), "%s, %s",
			 load_event_name(j.l, j.st.nr_stacks ? j.st.stacks[0].event : 0), o->lo.inputs[0]);
		fo.subtitle = sub;
		ret = job_close(&j, o->svg ? flame_write_svg(j.out, &j.st, &fo) :
					     flame_write_html(j.out, &j.st, &fo));
	}
	job_free(&j);
	return ret;
}
