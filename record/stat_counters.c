/* SPDX-License-Identifier: MIT */
/*
 * prec stat's counters: each event opened as a counting event (read_format
 * with the enabled and running times and the id) on every CPU or thread of
 * the target, {a,b} groups read through their leader, readings scaled for
 * multiplexing, and summed into the output's units (CPUs by topology, or
 * threads).
 */
#include "stat_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "record.h"

/* The value scaled by enabled/running (multiplexed), unless --no-scale. */
static double reading_scaled(const struct reading *x, bool no_scale)
{
	return no_scale ? (double)x->value : stat_scaled((double)x->value, x->enabled, x->running);
}

/* Counting, not sampling: the times and the id come with every read; {a,b}
 * is opened as one group that its leader reads at once. */
static void counter_attr(struct stat_run *run, size_t i, struct perf_event_attr *a)
{
	const struct stat_opts *o = run->o;
	const struct event_spec *ev = &o->events.ev[i];
	struct counter *c = run->c;

	*a = ev->attr;
	a->size = sizeof(*a);
	a->sample_period = 0;
	a->sample_type = 0;
	a->freq = 0;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			 PERF_FORMAT_ID;
	c[i].leader = NULL;
	if (ev->group >= 0 && !ev->group_leader) {
		for (size_t j = i; j-- > 0;)
			if (o->events.ev[j].group == ev->group && o->events.ev[j].group_leader) {
				if (c[j].supported && c[j].nr_fds)
					c[i].leader = &c[j];
				break;
			}
	}
	if (ev->group >= 0 && ev->group_leader) {
		a->read_format |= PERF_FORMAT_GROUP;
		c[i].leader = &c[i];
	}
	a->inherit = !o->no_inherit && !run->t.cpus;
	/* -D: enabled by hand once the delay is over */
	a->disabled = run->t.workload > 0 || o->delay_ms;
	a->enable_on_exec = run->t.workload > 0 && !o->delay_ms;
}

/* A member's group fd: its leader's on the same CPU (and thread). */
static int group_fd_of(const struct counter *c, const struct stat_target *t, pid_t pid, int cpu)
{
	const struct counter *l = c->leader;
	int group_fd = -1;

	if (!l || l == c)
		return -1;
	for (size_t j = 0; j < l->nr_fds; j++)
		if (l->fds[j].cpu == cpu && (l->fds[j].tid == pid || t->workload > 0 || t->cpus))
			group_fd = l->fds[j].fd;
	return group_fd;
}

static int open_failed(const struct counter *c, const struct stat_target *t, pid_t pid, int e,
		       struct err *err)
{
	struct open_failure f = {
		.name = c->ev->name, .hardware = c->ev->is_hardware,
		.system_wide = t->cpus != NULL, .pid = t->tids ? pid : 0,
		.tried_user_only = c->user_only, .probe = c->ev->probe,
	};

	return open_error(e, &f, err);
}

/*
 * Counter c on each of the target's slots (CPUs, threads, or the
 * workload). One this machine does not have is <not supported>; a thread
 * that ended meanwhile is skipped. An event refused at perf_event_paranoid
 * >= 2 is opened excluding the kernel, as perf stat does (event_open).
 */
static int open_slots(struct counter *c, const struct stat_target *t, struct perf_event_attr *a,
		      size_t slots, struct err *err)
{
	c->supported = true;
	for (size_t k = 0; k < slots; k++) {
		pid_t pid = t->workload > 0 ? t->workload : t->cpus ? -1 : t->tids[k];
		int cpu = t->cpus ? t->cpus[k] : -1;
		int fd = event_open(c->ev, a, pid, cpu, group_fd_of(c, t, pid, cpu), &c->user_only);

		if (fd < 0) {
			int e = -fd;

			if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == EINVAL) {
				c->supported = false;
				break;
			}
			if (e == ESRCH && !t->workload && !t->cpus)
				continue;
			return open_failed(c, t, pid, e, err);
		}
		c->fds[c->nr_fds] = (struct counter_fd){ fd, cpu, t->cpus || t->workload > 0 ? -1 : pid };
		ioctl(fd, PERF_EVENT_IOC_ID, &c->ids[c->nr_fds]);
		c->nr_fds++;
	}
	if (!c->supported) {
		for (size_t k = 0; k < c->nr_fds; k++)
			close(c->fds[k].fd);
		c->nr_fds = 0;
	}
	return 0;
}

/* A group with a member this machine does not have is never scheduled:
 * its other members count nothing (perf prints them <not counted>). */
static void close_broken_groups(const struct event_list *ev, struct counter *c)
{
	for (size_t i = 0; i < ev->nr; i++) {
		int g = ev->ev[i].group;
		bool broken = false;

		if (g < 0 || !ev->ev[i].group_leader)
			continue;
		for (size_t j = i; j < ev->nr && ev->ev[j].group == g; j++)
			broken |= !c[j].supported;
		for (size_t j = i; broken && j < ev->nr && ev->ev[j].group == g; j++) {
			if (!c[j].supported)
				continue;
			for (size_t k = 0; k < c[j].nr_fds; k++)
				close(c[j].fds[k].fd);
			c[j].nr_fds = 0;
			c[j].leader = NULL;
		}
	}
}

int counters_open(struct stat_run *run, struct err *err)
{
	const struct stat_target *t = &run->t;
	size_t slots = t->workload > 0 ? 1 : t->cpus ? t->nr_cpus : t->nr_tids;

	for (size_t i = 0; i < run->o->events.nr; i++) {
		struct counter *c = &run->c[i];
		struct perf_event_attr a;
		int ret;

		c->ev = &run->o->events.ev[i];
		c->fds = calloc(slots, sizeof(*c->fds));
		c->ids = calloc(slots, sizeof(*c->ids));
		if (!c->fds || !c->ids)
			return err_set(err, -ENOMEM, "out of memory");
		counter_attr(run, i, &a);
		ret = open_slots(c, t, &a, slots, err);
		if (ret)
			return ret;
	}
	close_broken_groups(&run->o->events, run->c);
	return 0;
}

/* The one note line, once, when events fell back to user space only; it
 * names the first such event that counts (not a <not supported> cycles:u). */
void counters_note_user_only(const struct counter *c, size_t n)
{
	const struct counter *first = NULL;

	for (size_t i = 0; i < n; i++)
		if (c[i].user_only && (!first || (c[i].supported && !first->supported)))
			first = &c[i];
	if (first)
		user_only_note(stderr, "prec stat", first->ev->name);
}

void counters_enable(struct counter *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < c[i].nr_fds; k++)
			ioctl(c[i].fds[k].fd, PERF_EVENT_IOC_ENABLE, 0);
}

void counters_close(struct counter *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++) {
		for (size_t k = 0; k < c[i].nr_fds; k++)
			close(c[i].fds[k].fd);
		free(c[i].fds);
		free(c[i].ids);
		c[i].fds = NULL;
		c[i].ids = NULL;
		c[i].nr_fds = 0;
	}
}

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

void counter_read(const struct counter *c, struct reading *sum, struct reading *per)
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

void counter_show(struct stat_run *run, size_t i, int k, const struct reading *sum)
{
	const struct event_spec *ev = &run->o->events.ev[i];
	struct stat_counter *sc = &run->sc[i];

	sc->name = ev->name;
	sc->type = ev->attr.type;
	sc->config = ev->attr.config;
	sc->supported = run->c[i].supported;
	sc->enabled[k] = sum->enabled;
	sc->running[k] = sum->running;
	sc->values[k] = reading_scaled(sum, run->o->no_scale);
}

int counters_read_run(struct stat_run *run, int k, struct err *err)
{
	for (size_t i = 0; i < run->o->events.nr; i++) {
		const struct counter *c = &run->c[i];
		struct reading sum;

		free(run->per[i]);
		run->per[i] = calloc(c->nr_fds + 1, sizeof(**run->per));
		if (!run->per[i])
			return err_set(err, -ENOMEM, "out of memory");
		counter_read(c, &sum, run->per[i]);
		run->per_n[i] = c->nr_fds;
		counter_show(run, i, k, &sum);
	}
	return 0;
}

static enum stat_aggr aggr_mode(const struct stat_opts *o)
{
	return o->no_aggr ? AGGR_NONE : o->per_socket ? AGGR_SOCKET : o->per_die ? AGGR_DIE :
	       o->per_core ? AGGR_CORE : o->per_node ? AGGR_NODE : o->per_thread ? AGGR_THREAD :
	       o->per_cluster ? AGGR_CLUSTER : o->per_cache ? AGGR_CACHE : AGGR_GLOBAL;
}

/* -a, -C: the topology of every CPU (kept in the file) into *topo, and
 * without AGGR_GLOBAL the units of the counted ones, each CPU's unit
 * into unit_of (indexed by CPU number). */
static int cpu_units(const struct stat_target *t, struct stat_result *r, int *unit_of,
		     struct stat_unit **topo, size_t *nr_topo)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct stat_unit *all = calloc((size_t)(ncpu > 0 ? ncpu : 1), sizeof(*all));
	struct stat_unit *counted = calloc(t->nr_cpus + 1, sizeof(*counted));
	int *uk = calloc(t->nr_cpus + 1, sizeof(int));
	int ret = -ENOMEM;

	if (!all || !counted || !uk)
		goto out;
	stat_read_topology(all, (size_t)ncpu);
	for (size_t k = 0; k < t->nr_cpus; k++)
		counted[k] = all[t->cpus[k]];
	*topo = all;
	*nr_topo = (size_t)ncpu;
	all = NULL;
	if (r->aggr == AGGR_CACHE && !stat_set_cache_level(counted, t->nr_cpus, r->cache_level))
		memset(counted, 0, (t->nr_cpus + 1) * sizeof(*counted));     /* one unit */
	if (r->aggr != AGGR_GLOBAL) {
		if (stat_units_for_cpus(r->aggr, counted, t->nr_cpus, &r->units, &r->nr_units, uk))
			goto out;
		for (size_t k = 0; k < t->nr_cpus; k++)
			unit_of[t->cpus[k]] = uk[k];
	}
	ret = 0;
out:
	free(all);
	free(counted);
	free(uk);
	return ret;
}

/* --per-thread: a unit per thread, named by its comm. */
static int thread_units(const struct stat_target *t, struct stat_result *r)
{
	r->units = calloc(t->nr_tids + 1, sizeof(*r->units));
	if (!r->units)
		return -ENOMEM;
	for (size_t k = 0; k < t->nr_tids; k++) {
		struct stat_unit *u = &r->units[k];
		char path[64];
		FILE *f;

		u->tid = t->tids[k];
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)t->tids[k]);
		f = fopen(path, "r");
		if (!f || !fgets(u->comm, sizeof(u->comm), f))
			snprintf(u->comm, sizeof(u->comm), ":%d", (int)t->tids[k]);
		if (f)
			fclose(f);
		u->comm[strcspn(u->comm, "\n")] = 0;
	}
	r->nr_units = t->nr_tids;
	return 0;
}

/* Each counter's readings summed into its units. */
static int unit_sums(struct stat_run *run, struct reading **per, const size_t *per_n,
		     const int *unit_of)
{
	struct stat_result *r = &run->r;

	for (size_t i = 0; r->nr_units && i < run->o->events.nr; i++) {
		struct stat_counter *sc = &run->sc[i];

		sc->uvalues = calloc(r->nr_units, sizeof(double));
		sc->uenabled = calloc(r->nr_units, sizeof(uint64_t));
		sc->urunning = calloc(r->nr_units, sizeof(uint64_t));
		if (!sc->uvalues || !sc->uenabled || !sc->urunning)
			return -ENOMEM;
		for (size_t k = 0; k < per_n[i]; k++) {
			const struct reading *x = &per[i][k];
			size_t u = 0;

			if (run->t.cpus) {
				u = (size_t)unit_of[x->cpu];
			} else {
				while (u < r->nr_units && r->units[u].tid != x->tid)
					u++;
				if (u == r->nr_units)
					continue;
			}
			sc->uvalues[u] += reading_scaled(x, run->o->no_scale);
			sc->uenabled[u] += x->enabled;
			sc->urunning[u] += x->running;
		}
	}
	return 0;
}

int counters_aggregate(struct stat_run *run, struct reading **per, const size_t *per_n,
		       struct stat_unit **topo, size_t *nr_topo)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int *unit_of = NULL;
	int ret = 0;

	run->r.aggr = aggr_mode(run->o);
	run->r.cache_level = run->o->per_cache ? atoi(run->o->per_cache) : 0;
	*topo = NULL;
	*nr_topo = 0;
	if (run->t.cpus) {
		unit_of = calloc((size_t)(ncpu > 0 ? ncpu : 1), sizeof(int));
		ret = unit_of ? cpu_units(&run->t, &run->r, unit_of, topo, nr_topo) : -ENOMEM;
	} else if (run->r.aggr == AGGR_THREAD) {
		ret = thread_units(&run->t, &run->r);
	}
	if (!ret)
		ret = unit_sums(run, per, per_n, unit_of);
	free(unit_of);
	return ret;
}

int counters_probes_at_exec(struct stat_run *run, pid_t pid, struct err *err)
{
	uint64_t base;
	int ret = probes_exec_stopped(pid, &base, err);

	for (size_t i = 0; !ret && i < run->o->events.nr; i++) {
		struct counter *c = &run->c[i];
		struct perf_event_attr a;

		counter_attr(run, i, &a);       /* as opened: the kernel compares */
		for (size_t k = 0; !ret && k < c->nr_fds; k++)
			ret = probe_bp_move(c->fds[k].fd, c->ev, &a, base, !run->o->delay_ms, err);
	}
	probes_exec_release(pid, !ret);
	return ret;
}
