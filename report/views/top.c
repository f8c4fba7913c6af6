/* SPDX-License-Identifier: MIT */
/*
 * prec top's view: a live reading (load_live_*) whose samples go into one
 * histogram that is built at each refresh and then aged. See top.h.
 *
 * Each drain pass is gathered into one DATA block in memory, as FORMAT.md
 * 5.3 lays it out (data header, one span per ring buffer copy, the
 * ROUND_END span), and fed to the reading core: what prec top shows went
 * through the same steps a prec.data file's records go through.
 */
#include "top.h"
#include "top_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/opts.h"
#include "format/blocks.h"
#include "format/container.h"

/* perf top: every entry keeps 7/8 of itself at each refresh */
#define AGE_NUM 7
#define AGE_DEN 8

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --sort: names of the sort-key table, comma-separated, into ho. */
static int parse_sort(const char *list, struct hist_opts *ho, struct err *err)
{
	int ret = sort_keys_parse(list, ho->keys, &ho->nr_keys, SORT_NR, NULL, NULL, err);

	/* a sample's level comes from context switches, which top does not take */
	if (!ret && sort_keys_have(ho->keys, ho->nr_keys, SK_PARALLEL))
		ret = err_set(err, -EINVAL, "parallelism: prec top records no context switches, "
			      "so its samples have no level (prec --latency, then prep --sort "
			      "parallelism)");
	if (ret)
		err_prefix(err, "--sort");
	return ret;
}

static int parse_percent(const char *arg, double *v, struct err *err)
{
	char *end;

	*v = strtod(arg, &end);
	if (end == arg || (*end && strcmp(end, "%")) || !(*v >= 0) || *v > 100)
		return err_set(err, -EINVAL, "--percent-limit '%s' is not a percentage", arg);
	return 0;
}

/* The options into the histogram's and the printing's: 0 or -EINVAL. */
static int top_config(const struct top_opts *o, struct hist_opts *ho, struct print_opts *po,
		      bool *order_set, struct err *err)
{
	int ret;

	memset(ho, 0, sizeof(*ho));
	memset(po, 0, sizeof(*po));
	*order_set = false;
	po->mode = CG_GRAPH;
	po->threshold = 0.5;
	po->quiet = true;
	po->show_nr = o->show_nr;
	po->show_period = o->show_period;
	po->count_filter = o->count_filter > 0 ? (uint64_t)o->count_filter : 0;
	ret = parse_sort(o->sort ? o->sort : "dso,sym", ho, err);
	if (!ret && o->percent_limit)
		ret = parse_percent(o->percent_limit, &po->percent_limit, err);
	if (!ret && o->callgraph)
		ret = print_parse_callgraph(o->callgraph, po, ho, order_set, err);
	if (ret)
		return ret;
	/* as prep report: --percent-limit hides call-graph branches too,
	 * unless --call-graph gives its own threshold */
	if (o->percent_limit && !(o->callgraph && strpbrk(o->callgraph, "0123456789")))
		po->threshold = po->percent_limit;
	ho->max_stack = (int)o->max_stack;
	/* inlined functions in call graphs would open the DWARF of every
	 * binary hit system-wide: prec top names functions only */
	ho->inline_frames = false;
	return 0;
}

int top_opts_check(const struct top_opts *o, struct err *err)
{
	struct hist_opts ho;
	struct print_opts po;
	bool order_set;

	if (o->hide_kernel && o->hide_user)
		return err_set(err, -EINVAL, "-K and -U cannot be used together (nothing would be "
			       "shown)");
	if ((o->f.comms && filter_parse_names("--comms", o->f.comms, NULL, err)) ||
	    (o->f.dsos && filter_parse_names("--dsos", o->f.dsos, NULL, err)) ||
	    (o->f.syms && filter_parse_names("--symbols", o->f.syms, NULL, err)))
		return -EINVAL;
	return top_config(o, &ho, &po, &order_set, err);
}

/* Each sample that passed the filters: -K and -U, then the histogram. */
static int top_sample(void *ctx, struct load *l, const struct load_sample *s)
{
	struct top *t = ctx;

	if (s->nr && ((t->opts.hide_kernel && s->kernel[0]) || (t->opts.hide_user && !s->kernel[0])))
		return 0;
	return load_add_to_hist(&t->hist, l, s);
}

/* Every record, for the header's counts (samples before any filter). */
static int top_record(void *ctx, struct load *l, struct session *s, const struct record *rec)
{
	struct top *t = ctx;

	(void)l;
	(void)s;
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		t->now.samples++;
		t->now.kernel += (rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
		t->now.exact += !!(rec->misc & PERF_RECORD_MISC_EXACT_IP);
		break;
	case PERF_RECORD_LOST:
		t->now.lost += rec->u.lost.lost;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		t->now.lost += rec->u.lost_samples.lost;
		break;
	}
	return 0;
}

struct top *top_new(const struct top_opts *o, struct err *err)
{
	struct load_opts lo = { .quiet = o->quiet, .kallsyms_path = o->kallsyms };
	struct top *t;

	if (top_opts_check(o, err))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t) {
		err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	t->opts = *o;
	top_config(o, &t->ho, &t->po, &t->order_set, err);
	lo.f.comms = o->f.comms;
	lo.f.dsos = o->f.dsos;
	lo.f.syms = o->f.syms;
	t->load = load_new(&lo, err);
	if (!t->load || load_live_start(t->load, "prec top", top_sample, top_record, t, err)) {
		top_free(t);
		return NULL;
	}
	hist_init(&t->hist, &t->ho, load_machine(t->load), load_symbolizer(t->load));
	t->hist_ready = true;
	t->last_refresh = mono_s();     /* the first interval starts now */
	return t;
}

void top_free(struct top *t)
{
	if (!t)
		return;
	if (t->hist_ready)
		hist_free(&t->hist);
	load_free(t->load);
	buf_free(&t->block);
	free(t);
}

int top_block(struct top *t, unsigned type, const void *payload, size_t len, struct err *err)
{
	return load_live_feed(t->load, type, payload, len, err);
}

/* The pass's block: its data header first (the counts are not needed to
 * read it, and left 0). */
static int block_begin(struct top *t)
{
	static const uint8_t header[DATA_HEADER_SIZE];

	return t->block.len ? 0 : buf_append(&t->block, header, sizeof(header));
}

static int add_span(struct top *t, uint32_t cpu, uint16_t kind, const void *p1, size_t n1,
		    const void *p2, size_t n2)
{
	uint8_t h[SPAN_HEADER_SIZE];

	span_header_encode(cpu, kind, n1 + n2, h);
	if (block_begin(t) || buf_append(&t->block, h, sizeof(h)) ||
	    (n1 && buf_append(&t->block, p1, n1)) || (n2 && buf_append(&t->block, p2, n2)))
		return -ENOMEM;
	return 0;
}

int top_records(struct top *t, uint32_t cpu, const void *p1, size_t n1, const void *p2, size_t n2,
		struct err *err)
{
	if (!n1 && !n2)
		return 0;
	return add_span(t, cpu, SPAN_RECORDS, p1, n1, p2, n2) ?
	       err_set(err, -ENOMEM, "out of memory") : 0;
}

int top_round(struct top *t, struct err *err)
{
	int ret;

	/* even a pass that brought nothing ends a round: what waits is then
	 * no later than anything still to come */
	if (add_span(t, 0, SPAN_ROUND_END, NULL, 0, NULL, 0))
		return err_set(err, -ENOMEM, "out of memory");
	ret = load_live_feed(t->load, BLOCK_DATA, t->block.data, t->block.len, err);
	buf_reset(&t->block);
	return ret;
}

int top_end(struct top *t, struct err *err)
{
	int ret = top_round(t, err);

	return ret ? ret : load_live_end(t->load, err);
}

/* What the files' reading tells once events are known: call graphs and
 * the children column with call chains, as prep report decides them. */
static void graph_setup(struct top *t, struct top_snapshot *snap)
{
	bool chains = load_has_callchains(t->load);

	t->hist.opts.children = chains && t->opts.children != 0;
	t->hist.opts.callchain = chains && t->po.mode != CG_NONE;
	if (!t->order_set)
		t->hist.opts.caller = t->hist.opts.children;
	t->po.children = t->hist.opts.children;
	t->po.callchain = t->hist.opts.callchain;
	/* perf's rule: a sort order that starts with sym leaves out the
	 * first name of a single-rooted graph */
	t->po.skip_first = t->opts.sort && !strncmp(t->opts.sort, "sym", 3);
	snap->children = t->po.children;
	snap->callchain = t->po.callchain;
}

/* The call graphs of the entries to be shown only (the first `entries`
 * that print_entry_lines would print; 0: all): the rest are built again at
 * the next refresh anyway. */
static int trees(struct top *t, uint64_t total, size_t entries)
{
	struct hist *h = &t->hist;
	bool *want;
	int ret;

	if (!h->opts.callchain || !h->nr_entries)
		return 0;
	want = calloc(h->nr_entries, sizeof(*want));
	if (!want)
		return -ENOMEM;
	if (entries)
		print_entry_mark(t->load, h, &t->po, 0, total, entries, want);
	else
		memset(want, 1, h->nr_entries * sizeof(*want));
	ret = hist_build_trees(h, 0, want);
	free(want);
	return ret;
}

/* A refresh's start: the graphs' setup, the frames named (perf top names
 * the running kernel "[kernel]"). */
static int refresh_start(struct top *t, struct top_snapshot *snap, bool defer_trees)
{
	struct machine *m = load_machine(t->load);

	memset(snap, 0, sizeof(*snap));
	graph_setup(t, snap);
	if (m->kernel_dso)
		m->kernel_dso->short_name = "[kernel]";
	t->hist.opts.defer_trees = defer_trees;
	return hist_resolve(&t->hist);
}

/* A refresh's end: the snapshot's reading and the interval's counts, and
 * the next interval begins. */
static void refresh_end(struct top *t, double now, struct top_snapshot *snap)
{
	snap->load = t->load;
	snap->hist = &t->hist;
	snap->event = 0;
	snap->interval = t->now;
	t->lost_total += t->now.lost;
	snap->lost_total = t->lost_total;
	snap->interval_s = now > t->last_refresh ? now - t->last_refresh : 0;
	t->last_refresh = now;
	memset(&t->now, 0, sizeof(t->now));
}

int top_refresh(struct top *t, double now, size_t entries, struct top_snapshot *snap,
		struct err *err)
{
	uint64_t count;
	int ret = refresh_start(t, snap, true);

	if (!ret)
		ret = hist_build(&t->hist, 0);
	if (!ret)
		print_shown_totals(t->load, &t->hist, &snap->total, &count);
	if (!ret)
		ret = trees(t, snap->total, entries);
	if (ret)
		return err_set(err, ret, ret == -ENOMEM ? "out of memory" : "the call graphs: %s",
			       err_str(ret));
	refresh_end(t, now, snap);
	return 0;
}

int top_update(struct top *t, double now, struct top_snapshot *snap, struct err *err)
{
	/* the browser builds every entry's call graph itself */
	int ret = refresh_start(t, snap, false);

	if (ret)
		return err_set(err, ret, "out of memory");
	refresh_end(t, now, snap);
	return 0;
}


void top_set_zero(struct top *t, bool zero)
{
	t->opts.zero = zero;
}

int top_age(struct top *t, struct err *err)
{
	int ret = hist_decay(&t->hist, t->opts.zero ? 0 : AGE_NUM, AGE_DEN);

	return ret ? err_set(err, ret, "out of memory") : 0;
}
