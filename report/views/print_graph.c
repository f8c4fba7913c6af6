/* SPDX-License-Identifier: MIT */
/*
 * perf report --stdio's call graphs under each entry (graph, fractal, flat
 * and folded), drawn one line at a time (print_line.h) for the text report
 * and the browser, and the --call-graph option that chooses them.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "print_int.h"
#include "print_line.h"

#define MARGIN 12

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* ---- call graphs ------------------------------------------------------ */

struct cg {
	const struct print_opts *po;
	uint64_t total;         /* graph: the event's total; fractal: per parent */
	print_folded_fn folded;
	void *fctx;
	print_gline_fn fn;
	void *ctx;
	int err;                /* the first failure: nothing more is drawn */
	struct buf line;
	char prefix[4096];
};

/* The least period a branch needs, as perf computes it: a whole number,
 * rounded down of the total (graph), up of the parent's (fractal). */
static uint64_t min_period(const struct print_opts *po, uint64_t base)
{
	double v = (double)base * (po->threshold / 100.0);

	return po->mode == CG_FRACTAL ? (uint64_t)ceil(v) : (uint64_t)v;
}

static bool shown(const struct cg *c, const struct cnode *n, uint64_t parent)
{
	return n->period >= min_period(c->po, c->po->mode == CG_FRACTAL ? parent : c->total);
}

static size_t nr_shown(const struct cg *c, const struct cnode *n, uint64_t parent)
{
	size_t k = 0;

	for (const struct cnode *ch = n->child; ch; ch = ch->next)
		k += shown(c, ch, parent);
	return k;
}

/* Does n have lines beneath it (its path or its branches)? */
static bool has_more(const struct cg *c, const struct cnode *n)
{
	return n->child && nr_shown(c, n, n->period);
}

static bool is_folded(const struct cg *c, const struct cnode *n)
{
	return c->folded && c->folded(c->fctx, n);
}

/* The line built so far, for node n (NULL: none), then an empty one. */
static void cg_emit(struct cg *c, const struct cnode *n)
{
	struct print_gline gl = { (const char *)c->line.data, c->line.len, n,
				  n && has_more(c, n) };

	if (!c->err)
		c->err = c->fn(c->ctx, &gl);
	buf_reset(&c->line);
}

static void cg_printf(struct cg *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void cg_printf(struct cg *c, const char *fmt, ...)
{
	va_list ap;

	if (c->err)
		return;
	va_start(ap, fmt);
	c->err = buf_vprintf(&c->line, fmt, ap);
	va_end(ap);
}

static void put_prefix(struct cg *c, size_t len)
{
	cg_printf(c, "%*s%.*s", MARGIN, "", (int)len, c->prefix);
}

/* Children of n, each as a branch "|--xx.xx%--name" under the prefix. */
static void graph_children(struct cg *c, const struct cnode *n, size_t plen);

/* What is beneath a node drawn at the current prefix: its single-path
 * continuation, one name a line, then its branches. */
static void graph_path(struct cg *c, const struct cnode *n, size_t plen)
{
	/* follow the path while one child carries everything */
	while (n->child && nr_shown(c, n, n->period) == 1 && n->child->period == n->period &&
	       !n->child->next) {
		n = n->child;
		put_prefix(c, plen);
		cg_printf(c, "%s", n->name);
		cg_emit(c, n);
		if (is_folded(c, n))
			return;
	}
	if (n->child && nr_shown(c, n, n->period))
		graph_children(c, n, plen);
}

static void graph_children(struct cg *c, const struct cnode *n, size_t plen)
{
	size_t left = nr_shown(c, n, n->period);

	for (const struct cnode *ch = n->child; ch && !c->err; ch = ch->next) {
		bool last;
		uint64_t base = c->po->mode == CG_FRACTAL ? n->period : c->total;

		if (!shown(c, ch, n->period))
			continue;
		last = --left == 0;
		put_prefix(c, plen);
		cg_printf(c, "|%10s", "");
		cg_emit(c, NULL);
		put_prefix(c, plen);
		cg_printf(c, "%c--%.2f%%--%s", last ? ' ' : '|', pct(ch->period, base), ch->name);
		cg_emit(c, ch);
		if (plen + 11 < sizeof(c->prefix) && !is_folded(c, ch)) {
			memcpy(c->prefix + plen, last ? "           " : "|          ", 11);
			graph_path(c, ch, plen + 11);
		}
	}
}

/* A single root's path, one name a line (the first after "---"), until
 * it branches or a folded node; the node it stopped at, NULL if folded. */
static const struct cnode *graph_root_path(struct cg *c, const struct cnode *n, size_t *plen,
					   bool *printed)
{
	bool skip = c->po->skip_first;

	for (;;) {
		if (skip) {
			skip = false;
		} else {
			if (!*printed) {
				cg_printf(c, "%*s|", MARGIN, "");
				cg_emit(c, NULL);
				cg_printf(c, "%*s---%s", MARGIN, "", n->name);
				memcpy(c->prefix, "   ", 3);
				*plen = 3;
				*printed = true;
			} else {
				put_prefix(c, *plen);
				cg_printf(c, "%s", n->name);
			}
			cg_emit(c, n);
			if (is_folded(c, n))
				return NULL;
		}
		if (!n->child || nr_shown(c, n, n->period) != 1 || n->child->period != n->period ||
		    n->child->next)
			return n;
		n = n->child;
	}
}

static void print_graph(struct cg *c, const struct cnode *root)
{
	const struct cnode *n = root->child;
	bool printed = false;
	size_t plen = 0;

	if (!n || n->next || n->period != root->period) {
		if (!nr_shown(c, root, root->period))
			return;         /* every branch under the threshold */
		graph_children(c, root, 0);
		cg_emit(c, NULL);
		return;
	}
	/* a single root: its path one name a line, then its branches */
	n = graph_root_path(c, n, &plen, &printed);
	if (n && n->child && nr_shown(c, n, n->period)) {
		graph_children(c, n, plen);
		printed = true;
	}
	/* nothing at all when the one name was left out */
	if (printed)
		cg_emit(c, NULL);
}

/* flat and folded: one line (or block) per path from the root to a leaf */
static void paths(struct cg *c, const struct cnode *n, const char **stack, size_t depth,
		  uint64_t total)
{
	if (depth >= 1024)
		return;
	for (const struct cnode *ch = n->child; ch && !c->err; ch = ch->next) {
		uint64_t rest = ch->period;

		for (const struct cnode *g = ch->child; g; g = g->next)
			rest -= g->period <= rest ? g->period : rest;
		stack[depth] = ch->name;
		if (rest && pct(rest, total) >= c->po->threshold) {
			if (c->po->mode == CG_FOLDED) {
				cg_printf(c, "%.2f%% ", pct(rest, total));
				for (size_t i = 0; i <= depth; i++)
					cg_printf(c, "%s%s", i ? ";" : "", stack[i]);
				cg_emit(c, NULL);
			} else {
				cg_printf(c, "%*s%.2f%%", MARGIN - 1, "", pct(rest, total));
				cg_emit(c, NULL);
				for (size_t i = 0; i <= depth; i++) {
					cg_printf(c, "%*s%s", MARGIN + 4, "", stack[i]);
					cg_emit(c, NULL);
				}
				cg_emit(c, NULL);
			}
		}
		paths(c, ch, stack, depth + 1, total);
	}
}

int print_callchain_lines(const struct print_opts *po, const struct hentry *e, uint64_t total,
			  print_folded_fn folded, void *fctx, print_gline_fn fn, void *ctx)
{
	struct cg c = { .po = po, .total = total, .folded = folded, .fctx = fctx, .fn = fn,
			.ctx = ctx, .line = BUF_INIT };
	const struct cnode *root = e->tree;

	if (!root || !root->child)
		return 0;
	if (po->mode != CG_FRACTAL && root->period < min_period(po, total))
		return 0;
	if (po->mode == CG_GRAPH || po->mode == CG_FRACTAL) {
		print_graph(&c, root);
	} else {
		const char *stack[1024];

		paths(&c, root, stack, 0, total);
	}
	buf_free(&c.line);
	return c.err;
}

/* the text report: each line to the file */
static int file_gline(void *ctx, const struct print_gline *gl)
{
	FILE *out = ctx;

	fwrite(gl->text, 1, gl->len, out);
	fputc('\n', out);
	return 0;
}

void print_callchain(FILE *out, const struct print_opts *po, const struct hentry *e,
		    uint64_t total)
{
	print_callchain_lines(po, e, total, NULL, NULL, file_gline, out);
}

/* -g graph|flat|fractal|folded|none[,THRESHOLD][,caller|callee] */
int print_parse_callgraph(const char *arg, struct print_opts *po, struct hist_opts *ho,
			  bool *order_set, struct err *err)
{
	char buf[256];
	char *save = NULL;

	if (strlen(arg) >= sizeof(buf))
		return err_set(err, -EINVAL, "--call-graph: value too long");
	snprintf(buf, sizeof(buf), "%s", arg);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		double v;

		if (!strcmp(t, "graph"))
			po->mode = CG_GRAPH;
		else if (!strcmp(t, "flat"))
			po->mode = CG_FLAT;
		else if (!strcmp(t, "fractal"))
			po->mode = CG_FRACTAL;
		else if (!strcmp(t, "folded"))
			po->mode = CG_FOLDED;
		else if (!strcmp(t, "none"))
			po->mode = CG_NONE;
		else if (!strcmp(t, "caller") || !strcmp(t, "callee")) {
			ho->caller = t[4] == 'e' && t[5] == 'r';
			*order_set = true;
		} else if (!strcmp(t, "function") || !strcmp(t, "address") || !strcmp(t, "percent") ||
			   !strcmp(t, "period") || !strcmp(t, "count")) {
			/* perf's print-limit and key fields: function keys only */
		} else if ((v = strtod(t, &end)), end != t && !*end && v >= 0 && v <= 100) {
			po->threshold = v;
		} else {
			return err_set(err, -EINVAL, "--call-graph: '%s' is not graph, flat, fractal, "
				       "folded, none, caller, callee or a threshold", t);
		}
	}
	return 0;
}

