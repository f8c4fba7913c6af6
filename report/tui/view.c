// SPDX-License-Identifier: MIT
/*
 * The browser's view, without curses: which entries are shown (the zoom,
 * the filters, the percent limit), their rows (an entry's line, then its
 * call graph's lines while it is open), what is folded, and the text of
 * each row, from the text report's formatter. Keeping the state across a
 * rebuild of the entries is view_keep.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tui_int.h"
#include "report/views/latency.h"

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* ---- folding ------------------------------------------------------------ */

static int ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(const void *const *)a, y = (uintptr_t)*(const void *const *)b;

	return x < y ? -1 : x > y;
}

bool vent_in_exc(const struct vent *ve, const struct cnode *n)
{
	return ve->nr_exc && bsearch(&n, ve->exc, ve->nr_exc, sizeof(*ve->exc), ptr_cmp);
}

bool vent_folded(void *ctx, const struct cnode *n)
{
	const struct vent *ve = ctx;

	return ve->all_open ? vent_in_exc(ve, n) : !vent_in_exc(ve, n);
}

/* n's place in exc toggled (it is folded then unfolded, or back) */
int vent_flip(struct vent *ve, const struct cnode *n)
{
	const struct cnode **at = ve->nr_exc ? bsearch(&n, ve->exc, ve->nr_exc, sizeof(*ve->exc),
						      ptr_cmp) : NULL;

	if (at) {
		memmove(at, at + 1, (size_t)(ve->exc + ve->nr_exc - at - 1) * sizeof(*at));
		ve->nr_exc--;
		return 0;
	}
	if (array_grow((void **)&ve->exc, &ve->cap_exc, ve->nr_exc + 1, sizeof(*ve->exc)))
		return -ENOMEM;
	ve->exc[ve->nr_exc++] = n;
	qsort(ve->exc, ve->nr_exc, sizeof(*ve->exc), ptr_cmp);
	return 0;
}

void vent_reset(struct vent *ve)
{
	ve->open = ve->all_open = false;
	ve->nr_exc = 0;
	ve->nr_lines = 0;
	buf_reset(&ve->text);
}

void vent_free(struct vent *ve)
{
	free(ve->exc);
	free(ve->lines);
	buf_free(&ve->text);
}

/* ---- call-graph lines ------------------------------------------------ */

static int keep_line(void *ctx, const struct print_gline *gl)
{
	struct vent *ve = ctx;
	struct vline *ln;

	if (array_grow((void **)&ve->lines, &ve->cap_lines, ve->nr_lines + 1, sizeof(*ve->lines)))
		return -ENOMEM;
	ln = &ve->lines[ve->nr_lines++];
	*ln = (struct vline){ ve->text.len, gl->len, gl->node, gl->more };
	return buf_append(&ve->text, gl->text, gl->len);
}

static int count_line(void *ctx, const struct print_gline *gl)
{
	(void)gl;
	++*(size_t *)ctx;
	return 0;
}

static bool all_folded(void *ctx, const struct cnode *n)
{
	(void)ctx;
	(void)n;
	return true;
}

static bool may_have_graph(const struct view *vw, const struct hentry *e)
{
	return vw->src->po->callchain && e->tree && vw->ev.has_chains;
}

/* Does entry i have call-graph lines? (asked once, with all folded) */
bool view_has_graph(struct view *vw, size_t i)
{
	struct vent *ve = &vw->ents[i];

	if (ve->graph < 0) {
		size_t n = 0;

		ve->graph = may_have_graph(vw, &vw->h->entries[i]) &&
			    !print_callchain_lines(vw->src->po, &vw->h->entries[i], vw->total,
						   all_folded, NULL, count_line, &n) && n > 0;
	}
	return ve->graph > 0;
}

/* Entry i's graph lines drawn again for its folding (empty when closed). */
int view_lines(struct view *vw, size_t i)
{
	struct vent *ve = &vw->ents[i];

	ve->nr_lines = 0;
	buf_reset(&ve->text);
	if (!ve->open)
		return 0;
	return print_callchain_lines(vw->src->po, &vw->h->entries[i], vw->total, vent_folded, ve,
				     keep_line, ve);
}

/* ---- which entries, which rows ---------------------------------------- */

/* The filters of the entries: the source's, the binary zoomed into, the
 * symbol filter. */
static bool entry_passes(const struct view *vw, const struct hentry *e)
{
	const struct frame *f = &vw->h->frames[e->frame];

	if (vw->src->frame_wanted && !vw->src->frame_wanted(vw->src->ctx, f))
		return false;
	if (vw->zdso && f->dso != vw->zdso)
		return false;
	if (!vw->re_text[0])
		return true;
	/* the function (as --symbols matches it: an inlined function's entry
	 * is of the function it is inlined into), or the inlined name shown */
	return (f->sym && !regexec(&vw->re, f->sym, 0, NULL, 0)) ||
	       (e->key.inl && !regexec(&vw->re, e->key.inl, 0, NULL, 0));
}

/* Percentages of the entries the filters keep (perf's relative ones, as
 * the text report's with --dso), or of all with --percentage absolute. */
static void view_totals(struct view *vw)
{
	const struct hist *h = vw->h;

	const struct print_opts *po = vw->src->po;
	bool all;
	uint64_t lat_shown = 0, lat_all;

	vw->shown_period = vw->shown_count = 0;
	for (size_t i = 0; i < h->nr_entries; i++) {
		if (!entry_passes(vw, &h->entries[i]))
			continue;
		vw->shown_period += h->entries[i].self_period;
		vw->shown_count += h->entries[i].self_count;
		lat_shown += h->entries[i].self_latency;
	}
	all = po->absolute && vw->ev.period > vw->shown_period;
	vw->total = all ? vw->ev.period : vw->shown_period;
	/* as the text report's: of what is shown, or with --percentage
	 * absolute of every sample (its samples for --error, its latency for
	 * the Latency columns) */
	vw->totals.period = vw->total;
	vw->totals.samples = all && vw->src->load ? load_event_samples(vw->src->load, vw->event) :
			     vw->shown_count;
	vw->totals.latency = lat_shown;
	if (po->latency && po->absolute && vw->src->load) {
		lat_all = latency_total(vw->src->load, h, po, vw->event);
		if (lat_all > lat_shown)
			vw->totals.latency = lat_all;
	}
}

int view_recount(struct view *vw)
{
	size_t r = 0;

	if (array_grow((void **)&vw->first, &vw->cap_first, vw->nr_vis + 1, sizeof(*vw->first)))
		return -ENOMEM;
	for (size_t j = 0; j < vw->nr_vis; j++) {
		const struct vent *ve = &vw->ents[vw->vis[j]];

		vw->first[j] = r;
		r += 1 + (ve->open ? ve->nr_lines : 0);
	}
	vw->first[vw->nr_vis] = r;
	return 0;
}

/* The entries shown, their totals and rows, their open graphs drawn for
 * the new totals. 0 or -ENOMEM. */
int view_refilter(struct view *vw)
{
	const struct print_opts *po = vw->src->po;
	const struct hist *h = vw->h;
	int ret = 0;

	view_totals(vw);
	vw->nr_vis = 0;
	if (array_grow((void **)&vw->vis, &vw->cap_vis, h->nr_entries + 1, sizeof(*vw->vis)))
		return -ENOMEM;
	for (size_t i = 0; i < h->nr_entries; i++) {
		const struct hentry *e = &h->entries[i];
		double p = pct(po->children ? e->total_period : e->self_period, vw->total);

		vw->ents[i].graph = -1;         /* the threshold is of the total */
		if ((po->percent_limit > 0 && p < po->percent_limit) ||
		    (po->count_filter && e->self_count <= po->count_filter) || !entry_passes(vw, e))
			continue;
		if (vw->src->max_entries && vw->nr_vis >= vw->src->max_entries)
			break;  /* prec top's -E: the first ones only */
		vw->vis[vw->nr_vis++] = i;
		if (vw->ents[i].open && !ret)
			ret = view_lines(vw, i);
	}
	return ret ? ret : view_recount(vw);
}

/* ---- rows ------------------------------------------------------------- */

struct vpos view_pos(const struct view *vw, size_t row)
{
	size_t lo = 0, hi = vw->nr_vis;

	/* the last shown entry whose first row is at or before row */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (vw->first[mid] <= row)
			lo = mid;
		else
			hi = mid;
	}
	return (struct vpos){ lo, vw->nr_vis ? row - vw->first[lo] : 0 };
}

const struct hentry *view_entry(const struct view *vw, size_t row)
{
	if (row >= view_rows(vw))
		return NULL;
	return &vw->h->entries[vw->vis[view_pos(vw, row).v]];
}

/* the graph line of a row that is one, else NULL */
static const struct vline *row_line(const struct view *vw, struct vpos p)
{
	const struct vent *ve = &vw->ents[vw->vis[p.v]];

	return p.k && p.k <= ve->nr_lines ? &ve->lines[p.k - 1] : NULL;
}

/* graph and fractal modes fold nodes; flat and folded lines are plain */
static bool folds_nodes(const struct view *vw)
{
	return vw->src->po->mode == CG_GRAPH || vw->src->po->mode == CG_FRACTAL;
}

char view_mark(struct view *vw, size_t row)
{
	struct vpos p;
	const struct vline *ln;
	size_t i;

	if (row >= view_rows(vw))
		return ' ';
	p = view_pos(vw, row);
	i = vw->vis[p.v];
	if (!p.k)
		return !view_has_graph(vw, i) ? ' ' : vw->ents[i].open ? '-' : '+';
	ln = row_line(vw, p);
	if (!ln || !ln->node || !ln->more || !folds_nodes(vw))
		return ' ';
	return vent_folded(&vw->ents[i], ln->node) ? '+' : '-';
}

const char *view_text(struct view *vw, size_t row, size_t *len, struct print_pcts *pcts)
{
	struct vpos p;
	const struct vline *ln;
	char mark;

	if (pcts)
		pcts->nr = 0;
	buf_reset(&vw->line);
	if (row >= view_rows(vw)) {
		*len = 0;
		return "";
	}
	p = view_pos(vw, row);
	mark = view_mark(vw, row);
	if (!p.k) {
		if (print_entry_line(&vw->line, vw->h, vw->src->po, vw->cols, vw->nc,
				     &vw->h->entries[vw->vis[p.v]], &vw->totals, pcts))
			return NULL;
	} else if ((ln = row_line(vw, p))) {
		const struct vent *ve = &vw->ents[vw->vis[p.v]];

		if (buf_append(&vw->line, ve->text.data + ln->off, ln->len))
			return NULL;
	}
	/* the first column is the fold mark's: a space in the text report */
	if (vw->line.len && vw->line.data[0] == ' ')
		vw->line.data[0] = (uint8_t)mark;
	if (buf_reserve(&vw->line, 1))
		return NULL;
	vw->line.data[vw->line.len] = 0;
	*len = vw->line.len;
	return (const char *)vw->line.data;
}

/* ---- folding keys -------------------------------------------------- */

/* After entry i's folding changed: its lines, the rows, the selection
 * on the same line of it (or on the entry when that line is gone). */
static int refold(struct view *vw, size_t i, size_t v, size_t k)
{
	int ret = view_lines(vw, i);

	if (!ret)
		ret = view_recount(vw);
	if (!ret)
		vw->sel = vw->first[v] + (k <= vw->ents[i].nr_lines ? k : 0);
	return ret;
}

int view_toggle(struct view *vw, size_t row)
{
	struct vpos p;
	const struct vline *ln;
	size_t i;
	int ret;

	if (row >= view_rows(vw))
		return 0;
	p = view_pos(vw, row);
	i = vw->vis[p.v];
	if (!p.k) {
		if (!view_has_graph(vw, i))
			return 0;
		if (vw->ents[i].open)
			vent_reset(&vw->ents[i]);
		else
			vw->ents[i].open = true;
		return refold(vw, i, p.v, 0);
	}
	ln = row_line(vw, p);
	/* a "|" line between branches: the branch under it */
	if (ln && !ln->node && p.k < vw->ents[i].nr_lines)
		ln++;
	if (!ln || !ln->node || !ln->more || !folds_nodes(vw))
		return 0;
	ret = vent_flip(&vw->ents[i], ln->node);
	return ret ? ret : refold(vw, i, p.v, p.k);
}

/* Entry i opened whole, or closed. */
static void open_all(struct view *vw, size_t i, bool open)
{
	struct vent *ve = &vw->ents[i];

	vent_reset(ve);
	if (open && view_has_graph(vw, i))
		ve->open = ve->all_open = true;
}

int view_toggle_entry(struct view *vw, size_t row)
{
	struct vpos p;
	size_t i;

	if (row >= view_rows(vw))
		return 0;
	p = view_pos(vw, row);
	i = vw->vis[p.v];
	open_all(vw, i, !vw->ents[i].open);
	return refold(vw, i, p.v, 0);
}

int view_all(struct view *vw, bool open)
{
	const struct hentry *sel = view_entry(vw, vw->sel);
	size_t si = sel ? (size_t)(sel - vw->h->entries) : 0;
	int ret = 0;

	for (size_t j = 0; j < vw->nr_vis && !ret; j++) {
		open_all(vw, vw->vis[j], open);
		ret = view_lines(vw, vw->vis[j]);
	}
	if (!ret)
		ret = view_recount(vw);
	/* the selected entry's line stays selected */
	for (size_t j = 0; j < vw->nr_vis && !ret && sel; j++)
		if (vw->vis[j] == si)
			vw->sel = vw->first[j];
	return ret;
}
