/* SPDX-License-Identifier: MIT */
/*
 * The browser: perf report's TUI over a histogram, on the terminal
 * (ncurses), for prep report and prec top.
 *
 * A caller describes what to show with a source: a histogram whose stacks
 * are added and named (hist_resolve done), the text report's print
 * options, its events, and optionally the reading the binaries come from
 * (for annotate) and a refresh hook. The browser builds the histogram's
 * entries itself (hist_build_keep: the event shown, the thread or command
 * zoomed into), formats every line with the text report's formatter
 * (report/views/print_line.h), so that its lines are the text report's,
 * and handles the keys (perf report's: see prep-report(1)) until the user
 * quits.
 *
 * The refresh hook (top): called from the input loop every refresh_ms
 * milliseconds (the wait for a key ends when one is due), wherever the
 * browser waits for a key: the entries, the annotate view, the help box and
 * the filter's prompt alike. It may add
 * samples to the histogram, decay or zero them, or hand over another
 * histogram (*h). When it says something changed, the browser rebuilds
 * its entries and redraws, keeping the selected line, the expanded call
 * graphs, the zoom and the filter by entry identity: an entry is its
 * sort-key cells (as printed, so a histogram handed over is matched by
 * name, not by pointer), a call-graph node its path of names from the
 * root, a zoom its thread, command or binary. A selected entry that is gone
 * leaves the selection on the line where it was; a selection on the first
 * line stays there (on whatever entry is hottest now, as perf top's).
 *
 * Threads and lifetimes: everything runs on the calling thread; the
 * callbacks are called from browser_run only, between keys. The source and
 * what it points to must stay valid until browser_run returns (a histogram
 * handed over by the hook, until the next hook call or the return). While
 * the browser runs, log messages (common/log.h) go to its message line; the
 * handler installed before is put back when it returns.
 */
#ifndef PREC_REPORT_TUI_BROWSER_H
#define PREC_REPORT_TUI_BROWSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "report/aggregate/hist.h"
#include "report/views/print.h"

struct load;

/* What the browser needs to know of an event. */
struct browser_event {
	const char *name;       /* as the text report's "# Samples: ... of event" names it */
	uint64_t period;        /* before any filter: what --percentage absolute is of */
	bool has_chains;        /* it records call chains: its entries have graphs */
	bool hidden;            /* not shown, not reached with Tab (an empty dummy event) */
};

/* The refresh hook's answer that ends the browser as q does (prec top:
 * SIGINT, SIGTERM, --duration): browser_run returns 0. */
#define BROWSER_QUIT 2

struct browser_source {
	/* Required. The browser builds h's entries (so h->entries change
	 * under the caller) and reads its stacks and frames. */
	struct hist *hist;
	const struct print_opts *po;    /* columns, percentages, call-graph mode */
	size_t nr_events;               /* events 0 .. nr_events - 1 (struct stack's event) */
	void (*event)(void *ctx, int event, struct browser_event *ev);
	void *ctx;                      /* for event, lost and frame_wanted */

	/* Optional. */
	uint64_t (*lost)(void *ctx);    /* lost samples, for the status line */
	/* The entries the caller's own filters keep (--dso, --symbols): an
	 * entry is shown when its frame is wanted; NULL: all. */
	bool (*frame_wanted)(void *ctx, const struct frame *f);
	bool dso_list;                  /* a --dso list chose the objects (column widths) */
	struct load *load;              /* for annotate ('a'); NULL: not available */
	int first_event;                /* shown first; -1 or hidden: the first shown */
	const char *name;               /* the program, for the help's title ("prep report") */
	const char *message;            /* the message line's first text (the reading's
					   warnings); NULL: none */

	size_t max_entries;             /* at most this many entries shown (-E); 0: all */

	/* The refresh hook (prec top): 1 when something changed (the browser
	 * rebuilds and redraws), 0 when nothing did, BROWSER_QUIT to end the
	 * browser as q does, negative to end it with an error (err says why;
	 * browser_run returns it). NULL: never. */
	unsigned refresh_ms;
	int (*refresh_hook)(void *ctx, struct hist **h, struct err *err);
	void *refresh_ctx;
	/* Text for the status line after the browser's own (top: "refresh
	 * 2 s"), valid until the next call; NULL: none. ctx: refresh_ctx.
	 * With status_replaces, it takes the place of the browser's "EVENT:
	 * N samples, N lost" (top: its PerfTop line). */
	const char *(*status)(void *ctx);
	bool status_replaces;
	/* The title's additions (top): title_note after the event's name (",
	 * 4000 Hz"), title_tail's text at its end, valid until the next call
	 * (" lost: 0/0 drop: 0/0"; ctx: refresh_ctx). NULL: none. */
	const char *title_note;
	const char *(*title_tail)(void *ctx);
	/* A key of the entries' view that the browser has no use for (top's
	 * z): 1 when the source took it (the browser redraws), 0 when not;
	 * ctx: refresh_ctx. help: its lines for the help box (nr_help). */
	int (*key)(void *ctx, int key);
	const char *const *help;
	size_t nr_help;
};

/* A source for a histogram read with load_run: events, lost samples, the
 * --dso/--symbols filters and annotate from the reading l. Fills every
 * field; a caller sets the refresh hook afterwards if it has one. */
void browser_source_init(struct browser_source *src, struct load *l, struct hist *h,
			 const struct print_opts *po);

/* Whether a browser can run here: stdin and stdout are terminals. */
bool browser_can_run(void);

/* Run until the user quits: 0. Negative with err set when the terminal
 * cannot be started ("cannot start the terminal (TERM=...)"), memory runs
 * short, or the refresh hook ended it. The terminal is left as found.
 * Environment: NO_COLOR (set and not empty) turns colours off, as does a
 * terminal without them; PREP_BROWSER_TIMES=FILE appends "first USEC"
 * (from the start to the first screen), then how long each key took to
 * answer, "NAME USEC" a line (NAME as keyname(3) spells it; "refresh" for
 * a refresh). */
int browser_run(const struct browser_source *src, struct err *err);

#endif
