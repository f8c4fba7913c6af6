// SPDX-License-Identifier: MIT
/*
 * The browser's terminal: ncurses started and ended, perf's colours (the
 * title white on blue, the selected line black on yellow, percentages
 * red from 5% and green from 0.5%, as perf's TUI colours them), lines of
 * the full width, the help box, a line of input, prep.hist.N and the key
 * timings.
 */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tui_int.h"

#define MIN_RED 5.0
#define MIN_GREEN 0.5

uint64_t scr_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool colours_wanted(void)
{
	const char *nc = getenv("NO_COLOR");

	return !(nc && *nc) && has_colors();
}

int scr_start(struct screen *sc, struct err *err)
{
	const char *term = getenv("TERM");
	SCREEN *s;

	/* wide characters (box lines, UTF-8 names); numbers stay in C's format */
	setlocale(LC_CTYPE, "");
	s = newterm(NULL, stdout, stdin);
	if (!s)
		return err_set(err, -ENOTTY, "cannot start the terminal (TERM=%s)",
			       term ? term : "unset");
	set_term(s);
	raw();                  /* Ctrl-C is a key (quit), not a signal */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);       /* a lone Esc answers at once */
	curs_set(0);
	sc->color = colours_wanted();
	if (sc->color) {
		start_color();
		use_default_colors();
		init_pair(PAIR_TITLE, COLOR_WHITE, COLOR_BLUE);
		init_pair(PAIR_SELECTED, COLOR_BLACK, COLOR_YELLOW);
		init_pair(PAIR_TOP, COLOR_RED, -1);
		init_pair(PAIR_MEDIUM, COLOR_GREEN, -1);
	}
	return 0;
}

void scr_end(struct screen *sc)
{
	(void)sc;
	endwin();
	delscreen(set_term(NULL));
}

void scr_message(struct screen *sc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sc->msg, sizeof(sc->msg), fmt, ap);
	va_end(ap);
}

int scr_rows(void)
{
	return LINES > 3 ? LINES - 3 : 1;
}

/* text cut to the width from column x (a tab as a space: the line must not
 * wrap), then spaces in attribute a to the end of the line */
static void put_line(int y, int x, const char *text, size_t len, attr_t a)
{
	int w = COLS - x;
	char tmp[1024];

	if (w <= 0)
		return;
	if ((int)len > w)
		len = (size_t)w;
	if (memchr(text, '\t', len) && len <= sizeof(tmp)) {
		for (size_t i = 0; i < len; i++)
			tmp[i] = text[i] == '\t' ? ' ' : text[i];
		text = tmp;
	}
	move(y, x);
	addnstr(text, (int)len);
	if (getcury(stdscr) == y && getcurx(stdscr) < COLS)
		hline(' ' | a, COLS - getcurx(stdscr));
}

static attr_t title_attr(const struct screen *sc)
{
	return sc->color ? COLOR_PAIR(PAIR_TITLE) : A_REVERSE;
}

void draw_title(struct screen *sc, int y, const char *text, size_t len)
{
	attr_t a = title_attr(sc);

	attron(a);
	put_line(y, 0, text, len, a);
	attroff(a);
}

static attr_t pct_attr(const struct screen *sc, double p)
{
	if (!sc->color)
		return A_NORMAL;
	return p >= MIN_RED ? COLOR_PAIR(PAIR_TOP) : p >= MIN_GREEN ? COLOR_PAIR(PAIR_MEDIUM) :
	       A_NORMAL;
}

void draw_row(struct screen *sc, int y, const char *text, size_t len,
	      const struct print_pcts *pcts, bool selected)
{
	size_t at = 0;

	if (selected) {
		attr_t a = sc->color ? COLOR_PAIR(PAIR_SELECTED) : A_REVERSE;

		attron(a);
		put_line(y, 0, text, len, a);
		attroff(a);
		return;
	}
	move(y, 0);
	for (size_t i = 0; pcts && i < pcts->nr && pcts->at[i] + pcts->width[i] <= len &&
			    (int)(pcts->at[i] + pcts->width[i]) < COLS; i++) {
		attr_t a = pct_attr(sc, pcts->pct[i]);

		if (pcts->at[i] > at)
			addnstr(text + at, (int)(pcts->at[i] - at));
		attron(a);
		addnstr(text + pcts->at[i], (int)pcts->width[i]);
		attroff(a);
		at = pcts->at[i] + pcts->width[i];
	}
	put_line(y, getcurx(stdscr), text + at, len - at, A_NORMAL);
}

void draw_status(struct screen *sc, const char *text)
{
	(void)sc;
	put_line(LINES - 1, 0, text, strlen(text), A_NORMAL);
}

int draw_help(struct screen *sc, const char *title, const char *const *lines, size_t n)
{
	int w = (int)strlen(title) + 4, h = (int)n + 4, ch, refreshed = 0;
	WINDOW *win;

	for (size_t i = 0; i < n; i++)
		if ((int)strlen(lines[i]) + 4 > w)
			w = (int)strlen(lines[i]) + 4;
	if (w > COLS)
		w = COLS;
	if (h > LINES)
		h = LINES;
	win = newwin(h, w, (LINES - h) / 2, (COLS - w) / 2);
	if (!win)
		return 0;
	keypad(win, TRUE);
	box(win, 0, 0);
	mvwaddnstr(win, 0, 2, title, w - 4);
	for (size_t i = 0; i < n && (int)i + 1 < h - 2; i++)
		mvwaddnstr(win, (int)i + 1, 2, lines[i], w - 4);
	mvwaddnstr(win, h - 2, 2, "Press any key...", w - 4);
	wrefresh(win);
	/* the hook refreshes under the box (prec top drains and ages meanwhile);
	 * the view is drawn again once it is gone */
	sc->win = win;
	while ((ch = scr_key(sc)) == KEY_RESIZE || ch == KEY_REFRESHED)
		refreshed |= ch == KEY_REFRESHED;
	sc->win = NULL;
	delwin(win);
	touchwin(stdscr);
	return ch < 0 ? -1 : refreshed;
}

int scr_prompt(struct screen *sc, const char *prompt, char *buf, size_t n,
	       void (*redraw)(struct screen *sc))
{
	size_t len = strlen(buf);
	bool done = false;
	int ret = 0;

	curs_set(1);
	while (!done) {
		int ch;

		mvaddstr(LINES - 1, 0, prompt);
		addnstr(buf, (int)len);
		clrtoeol();
		refresh();
		ch = scr_key(sc);
		if (ch < 0 || ch == '\r' || ch == '\n' || ch == KEY_ENTER || ch == 27 || ch == 3 ||
		    ch == KEY_QUIT) {
			done = true;
			ret = ch < 0 ? -1 : ch == '\r' || ch == '\n' || ch == KEY_ENTER;
		} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
			len -= len > 0;
		} else if (ch == 21) {          /* Ctrl-U: all of it */
			len = 0;
		} else if (ch == KEY_RESIZE || ch == KEY_REFRESHED) {
			redraw(sc);     /* the view under the prompt, new size or refreshed */
		} else if (ch >= 32 && ch < 256 && len + 1 < n) {
			buf[len++] = (char)ch;
		}
		buf[len] = 0;
	}
	curs_set(0);
	return ret;
}

int tui_dump(struct screen *sc, size_t nr, const char *(*line)(void *ctx, size_t i, size_t *len),
	     void *ctx, char *name, size_t n)
{
	FILE *f = NULL;
	int ret = 0;

	(void)sc;
	for (int k = 0; k < 100000 && !f; k++) {
		int fd;

		snprintf(name, n, "prep.hist.%d", k);
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			return -errno;
		if (fd >= 0 && !(f = fdopen(fd, "w"))) {
			close(fd);
			return -ENOMEM;
		}
	}
	if (!f)
		return -EEXIST;
	for (size_t i = 0; i < nr && !ret; i++) {
		size_t len;
		const char *text = line(ctx, i, &len);

		if (!text)
			ret = -ENOMEM;
		else if (fwrite(text, 1, len, f) != len || fputc('\n', f) == EOF)
			ret = -EIO;
	}
	if (fclose(f) && !ret)
		ret = -EIO;
	return ret;
}

void scr_time(struct screen *sc, const char *what, uint64_t since)
{
	if (!sc->times)
		return;
	fprintf(sc->times, "%s %llu\n", what, (unsigned long long)((scr_now() - since) / 1000));
	fflush(sc->times);
}
