/* SPDX-License-Identifier: MIT */
/* The two sides' call trees merged by name path; see difftree.h. */
#include "difftree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/stats.h"

/* labels: a frame by (name, dso basename), a command by its name, the root */
enum { CLASS_FRAME, CLASS_COMM, CLASS_ROOT };

static int label_class(uint8_t kind)
{
	return kind == DT_COMM ? CLASS_COMM : kind == DT_ROOT ? CLASS_ROOT : CLASS_FRAME;
}

const char *difftree_str(const struct difftree *t, uint32_t off)
{
	return (const char *)t->strings.data + off;
}

size_t difftree_col(const struct difftree *t, enum diff_side side, size_t run)
{
	return side == DIFF_OLD ? run : t->runs[DIFF_OLD] + run;
}

void difftree_free(struct difftree *t)
{
	if (!t)
		return;
	free(t->totals);
	free(t->samples);
	free(t->parent);
	free(t->label);
	free(t->counts);
	free(t->labels);
	buf_free(&t->strings);
	hmap_free(&t->label_idx);
	hmap_free(&t->child_idx);
	memset(t, 0, sizeof(*t));
}

static int add_string(struct difftree *t, const char *s, uint32_t *off)
{
	size_t n = strlen(s) + 1;

	if (t->strings.len + n > UINT32_MAX || buf_append(&t->strings, s, n))
		return -ENOMEM;
	*off = (uint32_t)(t->strings.len - n);
	return 0;
}

struct label_key {
	const struct difftree *t;
	int cls;
	const char *name, *dso;
};

static bool label_eq(void *ctx, uint32_t idx)
{
	const struct label_key *k = ctx;
	const struct dlabel *l = &k->t->labels[idx];

	return label_class(l->kind) == k->cls && !strcmp(difftree_str(k->t, l->name), k->name) &&
	       !strcmp(difftree_str(k->t, l->dso), k->dso);
}

/* The label of (name, dso basename) of kind's class; path and kind kept
 * from the first side that has it, NEW's preferred. */
static int label_id(struct difftree *t, const char *name, const char *dso, const char *path,
		    uint8_t kind, bool from_new, uint32_t *id)
{
	struct label_key k = { t, label_class(kind), name, dso ? dso : "" };
	uint64_t hv = hash_combine(hash_bytes(name, strlen(name), (uint64_t)k.cls),
				   hash_bytes(k.dso, strlen(k.dso), 0));
	struct dlabel l = { .kind = kind, .seen_new = from_new };

	if (hmap_find(&t->label_idx, hv, label_eq, &k, id)) {
		struct dlabel *have = &t->labels[*id];

		if (from_new && !have->seen_new) {
			have->seen_new = true;
			have->kind = kind;
			if (path && add_string(t, path, &have->path))
				return -ENOMEM;
		}
		return 0;
	}
	if (array_grow((void **)&t->labels, &t->cap_labels, t->nr_labels + 1, sizeof(*t->labels)) ||
	    add_string(t, name, &l.name) || (*k.dso && add_string(t, k.dso, &l.dso)) ||
	    (path && add_string(t, path, &l.path)) ||
	    hmap_insert(&t->label_idx, hv, (uint32_t)t->nr_labels))
		return -ENOMEM;
	*id = (uint32_t)t->nr_labels;
	t->labels[t->nr_labels++] = l;
	return 0;
}

struct child_key {
	const struct difftree *t;
	uint32_t parent, label;
};

static bool child_eq(void *ctx, uint32_t idx)
{
	const struct child_key *k = ctx;

	return k->t->parent[idx] == k->parent && k->t->label[idx] == k->label;
}

/* grow the node arrays to hold n nodes (counts zeroed) */
static int grow_nodes(struct difftree *t, size_t n)
{
	size_t cap = t->cap;
	uint64_t *c;

	if (n <= t->cap)
		return 0;
	if (array_grow((void **)&t->parent, &cap, n, sizeof(*t->parent)))
		return -ENOMEM;
	cap = t->cap;
	if (array_grow((void **)&t->label, &cap, n, sizeof(*t->label)))
		return -ENOMEM;
	if (!(c = array_realloc(t->counts, cap, t->cols * sizeof(*t->counts))))
		return -ENOMEM;
	memset(c + t->cap * t->cols, 0, (cap - t->cap) * t->cols * sizeof(*c));
	t->counts = c;
	t->cap = cap;
	return 0;
}

static int child(struct difftree *t, uint32_t parent, uint32_t label, uint32_t *out)
{
	struct child_key k = { t, parent, label };
	uint64_t hv = hash_combine(hash_u64(parent), label);

	if (hmap_find(&t->child_idx, hv, child_eq, &k, out))
		return 0;
	if (t->nr >= UINT32_MAX || grow_nodes(t, t->nr + 1) ||
	    hmap_insert(&t->child_idx, hv, (uint32_t)t->nr))
		return -ENOMEM;
	t->parent[t->nr] = parent;
	t->label[t->nr] = label;
	*out = (uint32_t)t->nr++;
	return 0;
}

int difftree_init(struct difftree *t, size_t nr_old, size_t nr_new, bool no_comm)
{
	uint32_t root;

	memset(t, 0, sizeof(*t));
	t->runs[DIFF_OLD] = nr_old;
	t->runs[DIFF_NEW] = nr_new;
	t->cols = nr_old + nr_new;
	t->no_comm = no_comm;
	if (!nr_old || !nr_new || !(t->totals = calloc(t->cols, sizeof(*t->totals))) ||
	    !(t->samples = calloc(t->cols, sizeof(*t->samples))) ||
	    buf_append(&t->strings, "", 1) || label_id(t, "all", NULL, NULL, DT_ROOT, true, &root) ||
	    grow_nodes(t, 1)) {
		difftree_free(t);
		return -ENOMEM;
	}
	t->parent[0] = 0;
	t->label[0] = root;
	t->nr = 1;
	return 0;
}

/* the label of each frame of s, once (frames[i] -> ids[i]) */
static int frame_labels(struct difftree *t, const struct stacks *s, bool from_new, uint32_t *ids)
{
	for (size_t i = 0; i < s->nr_frames; i++) {
		const struct sframe *f = &s->frames[i];

		if (label_id(t, f->name, f->dso ? f->dso->short_name : NULL, sframe_dso_name(f),
			     (uint8_t)f->kind, from_new, &ids[i]))
			return -ENOMEM;
	}
	return 0;
}

int difftree_add(struct difftree *t, enum diff_side side, size_t run, const struct stacks *s,
		 bool durations)
{
	size_t col = difftree_col(t, side, run);
	uint32_t *ids = calloc(s->nr_frames + 1, sizeof(*ids));
	int ret = ids ? frame_labels(t, s, side == DIFF_NEW, ids) : -ENOMEM;

	t->durations |= durations;
	for (size_t i = 0; i < s->nr_stacks && !ret; i++) {
		const struct sstack *st = &s->stacks[i];
		uint64_t w = durations ? st->period : st->count;
		uint32_t at = 0, label;

		t->counts[col] += w;
		t->totals[col] += w;
		t->samples[col] += st->count;
		if (!t->no_comm) {
			ret = label_id(t, st->comm ? st->comm : "", NULL, NULL, DT_COMM,
				       side == DIFF_NEW, &label);
			if (ret || (ret = child(t, at, label, &at)))
				break;
			t->counts[(size_t)at * t->cols + col] += w;
		}
		for (uint32_t j = 0; j < st->nr && !ret; j++) {
			ret = child(t, at, ids[s->ids[st->first + j]], &at);
			if (!ret)
				t->counts[(size_t)at * t->cols + col] += w;
		}
	}
	free(ids);
	return ret;
}

uint64_t *difftree_self(const struct difftree *t)
{
	uint64_t *self = malloc(t->nr * t->cols * sizeof(*self) + 1);

	if (!self)
		return NULL;
	memcpy(self, t->counts, t->nr * t->cols * sizeof(*self));
	for (size_t i = 1; i < t->nr; i++)
		for (size_t c = 0; c < t->cols; c++)
			self[t->parent[i] * t->cols + c] -= t->counts[i * t->cols + c];
	return self;
}

/* ---- significance ---------------------------------------------------------- */

void difftest_free(struct difftest *d)
{
	if (!d)
		return;
	for (int m = 0; m < DT_NR_METRICS; m++)
		free(d->p[m]);
	free(d->sig);
	memset(d, 0, sizeof(*d));
}

/* p of one node's change, v its counts per column; 2 when not tested. The
 * z test counts samples: with durations, a node's samples are taken as its
 * share of the run's weight times the run's samples (prep diff's model: the
 * share from the periods, its error from the sample count). */
static double node_p(const struct difftree *t, const uint64_t *v, bool welch, double min_share,
		     double *x)
{
	struct stats_test st;
	size_t no = t->runs[DIFF_OLD], nn = t->runs[DIFF_NEW];
	double k[2] = { 0, 0 }, n[2] = { 0, 0 }, mean;
	bool any = false;

	for (size_t c = 0; c < t->cols; c++) {
		any |= v[c] > 0;
		x[c] = t->totals[c] ? (double)v[c] / (double)t->totals[c] : 0;
		k[c >= no] += t->durations ? x[c] * (double)t->samples[c] : (double)v[c];
		n[c >= no] += (double)(t->durations ? t->samples[c] : t->totals[c]);
	}
	/* the mean of the sides' mean shares: blind to the change */
	mean = (stats_mean(x, no) + stats_mean(x + no, nn)) / 2;
	if (!any || mean < min_share)
		return 2;
	if (welch) {
		if (stats_welch(stats_mean(x, no), stats_var(x, no), no, stats_mean(x + no, nn),
				stats_var(x + no, nn), nn, &st))
			return 1;
		return st.p;
	}
	return stats_two_shares(k[0], n[0], k[1], n[1], &st) ? 1 : st.p;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Benjamini-Hochberg: the largest p(k) <= k alpha / m, of the m values < 2 */
static int bh_cut(const double *p, size_t nr, double alpha, size_t *tested, double *cut)
{
	double *s = malloc((nr + 1) * sizeof(*s));
	size_t m = 0;

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++)
		if (p[i] < 2)
			s[m++] = p[i];
	qsort(s, m, sizeof(*s), cmp_double);
	*tested = m;
	*cut = -1;
	for (size_t k = m; k-- > 0;)
		if (s[k] <= (double)(k + 1) * alpha / (double)m) {
			*cut = s[k];
			break;
		}
	free(s);
	return 0;
}

int difftree_test(const struct difftree *t, double alpha, double min_share,
		  struct difftest *out)
{
	uint64_t *self = difftree_self(t);
	double *x = malloc((t->cols + 1) * sizeof(*x));
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->welch = t->runs[DIFF_OLD] >= 2 && t->runs[DIFF_NEW] >= 2;
	out->alpha = alpha;
	out->min_share = min_share;
	out->sig = calloc(t->nr + 1, sizeof(*out->sig));
	for (int m = 0; m < DT_NR_METRICS; m++)
		out->p[m] = malloc((t->nr + 1) * sizeof(*out->p[m]));
	if (!self || !x || !out->sig || !out->p[DT_TOTAL] || !out->p[DT_SELF]) {
		ret = -ENOMEM;
		goto out;
	}
	for (int m = 0; m < DT_NR_METRICS && !ret; m++) {
		const uint64_t *v = m == DT_TOTAL ? t->counts : self;

		out->p[m][0] = 2;       /* the root: 100% a side, always */
		for (size_t i = 1; i < t->nr; i++)
			out->p[m][i] = node_p(t, v + i * t->cols, out->welch, min_share, x);
		ret = bh_cut(out->p[m], t->nr, alpha, &out->tested[m], &out->cut[m]);
		for (size_t i = 0; i < t->nr && !ret; i++) {
			if (out->p[m][i] < 2)
				out->sig[i] |= (uint8_t)DT_TESTED(m);
			if (out->p[m][i] < 2 && out->p[m][i] <= out->cut[m]) {
				out->sig[i] |= (uint8_t)DT_MARKED(m);
				out->marked[m]++;
			}
			if (out->p[m][i] > 1)
				out->p[m][i] = 1;
		}
	}
out:
	free(self);
	free(x);
	if (ret)
		difftest_free(out);
	return ret;
}
