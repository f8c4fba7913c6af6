/* SPDX-License-Identifier: MIT */
/*
 * prec top's command line: perf top's options (perf-top(1)) into the
 * recording's struct record_opts and the view's struct top_opts
 * (report/views/top.h), checked before anything opens.
 */
#include "top_cmd.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/opts.h"

#define DEFAULT_DELAY_S 2.0     /* perf top's -d */

/* -e: parsed with the other values (top_check), so that a bad one is one
 * line, as every bad value is */
static int cb_event(const struct opt *opt, const char *arg, struct err *err)
{
	struct top_cmd *c = opt->dest;

	if (c->nr_event_args == sizeof(c->event_args) / sizeof(c->event_args[0]))
		return err_set(err, -E2BIG, "-e %s: too many -e options", arg);
	c->event_args[c->nr_event_args++] = arg;
	return 0;
}

/* A number of opt in [lo, hi] (NULL: keeps *v). */
static int parse_long(const char *opt, const char *arg, long lo, long hi, long *v,
		      struct err *err)
{
	char *end;
	long n;

	if (!arg)
		return 0;
	errno = 0;
	n = strtol(arg, &end, 10);
	if (end == arg || *end || errno || n < lo || n > hi)
		return err_set(err, -EINVAL, "%s %s: expected a number in %ld..%ld", opt, arg, lo, hi);
	*v = n;
	return 0;
}

/* -p, -t and -C as lists, and -C's CPUs online, before anything opens. */
static int check_targets(struct top_cmd *c, struct err *err)
{
	const struct record_opts *o = &c->ro;
	const char *lists[2] = { o->pids, o->tids };
	int *cpus = NULL;
	size_t n = 0;
	int ret;

	for (int i = 0; i < 2; i++) {
		const char *p = lists[i];
		long id;
		int got;

		if (!p)
			continue;
		while ((got = id_list_next(&p, 0x3fffffff, &id)) > 0)
			;
		if (got < 0 || !*lists[i])
			return err_set(err, -EINVAL, "%s '%s': problems parsing %s list",
				       i ? "-t" : "-p", lists[i], i ? "tid" : "pid");
	}
	ret = target_cpus(o->cpu_list, &cpus, &n, err);
	free(cpus);
	c->to.nr_cpus = n;
	return ret;
}

/* The numbers given as text: one-line errors. */
static int check_numbers(struct top_cmd *c, struct err *err)
{
	long pages = 0;

	if (parse_long("-c", c->count, 1, LONG_MAX, &c->ro.period, err) ||
	    parse_long("-E", c->entries_arg, 1, 1L << 20, &c->entries, err) ||
	    parse_long("-f", c->count_filter, 0, LONG_MAX, &c->to.count_filter, err) ||
	    parse_long("--max-stack", c->max_stack, 1, 100000, &c->to.max_stack, err) ||
	    parse_long("-m", c->mmap_pages, 1, 1L << 20, &pages, err))
		return -EINVAL;
	c->ro.mmap_pages = pages;
	if (pages && (pages & (pages - 1)))
		return err_set(err, -EINVAL,
			       "-m %ld: the number of mmap data pages must be a power of two (e.g. %ld)",
			       pages, 1L << (64 - __builtin_clzl((unsigned long)pages)));
	return 0;
}

/* "2", "0.5": seconds, more than 0 */
static int parse_seconds(const char *opt, const char *arg, double *v, struct err *err)
{
	char *end;

	*v = strtod(arg, &end);
	if (end == arg || *end || !(*v > 0) || !isfinite(*v))
		return err_set(err, -EINVAL, "%s %s: expected seconds, e.g. 2 or 0.5", opt, arg);
	return 0;
}

/*
 * --call-graph record_mode[,record_size],print_type,threshold[,print_limit],
 * order,sort_key (perf top's): the recording's part (fp, dwarf with its
 * size; none) goes to the recorder, the rest to the view. A value that
 * starts with a printing word records with frame pointers.
 */
static int split_callgraph(struct top_cmd *c, struct err *err)
{
	const char *a = c->callgraph ? c->callgraph : c->fp ? "fp" : NULL;
	size_t len;

	if (!a)
		return record_check_callgraph(&c->ro, NULL, false, err);
	len = strcspn(a, ",");
	if (!strncmp(a, "lbr", len) && len == 3)
		return err_set(err, -EINVAL, "--call-graph %s: no LBR on this machine (fp or dwarf)", a);
	if ((len == 2 && !strncmp(a, "fp", 2)) || (len == 4 && !strncmp(a, "none", 4)) ||
	    (len == 5 && !strncmp(a, "dwarf", 5))) {
		size_t take = len;

		/* dwarf,SIZE: the size is the recorder's */
		if (len == 5 && a[5] == ',') {
			size_t tl = strcspn(a + 6, ",");

			if (tl && strspn(a + 6, "0123456789") == tl)
				take = 6 + tl;
		}
		if (take >= sizeof(c->cg_record))
			return err_set(err, -EINVAL, "--call-graph %s: value too long", a);
		memcpy(c->cg_record, a, take);
		c->cg_record[take] = 0;
		c->to.callgraph = a[take] ? a + take + 1 : NULL;
	} else {
		snprintf(c->cg_record, sizeof(c->cg_record), "fp");
		c->to.callgraph = a;
	}
	return record_check_callgraph(&c->ro, c->cg_record, false, err);
}

/* What the values say, checked: 0 or -EINVAL with err set. */
static int top_check(struct top_cmd *c, struct err *err)
{
	struct record_opts *o = &c->ro;
	int ret;

	if (o->pids && o->tids)
		return err_set(err, -EINVAL, "-p and -t cannot be used together");
	if (c->stdio && c->tui)
		return err_set(err, -EINVAL, "--stdio and --tui cannot be used together");
	o->all_cpus = !o->pids && !o->tids && !o->cpu_list;    /* system-wide by default */
	for (size_t i = 0; i < c->nr_event_args; i++) {
		o->last_e_first = o->events.nr;
		ret = events_parse(c->event_args[i], NULL, &o->events, err);
		if (ret)
			return ret;
	}
	ret = check_numbers(c, err);
	if (!ret)
		ret = record_check_freq(o, c->freq, err);
	if (!ret)
		ret = split_callgraph(c, err);
	if (!ret)
		ret = check_targets(c, err);
	if (ret)
		return ret;
	c->delay_s = DEFAULT_DELAY_S;
	if (c->delay && parse_seconds("-d", c->delay, &c->delay_s, err))
		return -EINVAL;
	if (c->duration && parse_seconds("--duration", c->duration, &c->duration_s, err))
		return -EINVAL;
	if (c->to.kallsyms && access(c->to.kallsyms, R_OK))
		return err_set(err, -EINVAL, "--kallsyms '%s': invalid file: %s", c->to.kallsyms,
			       strerror(errno));
	if (c->record && !*c->record)
		return err_set(err, -EINVAL, "--record '': expected a file name");
	if (c->children && c->no_children)
		return err_set(err, -EINVAL, "--children and --no-children cannot be used together");
	c->to.children = c->children ? 1 : c->no_children ? 0 : -1;
	c->to.pids = o->pids;
	c->to.tids = o->tids;
	c->to.cpu_list = o->cpu_list;
	c->to.quiet = o->quiet > 0;
	ret = top_opts_check(&c->to, err);
	if (ret)
		return ret;
	if (!o->events.nr) {
		o->default_event = true;
		ret = events_parse("cycles", NULL, &o->events, err);
	}
	return ret;
}

static const char usage_line[] = "prec top [<options>]";

int top_parse_args(struct top_cmd *c, int argc, char **argv)
{
	struct record_opts *o = &c->ro;
	struct top_opts *to = &c->to;
	bool help = false;
	const struct opt table[] = {
		OPTION_FLAG('a', "all-cpus", &c->all_cpus, "system-wide, on all CPUs (the default)"),
		OPTION_STRING('C', "cpu", &o->cpu_list, "cpus", "only these CPUs (e.g. 0-1,3)"),
		OPTION_STRING('p', "pid", &o->pids, "pid", "existing processes (comma list)"),
		OPTION_STRING('t', "tid", &o->tids, "tid", "existing threads (comma list)"),
		OPTION_CALLBACK('e', "event", c, "event", "event to sample (repeatable; comma list; "
				"default cycles, or cpu-clock without a PMU); the first is shown", cb_event),
		OPTION_STRING('F', "freq", &c->freq, "n", "sample frequency in Hz, or 'max' (default 4000)"),
		OPTION_STRING('c', "count", &c->count, "n", "sample every n events instead"),
		OPTION_FLAG('g', NULL, &c->fp, "record and show call chains (frame pointers)"),
		OPTION_STRING(0, "call-graph", &c->callgraph, "mode",
			      "record_mode[,size],print_type,threshold,order: fp|dwarf[,size]|none, "
			      "graph|flat|fractal|folded|none, a percentage, caller|callee "
			      "(default fp,graph,0.5; caller order with --children)"),
		OPTION_FLAG(0, "children", &c->children, "accumulate callees into callers "
			    "(default with call chains)"),
		OPTION_FLAG(0, "no-children", &c->no_children, "self overhead only"),
		OPTION_STRING(0, "max-stack", &c->max_stack, "n", "use at most n frames of each call "
			      "chain"),
		OPTION_STRING('s', "sort", &to->sort, "keys", "sort by these keys (default dso,sym)"),
		OPTION_STRING('d', "delay", &c->delay, "seconds", "refresh every this many seconds "
			      "(default 2)"),
		OPTION_FLAG('z', "zero", &to->zero, "start from zero at each refresh instead of "
			    "aging older samples by 7/8"),
		OPTION_STRING('E', "entries", &c->entries_arg, "n", "show this many entries (default: "
			      "what fits the terminal, 20 without one)"),
		OPTION_STRING('f', "count-filter", &c->count_filter, "n",
			      "only entries of more samples than this"),
		OPTION_STRING(0, "percent-limit", &to->percent_limit, "pct",
			      "hide entries under this percentage"),
		OPTION_FLAG('n', "show-nr-samples", &to->show_nr, "show the number of samples"),
		OPTION_FLAG(0, "show-total-period", &to->show_period, "show the total period"),
		OPTION_FLAG('K', "hide_kernel_symbols", &to->hide_kernel, "hide kernel symbols"),
		OPTION_FLAG('U', "hide_user_symbols", &to->hide_user, "hide user symbols"),
		OPTION_STRING(0, "comms", &to->f.comms, "list", "only samples of these commands"),
		OPTION_STRING(0, "dsos", &to->f.dsos, "list", "only samples in these shared objects"),
		OPTION_STRING(0, "symbols", &to->f.syms, "list", "only samples in these symbols"),
		OPTION_STRING(0, "kallsyms", &to->kallsyms, "file", "kernel symbols from this file "
			      "(default /proc/kallsyms)"),
		OPTION_STRING('m', "mmap-pages", &c->mmap_pages, "pages",
			      "ring buffer data pages per CPU, a power of two"),
		OPTION_FLAG('i', "no-inherit", &o->no_inherit, "child tasks do not inherit counters"),
		OPTION_FLAG(0, "stdio", &c->stdio, "text tables, on a terminal too (perf top --stdio's)"),
		OPTION_FLAG(0, "tui", &c->tui, "the browser (the default on a terminal)"),
		OPTION_STRING(0, "record", &c->record, "file", "also keep what was sampled in this "
			      "prec.data file"),
		OPTION_STRING(0, "duration", &c->duration, "seconds", "stop after this long "
			      "(else q or Ctrl-C)"),
		OPTION_COUNT('q', "quiet", &o->quiet, "print no messages but errors"),
		OPTION_COUNT('v', "verbose", &o->verbose, "say more"),
		OPTION_FLAG('h', "help", &help, "show this help"),
		OPTION_END,
	};
	struct err err = { 0 };
	int first = opts_parse(table, argc, argv, &err);

	if (first < 0) {
		fprintf(stderr, "prec top: %s\n", err.msg);
		opts_usage(stderr, usage_line, table);
		return 129;
	}
	if (help) {
		opts_usage(stdout, usage_line, table);
		exit(0);
	}
	if (first < argc) {
		fprintf(stderr, "prec top: unexpected argument '%s' (prec top takes options only)\n",
			argv[first]);
		opts_usage(stderr, usage_line, table);
		return 129;
	}
	if (top_check(c, &err)) {
		fprintf(stderr, "prec top: %s\n", err.msg);
		return 129;
	}
	return 0;
}
