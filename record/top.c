/* SPDX-License-Identifier: MIT */
/*
 * prec top: what the system (or -p/-t/-C) runs now, its hottest entries
 * refreshed every -d seconds, as perf top --stdio shows them, or on a
 * terminal in the browser (top_tui.c).
 *
 * The recording is prec's (evlist.c opens the events, drain.c copies the
 * rings, synth.c names what already runs); everything it copies goes, as
 * raw records, to prec top's view through report/views/top.h, which names
 * and counts them with the report's reading core, and, with --record FILE,
 * to the same container writer prec record uses. Nothing here resolves a
 * symbol.
 *
 * Order of work: options; open the events and map the rings; the view;
 * --record's file (metadata); the EVENT blocks (file and view); enable;
 * what already runs, synthesized from /proc; then in the browser
 * (top_browse) or, for text, until q, Ctrl-C, SIGTERM, --duration or the
 * end of every task followed: drain at each wakeup, and at each refresh
 * drain twice (the second pass lets the first one's records through the
 * time order) and print the table. At the end: a last drain, and
 * --record's file finished as prec record finishes it.
 */
#include "top_cmd.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "format/blocks.h"
#include "format/record.h"

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the sink: what the session drains goes to the view --------------- */

static int sink_block(void *ctx, unsigned type, const void *payload, size_t len, struct err *err)
{
	return top_block(ctx, type, payload, len, err);
}

static int sink_records(void *ctx, uint32_t cpu, const void *p1, size_t n1, const void *p2,
			size_t n2, struct err *err)
{
	return top_records(ctx, cpu, p1, n1, p2, n2, err);
}

static int sink_round(void *ctx, struct err *err)
{
	return top_round(ctx, err);
}

/* One drain pass; a pass that found nothing still ends a round for the
 * view (what it holds is then no later than anything still to come). */
static int drain(struct top_run *r, struct err *err)
{
	long n = session_drain(&r->s, err);

	if (n < 0)
		return (int)n;
	return n ? 0 : top_round(r->view, err);
}

/* ---- the terminal ------------------------------------------------------- */

/* Keys without Enter and without echo, as perf top reads them; Ctrl-C
 * still signals. */
static void keys_start(struct top_run *r)
{
	struct termios t;

	/* not from the background (prec top > file &): the terminal would
	 * stop us (SIGTTOU, SIGTTIN) */
	if (!isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) != getpgrp() ||
	    tcgetattr(STDIN_FILENO, &r->saved))
		return;
	t = r->saved;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &t))
		return;
	r->keys = true;
	r->s.poll_stdin = true;
}

static void keys_end(struct top_run *r)
{
	if (r->keys)
		tcsetattr(STDIN_FILENO, TCSANOW, &r->saved);
	r->keys = false;
}

/* q or Q quits; z turns -z on and off. */
static void keys_read(struct top_run *r)
{
	char k[16];
	ssize_t n;

	if (!r->keys || !r->s.stdin_ready)
		return;
	n = read(STDIN_FILENO, k, sizeof(k));
	for (ssize_t i = 0; i < n; i++) {
		if (k[i] == 'q' || k[i] == 'Q')
			r->quit = true;
		else if (k[i] == 'z') {
			r->c->to.zero = !r->c->to.zero;
			top_set_zero(r->view, r->c->to.zero);
		}
	}
	if (n == 0 && !isatty(STDIN_FILENO))
		r->s.poll_stdin = false;
}

/* The terminal's size, else $LINES and $COLUMNS, else 25 x 80 (perf's). */
static void screen(const struct top_cmd *c, struct top_screen *scr)
{
	struct winsize ws = { 0 };
	const char *nc = getenv("NO_COLOR");

	memset(scr, 0, sizeof(*scr));
	scr->terminal = isatty(STDOUT_FILENO);
	scr->no_color = nc && *nc;
	scr->rows = 25;
	scr->cols = 80;
	if (scr->terminal && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col) {
		scr->rows = ws.ws_row;
		scr->cols = ws.ws_col;
	} else {
		long rows = getenv("LINES") ? atol(getenv("LINES")) : 0;
		long cols = getenv("COLUMNS") ? atol(getenv("COLUMNS")) : 0;

		scr->rows = rows > 0 ? (size_t)rows : scr->rows;
		scr->cols = cols > 0 ? (size_t)cols : scr->cols;
	}
	scr->entries = c->entries > 0 ? (size_t)c->entries : 0;
}

static int refresh(struct top_run *r, struct err *err)
{
	struct top_screen scr;
	int ret = drain(r, err);

	if (!ret)
		ret = drain(r, err);
	if (ret)
		return ret;
	screen(r->c, &scr);
	ret = top_print(r->view, stdout, &scr, mono_s(), err);
	/* nobody reads the tables any more (prec top | head): the end */
	if (!ret && ferror(stdout))
		r->quit = true;
	if (!ret && r->s.writer)
		ret = container_writer_flush(r->s.writer, err);
	return ret;
}

/* ---- --record FILE ------------------------------------------------------ */

/* The file's start: its metadata (its EVENT blocks come with the view's). */
static int record_open(struct top_run *r, struct err *err)
{
	struct container_writer_opts wo;
	int ret;

	if (!r->c->record)
		return 0;
	record_writer_opts(&r->s, &wo);
	ret = container_writer_open(&r->s.writer, r->c->record, &wo, err);
	if (!ret)
		ret = write_metadata(r->s.writer, &r->c->ro, wall_ns(), err);
	return ret;
}

/* As prec record finishes a recording of what runs: build ids, the
 * kernel's symbols, the final metadata, the index, then what the report
 * needs of the binaries hit; its summary line. */
static int record_close(struct top_run *r, struct err *err)
{
	struct session *s = &r->s;
	struct container_writer_stats st;
	uint64_t bytes;
	int ret;

	if (!s->writer)
		return 0;
	container_writer_get_stats(s->writer, &st);
	ret = write_build_ids(s->writer, s->dsos, err);
	if (!ret)
		ret = write_kallsyms(s->writer, s->opts->verbose, err);
	if (!ret)
		ret = write_final_metadata(s->writer, &st, -1, wall_ns(), err);
	if (!ret) {
		struct container_writer_stats kept;

		container_writer_get_stats(s->writer, &kept);
		bytes = kept.file_bytes;
		ret = container_writer_close(s->writer, err);
		s->writer = NULL;
		if (!ret)
			bytes += record_embed(s->opts);
	}
	if (!ret && !s->opts->quiet)
		fprintf(stderr, "[ prec: captured and wrote %.3f MB %s (%llu samples, %llu lost) ]\n",
			(double)bytes / (1024.0 * 1024.0), r->c->record,
			(unsigned long long)st.by_type[PERF_RECORD_SAMPLE],
			(unsigned long long)st.lost_samples);
	return ret;
}

/* ---- the run -------------------------------------------------------------- */

/* What already runs, to the file and the view. */
static int synthesize(struct top_run *r, struct err *err)
{
	struct buf out = BUF_INIT;
	int ret = record_synthesize(&r->s, &out, err);

	if (ret >= 0 && out.len && r->s.writer)
		ret = container_write_records(r->s.writer, SPAN_CPU_SYNTH, out.data, out.len, NULL, 0,
					      err);
	if (ret >= 0 && out.len)
		ret = top_records(r->view, SPAN_CPU_SYNTH, out.data, out.len, NULL, 0, err);
	if (ret >= 0)
		ret = top_round(r->view, err);
	buf_free(&out);
	return ret < 0 ? ret : 0;
}

static int start(struct top_run *r, struct err *err)
{
	struct session *s = &r->s;
	int ret = record_open(r, err); /* a file that cannot be written: before anything */

	if (!ret)
		ret = session_open_events(s, -1, err);
	if (!ret)
		ret = session_mmap(s, err);
	if (ret)
		return ret;
	r->view = top_new(&r->c->to, err);
	if (!r->view)
		return -1;
	r->sink = (struct record_sink){ sink_block, sink_records, sink_round, r->view };
	s->sink = &r->sink;
	ret = record_write_events(s, err);
	if (ret)
		return ret;
	if (s->writer)
		container_writer_set_layouts(s->writer, s->layouts);
	ret = session_enable(s, err);
	return ret ? ret : synthesize(r, err);
}

/* A poll timeout (ms) that ends no later than `when` (mono_s). */
static int timeout_until(double when)
{
	double left = when - mono_s();

	return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

static int loop(struct top_run *r, struct err *err)
{
	const struct top_cmd *c = r->c;
	double deadline = c->duration_s > 0 ? mono_s() + c->duration_s : 0;
	double next = mono_s() + c->delay_s;
	int ret = refresh(r, err);     /* perf top's first table, before any sample */

	while (!ret && !r->quit && !stop_requested()) {
		int timeout = timeout_until(next), hung;

		if (deadline && timeout_until(deadline) < timeout)
			timeout = timeout_until(deadline);
		hung = session_poll(&r->s, timeout);
		if (hung < 0)
			return err_set(err, hung, "poll: %s", strerror(-hung));
		keys_read(r);
		if (deadline && mono_s() >= deadline)
			break;
		if (mono_s() >= next) {
			ret = refresh(r, err);
			next += c->delay_s;
			if (next < mono_s())
				next = mono_s() + c->delay_s;
		} else {
			ret = drain(r, err);
		}
		if (!ret && hung == 1) {
			/* every task followed has exited: its last table */
			ret = refresh(r, err);
			break;
		}
	}
	return ret;
}

static int finish(struct top_run *r, struct err *err)
{
	int ret;

	session_disable(&r->s);
	ret = drain(r, err);
	if (!ret)
		ret = top_end(r->view, err);
	return ret ? ret : record_close(r, err);
}

/* The browser on a terminal, as perf top (a terminal named dumb or none
 * is not one for it), unless --stdio; --tui insists. 0, or the exit
 * status with the message printed. */
static int pick_output(struct top_cmd *c)
{
	if (c->tui && !(isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))) {
		fprintf(stderr, "prec top: --tui: not a terminal (the browser needs stdin and stdout "
			"on one)\n");
		return 1;
	}
	c->browse = c->tui || (!c->stdio && top_can_browse());
	return 0;
}

int cmd_top(int argc, char **argv)
{
	/* the whole command line ("prec top ...") for --record's metadata */
	struct top_cmd c = { .ro = { .level = CONTAINER_DEFAULT_LEVEL, .record_argc = argc,
				     .record_argv = argv } };
	struct top_run r = { .c = &c };
	struct err err = { 0 };
	int ret = top_parse_args(&c, argc - 1, argv + 1);

	if (!ret)
		ret = pick_output(&c);
	if (ret) {
		event_list_free(&c.ro.events);
		return ret;
	}
	c.ro.output = c.record;
	r.s.opts = &c.ro;
	r.s.events = c.ro.events.ev;
	r.s.nr_events = c.ro.events.nr;
	r.s.dsos = dso_list_new();
	r.s.layouts = record_layouts_new();
	stop_signals_install();
	signal(SIGPIPE, SIG_IGN);       /* a closed stdout: the write fails, top ends */
	/* a table goes out at once, not line by line (no flicker) */
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	ret = !r.s.dsos || !r.s.layouts ? err_set(&err, -ENOMEM, "out of memory") :
	      start(&r, &err);
	if (ret && r.s.writer) {
		/* nothing was sampled: no file either */
		container_writer_abort(r.s.writer);
		r.s.writer = NULL;
		unlink(c.record);
	}
	if (!ret && c.browse) {
		ret = top_tui_run(&r, &err);
		/* a terminal curses cannot start: the tables, unless --tui */
		if (ret == -ENOTTY && !c.tui) {
			c.browse = false;
			err = (struct err){ 0 };
			ret = 0;
		}
	}
	if (!c.browse)
		keys_start(&r);
	if (!ret && !c.browse)
		ret = loop(&r, &err);
	keys_end(&r);
	if (!ret)
		ret = finish(&r, &err);
	if (ret)
		fprintf(stderr, "prec top: %s\n", err.msg[0] ? err.msg : "failed");
	/* a failure once sampling had started: the file keeps its complete
	 * blocks, without index (prep reads it as cut short) */
	container_writer_abort(r.s.writer);
	top_free(r.view);
	record_session_close(&r.s);
	dso_list_free(r.s.dsos);
	record_layouts_free(r.s.layouts);
	event_list_free(&c.ro.events);
	return ret ? 255 : 0;
}
