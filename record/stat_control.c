/* SPDX-License-Identifier: MIT */
/*
 * --control in prec stat (control.h): its enable and disable commands turn
 * the counters of the current run on and off with PERF_EVENT_IOC_ENABLE /
 * _DISABLE; stat_loop.c polls the channel while it waits.
 */
#include "stat_int.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/perf_event.h>

#include "control.h"

/* cpu-clock also names cpu-clock:u (the user-only fallback). */
static bool name_matches(const char *event, const char *name)
{
	size_t n = strlen(name);

	return !strcmp(event, name) || (!strncmp(event, name, n) && event[n] == ':');
}

static int stat_enable(void *ctx, const char *name, bool on)
{
	struct stat_run *run = ctx;
	size_t hit = 0;

	for (size_t i = 0; i < run->o->events.nr; i++) {
		if (name && !name_matches(run->c[i].ev->name, name))
			continue;
		hit++;
		for (size_t k = 0; k < run->c[i].nr_fds; k++)
			ioctl(run->c[i].fds[k].fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
	}
	return hit ? 0 : -ENOENT;
}

static void stat_list(void *ctx)
{
	struct stat_run *run = ctx;

	for (size_t i = 0; i < run->o->events.nr; i++)
		fprintf(stderr, "%s\n", run->c[i].ev->name);
}

void stat_control_process(struct stat_run *run)
{
	struct control_ops ops = { .enable = stat_enable, .list = stat_list, .ctx = run };

	control_process(run->control, &ops);
}
