// SPDX-License-Identifier: MIT
/*
 * The browser's loop: the main view (title, column titles, rows, status
 * line), perf report's keys on it, the refresh hook between keys, and the
 * log's messages on the message line while it runs.
 */
#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "report/views/annotate_lines.h"
#include "tui_int.h"

static const char *const main_help[] = {
	"h/?/F1         show this help",
	"Up/Down/PgUp/PgDn/Home/End/Space   move",
	"Enter, +       expand or collapse the call graph (entry or node)",
	"e              expand or collapse the whole entry",
	"E, C           expand all, collapse all",
	"/              filter by symbol (a regex; empty: no filter)",
	"t              zoom into the entry's thread (again: zoom out)",
	"c              zoom into the entry's command (again: zoom out)",
	"d              zoom into the entry's binary (DSO) (again: zoom out)",
	"Left, Esc      undo the last zoom or filter (Esc without one: quit)",
	"a              annotate the entry's symbol",
	"P              write the view to prep.hist.N",
	"Tab, S-Tab     next, previous event",
	"q, Ctrl-C      quit",
};

#define NR_HELP(h) (sizeof(h) / sizeof((h)[0]))

/* the log's messages while curses has the terminal */
static void log_to_screen(void *ctx, enum log_level level, const char *msg)
{
	if (level != LOG_PROGRESS)
		scr_message(ctx, "%s%s", log_level_tag(level), msg);
}

/* ---- the refresh hook --------------------------------------------------- */

static int do_refresh(struct screen *sc)
{
	const struct browser_source *src = sc->src;
	struct hist *h = sc->vw->h;
	int r;

	sc->next_refresh = scr_now() + (uint64_t)src->refresh_ms * 1000000ull;
	r = src->refresh_hook(src->refresh_ctx, &h, sc->err);
	if (r == BROWSER_QUIT) {
		sc->quit = true;
		return r;
	}
	if (r > 0) {
		sc->gen++;
		view_invalidate(sc->vw);
		r = view_rebuild(sc->vw, h, sc->vw->event, true, sc->err) ? -1 : 1;
	}
	if (r < 0) {
		sc->failed = true;
		if (!sc->err->code)
			err_set(sc->err, r, "the refresh failed");
	}
	return r;
}

int scr_key(struct screen *sc)
{
	const struct browser_source *src = sc->src;
	WINDOW *w = sc->win ? sc->win : stdscr;

	for (;;) {
		bool hook = src->refresh_hook && src->refresh_ms;
		int ch;

		if (sc->failed)
			return -1;
		if (sc->quit)
			return KEY_QUIT;
		if (hook) {
			uint64_t now = scr_now();

			if (now >= sc->next_refresh) {
				int r = do_refresh(sc);

				if (r)
					return r < 0 ? -1 : r == BROWSER_QUIT ? KEY_QUIT : KEY_REFRESHED;
				continue;
			}
			wtimeout(w, (int)((sc->next_refresh - now) / 1000000) + 1);
		} else {
			wtimeout(w, -1);
		}
		ch = wgetch(w);
		if (ch != ERR)
			return ch;
		if (!hook)
			return 'q';     /* no terminal to read any more */
	}
}

/* ---- the main view -------------------------------------------------------- */

void view_title(const struct view *vw, char *buf, size_t n)
{
	const struct browser_source *src = vw->src;
	const char *tail = src->title_tail ? src->title_tail(src->refresh_ctx) : NULL;
	char cnt[32], zoom[512];

	unit_count(vw->shown_count, cnt, sizeof(cnt));
	view_zoom_text(vw, zoom, sizeof(zoom));
	snprintf(buf, n, "Samples: %s of event '%s'%s, Event count (approx.): %" PRIu64 "%s%s%s", cnt,
		 vw->ev.name ? vw->ev.name : "", src->title_note ? src->title_note : "",
		 vw->shown_period, zoom[0] ? ", " : "", zoom, tail ? tail : "");
}

static size_t nr_shown_events(const struct browser_source *src, int event, size_t *at)
{
	size_t n = 0;

	for (size_t e = 0; e < src->nr_events; e++) {
		struct browser_event ev;

		src->event(src->ctx, (int)e, &ev);
		if (ev.hidden)
			continue;
		if ((int)e == event)
			*at = n;
		n++;
	}
	return n;
}

static void status_line(struct screen *sc, char *buf, size_t n)
{
	const struct view *vw = sc->vw;
	const struct browser_source *src = sc->src;
	const char *extra = src->status ? src->status(src->refresh_ctx) : NULL;
	size_t at = 0, nr = nr_shown_events(src, vw->event, &at);
	char zoom[512], evs[64] = "";

	if (sc->msg[0]) {
		snprintf(buf, n, "%s", sc->msg);
		return;
	}
	view_zoom_text(vw, zoom, sizeof(zoom));
	if (nr > 1)
		snprintf(evs, sizeof(evs), " (%zu of %zu, Tab: next)", at + 1, nr);
	if (src->status_replaces && extra)
		snprintf(buf, n, "%s%s%s%s  h: help  q: quit", extra, evs, zoom[0] ? " | " : "", zoom);
	else
		snprintf(buf, n, "%s%s: %" PRIu64 " samples, %" PRIu64 " lost%s%s%s%s  h: help  q: quit",
			 vw->ev.name ? vw->ev.name : "", evs, vw->shown_count,
			 src->lost ? src->lost(src->ctx) : 0, zoom[0] ? " | " : "", zoom,
			 extra ? " | " : "", extra ? extra : "");
}

/* the selection kept on screen, the top row in range */
static void scroll_to(struct view *vw, int rows)
{
	size_t nr = view_rows(vw);

	if (vw->sel >= nr)
		vw->sel = nr ? nr - 1 : 0;
	if (vw->sel < vw->top)
		vw->top = vw->sel;
	if (vw->sel >= vw->top + (size_t)rows)
		vw->top = vw->sel - (size_t)rows + 1;
	if (vw->top + (size_t)rows > nr)
		vw->top = nr > (size_t)rows ? nr - (size_t)rows : 0;
}

static void draw_main(struct screen *sc)
{
	struct view *vw = sc->vw;
	int rows = scr_rows();
	char line[2048];
	struct buf b = BUF_INIT;

	erase();
	scroll_to(vw, rows);
	view_title(vw, line, sizeof(line));
	draw_title(sc, 0, line, strlen(line));
	if (!print_title_line(&b, vw->src->po, vw->cols, vw->nc) && b.len) {
		b.data[0] = ' ';        /* the text report's '#' */
		draw_title(sc, 1, (const char *)b.data, b.len);
	}
	buf_free(&b);
	for (int y = 0; y < rows; y++) {
		size_t row = vw->top + (size_t)y, len;
		struct print_pcts pcts;
		const char *text;

		if (row >= view_rows(vw))
			break;
		text = view_text(vw, row, &len, &pcts);
		if (text)
			draw_row(sc, y + 2, text, len, &pcts, row == vw->sel);
	}
	if (!view_rows(vw))
		mvaddstr(2, 0, vw->nr_order ? "  no entries (zoom out with Esc or Left)" :
			 "  no entries");
	status_line(sc, line, sizeof(line));
	draw_status(sc, line);
	refresh();
}

static void redraw_main(struct screen *sc)
{
	draw_main(sc);
}

static void move_sel(struct view *vw, long delta)
{
	size_t nr = view_rows(vw);

	if (delta < 0)
		vw->sel = (size_t)-delta > vw->sel ? 0 : vw->sel - (size_t)-delta;
	else
		vw->sel = vw->sel + (size_t)delta >= nr ? (nr ? nr - 1 : 0) : vw->sel + (size_t)delta;
}

static const char *dump_line(void *ctx, size_t i, size_t *len)
{
	return view_text(ctx, i, len, NULL);
}

static void dump_view(struct screen *sc)
{
	char name[64];
	int ret = tui_dump(sc, view_rows(sc->vw), dump_line, sc->vw, name, sizeof(name));

	if (ret)
		scr_message(sc, "cannot write %s: %s", name, strerror(-ret));
	else
		scr_message(sc, "wrote %s (%zu lines)", name, view_rows(sc->vw));
}

/* Tab, Shift-Tab: the next event shown, dir 1 or -1 */
static int next_event(struct screen *sc, int dir)
{
	const struct browser_source *src = sc->src;
	int n = (int)src->nr_events, e = sc->vw->event;

	for (int i = 1; i < n; i++) {
		int c = ((e + dir * i) % n + n) % n;
		struct browser_event ev;

		src->event(src->ctx, c, &ev);
		if (!ev.hidden)
			return view_rebuild(sc->vw, sc->vw->h, c, false, sc->err);
	}
	scr_message(sc, "only one event");
	return 0;
}

static int ask_filter(struct screen *sc)
{
	char re[256];

	snprintf(re, sizeof(re), "%s", sc->vw->re_text);
	if (scr_prompt(sc, "Symbol filter (regex, empty: none): ", re, sizeof(re), redraw_main) < 1)
		return 0;
	return view_filter(sc->vw, re, sc->err);
}

/* A key of the view's, the rows' or the zoom's: 0, or -errno with err set. */
static int view_key(struct screen *sc, int ch)
{
	struct view *vw = sc->vw;

	switch (ch) {
	case '\r': case '\n': case KEY_ENTER: case '+':
		return view_toggle(vw, vw->sel);
	case 'e':
		return view_toggle_entry(vw, vw->sel);
	case 'E': case 'C':
		return view_all(vw, ch == 'E');
	case '/':
		return ask_filter(sc);
	case 't':
		return view_zoom(vw, ZOOM_THREAD, vw->sel, sc->err);
	case 'c':
		return view_zoom(vw, ZOOM_COMM, vw->sel, sc->err);
	case 'd':
		return view_zoom(vw, ZOOM_DSO, vw->sel, sc->err);
	case KEY_LEFT: {
		int ret = view_unzoom(vw, sc->err);

		return ret < 0 ? ret : 0;
	}
	case '\t': case KEY_BTAB:
		return next_event(sc, ch == '\t' ? 1 : -1);
	}
	/* a key of the source's (prec top's z) */
	if (sc->src->key)
		sc->src->key(sc->src->refresh_ctx, ch);
	return 0;
}

/* The help box: the browser's keys, the source's before the last (quit). */
static int main_help_box(struct screen *sc)
{
	const struct browser_source *src = sc->src;
	const char *lines[NR_HELP(main_help) + 16];
	size_t n = 0, extra = src->help ? src->nr_help : 0;
	char title[128];

	if (extra > 16)
		extra = 16;
	for (size_t i = 0; i + 1 < NR_HELP(main_help); i++)
		lines[n++] = main_help[i];
	for (size_t i = 0; i < extra; i++)
		lines[n++] = src->help[i];
	lines[n++] = main_help[NR_HELP(main_help) - 1];
	snprintf(title, sizeof(title), " Help: %s's browser ", src->name ? src->name : "prep");
	return draw_help(sc, title, lines, n) < 0 ? -1 : 0;
}

/* The moving keys: true when ch is one. A page moves the selection and
 * the screen alike. */
static bool move_key(struct view *vw, int ch)
{
	size_t page = (size_t)scr_rows();

	switch (ch) {
	case KEY_UP:
		move_sel(vw, -1);
		break;
	case KEY_DOWN:
		move_sel(vw, 1);
		break;
	case KEY_PPAGE:
		move_sel(vw, -(long)page);
		vw->top -= vw->top < page ? vw->top : page;
		break;
	case KEY_NPAGE: case ' ':
		move_sel(vw, (long)page);
		vw->top += page;
		break;
	case KEY_HOME:
		vw->sel = 0;
		break;
	case KEY_END:
		move_sel(vw, (long)view_rows(vw));
		break;
	default:
		return false;
	}
	return true;
}

/* One key: 1 to quit, 0 to go on, negative with err set when it failed. */
static int main_key(struct screen *sc, int ch)
{
	struct view *vw = sc->vw;
	int ret;

	if (move_key(vw, ch))
		return 0;
	switch (ch) {
	case 'q': case 3:
		return 1;
	case 27:
		ret = view_unzoom(vw, sc->err);
		return ret == 0 ? 1 : ret < 0 ? ret : 0;
	case 'h': case '?': case KEY_F(1):
		return main_help_box(sc);
	case 'P':
		dump_view(sc);
		return 0;
	case 'a':
		return annot_view_run(sc, vw, vw->sel);
	case KEY_QUIT:
		return 1;
	case KEY_REFRESHED: case KEY_RESIZE:
		return 0;
	}
	return view_key(sc, ch);
}

static const char *key_label(int ch)
{
	const char *k = ch == KEY_REFRESHED ? "refresh" : keyname(ch);

	return k ? k : "?";
}

static int run_main(struct screen *sc)
{
	draw_main(sc);
	scr_time(sc, "first", sc->t0);
	for (;;) {
		int ch = scr_key(sc), ret;
		uint64_t t = scr_now();

		if (ch < 0)
			return -1;
		if (ch != KEY_REFRESHED)
			sc->msg[0] = 0;
		ret = main_key(sc, ch);
		if (ret < 0 && !sc->failed && ret != -ENOMEM) {
			/* a zoom with nothing to zoom into, a bad regex: said, not fatal */
			scr_message(sc, "%s", sc->err->msg);
			ret = 0;
		}
		if (ret < 0 && !sc->failed)
			err_set(sc->err, ret, "out of memory");
		if (ret)
			return ret > 0 ? 0 : ret;
		draw_main(sc);
		scr_time(sc, key_label(ch), t);
	}
}

static int first_event(const struct browser_source *src)
{
	struct browser_event ev;

	if (src->first_event >= 0 && (size_t)src->first_event < src->nr_events) {
		src->event(src->ctx, src->first_event, &ev);
		if (!ev.hidden)
			return src->first_event;
	}
	for (size_t e = 0; e < src->nr_events; e++) {
		src->event(src->ctx, (int)e, &ev);
		if (!ev.hidden)
			return (int)e;
	}
	return -1;
}

bool browser_can_run(void)
{
	return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
}

int browser_run(const struct browser_source *src, struct err *err)
{
	struct screen sc = { .src = src, .err = err, .t0 = scr_now() };
	const char *times = getenv("PREP_BROWSER_TIMES");
	int ev = first_event(src), ret;
	struct view vw;
	log_fn ofn;
	void *octx;
	unsigned omask;

	if (ev < 0)
		return err_set(err, -ENOENT, "no events to show");
	ret = view_init(&vw, src, ev, err);
	if (!ret) {
		sc.vw = &vw;
		ret = scr_start(&sc, err);
	}
	if (ret) {
		view_free(&vw);
		return ret;
	}
	if (times && *times)
		sc.times = fopen(times, "a");
	if (src->message)
		scr_message(&sc, "%s", src->message);
	log_get_handler(&ofn, &octx, &omask);
	log_set_handler(log_to_screen, &sc, LOG_ALL & ~LOG_MASK(LOG_PROGRESS));
	sc.next_refresh = scr_now() + (uint64_t)src->refresh_ms * 1000000ull;
	ret = run_main(&sc);
	scr_end(&sc);
	log_set_handler(ofn, octx, omask);
	if (sc.times)
		fclose(sc.times);
	annot_pass_free(sc.pass);
	view_free(&vw);
	if (ret && !err->code)
		err_set(err, ret, "out of memory");
	return ret ? err->code : 0;
}
