// SPDX-License-Identifier: MIT
/*
 * The browser's annotate view: an entry's function as prep annotate --stdio
 * shows it (annotate's engine, report/views/annotate_lines.h, counting the
 * histogram's stacks), scrolled with the moving keys, H for the hottest
 * instruction and Tab / Shift-Tab through the next hottest (perf's keys),
 * s for the source lines on and off, P to write it to prep.hist.N.
 */
#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/core/load.h"
#include "report/views/annotate_lines.h"
#include "tui_int.h"

#define MAX_INSNS 200000

struct aline {
	size_t off, len;
	double pct;
	bool insn;
	uint64_t addr;
};

struct aview {
	struct screen *sc;
	const struct dso *dso;  /* the function's binary and name (copied: a */
	char *sym;              /* refresh may move the histogram's frames) */
	bool source;
	bool cut;
	uint64_t samples;
	struct buf text;
	struct aline *lines;
	size_t nr, cap;
	size_t *hot;            /* instruction lines with samples, hottest first */
	size_t nr_hot, hot_at;
	size_t sel, top;
};

static const char *const annot_help[] = {
	"Up/Down/PgUp/PgDn/Home/End/Space   move",
	"H              the hottest instruction",
	"Tab, S-Tab     the next, previous hottest",
	"s              source lines on or off",
	"P              write the view to prep.hist.N",
	"q, Esc, Left   back to the entries",
};

static int keep_line(void *ctx, const struct annot_line *ln)
{
	struct aview *av = ctx;
	size_t off = av->text.len;

	if (array_grow((void **)&av->lines, &av->cap, av->nr + 1, sizeof(*av->lines)) ||
	    annot_line_text(&av->text, ln))
		return -ENOMEM;
	av->lines[av->nr++] = (struct aline){ off, av->text.len - off, ln->pct, !ln->source,
					      ln->addr };
	return 0;
}

/* the counts of the histogram shown, once per refresh */
static int get_pass(struct screen *sc)
{
	if (sc->pass && sc->pass_gen == sc->gen)
		return 0;
	annot_pass_free(sc->pass);
	sc->pass = annot_pass_new(sc->src->load);
	sc->pass_gen = sc->gen;
	if (!sc->pass || annot_pass_add_hist(sc->pass, sc->vw->h) || annot_pass_group(sc->pass)) {
		annot_pass_free(sc->pass);
		sc->pass = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int hot_cmp(const void *a, const void *b, void *ctx)
{
	const struct aview *av = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (av->lines[x].pct != av->lines[y].pct)
		return av->lines[x].pct < av->lines[y].pct ? 1 : -1;
	return x < y ? -1 : x > y;
}

/* The function's lines (again): 0, 1 when it cannot be annotated (err
 * says why), negative on failure. The selection stays on its address. */
static int build(struct aview *av, struct err *err)
{
	struct screen *sc = av->sc;
	uint64_t addr = av->sel < av->nr ? av->lines[av->sel].addr : 0;
	int ret = get_pass(sc);

	av->nr = av->nr_hot = 0;
	buf_reset(&av->text);
	if (ret)
		return err_set(err, ret, "out of memory");
	annot_pass_set_source(sc->pass, av->source);
	av->samples = annot_pass_samples(sc->pass, av->dso, av->sym, sc->vw->event);
	ret = annot_pass_lines(sc->pass, av->dso, av->sym, sc->vw->event, MAX_INSNS, &av->cut,
			       keep_line, av, err);
	if (ret)
		return ret;
	free(av->hot);
	if (!(av->hot = calloc(av->nr + 1, sizeof(*av->hot))))
		return err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < av->nr; i++) {
		if (av->lines[i].insn && av->lines[i].pct > 0)
			av->hot[av->nr_hot++] = i;
		if (addr && av->lines[i].insn && av->lines[i].addr == addr)
			av->sel = i;
	}
	qsort_r(av->hot, av->nr_hot, sizeof(*av->hot), hot_cmp, av);
	if (av->sel >= av->nr)
		av->sel = av->nr ? av->nr - 1 : 0;
	return 0;
}

/* the selection on the hot instruction at, in the middle of the screen */
static void go_hot(struct aview *av, size_t at)
{
	size_t half = (size_t)scr_rows() / 2;

	if (!av->nr_hot)
		return;
	av->hot_at = at % av->nr_hot;
	av->sel = av->hot[av->hot_at];
	av->top = av->sel > half ? av->sel - half : 0;
}

static void draw(struct aview *av)
{
	struct screen *sc = av->sc;
	int rows = scr_rows();
	char line[2048];

	erase();
	if (av->sel < av->top)
		av->top = av->sel;
	if (av->sel >= av->top + (size_t)rows)
		av->top = av->sel - (size_t)rows + 1;
	view_title(sc->vw, line, sizeof(line));
	draw_title(sc, 0, line, strlen(line));
	snprintf(line, sizeof(line), "%s  %s [Percent: local period]%s", av->sym,
		 av->dso ? av->dso->path : "[unknown]",
		 av->cut ? " (its first instructions)" : "");
	draw_title(sc, 1, line, strlen(line));
	for (int y = 0; y < rows && av->top + (size_t)y < av->nr; y++) {
		const struct aline *ln = &av->lines[av->top + (size_t)y];
		struct print_pcts p = { .nr = ln->insn, .at = { 1 }, .width = { 7 },
					.pct = { ln->pct } };

		draw_row(sc, y + 2, (const char *)av->text.data + ln->off, ln->len, &p,
			 av->top + (size_t)y == av->sel);
	}
	if (sc->msg[0])
		snprintf(line, sizeof(line), "%s", sc->msg);
	else
		snprintf(line, sizeof(line), "%s: %" PRIu64 " samples  H: hottest  Tab: next hottest"
			 "  s: source %s  h: help  q: back", av->sym, av->samples,
			 av->source ? "off" : "on");
	draw_status(sc, line);
	refresh();
}

static const char *dump_line(void *ctx, size_t i, size_t *len)
{
	const struct aview *av = ctx;

	*len = av->lines[i].len;
	return (const char *)av->text.data + av->lines[i].off;
}

static void move_by(struct aview *av, long d)
{
	if (d < 0)
		av->sel = (size_t)-d > av->sel ? 0 : av->sel - (size_t)-d;
	else
		av->sel = av->sel + (size_t)d >= av->nr ? (av->nr ? av->nr - 1 : 0) : av->sel + (size_t)d;
}

/* One key: 1 back to the entries, 0 to go on, negative on failure. */
static int annot_key(struct aview *av, int ch, struct err *err)
{
	long page = scr_rows();
	char name[64];
	int ret;

	switch (ch) {
	case 'q': case 27: case KEY_LEFT: case 3: case KEY_QUIT:
		return 1;
	case KEY_UP: move_by(av, -1); break;
	case KEY_DOWN: move_by(av, 1); break;
	case KEY_PPAGE: move_by(av, -page); break;
	case KEY_NPAGE: case ' ': move_by(av, page); break;
	case KEY_HOME: av->sel = 0; break;
	case KEY_END: move_by(av, (long)av->nr); break;
	case 'H': go_hot(av, 0); break;
	case '\t': go_hot(av, av->hot_at + 1); break;
	case KEY_BTAB: go_hot(av, av->hot_at + av->nr_hot - 1); break;
	case 'h': case '?': case KEY_F(1):
		ret = draw_help(av->sc, " Help: annotate ", annot_help,
				sizeof(annot_help) / sizeof(annot_help[0]));
		if (ret <= 0)
			return ret;
		/* refreshed under the box: the counts again, as for KEY_REFRESHED */
		ret = build(av, err);
		return ret == 1 ? 1 : ret;
	case 'P':
		ret = tui_dump(av->sc, av->nr, dump_line, av, name, sizeof(name));
		if (ret)
			scr_message(av->sc, "cannot write %s: %s", name, strerror(-ret));
		else
			scr_message(av->sc, "wrote %s (%zu lines)", name, av->nr);
		break;
	case 's':
		av->source = !av->source;
		/* fall through */
	case KEY_REFRESHED:
		ret = build(av, err);
		return ret == 1 ? 1 : ret;
	}
	return 0;
}

static int annot_loop(struct aview *av, struct err *err)
{
	for (;;) {
		int ch, ret;
		uint64_t t;

		draw(av);
		ch = scr_key(av->sc);
		t = scr_now();
		if (ch < 0)
			return -1;
		if (ch != KEY_REFRESHED)
			av->sc->msg[0] = 0;
		ret = annot_key(av, ch, err);
		if (ret)
			return ret > 0 ? 0 : ret;
		draw(av);
		scr_time(av->sc, ch == KEY_REFRESHED ? "refresh" : "annotate-key", t);
	}
}

int annot_view_run(struct screen *sc, struct view *vw, size_t row)
{
	const struct hentry *e = view_entry(vw, row);
	struct aview av = { .sc = sc, .source = true, .text = BUF_INIT };
	const struct frame *f;
	struct err err = { 0 };
	int ret;

	if (!e)
		return 0;
	f = &vw->h->frames[e->frame];
	if (!sc->src->load) {
		scr_message(sc, "annotate is not available here");
		return 0;
	}
	if (!f->sym) {
		scr_message(sc, "cannot annotate: no symbol names this entry");
		return 0;
	}
	if (f->kernel) {
		scr_message(sc, "cannot annotate %s: no code: kernel", f->sym);
		return 0;
	}
	av.dso = f->dso;
	if (!(av.sym = strdup(f->sym)))
		return err_set(sc->err, -ENOMEM, "out of memory");
	ret = build(&av, &err);
	if (ret == 1)
		scr_message(sc, "cannot annotate %s: %s%s", av.sym, err.msg,
			    !strcmp(err.msg, "no samples") ? " (it is only in call chains)" : "");
	else if (!ret)
		go_hot(&av, 0);
	if (!ret)
		ret = annot_loop(&av, &err);
	if (ret < 0 && !sc->failed)
		err_set(sc->err, ret, "%s", err.msg[0] ? err.msg : "out of memory");
	free(av.sym);
	free(av.lines);
	free(av.hot);
	buf_free(&av.text);
	return ret < 0 ? ret : 0;
}
