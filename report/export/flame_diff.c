/* SPDX-License-Identifier: MIT */
/*
 * The differential flame graph page (prep flamegraph --diff): the merged
 * tree of difftree.h in the page's data, laid out as flame.c lays out a
 * single profile's (labels, then per node in preorder its label, value and
 * depth), the value being NEW's samples (all its runs; nanoseconds, "unit"
 * "ns", for durations: difftree.h), plus a "diff"
 * object the page colours by:
 *
 *   "runs":[OLD runs, NEW runs], "totals":[[per OLD run],[per NEW run]],
 *   "old":[OLD's samples per node, all its runs],
 *   "r_old":[[per node] per run], "r_new":... (only with several runs a side),
 *   "p_total":[...], "p_self":[...] (per node, 3 digits; 1: not tested),
 *   "sig":[per node: 1, 2 its total, self change marked; 4, 8 tested],
 *   "test":"welch"|"z", "alpha":A, "min_share":PCT, "tested":[total, self],
 *   "marked":[...],
 *   "cut":[...] (Benjamini-Hochberg: p <= cut is marked; -1: none).
 *
 * The page computes the shares (count / the run's total), their mean and
 * spread over a side's runs and the self counts (a node less its
 * children) from these; the p values and marks are this file's, from
 * common/stats.h through difftree_test.
 */
#include "flame.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "difftree.h"
#include "flame_int.h"
#include "json.h"

struct dpage {
	const struct difftree *t;
	const struct difftest *dt;
	const struct flame_opts *o;
	const char **names;     /* per label */
	uint32_t *order, *depth, max_depth;
};

/* ,\n"KEY":[column c of every node, in preorder] (c < 0: NEW's sum) */
static void put_col(FILE *out, const char *key, const struct dpage *pg, long c, enum diff_side side)
{
	const struct difftree *t = pg->t;

	if (key)
		fprintf(out, ",\n\"%s\":", key);
	fputc('[', out);
	for (size_t k = 0; k < t->nr; k++) {
		const uint64_t *v = &t->counts[(size_t)pg->order[k] * t->cols];
		uint64_t x = 0;

		if (c >= 0)
			x = v[c];
		else
			for (size_t r = 0; r < t->runs[side]; r++)
				x += v[difftree_col(t, side, r)];
		fprintf(out, k ? ",%" PRIu64 : "%" PRIu64, x);
	}
	fputc(']', out);
}

struct path_key {
	const struct difftree *t;
	const uint32_t *dsos;
	const char *s;
};

static bool path_eq(void *ctx, uint32_t idx)
{
	const struct path_key *k = ctx;

	return !strcmp(difftree_str(k->t, k->dsos[idx]), k->s);
}

/* the labels: names, kinds, their binaries (indexes into "dsos", one per path) */
static int put_labels(FILE *out, const struct dpage *pg)
{
	const struct difftree *t = pg->t;
	uint32_t *dsos = malloc((t->nr_labels + 1) * sizeof(*dsos));
	struct hmap idx = HMAP_INIT;
	size_t nd = 0;
	int ret = 0;

	if (!dsos)
		return -ENOMEM;
	fputs("\"names\":[", out);
	for (size_t i = 0; i < t->nr_labels; i++) {
		if (i)
			fputc(',', out);
		json_string(out, pg->names[i]);
	}
	fputs("],\n\"kinds\":[", out);
	for (size_t i = 0; i < t->nr_labels; i++)
		fprintf(out, i ? ",%u" : "%u", t->labels[i].kind);
	fputs("],\n\"ldso\":[", out);
	for (size_t i = 0; i < t->nr_labels && !ret; i++) {
		uint32_t path = t->labels[i].path, j;
		struct path_key k = { t, dsos, difftree_str(t, path) };
		uint64_t hv = hash_bytes(k.s, strlen(k.s), 0);

		if (i)
			fputc(',', out);
		if (!path) {
			fputs("-1", out);
			continue;
		}
		if (!hmap_find(&idx, hv, path_eq, &k, &j)) {
			j = (uint32_t)nd;
			dsos[nd++] = path;
			ret = hmap_insert(&idx, hv, j);
		}
		fprintf(out, "%u", j);
	}
	fputs("],\n\"dsos\":[", out);
	for (size_t i = 0; i < nd; i++) {
		if (i)
			fputc(',', out);
		json_string(out, difftree_str(t, dsos[i]));
	}
	fputc(']', out);
	hmap_free(&idx);
	free(dsos);
	return ret;
}

static void put_p(FILE *out, const char *key, const struct dpage *pg, const double *p)
{
	fprintf(out, ",\n\"%s\":[", key);
	for (size_t k = 0; k < pg->t->nr; k++)
		fprintf(out, k ? ",%.3g" : "%.3g", p[pg->order[k]]);
	fputc(']', out);
}

static void put_runs(FILE *out, const char *key, const struct dpage *pg, enum diff_side side)
{
	fprintf(out, ",\n\"%s\":[", key);
	for (size_t r = 0; r < pg->t->runs[side]; r++) {
		if (r)
			fputs(",\n", out);
		put_col(out, NULL, pg, (long)difftree_col(pg->t, side, r), side);
	}
	fputc(']', out);
}

static void put_diff(FILE *out, const struct dpage *pg)
{
	const struct difftree *t = pg->t;
	const struct difftest *dt = pg->dt;

	fprintf(out, ",\n\"diff\":{\"runs\":[%zu,%zu],\"totals\":[", t->runs[DIFF_OLD], t->runs[DIFF_NEW]);
	for (int s = 0; s < 2; s++) {
		fputs(s ? "],[" : "[", out);
		for (size_t r = 0; r < t->runs[s]; r++)
			fprintf(out, r ? ",%" PRIu64 : "%" PRIu64,
				t->totals[difftree_col(t, (enum diff_side)s, r)]);
	}
	fprintf(out, "]],\"test\":\"%s\",\"alpha\":%g,\"min_share\":%g,\"tested\":[%zu,%zu],"
		"\"marked\":[%zu,%zu],\"cut\":[%.3g,%.3g]", dt->welch ? "welch" : "z", dt->alpha,
		100 * dt->min_share, dt->tested[DT_TOTAL],
		dt->tested[DT_SELF], dt->marked[DT_TOTAL], dt->marked[DT_SELF], dt->cut[DT_TOTAL],
		dt->cut[DT_SELF]);
	put_col(out, "old", pg, -1, DIFF_OLD);
	if (t->runs[DIFF_OLD] > 1)
		put_runs(out, "r_old", pg, DIFF_OLD);
	if (t->runs[DIFF_NEW] > 1)
		put_runs(out, "r_new", pg, DIFF_NEW);
	put_p(out, "p_total", pg, dt->p[DT_TOTAL]);
	put_p(out, "p_self", pg, dt->p[DT_SELF]);
	fputs(",\n\"sig\":[", out);
	for (size_t k = 0; k < t->nr; k++)
		fprintf(out, k ? ",%u" : "%u", dt->sig[pg->order[k]]);
	fputs("]}", out);
}

static int diff_data(FILE *out, void *ctx)
{
	const struct dpage *pg = ctx;
	const struct difftree *t = pg->t;
	uint32_t *v = malloc((t->nr + 1) * sizeof(*v));
	int ret;

	if (!v)
		return -ENOMEM;
	fputs("<script type=\"application/json\" id=\"fg-data\">{\"title\":", out);
	json_string(out, pg->o->title ? pg->o->title : "Differential Flame Graph");
	fputs(",\"subtitle\":", out);
	json_string(out, pg->o->subtitle ? pg->o->subtitle : "");
	fprintf(out, ",\"icicle\":%s,\"unit\":\"%s\",\n", pg->o->icicle ? "true" : "false",
		pg->t->durations ? "ns" : "samples");
	ret = put_labels(out, pg);
	for (size_t k = 0; k < t->nr; k++)
		v[k] = t->label[pg->order[k]];
	flame_put_u32s(out, "label", v, t->nr);
	put_col(out, "value", pg, -1, DIFF_NEW);
	flame_put_u32s(out, "depth", pg->depth, t->nr);
	put_diff(out, pg);
	fputs("}</script>\n", out);
	free(v);
	return ret;
}

int flame_write_diff_html(FILE *out, const struct difftree *t, const struct difftest *dt,
			  const struct flame_opts *o)
{
	struct dpage pg = { .t = t, .dt = dt, .o = o };
	int ret = -ENOMEM;

	pg.names = malloc((t->nr_labels + 1) * sizeof(*pg.names));
	pg.order = malloc((t->nr + 1) * sizeof(*pg.order));
	pg.depth = malloc((t->nr + 1) * sizeof(*pg.depth));
	if (pg.names && pg.order && pg.depth) {
		for (size_t i = 0; i < t->nr_labels; i++)
			pg.names[i] = difftree_str(t, t->labels[i].name);
		ret = flame_preorder(t->nr, t->parent, t->label, pg.names, pg.order, pg.depth,
				     &pg.max_depth);
	}
	if (!ret)
		ret = flame_write_page(out, diff_data, &pg);
	free(pg.names);
	free(pg.order);
	free(pg.depth);
	return ret;
}
