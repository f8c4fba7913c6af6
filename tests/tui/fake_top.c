/* SPDX-License-Identifier: MIT */
/*
 * `fake_top FILE STEPS`: the browser (report/tui/browser.h) over FILE's
 * histogram with a refresh hook, as prec top will drive it, for
 * tests/e2e/prep_browser.sh. Every 50 ms the hook reads the number in the
 * file STEPS and applies the steps it has not applied yet, each a change
 * of the histogram's samples that moves entries:
 *
 *   1  the samples of b2 count ten times (b2 climbs above a1)
 *   2  the samples with a1 on their chain are dropped (its entry is gone)
 *
 * The status line says "step N". The options are prep report's defaults
 * for a file with call chains (children, caller order, graph 0.5).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/core/load.h"
#include "report/tui/browser.h"

struct fake {
	struct hist *h;
	const char *steps;
	int step;
	char status[64];
};

static const char *leaf(const struct hist *h, const struct stack *s)
{
	return s->nr_frames ? h->frames[h->frame_ids[s->first]].sym : NULL;
}

static bool has(const struct hist *h, const struct stack *s, const char *name)
{
	for (uint32_t i = 0; i < s->nr_frames; i++) {
		const char *sym = h->frames[h->frame_ids[s->first + i]].sym;

		if (sym && !strcmp(sym, name))
			return true;
	}
	return false;
}

static void apply(struct hist *h, int step)
{
	for (size_t i = 0; i < h->nr_stacks; i++) {
		struct stack *s = &h->stacks[i];
		const char *sym = leaf(h, s);

		if (!sym && step == 1)
			continue;
		if (step == 1 && !strcmp(sym, "b2")) {
			s->period *= 10;
			s->count *= 10;
		} else if (step == 2 && has(h, s, "a1")) {
			s->nr_frames = 0;       /* hist_build skips it */
		}
	}
}

static int hook(void *ctx, struct hist **h, struct err *err)
{
	struct fake *f = ctx;
	FILE *in = fopen(f->steps, "r");
	int want = 0, changed = 0;

	(void)err;
	if (in) {
		if (fscanf(in, "%d", &want) != 1)
			want = 0;
		fclose(in);
	}
	while (f->step < want && f->step < 2) {
		apply(*h, ++f->step);
		changed = 1;
	}
	return changed;
}

static const char *status(void *ctx)
{
	struct fake *f = ctx;

	snprintf(f->status, sizeof(f->status), "step %d", f->step);
	return f->status;
}

int main(int argc, char **argv)
{
	struct load_opts lo = { .nr_inputs = 1 };
	struct hist_opts ho = { .keys = { SORT_COMM, SORT_DSO, SORT_SYM }, .nr_keys = 3,
				.children = true, .callchain = true, .caller = true,
				.inline_frames = true };
	struct print_opts po = { .mode = CG_GRAPH, .threshold = 0.5, .children = true,
				 .callchain = true };
	struct browser_source src;
	struct err err = { 0 };
	struct fake f = { 0 };
	struct load *l;
	struct hist h;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: fake_top FILE STEPS\n");
		return 2;
	}
	lo.inputs[0] = argv[1];
	l = load_new(&lo, &err);
	if (!l) {
		fprintf(stderr, "fake_top: %s\n", err.msg);
		return 1;
	}
	hist_init(&h, &ho, load_machine(l), load_symbolizer(l));
	ret = load_run(l, load_add_to_hist, NULL, &h, &err);
	if (!ret)
		ret = hist_resolve(&h);
	if (!ret) {
		f.h = &h;
		f.steps = argv[2];
		browser_source_init(&src, l, &h, &po);
		src.name = "fake top";
		src.refresh_ms = 50;
		src.refresh_hook = hook;
		src.refresh_ctx = &f;
		src.status = status;
		ret = browser_run(&src, &err);
	}
	if (ret)
		fprintf(stderr, "fake_top: %s\n", err.msg[0] ? err.msg : "failed");
	hist_free(&h);
	load_free(l);
	return ret ? 1 : 0;
}
