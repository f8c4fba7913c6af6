/* SPDX-License-Identifier: MIT */
/*
 * prep diff: the command. `prep diff [OLD] [NEW...]` as perf diff (OLD
 * defaults to prec.data.old, NEW to prec.data), each argument one file or
 * a comma list of runs of one version (--base LIST and --new LIST spell
 * the same), options checked before any file is read; then every file
 * read (diff_read.c), each event of the baseline's first file matched in
 * the others, tabled (diff_calc.c) and printed (diff_print.c).
 */
#include "diff.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/opts.h"
#include "report/core/filter.h"
#include "report/core/runs.h"
#include "report/export/diffread.h"
#include "report/export/diffstacks.h"
#include "diff_int.h"
#include "dump.h"

struct diff_opts {
	struct load_opts lo;
	const char *base;
	const char *news[DIFF_MAX_SIDES];
	size_t nr_news;
	const char *pos[DIFF_MAX_SIDES];
	size_t nr_pos;
	const char *compute, *sort, *percentage, *percent_limit, *sep, *alpha, *correction;
	const char *comms;              /* perf diff's --comms: --comm */
	const char *dsos;               /* perf diff's -d, --dsos: --dso */
	const char *comm;               /* --comm (the fragment's), or --comms */
	long order;
	bool order_set;
	bool baseline_only, period, formula, quiet, dump, force, error, significant, help;
	bool folded, normalize;
};

static const char usage_line[] = "prep diff [OLD] [NEW...] [options]  "
	"(each a file or a comma list of runs; or --base LIST --new LIST)";

static int cb_new(const struct opt *o, const char *arg, struct err *err)
{
	struct diff_opts *d = o->dest;

	if (d->nr_news + 1 >= DIFF_MAX_SIDES)
		return err_set(err, -EINVAL, "--new: at most %d new sides", DIFF_MAX_SIDES - 1);
	d->news[d->nr_news++] = arg;
	return 0;
}

static int cb_order(const struct opt *o, const char *arg, struct err *err)
{
	struct diff_opts *d = o->dest;
	char *end;

	errno = 0;
	d->order = strtol(arg, &end, 10);
	if (errno || end == arg || *end || d->order < 0 || d->order >= DIFF_MAX_SIDES)
		return err_set(err, -EINVAL, "--order '%s': not a column number (0 to %d)", arg,
			       DIFF_MAX_SIDES - 1);
	d->order_set = true;
	return 0;
}

/* ---- the sides ------------------------------------------------------------ */

static int make_sides(struct diff_opts *d, struct run_list *sides, size_t *nr, struct err *err)
{
	const char *args[DIFF_MAX_SIDES], *what[DIFF_MAX_SIDES];
	/* one argument alone is NEW, compared with the default OLD (perf's) */
	bool base_given = d->base || d->nr_pos >= 2 || (d->nr_pos == 1 && d->nr_news);
	size_t n = 0, p = 0, want = 1 + d->nr_pos - (!d->base && base_given) + d->nr_news;
	const char *old = NULL, *new_ = NULL;

	if (want > DIFF_MAX_SIDES)
		return err_set(err, -EINVAL, "%zu sides to compare: at most %d (a baseline and %d "
			       "new ones)", want, DIFF_MAX_SIDES, DIFF_MAX_SIDES - 1);
	if (runs_defaults(base_given, want > 1, &old, &new_))
		log_msg(LOG_NOTE, "no prec.data.old here: comparing perf.data.old with %s",
			want > 1 ? (d->nr_pos > 0 ? d->pos[0] : d->news[0]) : new_);
	what[n] = d->base ? "--base" : "OLD";
	args[n++] = d->base ? d->base : base_given ? d->pos[p++] : old;
	while (p < d->nr_pos) {
		what[n] = "NEW";
		args[n++] = d->pos[p++];
	}
	for (size_t i = 0; i < d->nr_news; i++) {
		what[n] = "--new";
		args[n++] = d->news[i];
	}
	if (n == 1) {
		what[n] = "NEW";
		args[n++] = new_;
	}
	*nr = n;
	for (size_t i = 0; i < n; i++)
		if (run_list_parse(&sides[i], what[i], args[i], err))
			return -EINVAL;
	return 0;
}

/* ---- option values ----------------------------------------------------------- */

/* A bad option value: one line on stderr, exit status 129. */
__attribute__((format(printf, 1, 2)))
static int bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "prep diff: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 129;
}

static int parse_compute(const char *arg, struct diff_calc_opts *c)
{
	char *end;

	if (!arg || !strcmp(arg, "delta-abs"))
		c->compute = DC_DELTA_ABS;
	else if (!strcmp(arg, "delta"))
		c->compute = DC_DELTA;
	else if (!strcmp(arg, "ratio"))
		c->compute = DC_RATIO;
	else if (!strncmp(arg, "wdiff:", 6)) {
		c->compute = DC_WDIFF;
		c->w1 = strtoll(arg + 6, &end, 10);
		if (end == arg + 6 || *end != ',' || !c->w1)
			return bad("--compute '%s': wrong weights, use wdiff:W1,W2 (two integers, not 0)", arg);
		c->w2 = strtoll(end + 1, &end, 10);
		if (!c->w2 || *end || !arg[6])
			return bad("--compute '%s': wrong weights, use wdiff:W1,W2 (two integers, not 0)", arg);
	} else if (!strcmp(arg, "cycles")) {
		return bad("--compute '%s': needs branch stacks with cycle counts in every file "
			   "(perf record -b), which prep diff does not read: use delta, delta-abs, "
			   "ratio or wdiff", arg);
	} else {
		return bad("--compute '%s': not a computation method (delta, delta-abs, ratio, "
			   "wdiff:W1,W2)", arg);
	}
	return 0;
}

static int parse_sort(const char *list, struct diff_calc_opts *c)
{
	struct err err = { 0 };

	if (!sort_keys_parse(list, c->keys, &c->nr_keys, DIFF_MAX_KEYS, NULL, NULL, &err))
		return 0;
	fprintf(stderr, "prep diff: --sort: %s\n", err.msg);
	return 129;
}

static int parse_numbers(const struct diff_opts *d, struct diff_calc_opts *c)
{
	char *end;

	if (d->percentage && strcmp(d->percentage, "relative") && strcmp(d->percentage, "absolute"))
		return bad("--percentage must be relative or absolute, not '%s'", d->percentage);
	/* perf diff 6.1's default: the percentages of everything read */
	c->absolute = !d->percentage || !strcmp(d->percentage, "absolute");
	if (d->percent_limit) {
		c->percent_limit = strtod(d->percent_limit, &end);
		if (end == d->percent_limit || (*end && strcmp(end, "%")) || c->percent_limit < 0 ||
		    c->percent_limit > 100)
			return bad("--percent-limit '%s' is not a percentage", d->percent_limit);
	}
	c->alpha = 0.05;
	if (d->alpha) {
		c->alpha = strtod(d->alpha, &end);
		if (end == d->alpha || *end || !(c->alpha > 0) || !(c->alpha < 1))
			return bad("--alpha '%s': not a level between 0 and 1 (e.g. 0.05)", d->alpha);
	}
	c->correction = DCORR_HOLM;
	if (d->correction && !strcmp(d->correction, "bh"))
		c->correction = DCORR_BH;
	else if (d->correction && !strcmp(d->correction, "none"))
		c->correction = DCORR_NONE;
	else if (d->correction && strcmp(d->correction, "holm"))
		return bad("--correction '%s': not holm, bh or none", d->correction);
	if (d->sep && !*d->sep)
		return bad("--field-separator '%s': the separator is empty", d->sep);
	return 0;
}

/* The noise columns test shares: perf's other columns are not theirs. */
static int check_noise(const struct diff_opts *d, const struct diff_calc_opts *c)
{
	const char *why = "with the noise columns (several runs a side, --error, --significant, "
			  "--alpha or --correction)";

	if (!c->noise)
		return 0;
	if (c->compute == DC_RATIO || c->compute == DC_WDIFF)
		return bad("--compute %s: not %s, which test shares: use delta or delta-abs",
			   d->compute, why);
	if (d->period)
		return bad("--period: not %s (their columns are shares)", why);
	if (d->formula)
		return bad("--formula: not %s (their columns are shares)", why);
	return 0;
}

/* perf's elision: a --dso, --comm or --symbols list of one name leaves
 * its column out, unless that leaves none */
static void elide(const struct diff_opts *d, const struct diff_calc_opts *c,
		  struct diff_print_opts *po)
{
	const struct load_filter_opts *f = &d->lo.f;
	size_t left = 0;

	for (size_t k = 0; k < c->nr_keys; k++) {
		enum sort_key_id id = c->keys[k];
		const char *list = id == SORT_DSO ? f->dsos : id == SORT_COMM ? d->comm :
				   id == SORT_SYM ? f->syms : NULL;

		po->elide[k] = list && !strchr(list, ',');
		left += !po->elide[k];
	}
	if (!left)
		memset(po->elide, 0, sizeof(po->elide));
}

/* The options into the calculation and printing: 0, or 129 with the
 * message printed. */
static int setup(struct diff_opts *d, struct diff_calc_opts *c, struct diff_print_opts *po,
		 bool several_runs)
{
	struct load_opts lo = d->lo;
	struct err err = { 0 };
	int ret;

	if ((ret = parse_compute(d->compute, c)) || (ret = parse_sort(d->sort ? d->sort : "dso,sym", c)) ||
	    (ret = parse_numbers(d, c)))
		return ret;
	/* the parallelism key: each sample's level, from the context switches */
	d->lo.parallelism = sort_keys_have(c->keys, c->nr_keys, SK_PARALLEL);
	c->order = d->order_set ? (unsigned)d->order : 1;
	c->baseline_only = d->baseline_only;
	c->noise = several_runs || d->error || d->significant || d->alpha || d->correction;
	if ((ret = check_noise(d, c)))
		return ret;
	if ((d->comms && filter_parse_names("--comms", d->comms, NULL, &err)) ||
	    (d->dsos && filter_parse_names("--dsos", d->dsos, NULL, &err)) ||
	    load_opts_check(&lo, &err)) {
		fprintf(stderr, "prep diff: %s\n", err.msg);
		return 129;
	}
	po->calc = c;
	po->show_period = d->period;
	po->show_formula = d->formula;
	po->quiet = d->quiet;
	po->significant = d->significant;
	po->sep = d->sep;
	po->dso_list = d->lo.f.dsos != NULL;
	elide(d, c, po);
	return 0;
}

/* ---- the comparison ---------------------------------------------------------- */

/* prec --overwrite's tracking event takes no samples: no section (perf
 * skips empty events too) */
static bool empty_dummy(const struct devent *ev)
{
	return !strncmp(ev->name, "dummy", 5) && !ev->period_all;
}

static int compare_event(const struct devent *ev0, struct drun *const *runs,
			 const struct run_list *sides, size_t nr_sides,
			 const struct diff_print_opts *po, bool first)
{
	struct dside ds[DIFF_MAX_SIDES];
	struct dtable t;
	size_t r = 0;

	memset(ds, 0, sizeof(ds));
	for (size_t s = 0; s < nr_sides; s++) {
		for (size_t k = 0; k < sides[s].nr; k++, r++) {
			const struct devent *ev = s || k ? drun_match_event(runs[r], ev0) : ev0;

			if (ev)
				ds[s].run[ds[s].nr++] = ev;
		}
	}
	if (diff_table(ds, nr_sides, po->calc, &t))
		return -ENOMEM;
	diff_print_event(stdout, ev0->name, &t, po, first);
	diff_table_free(&t);
	return 0;
}

static int run_diff(struct diff_opts *d, const struct run_list *sides, size_t nr_sides,
		    struct diff_calc_opts *c, struct diff_print_opts *po)
{
	struct diff_read_opts ro = { .lo = d->lo, .comms = d->comm, .pids = d->lo.f.pids,
				     .tids = d->lo.f.tids, .nr_keys = c->nr_keys };
	const char *paths[DIFF_MAX_SIDES * DIFF_MAX_RUNS];
	struct drun *runs[DIFF_MAX_SIDES * DIFF_MAX_RUNS], *all;
	struct err err = { 0 };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = 0;
	bool first = true;
	int ret;

	for (size_t s = 0; s < nr_sides; s++)
		for (size_t k = 0; k < sides[s].nr; k++)
			paths[n++] = sides[s].path[k];
	memcpy(ro.keys, c->keys, sizeof(ro.keys));
	ro.lo.f.comms = ro.lo.f.pids = ro.lo.f.tids = NULL;
	ro.lo.quiet = d->quiet;
	ro.lo.ip_only = true;           /* perf diff compares self shares */
	ro.threads = cpus > 0 ? (unsigned)cpus : 1;
	all = calloc(n, sizeof(*all));
	if (!all) {
		fprintf(stderr, "prep diff: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		runs[i] = &all[i];
	ret = diff_read(paths, n, &ro, all, &err);
	if (ret)
		fprintf(stderr, "prep diff: %s\n", err.msg);
	else if (!all[0].nr_ev) {
		/* the events are the baseline's: none (a file cut short before
		 * its first event) leaves nothing to compare */
		fprintf(stderr, "prep diff: %s has no events: nothing to compare\n", paths[0]);
		ret = 1;
	}
	for (size_t e = 0; !ret && e < all[0].nr_ev; e++) {
		if (empty_dummy(&all[0].ev[e]))
			continue;
		ret = compare_event(&all[0].ev[e], runs, sides, nr_sides, po, first);
		first = false;
		if (ret)
			fprintf(stderr, "prep diff: out of memory\n");
	}
	for (size_t i = 0; i < n; i++)
		drun_free(&all[i]);
	free(all);
	return ret ? 1 : 0;
}

/* -D: every file's blocks and records, as prep dump prints them */
static int dump_all(const struct run_list *sides, size_t nr_sides)
{
	struct err err = { 0 };

	for (size_t s = 0; s < nr_sides; s++) {
		for (size_t k = 0; k < sides[s].nr; k++) {
			if (dump_file(sides[s].path[k], stdout, &err)) {
				fprintf(stderr, "prep diff: %s\n", err.msg);
				return 1;
			}
		}
	}
	return 0;
}

/* --folded: difffolded.pl's two-column stacks of OLD and NEW (each side's
 * runs summed), the recordings read one at a time (report/export/diffread.h) */
static int diff_folded(struct diff_opts *d, const struct run_list *sides, size_t nr_sides)
{
	struct diffstacks_opts dopts = { .normalize = d->normalize };
	struct load_opts lo = d->lo;
	struct diffread_opts ro = { .lo = &lo };
	struct diffstacks *ds;
	bool noted = d->quiet;
	int ret = 0;

	if (nr_sides != 2) {
		fprintf(stderr, "prep diff: --folded compares two sides, OLD and one NEW (%zu given)\n",
			nr_sides);
		return 129;
	}
	lo.f.comms = d->comm;
	lo.quiet = d->quiet;
	ds = diffstacks_new(&dopts);
	if (!ds) {
		fprintf(stderr, "prep diff: out of memory\n");
		return 1;
	}
	for (size_t s = 0; s < 2 && !ret; s++)
		for (size_t k = 0; k < sides[s].nr && !ret; k++) {
			struct diffrun r;
			struct err err = { 0 };

			if (diffrun_read(&r, &ro, sides[s].path[k], &err)) {
				fprintf(stderr, "prep diff: %s\n", err.msg);
				ret = 1;
				break;
			}
			/* one event's stacks: say so where the files have others
			 * (an off-CPU recording's offcpu-time) */
			if (r.other_events && !noted) {
				fprintf(stderr, "prep diff: --folded: event '%s' only (prep export "
					"difffolded --event NAME for another)\n",
					load_event_name(r.l, r.event));
				noted = true;
			}
			if (diffstacks_add_run(ds, s ? DIFF_NEW : DIFF_OLD, &r.st, r.durations)) {
				fprintf(stderr, "prep diff: out of memory\n");
				ret = 1;
			}
			diffrun_free(&r);
		}
	if (!ret && (diffstacks_write(stdout, ds) || fflush(stdout))) {
		fprintf(stderr, "prep diff: writing the stacks failed\n");
		ret = 1;
	}
	diffstacks_free(ds);
	return ret;
}

/* ---- the command line -------------------------------------------------------- */

/* Options anywhere among the files (as perf takes them): each stretch of
 * options parsed, each file argument kept. -1 to go on, else the exit
 * status (the message and usage printed). */
static int parse_args(const struct opt *table, int argc, char **argv, struct diff_opts *d)
{
	struct err err = { 0 };
	int i = 0;

	for (;;) {
		int next = opts_parse(table, argc - i, argv + i, &err);
		bool dashes;

		if (next < 0) {
			fprintf(stderr, "prep diff: %s\n", err.msg);
			opts_usage(stderr, usage_line, table);
			return 129;
		}
		next += i;
		dashes = next > i + 1 && !strcmp(argv[next - 1], "--");
		for (; next < argc; next++) {
			if (d->nr_pos == DIFF_MAX_SIDES) {
				fprintf(stderr, "prep diff: more than %d files or lists to compare\n",
					DIFF_MAX_SIDES);
				return 129;
			}
			d->pos[d->nr_pos++] = argv[next];
			if (!dashes)
				break;
		}
		if (next >= argc)
			break;
		i = next;
	}
	if (d->help) {
		opts_usage(stdout, usage_line, table);
		return 0;
	}
	return -1;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts d = { 0 };
	struct diff_calc_opts c = { 0 };
	struct diff_print_opts po = { 0 };
	struct run_list sides[DIFF_MAX_SIDES] = { { 0 } };
	char sort_help[320], names[256];
	const struct opt table[] = {
		OPTION_FLAG('b', "baseline-only", &d.baseline_only, "only entries of the baseline that a new file has too"),
		OPTION_STRING('c', "compute", &d.compute, "method", "delta, delta-abs (default), ratio or wdiff:W1,W2"),
		OPTION_FLAG('p', "period", &d.period, "show the period of each entry"),
		OPTION_FLAG('F', "formula", &d.formula, "show the formula of each computed value"),
		OPTION_STRING('s', "sort", &d.sort, "keys", sort_help),
		OPTION_CALLBACK('o', "order", &d, "n", "sort by the column of new file n first (default 1; 0: by baseline)", cb_order),
		OPTION_STRING(0, "percentage", &d.percentage, "relative|absolute", "shares of all samples read (absolute, perf diff's default) or of those the filters keep"),
		OPTION_STRING(0, "percent-limit", &d.percent_limit, "pct", "hide entries whose shares are all under this percentage"),
		OPTION_STRING('t', "field-separator", &d.sep, "sep", "separate the columns with sep, unaligned"),
		OPTION_FLAG('q', "quiet", &d.quiet, "no header lines or warnings"),
		OPTION_STRING(0, "base", &d.base, "list", "the baseline: a file, or a comma list of runs"),
		OPTION_CALLBACK(0, "new", &d, "list", "a new side: a file, or a comma list of runs (repeatable)", cb_new),
		OPTION_FLAG(0, "error", &d.error, "show the noise columns with one run a side too"),
		OPTION_FLAG(0, "significant", &d.significant, "only entries whose change is more than the noise"),
		OPTION_STRING(0, "alpha", &d.alpha, "level", "the significance level of the noise test (default 0.05)"),
		OPTION_STRING(0, "correction", &d.correction, "method", "for testing many entries: holm (default), bh or none"),
		OPTION_STRING(0, "comms", &d.comms, "list", "only these commands (as --comm)"),
		OPTION_STRING('d', "dsos", &d.dsos, "list", "only samples in these shared objects (as --dso)"),
		OPTION_FLAG('f', "force", &d.force, "accepted for perf's sake: prep checks no file ownership"),
		OPTION_FLAG('D', "dump-raw-trace", &d.dump, "print every block and record of the files (prep dump)"),
		OPTION_FLAG(0, "folded", &d.folded, "print OLD's and NEW's stacks as FlameGraph's difffolded.pl does: STACK OLD NEW"),
		OPTION_FLAG(0, "normalize", &d.normalize, "with --folded: scale OLD's counts to NEW's total (difffolded.pl -n)"),
		LOAD_OPT_WALL(&d.lo),
		LOAD_SYMBOL_OPTIONS(&d.lo),
		LOAD_FILTER_OPTIONS(&d.lo),
		OPTION_FLAG('h', "help", &d.help, "show this help"),
		OPTION_END,
	};
	size_t nr_sides = 0, several = 0;
	struct err err = { 0 };
	int ret;

	sort_key_names(names, sizeof(names));
	snprintf(sort_help, sizeof(sort_help), "sort by %s (default dso,sym)", names);
	ret = parse_args(table, argc, argv, &d);
	if (ret >= 0)
		return ret;
	/* perf's spellings stand for the fragment's; --comms and --comm (the
	 * same list) are applied as the files are read, not by the loader */
	if (d.dsos && !d.lo.f.dsos)
		d.lo.f.dsos = d.dsos;
	d.comm = d.lo.f.comms ? d.lo.f.comms : d.comms;
	if (make_sides(&d, sides, &nr_sides, &err)) {
		fprintf(stderr, "prep diff: %s\n", err.msg);
		ret = 129;
		goto out;
	}
	for (size_t s = 0; s < nr_sides; s++) {
		several |= sides[s].nr > 1;
		po.labels[s] = sides[s].label;
	}
	po.nr_sides = nr_sides;
	po.data_files = nr_sides > 2;
	if (d.order_set && (size_t)d.order >= nr_sides) {
		fprintf(stderr, "prep diff: --order %ld: there %s only %zu new file%s (0 to %zu)\n",
			d.order, nr_sides == 2 ? "is" : "are", nr_sides - 1, nr_sides == 2 ? "" : "s",
			nr_sides - 1);
		ret = 129;
		goto out;
	}
	if (d.dump) {
		ret = dump_all(sides, nr_sides);
		goto out;
	}
	if (d.normalize && !d.folded) {
		fprintf(stderr, "prep diff: --normalize goes with --folded\n");
		ret = 129;
		goto out;
	}
	if (d.folded) {
		ret = diff_folded(&d, sides, nr_sides);
		goto out;
	}
	ret = setup(&d, &c, &po, several);
	if (!ret)
		ret = run_diff(&d, sides, nr_sides, &c, &po);
out:
	for (size_t s = 0; s < DIFF_MAX_SIDES; s++)
		run_list_free(&sides[s]);
	return ret;
}
