// SPDX-License-Identifier: MIT
/*
 * The flame graph page's annotate pane data: for the hottest functions
 * shown (by their own samples, see the bounds below and in
 * prep-flamegraph(1)), their annotated lines from prep annotate's engine
 * (report/views/annotate_lines.h) as JSON in the page's data; for a
 * function that cannot be annotated, why.
 */
#include "flame.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report/views/annotate_lines.h"

struct cand {
	size_t label;
	uint64_t samples;
};

struct line_out {
	FILE *out;
	size_t n, insns;        /* lines, of which instructions */
};

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return (x->label > y->label) - (x->label < y->label);
}

/* one line: an instruction [pct,"addr","text"], a source line [line,"text"] */
static int put_line(void *ctx, const struct annot_line *ln)
{
	struct line_out *lo = ctx;
	char text[512];

	snprintf(text, sizeof(text), "%.*s", (int)(ln->len < 511 ? ln->len : 511), ln->text);
	fputs(lo->n++ ? ",\n[" : "[", lo->out);
	if (ln->source)
		fprintf(lo->out, "%u,", ln->line);
	else
		fprintf(lo->out, "%.2f,\"%" PRIx64 "\",", ln->pct, ln->addr), lo->insns++;
	json_string(lo->out, text);
	fputc(']', lo->out);
	return 0;
}

/* One function: its lines, or why there are none; *insns grows by its
 * instructions. The lines go to memory first (out may be a pipe). */
static int put_func(FILE *out, const struct flame_labels *fl, const struct cand *c,
		    size_t *insns)
{
	struct line_out lo = { NULL, 0, 0 };
	struct err err = { 0 };
	bool cut = false;
	char *buf = NULL;
	size_t len = 0;
	int ret;

	fprintf(out, "\"%zu\":{\"n\":%" PRIu64 ",", c->label, c->samples);
	if (fl->kinds[c->label] == SF_KERNEL) {
		fputs("\"why\":\"no code: kernel\"}", out);
		return 0;
	}
	lo.out = open_memstream(&buf, &len);
	if (!lo.out)
		return -ENOMEM;
	ret = annot_pass_lines(fl->annot, fl->dsos[c->label], fl->names[c->label], fl->event,
			       FLAME_ANNOT_MAX_TOTAL - *insns < FLAME_ANNOT_MAX_INSNS
			       ? FLAME_ANNOT_MAX_TOTAL - *insns : FLAME_ANNOT_MAX_INSNS,
			       &cut, put_line, &lo, &err);
	if (fclose(lo.out) && !ret)
		ret = -ENOMEM;
	if (ret == 1) {
		fputs("\"why\":", out);
		json_string(out, err.msg);
		fputc('}', out);
		ret = 0;
	} else if (!ret) {
		fputs("\"lines\":[", out);
		fwrite(buf, 1, len, out);
		fprintf(out, "],\"cut\":%s}", cut ? "true" : "false");
		*insns += lo.insns;
	}
	free(buf);
	return ret;
}

int flame_write_annot(FILE *out, const struct flame_labels *fl, uint64_t total)
{
	struct cand *v = calloc(fl->nr + 1, sizeof(*v));
	size_t n = 0, insns = 0;
	int ret = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < fl->nr; i++) {
		uint64_t k;

		if (fl->kinds[i] >= SF_NR_KINDS || fl->kinds[i] == SF_INLINE || !fl->names[i])
			continue;
		k = fl->period ? annot_pass_period(fl->annot, fl->dsos[i], fl->names[i], fl->event)
			       : annot_pass_samples(fl->annot, fl->dsos[i], fl->names[i], fl->event);
		/* the bound: at least FLAME_ANNOT_MIN_PERMILLE of the samples (of
		 * the time, for a page in nanoseconds: total is its root's width) */
		if (k && k * 1000 >= total * FLAME_ANNOT_MIN_PERMILLE)
			v[n++] = (struct cand){ i, k };
	}
	qsort(v, n, sizeof(*v), cand_cmp);
	fputs(",\n\"annot\":{", out);
	for (size_t i = 0; i < n && i < FLAME_ANNOT_MAX_FUNCS && !ret; i++) {
		if (insns >= FLAME_ANNOT_MAX_TOTAL)
			break;
		if (i)
			fputs(",\n", out);
		ret = put_func(out, fl, &v[i], &insns);
	}
	fputc('}', out);
	free(v);
	return ret;
}
