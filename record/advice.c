/* SPDX-License-Identifier: MIT */
/*
 * The one place that turns a perf_event_open() failure into advice: what the
 * error means for this event on this machine, and what to do about it.
 */
#include "record.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int level = 2;

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 2;
		fclose(f);
	}
	return level;
}

static const char *paranoid_meaning(int level)
{
	if (level <= -1)
		return "no restrictions";
	if (level == 0)
		return "CPU-wide events allowed, no raw tracepoint data";
	if (level == 1)
		return "user and kernel measurement of your own processes";
	if (level == 2)
		return "user-space measurement of your own processes only";
	return "no perf events for unprivileged users";
}

void open_error_advice(int errnum, const struct event_spec *ev, const struct record_opts *o,
		       char *buf, size_t len)
{
	int level;

	switch (errnum) {
	case EACCES:
	case EPERM:
		level = read_paranoid();
		snprintf(buf, len,
			 "no permission to open event '%s'%s: perf_event_paranoid is %d (%s); "
			 "run as root, give prec CAP_PERFMON, or lower "
			 "/proc/sys/kernel/perf_event_paranoid (-a needs <= 0, kernel samples <= 1)",
			 ev->name, o->all_cpus ? " on all CPUs" : "", level, paranoid_meaning(level));
		return;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		snprintf(buf, len, "event '%s' is not supported on this machine%s", ev->name,
			 ev->is_hardware ? " (no hardware performance counters: a virtual machine?); "
			 "software events such as cpu-clock work everywhere" : "");
		return;
	case EMFILE:
	case ENFILE:
		snprintf(buf, len,
			 "too many open files opening '%s': raise the limit with 'ulimit -n' "
			 "(events x CPUs x threads descriptors are needed)", ev->name);
		return;
	case EINVAL:
		snprintf(buf, len,
			 "the kernel rejected the settings of event '%s' (invalid argument): "
			 "the frequency may be above /proc/sys/kernel/perf_event_max_sample_rate, "
			 "or a modifier or term is not valid for it", ev->name);
		return;
	case ESRCH:
		snprintf(buf, len, "no such process or thread to attach '%s' to", ev->name);
		return;
	case EBUSY:
		snprintf(buf, len, "event '%s' is busy: another tool holds the counter", ev->name);
		return;
	default:
		snprintf(buf, len, "cannot open event '%s': %s", ev->name, strerror(errnum));
	}
}
