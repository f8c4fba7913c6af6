/* SPDX-License-Identifier: MIT */
/*
 * Inside the browser: the view (view.c, no curses: the rows on screen,
 * their folding, zoom and filter, and keeping them by identity when the
 * entries are rebuilt), the annotate view (annot_view.c), the drawing
 * (draw.c) and the loop (browser.c).
 */
#ifndef PREC_REPORT_TUI_INT_H
#define PREC_REPORT_TUI_INT_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "browser.h"
#include "common/buf.h"
#include "report/views/print_line.h"

/* A line of an open entry's call graph: text in vent.text. */
struct vline {
	size_t off, len;
	const struct cnode *node;       /* the node it names, NULL for other lines */
	bool more;                      /* the node has lines beneath it */
};

/* An entry's state (per h->entries index). */
struct vent {
	bool open;              /* its call graph is shown */
	int8_t graph;           /* it has call-graph lines: -1 not known yet */
	/* nodes are folded, but for those in exc; with all_open, open but
	 * for those in exc ("e" and "E" open everything) */
	bool all_open;
	const struct cnode **exc;       /* sorted by address */
	size_t nr_exc, cap_exc;
	/* the graph's lines while open (drawn again when folding changes) */
	struct buf text;
	struct vline *lines;
	size_t nr_lines, cap_lines;
};

enum zoom_kind { ZOOM_THREAD, ZOOM_COMM, ZOOM_DSO, ZOOM_SYMBOL, ZOOM_NR };

/* Entries built for an event and a zoom into a thread or a command, kept
 * when the view leaves them (going back is then instant) until the
 * histogram changes. */
#define VIEW_CACHE 4
struct vbuilt {
	bool used;
	int event;
	const struct thread *zthread;
	const char *zcomm;
	unsigned age;
	struct hist_entries e;
};

struct view {
	const struct browser_source *src;
	struct hist *h;
	int event;
	struct browser_event ev;
	/* zoom and filter: what is set, and the order they were set in */
	const struct thread *zthread;
	const char *zcomm;
	const struct dso *zdso;
	regex_t re;
	char re_text[256];      /* "" when no filter */
	enum zoom_kind order[ZOOM_NR];
	size_t nr_order;
	/* what h's entries are built for now, and the builds left */
	struct vbuilt built;
	struct vbuilt cache[VIEW_CACHE];
	unsigned age;
	/* the entries built for them */
	struct col cols[SORT_NR];
	size_t nc;
	uint64_t shown_period, shown_count, total;
	struct print_totals totals;     /* what the entry lines' percentages are of */
	struct vent *ents;      /* h->nr_entries */
	size_t nr_ents;
	size_t *vis;            /* the entries shown, in order */
	size_t *first;          /* row of each shown entry's line; [nr_vis] = rows */
	size_t nr_vis, cap_vis, cap_first;
	size_t sel, top;        /* the selected row; the first row on screen */
	struct buf line;        /* the row being formatted */
};

/* A row's place: the shown entry (index in vis) and its line (0: the
 * entry's, k: its call graph's k-th). */
struct vpos {
	size_t v, k;
};

int view_init(struct view *vw, const struct browser_source *src, int event, struct err *err);
void view_free(struct view *vw);
static inline size_t view_rows(const struct view *vw)
{
	return vw->first ? vw->first[vw->nr_vis] : 0;
}
struct vpos view_pos(const struct view *vw, size_t row);
const struct hentry *view_entry(const struct view *vw, size_t row);
/* The row's text (its first byte the fold mark; NUL-terminated, *len
 * bytes), valid until the next call; *pcts (may be NULL) where an entry line's percentages are. NULL
 * when out of memory. */
const char *view_text(struct view *vw, size_t row, size_t *len, struct print_pcts *pcts);
/* Fold marks: "+", "-" or " " of a row (entries and graph-mode nodes). */
char view_mark(struct view *vw, size_t row);

/* Keys: fold or unfold the row's entry or node (Enter, '+'); the whole
 * entry ('e'); everything ('E', 'C'). 0 or -ENOMEM. */
int view_toggle(struct view *vw, size_t row);
int view_toggle_entry(struct view *vw, size_t row);
int view_all(struct view *vw, bool open);

/* Zoom into the thread, command or binary of the row's entry, or out of
 * it when zoomed already; the symbol filter (regex, "" clears it); the
 * last zoom or filter undone (Esc, Left): 1 when there was one. The
 * entries are rebuilt (thread, command) or filtered again. 0, 1, or
 * negative with err set (a bad regex: -EINVAL). */
int view_zoom(struct view *vw, enum zoom_kind kind, size_t row, struct err *err);
int view_filter(struct view *vw, const char *re, struct err *err);
int view_unzoom(struct view *vw, struct err *err);
/* Another event, a zoom, or a histogram changed or handed over (refresh):
 * the entries rebuilt, state kept by identity; a selection on the first
 * row stays on the first row after a refresh (as perf top's), and follows
 * its entry otherwise. */
int view_rebuild(struct view *vw, struct hist *h, int event, bool refresh, struct err *err);
/* The histogram's stacks changed: no build kept is valid any more. */
void view_invalidate(struct view *vw);
/* "Thread: worker-a(1234), DSO: libc.so.6, Symbol: ^a" for the title and
 * the status line; "" when not zoomed. */
void view_zoom_text(const struct view *vw, char *buf, size_t n);

/* Between view.c and view_keep.c. */
bool vent_folded(void *ctx, const struct cnode *n);     /* a print_folded_fn */
bool vent_in_exc(const struct vent *ve, const struct cnode *n);
int vent_flip(struct vent *ve, const struct cnode *n);
void vent_reset(struct vent *ve);       /* closed, nothing unfolded */
void vent_free(struct vent *ve);
bool view_has_graph(struct view *vw, size_t i);
int view_lines(struct view *vw, size_t i);
int view_recount(struct view *vw);
int view_refilter(struct view *vw);

/* ---- the terminal (draw.c) and the loop (browser.c) ---- */

struct annot_pass;

struct screen {
	const struct browser_source *src;
	struct view *vw;
	bool color;
	char msg[512];          /* the message line, until the next key */
	FILE *times;            /* PREP_BROWSER_TIMES, or NULL */
	uint64_t t0;            /* when the browser started (ns) */
	unsigned gen;           /* refreshes that changed something */
	uint64_t next_refresh;  /* ns */
	struct err *err;        /* the refresh hook's failure */
	bool failed;            /* it failed: the browser ends */
	bool quit;              /* the hook said BROWSER_QUIT: every view ends */
	void *win;              /* the curses WINDOW keys are read in; NULL: stdscr */
	/* the annotate engine, counted from the histogram of generation gen */
	struct annot_pass *pass;
	unsigned pass_gen;
	bool pass_ok;
};

/* colour pairs */
enum { PAIR_TITLE = 1, PAIR_SELECTED, PAIR_TOP, PAIR_MEDIUM };
#define KEY_REFRESHED 0x7fff0001        /* scr_key: the view was rebuilt */
#define KEY_QUIT 0x7fff0002             /* scr_key: the hook ended the browser */

int scr_start(struct screen *sc, struct err *err);
void scr_end(struct screen *sc);
uint64_t scr_now(void);                 /* CLOCK_MONOTONIC, ns */
/* The next key (read in sc->win), KEY_REFRESHED when the refresh hook
 * changed the view meanwhile, KEY_QUIT once it has ended the browser (then
 * at every call: each view goes back until the loop ends), or -1 when the
 * hook failed (sc->failed; then at every call). */
int scr_key(struct screen *sc);
void scr_message(struct screen *sc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Lines: the whole width; a title's colours; a row (selected or not) with
 * its percentages coloured. */
void draw_title(struct screen *sc, int y, const char *text, size_t len);
void draw_row(struct screen *sc, int y, const char *text, size_t len,
	      const struct print_pcts *pcts, bool selected);
void draw_status(struct screen *sc, const char *text);
/* The help of a view in a box over it, until a key (the refresh hook goes
 * on meanwhile): 1 when the view was refreshed under it, 0 when not, -1
 * when the hook failed. */
int draw_help(struct screen *sc, const char *title, const char *const *lines, size_t n);
/* A line of input on the status line (the refresh hook goes on meanwhile;
 * a refresh calls redraw, then the prompt is drawn again): 1 with buf set
 * on Enter, 0 on Esc or when the hook ended the browser, -1 when it
 * failed. */
int scr_prompt(struct screen *sc, const char *prompt, char *buf, size_t n,
	       void (*redraw)(struct screen *sc));
/* The view's title line text: "Samples: 1K of event 'x', Event count ..." */
void view_title(const struct view *vw, char *buf, size_t n);
/* Rows of a view on screen, between the two title lines and the status line */
int scr_rows(void);
/* Write lines to the first free prep.hist.N: its name in name, or -errno. */
int tui_dump(struct screen *sc, size_t nr, const char *(*line)(void *ctx, size_t i, size_t *len),
	     void *ctx, char *name, size_t n);
void scr_time(struct screen *sc, const char *what, uint64_t since);

/* The annotate view of the row's entry, until q, Esc or Left: 0, or
 * negative when the terminal or the refresh hook failed. */
int annot_view_run(struct screen *sc, struct view *vw, size_t row);

#endif
