/* SPDX-License-Identifier: MIT */
/*
 * -D/--delay and --control in prec's recording loop: the events held off
 * until -D's time or an `enable` on the control channel, then turned on
 * and off with PERF_EVENT_IOC_ENABLE / _DISABLE.
 *
 * A disabled event gets no side-band records either (the kernel skips
 * events that are off when it writes MMAP2 and COMM), so the workload's
 * exec and mappings made while it was off would be missing: each time the
 * events come on, the workload's COMM and MMAP2 records are synthesized
 * from /proc again (time 0, as for -p), so that its samples are named.
 */
#include "record.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include <linux/perf_event.h>

#include "common/buf.h"
#include "format/blocks.h"
#include "control.h"
#include "synth.h"

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int emit(void *ctx, const void *rec, size_t len)
{
	return buf_append(ctx, rec, len);
}

/* The workload's COMM and MMAP2 records as they are now. */
static void resynthesize(struct session *s)
{
	struct synth_params p = { .sample_type = s->attrs[0].sample_type, .id = s->evfds[0].id,
				  .proc = "/proc", .emit = emit, .data = s->opts->sample.data };
	struct buf out = BUF_INIT;
	struct err err = { 0 };
	int ret;

	p.ctx = &out;
	ret = synth_process(s->workload, &p, &err);
	if (ret == -ESRCH)
		ret = 0;        /* it has exited already */
	if (!ret && out.len)
		ret = container_write_records(s->writer, SPAN_CPU_SYNTH, out.data, out.len, NULL, 0,
					      &err);
	if (ret)
		fprintf(stderr, "prec: warning: the mappings of the workload could not be recorded: "
			"%s\n", err.msg);
	buf_free(&out);
}

/* An event's name as given: cpu-clock for cpu-clock:u too. */
static bool name_matches(const char *event, const char *name)
{
	size_t n = strlen(name);

	return !strcmp(event, name) || (!strncmp(event, name, n) && event[n] == ':');
}

static int rec_enable(void *ctx, const char *name, bool on)
{
	struct session *s = ctx;
	size_t hit = 0;

	for (size_t i = 0; i < s->nr_events; i++)
		hit += !name || name_matches(s->events[i].name, name);
	if (!hit)
		return -ENOENT;
	if (on && s->disabled && s->workload > 0)
		resynthesize(s);
	for (size_t i = 0; i < s->nr_evfds; i++)
		if (!name || name_matches(s->events[s->evfds[i].event].name, name))
			ioctl(s->evfds[i].fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
	s->disabled = name ? s->disabled && !on : !on;
	return 0;
}

static void rec_list(void *ctx)
{
	struct session *s = ctx;

	for (size_t i = 0; i < s->nr_events; i++)
		fprintf(stderr, "%s\n", s->events[i].name);
}

void record_control_start(struct session *s)
{
	const struct record_opts *o = s->opts;

	if (!o->delay_ms)
		return;
	s->disabled = true;
	if (o->delay_ms > 0)
		s->enable_at = mono_s() + (double)o->delay_ms / 1e3;
	fprintf(stderr, "Events disabled\n");
}

int record_control_timeout(const struct session *s, int timeout)
{
	double left;

	if (!s->enable_at)
		return timeout;
	left = (s->enable_at - mono_s()) * 1e3;
	if (left <= 0)
		return 0;
	return left < timeout ? (int)left + 1 : timeout;
}

void record_control_poll(struct session *s)
{
	struct control_ops ops = { .enable = rec_enable, .list = rec_list, .ctx = s };

	if (s->enable_at && mono_s() >= s->enable_at) {
		s->enable_at = 0;
		rec_enable(s, NULL, true);
		fprintf(stderr, "Events enabled\n");
	}
	if (s->control)
		control_process(s->control, &ops);
}
