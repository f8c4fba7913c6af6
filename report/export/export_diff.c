/* SPDX-License-Identifier: MIT */
/*
 * The differentials of prep export: prep flamegraph --diff (the
 * differential flame graph page, flame_diff.c) and prep export difffolded
 * (difffolded.pl's two-column stacks, diffstacks.c). Both take their two
 * sides as perf diff takes its files, [OLD] NEW (default prec.data.old and
 * prec.data; one argument is NEW), or --base OLD and --new NEW; each side a
 * comma list of recordings (runs), read one at a time (diffread.h) and
 * added to the side, so that only one recording is in memory at a time.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "diffread.h"
#include "diffstacks.h"
#include "difftree.h"
#include "export_int.h"
#include "flame.h"
#include "report/core/progress.h"
#include "report/core/runs.h"

#define NR_OPTS(v) (sizeof(v) / sizeof((v)[0]))
/* one side: its recordings */
struct side {
	struct run_list runs;
	char event[64];                 /* the event of its first run */
	uint64_t samples;
};

static void sides_free(struct side s[2])
{
	run_list_free(&s[0].runs);
	run_list_free(&s[1].runs);
}

/* 0, or 129 with the message printed (1 when out of memory) */
static int split(struct side *s, const char *what, const char *list)
{
	struct err err = { 0 };
	int ret = run_list_parse(&s->runs, what, list, &err);

	if (ret)
		fprintf(stderr, "prep: %s\n", err.msg);
	return !ret ? 0 : ret == -ENOMEM ? 1 : 129;
}

/* The two sides from --base, --new and the arguments: perf diff's [OLD]
 * NEW for the sides no option names. 0, or the exit status (printed). */
static int sides(const struct export_opts *o, struct side s[2])
{
	const char *list[2] = { o->base, o->new_list }, *what[2] = { "--base", "--new" };
	const char *dflt[2] = { NULL, NULL };
	size_t nopen = (size_t)!o->base + !o->new_list, a = 0;
	struct err err = { 0 };
	int ret = 0;

	memset(s, 0, 2 * sizeof(*s));
	/* the filters' values, before any file is read */
	if (load_opts_check(&o->lo, &err)) {
		fprintf(stderr, "prep: %s\n", err.msg);
		return 129;
	}
	if (o->inputs_given) {
		fprintf(stderr, "prep: -i: not with a differential (OLD and NEW name the inputs)\n");
		return 129;
	}
	if (o->nr_args > nopen) {
		fprintf(stderr, "prep: unexpected argument '%s' (%s)\n", o->args[nopen],
			nopen ? "--base or --new names the other side" : "--base and --new name both sides");
		return 129;
	}
	if (nopen == 2 && o->nr_args == 1) {
		/* one argument is NEW, as in perf diff */
		list[1] = o->args[a++];
		what[1] = "NEW";
	}
	for (int i = 0; i < 2; i++)
		if (!list[i] && a < o->nr_args) {
			what[i] = i ? "NEW" : "OLD";
			list[i] = o->args[a++];
		}
	/* perf diff's defaults (perf's pair when prec's is not here) */
	if (runs_defaults(list[0] != NULL, list[1] != NULL, &dflt[0], &dflt[1]) && o->quiet <= 0)
		fprintf(stderr, "prep: no prec.data.old here: comparing perf.data.old with %s\n",
			list[1] ? list[1] : dflt[1]);
	for (int i = 0; i < 2; i++)
		if (!list[i]) {
			what[i] = i ? "NEW" : "OLD";
			list[i] = dflt[i];
		}
	for (int i = 0; i < 2 && !ret; i++)
		ret = split(&s[i], what[i], list[i]);
	return ret;
}

typedef int (*add_fn)(void *ctx, enum diff_side side, size_t run, const struct diffrun *r);

/* Read every run of both sides into add. 0, or 1 with the message printed. */
static int read_sides(const struct export_opts *o, struct side s[2], add_fn add, void *ctx)
{
	struct progress pg;
	struct diffread_opts ro = { .lo = &o->lo, .event = o->event, .no_inline = o->no_inline,
				    .max_stack = (int)o->max_stack, .progress = &pg };
	bool noted = o->quiet > 0;

	for (int i = 0; i < 2; i++)
		for (size_t k = 0; k < s[i].runs.nr; k++) {
			struct diffrun r;
			struct err err = { 0 };
			int ret = diffrun_read(&r, &ro, s[i].runs.path[k], &err);

			if (ret) {
				fprintf(stderr, "prep: %s\n", err.msg);
				return 1;
			}
			if (!k)
				snprintf(s[i].event, sizeof(s[i].event), "%s",
					 load_event_name(r.l, r.event));
			if (r.other_events && !noted) {
				fprintf(stderr, "prep: event '%s' only (--event NAME for another)\n",
					load_event_name(r.l, r.event));
				noted = true;
			}
			s[i].samples += r.st.total_count;
			ret = add(ctx, (enum diff_side)i, k, &r);
			diffrun_free(&r);
			if (ret) {
				fprintf(stderr, "prep: out of memory\n");
				return 1;
			}
		}
	if (o->quiet <= 0 && strcmp(s[0].event, s[1].event))
		fprintf(stderr, "prep: OLD's event is '%s', NEW's '%s'\n", s[0].event, s[1].event);
	return 0;
}

/* ---- difffolded ------------------------------------------------------------- */

size_t difffolded_options(struct export_opts *o, struct opt *t)
{
	const struct opt v[] = {
		DIFF_SIDE_OPTIONS(*o),
		OPTION_FLAG('n', "normalize", &o->normalize, "scale OLD's counts to NEW's total (difffolded.pl -n)"),
		OPTION_STRING(0, "with", &o->with, "list", "period, count, pid, tid, kernel, inline, no-comm (as prep export folded)"),
		LOAD_OPT_WALL(&o->lo),
		COMMON_OPTIONS_NO_INPUT(*o),
	};

	_Static_assert(NR_OPTS(v) <= EXPORT_MAX_OPTS - 2, "EXPORT_MAX_OPTS");
	memcpy(t, v, sizeof(v));
	return NR_OPTS(v);
}

static int add_folded(void *ctx, enum diff_side side, size_t run, const struct diffrun *r)
{
	(void)run;
	return diffstacks_add_run(ctx, side, &r->st, r->durations);
}

int difffolded_run(const struct exporter *x, struct export_opts *o)
{
	struct diffstacks_opts dopts = { .normalize = o->normalize };
	struct diffstacks *d = NULL;
	struct side s[2];
	struct err err = { 0 };
	FILE *out;
	int ret;

	(void)x;
	if (folded_parse(o->with, &dopts.fo, &err)) {
		fprintf(stderr, "prep: --with: %s\n", err.msg);
		return 129;
	}
	ret = sides(o, s);
	if (!ret && !(d = diffstacks_new(&dopts))) {
		fprintf(stderr, "prep: out of memory\n");
		ret = 1;
	}
	if (!ret)
		ret = read_sides(o, s, add_folded, d);
	if (!ret)
		ret = (out = export_open(o->output)) ? export_close(out, o->output,
								     diffstacks_write(out, d)) : 1;
	diffstacks_free(d);
	sides_free(s);
	return ret;
}

/* ---- the differential flame graph --------------------------------------------- */

static int add_tree(void *ctx, enum diff_side side, size_t run, const struct diffrun *r)
{
	return difftree_add(ctx, side, run, &r->st, r->durations);
}

/* --alpha: a probability in (0, 1]; --min-share: a percentage, 0 to 100 */
static int parse_number(const char *opt, const char *arg, double lo, bool lo_in, double hi,
			const char *what, double *out)
{
	char *end;
	double a = strtod(arg, &end);

	if (!*arg || *end || !isfinite(a) || a < lo || (!lo_in && a == lo) || a > hi) {
		fprintf(stderr, "prep: %s '%s': %s\n", opt, arg, what);
		return 129;
	}
	*out = a;
	return 0;
}

/* "cpu-clock: OLD a.data (1000 samples) -> NEW b1.data, b2.data (2 runs, 2010 samples)" */
static int subtitle(struct buf *b, const struct side s[2])
{
	char num[96];

	if (buf_append(b, s[1].event, strlen(s[1].event)) || buf_append(b, ": ", 2))
		return -ENOMEM;
	for (int i = 0; i < 2; i++) {
		const char *head = i ? " \u2192 NEW " : "OLD ";

		if (buf_append(b, head, strlen(head)))
			return -ENOMEM;
		for (size_t k = 0; k < s[i].runs.nr; k++)
			if ((k && buf_append(b, ", ", 2)) ||
			    buf_append(b, s[i].runs.path[k], strlen(s[i].runs.path[k])))
				return -ENOMEM;
		if (s[i].runs.nr > 1)
			snprintf(num, sizeof(num), " (%zu runs, %llu samples)", s[i].runs.nr,
				 (unsigned long long)s[i].samples);
		else
			snprintf(num, sizeof(num), " (%llu samples)", (unsigned long long)s[i].samples);
		if (buf_append(b, num, strlen(num)))
			return -ENOMEM;
	}
	return buf_append(b, "", 1);
}

int flame_diff_run(const struct exporter *x, struct export_opts *o)
{
	struct flame_opts fo = { .title = o->title ? o->title : "Differential Flame Graph",
				 .icicle = o->icicle, .no_comm = o->no_comm };
	struct difftree t = { 0 };
	struct difftest dt = { 0 };
	struct buf sub = BUF_INIT;
	struct side s[2];
	double alpha = 0.05, min_share = 0.5;
	FILE *out;
	int ret = 0;

	if (o->svg) {
		fprintf(stderr, "prep: --svg: not with --diff (the differential is a page)\n");
		return 129;
	}
	if ((o->alpha && (ret = parse_number("--alpha", o->alpha, 0, false, 1,
					      "not a probability in (0, 1]", &alpha))) ||
	    (o->min_share && (ret = parse_number("--min-share", o->min_share, 0, true, 100,
						  "not a percentage (0 to 100)", &min_share))))
		return ret;
	if (o->output == x->output)
		o->output = "flamegraph-diff.html";
	if ((ret = sides(o, s)))
		goto out;
	if (difftree_init(&t, s[0].runs.nr, s[1].runs.nr, o->no_comm)) {
		fprintf(stderr, "prep: out of memory\n");
		ret = 1;
		goto out;
	}
	if ((ret = read_sides(o, s, add_tree, &t)))
		goto out;
	if (difftree_test(&t, alpha, min_share / 100, &dt) || subtitle(&sub, s)) {
		fprintf(stderr, "prep: out of memory\n");
		ret = 1;
		goto out;
	}
	fo.subtitle = (const char *)sub.data;
	ret = (out = export_open(o->output)) ?
	      export_close(out, o->output, flame_write_diff_html(out, &t, &dt, &fo)) : 1;
out:
	difftest_free(&dt);
	difftree_free(&t);
	buf_free(&sub);
	sides_free(s);
	return ret;
}
