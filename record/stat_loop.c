/* SPDX-License-Identifier: MIT */
/*
 * prec stat's runs: the workload started with its counters (or the
 * targets counted as they are), the wait until the run is over with -D's
 * delay and -I's ticks on the way, and -r's repeats. No timer wakes prec
 * in between: the wait sleeps in ppoll() until the next deadline or a
 * signal.
 */
#include "stat_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "format/blocks.h"
#include "control.h"
#include "record.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Times are kept in ns, as the file stores them, so that the live output and
 * the report of the file print the same digits. */
static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

/* ---- -I intervals ------------------------------------------------------ */

/* Event i's readings since the last tick into d, and into cr as the file
 * keeps them; their sum is what the printer shows (as run 0). */
static int interval_diff(struct stat_run *run, size_t i, uint64_t now_rel, struct reading *d,
			 struct count_reading *cr, size_t *ncr)
{
	struct intervals *iv = &run->iv;
	const struct counter *c = &run->c[i];
	struct reading sum = { 0 }, cur_sum;
	struct reading *cur = calloc(c->nr_fds + 1, sizeof(*cur));

	if (!cur)
		return -ENOMEM;
	counter_read(c, &cur_sum, cur);
	for (size_t k = 0; k < c->nr_fds; k++) {
		struct reading p = k < iv->prev_n[i] ? iv->prev[i][k] : (struct reading){ 0 };

		d[k] = cur[k];
		d[k].value -= p.value;
		d[k].enabled -= p.enabled;
		d[k].running -= p.running;
		sum.value += d[k].value;
		sum.enabled += d[k].enabled;
		sum.running += d[k].running;
		cr[(*ncr)++] = (struct count_reading){ (uint32_t)i, cur[k].cpu, cur[k].tid,
						       COUNT_FLAG_INTERVAL, now_rel, d[k].value,
						       d[k].enabled, d[k].running };
	}
	free(iv->prev[i]);
	iv->prev[i] = cur;
	iv->prev_n[i] = c->nr_fds;
	counter_show(run, i, 0, &sum);
	return 0;
}

/* As perf stat -I prints an interval: the titles first and every 25. */
static void interval_print(struct stat_run *run, uint64_t now_rel)
{
	const struct stat_opts *o = run->o;

	if (o->quiet)
		return;
	if (o->interval_clear)
		fputs("\033[H\033[2J", run->out);
	if ((run->iv.printed % STAT_HEADER_EVERY == 0 || o->interval_clear) && o->metric_only)
		stat_print_metric_only_header(run->out, &run->r, &run->po);
	else if (run->iv.printed % STAT_HEADER_EVERY == 0 || o->interval_clear)
		stat_print_interval_header(run->out, run->r.aggr, &run->po);
	run->iv.printed++;
	run->po.interval = (double)now_rel / 1e9;
	stat_print(run->out, &run->r, &run->po);
	run->po.interval = -1;
	fflush(run->out);
}

/* stat record: the interval's readings, encoded for the file. */
static int interval_keep(struct intervals *iv, const struct count_reading *cr, size_t n)
{
	struct buf *b;

	if (array_grow((void **)&iv->blocks, &iv->cap_blocks, iv->nr_blocks + 1, sizeof(*b)))
		return -ENOMEM;
	b = &iv->blocks[iv->nr_blocks];
	*b = (struct buf)BUF_INIT;
	if (counts_encode(cr, n, b)) {
		buf_free(b);
		return -ENOMEM;
	}
	iv->nr_blocks++;
	return 0;
}

/* One interval: read every counter, print the differences since the last
 * tick (as perf stat -I), keep them for the file. 0 or -ENOMEM. */
static int interval_tick(struct stat_run *run, uint64_t now_rel)
{
	size_t n = run->o->events.nr, ncr = 0, total = 0, nr_topo = 0;
	struct reading **d = calloc(n + 1, sizeof(*d));
	size_t *dn = calloc(n + 1, sizeof(*dn));
	struct count_reading *cr;
	struct stat_unit *topo = NULL;
	int ret = -ENOMEM;

	for (size_t i = 0; i < n; i++)
		total += run->c[i].nr_fds;
	cr = calloc(total + 1, sizeof(*cr));
	if (!d || !dn || !cr)
		goto out;
	for (size_t i = 0; i < n; i++) {
		d[i] = calloc(run->c[i].nr_fds + 1, sizeof(**d));
		if (!d[i] || interval_diff(run, i, now_rel, d[i], cr, &ncr))
			goto out;
		dn[i] = run->c[i].nr_fds;
	}
	run->r.c = run->sc;
	run->r.nr = n;
	run->r.runs = 1;
	run->r.elapsed_s[0] = (double)(now_rel - run->iv.last_ns) / 1e9;
	stat_units_free(&run->r, run->sc, n);
	if (counters_aggregate(run, d, dn, &topo, &nr_topo))
		goto out;
	interval_print(run, now_rel);
	if (run->o->record && interval_keep(&run->iv, cr, ncr))
		goto out;
	run->iv.last_ns = now_rel;
	run->iv.done++;
	ret = 0;
out:
	for (size_t i = 0; d && i < n; i++)
		free(d[i]);
	free(d);
	free(dn);
	free(cr);
	free(topo);
	return ret;
}

/* ---- waiting ------------------------------------------------------------ */

/* How a run ends: the workload exits, or (without one) a stop signal or
 * --timeout; -D and -I are deadlines on the way. */
struct waiter {
	pid_t pid;              /* the workload; 0: none */
	bool exited;            /* reaped: status and ru are its */
	bool forwarded;         /* a stop signal was passed on to it */
	int status;
	struct rusage ru;
	sigset_t asleep;        /* the signal mask while asleep */
	struct pollfd *targets; /* -p/-t without a command: a pidfd per thread; */
	size_t nr_targets;      /* the run ends when all have exited, as perf's */
	size_t alive;
	struct stat_run *run;
	bool ctl;               /* --control's fd follows the targets in the array */
};

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* A pidfd for each thread counted with -p/-t: readable once it exits.
 * Threads the kernel gives none for (before 6.9 only a process leader has
 * one) do not end the run; Ctrl-C still does. */
static void watch_targets(struct waiter *w, const struct stat_target *t)
{
	w->targets = calloc(t->nr_tids ? t->nr_tids : 1, sizeof(*w->targets));
	if (!w->targets)
		return;
	for (size_t k = 0; k < t->nr_tids; k++) {
		int fd = (int)syscall(SYS_pidfd_open, t->tids[k], PIDFD_THREAD);

		if (fd < 0)
			fd = (int)syscall(SYS_pidfd_open, t->tids[k], 0);
		if (fd < 0)
			continue;
		w->targets[w->nr_targets++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	}
	w->alive = w->nr_targets;
}

static void unwatch_targets(struct waiter *w)
{
	for (size_t k = 0; k < w->nr_targets; k++)
		if (w->targets[k].fd >= 0)
			close(w->targets[k].fd);
	free(w->targets);
	w->targets = NULL;
	w->nr_targets = w->alive = 0;
}

/* --control: its fd after the targets, read while asleep. */
static void watch_control(struct waiter *w)
{
	int fd = control_fd(w->run->control);
	struct pollfd *p;

	if (fd < 0 || !(p = array_realloc(w->targets, w->nr_targets + 1, sizeof(*p))))
		return;
	w->targets = p;
	p[w->nr_targets] = (struct pollfd){ .fd = fd, .events = POLLIN };
	w->ctl = true;
}

/* Threads that exited stop being watched (ppoll skips negative fds). */
static void targets_exited(struct waiter *w)
{
	for (size_t k = 0; k < w->nr_targets; k++) {
		if (w->targets[k].fd < 0 || !w->targets[k].revents)
			continue;
		close(w->targets[k].fd);
		w->targets[k].fd = -1;
		w->alive--;
	}
}

/*
 * Sleep until the run is over (true) or the deadline, in CLOCK_MONOTONIC
 * ns, passes (false; 0: no deadline). SIGINT, SIGTERM and SIGCHLD are
 * blocked except inside ppoll(), so a signal that comes between the checks
 * and the sleep ends the sleep at once rather than being missed. Ctrl-C is
 * passed on to the workload (the terminal sends it there too), whose end
 * ends the run and prints the counts, as perf stat does.
 */
static bool wait_until(struct waiter *w, uint64_t deadline)
{
	for (;;) {
		struct timespec ts;
		uint64_t now, left;

		if (w->pid > 0 && !w->exited) {
			pid_t got = wait4(w->pid, &w->status, WNOHANG, &w->ru);

			w->exited = got == w->pid || (got < 0 && errno != EINTR);
		}
		if (w->exited || (w->pid <= 0 && stop_requested()) || (w->nr_targets && !w->alive))
			return true;
		if (stop_requested() && !w->forwarded) {
			kill(w->pid, SIGINT);
			w->forwarded = true;
		}
		now = now_ns();
		if (deadline && now >= deadline)
			return false;
		left = deadline - now;
		ts = (struct timespec){ (time_t)(left / 1000000000u), (long)(left % 1000000000u) };
		if (ppoll(w->targets, w->nr_targets + w->ctl, deadline ? &ts : NULL, &w->asleep) <= 0)
			continue;
		targets_exited(w);
		if (w->ctl && w->targets[w->nr_targets].revents) {
			stat_control_process(w->run);
			w->targets[w->nr_targets].fd = control_fd(w->run->control);
		}
	}
}

/* Stops the workload (or, without one, the run) at --timeout or after
 * --interval-count intervals. */
static bool wait_stop(struct waiter *w)
{
	if (w->pid <= 0)
		return true;
	if (!w->forwarded)
		kill(w->pid, SIGINT);
	w->forwarded = true;
	return false;
}

/* -D, then the run with its -I ticks and the last, partial interval. */
static int wait_intervals(struct stat_run *run, struct waiter *w, uint64_t t0)
{
	const struct stat_opts *o = run->o;
	uint64_t end = o->timeout_ms ? t0 + (uint64_t)o->timeout_ms * 1000000u : 0;
	uint64_t tick = o->interval_ms ? (uint64_t)o->interval_ms * 1000000u : 0;
	uint64_t next = t0 + tick, now;
	bool ticking = tick != 0;
	int ret;

	if (o->delay_ms)
		fprintf(stderr, "Events disabled\n");
	if (o->delay_ms > 0) {  /* -1: --control's enable turns them on */
		wait_until(w, t0 + (uint64_t)o->delay_ms * 1000000u);
		counters_enable(run->c, o->events.nr);
		fprintf(stderr, "Events enabled\n");
	}
	for (;;) {
		uint64_t deadline = ticking && (!end || next < end) ? next : end;

		if (wait_until(w, deadline))
			break;
		now = now_ns();
		if (end && now >= end) {
			end = 0;
			if (wait_stop(w))
				break;
		}
		if (ticking && now >= next) {
			ret = interval_tick(run, now - t0);
			if (ret)
				return ret;
			next += tick;
			if (o->interval_count && run->iv.done >= o->interval_count) {
				ticking = false;
				if (wait_stop(w))
					break;
			}
		}
	}
	if (tick && (!o->interval_count || run->iv.done < o->interval_count))
		return interval_tick(run, now_ns() - t0);
	return 0;
}

/* The wait of one run, with the stop signals and SIGCHLD held back except
 * while asleep. */
static int wait_run(struct stat_run *run, struct waiter *w, uint64_t t0)
{
	sigset_t held, before;
	int ret;

	sigemptyset(&held);
	sigaddset(&held, SIGINT);
	sigaddset(&held, SIGTERM);
	sigaddset(&held, SIGCHLD);
	sigprocmask(SIG_BLOCK, &held, &before);
	w->asleep = before;
	sigdelset(&w->asleep, SIGINT);
	sigdelset(&w->asleep, SIGTERM);
	sigdelset(&w->asleep, SIGCHLD);
	ret = wait_intervals(run, w, t0);
	/* a workload still running (out of memory on a tick) is reaped, its
	 * counts not printed */
	if (w->pid > 0 && !w->exited) {
		kill(w->pid, SIGKILL);
		w->exited = wait4(w->pid, &w->status, 0, &w->ru) == w->pid;
	}
	sigprocmask(SIG_SETMASK, &before, NULL);
	return ret;
}

/* ---- runs --------------------------------------------------------------- */

/* The workload, held until its counters are open; those of a run that
 * cannot start are closed by the caller. */
static int start_run(struct stat_run *run, int k, struct workload *wl, uint64_t *t0,
		     struct err *err)
{
	const struct stat_opts *o = run->o;
	int ret;

	if (o->argc) {
		wl->stop_at_exec = probes_need_exec_stop(&o->events);
		ret = workload_prepare(wl, o->argv, err);
		if (ret)
			return ret;
		run->t.workload = run->t.cpus || run->t.tids ? 0 : wl->pid;
	}
	ret = counters_open(run, err);
	if (ret) {
		if (o->argc) {
			kill(wl->pid, SIGKILL);
			waitpid(wl->pid, NULL, 0);
		}
		return ret;
	}
	if (!k && !o->quiet)
		counters_note_user_only(run->c, o->events.nr);
	*t0 = now_ns();
	if (o->argc) {
		ret = workload_start(wl, err);
		if (ret) {
			err_prefix(err, "cannot run '%s'", o->argv[0]);
			waitpid(wl->pid, NULL, 0);
		} else if (wl->stop_at_exec) {  /* mem:SYMBOL of a PIE */
			ret = counters_probes_at_exec(run, wl->pid, err);
			if (ret)        /* killed: collect it */
				waitpid(wl->pid, NULL, 0);
		}
	}
	return ret;
}

/* Run k: start, wait, read the counters. */
static int one_run(struct stat_run *run, int k, struct err *err)
{
	struct workload wl = { 0 };
	struct waiter w;
	uint64_t t0;
	int ret = start_run(run, k, &wl, &t0, err);

	if (ret)
		return ret;
	w = (struct waiter){ .pid = run->o->argc ? wl.pid : 0, .run = run };
	if (!run->o->argc && run->t.tids)
		watch_targets(&w, &run->t);
	watch_control(&w);
	ret = wait_run(run, &w, t0);
	unwatch_targets(&w);
	run->status = w.status;
	if (ret)
		return err_set(err, ret, "out of memory");
	run->elapsed_ns[k] = now_ns() - t0;
	run->r.elapsed_s[k] = (double)run->elapsed_ns[k] / 1e9;
	run->user_ns = tv_ns(w.ru.ru_utime);
	run->sys_ns = tv_ns(w.ru.ru_stime);
	run->r.user_s = (double)run->user_ns / 1e9;
	run->r.sys_s = (double)run->sys_ns / 1e9;
	return counters_read_run(run, k, err);
}

int stat_runs(struct stat_run *run, struct err *err)
{
	const struct stat_opts *o = run->o;

	for (int k = 0; k < o->repeat; k++) {
		int ret = stat_hook("pre", o->pre, err);

		if (!ret)
			ret = one_run(run, k, err);
		if (!ret && o->record && k < o->repeat - 1 && !stop_requested())
			ret = stat_keep_run(run, k, err);
		if (!ret)
			ret = stat_hook("post", o->post, err);
		if (ret)
			return ret;
		run->runs = k + 1;
		/* stat record writes its file while the counters are still open
		 * (their ids) */
		if (k < o->repeat - 1 || !o->record)
			counters_close(run->c, o->events.nr);
		if (stop_requested())
			break;
	}
	return 0;
}
