// SPDX-License-Identifier: MIT
/*
 * prep annotate's printer: one symbol as perf annotate --stdio prints it.
 * Its code is read (report/symbols/code.h) and disassembled, the samples
 * are summed per instruction, and each instruction is printed with one
 * column per event, after the source line (report/symbols/srctext.h) where
 * the line changes and a mark where an inlined function starts.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "annotate_int.h"
#include "annotate_lines.h"
#include "common/buf.h"
#include "report/aggregate/hist.h"
#include "report/symbols/code.h"
#include "outbuf.h"

#define CODE_MAX (1u << 20)     /* bytes of one symbol disassembled at most */
/* an instruction after its columns, a source line after its empty ones */
#define INSN_FMT " :   %" PRIx64 ":   "
#define SRC_FMT " %-5u"
#define COLOR_RED "\033[31m"
#define COLOR_GREEN "\033[32m"
#define COLOR_RESET "\033[m"

struct sym_print {
	struct annot_ctx *c;
	struct annot_sym *s;
	struct symbolizer *sz;
	struct sym_dso *sd;
	struct sym_dso *fd;     /* the binary's own file (sd may be the recording's
				   embedded symbols of the functions hit only) */
	struct annot_insn *insns;
	size_t nr;
	uint64_t *count;        /* per instruction and column: [i * c->nr_events + col] */
	uint64_t *period;
	size_t col0, ncols;     /* the columns of this block */
	const char *last_file, *last_fn;
	unsigned last_line;
	struct obuf *ob;        /* c->out, buffered */
};

/* The file offset of a vaddr of the dso (its PT_LOAD headers). */
static uint64_t vaddr_off(const struct sym_dso *d, uint64_t vaddr)
{
	size_t n;
	const struct load_seg *g = sym_dso_segs(d, &n);

	for (size_t i = 0; i < n; i++)
		if (vaddr >= g[i].vaddr && vaddr < g[i].vaddr + g[i].memsz)
			return vaddr - g[i].vaddr + g[i].offset;
	return vaddr;
}

static const char *name_at(void *ctx, uint64_t addr, uint64_t *start)
{
	struct sym_print *p = ctx;
	struct sym_info si = { 0 };

	if (p->s->kernel)
		return NULL;
	if (sym_dso_lookup(p->sz, p->fd, vaddr_off(p->fd, addr), &si) || !si.name)
		if (p->fd == p->sd ||
		    sym_dso_lookup(p->sz, p->sd, vaddr_off(p->fd, addr), &si) || !si.name)
			return NULL;
	*start = si.start;
	return si.name;
}

/* The inline chain and line of an instruction: from the binary's file,
 * else from the recording's data. */
static void src_at(struct sym_print *p, uint64_t vaddr, const struct sym_frame **fr, size_t *n)
{
	uint64_t off = vaddr_off(p->fd, vaddr);

	*n = 0;
	if (sym_dso_srcline(p->sz, p->fd, off, fr, n) || !*n)
		if (p->fd == p->sd || sym_dso_srcline(p->sz, p->sd, off, fr, n))
			*n = 0;
}

static int hit_cmp(const void *a, const void *b)
{
	const struct annot_hit *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* The samples per instruction: a hit inside an instruction counts for it. */
static int sum_hits(struct sym_print *p)
{
	size_t j = 0, cells = (p->nr ? p->nr : 1) * (p->c->nr_events ? p->c->nr_events : 1);

	p->count = calloc(cells, sizeof(*p->count));
	p->period = calloc(cells, sizeof(*p->period));
	if (!p->count || !p->period)
		return -ENOMEM;
	qsort(p->s->hits, p->s->nr_hits, sizeof(*p->s->hits), hit_cmp);
	for (size_t i = 0; i < p->s->nr_hits; i++) {
		const struct annot_hit *h = &p->s->hits[i];

		while (j + 1 < p->nr && p->insns[j + 1].addr <= h->vaddr)
			j++;
		if (!p->nr)
			break;
		p->count[j * p->c->nr_events + (size_t)h->event] += h->count;
		p->period[j * p->c->nr_events + (size_t)h->event] += h->period;
	}
	return 0;
}

static double pct_of(const struct sym_print *p, size_t i, size_t col)
{
	const struct annot_ctx *c = p->c;
	double v, tot;

	switch (c->o->pct) {
	case PCT_GLOBAL_PERIOD:
		v = (double)p->period[i * c->nr_events + col];
		tot = (double)c->total_period[col];
		break;
	case PCT_LOCAL_HITS:
		v = (double)p->count[i * c->nr_events + col];
		tot = (double)p->s->count[col];
		break;
	case PCT_GLOBAL_HITS:
		v = (double)p->count[i * c->nr_events + col];
		tot = (double)c->total_count[col];
		break;
	default:
		v = (double)p->period[i * c->nr_events + col];
		tot = (double)p->s->period[col];
	}
	return tot > 0 ? 100.0 * v / tot : 0.0;
}

/* v as printf's "%7.2f" (v >= 0, a percentage): the digits of v * 100
 * rounded, unless that product is within 1e-6 of a half, where its
 * rounding error (below 1e-12) could decide: printf then. */
static void ob_pct(struct obuf *o, double v)
{
	double w = v * 100.0, fl = floor(w);
	uint64_t n;

	if (!(w >= 0 && w < 1e12) || fabs(w - fl - 0.5) < 1e-6) {
		ob_printf(o, "%7.2f", v);
		return;
	}
	n = (uint64_t)fl + (w - fl > 0.5);
	ob_dec(o, n / 100, 4, ' ', false);
	ob_chr(o, '.');
	ob_dec(o, n % 100, 2, '0', false);
}

static int col_width(const struct annot_ctx *c)
{
	return c->o->total_period ? 12 : 8;
}

/* An empty column block (for source lines), then " :". */
static void blank_cols(const struct sym_print *p)
{
	for (int i = col_width(p->c) * (int)p->ncols; i > 0; i--)
		ob_chr(p->ob, ' ');
	ob_mem(p->ob, " :", 2);
}

static void print_header(struct sym_print *p)
{
	static const char *const types[] = { "local period", "global period", "local hits",
					     "global hits" };
	const struct annot_ctx *c = p->c;
	const char *title = c->o->total_period ? " Period" : c->o->nr_samples ? " Samples"
					       : " Percent";
	char line[1024];
	int n = 0, width;

	n += snprintf(line + n, sizeof(line) - (size_t)n, "%-*s", col_width(c) * (int)p->ncols,
		      title);
	n += snprintf(line + n, sizeof(line) - (size_t)n, " |");
	width = ((n + 8) / 8) * 8;      /* the tab */
	n += snprintf(line + n, sizeof(line) - (size_t)n, "\tSource code & Disassembly of %s for ",
		      p->s->dso ? p->s->dso->short_name : "[unknown]");
	for (size_t i = p->col0; i < p->col0 + p->ncols && n < (int)sizeof(line); i++)
		n += snprintf(line + n, sizeof(line) - (size_t)n, "%s%s", i > p->col0 ? ", " : "",
			      load_event_name(c->l, c->events[i]));
	if (n < (int)sizeof(line))
		snprintf(line + n, sizeof(line) - (size_t)n, " (%" PRIu64 " samples, percent: %s)",
			 p->s->count[p->col0], types[c->o->pct]);
	ob_str(p->ob, line);
	ob_chr(p->ob, '\n');
	width += (int)strlen(strchr(line, '\t') + 1);
	for (int i = 0; i < width; i++)
		ob_chr(p->ob, '-');
	ob_chr(p->ob, '\n');
}

/* The text of a source line, leading blanks left out; NULL if unreadable. */
static const char *src_text(struct sym_print *p, const struct sym_frame *fr, size_t *len)
{
	const char *text = srctext_line(p->c->src, fr->file, fr->line, len);

	while (text && *len && (*text == ' ' || *text == '\t')) {
		text++;
		(*len)--;
	}
	return text;
}

/* The source line of an instruction where it changes; an inlined
 * function's name where one starts. */
static void print_source(struct sym_print *p, uint64_t vaddr)
{
	const struct sym_frame *fr;
	const char *text;
	size_t n = 0, len;

	if (p->s->kernel)
		return;
	src_at(p, vaddr, &fr, &n);
	if (!n)
		return;
	if (n > 1 && fr[0].function && fr[0].function != p->last_fn &&
	    (!p->last_fn || !fr[0].function || strcmp(fr[0].function, p->last_fn))) {
		blank_cols(p);
		ob_printf(p->ob, "      %s() inlined into %s()\n", fr[0].function,
			fr[n - 1].function ? fr[n - 1].function : p->s->name);
	}
	p->last_fn = n > 1 ? fr[0].function : NULL;
	if (fr[0].line == p->last_line && fr[0].file == p->last_file)
		return;
	p->last_line = fr[0].line;
	p->last_file = fr[0].file;
	blank_cols(p);
	text = src_text(p, &fr[0], &len);
	/* SRC_FMT, built by hand (annotate prints many of them) */
	ob_chr(p->ob, ' ');
	ob_dec(p->ob, fr[0].line, 5, ' ', true);
	if (text) {
		ob_mem(p->ob, text, len);
	} else {
		ob_str(p->ob, fr[0].file ? fr[0].file : "??");
		ob_chr(p->ob, ':');
		ob_dec(p->ob, fr[0].line, 0, ' ', false);
	}
	ob_chr(p->ob, '\n');
}

static void print_cols(struct sym_print *p, size_t i, double *maxp)
{
	const struct annot_ctx *c = p->c;

	*maxp = 0;
	for (size_t e = p->col0; e < p->col0 + p->ncols; e++) {
		double v = pct_of(p, i, e);
		const char *color = !c->o->color ? NULL : v >= 5.0 ? COLOR_RED
								: v > 0.5 ? COLOR_GREEN : NULL;

		if (v > *maxp)
			*maxp = v;
		if (color)
			ob_str(p->ob, color);
		ob_chr(p->ob, ' ');
		if (c->o->total_period)
			ob_dec(p->ob, p->period[i * c->nr_events + e], 11, ' ', false);
		else if (c->o->nr_samples)
			ob_dec(p->ob, p->count[i * c->nr_events + e], 7, ' ', false);
		else
			ob_pct(p->ob, v);
		if (color)
			ob_str(p->ob, COLOR_RESET);
	}
}

static void print_insn(struct sym_print *p, size_t i)
{
	const struct annot_insn *in = &p->insns[i];
	struct obuf *out = p->ob;
	double maxp;

	print_cols(p, i, &maxp);
	/* INSN_FMT, built by hand */
	ob_mem(out, " :   ", 5);
	ob_hex(out, in->addr, 0);
	ob_mem(out, ":   ", 4);
	if (!p->c->o->asm_raw) {
		ob_str(out, in->text);
		ob_chr(out, '\n');
		return;
	}
	for (size_t b = 0; b < 7; b++)
		ob_printf(out, b < in->size ? "%02x " : "   ", in->bytes[b]);
	ob_printf(out, "   %s\n", in->text);
	for (size_t b = 7; b < in->size; b += 7) {
		/* the rest of the bytes: a line of their own, zero, as objdump's */
		for (size_t e = 0; e < p->ncols; e++)
			ob_str(out, p->c->o->total_period ? "           0" : p->c->o->nr_samples ?
			       "       0" : "    0.00");
		ob_printf(out, " :   %" PRIx64 ":   ", in->addr + b);
		for (size_t k = b; k < in->size && k < b + 7; k++)
			ob_printf(out, k > b ? " %02x" : "%02x", in->bytes[k]);
		ob_chr(out, '\n');
	}
}

struct line_sum {
	const char *file;
	unsigned line;
	uint64_t v;
};

static int line_cmp(const void *a, const void *b)
{
	const struct line_sum *x = a, *y = b;

	return x->v != y->v ? (x->v < y->v ? 1 : -1) : (x->line > y->line) - (x->line < y->line);
}

/* -l: the first column's share per source line, hottest first. */
static void print_lines(struct sym_print *p)
{
	const struct annot_ctx *c = p->c;
	bool hits = c->o->pct == PCT_LOCAL_HITS || c->o->pct == PCT_GLOBAL_HITS;
	bool global = c->o->pct == PCT_GLOBAL_HITS || c->o->pct == PCT_GLOBAL_PERIOD;
	size_t k = p->col0;
	double tot = (double)(hits ? (global ? c->total_count[k] : p->s->count[k])
				   : (global ? c->total_period[k] : p->s->period[k]));
	struct line_sum *v = calloc(p->s->nr_hits + 1, sizeof(*v));
	size_t n = 0;

	if (!v || p->s->kernel)
		goto out;
	for (size_t i = 0; i < p->s->nr_hits; i++) {
		const struct annot_hit *h = &p->s->hits[i];
		const struct sym_frame *fr;
		size_t nf = 0, j;

		/* as perf: addresses of half a percent or less are left out */
		if ((size_t)h->event != k ||
		    (tot > 0 ? 100.0 * (double)(hits ? h->count : h->period) / tot : 0.0) <= 0.5)
			continue;
		src_at(p, h->vaddr, &fr, &nf);
		if (!nf)
			continue;
		for (j = 0; j < n && !(v[j].line == fr[0].line && v[j].file == fr[0].file); j++)
			;
		if (j == n)
			v[n++] = (struct line_sum){ fr[0].file, fr[0].line, 0 };
		v[j].v += hits ? h->count : h->period;
	}
	qsort(v, n, sizeof(*v), line_cmp);
	ob_printf(p->ob, "\nSorted summary for file %s\n", p->s->dso->path);
	ob_str(p->ob, "----------------------------------------------\n\n");
	for (size_t i = 0; i < n; i++) {
		const char *base = v[i].file ? strrchr(v[i].file, '/') : NULL;
		ob_printf(p->ob, " %7.2f %s:%u\n", tot > 0 ? 100.0 * (double)v[i].v / tot : 0.0, base ? base + 1 : v[i].file ? v[i].file : "??", v[i].line);
	}
out:
	free(v);
}

/* While the code is decoded: what printing it asks of the binary first,
 * read now (its line tables, its symbol table): the same answers later. */
static void warm_up(void *ctx)
{
	struct sym_print *p = ctx;
	const struct sym_frame *fr;
	uint64_t start;
	size_t n;

	if (!p->c->o->no_source || p->c->o->print_line)
		src_at(p, p->s->start, &fr, &n);
	name_at(p, p->s->start, &start);
}

/* The code of the symbol, disassembled: 1 (err says why) when none. */
static int disassemble(struct sym_print *p, struct err *err)
{
	size_t len = p->s->size ? p->s->size : 1, got = 0;
	uint8_t *code;
	int ret;

	if (p->s->kernel)
		return err_set(err, 1, "no code of the kernel here"), 1;
	if (len > CODE_MAX)
		len = CODE_MAX;
	code = malloc(len);
	if (!code)
		return err_set(err, -ENOMEM, "out of memory");
	ret = code_read(p->sz, p->sd, p->s->start, len, code, &got, err);
	if (!ret)
		ret = annot_disasm_with(code, got, p->s->start, p->c->o->intel, name_at, p, warm_up,
					&p->insns, &p->nr, err);
	else
		ret = 1;
	free(code);
	return ret;
}

static void print_block(struct sym_print *p)
{
	const struct annot_ctx *c = p->c;

	p->last_file = p->last_fn = NULL;
	p->last_line = 0;
	if (c->o->print_line)
		print_lines(p);
	print_header(p);
	/* objdump's preamble, numbered by its output lines, as perf shows it */
	for (int i = 0; i < 3; i++) {
		blank_cols(p);
		ob_chr(p->ob, '\n');
	}
	blank_cols(p);
	ob_str(p->ob, " 3    Disassembly of section .text:\n");
	blank_cols(p);
	ob_chr(p->ob, '\n');
	blank_cols(p);
	ob_printf(p->ob, " 5    %016" PRIx64 " <%s>:\n", p->s->start, p->s->name);
	blank_cols(p);
	ob_printf(p->ob, " 6    %s():\n", p->s->name);
	for (size_t i = 0; i < p->nr; i++) {
		if (!c->o->no_source)
			print_source(p, p->insns[i].addr);
		print_insn(p, i);
	}
}

/* The binaries, the code disassembled and the samples summed per
 * instruction: as annot_print_sym's return. */
static int sym_prepare(struct sym_print *p, struct err *err)
{
	const struct annot_sym *s = p->s;
	int ret;

	if (!s->kernel && s->dso)
		p->sd = dso_sym(p->sz, load_options(p->c->l)->symfs, s->dso);
	if (!s->kernel && !p->sd)
		return err_set(err, 1, "no binary"), 1;
	p->fd = p->sd;
	if (p->sd) {
		const char *bin = sym_dso_bin_path(p->sz, p->sd);
		struct sym_dso *f = bin ? symbolizer_dso(p->sz, bin, NULL, 0) : NULL;

		if (f && f != p->sd && sym_dso_usable(p->sz, f))
			p->fd = f;
	}
	ret = disassemble(p, err);
	if (!ret)
		ret = sum_hits(p) ? err_set(err, -ENOMEM, "out of memory") : 0;
	return ret;
}

static void sym_done(struct sym_print *p)
{
	free(p->insns);
	free(p->count);
	free(p->period);
}

int annot_print_sym(struct annot_ctx *c, struct annot_sym *s, struct err *err)
{
	struct sym_print p = { .c = c, .s = s, .sz = load_symbolizer(c->l) };
	int ret;

	p.ob = malloc(sizeof(*p.ob));
	if (!p.ob)
		return err_set(err, -ENOMEM, "out of memory");
	p.ob->f = c->out;
	p.ob->n = 0;
	ret = sym_prepare(&p, err);
	for (size_t k = 0; !ret && k < c->nr_events; k++) {
		/* one block per event, or one with a column each (--group) */
		bool cols = c->o->group || c->nr_events == 1;

		if (!cols && !s->count[k])
			continue;
		p.col0 = cols ? 0 : k;
		p.ncols = cols ? c->nr_events : 1;
		print_block(&p);
		if (cols)
			break;
	}
	ob_flush(p.ob);
	free(p.ob);
	sym_done(&p);
	return ret;
}

/* A source line for annot_sym_lines where annotate --stdio prints one. */
static int line_source(struct sym_print *p, uint64_t vaddr, annot_line_fn fn, void *ctx)
{
	struct annot_line ln = { .source = true };
	const struct sym_frame *fr;
	char where[256];
	size_t n = 0;

	if (p->s->kernel)
		return 0;
	src_at(p, vaddr, &fr, &n);
	if (!n || (fr[0].line == p->last_line && fr[0].file == p->last_file))
		return 0;
	p->last_line = fr[0].line;
	p->last_file = fr[0].file;
	ln.line = fr[0].line;
	ln.text = src_text(p, &fr[0], &ln.len);
	if (!ln.text) {
		snprintf(where, sizeof(where), "%s:%u", fr[0].file ? fr[0].file : "??", fr[0].line);
		ln.text = where;
		ln.len = strlen(where);
	}
	return fn(ctx, &ln);
}

int annot_sym_lines(struct annot_ctx *c, struct annot_sym *s, size_t col, size_t max, bool *cut,
		    annot_line_fn fn, void *ctx, struct err *err)
{
	struct sym_print p = { .c = c, .s = s, .sz = load_symbolizer(c->l) };
	int ret = sym_prepare(&p, err);

	if (ret == 1 && !s->kernel)
		err_set(err, 1, "binary not available");
	*cut = !ret && p.nr > max;
	for (size_t i = 0; !ret && i < p.nr && i < max; i++) {
		struct annot_line ln = { .addr = p.insns[i].addr, .text = p.insns[i].text,
					 .len = strlen(p.insns[i].text), .pct = pct_of(&p, i, col) };

		if (!c->o->no_source)
			ret = line_source(&p, p.insns[i].addr, fn, ctx);
		if (!ret)
			ret = fn(ctx, &ln);
	}
	sym_done(&p);
	return ret;
}

int annot_line_text(struct buf *b, const struct annot_line *ln)
{
	char head[128];
	int n;

	if (ln->source)
		n = snprintf(head, sizeof(head), "%*s :" SRC_FMT, 8, "", ln->line);
	else
		n = snprintf(head, sizeof(head), " %7.2f" INSN_FMT, ln->pct, ln->addr);
	if (n < 0 || (size_t)n >= sizeof(head))
		return -EINVAL;
	return buf_append(b, head, (size_t)n) || buf_append(b, ln->text, ln->len) ? -ENOMEM : 0;
}
