/* SPDX-License-Identifier: MIT */
/*
 * prec top in the browser (report/tui/browser.h), as perf top shows itself
 * on a terminal: the view's histogram is the browser's source, and the
 * browser's refresh hook, called every TICK_MS from its waits for a key
 * (the entries, annotate, the help box, the filter's prompt alike), asks
 * the front end whether to end (tick) and every -d seconds refreshes: what
 * the last screen showed aged by 7/8 (or dropped, with z or -z), the
 * records drained meanwhile read (feed), the frames named (top_update);
 * the browser then builds the entries again and keeps the selection, the
 * open call graphs, the zoom and the filter by identity. The title is perf
 * top's TUI's, the status line the PerfTop line of --stdio. See top.h.
 */
#include "top_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/tui/browser.h"

#define TICK_MS 100

struct top_tui {
	struct top *t;
	const struct top_browse_ops *ops;
	double next;                    /* the next refresh (CLOCK_MONOTONIC s) */
	struct top_snapshot snap;       /* the last refresh's */
	char note[64], tail[128], status[640];
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool top_can_browse(void)
{
	const char *term = getenv("TERM");

	return browser_can_run() && term && *term && strcmp(term, "dumb");
}

static int hook(void *ctx, struct hist **h, struct err *err)
{
	struct top_tui *u = ctx;
	double now = mono_s(), delay = u->ops->delay_s;
	int ret = u->ops->tick(u->ops->ctx, err);

	(void)h;        /* the same histogram throughout */
	if (ret)
		return ret > 0 ? BROWSER_QUIT : ret;
	if (now < u->next)
		return 0;
	u->next += delay;
	if (u->next < now)
		u->next = now + delay;
	ret = top_age(u->t, err);
	if (!ret)
		ret = u->ops->feed(u->ops->ctx, u->t, err);
	if (!ret)
		ret = top_update(u->t, now, &u->snap, err);
	return ret ? ret : 1;
}

/* The PerfTop line (its leading blanks off), and the front end's note. */
static const char *status(void *ctx)
{
	struct top_tui *u = ctx;
	const char *note = u->ops->note ? u->ops->note(u->ops->ctx) : NULL;
	char line[512];
	const char *p = line;

	top_header(u->t, &u->snap, line, sizeof(line));
	while (*p == ' ')
		p++;
	snprintf(u->status, sizeof(u->status), "%s%s%s", p, note ? " | " : "", note ? note : "");
	return u->status;
}

static const char *title_tail(void *ctx)
{
	struct top_tui *u = ctx;

	top_title_tail(u->t, &u->snap, u->tail, sizeof(u->tail));
	return u->tail;
}

/* z: perf top's "Toggle zeroing of samples", from the next refresh on */
static int key(void *ctx, int k)
{
	struct top_tui *u = ctx;

	if (k != 'z')
		return 0;
	top_set_zero(u->t, !u->t->opts.zero);
	return 1;
}

static const char *const help[] = {
	"z              zero the samples at each refresh, or age them by 7/8 again (-z)",
};

int top_browse(struct top *t, const struct top_browse_ops *ops, struct err *err)
{
	struct top_tui u = { .t = t, .ops = ops };
	struct browser_source src;
	double now = mono_s();
	int ret;

	u.next = now + ops->delay_s;
	/* the first screen, before any sample (perf top's) */
	ret = top_update(t, now, &u.snap, err);
	if (ret)
		return ret;
	browser_source_init(&src, t->load, &t->hist, &t->po);
	src.name = "prec top";
	src.max_entries = ops->entries;
	src.refresh_ms = TICK_MS;
	src.refresh_hook = hook;
	src.refresh_ctx = &u;
	src.status = status;
	src.status_replaces = true;
	top_title_note(t, u.note, sizeof(u.note));
	src.title_note = u.note;
	src.title_tail = title_tail;
	src.key = key;
	src.help = help;
	src.nr_help = sizeof(help) / sizeof(help[0]);
	return browser_run(&src, err);
}
