/* SPDX-License-Identifier: MIT */
/*
 * prep report: perf report --stdio's output from prec.data files. Samples
 * are folded into unique stacks while reading, symbolized once per unique
 * address, then turned into one histogram per event (hist.c) and printed
 * with perf's header lines, columns and call-graph drawing.
 */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/log.h"
#include "common/opts.h"
#include "dump.h"
#include "latency.h"
#include "report/aggregate/hist.h"
#include "report/core/load.h"
#include "report/export/export.h"
#include "report/export/folded.h"
#include "print.h"
#include "report/core/progress.h"
#include "report/aggregate/stacks.h"
#include "report/tui/browser.h"

struct report_opts {
	struct load_opts lo;
	const char *sort;
	const char *fields;
	const char *callgraph;
	const char *percentage;
	int children;           /* -1: default (on with call chains) */
	bool children_on, children_off;
	bool stdio, tui;
	bool show_nr, show_period;
	bool header, header_only, stats;
	bool no_inline;
	bool group, threads;
	bool error;
	int quiet;
	long max_stack;
	const char *percent_limit;
	const char *parent;
	const char *event;
	bool folded;
	const char *folded_opts;
	bool dump_raw, version;
	bool help;
	struct latency_opts lat;
};

static int cb_callgraph(const struct opt *o, const char *arg, struct err *err)
{
	struct report_opts *ro = o->dest;

	(void)err;
	ro->callgraph = arg ? arg : "graph";
	return 0;
}

static int cb_folded(const struct opt *o, const char *arg, struct err *err)
{
	struct report_opts *ro = o->dest;

	(void)err;
	ro->folded = true;
	ro->folded_opts = arg;
	return 0;
}

static bool tok_is(const char *tok, size_t len, const char *name)
{
	return strlen(name) == len && !memcmp(tok, name, len);
}

/* -F's value fields: not sort keys, shown in their own columns (latency:
 * latency.h) */
static bool value_field(const char *k, size_t len, struct print_opts *po)
{
	if (tok_is(k, len, "sample"))
		po->show_nr = true;
	return tok_is(k, len, "overhead") || tok_is(k, len, "sample") ||
	       tok_is(k, len, "period_total") || tok_is(k, len, "latency");
}

/* --sort's help: the names in the sort-key table */
static const char *sort_help(char *buf, size_t n)
{
	char names[256];

	sort_key_names(names, sizeof(names));
	snprintf(buf, n, "sort by %s (default comm,dso,sym)", names);
	return buf;
}

/* --sort or -F: comma-separated names of the sort-key table (sortkey.c) */
static bool skip_value_field(void *ctx, const char *k, size_t len)
{
	return value_field(k, len, ctx);
}

static int parse_keys(const char *list, struct hist_opts *ho, struct print_opts *po,
		      struct err *err)
{
	return sort_keys_parse(list, ho->keys, &ho->nr_keys, SORT_NR, skip_value_field, po, err);
}

/* perf's "Invalid regex: [" with the option's name */
static int check_regex(const char *opt, const char *re)
{
	regex_t r;
	int ret = regcomp(&r, re, REG_EXTENDED | REG_NOSUB);

	if (ret) {
		char msg[128];

		regerror(ret, &r, msg, sizeof(msg));
		fprintf(stderr, "prep: %s '%s': invalid regex: %s\n", opt, re, msg);
		return -EINVAL;
	}
	regfree(&r);
	return 0;
}

/* What the options make of the histograms and the printing. */
struct report_cfg {
	struct hist_opts ho;
	struct print_opts po;
	struct folded_opts fo;
	bool order_set;         /* -g gave caller or callee */
};

/* --percentage and --percent-limit: 0, or 129 with the message printed. */
static int setup_percent(const struct report_opts *ro, struct print_opts *po)
{
	char *end;

	if (ro->percentage && strcmp(ro->percentage, "relative") && strcmp(ro->percentage, "absolute")) {
		fprintf(stderr, "prep: --percentage must be relative or absolute, not '%s'\n", ro->percentage);
		return 129;
	}
	po->absolute = ro->percentage && !strcmp(ro->percentage, "absolute");
	if (!ro->percent_limit)
		return 0;
	po->percent_limit = strtod(ro->percent_limit, &end);
	if (end == ro->percent_limit || (*end && strcmp(end, "%")) || po->percent_limit < 0 ||
	    po->percent_limit > 100) {
		fprintf(stderr, "prep: --percent-limit '%s' is not a percentage\n", ro->percent_limit);
		return 129;
	}
	return 0;
}

/* --sort, --fields, -g and --folded: 0, or 129 with the message printed. */
static int setup_keys(const struct report_opts *ro, struct report_cfg *c)
{
	struct err err = { 0 };

	if (parse_keys(ro->fields ? ro->fields : ro->sort ? ro->sort : "comm,dso,sym", &c->ho, &c->po, &err)) {
		fprintf(stderr, "prep: %s: %s\n", ro->fields ? "--fields" : "--sort", err.msg);
		return 129;
	}
	if (ro->callgraph && print_parse_callgraph(ro->callgraph, &c->po, &c->ho, &c->order_set, &err)) {
		fprintf(stderr, "prep: %s\n", err.msg);
		return 129;
	}
	if (ro->folded && folded_parse(ro->folded_opts, &c->fo, &err)) {
		fprintf(stderr, "prep: --folded: %s\n", err.msg);
		return 129;
	}
	/* as in perf, --percent-limit hides call-graph branches under it too
	 * (unless -g gives its own threshold) */
	if (ro->percent_limit && !(ro->callgraph && strpbrk(ro->callgraph, "0123456789")))
		c->po.threshold = c->po.percent_limit;
	if (ro->fields && ro->sort) {
		struct hist_opts extra = { 0 };

		if (parse_keys(ro->sort, &extra, &c->po, &err)) {
			fprintf(stderr, "prep: --sort: %s\n", err.msg);
			return 129;
		}
	}
	return 0;
}

/* The options into c: 0, or the exit status with the message printed. */
static int report_setup(struct report_opts *ro, struct report_cfg *c)
{
	int ret;

	if (ro->children_on || ro->children_off)
		ro->children = ro->children_on && !ro->children_off;
	ro->lo.quiet = ro->quiet > 0;
	c->po.quiet = ro->quiet > 0;
	c->po.show_nr = ro->show_nr;
	c->po.show_period = ro->show_period;
	c->po.error = ro->error;
	if (ro->error && ro->folded) {
		fprintf(stderr, "prep: --error: not with --folded (it qualifies the report's percentages, "
			"which the folded stacks do not have)\n");
		return 129;
	}
	/* -T's columns are counters read per thread; wall-time is samples and
	 * made waits, with no counter (cpu-clock's would show under its name) */
	if (ro->threads && ro->lo.wall) {
		fprintf(stderr, "prep: --threads: not with --wall (its columns are the events' "
			"counters; wall-time has none)\n");
		return 129;
	}
	ret = setup_percent(ro, &c->po);
	if (ret)
		return ret;
	if (ro->parent && check_regex("--parent", ro->parent))
		return 129;
	ret = setup_keys(ro, c);
	if (ret)
		return ret;
	c->ho.max_stack = (int)ro->max_stack;
	c->ho.parent_re = ro->parent;
	c->ho.inline_frames = !ro->no_inline;
	c->ho.symfs = ro->lo.symfs;
	/* call graphs, if the file has call chains (known once it is read) */
	c->ho.callchain = c->po.mode != CG_NONE || ro->folded;
	latency_setup(&ro->lat, ro->sort, ro->fields, &ro->lo, &c->ho, &c->po);
	if (ro->error && c->po.latency) {
		fprintf(stderr, "prep: --error: not with the Latency columns (--latency, -F latency): "
			"latency shares are not counted samples\n");
		return 129;
	}
	return 0;
}

/* Once the files are read: call graphs and children if they have call
 * chains. */
static void graph_setup(const struct load *l, struct hist *h, const struct report_opts *ro,
			struct report_cfg *c)
{
	bool have_chains = load_has_callchains(l);
	const struct session *s0 = load_session(l, 0);

	/* as in perf, --children without call chains is silently ignored */
	h->opts.children = have_chains && ro->children != 0;
	h->opts.callchain = have_chains && (c->po.mode != CG_NONE || ro->folded);
	if (!c->order_set)
		h->opts.caller = h->opts.children;
	/* perf reads a pipe-mode perf.data file without children (it learns
	 * that there are call chains too late), but keeps the caller order
	 * that children would have brought */
	if (s0 && s0->pd && perfdata_info(s0->pd)->pipe)
		h->opts.children = false;
	c->po.children = h->opts.children;
	c->po.callchain = h->opts.callchain;
	/* perf's rule: with a sort order that starts with "sym" (and no -F),
	 * the first name of a single-rooted graph is left out */
	c->po.skip_first = !ro->fields && ro->sort && !strncmp(ro->sort, "sym", 3);
	c->po.header_shown = ro->header;
	c->po.event = ro->event;
	c->po.group = ro->group;
}

/* What the files hold, as asked: the header, the report or the folded
 * stacks, the statistics. 0, or 1 with the message printed. */
static int report_print(struct load *l, struct hist *h, const struct report_opts *ro,
			struct report_cfg *c)
{
	struct err err = { 0 };
	int ret;

	if (!ro->header_only && latency_check(&ro->lat, l, h, &c->po, ro->folded, &err)) {
		fprintf(stderr, "prep: %s\n", err.msg);
		return 1;
	}
	if (ro->header || ro->header_only)
		print_header(stdout, l);
	if (ro->header_only)
		return 0;
	if (ro->event && stacks_pick_event(l, h, ro->event, &err) < 0) {
		fprintf(stderr, "prep: --event: %s\n", err.msg);
		return 1;
	}
	ret = hist_resolve(h);
	if (!ret && ro->folded)
		return export_folded_report(l, h, ro->event, ro->quiet > 0, &c->fo);
	if (!ret)
		ret = print_report(stdout, l, h, &c->po);
	if (ret)
		fprintf(stderr, "prep: out of memory\n");
	else if (ro->stats)
		print_stats(stdout, l, h);
	return ret ? 1 : 0;
}

/* What the reading feeds: the histogram, and -T's counts. */
struct report_ctx {
	struct hist *h;
	struct thread_counts *tc;       /* -T, else NULL */
};

static int report_sample(void *ctx, struct load *l, const struct load_sample *s)
{
	struct report_ctx *rx = ctx;

	if (rx->tc && thread_counts_sample(rx->tc, s))
		return -ENOMEM;
	return load_add_to_hist(rx->h, l, s);
}

static int report_record(void *ctx, struct load *l, struct session *s, const struct record *rec)
{
	struct report_ctx *rx = ctx;

	return thread_counts_record(rx->tc, l, s, rec) ? -ENOMEM : 0;
}

/* ---- the browser ---------------------------------------------------------- */

/* The options that only text shows, or NULL. */
static const char *text_only(const struct report_opts *ro)
{
	return ro->header ? "--header" : ro->header_only ? "--header-only" : ro->stats ? "--stats" :
	       ro->threads ? "--threads" : ro->folded ? "--folded" : ro->group ? "--group" : NULL;
}

/* The browser or text: on a terminal the browser, as perf report (a
 * terminal named dumb or none is not one for it), unless --stdio or an
 * option only text shows. 0 with *browse set, or the exit status with the
 * message printed. */
static int pick_output(const struct report_opts *ro, bool *browse)
{
	const char *term = getenv("TERM"), *only = text_only(ro);

	*browse = false;
	if (ro->stdio)
		return 0;
	if (ro->tui && only) {
		fprintf(stderr, "prep: --tui: %s is shown as text only (use --stdio)\n", only);
		return 129;
	}
	if (ro->tui && !browser_can_run()) {
		fprintf(stderr, "prep: --tui: not a terminal (the browser needs stdin and stdout on one)\n");
		return 1;
	}
	*browse = ro->tui || (!only && browser_can_run() && term && *term && strcmp(term, "dumb"));
	return 0;
}

/* While the files are read for the browser, warnings wait (curses would
 * wipe them): shown on its message line, then printed after it. */
struct held_log {
	log_fn fn;              /* the front end's handler */
	void *ctx;
	unsigned mask;
	struct buf lines;       /* level byte, message, NUL; one after another */
	size_t nr;
};

static void hold_msg(void *ctx, enum log_level level, const char *msg)
{
	struct held_log *hl = ctx;

	if (level == LOG_PROGRESS) {
		if (hl->fn && (hl->mask & LOG_MASK(level)))
			hl->fn(hl->ctx, level, msg);
		return;
	}
	if (!buf_put_u8(&hl->lines, (uint8_t)level) && !buf_append(&hl->lines, msg, strlen(msg) + 1))
		hl->nr++;
}

static void hold_start(struct held_log *hl)
{
	log_get_handler(&hl->fn, &hl->ctx, &hl->mask);
	log_set_handler(hold_msg, hl, hl->mask);
}

/* the handler back, and what waited said through it */
static void hold_end(struct held_log *hl)
{
	log_set_handler(hl->fn, hl->ctx, hl->mask);
	for (size_t at = 0; at < hl->lines.len;) {
		const char *msg = (const char *)hl->lines.data + at + 1;

		log_msg((enum log_level)hl->lines.data[at], "%s", msg);
		at += strlen(msg) + 2;
	}
	buf_free(&hl->lines);
}

/* The histogram in the browser: 0, -ENOTTY when the terminal cannot
 * start it (text then, unless --tui), or 1 with the message printed. */
static int report_browse(struct load *l, struct hist *h, const struct report_opts *ro,
			 struct report_cfg *c, const struct held_log *hl)
{
	struct browser_source src;
	struct err err = { 0 };
	char msg[600];
	int ret;

	if (ro->event && stacks_pick_event(l, h, ro->event, &err) < 0) {
		fprintf(stderr, "prep: --event: %s\n", err.msg);
		return 1;
	}
	if (hist_resolve(h)) {
		fprintf(stderr, "prep: out of memory\n");
		return 1;
	}
	browser_source_init(&src, l, h, &c->po);
	if (hl->nr) {
		snprintf(msg, sizeof(msg), "%s%s%s", log_level_tag((enum log_level)hl->lines.data[0]),
			 (const char *)hl->lines.data + 1,
			 hl->nr > 1 ? " (and more: printed on quitting)" : "");
		src.message = msg;
	}
	ret = browser_run(&src, &err);
	if (ret == -ENOTTY && !ro->tui)
		return ret;
	if (ret)
		fprintf(stderr, "prep: %s\n", err.msg);
	return ret ? 1 : 0;
}

/* ---- the reading ---------------------------------------------------------- */

static int report_run(struct report_opts *ro, struct report_cfg *c, bool browse)
{
	struct held_log hl = { .lines = BUF_INIT };
	struct err err = { 0 };
	struct progress pg;
	struct load *l;
	struct hist h;
	struct report_ctx rx = { &h, NULL };
	int ret;

	progress_install(&pg, &ro->lo);
	if (browse)
		hold_start(&hl);
	l = load_new(&ro->lo, &err);
	if (!l) {
		if (browse)
			hold_end(&hl);
		fprintf(stderr, "prep: %s\n", err.msg);
		return 1;
	}
	hist_init(&h, &c->ho, load_machine(l), load_symbolizer(l));
	if (ro->threads && !(rx.tc = thread_counts_new())) {
		ret = 1;
		fprintf(stderr, "prep: out of memory\n");
	} else if ((ret = rx.tc || ro->header_only ?
			  load_run(l, ro->header_only ? NULL : report_sample,
				   rx.tc ? report_record : NULL, &rx, &err) :
			  load_run_hist(l, &h, &err))) {
		if (browse)
			hold_end(&hl);  /* the warnings before the error */
		browse = false;
		fprintf(stderr, "prep: %s\n", err.msg);
	} else {
		graph_setup(l, &h, ro, c);
		ret = browse ? report_browse(l, &h, ro, c, &hl) : -ENOTTY;
		if (ret == -ENOTTY)
			ret = report_print(l, &h, ro, c);
		if (!ret && rx.tc && !ro->header_only)
			thread_counts_print(stdout, l, rx.tc);
	}
	if (browse)
		hold_end(&hl);
	thread_counts_free(rx.tc);
	hist_free(&h);
	load_free(l);
	return ret ? 1 : 0;
}

static const char usage_line[] = "prep [report] [-i FILE] [--sort KEYS] [options]";

int cmd_report(int argc, char **argv)
{
	struct report_opts ro = { .children = -1, .max_stack = 0 };
	struct report_cfg c = { .ho = { .inline_frames = true },
				.po = { .mode = CG_GRAPH, .threshold = 0.5 } };
	char sort_buf[320];
	const struct opt table[] = {
		LOAD_OPT_INPUTS(&ro.lo),
		OPTION_STRING('s', "sort", &ro.sort, "keys", sort_help(sort_buf, sizeof(sort_buf))),
		OPTION_STRING('F', "fields", &ro.fields, "keys", "output fields: overhead, latency, sample, period and sort keys"),
		OPTION_FLAG(0, "stdio", &ro.stdio, "text output (the default when not on a terminal)"),
		OPTION_FLAG(0, "tui", &ro.tui, "the interactive browser (the default on a terminal)"),
		OPTION_FLAG(0, "children", &ro.children_on, "accumulate callees into callers (default with call chains)"),
		OPTION_FLAG(0, "no-children", &ro.children_off, "self overhead only"),
		OPTION_CALLBACK_OPTARG('g', "call-graph", &ro, "mode", "graph|flat|fractal|folded|none[,threshold][,caller|callee]", cb_callgraph),
		OPTION_STRING(0, "percent-limit", &ro.percent_limit, "pct", "hide entries under this percentage"),
		OPTION_FLAG('n', "show-nr-samples", &ro.show_nr, "show the number of samples"),
		OPTION_FLAG(0, "show-total-period", &ro.show_period, "show the total period"),
		OPTION_FLAG(0, "error", &ro.error, "after each percentage, its standard error from the sample count (± x.xx%)"),
		OPTION_STRING(0, "percentage", &ro.percentage, "relative|absolute", "percentages of the filtered total (relative) or of all (absolute)"),
		OPTION_INT(0, "max-stack", &ro.max_stack, "n", "use at most n frames of each call chain", 1, 100000),
		OPTION_STRING('p', "parent", &ro.parent, "regex", "parent symbol pattern for --sort parent (default ^sys_|^do_page_fault)"),
		OPTION_CALLBACK_OPTARG(0, "folded", &ro, "list", "collapsed stacks for FlameGraph, one line per stack; list: period, pid, tid, kernel, inline, no-comm", cb_folded),
		OPTION_STRING(0, "event", &ro.event, "name", "only this event (--folded: default the first with samples)"),
		OPTION_FLAG(0, "no-inline", &ro.no_inline, "do not show inlined functions in call graphs"),
		OPTION_FLAG(0, "group", &ro.group, "show the events of a group together, one overhead column each (default for {a,b}:S groups)"),
		OPTION_FLAG('T', "threads", &ro.threads, "show per-thread event counters at the end (prec -s, {a,b}:S)"),
		LATENCY_OPTIONS(&ro.lat, &ro.lo),
		LOAD_OPT_WALL(&ro.lo),
		LOAD_SYMBOL_OPTIONS(&ro.lo),
		LOAD_FILTER_OPTIONS(&ro.lo),
		OPTION_FLAG(0, "header", &ro.header, "show the file's header information too"),
		OPTION_FLAG(0, "header-only", &ro.header_only, "show only the file's header information"),
		OPTION_FLAG(0, "stats", &ro.stats, "show record counts, lost samples and unresolved addresses"),
		OPTION_FLAG(0, "no-index", &ro.lo.no_kept_sums, "read the samples even where the file summed them (the same output)"),
		OPTION_COUNT('q', "quiet", &ro.quiet, "no header lines or warnings"),
		OPTION_FLAG('D', "dump-raw", &ro.dump_raw, "print every block and record of the file (prep dump)"),
		OPTION_FLAG('h', "help", &ro.help, "show this help"),
		OPTION_FLAG(0, "version", &ro.version, "show the version"),
		OPTION_END,
	};
	struct err err = { 0 };
	bool browse;
	int ret;

	ret = opts_parse_command(table, argc, argv, "prep", usage_line, &ro.help);
	if (ret >= 0)
		return ret;
	if (ro.version) {
		printf("prep %s\n", PREP_VERSION);
		return 0;
	}
	load_opts_default_input(&ro.lo);
	if (ro.dump_raw) {
		if (dump_file(ro.lo.inputs[0], stdout, &err)) {
			fprintf(stderr, "prep: %s\n", err.msg);
			return 1;
		}
		return 0;
	}
	ret = report_setup(&ro, &c);
	if (!ret)
		ret = pick_output(&ro, &browse);
	return ret ? ret : report_run(&ro, &c, browse);
}
