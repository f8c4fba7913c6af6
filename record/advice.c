/* SPDX-License-Identifier: MIT */
/*
 * Opening one event, for prec and prec stat alike: perf_event_open() with
 * perf's fallback for unprivileged users (exclude the kernel and go on), and
 * the one place that turns a failure into advice (what the error means for
 * this event on this machine, and what to do about it).
 */
#include "record.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

long sysctl_long(const char *path, long dflt)
{
	FILE *f = fopen(path, "r");
	long v = dflt;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = dflt;
		fclose(f);
	}
	return v;
}

int perf_paranoid(void)
{
	return (int)sysctl_long("/proc/sys/kernel/perf_event_paranoid", 2);
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

/*
 * perf's rule (evsel__fallback): a permission error on an event that counts
 * the kernel, for a user below perf_event_paranoid's bar, is retried with
 * the kernel and hypervisor excluded, and the event is renamed NAME:u (NAME
 * + "u" when it already carries modifiers or a PMU's slashes). An event that
 * excludes user space (":k") has nothing left to measure and is not retried.
 * Tried at every level above 1: at 3 and above (distribution patches) the
 * kernel usually refuses user-only events too, and the advice says so.
 */
bool event_fallback_user_only(struct perf_event_attr *a, char *name, size_t size, int errnum)
{
	size_t n = strlen(name);
	const char *sep = strchr(name, '/') || strchr(name, ':') ? "" : ":";

	if ((errnum != EACCES && errnum != EPERM) || a->exclude_kernel || a->exclude_user ||
	    perf_paranoid() <= 1 || n + strlen(sep) + 1 >= size)
		return false;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	snprintf(name + n, size - n, "%su", sep);
	return true;
}

int event_open(struct event_spec *ev, struct perf_event_attr *a, pid_t pid, int cpu, int group_fd,
	       bool *user_only)
{
	for (;;) {
		struct perf_event_attr probe = *a;
		char text[EVENT_NAME_MAX + 1];
		int fd, e;

		probe_attr_for_open(ev, &probe, text, sizeof(text));   /* config1 -> text */
		fd = (int)syscall(SYS_perf_event_open, &probe, pid, cpu, group_fd,
				  PERF_FLAG_FD_CLOEXEC);
		e = errno;
		if (fd >= 0)
			return fd;
		if (event_is_probe(ev) ||     /* refused for users whatever is excluded */
		    !event_fallback_user_only(&ev->attr, ev->name, sizeof(ev->name), e))
			return -e;
		a->exclude_kernel = ev->attr.exclude_kernel;
		a->exclude_hv = ev->attr.exclude_hv;
		*user_only = true;
	}
}

void user_only_note(FILE *out, const char *tool, const char *first_name)
{
	fprintf(out, "%s: perf_event_paranoid is %d: measuring user space only (%s); for the "
		"kernel too, lower it to 1 or give prec CAP_PERFMON\n", tool, perf_paranoid(),
		first_name);
}

/* The owner of a process we may not attach to, when it is not us. */
static bool foreign_process(pid_t pid, char *owner, size_t size)
{
	char path[64];
	struct stat st;
	struct passwd *pw;

	if (pid <= 0 || geteuid() == 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st) || st.st_uid == geteuid())
		return false;
	pw = getpwuid(st.st_uid);
	if (pw)
		snprintf(owner, size, "%s", pw->pw_name);
	else
		snprintf(owner, size, "uid %u", (unsigned)st.st_uid);
	return true;
}

void open_error_advice(int errnum, const struct open_failure *f, char *buf, size_t len)
{
	char owner[64];
	int level;

	switch (errnum) {
	case EACCES:
	case EPERM:
		if (f->probe && f->probe != EVENT_PROBE_MEM_SYM) {
			snprintf(buf, len, "no permission to open probe '%s': the kernel's %s PMU "
				 "is for root or CAP_PERFMON only, whatever perf_event_paranoid says",
				 f->name, f->probe <= EVENT_PROBE_UR ? "uprobe" : "kprobe");
			return;
		}
		if (foreign_process(f->pid, owner, sizeof(owner))) {
			snprintf(buf, len, "no permission to attach event '%s' to process %d: it "
				 "belongs to %s; only its owner, root or a user with CAP_PERFMON "
				 "(and ptrace rights, CAP_SYS_PTRACE) may measure it", f->name,
				 (int)f->pid, owner);
			return;
		}
		level = perf_paranoid();
		snprintf(buf, len,
			 "no permission to open event '%s'%s%s: perf_event_paranoid is %d (%s); "
			 "%s", f->name, f->system_wide ? " system-wide" : "",
			 f->tried_user_only ? " (user space only was tried too)" : "", level,
			 paranoid_meaning(level),
			 level <= -1 ? "run as root or give prec CAP_PERFMON" :
			 f->system_wide ? "system-wide measurement needs perf_event_paranoid <= 0, "
			 "root or CAP_PERFMON" :
			 level == 2 ? "for the kernel, run as root, give prec "
			 "CAP_PERFMON, or lower /proc/sys/kernel/perf_event_paranoid to 1" :
			 "run as root, give prec CAP_PERFMON, or lower "
			 "/proc/sys/kernel/perf_event_paranoid to 2 (user space) or 1 (kernel too)");
		return;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		snprintf(buf, len, "event '%s' is not supported on this machine%s", f->name,
			 f->hardware ? " (no hardware performance counters: a virtual machine?); "
			 "software events such as cpu-clock work everywhere" : "");
		return;
	case EMFILE:
	case ENFILE:
		snprintf(buf, len,
			 "too many open files opening '%s': raise the limit with 'ulimit -n' "
			 "(events x CPUs x threads descriptors are needed)", f->name);
		return;
	case EINVAL:
		snprintf(buf, len,
			 "the kernel rejected the settings of event '%s' (invalid argument): "
			 "the frequency may be above /proc/sys/kernel/perf_event_max_sample_rate, "
			 "or a modifier or term is not valid for it", f->name);
		return;
	case ESRCH:
		snprintf(buf, len, "no such process or thread to attach '%s' to", f->name);
		return;
	case EBUSY:
		snprintf(buf, len, "event '%s' is busy: another tool holds the counter", f->name);
		return;
	default:
		snprintf(buf, len, "cannot open event '%s': %s", f->name, strerror(errnum));
	}
}

int open_error(int errnum, const struct open_failure *f, struct err *err)
{
	char advice[512];

	open_error_advice(errnum, f, advice, sizeof(advice));
	return err_set(err, -errnum, "%s", advice);
}
