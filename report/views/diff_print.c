/* SPDX-License-Identifier: MIT */
/*
 * prep diff's output. perf diff's layout (perf 6.1, stdio): "# Event
 * 'NAME'", with three files or more the "# Data files:" lines, then one
 * column per file (Baseline, then the compute column of each new file,
 * -F's Formula and -p's Period after each), suffixed "/N" from three files
 * on, right-aligned in their widths, then the sort keys as perf report
 * prints them. Empty cells are blank; a ratio or weighted difference of an
 * entry the baseline lacks is N/A. -t SEP: cells padded but not aligned,
 * SEP between them, no rule lines.
 *
 * With the noise statistics, the baseline's Spread and each new side's
 * Error, p and Verdict columns instead (no -F, -p), and a header line per
 * new side saying which test, correction and level decided.
 */
#include "diff_int.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#define PM "\xc2\xb1"           /* ± */

enum col_kind {
	COL_BASE, COL_BASE_PERIOD, COL_COMPUTE, COL_FORMULA, COL_PERIOD,
	COL_SPREAD, COL_ERROR, COL_P, COL_VERDICT, COL_KEY,
};

struct col {
	enum col_kind kind;
	size_t side, key;
	char title[64];
	int width;              /* in characters on the screen */
};

#define MAX_COLS (DIFF_MAX_SIDES * 4 + DIFF_MAX_KEYS)

struct layout {
	struct col c[MAX_COLS];
	size_t n;
	const struct dtable *t;
	const struct diff_print_opts *po;
};

/* characters on the screen: UTF-8 continuation bytes take none */
static int text_width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void pad(FILE *out, int n)
{
	for (int i = 0; i < n; i++)
		fputc(' ', out);
}

static void put_cell(FILE *out, const char *s, int width, bool right)
{
	int w = text_width(s);

	if (right)
		pad(out, width - w);
	fputs(s, out);
	if (!right)
		pad(out, width - w);
}

static const char *compute_title(const struct diff_calc_opts *o)
{
	switch (o->compute) {
	case DC_DELTA:
		return "Delta";
	case DC_DELTA_ABS:
		return "Delta Abs";
	case DC_RATIO:
		return "Ratio";
	case DC_WDIFF:
		return "Weighted diff";
	}
	return "";
}

/* perf's column widths: at least these, else the title's */
static int least_width(enum col_kind k, const struct diff_calc_opts *o)
{
	switch (k) {
	case COL_COMPUTE:
		return o->compute == DC_DELTA || o->compute == DC_DELTA_ABS ? 7 : 14;
	case COL_FORMULA:
		return 70;
	case COL_PERIOD:
	case COL_BASE_PERIOD:
		return 14;
	case COL_SPREAD:
	case COL_ERROR:
	case COL_P:
	case COL_VERDICT:
		return 7;
	default:
		return 0;
	}
}

static void add_col(struct layout *L, enum col_kind k, size_t side, const char *name)
{
	struct col *c = &L->c[L->n++];
	int w;

	c->kind = k;
	c->side = side;
	if (L->t->nr_sides > 2)
		snprintf(c->title, sizeof(c->title), "%s/%zu", name, side);
	else
		snprintf(c->title, sizeof(c->title), "%s", name);
	w = text_width(c->title);
	c->width = least_width(k, L->po->calc) > w ? least_width(k, L->po->calc) : w;
}

/* ---- cells ----------------------------------------------------------------- */

static void fmt_p(double p, char *buf, size_t n)
{
	if (p < 0.0001)
		snprintf(buf, n, "<0.0001");
	else
		snprintf(buf, n, "%.4f", p);
}

/* a compute, formula or period cell of new side s */
static void side_cell(const struct layout *L, const struct col *c, const struct drow *r,
		      char *buf, size_t n)
{
	const struct diff_calc_opts *o = L->po->calc;
	const struct dval *v = &r->v[c->side], *b = &r->v[0];

	if (!v->present)
		return;
	if (c->kind == COL_PERIOD) {
		snprintf(buf, n, "%" PRIu64, v->period);
	} else if (c->kind == COL_FORMULA && (o->compute == DC_DELTA || o->compute == DC_DELTA_ABS)) {
		snprintf(buf, n, "(%" PRIu64 " * 100 / %" PRIu64 ") - (%" PRIu64 " * 100 / %" PRIu64 ")",
			 v->period, L->t->total[c->side], b->period, L->t->total[0]);
	} else if (c->kind == COL_FORMULA && o->compute == DC_RATIO) {
		snprintf(buf, n, "%" PRIu64 " / %" PRIu64, v->period, b->period);
	} else if (c->kind == COL_FORMULA) {
		snprintf(buf, n, "(%" PRIu64 " * %" PRId64 ") - (%" PRIu64 " * %" PRId64 ")", v->period,
			 o->w2, b->period, o->w1);
	} else if (o->compute == DC_DELTA || o->compute == DC_DELTA_ABS) {
		snprintf(buf, n, "%+4.2f%%", v->delta);
	} else if (r->dummy) {
		snprintf(buf, n, "N/A");
	} else if (o->compute == DC_RATIO && (v->ratio > 0 || !L->po->sep)) {
		snprintf(buf, n, "%14.6f", v->ratio);
	} else if (o->compute == DC_WDIFF && (v->wdiff || !L->po->sep)) {
		snprintf(buf, n, "%14" PRId64, v->wdiff);
	}
}

/* perf prints a weighted difference 14 wide whatever its column's width
 * (its colour printer's format; -t aside), then pads it on the right as
 * it pads every cell short of its column */
static bool left_padded(const struct layout *L, const struct col *c, const struct drow *r)
{
	return c->kind == COL_COMPUTE && L->po->calc->compute == DC_WDIFF && !L->po->sep &&
	       !L->po->calc->noise && r->v[c->side].present && !r->dummy;
}

static void noise_cell(const struct layout *L, const struct col *c, const struct drow *r,
		       char *buf, size_t n)
{
	const struct dval *v = &r->v[c->side];

	if (c->kind == COL_SPREAD) {
		if (v->present)
			snprintf(buf, n, PM "%5.2f%%", v->spread);
		return;
	}
	if (!L->t->runs[0] || !L->t->runs[c->side] || (!v->present && !r->v[0].present))
		return;
	if (c->kind == COL_ERROR)
		snprintf(buf, n, PM "%5.2f%%", v->err);
	else if (c->kind == COL_P)
		fmt_p(v->p, buf, n);
	else
		snprintf(buf, n, "%s", v->changed ? "changed" : "noise");
}

/* The text of a cell; "" for an empty one. */
static void cell(const struct layout *L, const struct col *c, const struct drow *r, char *buf,
		 size_t n)
{
	const struct dval *b = &r->v[0];

	buf[0] = 0;
	switch (c->kind) {
	case COL_BASE:
		if (!r->dummy)
			snprintf(buf, n, L->po->sep ? "%.2f" : "%6.2f%%", b->share);
		break;
	case COL_BASE_PERIOD:
		snprintf(buf, n, "%" PRIu64, b->period);
		break;
	case COL_COMPUTE:
		if (L->po->calc->noise) {
			if (r->v[c->side].present || b->present)
				snprintf(buf, n, "%+4.2f%%", r->v[c->side].delta);
			break;
		}
		side_cell(L, c, r, buf, n);
		break;
	case COL_FORMULA:
	case COL_PERIOD:
		side_cell(L, c, r, buf, n);
		break;
	case COL_SPREAD:
	case COL_ERROR:
	case COL_P:
	case COL_VERDICT:
		noise_cell(L, c, r, buf, n);
		break;
	case COL_KEY:
		snprintf(buf, n, "%s", r->name->cell[c->key]);
		break;
	}
}

/* ---- layout ----------------------------------------------------------------- */

static bool shown(const struct diff_print_opts *po, const struct dtable *t, const struct drow *r)
{
	if (!po->significant)
		return true;
	for (size_t s = 1; s < t->nr_sides; s++)
		if (r->v[s].changed)
			return true;
	return false;
}

static void value_cols(struct layout *L)
{
	const struct diff_print_opts *po = L->po;
	const struct diff_calc_opts *o = po->calc;

	for (size_t s = 0; s < L->t->nr_sides; s++) {
		if (!s) {
			add_col(L, COL_BASE, 0, "Baseline");
			if (o->noise)
				add_col(L, COL_SPREAD, 0, "Spread");
			else if (po->show_period)
				add_col(L, COL_BASE_PERIOD, 0, "Base period");
			continue;
		}
		add_col(L, COL_COMPUTE, s, compute_title(o));
		if (o->noise) {
			add_col(L, COL_ERROR, s, "Error");
			add_col(L, COL_P, s, "p");
			add_col(L, COL_VERDICT, s, "Verdict");
			continue;
		}
		if (po->show_formula)
			add_col(L, COL_FORMULA, s, "Formula");
		if (po->show_period)
			add_col(L, COL_PERIOD, s, "Period");
	}
}

/* The sort keys' columns: as wide as their title (or the key's least
 * width) and their widest cell; an entry without a symbol widens the
 * shared object's to perf's 16 unless --dso chose the objects. */
static void key_cols(struct layout *L)
{
	const struct diff_print_opts *po = L->po;
	const struct diff_calc_opts *o = po->calc;
	size_t first = L->n;

	for (size_t k = 0; k < o->nr_keys; k++) {
		const struct sort_key *sk = sort_key_get(o->keys[k]);
		struct col *c;

		if (po->elide[k])
			continue;
		c = &L->c[L->n++];
		c->kind = COL_KEY;
		c->key = k;
		snprintf(c->title, sizeof(c->title), "%s", sk->title);
		c->width = sk->min_width ? sk->min_width : (int)strlen(sk->title);
	}
	for (size_t i = 0; i < L->t->nr; i++) {
		const struct drow *r = &L->t->rows[i];

		if (!shown(po, L->t, r))
			continue;
		for (size_t j = first; j < L->n; j++) {
			const struct sort_key *sk = sort_key_get(o->keys[L->c[j].key]);
			int w = text_width(r->name->cell[L->c[j].key]);

			if (sk->unresolved_width && !po->dso_list && r->name->unresolved &&
			    w < sk->unresolved_width)
				w = sk->unresolved_width;
			if (w > L->c[j].width)
				L->c[j].width = w;
		}
	}
}

static bool right_aligned(const struct layout *L, const struct col *c)
{
	return c->kind != COL_KEY || (sort_key_get(L->po->calc->keys[c->key])->flags & SK_RIGHT);
}

/* with -t, a separator in a name becomes '.' */
static void no_sep(const struct diff_print_opts *po, char *buf)
{
	size_t n = po->sep ? strlen(po->sep) : 0;

	for (char *p = buf; n && (p = strstr(p, po->sep)); p++)
		memset(p, '.', n);
}

static void print_titles(FILE *out, const struct layout *L)
{
	const char *sep = L->po->sep ? L->po->sep : "  ";

	fputs("# ", out);
	for (size_t j = 0; j < L->n; j++) {
		if (j)
			fputs(sep, out);
		put_cell(out, L->c[j].title, L->c[j].width, right_aligned(L, &L->c[j]));
	}
	fputc('\n', out);
	if (L->po->sep)
		return;
	fputs("# ", out);
	for (size_t j = 0; j < L->n; j++) {
		if (j)
			fputs("  ", out);
		for (int w = 0; w < L->c[j].width; w++)
			fputc('.', out);
	}
	fputs("\n#\n", out);
}

static void print_row(FILE *out, const struct layout *L, const struct drow *r)
{
	const char *sep = L->po->sep ? L->po->sep : "  ";
	char buf[4096];

	if (!L->po->sep)
		fputs("  ", out);
	for (size_t j = 0; j < L->n; j++) {
		const struct col *c = &L->c[j];
		bool last = j + 1 == L->n;

		cell(L, c, r, buf, sizeof(buf));
		if (j)
			fputs(sep, out);
		if (c->kind == COL_KEY)
			no_sep(L->po, buf);
		if (last && c->kind == COL_KEY && !right_aligned(L, c) &&
		    (sort_key_get(L->po->calc->keys[c->key])->flags & SK_SYMBOL_LIKE))
			fputs(buf, out);
		else
			put_cell(out, *buf || !L->po->sep ? buf : " ", c->width,
				 !L->po->sep && right_aligned(L, c) && !left_padded(L, c, r));
	}
	fputc('\n', out);
}

/* ---- headers ------------------------------------------------------------------ */

static void data_files(FILE *out, const struct diff_print_opts *po, const struct dtable *t)
{
	fprintf(out, "# Data files:\n");
	for (size_t s = 0; s < po->nr_sides; s++) {
		size_t k = t->runs[s];

		if (!po->calc->noise) {
			fprintf(out, "#  [%zu] %s %s\n", s, po->labels[s], s ? "" : "(Baseline)");
			continue;
		}
		fprintf(out, "#  [%zu] %s (%s%zu run%s%s)\n", s, po->labels[s], s ? "" : "Baseline, ",
			k, k == 1 ? "" : "s", k ? "" : " with this event");
	}
	fprintf(out, "#\n");
}

static const char *test_name(size_t a, size_t b)
{
	if (a == 1 && b == 1)
		return "z test of the two shares, from their sample counts";
	if (a > 1 && b > 1)
		return "Welch's t test of the runs' shares";
	return "t test of the runs' shares, the single run's sampling error taken as known";
}

static void noise_header(FILE *out, const struct diff_print_opts *po, const struct dtable *t)
{
	const struct diff_calc_opts *o = po->calc;

	for (size_t s = 1; s < t->nr_sides; s++) {
		size_t m = t->tested[s], all = t->considered[s];

		fprintf(out, "# Noise%s%.0zu: ", t->nr_sides > 2 ? "/" : "", t->nr_sides > 2 ? s : 0);
		if (!t->runs[0] || !t->runs[s]) {
			fprintf(out, "not tested, a side has no run with this event\n");
			continue;
		}
		fprintf(out, "%s (%zu against %zu run%s), ", test_name(t->runs[0], t->runs[s]),
			t->runs[s], t->runs[0], t->runs[0] == 1 ? "" : "s");
		if (o->correction == DCORR_NONE)
			fprintf(out, "p of each of %zu entr%s alone (no correction)", all,
				all == 1 ? "y" : "ies");
		else
			fprintf(out, "p adjusted by %s over %zu entr%s", o->correction == DCORR_HOLM ?
				"Holm's method" : "Benjamini-Hochberg's method (false discovery rate)",
				m, m == 1 ? "y" : "ies");
		if (o->correction != DCORR_NONE && m < all)
			fprintf(out, " (of %zu: the others have too few samples to pass, Tarone)", all);
		fprintf(out, "; changed where p < %g\n", o->alpha);
	}
	fprintf(out, "#\n");
}

void diff_print_event(FILE *out, const char *event, const struct dtable *t,
		      const struct diff_print_opts *po, bool first)
{
	struct layout L = { .t = t, .po = po };

	value_cols(&L);
	key_cols(&L);
	if (!po->quiet) {
		fprintf(out, "%s# Event '%s'\n#\n", first ? "" : "\n", event);
		if (po->data_files || po->calc->noise)
			data_files(out, po, t);
		if (po->calc->noise)
			noise_header(out, po, t);
		print_titles(out, &L);
	}
	for (size_t i = 0; i < t->nr; i++)
		if (shown(po, t, &t->rows[i]))
			print_row(out, &L, &t->rows[i]);
}
