/* SPDX-License-Identifier: MIT */
/*
 * prep report's group view (perf report --group): the events of a group in
 * one section, one overhead column per member, each member's share of its
 * own total per entry. Groups are the leader-sampling ones ({a,b}:S) the
 * samples revealed (load_event_group_leader); with --group and no such
 * group, every event of the files makes one group, as perf does with a
 * file without groups. Entries are sorted as perf sorts them: by the
 * leader's children period (with --children), then the next member's, and
 * so on, then in the leader's own order (callers above callees); without
 * --children by the self periods the same way, then in the leader's order. The call graph under an entry is the leader's, as in perf.
 */
#include "print_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/hash.h"

#define GROUP_MAX LOAD_MAX_EVENTS

struct gentry {
	struct hentry e;        /* the leader's (with its call graph), or the
				 * first member's that has the entry */
	uint64_t period[GROUP_MAX], count[GROUP_MAX], children[GROUP_MAX];
	uint64_t rank;          /* order: member, then its place in its list */
};

struct group {
	int ev[GROUP_MAX];
	size_t nr;
	bool anon;              /* a real group: "anon group { a, b }" */
	bool children;          /* --children: Children and Self columns */
	struct gentry *g;
	size_t nr_g, cap_g;
	struct hmap idx;
};

bool print_has_groups(const struct load *l)
{
	for (size_t e = 0; e < load_nr_events(l); e++)
		if (load_event_group_leader(l, (int)e) >= 0)
			return true;
	return false;
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

struct gfind {
	const struct group *gr;
	const struct hkey *k;
};

static bool gentry_eq(void *ctx, uint32_t idx)
{
	const struct gfind *f = ctx;

	return !memcmp(&f->gr->g[idx].e.key, f->k, sizeof(*f->k));
}

/* Member m's entries (h->entries, just built) into the group's. */
static int merge_member(struct group *gr, struct hist *h, size_t m)
{
	for (size_t i = 0; i < h->nr_entries; i++) {
		const struct hentry *e = &h->entries[i];
		uint64_t hv = hash_bytes(&e->key, sizeof(e->key), 7);
		struct gfind f = { gr, &e->key };
		uint32_t j;

		if (!hmap_find(&gr->idx, hv, gentry_eq, &f, &j)) {
			j = (uint32_t)gr->nr_g;
			if (array_grow((void **)&gr->g, &gr->cap_g, gr->nr_g + 1, sizeof(*gr->g)) ||
			    hmap_insert(&gr->idx, hv, j))
				return -1;
			memset(&gr->g[j], 0, sizeof(gr->g[j]));
			gr->g[j].e = *e;
			gr->g[j].e.tree = NULL;
			gr->g[j].rank = ((uint64_t)m << 32) | i;
			gr->nr_g++;
		}
		if (!m) {       /* the leader's graph: the group's entries own it */
			gr->g[j].e.tree = e->tree;
			h->entries[i].tree = NULL;
		}
		gr->g[j].period[m] += e->self_period;
		gr->g[j].count[m] += e->self_count;
		gr->g[j].children[m] += e->total_period;
	}
	return 0;
}

static int cmp_gentry(const void *a, const void *b, void *ctx)
{
	const struct gentry *x = a, *y = b;
	const struct group *gr = ctx;

	for (size_t m = 0; m < gr->nr && gr->children; m++)
		if (x->children[m] != y->children[m])
			return x->children[m] > y->children[m] ? -1 : 1;
	/* children: then the leader's order (callers above callees, self) */
	for (size_t m = 0; m < gr->nr && !gr->children; m++)
		if (x->period[m] != y->period[m])
			return x->period[m] > y->period[m] ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* --error: a block of the members' errors after each block of shares,
 * one 8-column cell each as the shares have */
static void error_titles(FILE *out, const struct print_opts *po, int w, bool dots)
{
	if (!po->error)
		return;
	fputs("  ", out);
	if (!dots) {
		fprintf(out, "%*s", w, "Error");
		return;
	}
	for (int i = 0; i < w; i++)
		fputc('.', out);
}

static void print_titles(FILE *out, const struct print_opts *po, const struct col *cols,
			 size_t nc, size_t n)
{
	int w = (int)(8 * n);

	if (po->children) {
		fprintf(out, "# %*s", w, "Children");
		error_titles(out, po, w, false);
		fprintf(out, "  %*s", w, "Self");
	} else {
		fprintf(out, "# %*s", w, "Overhead");
	}
	error_titles(out, po, w, false);
	if (po->show_nr)
		fprintf(out, "  %*s", (int)(12 * n), "Samples");
	if (po->show_period)
		fprintf(out, "  %*s", (int)(12 * n), "Period");
	for (size_t j = 0; j < nc; j++)
		fprintf(out, cols[j].sk->flags & SK_RIGHT ? "  %*s" : "  %-*s", cols[j].width,
			cols[j].sk->title);
	fprintf(out, "\n# ");
	for (int i = 0; i < w; i++)
		fputc('.', out);
	error_titles(out, po, w, true);
	if (po->children) {
		fputs("  ", out);
		for (int i = 0; i < w; i++)
			fputc('.', out);
		error_titles(out, po, w, true);
	}
	for (int k = 0; k < (po->show_nr + po->show_period); k++) {
		fputs("  ", out);
		for (size_t i = 0; i < 12 * n; i++)
			fputc('.', out);
	}
	for (size_t j = 0; j < nc; j++) {
		fputs("  ", out);
		for (int i = 0; i < cols[j].width; i++)
			fputc('.', out);
	}
	fprintf(out, "\n#\n");
}

/* the members' shares of their totals, then with --error their errors */
static void print_shares(FILE *out, const struct print_opts *po, const struct group *gr,
			 const uint64_t *v, const uint64_t *total, const uint64_t *count)
{
	char buf[32];

	fputs("  ", out);
	for (size_t m = 0; m < gr->nr; m++)
		fprintf(out, "%7.2f%%", pct(v[m], total[m]));
	if (!po->error)
		return;
	fputs("  ", out);
	for (size_t m = 0; m < gr->nr; m++) {
		error_cell(pct(v[m], total[m]), count[m], buf, sizeof(buf));
		fprintf(out, " %s", buf);
	}
}

static void print_gentry(FILE *out, const struct hist *h, const struct print_opts *po,
			 const struct col *cols, size_t nc, const struct group *gr,
			 const struct gentry *g, const uint64_t *total, const uint64_t *count)
{
	char buf[4096];

	if (po->children)
		print_shares(out, po, gr, g->children, total, count);
	print_shares(out, po, gr, g->period, total, count);
	if (po->show_nr) {
		fputs("  ", out);
		for (size_t m = 0; m < gr->nr; m++)
			fprintf(out, "%12" PRIu64, g->count[m]);
	}
	if (po->show_period) {
		fputs("  ", out);
		for (size_t m = 0; m < gr->nr; m++)
			fprintf(out, "%12" PRIu64, g->period[m]);
	}
	for (size_t j = 0; j < nc; j++) {
		unsigned flags = cols[j].sk->flags;

		cols[j].sk->text(h, &g->e, buf, sizeof(buf));
		if (j + 1 == nc && !(flags & SK_RIGHT) && (flags & SK_SYMBOL_LIKE))
			fprintf(out, "  %s", buf);
		else
			fprintf(out, flags & SK_RIGHT ? "  %*s" : "  %-*s", cols[j].width, buf);
	}
	fputc('\n', out);
}

static void group_title(const struct load *l, const struct group *gr, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "%s", gr->anon ? "anon group { " : "");

	for (size_t m = 0; m < gr->nr && len < n; m++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", m ? ", " : "",
					load_event_name(l, gr->ev[m]));
	if (gr->anon && len < n)
		snprintf(buf + len, n - len, " }");
}

/* The group's entries, built member by member; h is left holding them
 * (sorted, with the leader's call graphs) for the widths, texts and graphs. */
static int group_build(struct hist *h, struct group *gr, uint64_t *total, uint64_t *count)
{
	size_t n;

	for (size_t m = 0; m < gr->nr; m++) {
		if (hist_build(h, gr->ev[m]) || merge_member(gr, h, m))
			return -1;
		total[m] = h->total_period;
		count[m] = h->total_count;
	}
	if (hist_build(h, -1))         /* frees the last member's entries */
		return -1;
	if (gr->nr_g)
		qsort_r(gr->g, gr->nr_g, sizeof(*gr->g), cmp_gentry, gr);
	n = gr->nr_g ? gr->nr_g : 1;
	h->entries = calloc(n, sizeof(*h->entries));
	if (!h->entries)
		return -1;
	for (size_t i = 0; i < gr->nr_g; i++)
		h->entries[i] = gr->g[i].e;
	h->nr_entries = gr->nr_g;
	return 0;
}

static int print_group(FILE *out, struct load *l, struct hist *h, const struct print_opts *po,
		       struct group *gr)
{
	uint64_t total[GROUP_MAX] = { 0 }, count[GROUP_MAX] = { 0 }, all_p = 0, all_n = 0;
	struct col cols[SORT_NR];
	size_t nc = h->opts.nr_keys;
	char title[1024], cnt[32];

	if (group_build(h, gr, total, count))
		return -1;
	for (size_t m = 0; m < gr->nr; m++) {
		all_p += total[m];
		all_n += count[m];
	}
	if (!po->quiet) {
		group_title(l, gr, title, sizeof(title));
		unit_count(all_n, cnt, sizeof(cnt));
		fprintf(out, "# Samples: %s of events '%s'\n", cnt, title);
		fprintf(out, "# Event count (approx.): %" PRIu64 "\n#\n", all_p);
	}
	for (size_t j = 0; j < nc; j++)
		cols[j].sk = sort_key_get(h->opts.keys[j]);
	col_widths(l, h, cols, nc);
	if (!po->quiet)
		print_titles(out, po, cols, nc, gr->nr);
	for (size_t i = 0; i < gr->nr_g; i++) {
		const struct gentry *g = &gr->g[i];
		double p = pct(po->children ? g->children[0] : g->period[0], total[0]);

		if (po->percent_limit > 0 && p < po->percent_limit)
			continue;
		if (load_filters_frames(l) && !load_frame_wanted(l, &h->frames[g->e.frame]))
			continue;
		print_gentry(out, h, po, cols, nc, gr, g, total, count);
		if (po->callchain && g->e.tree && load_event_has_chains(l, gr->ev[0]))
			print_callchain(out, po, &h->entries[i], total[0]);
	}
	fprintf(out, "\n\n");
	return 0;
}

static int print_one_group(FILE *out, struct load *l, struct hist *h,
			   const struct print_opts *po, struct group *gr)
{
	int ret = print_group(out, l, h, po, gr);

	hmap_free(&gr->idx);
	free(gr->g);
	return ret ? -1 : 0;
}

/* prec --overwrite's tracking event: no section and no column, as in
 * print_report (perf skips empty events too) */
static bool empty_dummy(struct load *l, int e)
{
	return !strncmp(load_event_name(l, e), "dummy", 5) && !load_event_period(l, e);
}

int print_groups(FILE *out, struct load *l, struct hist *h, const struct print_opts *po)
{
	size_t nr = load_nr_events(l);
	bool any = print_has_groups(l);
	int ret = 0;

	for (size_t e = 0; e < nr && !ret; e++) {
		struct group gr = { .nr = 0, .anon = any, .children = po->children };
		int leader = load_event_group_leader(l, (int)e);

		if (any && leader >= 0 && leader != (int)e)
			continue;       /* printed with its leader */
		if (any && leader < 0) {
			if (!empty_dummy(l, (int)e))
				ret = print_event(out, l, h, po, (int)e);
			continue;
		}
		for (size_t m = e; m < nr && gr.nr < GROUP_MAX; m++)
			if ((!any && !empty_dummy(l, (int)m)) ||
			    (any && load_event_group_leader(l, (int)m) == (int)e))
				gr.ev[gr.nr++] = (int)m;
		if (!gr.nr)
			continue;
		if (po->event && strcmp(po->event, load_event_name(l, gr.ev[0])))
			continue;
		ret = print_one_group(out, l, h, po, &gr);
		if (!any)
			break;
	}
	return ret;
}
