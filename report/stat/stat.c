/* SPDX-License-Identifier: MIT */
/*
 * perf stat's output, from counter readings (see stat.h): the heading, one
 * line per counter (value, unit, name, the `#` metric column, the running
 * ratio when the counter was multiplexed, the run-to-run variation with -r),
 * the elapsed, user and sys times; or CSV with -x, JSON with -j.
 *
 * The metrics are perf 6.1's (util/stat-shadow.c): which counter divides by
 * which reference (stat_ref_of), the format of each, a metric whose
 * reference is missing printed as its unit alone (blank in text and CSV,
 * a value of 0 in JSON), a second line for `stalled cycles per insn`.
 */
#include "stat.h"

#include <ctype.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define METRIC_LEN 35   /* the `#` column's width, as perf's */

static double mean(const double *v, int n)
{
	double s = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	return n ? s / n : 0;
}

/* The run-to-run variation as perf prints it: the standard error of the
 * mean, in percent of the mean. */
static double variation_pct(const double *v, int n)
{
	double m = mean(v, n), s = 0;

	if (n < 2 || m == 0)
		return 0;
	for (int i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return 100.0 * sqrt(s / (n - 1) / n) / m;
}

static bool is_clock(const struct stat_counter *c)
{
	return c->type == PERF_TYPE_SOFTWARE &&
	       (c->config == PERF_COUNT_SW_CPU_CLOCK || c->config == PERF_COUNT_SW_TASK_CLOCK);
}

static bool is_hw(const struct stat_counter *c, uint64_t config)
{
	return c->type == PERF_TYPE_HARDWARE && c->config == config;
}

static double scale_of(const struct stat_counter *c)
{
	return c->scale != 0 ? c->scale : is_clock(c) ? 1e-6 : 1.0;
}

static const char *unit_of(const struct stat_counter *c)
{
	return c->unit ? c->unit : is_clock(c) ? "msec" : "";
}

enum stat_ref stat_ref_of(uint32_t type, uint64_t config)
{
	if (type == PERF_TYPE_SOFTWARE &&
	    (config == PERF_COUNT_SW_CPU_CLOCK || config == PERF_COUNT_SW_TASK_CLOCK))
		return STAT_REF_NSECS;
	if (type == PERF_TYPE_HARDWARE) {
		switch (config) {
		case PERF_COUNT_HW_CPU_CYCLES: return STAT_REF_CYCLES;
		case PERF_COUNT_HW_STALLED_CYCLES_FRONTEND: return STAT_REF_STALLED_FRONT;
		case PERF_COUNT_HW_STALLED_CYCLES_BACKEND: return STAT_REF_STALLED_BACK;
		case PERF_COUNT_HW_BRANCH_INSTRUCTIONS: return STAT_REF_BRANCHES;
		case PERF_COUNT_HW_CACHE_REFERENCES: return STAT_REF_CACHE_REFS;
		}
	}
	if (type == PERF_TYPE_HW_CACHE) {
		switch (config) {       /* the cache's read accesses */
		case PERF_COUNT_HW_CACHE_L1D: return STAT_REF_L1D;
		case PERF_COUNT_HW_CACHE_L1I: return STAT_REF_L1I;
		case PERF_COUNT_HW_CACHE_LL: return STAT_REF_LL;
		case PERF_COUNT_HW_CACHE_DTLB: return STAT_REF_DTLB;
		case PERF_COUNT_HW_CACHE_ITLB: return STAT_REF_ITLB;
		}
	}
	return STAT_REFS;
}

void stat_refs_update(struct stat_refs *s, enum stat_ref k, uint64_t v)
{
	double delta;

	s->n[k]++;
	delta = (double)v - s->mean[k];
	s->mean[k] += delta / (double)s->n[k];
}

/* The count (before the counter's scale) of the total (unit < 0) or of
 * one unit (CPU, core, thread, ... of the aggregation). */
static double value_of(const struct stat_result *r, const struct stat_counter *c, long unit)
{
	if (unit >= 0)
		return c->uvalues ? c->uvalues[unit] : 0;
	return mean(c->values, r->runs);
}

/* The mean of a reference and how many updates it had: the file's (perf
 * stat report), else the readings printed, as perf's live run keeps them. */
static double ref_avg(const struct stat_result *r, enum stat_ref k, long unit, uint64_t *n)
{
	double sum = 0;

	if (r->refs) {
		const struct stat_refs *s = &r->refs[k == STAT_REF_WALL || unit < 0 ? 0 : unit];

		*n = s->n[k];
		return s->n[k] ? s->mean[k] : 0;
	}
	if (k == STAT_REF_WALL) {
		*n = 1;
		return mean(r->elapsed_s, r->runs) * 1e9;
	}
	*n = 0;
	for (size_t i = 0; i < r->nr; i++) {
		const struct stat_counter *o = &r->c[i];

		if (o->supported && stat_ref_of(o->type, o->config) == k) {
			sum += k == STAT_REF_NSECS ? value_of(r, o, unit) :
			       value_of(r, o, unit) * scale_of(o);
			(*n)++;
		}
	}
	return *n ? sum / (double)*n : 0;
}

/* One metric: unit NULL for none, fmt NULL for the unit without a value. */
struct metric {
	const char *fmt, *unit;
	double v;
};

static void set(struct metric *m, const char *fmt, const char *unit, double v)
{
	m->fmt = fmt;
	m->unit = unit;
	m->v = v;
}

/* Misses in percent of the accesses of the reference. */
static void miss_ratio(const struct stat_result *r, long u, enum stat_ref k, double avg,
		       const char *unit, struct metric *m)
{
	uint64_t n;
	double total = ref_avg(r, k, u, &n);

	if (!n)
		set(m, NULL, unit, 0);
	else
		set(m, "%7.2f%%", unit, total ? avg / total * 100.0 : 0);
}

/* "/sec" scaled to K, M or G above a thousand of them. */
static const char *per_sec(double *v)
{
	if (*v > 1e9) {
		*v /= 1e9;
		return "G/sec";
	}
	if (*v > 1e6) {
		*v /= 1e6;
		return "M/sec";
	}
	if (*v > 1e3) {
		*v /= 1e3;
		return "K/sec";
	}
	return "/sec";
}

/* The `#` column of a counter, and the second line perf gives instructions. */
static void metrics(const struct stat_result *r, const struct stat_counter *c, long u,
		    struct metric *m, struct metric *m2)
{
	static const char *const cache_units[] = {
		"of all L1-dcache accesses", "of all L1-icache accesses", "of all LL-cache accesses",
		"of all dTLB cache accesses", "of all iTLB cache accesses",
	};
	static const enum stat_ref cache_refs[] = {
		STAT_REF_L1D, STAT_REF_L1I, STAT_REF_LL, STAT_REF_DTLB, STAT_REF_ITLB,
	};
	const uint64_t read_miss = PERF_COUNT_HW_CACHE_OP_READ << 8 |
				   PERF_COUNT_HW_CACHE_RESULT_MISS << 16;
	double avg = value_of(r, c, u) * scale_of(c), total, other;
	uint64_t n;

	set(m, NULL, NULL, 0);
	set(m2, NULL, NULL, 0);
	if (is_hw(c, PERF_COUNT_HW_INSTRUCTIONS)) {
		total = ref_avg(r, STAT_REF_CYCLES, u, &n);
		if (total)
			set(m, "%7.2f ", "insn per cycle", avg / total);
		else
			set(m, NULL, "insn per cycle", 0);
		total = ref_avg(r, STAT_REF_STALLED_FRONT, u, &n);
		other = ref_avg(r, STAT_REF_STALLED_BACK, u, &n);
		if (other > total)
			total = other;
		if (total && avg)
			set(m2, "%7.2f ", "stalled cycles per insn", total / avg);
	} else if (is_hw(c, PERF_COUNT_HW_BRANCH_MISSES)) {
		miss_ratio(r, u, STAT_REF_BRANCHES, avg, "of all branches", m);
	} else if (c->type == PERF_TYPE_HW_CACHE && (c->config & ~0xffull) == read_miss &&
		   (c->config & 0xff) <= PERF_COUNT_HW_CACHE_ITLB) {
		miss_ratio(r, u, cache_refs[c->config & 0xff], avg, cache_units[c->config & 0xff], m);
	} else if (is_hw(c, PERF_COUNT_HW_CACHE_MISSES)) {
		total = ref_avg(r, STAT_REF_CACHE_REFS, u, &n);
		if (n)
			set(m, "%8.3f %%", "of all cache refs", total ? avg * 100 / total : 0);
		else
			set(m, NULL, "of all cache refs", 0);
	} else if (is_hw(c, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND)) {
		total = ref_avg(r, STAT_REF_CYCLES, u, &n);
		other = total ? avg / total * 100.0 : 0;
		set(m, other ? "%7.2f%%" : NULL, "frontend cycles idle", other);
	} else if (is_hw(c, PERF_COUNT_HW_STALLED_CYCLES_BACKEND)) {
		total = ref_avg(r, STAT_REF_CYCLES, u, &n);
		set(m, "%7.2f%%", "backend cycles idle", total ? avg / total * 100.0 : 0);
	} else if (is_hw(c, PERF_COUNT_HW_CPU_CYCLES)) {
		total = ref_avg(r, STAT_REF_NSECS, u, &n);
		if (total)
			set(m, "%8.3f", "GHz", avg / total);
		else
			set(m, NULL, "Ghz", 0);         /* sic, as perf */
	} else if (is_clock(c)) {
		total = ref_avg(r, STAT_REF_WALL, u, &n);
		if (total)
			set(m, "%8.3f", "CPUs utilized", avg / (total * scale_of(c)));
		else
			set(m, NULL, "CPUs utilized", 0);
	} else {
		/* everything else: per second of the clocks' time */
		total = ref_avg(r, STAT_REF_NSECS, u, &n);
		if (n) {
			double v = total ? 1e9 * avg / total : 0;
			const char *unit = total ? per_sec(&v) : "/sec";

			set(m, "%8.3f", unit, v);
		}
	}
}

struct stat_label stat_unit_label(enum stat_aggr aggr, const struct stat_unit *u)
{
	struct stat_label l;

	if (aggr == AGGR_CACHE)
		snprintf(l.s, sizeof(l.s), "S%d-D%d-L%d-ID%d", u->socket, u->die, u->cache_level,
			 u->cache_level ? u->cache_id[u->cache_level - 1] : -1);
	else
		snprintf(l.s, sizeof(l.s), "S%d-D%d-CLS%d", u->socket, u->die, u->cluster);
	return l;
}

static void unit_prefix(FILE *out, const struct stat_result *r, const struct stat_unit *u,
			const char *sep)
{
	if (sep) {
		switch (r->aggr) {
		case AGGR_NONE: fprintf(out, "CPU%d%s", u->cpu, sep); break;
		case AGGR_SOCKET: fprintf(out, "S%d%s%d%s", u->socket, sep, u->nr, sep); break;
		case AGGR_DIE: fprintf(out, "S%d-D%d%s%d%s", u->socket, u->die, sep, u->nr, sep); break;
		case AGGR_CORE:
			fprintf(out, "S%d-D%d-C%d%s%d%s", u->socket, u->die, u->core, sep, u->nr, sep);
			break;
		case AGGR_NODE: fprintf(out, "N%d%s%d%s", u->node, sep, u->nr, sep); break;
		case AGGR_THREAD: fprintf(out, "%s-%d%s", u->comm, u->tid, sep); break;
		case AGGR_CLUSTER: case AGGR_CACHE:
			fprintf(out, "%s%s%d%s", stat_unit_label(r->aggr, u).s, sep, u->nr, sep);
			break;
		case AGGR_GLOBAL: break;
		}
		return;
	}
	switch (r->aggr) {
	case AGGR_NONE: fprintf(out, "CPU%-7d ", u->cpu); break;
	case AGGR_SOCKET: fprintf(out, "S%-5d %4d ", u->socket, u->nr); break;
	case AGGR_DIE: fprintf(out, "S%d-D%-8d %4d ", u->socket, u->die, u->nr); break;
	case AGGR_CORE: fprintf(out, "S%d-D%d-C%-8d %4d ", u->socket, u->die, u->core, u->nr); break;
	case AGGR_NODE: fprintf(out, "N%-5d %4d ", u->node, u->nr); break;
	case AGGR_THREAD: fprintf(out, "%16s-%-8d ", u->comm, u->tid); break;
	case AGGR_CLUSTER: case AGGR_CACHE:
		fprintf(out, "%-15s %4d ", stat_unit_label(r->aggr, u).s, u->nr);
		break;
	case AGGR_GLOBAL: break;
	}
}

static void json_unit_fields(FILE *out, const struct stat_result *r, const struct stat_unit *un)
{
	switch (r->aggr) {
	case AGGR_NONE: fprintf(out, "\"cpu\" : \"%d\", ", un->cpu); break;
	case AGGR_SOCKET:
		fprintf(out, "\"socket\" : \"S%d\", \"aggregate-number\" : %d, ", un->socket, un->nr);
		break;
	case AGGR_DIE:
		fprintf(out, "\"die\" : \"S%d-D%d\", \"aggregate-number\" : %d, ", un->socket, un->die,
			un->nr);
		break;
	case AGGR_CORE:
		fprintf(out, "\"core\" : \"S%d-D%d-C%d\", \"aggregate-number\" : %d, ", un->socket,
			un->die, un->core, un->nr);
		break;
	case AGGR_NODE:
		fprintf(out, "\"node\" : \"N%d\", \"aggregate-number\" : %d, ", un->node, un->nr);
		break;
	case AGGR_THREAD: fprintf(out, "\"thread\" : \"%s-%d\", ", un->comm, un->tid); break;
	case AGGR_CLUSTER: case AGGR_CACHE:
		fprintf(out, "\"%s\" : \"%s\", \"aggregate-number\" : %d, ",
			r->aggr == AGGR_CACHE ? "cache" : "cluster", stat_unit_label(r->aggr, un).s, un->nr);
		break;
	case AGGR_GLOBAL: break;
	}
}

static uint64_t sum_u64(const uint64_t *v, int n)
{
	uint64_t s = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

/* What one line shows: the counter's times, its state, its metrics. */
struct line {
	const struct stat_counter *c;
	long u;
	uint64_t en, run;
	bool counted;
	struct metric m, m2;
};

static void line_init(struct line *l, const struct stat_result *r, const struct stat_counter *c,
		      long u)
{
	l->c = c;
	l->u = u;
	l->en = u < 0 ? sum_u64(c->enabled, r->runs) : c->uenabled[u];
	l->run = u < 0 ? sum_u64(c->running, r->runs) : c->urunning[u];
	l->counted = c->supported && l->run && l->en;
	if (l->counted) {
		metrics(r, c, u, &l->m, &l->m2);
	} else {
		set(&l->m, NULL, "", 0);
		set(&l->m2, NULL, NULL, 0);
	}
}

/* perf's percentage of the time counted, in CSV and JSON: whole percents
 * (its integer division), 100 when the two times agree. */
static double pcnt_running(uint64_t run, uint64_t en)
{
	return run != en && en ? (double)(100 * run / en) : 100.0;
}

/* The value shown: the count times the scale, with two decimals when the
 * scale is not a whole number. */
static const char *value_fmt(const struct stat_counter *c, bool csv, bool big)
{
	double sc = scale_of(c);
	bool frac = floor(sc) != sc;

	if (csv)
		return frac ? "%.2f" : "%.0f";
	if (big)
		return frac ? "%'18.2f" : "%'18.0f";
	return frac ? "%18.2f" : "%18.0f";
}

static void csv_metric(FILE *out, const char *s, const struct metric *m)
{
	char buf[64], *v, *end;

	if (!m->unit || !m->fmt) {
		fprintf(out, "%s%s", s, s);
		return;
	}
	/* perf keeps the digits and the point of the formatted value */
	snprintf(buf, sizeof(buf), m->fmt, m->v);
	for (v = buf; isspace((unsigned char)*v); v++)
		;
	for (end = v; isdigit((unsigned char)*end) || *end == '.'; end++)
		;
	*end = 0;
	fprintf(out, "%s%s%s%s", s, v, s, m->unit);
}

static void csv_line(FILE *out, const struct stat_result *r, const struct stat_print_opts *o,
		     const struct line *l)
{
	const char *s = o->sep;
	const struct stat_counter *c = l->c;
	static const int aggr_fields[] = {
		[AGGR_GLOBAL] = 0, [AGGR_NONE] = 1, [AGGR_SOCKET] = 2, [AGGR_DIE] = 2,
		[AGGR_CORE] = 2, [AGGR_NODE] = 0, [AGGR_THREAD] = 1, [AGGR_CLUSTER] = 2, [AGGR_CACHE] = 2,
	};

	if (o->interval >= 0)
		fprintf(out, "%16.9f%s", o->interval, s);
	else if (o->summary)
		fprintf(out, "%16s%s", "summary", s);
	if (l->u >= 0)
		unit_prefix(out, r, &r->units[l->u], s);
	if (!l->counted)
		fputs(c->supported ? "<not counted>" : "<not supported>", out);
	else
		fprintf(out, value_fmt(c, true, false), value_of(r, c, l->u) * scale_of(c));
	fprintf(out, "%s%s%s%s", s, unit_of(c), s, c->name);
	if (r->runs > 1)
		fprintf(out, "%s%.2f%%", s, l->counted ? variation_pct(c->values, r->runs) : 0.0);
	fprintf(out, "%s%" PRIu64 "%s%.2f", s, l->u < 0 ? l->run / (uint64_t)r->runs : l->run, s,
		pcnt_running(l->run, l->en));
	csv_metric(out, s, &l->m);
	if (l->m2.unit) {
		/* perf's new line: the prefix, the unit's fields, empty columns */
		fputc('\n', out);
		if (o->interval >= 0)
			fprintf(out, "%16.9f%s", o->interval, s);
		fputs(s, out);
		if (l->u >= 0)
			unit_prefix(out, r, &r->units[l->u], s);
		for (int i = 0; i < 3 + aggr_fields[r->aggr]; i++)
			fputs(s, out);
		csv_metric(out, s, &l->m2);
	}
	fputc('\n', out);
}

static void json_metric(FILE *out, const struct metric *m)
{
	fprintf(out, "\"metric-value\" : %f, \"metric-unit\" : \"%s\"}", m->v,
		m->unit ? m->unit : "(null)");
}

static void json_line(FILE *out, const struct stat_result *r, const struct stat_print_opts *o,
		      const struct line *l)
{
	const struct stat_counter *c = l->c;
	const struct stat_unit *un = l->u >= 0 ? &r->units[l->u] : NULL;

	fputc('{', out);
	if (o->interval >= 0)
		fprintf(out, "\"interval\" : %.9f, ", o->interval);
	if (un)
		json_unit_fields(out, r, un);
	if (!l->counted)
		fprintf(out, "\"counter-value\" : \"%s\", ", c->supported ? "<not counted>" : "<not supported>");
	else
		fprintf(out, "\"counter-value\" : \"%f\", ", value_of(r, c, l->u) * scale_of(c));
	fprintf(out, "\"unit\" : \"%s\", \"event\" : \"%s\", ", unit_of(c), c->name);
	if (l->u < 0 && r->runs > 1)
		fprintf(out, "\"variance\" : %.2f, ", l->counted ? variation_pct(c->values, r->runs) : 0.0);
	fprintf(out, "\"event-runtime\" : %" PRIu64 ", \"pcnt-running\" : %.2f, ",
		l->u < 0 ? l->run / (uint64_t)r->runs : l->run, pcnt_running(l->run, l->en));
	json_metric(out, &l->m);
	if (l->m2.unit) {
		fputc('\n', out);
		if (o->interval >= 0)
			fprintf(out, "{\"interval\" : %.9f, ", o->interval);
		else
			fputc('{', out);
		if (un)
			json_unit_fields(out, r, un);
		json_metric(out, &l->m2);
	}
	fputc('\n', out);
}

static int unit_width(const struct stat_result *r)
{
	size_t w = 4;

	if (r->unit_width)
		return r->unit_width;
	for (size_t i = 0; i < r->nr; i++)
		if (strlen(unit_of(&r->c[i])) > w)
			w = strlen(unit_of(&r->c[i]));
	return (int)w;
}

void stat_print_interval_header(FILE *out, enum stat_aggr aggr, const struct stat_print_opts *o)
{
	static const char *const titles[] = {
		[AGGR_GLOBAL] = "#           time             counts unit events",
		[AGGR_NONE] = "#           time CPU                    counts unit events",
		[AGGR_SOCKET] = "#           time socket cpus             counts unit events",
		[AGGR_DIE] = "#           time die          cpus             counts unit events",
		[AGGR_CORE] = "#           time core            cpus             counts unit events",
		[AGGR_NODE] = "#           time node   cpus             counts unit events",
		[AGGR_THREAD] = "#           time             comm-pid                  counts unit events",
		[AGGR_CLUSTER] = "#           time cluster         cpus             counts unit events",
		[AGGR_CACHE] = "#           time cache           cpus             counts unit events",
	};

	if (!o->sep && !o->json)
		fprintf(out, "%s\n", titles[aggr]);
}

static void text_metric(FILE *out, const struct metric *m)
{
	int n;

	if (!m->unit || !m->fmt) {
		fprintf(out, "%*s", METRIC_LEN, "");
		return;
	}
	n = fprintf(out, " # ");
	n += fprintf(out, m->fmt, m->v);
	fprintf(out, " %-*s", METRIC_LEN - n - 1, m->unit);
}

static void text_line(FILE *out, const struct stat_result *r, const struct stat_print_opts *o,
		      const struct stat_counter *c, long u)
{
	struct line l;
	int uw = unit_width(r);

	line_init(&l, r, c, u);
	if (o->json) {
		json_line(out, r, o, &l);
		return;
	}
	if (o->sep) {
		csv_line(out, r, o, &l);
		return;
	}
	if (o->interval >= 0)
		fprintf(out, "%16.9f ", o->interval);
	if (u >= 0)
		unit_prefix(out, r, &r->units[u], NULL);
	if (!l.counted) {
		fprintf(out, "%18s %-*s %-25s", c->supported ? "<not counted>" : "<not supported>", uw,
			unit_of(c), c->name);
	} else {
		fprintf(out, value_fmt(c, false, o->big_num), value_of(r, c, u) * scale_of(c));
		fprintf(out, " %-*s %-32s", uw, unit_of(c), c->name);
	}
	text_metric(out, &l.m);
	if (l.m2.unit) {
		/* perf's new line: the prefix, the unit's, then 49 columns */
		fputc('\n', out);
		if (o->interval >= 0)
			fprintf(out, "%16.9f ", o->interval);
		if (u >= 0)
			unit_prefix(out, r, &r->units[u], NULL);
		fprintf(out, "%s%49s", r->aggr == AGGR_NONE ? "        " : "", "");
		text_metric(out, &l.m2);
	}
	/* as perf: no variation shown when there was none */
	if (l.counted && u < 0 && r->runs > 1 && variation_pct(c->values, r->runs) != 0)
		fprintf(out, "  ( +-%6.2f%% )", variation_pct(c->values, r->runs));
	if (l.run != l.en)
		fprintf(out, "  (%.2f%%)", 100.0 * (double)l.run / (double)l.en);
	fputc('\n', out);
}

bool stat_metrics_of(const struct stat_result *r, const struct stat_counter *c, long u,
		     struct stat_metric m[2])
{
	struct line l;

	line_init(&l, r, c, u);
	if (!l.counted)         /* what perf's titles show even so */
		metrics(r, c, u, &l.m, &l.m2);
	m[0] = (struct stat_metric){ l.m.fmt, l.m.unit, l.m.v };
	m[1] = (struct stat_metric){ l.m2.fmt, l.m2.unit, l.m2.v };
	return l.counted;
}

static uint64_t count_of(double v)
{
	if (v >= 18446744073709551616.0)
		return UINT64_MAX;
	return v > 0 ? (uint64_t)v : 0;
}

/* --per-thread: threads by count, largest first, compared as perf does
 * (the difference of the two counts as an int); ties keep their order.
 * qsort_r: ctx is the counter. */
static int cmp_unit(const void *pa, const void *pb, void *ctx)
{
	const struct stat_counter *sort_c = ctx;
	long a = *(const long *)pa, b = *(const long *)pb;
	uint64_t va = sort_c->urunning[a] ? count_of(sort_c->uvalues[a]) : 0;
	uint64_t vb = sort_c->urunning[b] ? count_of(sort_c->uvalues[b]) : 0;
	int d = (int)(uint32_t)(vb - va);

	if (d)
		return d;
	return a < b ? -1 : a > b;
}

static void for_units(FILE *out, const struct stat_result *r, const struct stat_print_opts *o,
		      const struct stat_counter *c)
{
	long *order = calloc(r->nr_units ? r->nr_units : 1, sizeof(*order));

	if (!order)
		return;
	for (size_t u = 0; u < r->nr_units; u++)
		order[u] = (long)u;
	if (r->aggr == AGGR_THREAD && c->uvalues) {
		qsort_r(order, r->nr_units, sizeof(*order), cmp_unit, (void *)c);
	}
	for (size_t u = 0; u < r->nr_units; u++)
		text_line(out, r, o, c, order[u]);
	free(order);
}

/* The counter lines: per CPU and per thread counter by counter, per socket,
 * die, core or node unit by unit (as perf orders them). */
static void counter_lines(FILE *out, const struct stat_result *r, const struct stat_print_opts *o)
{
	if (r->aggr == AGGR_GLOBAL)
		for (size_t i = 0; i < r->nr; i++)
			text_line(out, r, o, &r->c[i], -1);
	else if (r->aggr == AGGR_NONE || r->aggr == AGGR_THREAD)
		for (size_t i = 0; i < r->nr; i++)
			for_units(out, r, o, &r->c[i]);
	else
		for (size_t u = 0; u < r->nr_units; u++)
			for (size_t i = 0; i < r->nr; i++)
				text_line(out, r, o, &r->c[i], (long)u);
}

void stat_print(FILE *out, const struct stat_result *r, const struct stat_print_opts *o)
{
	bool big = o->big_num && !o->sep && !o->json;

	if (big)
		setlocale(LC_NUMERIC, "");
	/* -I, -x and -j: the counter lines alone */
	if (o->sep || o->json || o->interval >= 0) {
		if (o->metric_only)
			stat_print_metric_only(out, r, o);
		else
			counter_lines(out, r, o);
		goto done;
	}
	if (r->cmd)
		fprintf(out, "\n Performance counter stats for '%s'", r->cmd);
	else
		fprintf(out, "\n Performance counter stats for %s", r->target ? r->target : "'system wide'");
	if (r->runs > 1)
		fprintf(out, " (%d runs)", r->runs);
	fprintf(out, ":\n\n");
	if (o->metric_only)
		stat_print_metric_only(out, r, o);
	else
		counter_lines(out, r, o);
	if (r->nr)
		fputc('\n', out);
	if (r->runs > 1) {
		double m = mean(r->elapsed_s, r->runs), sd = 0;
		int prec;

		for (int i = 0; i < r->runs; i++)
			sd += (r->elapsed_s[i] - m) * (r->elapsed_s[i] - m);
		sd = sqrt(sd / (r->runs - 1) / r->runs);
		/* two more decimals than the first significant one of the error */
		prec = (sd > 0 && sd < 1 ? (int)ceil(-log10(sd)) : 0) + 2;
		if (o->table)
			stat_print_table(out, r, m, prec);
		fprintf(out, "%18.*f +- %.*f seconds time elapsed  ( +- %5.2f%% )\n\n", prec, m,
			prec, sd, variation_pct(r->elapsed_s, r->runs));
	} else {
		fprintf(out, "%18.9f seconds time elapsed\n\n", r->elapsed_s[0]);
		if (r->show_times)
			fprintf(out, "%18.9f seconds user\n%18.9f seconds sys\n\n\n", r->user_s,
				r->sys_s);
	}
done:
	if (big)
		setlocale(LC_NUMERIC, "C");
}
