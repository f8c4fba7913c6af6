/* SPDX-License-Identifier: MIT */
/*
 * prep stat report: the readings of a counting file (prec stat record),
 * printed by the same printer as the live run (stat.c), with the output
 * options -x and -B to present them differently. A perf stat record file
 * (told by its magic) goes to stat_perf.c with the same options.
 */
#include "report/core/input.h"
#include "stat.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/opts.h"
#include "format/blocks.h"
#include "format/container.h"
#include "format/perfdata.h"
#include "stat_perf.h"


struct loaded {
	struct event_desc *ev;
	size_t nr_ev, cap_ev;
	struct stat_counter *c;
	int runs;
	struct metadata meta;
	struct count_reading *last;     /* the last run's readings */
	size_t nr_last;
	struct ival {                   /* -I: each interval's readings */
		struct count_reading *cr;
		size_t n;
	} *iv;
	size_t nr_iv, cap_iv;
};

static void report_warn(void *ctx, const struct container_problem *p)
{
	fprintf(stderr, "prep: warning: %s: %s\n", (const char *)ctx, p->msg);
}

static void perf_problem(void *ctx, const struct perfdata_problem *p)
{
	fprintf(stderr, "prep: warning: %s: %s\n", (const char *)ctx, p->msg);
}

static void perf_warn(void *ctx, const char *msg)
{
	fprintf(stderr, "prep: warning: %s: %s\n", (const char *)ctx, msg);
}

/* -i -: is standard input a perf.data stream (`perf stat record -o -`)?
 * Else it is read as prec.data (load_counts). */
static bool stdin_is_perf(void)
{
	const void *data;
	size_t len;

	return !input_stdin(&data, &len, NULL) && perfdata_magic(data, len);
}

/* A perf stat record file: what comes from the file and what the options
 * may change is perf stat report's (stat_perf.h). */
static int report_perf(const char *path, const struct stat_perf_opts *po, bool per_thread)
{
	struct perfdata_opts pdo = { perf_problem, (void *)path };
	struct stat_perf_opts o = *po;
	struct perfdata *pd = NULL;
	struct err err = { 0 };
	int ret;

	if (per_thread)
		fprintf(stderr, "prep: warning: --per-thread: a perf.data file is shown per thread "
			"when it was recorded so (perf stat report has no --per-thread)\n");
	if (input_is_stdin(path)) {
		const void *data;
		size_t len;

		ret = input_stdin(&data, &len, &err);
		if (!ret)
			ret = perfdata_open_mem(&pd, data, len, &pdo, &err);
	} else {
		ret = perfdata_open(&pd, path, &pdo, &err);
	}
	if (!ret) {
		o.warn = perf_warn;
		o.ctx = (void *)path;
		o.out = stdout;
		ret = stat_perf_report(pd, &o, &err);
		perfdata_close(pd);
		if (ret)
			err_prefix(&err, "'%s'", path);
	}
	if (ret) {
		fprintf(stderr, "prep: %s\n", err.msg);
		return 1;
	}
	return 0;
}

/* The counting file at path ("-": standard input); a sampling recording
 * is refused. */
static int open_counting(const char *path, struct container_reader **r, struct err *err)
{
	struct container_reader_opts ro = { .warn = report_warn, .ctx = (void *)path };
	int ret;

	if (input_is_stdin(path)) {
		const void *data;
		size_t len;

		ret = input_stdin(&data, &len, err);
		if (!ret)
			ret = container_reader_open_mem(r, data, len, &ro, err);
	} else {
		ret = container_reader_open(r, path, &ro, err);
	}
	if (ret)
		return ret;
	if (container_reader_header(*r)->kind != CONTAINER_KIND_COUNTS) {
		container_reader_close(*r);
		return err_set(err, -EINVAL, "%s is a sampling recording, not a counting one "
			       "(prec stat record): use prep report", path);
	}
	return 0;
}

/* The first walk: metadata and events, and how many COUNTS blocks come. */
static int read_events(struct container_reader *r, struct loaded *ld, uint64_t *nr_counts,
		       struct err *err)
{
	struct container_block b;
	int ret = 0, got;

	while ((got = container_reader_next(r, &b, err)) == 1 && !ret) {
		if (b.type == BLOCK_COUNTS) {
			(*nr_counts)++;
		} else if (b.type == BLOCK_METADATA) {
			ret = metadata_decode(&ld->meta, b.data, b.len, err);
		} else if (b.type == BLOCK_EVENT) {
			if (array_grow((void **)&ld->ev, &ld->cap_ev, ld->nr_ev + 1, sizeof(*ld->ev)))
				return err_set(err, -ENOMEM, "out of memory");
			ret = event_block_decode(b.data, b.len, &ld->ev[ld->nr_ev], err);
			if (!ret)
				ld->nr_ev++;
		}
	}
	return !ret && got < 0 ? got : ret;
}

/* The number of runs (checked against the blocks there are) sizes each
 * counter's arrays. */
static int counters_init(const char *path, struct loaded *ld, uint64_t nr_counts,
			 struct err *err)
{
	uint64_t runs = 1;

	metadata_get_u64(&ld->meta, META_STAT_RUNS, &runs);
	/* each run has a COUNTS block: a larger count is damage */
	if (runs < 1 || runs > 100000 || runs > (nr_counts ? nr_counts : 1))
		return err_set(err, -PREC_ECORRUPT, "%s: %" PRIu64 " runs recorded, %" PRIu64
			       " blocks of readings", path, runs, nr_counts);
	if (!ld->nr_ev)
		return err_set(err, -PREC_ECORRUPT, "%s: no events in the file", path);
	ld->runs = (int)runs;
	if (!(ld->c = calloc(ld->nr_ev, sizeof(*ld->c))))
		return err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < ld->nr_ev; i++) {
		struct stat_counter *c = &ld->c[i];

		c->name = ld->ev[i].name ? ld->ev[i].name : "unknown";
		c->type = ld->ev[i].attr.type;
		c->config = ld->ev[i].attr.config;
		c->supported = ld->ev[i].nr_ids > 0;
		c->values = calloc((size_t)runs, sizeof(double));
		c->enabled = calloc((size_t)runs, sizeof(uint64_t));
		c->running = calloc((size_t)runs, sizeof(uint64_t));
		if (!c->values || !c->enabled || !c->running)
			return err_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

/* Readings summed per counter into run k (not yet scaled). */
static void sum_readings(struct loaded *ld, const struct count_reading *cr, size_t n, int k)
{
	for (size_t i = 0; i < n; i++) {
		struct stat_counter *c;

		if (cr[i].event >= ld->nr_ev)
			continue;
		c = &ld->c[cr[i].event];
		c->supported = true;    /* it has readings: it was opened */
		c->values[k] += (double)cr[i].value;
		c->enabled[k] += cr[i].time_enabled;
		c->running[k] += cr[i].time_running;
	}
}

static void scale_values(struct stat_counter *c, int k)
{
	c->values[k] = stat_scaled(c->values[k], c->enabled[k], c->running[k]);
}

/* The second walk: the COUNTS blocks, -I intervals kept as they are and
 * each run's final readings summed; the last run's kept for regroup. */
static int read_runs(struct container_reader *r, struct loaded *ld, struct err *err)
{
	struct container_block b;
	int got, run = 0;

	container_reader_rewind(r);
	while ((got = container_reader_next(r, &b, err)) == 1) {
		struct count_reading *cr;
		size_t n;

		if (b.type != BLOCK_COUNTS)
			continue;
		if (run >= ld->runs)
			break;
		if (counts_decode(b.data, b.len, &cr, &n, NULL))
			continue;
		if (n && (cr[0].flags & COUNT_FLAG_INTERVAL)) {
			if (array_grow((void **)&ld->iv, &ld->cap_iv, ld->nr_iv + 1, sizeof(*ld->iv))) {
				free(cr);
				return err_set(err, -ENOMEM, "out of memory");
			}
			ld->iv[ld->nr_iv++] = (struct ival){ cr, n };
			continue;
		}
		sum_readings(ld, cr, n, run);
		free(ld->last);
		ld->last = cr;
		ld->nr_last = n;
		run++;
	}
	for (size_t i = 0; i < ld->nr_ev; i++)
		for (int k = 0; k < ld->runs; k++)
			scale_values(&ld->c[i], k);
	return 0;
}

static int load_counts(const char *path, struct loaded *ld, struct err *err)
{
	struct container_reader *r;
	uint64_t nr_counts = 0;
	int ret = open_counting(path, &r, err);

	if (ret)
		return ret;
	ret = read_events(r, ld, &nr_counts, err);
	if (!ret)
		ret = counters_init(path, ld, nr_counts, err);
	if (!ret)
		ret = read_runs(r, ld, err);
	container_reader_close(r);
	return ret;
}

static void loaded_free(struct loaded *ld)
{
	for (size_t i = 0; i < ld->nr_iv; i++)
		free(ld->iv[i].cr);
	free(ld->iv);
	free(ld->last);
	for (size_t i = 0; ld->c && i < ld->nr_ev; i++) {
		free(ld->c[i].uvalues);
		free(ld->c[i].uenabled);
		free(ld->c[i].urunning);
		free(ld->c[i].values);
		free(ld->c[i].enabled);
		free(ld->c[i].running);
	}
	for (size_t i = 0; i < ld->nr_ev; i++)
		event_desc_free(&ld->ev[i]);
	free(ld->ev);
	free(ld->c);
	metadata_free(&ld->meta);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* CPU c's cluster and cache ids from the file (FORMAT.md,
 * stat_topology_more); none (-1) in files without them. */
static void stat_cpu_more_from_file(const struct metadata *m, size_t c, struct stat_unit *u)
{
	const struct meta_item *more = metadata_get(m, META_STAT_TOPOLOGY_MORE);
	size_t per = 1 + STAT_CACHE_LEVELS, at = 4 * (1 + per * c);

	for (int l = 0; l < STAT_CACHE_LEVELS; l++)
		u->cache_id[l] = -1;
	if (!more || more->len < at + 4 * per)
		return;
	u->cluster = (int)le32(more->value + at);
	for (int l = 0; l < STAT_CACHE_LEVELS; l++)
		u->cache_id[l] = (int)le32(more->value + at + 4 + 4 * (size_t)l);
}

/* --per-cache: the level the live run aggregated, 0 the highest. */
static int file_cache_level(const struct metadata *m)
{
	const struct meta_item *more = metadata_get(m, META_STAT_TOPOLOGY_MORE);

	return more && more->len >= 4 ? (int)le32(more->value) : 0;
}

/* --per-thread: the units are the threads the file names ("TID:COMM"). */
static int thread_units(const struct loaded *ld, struct stat_result *r, struct err *err)
{
	const struct meta_item *thr = metadata_get(&ld->meta, META_STAT_THREADS);
	size_t n = 0;

	for (uint32_t i = 0; thr && i < thr->len; i++)
		n += !thr->value[i];
	if (!n)
		return err_set(err, -EINVAL, "the file has no per-thread readings (record with -p or -t)");
	r->units = calloc(n, sizeof(*r->units));
	if (!r->units)
		return err_set(err, -ENOMEM, "out of memory");
	for (const char *p = (const char *)thr->value; r->nr_units < n; p += strlen(p) + 1) {
		struct stat_unit *u = &r->units[r->nr_units++];
		const char *colon = strchr(p, ':');

		u->tid = atoi(p);
		snprintf(u->comm, sizeof(u->comm), "%s", colon ? colon + 1 : p);
	}
	return 0;
}

/* The CPUs that were counted (those with readings), in order, with the
 * topology the file keeps of each; their units, each CPU's into unit_of. */
static int cpu_units(const struct loaded *ld, enum stat_aggr aggr, const struct meta_item *topo,
		     struct stat_result *r, int *unit_of, struct err *err)
{
	size_t ncpu = topo->len / 16, nseen = 0;
	struct stat_unit *cpus = calloc(ncpu, sizeof(*cpus));
	int *seen = calloc(ncpu, sizeof(int)), *uk = NULL;
	int ret = -ENOMEM;

	if (!cpus || !seen)
		goto out;
	for (size_t c = 0; c < ncpu; c++)
		for (size_t k = 0; k < ld->nr_last; k++)
			if (ld->last[k].cpu == (int32_t)c) {
				const uint8_t *t = topo->value + 16 * c;

				cpus[nseen] = (struct stat_unit){ .cpu = (int)c, .socket = (int)le32(t),
								  .die = (int)le32(t + 4),
								  .core = (int)le32(t + 8),
								  .node = (int)le32(t + 12), .nr = 1 };
				stat_cpu_more_from_file(&ld->meta, c, &cpus[nseen]);
				seen[nseen++] = (int)c;
				break;
			}
	if (aggr == AGGR_CACHE && !stat_set_cache_level(cpus, nseen, r->cache_level)) {
		ret = -EINVAL;
		goto out;
	}
	uk = calloc(nseen + 1, sizeof(int));
	if (!uk || stat_units_for_cpus(aggr, cpus, nseen, &r->units, &r->nr_units, uk))
		goto out;
	for (size_t k = 0; k < nseen; k++)
		unit_of[seen[k]] = uk[k];
	ret = 0;
out:
	free(cpus);
	free(seen);
	free(uk);
	if (ret == -EINVAL)
		return err_set(err, ret, "the file has no cache ids%s (recorded by an older prec, "
			       "or the machine has none)", r->cache_level ? " of that level" : "");
	return ret ? err_set(err, ret, "out of memory") : 0;
}

/* Each counter's last-run readings summed into their units. */
static int unit_sums(struct loaded *ld, enum stat_aggr aggr, struct stat_result *r,
		     const int *unit_of, size_t ncpu, struct err *err)
{
	for (size_t i = 0; i < ld->nr_ev; i++) {
		struct stat_counter *c = &ld->c[i];

		c->uvalues = calloc(r->nr_units, sizeof(double));
		c->uenabled = calloc(r->nr_units, sizeof(uint64_t));
		c->urunning = calloc(r->nr_units, sizeof(uint64_t));
		if (!c->uvalues || !c->uenabled || !c->urunning)
			return err_set(err, -ENOMEM, "out of memory");
	}
	for (size_t k = 0; k < ld->nr_last; k++) {
		const struct count_reading *x = &ld->last[k];
		struct stat_counter *c;
		size_t u = 0;

		if (x->event >= ld->nr_ev)
			continue;
		c = &ld->c[x->event];
		if (aggr == AGGR_THREAD) {
			while (u < r->nr_units && r->units[u].tid != x->tid)
				u++;
			if (u == r->nr_units)
				continue;
		} else {
			if (x->cpu < 0 || (size_t)x->cpu >= ncpu)
				continue;
			u = (size_t)unit_of[x->cpu];
		}
		c->uvalues[u] += stat_scaled((double)x->value, x->time_enabled, x->time_running);
		c->uenabled[u] += x->time_enabled;
		c->urunning[u] += x->time_running;
	}
	return 0;
}

/* Units of the recorded readings for the aggregation asked (the CPUs'
 * topology and the threads' names come from the file), and each counter's
 * last-run values per unit. A report of -I intervals regroups each
 * interval: the units are the same. */
static int regroup(struct loaded *ld, enum stat_aggr aggr, struct stat_result *r, struct err *err)
{
	const struct meta_item *topo = metadata_get(&ld->meta, META_STAT_TOPOLOGY);
	size_t ncpu = topo ? topo->len / 16 : 0;
	int *unit_of = NULL;
	int ret;

	r->aggr = aggr;
	if (aggr == AGGR_GLOBAL)
		return 0;
	if (aggr == AGGR_THREAD) {
		ret = thread_units(ld, r, err);
	} else if (!ncpu) {
		return err_set(err, -EINVAL, "the file has no per-CPU readings (record with -a or -C)");
	} else {
		unit_of = calloc(ncpu, sizeof(int));
		ret = unit_of ? cpu_units(ld, aggr, topo, r, unit_of, err) :
		      err_set(err, -ENOMEM, "out of memory");
	}
	if (!ret)
		ret = unit_sums(ld, aggr, r, unit_of, ncpu, err);
	free(unit_of);
	return ret;
}

/* -I recordings: each interval as the live run printed it. */
static void print_intervals(struct loaded *ld, struct stat_result *r, struct stat_print_opts *po)
{
	struct count_reading *last = ld->last;
	size_t nr_last = ld->nr_last;
	uint64_t prev_ns = 0;
	struct err err = { 0 };
	struct total { double value; uint64_t enabled, running; };
	struct total *keep = calloc(ld->nr_ev + 1, sizeof(*keep));
	double el0 = r->elapsed_s[0];

	/* the totals, for --summary after the intervals */
	for (size_t e = 0; keep && e < ld->nr_ev; e++)
		keep[e] = (struct total){ ld->c[e].values[0], ld->c[e].enabled[0],
					  ld->c[e].running[0] };

	for (size_t i = 0; i < ld->nr_iv; i++) {
		const struct ival *g = &ld->iv[i];
		uint64_t at = g->cr[0].time_ns;

		if (i % STAT_HEADER_EVERY == 0 && po->metric_only)
			stat_print_metric_only_header(stdout, r, po);
		else if (i % STAT_HEADER_EVERY == 0)
			stat_print_interval_header(stdout, r->aggr, po);

		for (size_t e = 0; e < ld->nr_ev; e++) {
			struct stat_counter *c = &ld->c[e];

			c->values[0] = 0;
			c->enabled[0] = c->running[0] = 0;
		}
		for (size_t k = 0; k < g->n; k++) {
			const struct count_reading *x = &g->cr[k];
			struct stat_counter *c;

			if (x->event >= ld->nr_ev)
				continue;
			c = &ld->c[x->event];
			c->values[0] += (double)x->value;
			c->enabled[0] += x->time_enabled;
			c->running[0] += x->time_running;
		}
		for (size_t e = 0; e < ld->nr_ev; e++)
			scale_values(&ld->c[e], 0);
		/* the units of this interval */
		if (r->aggr != AGGR_GLOBAL) {
			enum stat_aggr aggr = r->aggr;

			stat_units_free(r, ld->c, ld->nr_ev);
			ld->last = g->cr;
			ld->nr_last = g->n;
			if (regroup(ld, aggr, r, &err))
				break;
		}
		r->elapsed_s[0] = (double)(at - prev_ns) / 1e9;
		po->interval = (double)at / 1e9;
		stat_print(stdout, r, po);
		prev_ns = at;
	}
	po->interval = -1;
	ld->last = last;
	ld->nr_last = nr_last;
	for (size_t e = 0; keep && e < ld->nr_ev; e++) {
		ld->c[e].values[0] = keep[e].value;
		ld->c[e].enabled[0] = keep[e].enabled;
		ld->c[e].running[0] = keep[e].running;
	}
	r->elapsed_s[0] = el0;
	free(keep);
	if (r->aggr != AGGR_GLOBAL) {
		stat_units_free(r, ld->c, ld->nr_ev);
		regroup(ld, r->aggr, r, &err);
	}
}

/* prep stat report's command line. */
struct stat_report_opts {
	const char *input, *sep;
	bool big, no_big, help, json, summary, no_csv_summary;
	bool no_aggr, per_socket, per_die, per_core, per_node, per_thread;
	bool per_cluster;
	const char *per_cache;          /* --per-cache[=LEVEL]: "" for the highest */
};

static int cb_per_cache(const struct opt *opt, const char *arg, struct err *err)
{
	struct stat_report_opts *o = opt->dest;

	if (arg && *arg && ((*arg != 'L' && *arg != 'l') || atoi(arg + 1) < 1))
		return err_set(err, -EINVAL, "--per-cache '%s': not a cache level (L1, L2, L3 ...)",
			       arg);
	o->per_cache = arg && *arg ? arg + 1 : "";
	return 0;
}

/* -A, --per-*, or the aggregation the file was recorded with. */
static enum stat_aggr aggr_asked(const struct stat_report_opts *o, const struct metadata *m)
{
	uint64_t a = AGGR_GLOBAL;

	metadata_get_u64(m, META_STAT_AGGR, &a);
	return o->no_aggr ? AGGR_NONE : o->per_socket ? AGGR_SOCKET : o->per_die ? AGGR_DIE :
	       o->per_core ? AGGR_CORE : o->per_node ? AGGR_NODE : o->per_thread ? AGGR_THREAD :
	       o->per_cluster ? AGGR_CLUSTER : o->per_cache ? AGGR_CACHE :
	       a <= AGGR_CACHE ? (enum stat_aggr)a : AGGR_GLOBAL;
}

/* Each run's wall-clock time, and the heading's times and target. */
static void read_times(const struct loaded *ld, double *elapsed, struct stat_result *r)
{
	const struct meta_item *el = metadata_get(&ld->meta, META_STAT_ELAPSED_NS);
	uint64_t user = 0, sys = 0;

	for (int i = 0; el && i < ld->runs && (size_t)(8 * i + 8) <= el->len; i++) {
		uint64_t ns = 0;

		for (int k = 0; k < 8; k++)
			ns |= (uint64_t)el->value[8 * i + k] << (8 * k);
		elapsed[i] = (double)ns / 1e9;
	}
	r->show_times = metadata_get_u64(&ld->meta, META_STAT_USER_NS, &user) &&
			metadata_get_u64(&ld->meta, META_STAT_SYS_NS, &sys) && ld->runs == 1;
	r->user_s = (double)user / 1e9;
	r->sys_s = (double)sys / 1e9;
	r->target = metadata_get_str(&ld->meta, META_STAT_TARGET);
}

/* -G / --for-each-cgroup (FORMAT.md tag 31): each event's cgroup. */
static void read_cgroups(struct loaded *ld, struct stat_result *r)
{
	const struct meta_item *cg = metadata_get(&ld->meta, META_STAT_CGROUPS);
	const char *p;

	if (!cg)
		return;
	r->show_cgroup = true;
	p = (const char *)cg->value;
	for (size_t i = 0; i < ld->nr_ev && p < (const char *)cg->value + cg->len; i++) {
		ld->c[i].cgroup = *p ? p : NULL;
		p += strlen(p) + 1;
	}
}

/* A counting prec.data file: as prec stat printed it. */
static int report_counts(const struct stat_report_opts *o)
{
	struct loaded ld = { 0 };
	struct stat_result r = { 0 };
	struct stat_print_opts po = { .interval = -1, .sep = o->sep, .json = o->json,
				      .big_num = o->big && !o->no_big };
	struct err err = { 0 };
	double *elapsed = NULL;
	uint64_t layout = 0;    /* --table, --metric-only of the live run */
	int ret = load_counts(o->input, &ld, &err);

	if (!ret && !(elapsed = calloc((size_t)ld.runs, sizeof(double))))
		ret = err_set(&err, -ENOMEM, "out of memory");
	if (!ret) {
		read_times(&ld, elapsed, &r);
		metadata_get_u64(&ld.meta, META_STAT_LAYOUT, &layout);
		po.table = layout & 1;
		po.metric_only = layout & 2;
		r.cache_level = o->per_cache && *o->per_cache ? atoi(o->per_cache) :
				 file_cache_level(&ld.meta);
		read_cgroups(&ld, &r);
		ret = regroup(&ld, aggr_asked(o, &ld.meta), &r, &err);
	}
	if (ret) {
		fprintf(stderr, "prep: %s\n", err.msg);
	} else {
		r.c = ld.c;
		r.nr = ld.nr_ev;
		r.runs = ld.runs;
		r.elapsed_s = elapsed;
		if (ld.nr_iv)
			print_intervals(&ld, &r, &po);
		if (!ld.nr_iv || o->summary) {
			po.summary = ld.nr_iv && (o->sep || o->json) && !o->no_csv_summary;
			stat_print(stdout, &r, &po);
		}
	}
	free(r.units);
	free(elapsed);
	loaded_free(&ld);
	return ret ? 1 : 0;
}

/* A perf.data file (perf stat record): its own report, with the options
 * that apply. */
static int report_perf_file(const struct stat_report_opts *o)
{
	struct stat_perf_opts spo = {
		.sep = o->sep, .json = o->json, .big_num = !o->no_big && !o->sep && !o->json,
		.aggr_set = o->no_aggr || o->per_socket || o->per_die || o->per_core || o->per_node,
		.aggr = o->no_aggr ? AGGR_NONE : o->per_socket ? AGGR_SOCKET : o->per_die ? AGGR_DIE :
			o->per_core ? AGGR_CORE : AGGR_NODE,
	};

	if (o->per_cluster || o->per_cache) {
		fprintf(stderr, "prep stat report: %s: perf's files keep no cluster or cache ids "
			"(prec stat record's do)\n", o->per_cluster ? "--per-cluster" : "--per-cache");
		return 129;
	}
	return report_perf(o->input, &spo, o->per_thread);
}

int cmd_stat_report(int argc, char **argv)
{
	struct stat_report_opts o = { .input = "prec.data" };
	const struct opt table[] = {
		OPTION_STRING('i', "input", &o.input, "file",
			      "counting file (default prec.data; perf.data files too, - for a perf pipe)"),
		OPTION_STRING('x', "field-separator", &o.sep, "sep", "CSV output with this separator"),
		OPTION_FLAG('j', "json-output", &o.json, "one JSON object per counter"),
		OPTION_FLAG(0, "summary", &o.summary, "after -I intervals, the totals too"),
		OPTION_FLAG(0, "no-csv-summary", &o.no_csv_summary, "with --summary -x: no 'summary' field"),
		OPTION_FLAG('B', "big-num", &o.big, "thousands separators in counts"),
		OPTION_FLAG(0, "no-big-num", &o.no_big, "no thousands separators"),
		OPTION_FLAG('A', "no-aggr", &o.no_aggr, "one line per CPU"),
		OPTION_FLAG(0, "per-socket", &o.per_socket, "one line per socket"),
		OPTION_FLAG(0, "per-die", &o.per_die, "one line per die"),
		OPTION_FLAG(0, "per-core", &o.per_core, "one line per core"),
		OPTION_FLAG(0, "per-node", &o.per_node, "one line per NUMA node"),
		OPTION_FLAG(0, "per-thread", &o.per_thread, "one line per thread"),
		OPTION_FLAG(0, "per-cluster", &o.per_cluster, "one line per CPU cluster"),
		{ .type = OPT_LIST, .long_name = "per-cache", .dest = &o, .argname = "level",
		  .help = "one line per cache instance (L1, L2 ...; default: the level recorded, else the highest)",
		  .flags = OPT_OPTARG, .cb = cb_per_cache },
		OPTION_FLAG('h', "help", &o.help, "show this help"),
		OPTION_END,
	};
	struct err err = { 0 };
	int first = opts_parse(table, argc, argv, &err);

	if (first < 0 || first < argc) {
		fprintf(stderr, "prep stat report: %s\n", first < 0 ? err.msg : "unexpected argument");
		opts_usage(stderr, "prep stat report [-i FILE] [-x SEP]", table);
		return 129;
	}
	if (o.help) {
		opts_usage(stdout, "prep stat report [-i FILE] [-x SEP]", table);
		return 0;
	}
	if (o.sep && !*o.sep) {
		fprintf(stderr, "prep stat report: -x '': the separator is empty\n");
		return 129;
	}
	if (input_is_stdin(o.input) ? stdin_is_perf() : perfdata_probe(o.input) == 1)
		return report_perf_file(&o);
	return report_counts(&o);
}
