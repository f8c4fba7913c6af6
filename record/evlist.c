/* SPDX-License-Identifier: MIT */
/*
 * Opening the events: one fd per event per CPU (per thread too, for -p/-t),
 * one ring buffer per CPU that every other fd of that CPU is redirected into
 * with PERF_EVENT_IOC_SET_OUTPUT, and the attrs prec asks for (DESIGN.md,
 * "The recorder").
 */
#include "record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <asm/perf_regs.h>
#include <linux/perf_event.h>

#include "common/buf.h"
#include "record/cgroup.h"

/*
 * x86-64 user registers for DWARF unwinding: those an unwinding can start
 * from. The sampled frame's CFA is the stack pointer or the frame pointer
 * plus an offset (or a deref of the frame pointer in a function that
 * realigns its stack), except in the prologue of such a function, where
 * GCC keeps the old stack pointer in R10 or R13 (its DRAP register); the
 * return address is at the CFA, and the frames above are at call sites,
 * whose CFA is from the stack or frame pointer again. perf records all 20;
 * libunwind read only IP, SP and BP of recordings of the test programs,
 * python3 and xz. The others hold what the program computes (a loop's
 * state: random to any coder, 8 bytes a sample each; the test programs
 * keep theirs in BX or in AX and DX), so they are left out; --user-regs
 * adds any of them.
 */
#define DWARF_REGS_MASK ((1ULL << PERF_REG_X86_IP) | (1ULL << PERF_REG_X86_SP) | \
			 (1ULL << PERF_REG_X86_BP) | (1ULL << PERF_REG_X86_R10) | \
			 (1ULL << PERF_REG_X86_R13))

/* "1234,5678" for -p (every thread of each) or -t (those threads), in
 * perf record's words. */
static int parse_pid_list(struct session *s, const char *list, bool threads, struct err *err)
{
	const char *p = list;
	long v;
	int got;

	while ((got = id_list_next(&p, 0x3fffffff, &v)) > 0) {
		int ret;

		if (threads) {
			char path[64];

			snprintf(path, sizeof(path), "/proc/%ld", v);
			if (access(path, F_OK))
				return err_set(err, -ESRCH, "no thread with tid %ld", v);
			ret = tids_add(&s->tids, &s->nr_tids, &s->cap_tids, (pid_t)v);
		} else {
			ret = tids_add_process(&s->tids, &s->nr_tids, &s->cap_tids, v);
			if (ret == -ESRCH)
				return err_set(err, ret, "no process with pid %ld", v);
		}
		if (ret)
			return err_set(err, -ENOMEM, "out of memory");
	}
	if (got < 0 || !*list)
		return err_set(err, -EINVAL, "%s '%s': problems parsing %s list", threads ? "-t" : "-p",
			       list, threads ? "tid" : "pid");
	return 0;
}

/*
 * The kernel lets a user lock perf_event_mlock_kb per online CPU for ring
 * buffers, and beyond that charges RLIMIT_MEMLOCK; root (CAP_IPC_LOCK) has
 * no limit. What a user may lock, in KiB, and the largest power-of-two
 * number of data pages per ring that fits it for this many rings (0: none).
 */
struct mlock_limits {
	long mlock_kb, ncpu;
	bool rlimit_infinite;
	unsigned long long rlimit_kb, budget_kb;
};

static void mlock_limits(struct mlock_limits *l)
{
	struct rlimit rl = { 0 };

	l->mlock_kb = sysctl_long("/proc/sys/kernel/perf_event_mlock_kb", 516);
	l->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (l->ncpu < 1)
		l->ncpu = 1;
	getrlimit(RLIMIT_MEMLOCK, &rl);
	l->rlimit_infinite = rl.rlim_cur == RLIM_INFINITY;
	l->rlimit_kb = l->rlimit_infinite ? 0 : (unsigned long long)rl.rlim_cur >> 10;
	l->budget_kb = (unsigned long long)l->mlock_kb * (unsigned long long)l->ncpu + l->rlimit_kb;
}

static long pages_that_fit(const struct mlock_limits *l, size_t rings)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	long fit = 0;

	for (long p = 1; p <= (1L << 20); p <<= 1)
		if (rings * (((unsigned long long)(p + 1) * page) >> 10) <= l->budget_kb)
			fit = p;
	return fit;
}

/* Default ring pages for a sampling frequency above 25 kHz: a quarter of
 * a second of 160-byte samples of each event sampled at that frequency
 * (at 100 kHz with -g, a ring of 1 MiB filled in 70 ms: a drain thread
 * kept from the CPU that long by the program it follows lost samples),
 * at most 8 MiB a CPU and 256 MiB in all. */
static size_t pages_for_rate(const struct session *s, size_t pages)
{
	const struct record_opts *o = s->opts;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), rings = s->nr_cpus ? s->nr_cpus : 1;
	unsigned long long want = 0;

	if (o->period || o->freq <= 0)
		return pages;
	for (size_t i = 0; i < s->nr_events; i++) {
		const struct event_spec *ev = &s->events[i];

		if (!ev->explicit_period && (o->freq_given || (ev->attr.type != PERF_TYPE_TRACEPOINT &&
							       !event_is_probe(ev))))
			want += (unsigned long long)o->freq * 160 / 4;
	}
	while (pages < 2048 && (unsigned long long)pages * page < want &&
	       (unsigned long long)pages * 2 * page * rings <= (256ull << 20))
		pages *= 2;
	return pages;
}

/* -m, or the default: 256 pages (2048 for stack copies; more for high
 * frequencies: pages_for_rate), made to fit a user's locked-memory limits
 * as perf's default does. */
static size_t choose_ring_pages(const struct session *s)
{
	const struct record_opts *o = s->opts;
	size_t pages = pages_for_rate(s, o->callgraph == CALLGRAPH_DWARF ? 2048 : 256);
	struct mlock_limits l;
	long fit;

	if (o->mmap_pages)
		return (size_t)o->mmap_pages;
	if (geteuid() == 0)
		return pages;
	mlock_limits(&l);
	fit = pages_that_fit(&l, (s->nr_cpus ? s->nr_cpus : 1) * (o->overwrite ? 2 : 1));
	return fit > 0 && (size_t)fit < pages ? (size_t)fit : pages;
}

/* Say which limits were in force and the largest -m that fits them; with
 * no limit in the way the kernel is out of memory. */
static int mmap_limit_error(const struct session *s, int cpu, int ret, struct err *err)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = s->ring_pages;
	size_t rings = (s->nr_cpus ? s->nr_cpus : 1) * (s->opts->overwrite ? 2 : 1);
	unsigned long long ring_kb = (unsigned long long)(pages + 1) * page >> 10;
	char lim[64] = "unlimited", fits[64];
	struct mlock_limits l;
	long fit;

	mlock_limits(&l);
	if (!l.rlimit_infinite)
		snprintf(lim, sizeof(lim), "%llu KiB", l.rlimit_kb);
	if (ret == -EPERM || geteuid() != 0) {
		fit = pages_that_fit(&l, rings);
		snprintf(fits, sizeof(fits), fit ? "-m %ld would fit" : "no -m fits", fit);
		return err_set(err, ret, "-m %zu: %zu ring buffers of %llu KiB (one per CPU) are over "
			       "the locked-memory limit for perf: perf_event_mlock_kb %ld KiB per CPU "
			       "(x %ld CPUs) plus RLIMIT_MEMLOCK (ulimit -l) %s; %s, or raise "
			       "/proc/sys/kernel/perf_event_mlock_kb or ulimit -l", pages, rings,
			       ring_kb, l.mlock_kb, l.ncpu, lim, fits);
	}
	return err_set(err, ret, "-m %zu: the kernel could not allocate a ring buffer of %llu KiB "
		       "for CPU %d: %s; try -m %zu", pages, ring_kb, cpu, strerror(-ret),
		       pages > 1 ? pages / 2 : 1);
}


/*
 * {a,b}:S, leader sampling: each member reads the whole group
 * (PERF_SAMPLE_READ, PERF_FORMAT_GROUP with ids) and only the leader
 * samples, as perf. With inheritance (the default) the kernel (6.12 on)
 * reads each thread's own counts into its samples; the report takes
 * deltas per id and thread. -s/--stat asks for per-thread counts at each
 * thread's exit (inherit_stat: PERF_RECORD_READ), with perf's times.
 */
static void setup_sample_read(const struct session *s, size_t i, struct perf_event_attr *a)
{
	const struct event_spec *ev = &s->events[i];

	/* not --overwrite's tracking event: it counts nothing (no -T column) */
	if (s->opts->stat && !(s->opts->overwrite && i == flight_tracking_event(s))) {
		a->inherit_stat = 1;
		a->read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	}
	if (!ev->sample_read)
		return;
	a->sample_type |= PERF_SAMPLE_READ;
	a->read_format |= PERF_FORMAT_ID;
	if (ev->group < 0)
		return;
	a->read_format |= PERF_FORMAT_GROUP;
	if (!ev->group_leader) {
		a->freq = 0;
		a->sample_period = 0;
		a->sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
	}
}

static void setup_attr(struct session *s, size_t i, bool workload)
{
	const struct record_opts *o = s->opts;
	const struct event_spec *ev = &s->events[i];
	struct perf_event_attr *a = &s->attrs[i];
	size_t data = s->ring_pages * (size_t)sysconf(_SC_PAGESIZE);

	*a = ev->attr;
	a->size = sizeof(*a);
	if (!ev->explicit_period) {
		if (o->period) {
			a->freq = 0;
			a->sample_period = (uint64_t)o->period;
		} else if ((a->type == PERF_TYPE_TRACEPOINT || event_is_probe(ev)) &&
			   !o->freq_given) {
			a->freq = 0;            /* perf's default: every hit */
			a->sample_period = 1;
		} else {
			a->freq = 1;
			a->sample_freq = (uint64_t)o->freq;
		}
	}
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	/*
	 * The period goes into each sample only in frequency mode. With a fixed
	 * period the kernel samples a software or tracepoint event on every
	 * hit when PERIOD is asked for (perf_swevent_event() then reports each
	 * hit's count as its period), so -c 100 on page-faults would take a
	 * sample per fault. perf leaves the bit out for the same reason; the
	 * report weighs such samples by attr.sample_period.
	 */
	if (a->freq)
		a->sample_type |= PERF_SAMPLE_PERIOD;
	if (a->type == PERF_TYPE_TRACEPOINT)
		a->sample_type |= PERF_SAMPLE_RAW;
	if (o->callgraph != CALLGRAPH_NONE)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (o->callgraph == CALLGRAPH_DWARF) {
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = DWARF_REGS_MASK;
		a->sample_stack_user = (uint32_t)o->stack_size;
		a->exclude_callchain_user = 1;
	}
	sample_opts_attr(&o->sample, a, i == flight_tracking_event(s));  /* the tracking event */
	a->read_format = PERF_FORMAT_ID;
	a->disabled = 1;
	a->enable_on_exec = workload && !o->delay_ms;   /* -D: enabled later (control_record.c) */
	a->inherit = !o->no_inherit && s->tids;
	a->sample_id_all = 1;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(data / 4);
	/* --overwrite: samples on backward rings, the tracking on a forward one */
	a->write_backward = o->overwrite && i != flight_tracking_event(s);
	if (i == flight_tracking_event(s)) {   /* it tracks tasks and mappings too */
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->build_id = s->build_id_in_mmap;
		a->context_switch = o->switch_events || o->off.on;
		a->cgroup = o->all_cgroups;     /* PERF_RECORD_CGROUP for new cgroups */
	}
	setup_sample_read(s, i, a);
	if (o->all_cgroups)
		a->sample_type |= PERF_SAMPLE_CGROUP;
	offcpu_attr(s, i, a);
}

static int add_evfd(struct session *s, const struct evfd *e)
{
	if (s->nr_evfds == s->cap_evfds) {
		size_t cap = s->cap_evfds ? 2 * s->cap_evfds : 16;
		struct evfd *n = array_realloc(s->evfds, cap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->evfds = n;
		s->cap_evfds = cap;
	}
	s->evfds[s->nr_evfds++] = *e;
	return 0;
}

/* The default event is cycles; without a hardware PMU, perf samples
 * cpu-clock instead, and so do we, saying so. The user-only fallback, if
 * taken already, stays (cycles:u becomes cpu-clock:u). */
static bool fall_back_to_cpu_clock(struct session *s, size_t i, int errnum)
{
	struct event_spec *ev = &s->events[i];
	bool user_only = ev->attr.exclude_kernel;

	if (!s->opts->default_event || ev->attr.type != PERF_TYPE_HARDWARE ||
	    (errnum != ENOENT && errnum != EOPNOTSUPP && errnum != ENODEV))
		return false;
	memset(&ev->attr, 0, sizeof(ev->attr));
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	ev->attr.exclude_kernel = user_only;
	ev->attr.exclude_hv = user_only;
	ev->is_hardware = false;
	snprintf(ev->name, sizeof(ev->name), "cpu-clock%s", user_only ? ":u" : "");
	if (!s->opts->quiet)
		fprintf(stderr, "prec: no hardware cycles counter on this machine "
			"(no PMU): sampling cpu-clock instead\n");
	return true;
}

static int open_one(struct session *s, size_t i, int cpu, pid_t tid, int group_fd,
		    bool workload, struct err *err)
{
	struct evfd e = { .event = (int)i, .cpu = cpu, .tid = tid };
	bool cg = s->cgroup_fds && s->cgroup_fds[i] >= 0;       /* -G: pid is the cgroup */

	for (;;) {
		setup_attr(s, i, workload);
		e.fd = event_open_flags(&s->events[i], &s->attrs[i], cg ? s->cgroup_fds[i] : tid, cpu,
					group_fd, cg ? PERF_FLAG_PID_CGROUP : 0, &s->tried_user_only);
		if (e.fd >= 0)
			break;
		if (e.fd == -EINVAL && s->attrs[i].build_id) {
			s->build_id_in_mmap = false;   /* kernel before 5.12 */
			continue;
		}
		if (e.fd == -ESRCH && tid > 0 && !workload)
			return 0;                       /* the thread exited meanwhile */
		if (e.fd == -EINVAL && s->attrs[i].inherit &&
		    (s->attrs[i].sample_type & PERF_SAMPLE_READ))
			return err_set(err, -EINVAL, "the kernel refused leader sampling (:S) of "
				       "event '%s' with inherited counters (Linux before 6.12): "
				       "add --no-inherit", s->events[i].name);
		if (!fall_back_to_cpu_clock(s, i, -e.fd)) {
			struct open_failure f = {
				.name = s->events[i].name, .hardware = s->events[i].is_hardware,
				.system_wide = s->opts->all_cpus || s->opts->cpu_list,
				.pid = workload ? 0 : tid > 0 ? tid : 0,
				.tried_user_only = s->tried_user_only,
				.probe = s->events[i].probe,
			};

			if (s->attrs[i].sample_type & PERF_SAMPLE_BRANCH_STACK &&
			    (e.fd == -EOPNOTSUPP || e.fd == -ENOENT || e.fd == -EINVAL))
				return err_set(err, e.fd, "%s: the PMU or event type does not support "
					       "branch stack sampling (-b/-j)", s->events[i].name);
			return open_error(-e.fd, &f, err);
		}
	}
	if (s->opts->filters[i] && ioctl(e.fd, PERF_EVENT_IOC_SET_FILTER, s->opts->filters[i]) < 0) {
		int ret = -errno;

		close(e.fd);
		return err_set(err, ret, "the kernel refused filter '%s' on event '%s': %s",
			       s->opts->filters[i], s->events[i].name, strerror(-ret));
	}
	if (ioctl(e.fd, PERF_EVENT_IOC_ID, &e.id) < 0) {
		int ret = -errno;

		close(e.fd);
		return err_set(err, ret, "cannot read the id of event '%s': %s",
			       s->events[i].name, strerror(-ret));
	}
	if (add_evfd(s, &e)) {
		close(e.fd);
		return err_set(err, -ENOMEM, "out of memory");
	}
	return 1;
}

/* All events of one (cpu, thread): group members go with their leader. */
static int open_on(struct session *s, int cpu, pid_t tid, bool workload, struct err *err)
{
	int leader_fd = -1;

	for (size_t i = 0; i < s->nr_events; i++) {
		const struct event_spec *ev = &s->events[i];
		int group_fd = ev->group >= 0 && !ev->group_leader ? leader_fd : -1;
		int ret = open_one(s, i, cpu, tid, group_fd, workload, err);

		if (ret < 0)
			return ret;
		if (ret > 0 && ev->group_leader)
			leader_fd = s->evfds[s->nr_evfds - 1].fd;
	}
	return 0;
}

int session_open_events(struct session *s, pid_t workload, struct err *err)
{
	const struct record_opts *o = s->opts;
	int ret;

	s->build_id_in_mmap = !o->no_buildid;
	s->attrs = calloc(s->nr_events, sizeof(*s->attrs));
	if (!s->attrs)
		return err_set(err, -ENOMEM, "out of memory");
	ret = offcpu_session_open(s, err);
	if (!ret)
		ret = target_cpus(o->cpu_list, &s->cpus, &s->nr_cpus, err);
	if (ret)
		return ret;
	s->ring_pages = choose_ring_pages(s);
	if (o->nr_cgroup_names)
		ret = cgroup_open_all("-G", o->cgroups, s->nr_events, &s->cgroup_fds, err);
	if (ret)
		return ret;
	if (workload > 0)
		ret = tids_add(&s->tids, &s->nr_tids, &s->cap_tids, workload) ?
		      err_set(err, -ENOMEM, "out of memory") : 0;
	else if (o->pids)
		ret = parse_pid_list(s, o->pids, false, err);
	else if (o->tids)
		ret = parse_pid_list(s, o->tids, true, err);
	if (ret)
		return ret;
	for (size_t c = 0; c < s->nr_cpus; c++) {
		if (!s->tids) {
			ret = open_on(s, s->cpus[c], -1, false, err);
			if (ret)
				return ret;
			continue;
		}
		for (size_t t = 0; t < s->nr_tids; t++) {
			ret = open_on(s, s->cpus[c], s->tids[t], workload > 0, err);
			if (ret)
				return ret;
		}
	}
	if (!s->nr_evfds)
		return err_set(err, -ESRCH, "nothing to record: every thread exited");
	if (!offcpu_note(s, o->quiet ? NULL : stderr) && s->tried_user_only && !o->quiet)
		user_only_note(stderr, "prec", s->events[0].name);
	return 0;
}

int session_mmap(struct session *s, struct err *err)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = s->ring_pages, n;

	/* with --overwrite, two per CPU: backward for samples, forward for tracking */
	s->rings = calloc(s->nr_cpus * 2, sizeof(*s->rings));
	if (!s->rings)
		return err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < s->nr_evfds; i++) {
		const struct evfd *e = &s->evfds[i];
		bool backward = s->attrs[e->event].write_backward;
		struct ring *r = NULL;

		for (size_t k = 0; k < s->nr_rings; k++)
			if (s->rings[k].cpu == e->cpu && s->rings[k].backward == backward)
				r = &s->rings[k];
		if (r) {
			if (ioctl(e->fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0)
				return err_set(err, -errno, "cannot share the ring buffer of CPU %d: %s",
					       e->cpu, strerror(errno));
			continue;
		}
		r = &s->rings[s->nr_rings];
		n = !backward && s->opts->overwrite ? flight_tracking_pages(pages) : pages;
		/* read-only: the kernel overwrites what we have not read */
		r->base = mmap(NULL, (n + 1) * page, backward ? PROT_READ : PROT_READ | PROT_WRITE,
			       MAP_SHARED, e->fd, 0);
		if (r->base == MAP_FAILED) {
			int ret = -errno;

			r->base = NULL;
			if (ret == -EPERM || ret == -ENOMEM)
				return mmap_limit_error(s, e->cpu, ret, err);
			return err_set(err, ret, "cannot map the ring buffer of CPU %d: %s", e->cpu,
				       strerror(-ret));
		}
		r->data_size = n * page;
		r->cpu = e->cpu;
		r->fd = e->fd;
		r->backward = backward;
		s->nr_rings++;
	}
	return 0;
}

int session_enable(struct session *s, struct err *err)
{
	for (size_t i = 0; i < s->nr_evfds; i++)
		if (ioctl(s->evfds[i].fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
			return err_set(err, -errno, "cannot enable event '%s': %s",
				       s->events[s->evfds[i].event].name, strerror(errno));
	return 0;
}

int session_disable(struct session *s)
{
	for (size_t i = 0; i < s->nr_evfds; i++)
		ioctl(s->evfds[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	return 0;
}

void record_session_close(struct session *s)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < s->nr_rings; i++)
		if (s->rings[i].base)
			munmap(s->rings[i].base, s->rings[i].data_size + page);
	for (size_t i = 0; i < s->nr_evfds; i++)
		close(s->evfds[i].fd);
	free(s->rings);
	free(s->evfds);
	free(s->attrs);
	free(s->cpus);
	free(s->tids);
	cgroup_close_all(s->cgroup_fds, s->nr_events);
	offcpu_session_free(s);
	s->cgroup_fds = NULL;
	s->rings = NULL;
	s->evfds = NULL;
	s->attrs = NULL;
	s->cpus = NULL;
	s->tids = NULL;
	s->nr_rings = s->nr_evfds = 0;
}
