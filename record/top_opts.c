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

#include "common/opts.h"

#define DEFAULT_DELAY_S 2.0     /* perf top's -d */

static int cb_event(const struct opt *opt, const char *arg, struct err *err)
{
	struct record_opts *o = opt->dest;

	o->last_e_first = o->events.nr;
	return events_parse(arg, NULL, &o->events, err);
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
	o->all_cpus = !o->pids && !o->tids && !o->cpu_list;    /* system-wide by default */
	ret = record_check_freq(o, c->freq, err);
	if (!ret)
		ret = split_callgraph(c, err);
	if (ret)
		return ret;
	if (o->mmap_pages && (o->mmap_pages & (o->mmap_pages - 1)))
		return err_set(err, -EINVAL,
			       "-m %ld: the number of mmap data pages must be a power of two (e.g. %ld)",
			       o->mmap_pages, 1L << (64 - __builtin_clzl((unsigned long)o->mmap_pages)));
	c->delay_s = DEFAULT_DELAY_S;
	if (c->delay && parse_seconds("-d", c->delay, &c->delay_s, err))
		return -EINVAL;
	if (c->duration && parse_seconds("--duration", c->duration, &c->duration_s, err))
		return -EINVAL;
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
		OPTION_CALLBACK('e', "event", o, "event", "event to sample (repeatable; comma list; "
				"default cycles, or cpu-clock without a PMU); the first is shown", cb_event),
		OPTION_STRING('F', "freq", &c->freq, "n", "sample frequency in Hz, or 'max' (default 4000)"),
		OPTION_INT('c', "count", &o->period, "n", "sample every n events instead", 1, LONG_MAX),
		OPTION_FLAG('g', NULL, &c->fp, "record and show call chains (frame pointers)"),
		OPTION_STRING(0, "call-graph", &c->callgraph, "mode",
			      "record_mode[,size],print_type,threshold,order: fp|dwarf[,size]|none, "
			      "graph|flat|fractal|folded|none, a percentage, caller|callee "
			      "(default fp,graph,0.5,caller)"),
		OPTION_FLAG(0, "children", &c->children, "accumulate callees into callers "
			    "(default with call chains)"),
		OPTION_FLAG(0, "no-children", &c->no_children, "self overhead only"),
		OPTION_INT(0, "max-stack", &to->max_stack, "n", "use at most n frames of each call chain",
			   1, 100000),
		OPTION_STRING('s', "sort", &to->sort, "keys", "sort by these keys (default dso,sym)"),
		OPTION_STRING('d', "delay", &c->delay, "seconds", "refresh every this many seconds "
			      "(default 2)"),
		OPTION_FLAG('z', "zero", &to->zero, "start from zero at each refresh instead of "
			    "aging older samples by 7/8"),
		OPTION_INT('E', "entries", &c->entries, "n", "show this many entries (default: "
			   "what fits the terminal, 20 without one)", 1, 1L << 20),
		OPTION_INT('f', "count-filter", &to->count_filter, "n",
			   "only entries of more samples than this", 0, LONG_MAX),
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
		OPTION_INT('m', "mmap-pages", &o->mmap_pages, "pages",
			   "ring buffer data pages per CPU, a power of two", 1, 1L << 20),
		OPTION_FLAG('i', "no-inherit", &o->no_inherit, "child tasks do not inherit counters"),
		OPTION_FLAG(0, "stdio", &c->stdio, "text tables (the only output for now)"),
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
