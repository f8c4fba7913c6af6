/* SPDX-License-Identifier: MIT */
/*
 * prep stat report on perf stat record files (stat_perf.h): perf's records
 * replayed in file order as perf 6.1's `perf stat report` processes them.
 *
 * A STAT record holds a counter's total so far for one (event, CPU, thread);
 * a STAT_ROUND prints what changed since the round before:
 *   - without aggregation the totals are summed over CPUs and threads first,
 *     else each (CPU, thread) has its own difference (evsel__compute_deltas);
 *   - a difference is scaled by enabled/running to a whole count unless the
 *     run was recorded with --no-scale (perf_counts_values__scale);
 *   - per CPU (-A) a CPU's first thread is shown; per thread the CPUs are
 *     summed; per socket, die, core or node the unit's CPUs are summed, and
 *     one CPU that did not count makes the unit not counted;
 *   - the metrics divide by perf's runtime stats: the means of the clocks'
 *     time, cycles, ... over every round read so far (the report never
 *     resets them, unlike the live run), per CPU, thread or unit; the wall
 *     time is the mean of the final rounds' times (none for -I files: the
 *     `CPUs utilized` column is then empty, as in perf's report).
 */
#include "stat_perf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/blocks.h"
#include "format/perfstat.h"

/* the most (event, CPU, thread) readings kept: 16 M of memory per array */
#define SLOTS_MAX (1u << 20)

struct slot {
	uint64_t val, ena, run;
};

struct idmap {
	uint64_t id;
	size_t ev;
};

struct pstat {
	struct perfdata *pd;
	const struct stat_perf_opts *o;
	size_t nev;
	struct stat_counter *c;
	double *val;                    /* each counter's one run: values[0] ... */
	uint64_t *ena, *run;
	char **unit_names;              /* from EVENT_UPDATE, owned */
	struct idmap *ids;              /* sorted by id */
	size_t nids;
	int *cpus;                      /* the CPU map */
	size_t ncpu;
	struct perfstat_thread *thr;    /* the thread map */
	size_t nthr;
	struct slot *cur, *prev, *delta;        /* [event][cpu][thread] */
	struct slot *prev_aggr;                 /* [event], without aggregation */
	struct perfstat_config cfg;
	bool have_cfg;
	enum stat_aggr aggr;
	bool ready;                     /* maps, aggregation and units set up */
	struct stat_unit *un;
	size_t nun;
	int *unit_of;                   /* per CPU index (socket, die, core, node) */
	struct stat_refs *refs;         /* max(1, nun) */
	unsigned printed;               /* interval rounds printed */
	uint64_t counting, rounds;      /* STAT_CONFIG, STAT, STAT_ROUND; STAT_ROUNDs */
	char *cmd;
	uint64_t off;                   /* of the record being read */
};

static void warn(struct pstat *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(struct pstat *s, const char *fmt, ...)
{
	char buf[ERR_MSG_MAX];
	va_list ap;

	if (!s->o->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	s->o->warn(s->o->ctx, buf);
}

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = ((const struct idmap *)a)->id, y = ((const struct idmap *)b)->id;

	return (x > y) - (x < y);
}

/* The counters of the file's events, and their ids sorted for lookups. */
static int init_events(struct pstat *s, struct err *err)
{
	const struct event_desc *ev = perfdata_events(s->pd, &s->nev);
	size_t n = 0;

	s->c = calloc(s->nev + 1, sizeof(*s->c));
	s->val = calloc(s->nev + 1, sizeof(*s->val));
	s->ena = calloc(s->nev + 1, sizeof(*s->ena));
	s->run = calloc(s->nev + 1, sizeof(*s->run));
	s->unit_names = calloc(s->nev + 1, sizeof(*s->unit_names));
	for (size_t i = 0; i < s->nev; i++)
		n += ev[i].nr_ids;
	s->ids = calloc(n + 1, sizeof(*s->ids));
	if (!s->c || !s->val || !s->ena || !s->run || !s->unit_names || !s->ids)
		return err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < s->nev; i++) {
		struct stat_counter *c = &s->c[i];

		c->name = ev[i].name ? ev[i].name : "unknown";
		c->type = ev[i].attr.type;
		c->config = ev[i].attr.config;
		c->values = &s->val[i];
		c->enabled = &s->ena[i];
		c->running = &s->run[i];
		for (size_t k = 0; k < ev[i].nr_ids; k++)
			s->ids[s->nids++] = (struct idmap){ ev[i].ids[k].id, i };
	}
	qsort(s->ids, s->nids, sizeof(*s->ids), cmp_id);
	return 0;
}

/* The heading's command line: perf's, joined by spaces. */
static int init_cmd(struct pstat *s, struct err *err)
{
	const struct meta_item *it = metadata_get(perfdata_meta(s->pd), META_CMDLINE);

	if (!it || !it->len)
		return 0;
	s->cmd = malloc(it->len + 1);
	if (!s->cmd)
		return err_set(err, -ENOMEM, "out of memory");
	memcpy(s->cmd, it->value, it->len);
	s->cmd[it->len] = 0;
	/* NUL-separated arguments; the last NUL ends the string */
	for (uint32_t i = 0; i + 1 < it->len; i++)
		if (!s->cmd[i])
			s->cmd[i] = ' ';
	return 0;
}

/* ---- maps, aggregation, units ------------------------------------------ */

static struct slot *slot_at(struct slot *a, const struct pstat *s, size_t e, size_t ci, size_t t)
{
	return &a[(e * s->ncpu + ci) * s->nthr + t];
}

/* perf's numbering of aggregation modes (6.1, see perfstat.h) to ours. */
static enum stat_aggr aggr_of(struct pstat *s)
{
	const char *version = metadata_get_str(perfdata_meta(s->pd), META_WRITER);
	unsigned m;

	if (!s->have_cfg || !s->cfg.has_aggr)
		return AGGR_GLOBAL;
	m = perfstat_aggr_mode(s->cfg.aggr, version, s->cfg.has_level);
	switch (m) {
	case 0: return AGGR_NONE;
	case 1: return AGGR_GLOBAL;
	case 2: return AGGR_SOCKET;
	case 3: return AGGR_DIE;
	case 4: return AGGR_CORE;
	case 5: return AGGR_THREAD;
	case 7: return AGGR_NODE;
	}
	warn(s, "aggregation mode %" PRIu64 " of the file is not one this version shows: "
	     "counts are summed", s->cfg.aggr);
	return AGGR_GLOBAL;
}

/* The units of a per-socket, die, core or node mode, from the CPUs'
 * topology: the file's, or this machine's for a pipe-mode file (as perf,
 * which then knows no node: N-1). */
static int cpu_units(struct pstat *s)
{
	struct perfstat_cpu_topo *ft = NULL;
	size_t nft = 0;
	struct stat_unit *topo;
	long here = sysconf(_SC_NPROCESSORS_CONF);
	bool pipe = perfdata_info(s->pd)->pipe;
	int ret = 0;

	topo = calloc(s->ncpu, sizeof(*topo));
	s->unit_of = calloc(s->ncpu, sizeof(*s->unit_of));
	if (!topo || !s->unit_of) {
		free(topo);
		return -ENOMEM;
	}
	if (!pipe && perfstat_topology(s->pd, &ft, &nft) < 0)
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < s->ncpu; i++) {
		int cpu = s->cpus[i];
		struct stat_unit *u = &topo[i];

		*u = (struct stat_unit){ cpu, -1, -1, -1, -1, 1, 0, "", 0, { -1, -1, -1, -1 }, 0 };
		if (pipe && cpu >= 0 && cpu < here) {
			stat_read_cpu_topology(u, cpu);
			u->node = -1;   /* perf's report has no NUMA map for a pipe */
		} else if (!pipe && cpu >= 0 && (size_t)cpu < nft) {
			u->socket = ft[cpu].socket;
			u->die = ft[cpu].die;
			u->core = ft[cpu].core;
			u->node = ft[cpu].node;
		}
	}
	if (!ret && stat_units_for_cpus(s->aggr, topo, s->ncpu, &s->un, &s->nun, s->unit_of))
		ret = -ENOMEM;
	free(ft);
	free(topo);
	return ret;
}

static bool task_data(const struct pstat *s)
{
	return !s->ncpu || s->cpus[0] == -1;
}

/* Before the first reading: the maps (one CPU -1 and one thread when the
 * file has none), the readings' arrays, the aggregation and its units. */
static int set_up(struct pstat *s, struct err *err)
{
	size_t n;

	if (s->ready)
		return 0;
	if (!s->cpus) {
		warn(s, "no CPU_MAP record before the readings: taken as no CPU in particular");
		if (!(s->cpus = malloc(sizeof(*s->cpus))))
			return err_set(err, -ENOMEM, "out of memory");
		s->cpus[0] = -1;
		s->ncpu = 1;
	}
	if (!s->thr) {
		warn(s, "no THREAD_MAP record before the readings: taken as one thread");
		if (!(s->thr = calloc(1, sizeof(*s->thr))))
			return err_set(err, -ENOMEM, "out of memory");
		s->thr[0].pid = -1;
		s->nthr = 1;
	}
	if (s->nev && (s->ncpu > SLOTS_MAX / s->nthr || s->nev > SLOTS_MAX / (s->ncpu * s->nthr)))
		return err_set(err, -PREC_ELIMIT, "%zu events on %zu CPUs and %zu threads: more "
			       "than %u readings a round", s->nev, s->ncpu, s->nthr, SLOTS_MAX);
	n = s->nev * s->ncpu * s->nthr + 1;
	s->cur = calloc(n, sizeof(*s->cur));
	s->prev = calloc(n, sizeof(*s->prev));
	s->delta = calloc(n, sizeof(*s->delta));
	s->prev_aggr = calloc(s->nev + 1, sizeof(*s->prev_aggr));
	if (!s->cur || !s->prev || !s->delta || !s->prev_aggr)
		return err_set(err, -ENOMEM, "out of memory");

	s->aggr = aggr_of(s);
	if (s->o->aggr_set) {
		if (task_data(s))
			warn(s, "processing task data, aggregation mode not set");
		else
			s->aggr = s->o->aggr;
	}
	if (s->aggr == AGGR_THREAD) {
		if (!(s->un = calloc(s->nthr, sizeof(*s->un))))
			return err_set(err, -ENOMEM, "out of memory");
		for (size_t t = 0; t < s->nthr; t++) {
			s->un[t] = (struct stat_unit){ -1, -1, -1, -1, -1, 1, s->thr[t].pid, "", 0, { -1, -1, -1, -1 }, 0 };
			snprintf(s->un[t].comm, sizeof(s->un[t].comm), "%s", s->thr[t].comm);
		}
		s->nun = s->nthr;
	} else if (s->aggr == AGGR_NONE) {
		if (!(s->un = calloc(s->ncpu, sizeof(*s->un))))
			return err_set(err, -ENOMEM, "out of memory");
		for (size_t i = 0; i < s->ncpu; i++)
			s->un[i] = (struct stat_unit){ s->cpus[i], -1, -1, -1, -1, 1, 0, "", 0, { -1, -1, -1, -1 }, 0 };
		s->nun = s->ncpu;
	} else if (s->aggr != AGGR_GLOBAL && cpu_units(s)) {
		return err_set(err, -ENOMEM, "out of memory");
	}
	s->refs = calloc(s->nun ? s->nun : 1, sizeof(*s->refs));
	if (!s->refs)
		return err_set(err, -ENOMEM, "out of memory");
	for (size_t e = 0; s->nun && e < s->nev; e++) {
		struct stat_counter *c = &s->c[e];

		c->uvalues = calloc(s->nun, sizeof(*c->uvalues));
		c->uenabled = calloc(s->nun, sizeof(*c->uenabled));
		c->urunning = calloc(s->nun, sizeof(*c->urunning));
		if (!c->uvalues || !c->uenabled || !c->urunning)
			return err_set(err, -ENOMEM, "out of memory");
	}
	s->ready = true;
	return 0;
}

/* ---- records ------------------------------------------------------------- */

static void event_update(struct pstat *s, const uint8_t *p, size_t len)
{
	struct perfstat_update u;
	struct err e = { 0 };
	struct idmap key, *m;

	if (perfstat_update_decode(p, len, &u, &e)) {
		warn(s, "EVENT_UPDATE record at offset %" PRIu64 ": %s: ignored", s->off, e.msg);
		return;
	}
	key.id = u.id;
	m = bsearch(&key, s->ids, s->nids, sizeof(*s->ids), cmp_id);
	if (m && u.type == PERFSTAT_UPDATE_UNIT && u.text) {
		free(s->unit_names[m->ev]);
		s->unit_names[m->ev] = u.text;
		s->c[m->ev].unit = u.text;
		u.text = NULL;
	} else if (m && u.type == PERFSTAT_UPDATE_SCALE) {
		s->c[m->ev].scale = u.scale;
	}
	free(u.text);
}

static void thread_map(struct pstat *s, const uint8_t *p, size_t len)
{
	struct err e = { 0 };

	if (s->thr) {
		warn(s, "THREAD_MAP record at offset %" PRIu64 ": a second thread map: ignored", s->off);
		return;
	}
	if (perfstat_threads_decode(p, len, &s->thr, &s->nthr, &e))
		warn(s, "THREAD_MAP record at offset %" PRIu64 ": %s: ignored", s->off, e.msg);
}

static void cpu_map(struct pstat *s, const uint8_t *p, size_t len)
{
	struct err e = { 0 };

	if (s->cpus) {
		warn(s, "CPU_MAP record at offset %" PRIu64 ": a second CPU map: ignored", s->off);
		return;
	}
	if (perfstat_cpus_decode(p, len, &s->cpus, &s->ncpu, &e))
		warn(s, "CPU_MAP record at offset %" PRIu64 ": %s: ignored", s->off, e.msg);
}

static void stat_config(struct pstat *s, const uint8_t *p, size_t len)
{
	struct err e = { 0 };
	struct perfstat_config cfg;

	if (perfstat_config_decode(p, len, &cfg, &e)) {
		warn(s, "STAT_CONFIG record at offset %" PRIu64 ": %s: ignored", s->off, e.msg);
		return;
	}
	if (s->ready) {
		warn(s, "STAT_CONFIG record at offset %" PRIu64 " after the first reading: ignored",
		     s->off);
		return;
	}
	if (cfg.unknown_tags)
		warn(s, "STAT_CONFIG record at offset %" PRIu64 ": %" PRIu64 " entries of unknown "
		     "tags: ignored", s->off, cfg.unknown_tags);
	s->cfg = cfg;
	s->have_cfg = true;
}

static int stat_value(struct pstat *s, const uint8_t *p, size_t len, struct err *err)
{
	struct perfstat_value v;
	struct err e = { 0 };
	struct idmap key, *m;
	size_t ci;
	int ret;

	if (perfstat_value_decode(p, len, &v, &e)) {
		warn(s, "STAT record at offset %" PRIu64 ": %s: ignored", s->off, e.msg);
		return 0;
	}
	if ((ret = set_up(s, err)))
		return ret;
	key.id = v.id;
	m = bsearch(&key, s->ids, s->nids, sizeof(*s->ids), cmp_id);
	if (!m) {
		warn(s, "STAT record at offset %" PRIu64 ": id %" PRIu64 " is no event's: ignored",
		     s->off, v.id);
		return 0;
	}
	for (ci = 0; ci < s->ncpu && s->cpus[ci] != v.cpu; ci++)
		;
	if (ci == s->ncpu) {
		warn(s, "STAT record at offset %" PRIu64 ": CPU %d of %s is not in the CPU map: "
		     "ignored", s->off, v.cpu, s->c[m->ev].name);
		return 0;
	}
	if (v.thread >= s->nthr) {
		warn(s, "STAT record at offset %" PRIu64 ": thread %u of %s is not in the thread "
		     "map (%zu threads): ignored", s->off, v.thread, s->c[m->ev].name, s->nthr);
		return 0;
	}
	*slot_at(s->cur, s, m->ev, ci, v.thread) = (struct slot){ v.val, v.ena, v.run };
	s->c[m->ev].supported = true;
	return 0;
}

/* ---- rounds ---------------------------------------------------------------- */

/* A double as a count: perf converts without a check; a value a damaged
 * file makes too large (or not a number) is held to the range here. */
static uint64_t to_u64(double v)
{
	if (v >= 18446744073709551616.0)
		return UINT64_MAX;
	return v > 0 ? (uint64_t)v : 0;
}

static void scale(struct slot *d, bool on)
{
	if (!on)
		return;
	if (!d->run)
		d->val = 0;
	else if (d->run < d->ena)
		d->val = to_u64((double)d->val * (double)d->ena / (double)d->run);
}

/* perf_stat__update_shadow_stats: the clocks in ns, the rest times the
 * event's scale (to a whole number, as perf). */
static void ref_update(struct pstat *s, size_t idx, size_t e, uint64_t v)
{
	const struct stat_counter *c = &s->c[e];
	enum stat_ref k = stat_ref_of(c->type, c->config);

	if (k == STAT_REFS)
		return;
	if (k != STAT_REF_NSECS)
		v = to_u64((double)v * (c->scale != 0 ? c->scale : 1.0));
	stat_refs_update(&s->refs[idx], k, v);
}

static struct slot diff(const struct slot *now, const struct slot *before)
{
	return (struct slot){ now->val - before->val, now->ena - before->ena,
			      now->run - before->run };
}

/* Without aggregation: the sum over CPUs and threads, then its difference. */
static void count_global(struct pstat *s, size_t e, bool on)
{
	struct slot sum = { 0 }, d;

	for (size_t ci = 0; ci < s->ncpu; ci++)
		for (size_t t = 0; t < s->nthr; t++) {
			const struct slot *x = slot_at(s->cur, s, e, ci, t);

			sum.val += x->val;
			sum.ena += x->ena;
			sum.run += x->run;
		}
	d = diff(&sum, &s->prev_aggr[e]);
	s->prev_aggr[e] = sum;
	scale(&d, on);
	s->val[e] = (double)d.val;
	s->ena[e] = d.ena;
	s->run[e] = d.run;
	ref_update(s, 0, e, d.val);
}

/* A unit of CPUs: the sum of their first threads; one that did not count
 * makes the unit not counted ("consistent output in interval mode"). */
static void count_cpu_unit(struct pstat *s, size_t e, size_t u)
{
	struct stat_counter *c = &s->c[e];
	uint64_t val = 0, ena = 0, run = 0, ref = 0;
	bool bad = false;

	for (size_t ci = 0; ci < s->ncpu; ci++) {
		const struct slot *d = slot_at(s->delta, s, e, ci, 0);

		if ((size_t)s->unit_of[ci] != u)
			continue;
		ref += d->val;
		if (bad)
			continue;
		if (!d->ena || !d->run) {
			bad = true;
			ena = run = 0;
			continue;
		}
		val += d->val;
		ena += d->ena;
		run += d->run;
	}
	c->uvalues[u] = (double)val;
	c->uenabled[u] = ena;
	c->urunning[u] = run;
	ref_update(s, u, e, ref);
}

static void count_units(struct pstat *s, size_t e, bool on)
{
	struct stat_counter *c = &s->c[e];

	for (size_t t = 0; t < s->nthr; t++)
		for (size_t ci = 0; ci < s->ncpu; ci++) {
			struct slot *now = slot_at(s->cur, s, e, ci, t);
			struct slot *before = slot_at(s->prev, s, e, ci, t);
			struct slot *d = slot_at(s->delta, s, e, ci, t);

			*d = diff(now, before);
			*before = *now;
			scale(d, on);
			if (s->aggr == AGGR_NONE)
				ref_update(s, ci, e, d->val);
			else if (s->aggr == AGGR_THREAD)
				ref_update(s, t, e, d->val);
		}
	if (s->aggr == AGGR_NONE) {
		for (size_t ci = 0; ci < s->ncpu; ci++) {
			const struct slot *d = slot_at(s->delta, s, e, ci, 0);

			c->uvalues[ci] = (double)d->val;
			c->uenabled[ci] = d->ena;
			c->urunning[ci] = d->run;
		}
	} else if (s->aggr == AGGR_THREAD) {
		for (size_t t = 0; t < s->nthr; t++) {
			uint64_t val = 0, ena = 0, run = 0;

			for (size_t ci = 0; ci < s->ncpu; ci++) {
				const struct slot *d = slot_at(s->delta, s, e, ci, t);

				val += d->val;
				ena += d->ena;
				run += d->run;
			}
			c->uvalues[t] = (double)val;
			c->uenabled[t] = ena;
			c->urunning[t] = run;
		}
	}
}

static int stat_round(struct pstat *s, const uint8_t *p, size_t len, struct err *err)
{
	struct perfstat_round rd;
	struct err e = { 0 };
	struct stat_result r = { 0 };
	struct stat_print_opts po = { .interval = -1 };
	bool on, interval;
	double el;
	int ret;

	if (perfstat_round_decode(p, len, &rd, &e)) {
		warn(s, "STAT_ROUND record at offset %" PRIu64 ": %s: ignored", s->off, e.msg);
		return 0;
	}
	if ((ret = set_up(s, err)))
		return ret;
	s->rounds++;
	if (rd.type == PERFSTAT_ROUND_FINAL)
		stat_refs_update(&s->refs[0], STAT_REF_WALL, rd.time);
	on = !s->have_cfg || !s->cfg.has_scale || s->cfg.scale;
	for (size_t i = 0; i < s->nev; i++) {
		if (s->aggr == AGGR_GLOBAL)
			count_global(s, i, on);
		else
			count_units(s, i, on);
	}
	/* per socket, die, core, node: unit by unit, event by event (perf's
	 * aggr_update_shadow) */
	for (size_t u = 0; s->unit_of && u < s->nun; u++)
		for (size_t i = 0; i < s->nev; i++)
			count_cpu_unit(s, i, u);

	el = s->refs[0].n[STAT_REF_WALL] ? s->refs[0].mean[STAT_REF_WALL] / 1e9 : 0;
	r.cmd = s->cmd ? s->cmd : "pipe";
	r.c = s->c;
	r.nr = s->nev;
	r.runs = 1;
	r.elapsed_s = &el;
	r.aggr = s->aggr;
	r.units = s->un;
	r.nr_units = s->nun;
	r.refs = s->refs;
	r.unit_width = 4;
	po.sep = s->o->sep;
	po.json = s->o->json;
	po.big_num = s->o->big_num;
	interval = s->have_cfg && s->cfg.interval && rd.time;
	if (interval) {
		po.interval = (double)rd.time / 1e9;
		if (s->printed++ % STAT_HEADER_EVERY == 0)
			stat_print_interval_header(s->o->out, s->aggr, &po);
	}
	stat_print(s->o->out, &r, &po);
	return 0;
}

static int record(struct pstat *s, const struct perfdata_chunk *ch, struct err *err)
{
	s->off = ch->offset;
	switch (ch->type) {
	case PERFDATA_EVENT_UPDATE:
		event_update(s, ch->p, ch->len);
		return 0;
	case PERFDATA_THREAD_MAP:       /* perf record writes maps too */
		thread_map(s, ch->p, ch->len);
		return 0;
	case PERFDATA_CPU_MAP:
		cpu_map(s, ch->p, ch->len);
		return 0;
	case PERFDATA_STAT_CONFIG:
		s->counting++;
		stat_config(s, ch->p, ch->len);
		return 0;
	case PERFDATA_STAT:
		s->counting++;
		return stat_value(s, ch->p, ch->len, err);
	case PERFDATA_STAT_ROUND:
		s->counting++;
		return stat_round(s, ch->p, ch->len, err);
	}
	return 0;
}

static void pstat_free(struct pstat *s)
{
	for (size_t i = 0; s->c && i < s->nev; i++) {
		free(s->c[i].uvalues);
		free(s->c[i].uenabled);
		free(s->c[i].urunning);
	}
	for (size_t i = 0; s->unit_names && i < s->nev; i++)
		free(s->unit_names[i]);
	free(s->unit_names);
	free(s->c);
	free(s->val);
	free(s->ena);
	free(s->run);
	free(s->ids);
	free(s->cpus);
	free(s->thr);
	free(s->cur);
	free(s->prev);
	free(s->delta);
	free(s->prev_aggr);
	free(s->un);
	free(s->unit_of);
	free(s->refs);
	free(s->cmd);
}

int stat_perf_report(struct perfdata *pd, const struct stat_perf_opts *o, struct err *err)
{
	struct pstat s = { .pd = pd, .o = o };
	struct perfdata_chunk ch;
	int ret, got;

	ret = init_events(&s, err);
	if (!ret)
		ret = init_cmd(&s, err);
	perfdata_rewind(pd);
	while (!ret && (got = perfdata_next(pd, &ch, err)) == 1)
		if (ch.kind == PERFDATA_CHUNK_USER)
			ret = record(&s, &ch, err);
	if (!ret && got < 0)
		ret = got;
	if (!ret && !s.counting && !perfdata_info(pd)->counting)
		ret = err_set(err, -PREC_EFORMAT, "a sampling recording (perf record), not a "
			      "counting one (perf stat record): use prep report");
	else if (!ret && !s.rounds)
		ret = err_set(err, -PREC_EFORMAT, "no reading to show: the file has no STAT_ROUND "
			      "record (perf stat record did not finish?)");
	pstat_free(&s);
	return ret;
}
