/* SPDX-License-Identifier: MIT */
/*
 * prec stat [record]: counting mode. Opens counting events (read_format with
 * the enabled and running times) on the workload (inherited, enabled on
 * exec), on CPUs (-a, -C) or on running threads (-p, -t), reads them when the
 * workload ends (or at --timeout / Ctrl-C), and prints perf stat's output
 * through the report's stat printer. `prec stat record` also writes the
 * readings into a counting prec.data file that `prep stat report` prints
 * again.
 */
#include "record.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/opts.h"
#include "format/blocks.h"
#include "report/stat/stat.h"

/* perf stat's default set; system-wide (-a, -C) it counts cpu-clock, the
 * time of the CPUs, instead of task-clock */
#define DEFAULT_EVENTS "task-clock," DEFAULT_EVENTS_REST
#define DEFAULT_EVENTS_CPUS "cpu-clock," DEFAULT_EVENTS_REST
#define DEFAULT_EVENTS_REST "context-switches,cpu-migrations,page-faults," \
			    "cycles,instructions,branches,branch-misses"

struct stat_opts {
	struct event_list events;
	bool all_cpus, no_inherit, big_num, no_big_num, append, null;
	bool no_aggr, per_socket, per_die, per_core, per_node, per_thread;
	bool json, interval_clear;
	long interval_ms, interval_count;
	int detailed, verbose;
	bool transaction, topdown, smi_cost, all_user, all_kernel, no_scale, summary, no_csv_summary;
	const char *metrics;
	long delay_ms;
	const char *cpu_list, *pids, *tids, *sep, *output;
	long repeat, timeout_ms;
	int quiet;
	bool help;
	bool record;
	const char *record_file;
	int argc;
	char **argv;
};

struct counter_fd {
	int fd;
	int cpu;
	pid_t tid;              /* -p / -t: the thread; else -1 */
};

struct counter {
	struct event_spec *ev;
	struct counter *leader; /* {a,b}: the group's first counter, read for all */
	struct counter_fd *fds;
	size_t nr_fds;
	bool supported;
	bool user_only;         /* refused, then opened excluding the kernel (NAME:u) */
	uint64_t *ids;
};

static volatile sig_atomic_t stop_req;

static void on_stop(int sig)
{
	(void)sig;
	stop_req = 1;
}

static int cb_event(const struct opt *o, const char *arg, struct err *err)
{
	struct stat_opts *so = o->dest;
	struct event_list more = { 0 };
	int ret = events_parse(arg, NULL, &more, err);
	struct event_spec *all;

	if (ret)
		return ret;
	all = array_realloc(so->events.ev, so->events.nr + more.nr, sizeof(*all));
	if (!all) {
		event_list_free(&more);
		return err_set(err, -ENOMEM, "out of memory");
	}
	memcpy(all + so->events.nr, more.ev, more.nr * sizeof(*all));
	so->events.ev = all;
	so->events.nr += more.nr;
	free(more.ev);
	return 0;
}

/* A hardware PMU named cpu (x86's core PMU) in sysfs. */
static bool pmu_present(void)
{
	return !access("/sys/bus/event_source/devices/cpu", F_OK) ||
	       !access("/sys/bus/event_source/devices/cpu_core", F_OK);
}

static long sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group,
				unsigned long flags)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}


/* -p: every thread of each process; -t: the threads as given. */
static int thread_targets(const struct stat_opts *o, pid_t **tids, size_t *n, struct err *err)
{
	const char *list = o->pids ? o->pids : o->tids;
	char buf[256];
	size_t cap = 64;

	*n = 0;
	*tids = malloc(cap * sizeof(pid_t));
	if (!*tids)
		return err_set(err, -ENOMEM, "out of memory");
	for (const char *p = list; *p;) {
		char *end;
		long id = strtol(p, &end, 10);

		if (end == p || id <= 0 || (*end && *end != ','))
			return err_set(err, -EINVAL, "%s '%s': not a list of ids", o->pids ? "-p" : "-t",
				       list);
		if (o->pids) {
			DIR *d;
			struct dirent *de;

			snprintf(buf, sizeof(buf), "/proc/%ld/task", id);
			d = opendir(buf);
			if (!d)
				return err_set(err, -ESRCH, "process %ld does not exist", id);
			while ((de = readdir(d))) {
				long t = strtol(de->d_name, NULL, 10);

				if (t <= 0)
					continue;
				if (*n == cap) {
					pid_t *m = array_realloc(*tids, (cap *= 2), sizeof(pid_t));

					if (!m) {
						closedir(d);
						return err_set(err, -ENOMEM, "out of memory");
					}
					*tids = m;
				}
				(*tids)[(*n)++] = (pid_t)t;
			}
			closedir(d);
		} else {
			if (*n == cap) {
				pid_t *m = array_realloc(*tids, (cap *= 2), sizeof(pid_t));

				if (!m)
					return err_set(err, -ENOMEM, "out of memory");
				*tids = m;
			}
			(*tids)[(*n)++] = (pid_t)id;
		}
		p = *end ? end + 1 : end;
	}
	return 0;
}

struct target {
	int *cpus;              /* -a / -C */
	size_t nr_cpus;
	pid_t *tids;            /* -p / -t */
	size_t nr_tids;
	pid_t workload;         /* a command: counted with inherit, enabled on exec */
};

/* The one note line, once, when events fell back to user space only; it
 * names the first such event that counts (not a <not supported> cycles:u). */
static void note_user_only(const struct counter *c, size_t n)
{
	const struct counter *first = NULL;

	for (size_t i = 0; i < n; i++)
		if (c[i].user_only && (!first || (c[i].supported && !first->supported)))
			first = &c[i];
	if (first)
		user_only_note(stderr, "prec stat", first->ev->name);
}

static void enable_counters(struct counter *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < c[i].nr_fds; k++)
			ioctl(c[i].fds[k].fd, PERF_EVENT_IOC_ENABLE, 0);
}

static void close_counters(struct counter *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < c[i].nr_fds; k++)
			close(c[i].fds[k].fd);
		free(c[i].fds);
		free(c[i].ids);
		c[i].fds = NULL;
		c[i].ids = NULL;
		c[i].nr_fds = 0;
	}
}

/*
 * One counter fd, or -errno. An event refused at perf_event_paranoid >= 2
 * is retried excluding the kernel, as perf stat does; the event stays
 * NAME:u with those settings for the rest of the command (later runs, the
 * file), and c->user_only says the note and the advice are due.
 */
static long open_counter_fd(struct counter *c, struct perf_event_attr *a, pid_t pid, int cpu,
			    int group_fd)
{
	for (;;) {
		long fd = sys_perf_event_open(a, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
		int e = errno;

		if (fd >= 0)
			return fd;
		if (!event_fallback_user_only(&c->ev->attr, c->ev->name, sizeof(c->ev->name), e))
			return -e;
		a->exclude_kernel = c->ev->attr.exclude_kernel;
		a->exclude_hv = c->ev->attr.exclude_hv;
		c->user_only = true;
	}
}

static int open_failed(const struct counter *c, const struct target *t, pid_t pid, int e,
		       struct err *err)
{
	struct open_failure f = {
		.name = c->ev->name, .hardware = c->ev->is_hardware,
		.system_wide = t->cpus != NULL, .pid = t->tids ? pid : 0,
		.tried_user_only = c->user_only,
	};
	char advice[512];

	open_error_advice(e, &f, advice, sizeof(advice));
	return err_set(err, -e, "%s", advice);
}

static int open_counters(const struct stat_opts *o, struct counter *c, const struct target *t,
			 struct err *err)
{
	for (size_t i = 0; i < o->events.nr; i++) {
		struct perf_event_attr a = o->events.ev[i].attr;
		size_t slots = t->workload > 0 ? 1 : t->cpus ? t->nr_cpus : t->nr_tids;

		c[i].ev = &o->events.ev[i];
		c[i].fds = calloc(slots, sizeof(*c[i].fds));
		c[i].ids = calloc(slots, sizeof(*c[i].ids));
		if (!c[i].fds || !c[i].ids)
			return err_set(err, -ENOMEM, "out of memory");
		a.size = sizeof(a);
		a.sample_period = 0;
		a.sample_type = 0;
		a.freq = 0;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
				PERF_FORMAT_ID;
		/* {a,b}: opened as one group; the leader reads them all at once */
		c[i].leader = NULL;
		if (o->events.ev[i].group >= 0 && !o->events.ev[i].group_leader) {
			for (size_t j = i; j-- > 0;)
				if (o->events.ev[j].group == o->events.ev[i].group &&
				    o->events.ev[j].group_leader) {
					if (c[j].supported && c[j].nr_fds)
						c[i].leader = &c[j];
					break;
				}
		}
		if (o->events.ev[i].group >= 0 && o->events.ev[i].group_leader) {
			a.read_format |= PERF_FORMAT_GROUP;
			c[i].leader = &c[i];
		}
		if (c[i].leader && c[i].leader != &c[i]) {
			/* members follow their leader's enabling */
			a.disabled = 0;
			a.enable_on_exec = 0;
		}
		a.inherit = !o->no_inherit && !t->cpus;
		/* -D: enabled by hand once the delay is over */
		a.disabled = t->workload > 0 || o->delay_ms;
		a.enable_on_exec = t->workload > 0 && !o->delay_ms;
		c[i].supported = true;
		for (size_t k = 0; k < slots; k++) {
			pid_t pid = t->workload > 0 ? t->workload : t->cpus ? -1 : t->tids[k];
			int cpu = t->cpus ? t->cpus[k] : -1;
			int group_fd = -1;
			long fd;

			if (c[i].leader && c[i].leader != &c[i])
				for (size_t j = 0; j < c[i].leader->nr_fds; j++)
					if (c[i].leader->fds[j].cpu == cpu &&
					    (c[i].leader->fds[j].tid == pid || t->workload > 0 || t->cpus))
						group_fd = c[i].leader->fds[j].fd;
			fd = open_counter_fd(&c[i], &a, pid, cpu, group_fd);
			if (fd < 0) {
				int e = (int)-fd;

				/* a counter this machine does not have: <not supported> */
				if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == EINVAL) {
					c[i].supported = false;
					break;
				}
				if (e == ESRCH && !t->workload && !t->cpus)
					continue;       /* a thread that ended meanwhile */
				return open_failed(&c[i], t, pid, e, err);
			}
			c[i].fds[c[i].nr_fds].fd = (int)fd;
			c[i].fds[c[i].nr_fds].cpu = cpu;
			c[i].fds[c[i].nr_fds].tid = t->cpus || t->workload > 0 ? -1 : pid;
			ioctl((int)fd, PERF_EVENT_IOC_ID, &c[i].ids[c[i].nr_fds]);
			c[i].nr_fds++;
		}
		if (!c[i].supported) {
			for (size_t k = 0; k < c[i].nr_fds; k++)
				close(c[i].fds[k].fd);
			c[i].nr_fds = 0;
		}
	}
	/* a group with a member this machine does not have is never scheduled:
	 * its other members count nothing (perf prints them <not counted>) */
	for (size_t i = 0; i < o->events.nr; i++) {
		int g = o->events.ev[i].group;
		bool broken = false;

		if (g < 0 || !o->events.ev[i].group_leader)
			continue;
		for (size_t j = i; j < o->events.nr && o->events.ev[j].group == g; j++)
			broken |= !c[j].supported;
		for (size_t j = i; broken && j < o->events.nr && o->events.ev[j].group == g; j++) {
			if (!c[j].supported)
				continue;
			for (size_t k = 0; k < c[j].nr_fds; k++)
				close(c[j].fds[k].fd);
			c[j].nr_fds = 0;
			c[j].leader = NULL;
		}
	}
	return 0;
}

struct reading {
	uint64_t value, enabled, running;
	int cpu;
	pid_t tid;
};

/* A group member's value out of its leader's PERF_FORMAT_GROUP reading on
 * the same CPU or thread: { nr, enabled, running, { value, id } x nr }. */
static bool read_from_group(const struct counter *c, size_t k, uint64_t v[3])
{
	const struct counter *l = c->leader;
	uint64_t g[3 + 2 * 64];
	ssize_t got;

	for (size_t j = 0; j < l->nr_fds; j++) {
		if (l->fds[j].cpu != c->fds[k].cpu || l->fds[j].tid != c->fds[k].tid)
			continue;
		got = read(l->fds[j].fd, g, sizeof(g));
		if (got < (ssize_t)(3 * sizeof(uint64_t)))
			return false;
		for (uint64_t m = 0; m < g[0] && 3 + 2 * m + 1 < (uint64_t)got / 8; m++)
			if (g[3 + 2 * m + 1] == c->ids[k]) {
				v[0] = g[3 + 2 * m];
				v[1] = g[1];
				v[2] = g[2];
				return true;
			}
	}
	return false;
}

/* Sum of a counter's fds; per-fd readings into r (nr_fds of them). */
static void read_counter(const struct counter *c, struct reading *sum, struct reading *per)
{
	memset(sum, 0, sizeof(*sum));
	for (size_t k = 0; k < c->nr_fds; k++) {
		uint64_t v[4] = { 0 };

		if (c->leader ? !read_from_group(c, k, v) :
		    read(c->fds[k].fd, v, sizeof(v)) < (ssize_t)(3 * sizeof(uint64_t)))
			memset(v, 0, sizeof(v));
		per[k] = (struct reading){ v[0], v[1], v[2], c->fds[k].cpu, c->fds[k].tid };
		sum->value += v[0];
		sum->enabled += v[1];
		sum->running += v[2];
	}
}

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

static char *join_args(int argc, char **argv)
{
	struct buf b = BUF_INIT;

	for (int i = 0; i < argc; i++)
		if ((i && buf_append(&b, " ", 1)) || buf_append(&b, argv[i], strlen(argv[i])))
			goto fail;
	if (buf_append(&b, "", 1))
		goto fail;
	return (char *)b.data;
fail:
	buf_free(&b);
	return NULL;
}

static const char usage_line[] = "prec stat [record [-o FILE]] [-e EVENTS] [-a|-C LIST|-p PID|-t TID] "
				 "[-r N] [-x SEP] [--] [command [args]]";

static int parse(struct stat_opts *o, int argc, char **argv)
{
	const struct opt table[] = {
		OPTION_CALLBACK('e', "event", o, "events", "events to count (default: perf stat's set)", cb_event),
		OPTION_FLAG('a', "all-cpus", &o->all_cpus, "count on every CPU"),
		OPTION_STRING('C', "cpu", &o->cpu_list, "list", "count on these CPUs (0-2,5)"),
		OPTION_STRING('p', "pid", &o->pids, "pids", "count these processes (all their threads)"),
		OPTION_STRING('t', "tid", &o->tids, "tids", "count these threads"),
		OPTION_FLAG(0, "no-inherit", &o->no_inherit, "do not count the workload's children"),
		OPTION_INT('r', "repeat", &o->repeat, "n", "run the command n times, print means and variation", 1, 100000),
		OPTION_STRING('x', "field-separator", &o->sep, "sep", "CSV output with this separator"),
		OPTION_STRING('o', "output", &o->output, "file", "write the output to this file (stat record: the data file)"),
		OPTION_FLAG(0, "append", &o->append, "append to the -o file"),
		OPTION_FLAG('B', "big-num", &o->big_num, "thousands separators in counts"),
		OPTION_FLAG(0, "no-big-num", &o->no_big_num, "no thousands separators"),
		OPTION_FLAG('n', "null", &o->null, "count nothing, only the elapsed time"),
		OPTION_INT('I', "interval-print", &o->interval_ms, "ms", "print the counts every ms milliseconds", 10, 1L << 30),
		OPTION_INT(0, "interval-count", &o->interval_count, "n", "stop after n intervals (with -I)", 1, 1L << 30),
		OPTION_FLAG(0, "interval-clear", &o->interval_clear, "clear the screen before each interval"),
		OPTION_FLAG('j', "json-output", &o->json, "one JSON object per counter"),
		OPTION_COUNT('d', "detailed", &o->detailed, "add cache events (-dd, -ddd: more)"),
		OPTION_FLAG('T', "transaction", &o->transaction, "transactional memory events (needs the cpu PMU)"),
		OPTION_FLAG(0, "topdown", &o->topdown, "top-down metrics (needs -a and the cpu PMU)"),
		OPTION_STRING('M', "metrics", &o->metrics, "list", "metric groups (need the CPU's metric tables)"),
		OPTION_FLAG(0, "smi-cost", &o->smi_cost, "SMI cost (needs freeze_on_smi)"),
		OPTION_FLAG(0, "all-user", &o->all_user, "count user space only, for every event"),
		OPTION_FLAG(0, "all-kernel", &o->all_kernel, "count kernel space only, for every event"),
		OPTION_FLAG(0, "no-scale", &o->no_scale, "do not scale counts of multiplexed events"),
		OPTION_INT('D', "delay", &o->delay_ms, "ms", "start counting after ms milliseconds", 1, 1L << 30),
		OPTION_FLAG(0, "summary", &o->summary, "with -I: print the totals at the end too"),
		OPTION_FLAG(0, "no-csv-summary", &o->no_csv_summary, "with --summary -x: no 'summary' field"),
		OPTION_COUNT('v', "verbose", &o->verbose, "print each counter's raw value, enabled and running times"),
		OPTION_FLAG('A', "no-aggr", &o->no_aggr, "one line per CPU (with -a or -C)"),
		OPTION_FLAG(0, "per-socket", &o->per_socket, "one line per socket (with -a or -C)"),
		OPTION_FLAG(0, "per-die", &o->per_die, "one line per die (with -a or -C)"),
		OPTION_FLAG(0, "per-core", &o->per_core, "one line per core (with -a or -C)"),
		OPTION_FLAG(0, "per-node", &o->per_node, "one line per NUMA node (with -a or -C)"),
		OPTION_FLAG(0, "per-thread", &o->per_thread, "one line per thread (with -p or -t)"),
		OPTION_INT(0, "timeout", &o->timeout_ms, "ms", "stop after this many milliseconds", 1, 1L << 40),
		OPTION_COUNT('q', "quiet", &o->quiet, "print nothing (stat record still writes its file)"),
		OPTION_FLAG('h', "help", &o->help, "show this help"),
		OPTION_END,
	};
	struct err err = { 0 };
	int first = opts_parse(table, argc, argv, &err);

	if (first < 0) {
		fprintf(stderr, "prec stat: %s\n", err.msg);
		opts_usage(stderr, usage_line, table);
		return 129;
	}
	if (o->help) {
		opts_usage(stdout, usage_line, table);
		return -1;
	}
	o->argc = argc - first;
	o->argv = argv + first;
	if (!o->argc && !o->all_cpus && !o->cpu_list && !o->pids && !o->tids) {
		fprintf(stderr, "prec stat: no command and no target (-a, -C, -p, -t) to count\n");
		opts_usage(stderr, usage_line, table);
		return 129;
	}
	if (o->repeat > 1 && !o->argc) {
		fprintf(stderr, "prec stat: -r needs a command to run again\n");
		return 129;
	}
	if (o->repeat > 1 && o->record) {
		fprintf(stderr, "prec stat record: -r is not supported with record (as in perf)\n");
		return 129;
	}
	if (o->pids && o->tids) {
		fprintf(stderr, "prec stat: -p and -t exclude each other\n");
		return 129;
	}
	if ((o->no_aggr + o->per_socket + o->per_die + o->per_core + o->per_node + o->per_thread) > 1) {
		fprintf(stderr, "prec stat: choose one of -A, --per-socket, --per-die, --per-core, "
			"--per-node, --per-thread\n");
		return 129;
	}
	if ((o->no_aggr || o->per_socket || o->per_die || o->per_core || o->per_node) &&
	    !o->all_cpus && !o->cpu_list) {
		fprintf(stderr, "prec stat: -A and --per-socket/die/core/node need -a or -C "
			"(counts per CPU)\n");
		return 129;
	}
	/* options for counters this machine may not have: perf's messages */
	if (o->transaction) {
		fprintf(stderr, "Cannot set up transaction events%s\n",
			pmu_present() ? "" : ": there is no cpu PMU on this machine");
		return 1;
	}
	if (o->topdown && !o->all_cpus) {
		fprintf(stderr, "top down event configuration requires system-wide mode (-a)\n");
		return 1;
	}
	if (o->topdown) {
		fprintf(stderr, "System does not support topdown\n");
		return 1;
	}
	if (o->smi_cost) {
		fprintf(stderr, "freeze_on_smi is not supported.\n");
		return 1;
	}
	if (o->metrics)
		fprintf(stderr, "Cannot find metric or group `%s'\n", o->metrics);
	if (o->all_user && o->all_kernel) {
		fprintf(stderr, "prec stat: --all-user and --all-kernel exclude each other\n");
		return 129;
	}
	if (o->interval_count && !o->interval_ms) {
		fprintf(stderr, "prec stat: --interval-count needs -I\n");
		return 129;
	}
	if (o->interval_ms && o->repeat > 1) {
		fprintf(stderr, "prec stat: -I and -r exclude each other\n");
		return 129;
	}
	if (o->sep && !*o->sep) {
		fprintf(stderr, "prec stat: -x '': the separator is empty\n");
		return 129;
	}
	if (o->json && o->sep) {
		fprintf(stderr, "prec stat: -j and -x exclude each other\n");
		return 129;
	}
	if (o->per_thread && !o->pids && !o->tids) {
		fprintf(stderr, "prec stat: --per-thread needs -p or -t\n");
		return 129;
	}
	if (!o->null && !o->events.nr &&
	    cb_event(&table[0], o->all_cpus || o->cpu_list ? DEFAULT_EVENTS_CPUS : DEFAULT_EVENTS,
		     &err)) {
		fprintf(stderr, "prec stat: %s\n", err.msg);
		return 1;
	}
	/* -d, -dd, -ddd: perf's detailed sets */
	if (!o->null && ((o->detailed >= 1 && cb_event(&table[0], "L1-dcache-loads,L1-dcache-load-misses,"
							"LLC-loads,LLC-load-misses", &err)) ||
			 (o->detailed >= 2 && cb_event(&table[0], "L1-icache-loads,L1-icache-load-misses,"
						       "dTLB-loads,dTLB-load-misses,iTLB-loads,"
						       "iTLB-load-misses", &err)) ||
			 (o->detailed >= 3 && cb_event(&table[0], "L1-dcache-prefetches,"
						       "L1-dcache-prefetch-misses", &err)))) {
		fprintf(stderr, "prec stat: %s\n", err.msg);
		return 1;
	}
	for (size_t i = 0; i < o->events.nr; i++) {
		if (o->all_user)
			o->events.ev[i].attr.exclude_kernel = o->events.ev[i].attr.exclude_hv = 1;
		if (o->all_kernel)
			o->events.ev[i].attr.exclude_user = 1;
	}
	if (!o->repeat)
		o->repeat = 1;
	return 0;
}

static enum stat_aggr aggr_mode(const struct stat_opts *o)
{
	return o->no_aggr ? AGGR_NONE : o->per_socket ? AGGR_SOCKET : o->per_die ? AGGR_DIE :
	       o->per_core ? AGGR_CORE : o->per_node ? AGGR_NODE : o->per_thread ? AGGR_THREAD :
	       AGGR_GLOBAL;
}

/* The units of the output (CPUs grouped by topology, or threads) and each
 * counter's readings summed per unit. */
static int aggregate(const struct stat_opts *o, const struct target *t, struct reading **per,
		     const size_t *per_n, struct stat_result *r, struct stat_counter *sc,
		     struct stat_unit **topo_out, size_t *nr_topo)
{
	int *unit_of = NULL;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	r->aggr = aggr_mode(o);
	*topo_out = NULL;
	*nr_topo = 0;
	if (t->cpus) {
		/* the topology of every CPU (kept in the file); units of the counted ones */
		struct stat_unit *topo = calloc((size_t)(ncpu > 0 ? ncpu : 1), sizeof(*topo));
		struct stat_unit *counted = calloc(t->nr_cpus + 1, sizeof(*counted));

		unit_of = calloc((size_t)(ncpu > 0 ? ncpu : 1), sizeof(int));
		if (!topo || !counted || !unit_of) {
			free(topo);
			free(counted);
			free(unit_of);
			return -ENOMEM;
		}
		stat_read_topology(topo, (size_t)ncpu);
		for (size_t k = 0; k < t->nr_cpus; k++)
			counted[k] = topo[t->cpus[k]];
		*topo_out = topo;
		*nr_topo = (size_t)ncpu;
		if (r->aggr != AGGR_GLOBAL) {
			int *uk = calloc(t->nr_cpus + 1, sizeof(int));

			if (!uk || stat_units_for_cpus(r->aggr, counted, t->nr_cpus, &r->units,
						       &r->nr_units, uk)) {
				free(uk);
				free(counted);
				free(unit_of);
				return -ENOMEM;
			}
			for (size_t k = 0; k < t->nr_cpus; k++)
				unit_of[t->cpus[k]] = uk[k];
			free(uk);
		}
		free(counted);
	} else if (r->aggr == AGGR_THREAD) {
		r->units = calloc(t->nr_tids + 1, sizeof(*r->units));
		if (!r->units)
			return -ENOMEM;
		for (size_t k = 0; k < t->nr_tids; k++) {
			char path[64];
			FILE *f;

			r->units[k].tid = t->tids[k];
			snprintf(path, sizeof(path), "/proc/%d/comm", (int)t->tids[k]);
			f = fopen(path, "r");
			if (!f || !fgets(r->units[k].comm, sizeof(r->units[k].comm), f))
				snprintf(r->units[k].comm, sizeof(r->units[k].comm), ":%d", (int)t->tids[k]);
			if (f)
				fclose(f);
			r->units[k].comm[strcspn(r->units[k].comm, "\n")] = 0;
		}
		r->nr_units = t->nr_tids;
	}
	for (size_t i = 0; r->nr_units && i < o->events.nr; i++) {
		sc[i].uvalues = calloc(r->nr_units, sizeof(double));
		sc[i].uenabled = calloc(r->nr_units, sizeof(uint64_t));
		sc[i].urunning = calloc(r->nr_units, sizeof(uint64_t));
		if (!sc[i].uvalues || !sc[i].uenabled || !sc[i].urunning) {
			free(unit_of);
			return -ENOMEM;
		}
		for (size_t k = 0; k < per_n[i]; k++) {
			size_t u = 0;

			if (t->cpus) {
				u = (size_t)unit_of[per[i][k].cpu];
			} else {
				while (u < r->nr_units && r->units[u].tid != per[i][k].tid)
					u++;
				if (u == r->nr_units)
					continue;
			}
			sc[i].uvalues[u] += !o->no_scale && per[i][k].running &&
					    per[i][k].running < per[i][k].enabled ?
				(double)per[i][k].value * (double)per[i][k].enabled /
				(double)per[i][k].running : (double)per[i][k].value;
			sc[i].uenabled[u] += per[i][k].enabled;
			sc[i].urunning[u] += per[i][k].running;
		}
	}
	free(unit_of);
	return 0;
}

/* -I: what the last tick read, and the intervals kept for stat record. */
struct intervals {
	struct reading **prev;
	size_t *prev_n;
	uint64_t last_ns;       /* since the start */
	long done;
	struct buf *blocks;     /* encoded COUNTS payloads */
	size_t nr_blocks;
	unsigned printed;       /* intervals printed: the titles come back every 25 */
};

/* One interval: read every counter, print the differences since the last
 * tick (as perf stat -I), keep them for the file. */
static int interval_tick(const struct stat_opts *o, const struct target *t, struct counter *c,
			 struct stat_counter *sc, struct stat_result *r, struct stat_print_opts *po,
			 struct intervals *iv, uint64_t now_rel, FILE *out)
{
	struct reading **d = calloc(o->events.nr + 1, sizeof(*d));
	size_t *dn = calloc(o->events.nr + 1, sizeof(*dn));
	struct count_reading *cr = NULL;
	size_t ncr = 0, total = 0;
	double len_s = (double)(now_rel - iv->last_ns) / 1e9;
	struct stat_unit *topo = NULL;
	size_t nr_topo = 0;
	int ret = 0;

	if (!d || !dn) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < o->events.nr; i++)
		total += c[i].nr_fds;
	cr = calloc(total + 1, sizeof(*cr));
	if (!cr) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < o->events.nr; i++) {
		struct reading sum = { 0 }, cur_sum;
		struct reading *cur = calloc(c[i].nr_fds + 1, sizeof(*cur));

		d[i] = calloc(c[i].nr_fds + 1, sizeof(**d));
		if (!cur || !d[i]) {
			free(cur);
			ret = -ENOMEM;
			goto out;
		}
		read_counter(&c[i], &cur_sum, cur);
		for (size_t k = 0; k < c[i].nr_fds; k++) {
			struct reading p = k < iv->prev_n[i] ? iv->prev[i][k] : (struct reading){ 0 };

			d[i][k] = cur[k];
			d[i][k].value -= p.value;
			d[i][k].enabled -= p.enabled;
			d[i][k].running -= p.running;
			sum.value += d[i][k].value;
			sum.enabled += d[i][k].enabled;
			sum.running += d[i][k].running;
			cr[ncr++] = (struct count_reading){ (uint32_t)i, cur[k].cpu, cur[k].tid,
							    COUNT_FLAG_INTERVAL, now_rel, d[i][k].value,
							    d[i][k].enabled, d[i][k].running };
		}
		dn[i] = c[i].nr_fds;
		free(iv->prev[i]);
		iv->prev[i] = cur;
		iv->prev_n[i] = c[i].nr_fds;
		sc[i].name = o->events.ev[i].name;
		sc[i].type = o->events.ev[i].attr.type;
		sc[i].config = o->events.ev[i].attr.config;
		sc[i].supported = c[i].supported;
		sc[i].enabled[0] = sum.enabled;
		sc[i].running[0] = sum.running;
		sc[i].values[0] = !o->no_scale && sum.running && sum.running < sum.enabled ?
			(double)sum.value * (double)sum.enabled / (double)sum.running : (double)sum.value;
	}
	r->c = sc;
	r->nr = o->events.nr;
	r->runs = 1;
	r->elapsed_s[0] = len_s;
	stat_units_free(r, sc, o->events.nr);
	if (aggregate(o, t, d, dn, r, sc, &topo, &nr_topo)) {
		ret = -ENOMEM;
		goto out;
	}
	if (!o->quiet) {
		if (o->interval_clear)
			fputs("\033[H\033[2J", out);
		if (iv->printed % STAT_HEADER_EVERY == 0 || o->interval_clear)
			stat_print_interval_header(out, r->aggr, po);
		iv->printed++;
		po->interval = (double)now_rel / 1e9;
		stat_print(out, r, po);
		po->interval = -1;
		fflush(out);
	}
	if (o->record) {
		struct buf *nb = array_realloc(iv->blocks, iv->nr_blocks + 1, sizeof(*nb));

		if (!nb) {
			ret = -ENOMEM;
			goto out;
		}
		iv->blocks = nb;
		iv->blocks[iv->nr_blocks] = (struct buf)BUF_INIT;
		if (counts_encode(cr, ncr, &iv->blocks[iv->nr_blocks])) {
			ret = -ENOMEM;
			goto out;
		}
		iv->nr_blocks++;
	}
	iv->last_ns = now_rel;
	iv->done++;
out:
	for (size_t i = 0; d && i < o->events.nr; i++)
		free(d[i]);
	free(d);
	free(dn);
	free(cr);
	free(topo);
	return ret;
}

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
};

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* A pidfd for each thread counted with -p/-t: readable once it exits.
 * Threads the kernel gives none for (before 6.9 only a process leader has
 * one) do not end the run; Ctrl-C still does. */
static void watch_targets(struct waiter *w, const struct target *t)
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
 * ns, passes (false; 0: no deadline). No timer wakes prec in between:
 * SIGINT, SIGTERM and SIGCHLD are blocked except inside ppoll(), so a
 * signal that comes between the checks and the sleep ends the sleep at
 * once rather than being missed. Ctrl-C is passed on to the workload (the
 * terminal sends it there too), whose end ends the run and prints the
 * counts, as perf stat does.
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
		if (w->exited || (w->pid <= 0 && stop_req) || (w->nr_targets && !w->alive))
			return true;
		if (stop_req && !w->forwarded) {
			kill(w->pid, SIGINT);
			w->forwarded = true;
		}
		now = now_ns();
		if (deadline && now >= deadline)
			return false;
		left = deadline - now;
		ts = (struct timespec){ (time_t)(left / 1000000000u), (long)(left % 1000000000u) };
		if (ppoll(w->targets, w->nr_targets, deadline ? &ts : NULL, &w->asleep) > 0)
			targets_exited(w);
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
static int wait_intervals(const struct stat_opts *o, const struct target *t, struct counter *c,
			  struct stat_counter *sc, struct stat_result *r, struct stat_print_opts *po,
			  struct intervals *iv, struct waiter *w, uint64_t t0, FILE *out)
{
	uint64_t end = o->timeout_ms ? t0 + (uint64_t)o->timeout_ms * 1000000u : 0;
	uint64_t tick = o->interval_ms ? (uint64_t)o->interval_ms * 1000000u : 0;
	uint64_t next = t0 + tick, now;
	bool ticking = tick != 0;
	int ret;

	if (o->delay_ms) {
		fprintf(stderr, "Events disabled\n");
		wait_until(w, t0 + (uint64_t)o->delay_ms * 1000000u);
		enable_counters(c, o->events.nr);
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
			ret = interval_tick(o, t, c, sc, r, po, iv, now - t0, out);
			if (ret)
				return ret;
			next += tick;
			if (o->interval_count && iv->done >= o->interval_count) {
				ticking = false;
				if (wait_stop(w))
					break;
			}
		}
	}
	if (tick && (!o->interval_count || iv->done < o->interval_count))
		return interval_tick(o, t, c, sc, r, po, iv, now_ns() - t0, out);
	return 0;
}

static void on_child(int sig)
{
	(void)sig;      /* only ends ppoll() in wait_until */
}

/* The wait of one run, with the stop signals and SIGCHLD held back except
 * while asleep. */
static int wait_run(const struct stat_opts *o, const struct target *t, struct counter *c,
		    struct stat_counter *sc, struct stat_result *r, struct stat_print_opts *po,
		    struct intervals *iv, struct waiter *w, uint64_t t0, FILE *out)
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
	ret = wait_intervals(o, t, c, sc, r, po, iv, w, t0, out);
	/* a workload still running (out of memory on a tick) is reaped, its
	 * counts not printed */
	if (w->pid > 0 && !w->exited) {
		kill(w->pid, SIGKILL);
		w->exited = wait4(w->pid, &w->status, 0, &w->ru) == w->pid;
	}
	sigprocmask(SIG_SETMASK, &before, NULL);
	return ret;
}

/* The counting file: events (ids empty when not supported), one COUNTS block
 * per run, metadata with the times and the target. */
static int write_file(const struct stat_opts *o, const struct counter *c, struct reading **per,
		      const size_t *per_n, const struct intervals *iv,
		      const struct stat_result *r, const uint64_t *elapsed_ns, uint64_t user_ns,
		      uint64_t sys_ns, const struct stat_unit *topo, size_t nr_topo,
		      int argc, char **argv, struct err *err)
{
	struct container_writer_opts wo = { .kind = CONTAINER_KIND_COUNTS };
	struct container_writer *w;
	struct metadata m = { 0 };
	struct buf b = BUF_INIT;
	uint8_t el[8 * 1024];
	int ret;

	ret = container_writer_open(&w, o->record_file, &wo, err);
	if (ret)
		return ret;
	for (size_t i = 0; i < o->events.nr && !ret; i++) {
		struct event_id *ids = calloc(c[i].nr_fds + 1, sizeof(*ids));

		if (!ids) {
			ret = err_set(err, -ENOMEM, "out of memory");
			break;
		}
		for (size_t k = 0; k < c[i].nr_fds; k++)
			ids[k] = (struct event_id){ c[i].ids[k], c[i].fds[k].cpu, -1 };
		buf_reset(&b);
		ret = event_block_encode(&o->events.ev[i].attr, sizeof(o->events.ev[i].attr),
					 o->events.ev[i].name, ids, c[i].supported ? per_n[i] : 0, &b);
		free(ids);
		if (!ret)
			ret = container_write_block(w, BLOCK_EVENT, b.data, b.len, err);
	}
	for (size_t k = 0; !ret && iv && k < iv->nr_blocks; k++)
		ret = container_write_block(w, BLOCK_COUNTS, iv->blocks[k].data, iv->blocks[k].len, err);
	{
		struct count_reading *cr;
		size_t n = 0;

		for (size_t i = 0; i < o->events.nr; i++)
			n += per_n[i] + 1;
		cr = calloc(n + 1, sizeof(*cr));
		if (!cr && !ret)
			ret = err_set(err, -ENOMEM, "out of memory");
		n = 0;
		for (size_t i = 0; i < o->events.nr && cr; i++) {
			for (size_t k = 0; k < per_n[i]; k++)
				cr[n++] = (struct count_reading){
					(uint32_t)i, per[i][k].cpu, per[i][k].tid, COUNT_FLAG_FINAL,
					elapsed_ns[r->runs - 1], per[i][k].value,
					per[i][k].enabled, per[i][k].running };
			/* opened but never scheduled (a broken group): <not counted> */
			if (!per_n[i] && c[i].supported)
				cr[n++] = (struct count_reading){ (uint32_t)i, -1, -1, COUNT_FLAG_FINAL,
								  elapsed_ns[r->runs - 1], 0, 0, 0 };
		}
		buf_reset(&b);
		if (!ret && cr && !(ret = counts_encode(cr, n, &b)))
			ret = container_write_block(w, BLOCK_COUNTS, b.data, b.len, err);
		free(cr);
	}
	metadata_set_strlist(&m, META_CMDLINE, argc, argv);
	metadata_set_str(&m, META_WRITER, "prec " PREC_VERSION);
	metadata_set_u64(&m, META_STAT_RUNS, (uint64_t)r->runs);
	metadata_set_u64(&m, META_STAT_AGGR, (uint64_t)r->aggr);
	if (nr_topo) {
		uint8_t *tb = calloc(nr_topo, 16);

		for (size_t i = 0; tb && i < nr_topo; i++) {
			uint32_t f[4] = { (uint32_t)topo[i].socket, (uint32_t)topo[i].die,
					  (uint32_t)topo[i].core, (uint32_t)topo[i].node };

			for (int k = 0; k < 16; k++)
				tb[16 * i + k] = (uint8_t)(f[k / 4] >> (8 * (k % 4)));
		}
		if (tb)
			metadata_set_bytes(&m, META_STAT_TOPOLOGY, META_BYTES, tb, 16 * nr_topo);
		free(tb);
	}
	if (r->aggr == AGGR_THREAD && r->nr_units) {
		char **names = calloc(r->nr_units, sizeof(char *));

		for (size_t u = 0; names && u < r->nr_units; u++)
			if (asprintf(&names[u], "%d:%s", r->units[u].tid, r->units[u].comm) < 0)
				names[u] = NULL;
		if (names)
			metadata_set_strlist(&m, META_STAT_THREADS, (int)r->nr_units, names);
		for (size_t u = 0; names && u < r->nr_units; u++)
			free(names[u]);
		free(names);
	}
	for (int i = 0; i < r->runs && i < 1024; i++) {
		uint64_t ns = elapsed_ns[i];

		for (int k = 0; k < 8; k++)
			el[8 * i + k] = (uint8_t)(ns >> (8 * k));
	}
	metadata_set_bytes(&m, META_STAT_ELAPSED_NS, META_BYTES, el,
			   8 * (size_t)(r->runs < 1024 ? r->runs : 1024));
	if (r->show_times) {
		metadata_set_u64(&m, META_STAT_USER_NS, user_ns);
		metadata_set_u64(&m, META_STAT_SYS_NS, sys_ns);
	}
	{
		/* the heading's text, quotes included */
		char *heading;

		if (asprintf(&heading, r->cmd ? "'%s'" : "%s", r->cmd ? r->cmd : r->target) >= 0) {
			metadata_set_str(&m, META_STAT_TARGET, heading);
			free(heading);
		}
	}
	buf_reset(&b);
	if (!ret && !(ret = metadata_encode(&m, &b)))
		ret = container_write_block(w, BLOCK_METADATA, b.data, b.len, err);
	metadata_free(&m);
	buf_free(&b);
	if (!ret)
		return container_writer_close(w, err);
	container_writer_abort(w);
	return ret;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = { 0 };
	struct target t = { 0 };
	struct counter *c = NULL;
	struct stat_counter *sc = NULL;
	struct reading **per = NULL;
	size_t *per_n = NULL;
	struct stat_result r = { 0 };
	struct stat_print_opts po = { .interval = -1 };
	struct intervals iv = { 0 };
	struct err err = { 0 };
	struct sigaction sa = { 0 };
	char *cmd = NULL, target[128];
	uint64_t *elapsed_ns = NULL, user_ns = 0, sys_ns = 0;
	struct stat_unit *topo = NULL;
	size_t nr_topo = 0;
	int ret, status = 0, rec_argc = argc;
	char **rec_argv = argv;
	FILE *out = stderr;

	if (argc > 1 && !strcmp(argv[1], "record")) {
		o.record = true;
		argc--;
		argv++;
	}
	ret = parse(&o, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (o.record) {
		o.record_file = o.output ? o.output : "prec.data";
		o.output = NULL;
	}
	if (o.output && !(out = fopen(o.output, o.append ? "a" : "w"))) {
		fprintf(stderr, "prec stat: cannot write '%s': %s\n", o.output, strerror(errno));
		event_list_free(&o.events);
		return 1;
	}
	po.sep = o.sep;
	po.json = o.json;
	po.big_num = o.big_num && !o.no_big_num;
	c = calloc(o.events.nr + 1, sizeof(*c));
	sc = calloc(o.events.nr + 1, sizeof(*sc));
	per = calloc(o.events.nr + 1, sizeof(*per));
	per_n = calloc(o.events.nr + 1, sizeof(*per_n));
	iv.prev = calloc(o.events.nr + 1, sizeof(*iv.prev));
	iv.prev_n = calloc(o.events.nr + 1, sizeof(*iv.prev_n));
	r.elapsed_s = calloc((size_t)o.repeat, sizeof(double));
	elapsed_ns = calloc((size_t)o.repeat, sizeof(uint64_t));
	if (!c || !sc || !per || !per_n || !iv.prev || !iv.prev_n || !r.elapsed_s || !elapsed_ns) {
		ret = err_set(&err, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < o.events.nr; i++) {
		sc[i].values = calloc((size_t)o.repeat, sizeof(double));
		sc[i].enabled = calloc((size_t)o.repeat, sizeof(uint64_t));
		sc[i].running = calloc((size_t)o.repeat, sizeof(uint64_t));
		if (!sc[i].values || !sc[i].enabled || !sc[i].running) {
			ret = err_set(&err, -ENOMEM, "out of memory");
			goto out;
		}
	}
	if ((o.all_cpus || o.cpu_list) && (ret = target_cpus(o.cpu_list, &t.cpus, &t.nr_cpus, &err)))
		goto out;
	if ((o.pids || o.tids) && (ret = thread_targets(&o, &t.tids, &t.nr_tids, &err)))
		goto out;
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP | SA_RESTART;
	sigaction(SIGCHLD, &sa, NULL);
	for (int run = 0; run < o.repeat && !ret; run++) {
		struct workload wl = { 0 };
		struct waiter w;
		struct rusage ru;
		uint64_t t0, t1;

		if (o.argc) {
			ret = workload_prepare(&wl, o.argv, &err);
			if (ret)
				break;
			t.workload = t.cpus || t.tids ? 0 : wl.pid;
		}
		ret = open_counters(&o, c, &t, &err);
		if (ret) {
			if (o.argc) {
				kill(wl.pid, SIGKILL);
				waitpid(wl.pid, NULL, 0);
			}
			break;
		}
		if (!run && !o.quiet)
			note_user_only(c, o.events.nr);
		t0 = now_ns();
		if (o.argc) {
			ret = workload_start(&wl, &err);
			if (ret) {
				err_prefix(&err, "cannot run '%s'", o.argv[0]);
				waitpid(wl.pid, NULL, 0);
				break;
			}
		}
		w = (struct waiter){ .pid = o.argc ? wl.pid : 0 };
		if (!o.argc && t.tids)
			watch_targets(&w, &t);
		ret = wait_run(&o, &t, c, sc, &r, &po, &iv, &w, t0, out);
		unwatch_targets(&w);
		status = w.status;
		ru = w.ru;
		if (ret) {
			ret = err_set(&err, ret, "out of memory");
			break;
		}
		t1 = now_ns();
		elapsed_ns[run] = t1 - t0;
		r.elapsed_s[run] = (double)elapsed_ns[run] / 1e9;
		user_ns = tv_ns(ru.ru_utime);
		sys_ns = tv_ns(ru.ru_stime);
		r.user_s = (double)user_ns / 1e9;
		r.sys_s = (double)sys_ns / 1e9;
		for (size_t i = 0; i < o.events.nr; i++) {
			struct reading sum;

			free(per[i]);
			per[i] = calloc(c[i].nr_fds + 1, sizeof(**per));
			if (!per[i]) {
				ret = err_set(&err, -ENOMEM, "out of memory");
				break;
			}
			read_counter(&c[i], &sum, per[i]);
			per_n[i] = c[i].nr_fds;
			sc[i].name = o.events.ev[i].name;
			sc[i].type = o.events.ev[i].attr.type;
			sc[i].config = o.events.ev[i].attr.config;
			sc[i].supported = c[i].supported;
			sc[i].enabled[run] = sum.enabled;
			sc[i].running[run] = sum.running;
			sc[i].values[run] = !o.no_scale && sum.running && sum.running < sum.enabled ?
				(double)sum.value * (double)sum.enabled / (double)sum.running :
				(double)sum.value;
		}
		if (o.record && run == o.repeat - 1 && !ret) {
			/* the file is written while the counters are still open (their ids) */
			r.runs = run + 1;
		}
		if (run < o.repeat - 1 || !o.record)
			close_counters(c, o.events.nr);
		if (stop_req)
			o.repeat = run + 1;
	}
	if (ret)
		goto out;
	cmd = o.argc ? join_args(o.argc, o.argv) : NULL;
	if (t.cpus && !o.cpu_list)
		snprintf(target, sizeof(target), "'system wide'");
	else if (t.cpus)
		snprintf(target, sizeof(target), "'CPU(s) %s'", o.cpu_list);
	else if (o.pids)
		snprintf(target, sizeof(target), "process id '%s'", o.pids);
	else if (o.tids)
		snprintf(target, sizeof(target), "thread id '%s'", o.tids);
	else
		target[0] = 0;
	r.cmd = t.cpus || t.tids ? NULL : cmd;
	r.target = target;
	r.c = sc;
	r.nr = o.events.nr;
	r.runs = (int)o.repeat;
	r.show_times = r.cmd != NULL;
	stat_units_free(&r, sc, o.events.nr);
	if (aggregate(&o, &t, per, per_n, &r, sc, &topo, &nr_topo)) {
		ret = err_set(&err, -ENOMEM, "out of memory");
		goto out;
	}
	if (o.record) {
		ret = write_file(&o, c, per, per_n, &iv, &r, elapsed_ns, user_ns, sys_ns, topo, nr_topo, rec_argc,
				 rec_argv, &err);
		close_counters(c, o.events.nr);
		if (ret)
			goto out;
	}
	if (o.verbose)
		for (size_t i = 0; i < o.events.nr; i++)
			fprintf(stderr, "%s: %.0f %" PRIu64 " %" PRIu64 "\n", sc[i].name, sc[i].values[0],
				sc[i].enabled[0], sc[i].running[0]);
	/* with -I the intervals were the output, unless --summary asks for the
	 * totals too (as perf) */
	if (!o.quiet && (!o.interval_ms || o.summary)) {
		po.summary = o.interval_ms && (o.sep || o.json) && !o.no_csv_summary;
		stat_print(out, &r, &po);
	}
out:
	if (ret)
		fprintf(stderr, "prec stat: %s\n", err.msg);
	close_counters(c, o.events.nr);
	if (sc)
		stat_units_free(&r, sc, o.events.nr);
	for (size_t i = 0; sc && i < o.events.nr; i++) {
		free(sc[i].values);
		free(sc[i].enabled);
		free(sc[i].running);
		if (per)
			free(per[i]);
	}
	free(per);
	free(per_n);
	for (size_t i = 0; iv.prev && i < o.events.nr; i++)
		free(iv.prev[i]);
	free(iv.prev);
	free(iv.prev_n);
	for (size_t k = 0; k < iv.nr_blocks; k++)
		buf_free(&iv.blocks[k]);
	free(iv.blocks);
	free(sc);
	free(c);
	free(r.elapsed_s);
	free(elapsed_ns);
	free(t.cpus);
	free(t.tids);
	free(topo);
	free(cmd);
	event_list_free(&o.events);
	if (out != stderr)
		fclose(out);
	if (ret)
		return 255;
	/* the workload's status, as perf stat exits */
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 0;
}
