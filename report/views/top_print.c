/* SPDX-License-Identifier: MIT */
/*
 * prec top's stdio table, in perf top --stdio's layout: a blank line, the
 * "PerfTop:" header, a rule of dashes, a blank line, then the entries in
 * prep report's entry format (print_entry_lines), each with its call graph
 * when there are call chains. On a terminal the screen is cleared first,
 * the percentages are coloured and the entry lines are cut to its width.
 * See top.h.
 */
#include "top_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/core/session.h"

/* perf top's header takes 5 lines of the screen (with the last one) */
#define HEADER_LINES 5
#define DEFAULT_COLS 80

/* "[4000Hz cpu-clock]" or, with a fixed period, "[100000 cpu-clock]" */
static void event_text(const struct top *t, char *buf, size_t len)
{
	const struct session *s = load_session(t->load, 0);
	const struct perf_event_attr *a = s && s->nr_events ? &s->events[0].attr : NULL;
	const char *name = s ? session_event_name(s, 0) : "unknown";

	if (a && a->freq)
		snprintf(buf, len, "%" PRIu64 "Hz %s", (uint64_t)a->sample_freq, name);
	else if (a)
		snprintf(buf, len, "%" PRIu64 " %s", (uint64_t)a->sample_period, name);
	else
		snprintf(buf, len, "%s", name);
}

/* "(all, 2 CPUs)", "(target_pid: 12)", "(target_tid: 12)", "(all, CPU: 0)" */
static void target_text(const struct top_opts *o, char *buf, size_t len)
{
	int n;

	if (o->pids)
		n = snprintf(buf, len, "(target_pid: %s", o->pids);
	else if (o->tids)
		n = snprintf(buf, len, "(target_tid: %s", o->tids);
	else
		n = snprintf(buf, len, "(all");
	if (n < 0 || (size_t)n >= len)
		return;
	if (o->cpu_list)
		snprintf(buf + n, len - (size_t)n, ", CPU%s: %s)", o->nr_cpus > 1 ? "s" : "",
			 o->cpu_list);
	else if (o->pids || o->tids)
		snprintf(buf + n, len - (size_t)n, ")");
	else
		snprintf(buf + n, len - (size_t)n, ", %zu CPU%s)", o->nr_cpus,
			 o->nr_cpus == 1 ? "" : "s");
}

static double share(uint64_t part, uint64_t all)
{
	return all ? 100.0 * (double)part / (double)all : 0.0;
}

void top_header(const struct top *t, const struct top_snapshot *snap, char *buf, size_t len)
{
	const struct top_counts *c = &snap->interval;
	char ev[320], target[320];

	event_text(t, ev, sizeof(ev));
	target_text(&t->opts, target, sizeof(target));
	/* prec top reads every record it is given: it never drops any */
	snprintf(buf, len, "   PerfTop:%8.0f irqs/sec  kernel:%4.1f%%  exact: %4.1f%% lost: %" PRIu64
		 "/%" PRIu64 " drop: 0/0 [%s],  %s",
		 snap->interval_s > 0 ? (double)c->samples / snap->interval_s : 0.0,
		 share(c->kernel, c->samples), share(c->exact, c->samples), c->lost,
		 snap->lost_total, ev, target);
}

void top_title_note(const struct top *t, char *buf, size_t len)
{
	const struct session *s = load_session(t->load, 0);
	const struct perf_event_attr *a = s && s->nr_events ? &s->events[0].attr : NULL;

	if (a && a->freq)
		snprintf(buf, len, ", %" PRIu64 " Hz", (uint64_t)a->sample_freq);
	else if (len)
		buf[0] = 0;
}

void top_title_tail(const struct top *t, const struct top_snapshot *snap, char *buf,
		    size_t len)
{
	/* as top_header: prec top drops nothing */
	snprintf(buf, len, " lost: %" PRIu64 "/%" PRIu64 " drop: 0/0%s", snap->interval.lost,
		 snap->lost_total, t->opts.zero ? " [z]" : "");
}

/* The table's text written to out, each line cut to cols - 1 visible
 * characters (escape sequences take none) when cols is not 0. */
static void put_cut(FILE *out, const char *text, size_t len, size_t cols)
{
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p), seen = 0, i = 0;
		bool cut = false, escaped = false;

		for (; i < n && cols; i++) {
			if (p[i] == '\033') {
				escaped = true;
				while (i + 1 < n && !((p[i + 1] >= 'A' && p[i + 1] <= 'Z') ||
						      (p[i + 1] >= 'a' && p[i + 1] <= 'z')))
					i++;
				i++;
				continue;
			}
			if (++seen >= cols) {
				cut = true;
				break;
			}
		}
		fwrite(p, 1, cols && i < n ? i : n, out);
		if (cut && escaped)
			fputs("\033[m", out);
		fputc('\n', out);
		p += n + 1;
	}
}

int top_print(struct top *t, FILE *out, const struct top_screen *scr, double now,
	      struct err *err)
{
	size_t max = scr->entries ? scr->entries :
		     scr->rows > HEADER_LINES ? scr->rows - HEADER_LINES : 1;
	size_t cols = scr->cols ? scr->cols : DEFAULT_COLS;
	struct print_opts po;
	struct top_snapshot snap;
	char line[1024];
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	int ret = top_refresh(t, now, max, &snap, err);

	if (ret)
		return ret;
	if (scr->terminal)
		fputs("\033[H\033[2J", out);
	/* the header as perf prints it, whole (a narrow terminal wraps it) */
	top_header(t, &snap, line, sizeof(line));
	fprintf(out, "\n%s\n", line);
	for (size_t i = 0; i + 1 < cols; i++)
		fputc('-', out);
	fputs("\n\n", out);
	mem = open_memstream(&text, &len);
	if (!mem)
		return err_set(err, -ENOMEM, "out of memory");
	po = t->po;     /* as the refresh set it up */
	po.color = scr->terminal && !scr->no_color;
	print_entry_lines(mem, snap.load, snap.hist, &po, snap.event, snap.total, max);
	if (fclose(mem)) {
		free(text);
		return err_set(err, -ENOMEM, "out of memory");
	}
	/* a terminal's lines must not wrap: the next table starts at the top */
	put_cut(out, text, len, scr->terminal ? scr->cols : 0);
	free(text);
	fflush(out);
	return top_age(t, err);
}
