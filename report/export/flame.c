/* SPDX-License-Identifier: MIT */
/*
 * Flame graphs; see flame.h. The stacks are merged into a tree here, in C,
 * and the page gets it flat, in preorder: per node its label, its value and
 * its depth (a node's subtree is the run of deeper nodes after it), so the
 * page lays out and draws even a million nodes without building objects.
 */
#include "flame.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/hash.h"
#include "flame_int.h"
#include "json.h"

/* the page: report/export/flamegraph.html, with the line PAGE_MARK where the data
 * goes (the Makefile makes flame.o depend on the file) */
__asm__(".pushsection .rodata\n"
	".globl prec_flame_page\n.hidden prec_flame_page\n"
	"prec_flame_page:\n"
	".incbin \"report/export/flamegraph.html\"\n"
	".byte 0\n"
	".popsection\n");
extern const char prec_flame_page[];
#define PAGE_MARK "<!--PREC-DATA-->"

/* labels past the frames: the command names, then the root */
enum { KIND_COMM = SF_NR_KINDS, KIND_ROOT };

struct fnode {
	uint32_t label;
	uint32_t parent;
	uint64_t value;
};

struct ftree {
	struct fnode *n;
	size_t nr, cap;
	struct hmap idx;
	/* labels: the stacks' frames, then comms, then "all" */
	const char **names;
	uint8_t *kinds;
	const struct dso **dsos;
	size_t nr_labels, cap_labels;
	/* preorder */
	uint32_t *order;
	uint32_t *depth;
	uint32_t max_depth;
};

static void ftree_free(struct ftree *t)
{
	free(t->n);
	hmap_free(&t->idx);
	free(t->names);
	free(t->kinds);
	free(t->dsos);
	free(t->order);
	free(t->depth);
	memset(t, 0, sizeof(*t));
}

static int add_label(struct ftree *t, const char *name, uint8_t kind, const struct dso *d)
{
	size_t c = t->cap_labels;

	if (array_grow((void **)&t->names, &c, t->nr_labels + 1, sizeof(*t->names)))
		return -ENOMEM;
	c = t->cap_labels;
	if (array_grow((void **)&t->kinds, &c, t->nr_labels + 1, sizeof(*t->kinds)))
		return -ENOMEM;
	c = t->cap_labels;
	if (array_grow((void **)&t->dsos, &c, t->nr_labels + 1, sizeof(*t->dsos)))
		return -ENOMEM;
	t->cap_labels = c;
	t->names[t->nr_labels] = name;
	t->kinds[t->nr_labels] = kind;
	t->dsos[t->nr_labels++] = d;
	return 0;
}

struct child_key {
	const struct ftree *t;
	uint32_t parent, label;
};

static bool child_eq(void *ctx, uint32_t idx)
{
	const struct child_key *k = ctx;

	return k->t->n[idx].parent == k->parent && k->t->n[idx].label == k->label;
}

static int child(struct ftree *t, uint32_t parent, uint32_t label, uint32_t *out)
{
	struct child_key k = { t, parent, label };
	uint64_t hv = hash_combine(hash_u64(parent), label);

	if (hmap_find(&t->idx, hv, child_eq, &k, out))
		return 0;
	if (array_grow((void **)&t->n, &t->cap, t->nr + 1, sizeof(*t->n)) ||
	    hmap_insert(&t->idx, hv, (uint32_t)t->nr))
		return -ENOMEM;
	t->n[t->nr] = (struct fnode){ .label = label, .parent = parent };
	*out = (uint32_t)t->nr++;
	return 0;
}

/* the label of a comm (comms are interned: equal names, equal pointers) */
static int comm_label(struct ftree *t, size_t first_comm, const char *comm, uint32_t *out)
{
	for (size_t i = first_comm; i < t->nr_labels; i++)
		if (t->names[i] == comm) {
			*out = (uint32_t)i;
			return 0;
		}
	if (add_label(t, comm, KIND_COMM, NULL))
		return -ENOMEM;
	*out = (uint32_t)t->nr_labels - 1;
	return 0;
}

struct kids_ctx {
	const uint32_t *label;
	const char *const *names;
};

static int cmp_kids(const void *pa, const void *pb, void *ctx)
{
	const struct kids_ctx *k = ctx;
	uint32_t la = k->label[*(const uint32_t *)pa], lb = k->label[*(const uint32_t *)pb];
	int c = strcmp(k->names[la], k->names[lb]);

	return c ? c : la < lb ? -1 : la > lb;
}

/* kids of node i: kids[first[i] .. first[i + 1]), in name order */
static void group_kids(size_t nr, const uint32_t *parent, const struct kids_ctx *k,
		       uint32_t *first, uint32_t *fill, uint32_t *kids)
{
	for (size_t i = 1; i < nr; i++)
		first[parent[i] + 1]++;
	for (size_t i = 0; i < nr; i++)
		first[i + 1] += first[i];
	for (size_t i = 1; i < nr; i++) {
		uint32_t p = parent[i];

		kids[first[p] + fill[p]++] = (uint32_t)i;
	}
	for (size_t i = 0; i < nr; i++)
		if (first[i + 1] - first[i] > 1)
			qsort_r(&kids[first[i]], first[i + 1] - first[i], sizeof(*kids), cmp_kids,
				(void *)k);
}

int flame_preorder(size_t nr, const uint32_t *parent, const uint32_t *label,
		   const char *const *names, uint32_t *order, uint32_t *depth, uint32_t *max_depth)
{
	struct kids_ctx kc = { label, names };
	uint32_t *first = calloc(nr + 1, sizeof(*first));
	uint32_t *fill = calloc(nr + 1, sizeof(*fill));
	uint32_t *kids = malloc((nr + 1) * sizeof(*kids));
	uint32_t *stack = malloc((nr + 1) * sizeof(*stack));
	size_t sp = 0, k = 0;
	int ret = 0;

	if (!first || !fill || !kids || !stack) {
		ret = -ENOMEM;
		goto out;
	}
	group_kids(nr, parent, &kc, first, fill, kids);
	/* preorder: push the kids in reverse so the first comes out first; a
	 * node's depth is its parent's plus one (fill: depth by node) */
	*max_depth = 0;
	stack[sp++] = 0;
	while (sp && nr) {
		uint32_t i = stack[--sp];
		uint32_t d = i ? fill[parent[i]] + 1 : 0;

		fill[i] = d;
		if (d > *max_depth)
			*max_depth = d;
		order[k++] = i;
		for (uint32_t j = first[i + 1]; j-- > first[i];)
			stack[sp++] = kids[j];
	}
	for (size_t i = 0; i < k; i++)
		depth[i] = fill[order[i]];
out:
	free(first);
	free(fill);
	free(kids);
	free(stack);
	return ret;
}

/* children in name order, then the nodes in preorder with their depths */
static int ftree_order(struct ftree *t)
{
	uint32_t *parent = malloc((t->nr + 1) * sizeof(*parent));
	uint32_t *label = malloc((t->nr + 1) * sizeof(*label));
	int ret = -ENOMEM;

	t->order = malloc((t->nr + 1) * sizeof(*t->order));
	t->depth = malloc((t->nr + 1) * sizeof(*t->depth));
	if (parent && label && t->order && t->depth) {
		t->n[0].parent = 0;
		for (size_t i = 0; i < t->nr; i++) {
			parent[i] = t->n[i].parent;
			label[i] = t->n[i].label;
		}
		ret = flame_preorder(t->nr, parent, label, t->names, t->order, t->depth,
				     &t->max_depth);
	}
	free(parent);
	free(label);
	return ret;
}

static int ftree_build(struct ftree *t, const struct stacks *s, const struct flame_opts *o)
{
	size_t first_comm;
	uint32_t root;

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < s->nr_frames; i++)
		if (add_label(t, s->frames[i].name, (uint8_t)s->frames[i].kind, s->frames[i].dso))
			goto nomem;
	first_comm = t->nr_labels;
	if (array_grow((void **)&t->n, &t->cap, 1, sizeof(*t->n)))
		goto nomem;
	t->n[t->nr++] = (struct fnode){ 0 };
	for (size_t i = 0; i < s->nr_stacks; i++) {
		const struct sstack *st = &s->stacks[i];
		uint32_t at = 0, label;

		uint64_t v = o->period ? st->period : st->count;

		t->n[0].value += v;
		if (!o->no_comm) {
			if (comm_label(t, first_comm, st->comm ? st->comm : "", &label) ||
			    child(t, at, label, &at))
				goto nomem;
			t->n[at].value += v;
		}
		for (uint32_t j = 0; j < st->nr; j++) {
			if (child(t, at, s->ids[st->first + j], &at))
				goto nomem;
			t->n[at].value += v;
		}
	}
	if (add_label(t, "all", KIND_ROOT, NULL))
		goto nomem;
	root = (uint32_t)t->nr_labels - 1;
	t->n[0].label = root;
	hmap_free(&t->idx);
	if (ftree_order(t))
		goto nomem;
	return 0;
nomem:
	ftree_free(t);
	return -ENOMEM;
}

/* ---- the page ------------------------------------------------------------ */

void flame_put_u32s(FILE *out, const char *key, const uint32_t *v, size_t n)
{
	fprintf(out, ",\n\"%s\":[", key);
	for (size_t i = 0; i < n; i++)
		fprintf(out, i ? ",%u" : "%u", v[i]);
	fputc(']', out);
}

static int write_data(FILE *out, const struct ftree *t, const struct flame_opts *o)
{
	const struct dso **dsos = calloc(t->nr_labels + 1, sizeof(*dsos));
	uint32_t *v = malloc((t->nr + 1) * sizeof(*v));
	size_t nd = 0;

	if (!dsos || !v) {
		free(dsos);
		free(v);
		return -ENOMEM;
	}
	fputs("<script type=\"application/json\" id=\"fg-data\">{\"title\":", out);
	json_string(out, o->title ? o->title : "Flame Graph");
	fputs(",\"subtitle\":", out);
	json_string(out, o->subtitle ? o->subtitle : "");
	fprintf(out, ",\"icicle\":%s,\"unit\":\"%s\",\n\"names\":[", o->icicle ? "true" : "false",
		o->period ? "ns" : "samples");
	for (size_t i = 0; i < t->nr_labels; i++) {
		if (i)
			fputc(',', out);
		json_string(out, t->names[i]);
	}
	fputs("],\n\"kinds\":[", out);
	for (size_t i = 0; i < t->nr_labels; i++)
		fprintf(out, i ? ",%u" : "%u", t->kinds[i]);
	/* the dso of each label, as an index into "dsos" (-1: none) */
	fputs("],\n\"ldso\":[", out);
	for (size_t i = 0; i < t->nr_labels; i++) {
		size_t j = 0;

		if (i)
			fputc(',', out);
		if (!t->dsos[i]) {
			fputs("-1", out);
			continue;
		}
		while (j < nd && dsos[j] != t->dsos[i])
			j++;
		if (j == nd)
			dsos[nd++] = t->dsos[i];
		fprintf(out, "%zu", j);
	}
	fputs("],\n\"dsos\":[", out);
	for (size_t i = 0; i < nd; i++) {
		if (i)
			fputc(',', out);
		json_string(out, dsos[i]->kernel ? dsos[i]->short_name : dsos[i]->path);
	}
	fputc(']', out);
	if (o->annot) {
		struct flame_labels fl = { (const char *const *)t->names, t->kinds,
					   (const struct dso *const *)t->dsos, t->nr_labels,
					   o->annot, o->event, o->period };
		int ret = flame_write_annot(out, &fl, t->n[0].value);

		if (ret) {
			free(dsos);
			free(v);
			return ret;
		}
	}
	for (size_t i = 0; i < t->nr; i++)
		v[i] = t->n[t->order[i]].label;
	flame_put_u32s(out, "label", v, t->nr);
	fputs(",\n\"value\":[", out);
	for (size_t i = 0; i < t->nr; i++)
		fprintf(out, i ? ",%" PRIu64 : "%" PRIu64, t->n[t->order[i]].value);
	fputc(']', out);
	flame_put_u32s(out, "depth", t->depth, t->nr);
	fputs("}</script>\n", out);
	free(dsos);
	free(v);
	return 0;
}

int flame_write_page(FILE *out, int (*data)(FILE *out, void *ctx), void *ctx)
{
	const char *mark = strstr(prec_flame_page, PAGE_MARK);
	int ret;

	if (!mark)
		return -EINVAL;
	fwrite(prec_flame_page, 1, (size_t)(mark - prec_flame_page), out);
	ret = data(out, ctx);
	fputs(mark + strlen(PAGE_MARK), out);
	if (!ret && ferror(out))
		ret = -EIO;
	return ret;
}

struct page_ctx {
	const struct ftree *t;
	const struct flame_opts *o;
};

static int page_data(FILE *out, void *ctx)
{
	const struct page_ctx *pc = ctx;

	return write_data(out, pc->t, pc->o);
}

int flame_write_html(FILE *out, const struct stacks *s, const struct flame_opts *o)
{
	struct ftree t;
	struct page_ctx pc = { &t, o };
	int ret;

	if ((ret = ftree_build(&t, s, o)))
		return ret;
	ret = flame_write_page(out, page_data, &pc);
	ftree_free(&t);
	return ret;
}

/* ---- the SVG ------------------------------------------------------------- */

/* The colour of a label: a hue band per kind, varied by a hash of the name
 * so that neighbours differ (the page computes the same). */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static void label_hsl(uint8_t kind, const char *name, double *h, double *s, double *l)
{
	uint32_t x = name_hash(name);
	double a = (double)(x & 0xff) / 255.0, b = (double)((x >> 8) & 0xff) / 255.0;

	switch (kind) {
	case SF_USER: *h = 8 + 30 * a; *s = 80; *l = 58 + 10 * b; break;
	case SF_LIB: *h = 44 + 14 * a; *s = 75; *l = 52 + 10 * b; break;
	case SF_KERNEL: *h = 200 + 22 * a; *s = 60; *l = 62 + 10 * b; break;
	case SF_INLINE: *h = 160 + 16 * a; *s = 50; *l = 55 + 10 * b; break;
	case KIND_COMM: *h = 270; *s = 35; *l = 78; break;
	case KIND_ROOT: *h = 0; *s = 0; *l = 82; break;
	default: *h = 0; *s = 0; *l = 66 + 10 * b; break;
	}
}

static void hsl_rgb(double h, double s, double l, int *r, int *g, int *b)
{
	double c, x, m, rgb[3] = { 0 };
	int sector;

	s /= 100;
	l /= 100;
	c = (1 - (2 * l - 1 < 0 ? 1 - 2 * l : 2 * l - 1)) * s;
	sector = (int)(h / 60) % 6;
	x = h / 60 - 2 * (int)(h / 120);        /* h/60 mod 2 */
	x = c * (1 - (x - 1 < 0 ? 1 - x : x - 1));
	m = l - c / 2;
	switch (sector) {
	case 0: rgb[0] = c; rgb[1] = x; break;
	case 1: rgb[0] = x; rgb[1] = c; break;
	case 2: rgb[1] = c; rgb[2] = x; break;
	case 3: rgb[1] = x; rgb[2] = c; break;
	case 4: rgb[0] = x; rgb[2] = c; break;
	default: rgb[0] = c; rgb[2] = x; break;
	}
	*r = (int)((rgb[0] + m) * 255 + 0.5);
	*g = (int)((rgb[1] + m) * 255 + 0.5);
	*b = (int)((rgb[2] + m) * 255 + 0.5);
}

/* XML text of at most max bytes (cut at a character's start): markup
 * characters escaped, control bytes dropped, bytes that are not UTF-8 '?' */
static void xml_text(FILE *out, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + strnlen(s, max);

	while (p < end) {
		int n = utf8_len(p);

		if (n > 1) {
			if (p + n > end)
				break;
			fwrite(p, 1, (size_t)n, out);
			p += n;
			continue;
		}
		if (*p == '&')
			fputs("&amp;", out);
		else if (*p == '<')
			fputs("&lt;", out);
		else if (*p == '>')
			fputs("&gt;", out);
		else if (*p == '"')
			fputs("&quot;", out);
		else if (!n)
			fputc('?', out);
		else if (*p >= 0x20 && *p != 0x7f)
			fputc(*p, out);
		p++;
	}
}

#define SVG_ROW 17
#define SVG_TOP 54
#define SVG_PAD 10
#define SVG_CHAR 7.2    /* 12px monospace */

int flame_write_svg(FILE *out, const struct stacks *s, const struct flame_opts *o)
{
	static const char *const legend[] = { "user", "library", "kernel", "inlined", "other" };
	struct ftree t;
	double *cursor, *x, scale, total;
	int width = o->width > 0 ? o->width : 1200, height, ret;

	if ((ret = ftree_build(&t, s, o)))
		return ret;
	cursor = calloc(t.max_depth + 2, sizeof(*cursor));
	x = malloc((t.nr + 1) * sizeof(*x));
	if (!cursor || !x) {
		ret = -ENOMEM;
		goto out;
	}
	total = (double)t.n[0].value;
	scale = total > 0 ? (width - 2.0 * SVG_PAD) / total : 0;
	height = SVG_TOP + (int)(t.max_depth + 1) * SVG_ROW + SVG_PAD;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"monospace\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
		"<text x=\"%d\" y=\"20\" font-size=\"16\" font-family=\"sans-serif\">", width, height,
		width, height, SVG_PAD);
	xml_text(out, o->title ? o->title : "Flame Graph", 4096);
	fputs("</text>\n<text x=\"", out);
	fprintf(out, "%d\" y=\"40\" fill=\"#555\">", SVG_PAD);
	xml_text(out, o->subtitle ? o->subtitle : "", 4096);
	fprintf(out, " (%.0f %s)</text>\n", total, o->period ? "ns" : "samples");
	for (int k = 0; k < 5; k++) {
		double h, sa, l;
		int r, g, b;

		label_hsl((uint8_t)k, "", &h, &sa, &l);
		hsl_rgb(h, sa, l, &r, &g, &b);
		fprintf(out, "<rect x=\"%d\" y=\"29\" width=\"60\" height=\"15\" fill=\"#%02x%02x%02x\"/>"
			"<text x=\"%d\" y=\"40\" font-size=\"11\">%s</text>\n",
			width - SVG_PAD - (5 - k) * 64, r, g, b, width - SVG_PAD - (5 - k) * 64 + 3,
			legend[k]);
	}
	/* x of a node: where its parent's running cursor is when it comes up
	 * in preorder; a node's kids start at its own x */
	for (size_t i = 0; i < t.nr; i++) {
		const struct fnode *n = &t.n[t.order[i]];
		uint32_t d = t.depth[i];
		double w = (double)n->value * scale, h, sa, l;
		const char *name = t.names[n->label];
		int r, g, b;
		size_t fit;

		x[i] = cursor[d];
		cursor[d] += (double)n->value;
		cursor[d + 1] = x[i];
		if (w < 0.1)
			continue;
		label_hsl(t.kinds[n->label], name, &h, &sa, &l);
		hsl_rgb(h, sa, l, &r, &g, &b);
		fputs("<g><title>", out);
		xml_text(out, name, 4096);
		fprintf(out, " (%" PRIu64 " %s, %.2f%%)</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
			"height=\"%d\" fill=\"#%02x%02x%02x\" rx=\"2\"/>", n->value,
			o->period ? "ns" : "samples",
			total > 0 ? 100.0 * (double)n->value / total : 0.0, SVG_PAD + x[i] * scale,
			SVG_TOP + (int)(t.max_depth - d) * SVG_ROW, w, SVG_ROW - 1, r, g, b);
		fit = w > 3 * SVG_CHAR + 6 ? (size_t)((w - 6) / SVG_CHAR) : 0;
		if (fit) {
			size_t len = strlen(name);

			fprintf(out, "<text x=\"%.1f\" y=\"%d\">", SVG_PAD + x[i] * scale + 3,
				SVG_TOP + (int)(t.max_depth - d) * SVG_ROW + SVG_ROW - 5);
			xml_text(out, name, len > fit ? fit - 2 : len);
			fputs(len > fit ? "..</text>" : "</text>", out);
		}
		fputs("</g>\n", out);
	}
	fputs("</svg>\n", out);
	if (ferror(out))
		ret = -EIO;
out:
	free(cursor);
	free(x);
	ftree_free(&t);
	return ret;
}
