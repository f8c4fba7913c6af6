// SPDX-License-Identifier: MIT
/*
 * prep annotate: the command line, and one pass over the samples counting
 * per sampled address (dso, file offset, event); then the addresses are
 * named once each, grouped into symbols, and only the symbols printed are
 * disassembled (annotate_print.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "annotate.h"
#include "annotate_int.h"
#include "annotate_lines.h"
#include "common/buf.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/opts.h"
#include "report/aggregate/addr_hits.h"
#include "report/aggregate/hist.h"

struct annot_run {
	struct addr_hits hits;          /* per sampled address */
	struct annot_sym *syms;
	size_t nr_syms, cap_syms;
	struct hmap sym_idx;
	const struct sym_key *skey;     /* hmap_find's question */
};

struct sym_key {
	struct dso *dso;
	uint64_t start;
	bool kernel;
};

static int on_sample(void *ctx, struct load *l, const struct load_sample *s)
{
	struct annot_run *r = ctx;

	return addr_hits_add(&r->hits, l, s);
}

static bool sym_eq(void *ctx, uint32_t i)
{
	const struct annot_run *r = ctx;

	return r->syms[i].dso == r->skey->dso && r->syms[i].start == r->skey->start &&
	       r->syms[i].kernel == r->skey->kernel;
}

/* The symbol entry for (dso, start), created if new (named name, of size
 * bytes); NULL on ENOMEM. An entry is large (its counts per event): only a
 * new one is written whole. */
static struct annot_sym *sym_get(struct annot_run *r, const struct sym_key *k, const char *name,
				 uint64_t size)
{
	uint64_t h = hash_combine(hash_u64((uintptr_t)k->dso), k->start ^ k->kernel);
	struct annot_sym *s;
	uint32_t i;

	r->skey = k;
	if (hmap_find(&r->sym_idx, h, sym_eq, r, &i))
		return &r->syms[i];
	if (array_grow((void **)&r->syms, &r->cap_syms, r->nr_syms + 1, sizeof(*r->syms)) ||
	    hmap_insert(&r->sym_idx, h, (uint32_t)r->nr_syms))
		return NULL;
	s = &r->syms[r->nr_syms++];
	memset(s, 0, sizeof(*s));
	s->dso = k->dso;
	s->name = name;
	s->start = k->start;
	s->size = size;
	s->kernel = k->kernel;
	return s;
}

/* Name one sampled address: 0 with si->name NULL when nothing names it. */
static int ent_name(struct load *l, const struct addr_hit *e, struct sym_info *si)
{
	struct symbolizer *sz = load_symbolizer(l);

	memset(si, 0, sizeof(*si));
	if (e->kernel)
		return symbolizer_kernel_lookup_table(sz, e->ktab, e->off, si, NULL);
	if (!e->dso || e->dso->anon)
		return 0;
	if (!dso_sym(sz, load_options(l)->symfs, e->dso))
		return -ENOMEM;
	return sym_dso_lookup(sz, e->dso->sym, e->off, si);
}

/* The addresses into symbols: each named once, its counts added to its
 * symbol's (column = the event's column in cols). */
static int group_syms(struct annot_run *r, struct load *l, const int *cols)
{
	for (size_t i = 0; i < r->hits.nr; i++) {
		const struct addr_hit *e = &r->hits.v[i];
		struct annot_sym *s;
		struct sym_key k;
		struct sym_info si;
		struct annot_hit *hit;
		int ret = ent_name(l, e, &si), col = cols[e->event];

		if (ret)
			return ret;
		if (!si.name || col < 0)
			continue;
		k.dso = e->kernel ? load_machine(l)->kernel_dso : e->dso;
		k.start = si.start;
		k.kernel = e->kernel;
		s = sym_get(r, &k, si.name, si.size);
		if (!s || array_grow((void **)&s->hits, &s->cap_hits, s->nr_hits + 1,
				     sizeof(*s->hits)))
			return -ENOMEM;
		hit = &s->hits[s->nr_hits++];
		*hit = (struct annot_hit){ e->kernel ? e->off : si.addr, col, e->count, e->period };
		s->count[col] += e->count;
		s->period[col] += e->period;
	}
	return 0;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct annot_sym *x = *(struct annot_sym *const *)a, *y = *(struct annot_sym *const *)b;

	if (x->period[0] != y->period[0])
		return x->period[0] < y->period[0] ? 1 : -1;
	return strcmp(x->name, y->name);
}

static bool sym_wanted(const struct annot_ctx *c, const struct annot_sym *s)
{
	struct frame f = { .dso = s->dso, .sym = s->name };
	bool named = !c->o->nr_syms;

	for (size_t i = 0; i < c->o->nr_syms && !named; i++)
		named = !strcmp(c->o->syms[i], s->name);
	if (!named || !load_frame_wanted(c->l, &f))
		return false;
	if (c->o->percent_limit > 0 && c->total_period[0] &&
	    100.0 * (double)s->period[0] / (double)c->total_period[0] < c->o->percent_limit)
		return false;
	return true;
}

static int print_all(struct annot_ctx *c, struct annot_run *r)
{
	/* hottest first, sorted by reference (an entry is large); a stable
	 * sort, as sorting the entries themselves was */
	struct annot_sym **order = malloc((r->nr_syms + 1) * sizeof(*order));
	size_t printed = 0;

	if (!order) {
		fprintf(stderr, "prep: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < r->nr_syms; i++)
		order[i] = &r->syms[i];
	qsort(order, r->nr_syms, sizeof(*order), sym_cmp);
	for (size_t i = 0; i < r->nr_syms; i++) {
		struct err err = { 0 };
		int ret;

		if (!sym_wanted(c, order[i]))
			continue;
		ret = annot_print_sym(c, order[i], &err);
		if (ret < 0) {
			fprintf(stderr, "prep: %s\n", err.msg);
			free(order);
			return 1;
		}
		if (ret == 1 && !c->o->skip_missing)
			fprintf(stderr, "prep: cannot annotate %s: %s\n", order[i]->name, err.msg);
		printed += ret == 0;
	}
	free(order);
	fflush(c->out);
	if (!printed && c->o->nr_syms) {
		fprintf(stderr, "prep: no samples in symbol %s\n", c->o->syms[0]);
		return 1;
	}
	return 0;
}

/* The columns: the events with samples, in their order. */
static void pick_columns(struct annot_ctx *c, struct annot_run *r, int *cols)
{
	for (int e = 0; e < LOAD_MAX_EVENTS; e++) {
		cols[e] = -1;
		if (!r->hits.count[e])
			continue;
		cols[e] = (int)c->nr_events;
		c->events[c->nr_events] = e;
		c->total_count[c->nr_events] = r->hits.count[e];
		c->total_period[c->nr_events++] = r->hits.period[e];
	}
}

static void run_free(struct annot_run *r)
{
	for (size_t i = 0; i < r->nr_syms; i++)
		free(r->syms[i].hits);
	free(r->syms);
	addr_hits_free(&r->hits);
	hmap_free(&r->sym_idx);
}

/* srctext's source of embedded lines: the recording's SOURCE blocks */
static const char *embedded_line(const void *ctx, const char *path, unsigned line)
{
	return load_source_line(ctx, path, line);
}

/* The counts per sampled address: from the file's ADDR_COUNTS block where
 * it has them (load_open_counts), else from its samples. */
static int read_counts(const struct annot_opts *o, struct load *l, struct annot_run *r,
		       struct err *err)
{
	struct load_counts lc;
	int ret = o->no_index ? 0 : load_open_counts(l, &lc, err);

	if (ret > 0) {
		ret = addr_hits_from_counts(&r->hits, &lc);
		load_counts_free(&lc);
		return ret ? err_set(err, ret, "out of memory") : 0;
	}
	return ret ? ret : load_run_sum(l, on_sample, r, false, err);
}

static int annotate_run(struct annot_opts *o, struct load_opts *lo)
{
	struct annot_run r = { .hits = ADDR_HITS_INIT, .sym_idx = HMAP_INIT };
	struct annot_ctx c = { .o = o, .out = stdout };
	int cols[LOAD_MAX_EVENTS];
	struct err err = { 0 };
	int ret = 1;

	c.l = load_new(lo, &err);
	if (!c.l) {
		fprintf(stderr, "prep: %s\n", err.msg);
		return err.code == -EINVAL ? 129 : 1;
	}
	c.src = srctext_new(o->prefix, o->prefix_strip);
	if (c.src)
		srctext_set_embedded(c.src, embedded_line, c.l);
	if (!c.src || read_counts(o, c.l, &r, &err)) {
		fprintf(stderr, "prep: %s\n", c.src ? err.msg : "out of memory");
		goto out;
	}
	pick_columns(&c, &r, cols);
	if (!c.nr_events) {
		fprintf(stderr, "prep: %s has no samples\n", lo->inputs[0]);
		goto out;
	}
	if (group_syms(&r, c.l, cols)) {
		fprintf(stderr, "prep: out of memory\n");
		goto out;
	}
	ret = print_all(&c, &r);
out:
	srctext_free(c.src);
	run_free(&r);
	load_free(c.l);
	return ret;
}

static const char usage_line[] = "prep annotate [SYMBOL...] [-i FILE] [--stdio] [options]";

static int append_sym(struct annot_opts *o, const char *arg, struct err *err)
{
	if (o->nr_syms == sizeof(o->syms) / sizeof(o->syms[0]))
		return err_set(err, -EINVAL, "too many symbols (at most 64)");
	o->syms[o->nr_syms++] = arg;
	return 0;
}

static int add_sym(const struct opt *opt, const char *arg, struct err *err)
{
	return append_sym(opt->dest, arg, err);
}

/* The values given as words: 0, or 129 after one line naming the value. */
static int check_words(struct annot_opts *o, const char *pct, const char *m, const char *color,
		       const char *limit)
{
	static const char *const pcts[] = { "local-period", "global-period", "local-hits",
					    "global-hits" };
	char *end;
	size_t i;

	for (i = 0; pct && i < 4 && strcmp(pct, pcts[i]); i++)
		;
	if (i == 4) {
		fprintf(stderr, "prep: invalid --percent-type '%s' (local-period, global-period, local-hits or global-hits)\n", pct);
		return 129;
	}
	o->pct = pct ? (enum annot_pct)i : PCT_LOCAL_PERIOD;
	if (m && strcmp(m, "att") && strcmp(m, "intel")) {
		fprintf(stderr, "prep: invalid -M/--disassembler-style '%s' (att or intel)\n", m);
		return 129;
	}
	o->intel = m && !strcmp(m, "intel");
	if (color && strcmp(color, "always") && strcmp(color, "never") && strcmp(color, "auto")) {
		fprintf(stderr, "prep: invalid --stdio-color '%s' (always, never or auto)\n", color);
		return 129;
	}
	o->color = color && !strcmp(color, "always") ? true
		   : color && !strcmp(color, "never") ? false : isatty(STDOUT_FILENO);
	if (limit) {
		o->percent_limit = strtod(limit, &end);
		if (end == limit || *end || o->percent_limit < 0 || o->percent_limit > 100) {
			fprintf(stderr, "prep: invalid --percent-limit '%s' (a percentage)\n", limit);
			return 129;
		}
	}
	return 0;
}

int cmd_annotate(int argc, char **argv)
{
	struct load_opts lo = { 0 };
	struct annot_opts o = { 0 };
	const char *pct = NULL, *style = NULL, *color = NULL, *limit = NULL;
	bool help = false, stdio = false, tui = false;
	long strip = 0;
	int quiet = 0, first, ret;
	const struct opt table[] = {
		LOAD_OPT_INPUTS(&lo),
		OPTION_FLAG(0, "stdio", &stdio, "text output (the only one; the default)"),
		OPTION_FLAG(0, "tui", &tui, "not supported: text output only"),
		OPTION_CALLBACK('s', "symbol", &o, "symbol", "annotate this symbol (repeatable)", add_sym),
		OPTION_STRING('d', "dsos", &lo.f.dsos, "list", "only symbols in these shared objects"),
		OPTION_FLAG('n', "show-nr-samples", &o.nr_samples, "show sample counts instead of percentages"),
		OPTION_FLAG(0, "show-total-period", &o.total_period, "show the period instead of percentages"),
		OPTION_STRING(0, "percent-type", &pct, "type", "local-period (default), global-period, local-hits, global-hits"),
		OPTION_FLAG(0, "group", &o.group, "several events: one column each (else one block each)"),
		OPTION_FLAG('l', "print-line", &o.print_line, "totals per source line first"),
		OPTION_FLAG(0, "no-source", &o.no_source, "instructions only, no source lines"),
		OPTION_FLAG(0, "asm-raw", &o.asm_raw, "show the instruction bytes"),
		OPTION_STRING('M', "disassembler-style", &style, "style", "att (default) or intel"),
		OPTION_STRING(0, "percent-limit", &limit, "percent", "only symbols with at least this share"),
		OPTION_FLAG(0, "skip-missing", &o.skip_missing, "skip symbols whose binary cannot be read, silently"),
		OPTION_STRING(0, "stdio-color", &color, "when", "color hot lines: always, never or auto (a terminal)"),
		OPTION_STRING(0, "prefix", &o.prefix, "dir", "look for source files under this folder"),
		OPTION_INT(0, "prefix-strip", &strip, "n", "strip n leading folders of source paths first", 0, 1000),
		OPTION_FLAG(0, "no-index", &o.no_index, "read the samples even where the file counted them per address (the same output)"),
		LOAD_SYMBOL_OPTIONS(&lo),
		LOAD_FILTER_OPTIONS(&lo),
		OPTION_COUNT('q', "quiet", &quiet, "no warnings"),
		OPTION_FLAG('h', "help", &help, "show this help"),
		OPTION_END,
	};
	struct err err = { 0 };

	/* options and symbols in any order (as perf): parse up to the next
	 * word that is not an option, take it as a symbol, go on */
	for (first = 1; first < argc;) {
		ret = opts_parse(table, argc - first + 1, argv + first - 1, &err);
		if (ret < 0) {
			fprintf(stderr, "prep: %s\n", err.msg);
			opts_usage(stderr, usage_line, table);
			return 129;
		}
		first += ret - 1;
		if (first >= argc || !strcmp(argv[first - 1], "--"))
			break;
		if (append_sym(&o, argv[first], &err)) {
			fprintf(stderr, "prep: %s\n", err.msg);
			return 129;
		}
		first++;
	}
	while (first < argc && !append_sym(&o, argv[first], &err))
		first++;
	if (help) {
		opts_usage(stdout, usage_line, table);
		return 0;
	}
	if (tui) {
		fprintf(stderr, "prep: annotate has text output only (--stdio); the interactive "
			"annotate is the browser's: prep --tui, then a on an entry\n");
		return 129;
	}
	ret = check_words(&o, pct, style, color, limit);
	if (ret)
		return ret;
	o.prefix_strip = (unsigned)strip;
	load_opts_default_input(&lo);
	lo.quiet = quiet > 0;
	lo.ip_only = true;      /* the sampled addresses are all it looks at */
	lo.no_kept_sums = o.no_index;
	if (load_opts_check(&lo, &err)) {
		fprintf(stderr, "prep: %s\n", err.msg);
		return 129;
	}
	return annotate_run(&o, &lo);
}

/* ---- the engine for other outputs (annotate_lines.h) ---- */

struct annot_pass {
	struct annot_run r;
	struct annot_opts o;
	struct annot_ctx c;
	int cols[LOAD_MAX_EVENTS];
	struct hmap name_idx;   /* (dso, name) -> syms */
	const struct dso *kdso;
	const char *kname;
};

struct annot_pass *annot_pass_new(struct load *l)
{
	struct annot_pass *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->r = (struct annot_run){ .hits = ADDR_HITS_INIT, .sym_idx = HMAP_INIT };
	p->name_idx = (struct hmap)HMAP_INIT;
	p->c.o = &p->o;
	p->c.l = l;
	p->c.src = srctext_new(NULL, 0);
	if (!p->c.src) {
		free(p);
		return NULL;
	}
	srctext_set_embedded(p->c.src, embedded_line, l);
	return p;
}

void annot_pass_free(struct annot_pass *p)
{
	if (!p)
		return;
	srctext_free(p->c.src);
	run_free(&p->r);
	hmap_free(&p->name_idx);
	free(p);
}

int annot_pass_sample(void *ctx, struct load *l, const struct load_sample *s)
{
	return on_sample(&((struct annot_pass *)ctx)->r, l, s);
}

int annot_pass_add_hist(struct annot_pass *p, const struct hist *h)
{
	return addr_hits_from_hist(&p->r.hits, h);
}

void annot_pass_set_source(struct annot_pass *p, bool source)
{
	p->o.no_source = !source;
}

static uint64_t name_hash(const struct dso *d, const char *name)
{
	return hash_combine(hash_u64((uintptr_t)d), hash_bytes(name, strlen(name), 0));
}

static bool name_eq(void *ctx, uint32_t i)
{
	const struct annot_pass *p = ctx;

	return p->r.syms[i].dso == p->kdso && !strcmp(p->r.syms[i].name, p->kname);
}

int annot_pass_group(struct annot_pass *p)
{
	pick_columns(&p->c, &p->r, p->cols);
	if (group_syms(&p->r, p->c.l, p->cols))
		return -ENOMEM;
	/* one entry per (dso, name): a name twice in a dso (static functions
	 * of two files) is the first of them, as the page names frames */
	for (size_t i = 0; i < p->r.nr_syms; i++) {
		uint64_t h = name_hash(p->r.syms[i].dso, p->r.syms[i].name);
		uint32_t j;

		p->kdso = p->r.syms[i].dso;
		p->kname = p->r.syms[i].name;
		if (!hmap_find(&p->name_idx, h, name_eq, p, &j) &&
		    hmap_insert(&p->name_idx, h, (uint32_t)i))
			return -ENOMEM;
	}
	return 0;
}

static struct annot_sym *pass_find(struct annot_pass *p, const struct dso *dso, const char *name,
				   int ev, int *col)
{
	uint32_t i;

	if (!name || ev < 0 || ev >= LOAD_MAX_EVENTS || p->cols[ev] < 0)
		return NULL;
	p->kdso = dso;
	p->kname = name;
	if (!hmap_find(&p->name_idx, name_hash(dso, name), name_eq, p, &i))
		return NULL;
	*col = p->cols[ev];
	return &p->r.syms[i];
}

uint64_t annot_pass_samples(struct annot_pass *p, const struct dso *dso, const char *name, int ev)
{
	int col;
	const struct annot_sym *s = pass_find(p, dso, name, ev, &col);

	return s ? s->count[col] : 0;
}

uint64_t annot_pass_period(struct annot_pass *p, const struct dso *dso, const char *name, int ev)
{
	int col;
	const struct annot_sym *s = pass_find(p, dso, name, ev, &col);

	return s ? s->period[col] : 0;
}

int annot_pass_lines(struct annot_pass *p, const struct dso *dso, const char *name, int ev,
		     size_t max, bool *cut, annot_line_fn fn, void *ctx, struct err *err)
{
	int col;
	struct annot_sym *s = pass_find(p, dso, name, ev, &col);

	*cut = false;
	if (!s || !s->count[col])
		return err_set(err, 1, "no samples"), 1;
	if (s->kernel)
		return err_set(err, 1, "no code: kernel"), 1;
	return annot_sym_lines(&p->c, s, (size_t)col, max, cut, fn, ctx, err);
}
