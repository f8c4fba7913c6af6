/* SPDX-License-Identifier: MIT */
/*
 * perf stat's output, from counter readings (see stat.h): the heading, one
 * line per counter (value, unit, name, the `#` metric column, the running
 * ratio when the counter was multiplexed, the run-to-run variation with -r),
 * the elapsed, user and sys times; or CSV with -x.
 */
#include "stat.h"

#include <inttypes.h>
#include <linux/perf_event.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static const struct stat_counter *find(const struct stat_result *r, uint32_t type, uint64_t cfg)
{
	for (size_t i = 0; i < r->nr; i++)
		if (r->c[i].supported && r->c[i].type == type && r->c[i].config == cfg)
			return &r->c[i];
	return NULL;
}

/* Which value the printer is on: the total (unit < 0) or one unit's. */
static long cur_unit = -1;

static double value_of(const struct stat_result *r, const struct stat_counter *c)
{
	if (cur_unit >= 0)
		return c->uvalues ? c->uvalues[cur_unit] : 0;
	return mean(c->values, r->runs);
}

/* The `#` column: value and unit, or false when the counter has none. */
static bool metric(const struct stat_result *r, const struct stat_counter *c, double *v,
		   const char **unit)
{
	const struct stat_counter *clock = find(r, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	double x = value_of(r, c), el = mean(r->elapsed_s, r->runs);
	const struct stat_counter *o;

	if (!clock)
		clock = find(r, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	if (is_clock(c)) {
		*v = el > 0 ? x / 1e9 / el : 0;
		*unit = "CPUs utilized";
		return true;
	}
	if (is_hw(c, PERF_COUNT_HW_CPU_CYCLES) && clock && value_of(r, clock) > 0) {
		*v = x / value_of(r, clock);
		*unit = "GHz";
		return true;
	}
	if (is_hw(c, PERF_COUNT_HW_INSTRUCTIONS) &&
	    (o = find(r, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES)) && value_of(r, o) > 0) {
		*v = x / value_of(r, o);
		*unit = "insn per cycle";
		return true;
	}
	if ((is_hw(c, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND) ||
	     is_hw(c, PERF_COUNT_HW_STALLED_CYCLES_BACKEND)) &&
	    (o = find(r, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES)) && value_of(r, o) > 0) {
		*v = 100.0 * x / value_of(r, o);
		*unit = is_hw(c, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND) ? "frontend cycles idle" :
									  "backend cycles idle";
		return true;
	}
	if (is_hw(c, PERF_COUNT_HW_BRANCH_MISSES) &&
	    (o = find(r, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS)) &&
	    value_of(r, o) > 0) {
		*v = 100.0 * x / value_of(r, o);
		*unit = "of all branches";
		return true;
	}
	if (is_hw(c, PERF_COUNT_HW_CACHE_MISSES) &&
	    (o = find(r, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES)) &&
	    value_of(r, o) > 0) {
		*v = 100.0 * x / value_of(r, o);
		*unit = "of all cache refs";
		return true;
	}
	/* counts per second of task-clock time, scaled */
	if (clock && value_of(r, clock) > 0 && (c->type == PERF_TYPE_SOFTWARE ||
						c->type == PERF_TYPE_HARDWARE)) {
		double per = x / (value_of(r, clock) / 1e9);

		if (per >= 1e9) {
			*v = per / 1e9;
			*unit = "G/sec";
		} else if (per >= 1e6) {
			*v = per / 1e6;
			*unit = "M/sec";
		} else if (per >= 1e3) {
			*v = per / 1e3;
			*unit = "K/sec";
		} else {
			*v = per;
			*unit = "/sec";
		}
		return true;
	}
	return false;
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
	case AGGR_GLOBAL: break;
	}
}

/* Under instructions, when stalled cycles were counted: the larger of the
 * frontend and backend stalls per instruction (perf's second metric line). */
static bool stalled_per_insn(const struct stat_result *r, const struct stat_counter *c, double *v)
{
	const struct stat_counter *f = find(r, PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND);
	const struct stat_counter *b = find(r, PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND);
	double stalled = 0;

	if (!is_hw(c, PERF_COUNT_HW_INSTRUCTIONS) || value_of(r, c) <= 0)
		return false;
	if (f)
		stalled = value_of(r, f);
	if (b && value_of(r, b) > stalled)
		stalled = value_of(r, b);
	if (!f && !b)
		return false;
	*v = stalled / value_of(r, c);
	return true;
}

static uint64_t sum_u64(const uint64_t *v, int n)
{
	uint64_t s = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

static void csv_line(FILE *out, const struct stat_result *r, const struct stat_print_opts *o,
		     const struct stat_counter *c, long u)
{
	const char *s = o->sep;
	uint64_t en = u < 0 ? sum_u64(c->enabled, r->runs) : c->uenabled[u];
	uint64_t run = u < 0 ? sum_u64(c->running, r->runs) : c->urunning[u];
	double v;
	const char *unit;

	cur_unit = u;
	if (o->interval >= 0)
		fprintf(out, "%16.9f%s", o->interval, s);
	else if (o->summary)
		fprintf(out, "%16s%s", "summary", s);
	if (u >= 0)
		unit_prefix(out, r, &r->units[u], s);
	{
		if (!c->supported) {
			fprintf(out, "<not supported>%s%s%s", s, s, c->name);
			if (r->runs > 1)
				fprintf(out, "%s%.2f%%", s, 0.0);
			fprintf(out, "%s0%s100.00%s%s\n", s, s, s, s);
			goto done;
		}
		if (!run) {
			fprintf(out, "<not counted>%s%s%s%s%s%" PRIu64 "%s%.2f%s%s\n", s,
				is_clock(c) ? "msec" : "", s, c->name, s, run, s, 0.0, s, s);
			goto done;
		}
		if (is_clock(c))
			fprintf(out, "%.2f%smsec%s%s", value_of(r, c) / 1e6, s, s, c->name);
		else
			fprintf(out, "%.0f%s%s%s", value_of(r, c), s, s, c->name);
		if (r->runs > 1)
			fprintf(out, "%s%.2f%%", s, variation_pct(c->values, r->runs));
		fprintf(out, "%s%" PRIu64 "%s%.2f", s, u < 0 ? run / (uint64_t)r->runs : run, s,
			en ? 100.0 * (double)run / (double)en : 100.0);
		if (metric(r, c, &v, &unit))
			fprintf(out, "%s%.3f%s%s\n", s, v, s, unit);
		else
			fprintf(out, "%s%s\n", s, s);
	}
done:
	cur_unit = -1;
}

static void json_line(FILE *out, const struct stat_result *r, const struct stat_print_opts *o,
		      const struct stat_counter *c, long u)
{
	uint64_t en = u < 0 ? sum_u64(c->enabled, r->runs) : c->uenabled[u];
	uint64_t run = u < 0 ? sum_u64(c->running, r->runs) : c->urunning[u];
	const struct stat_unit *un = u >= 0 ? &r->units[u] : NULL;
	double v = 0;
	const char *unit = "";

	cur_unit = u;
	fputc('{', out);
	if (o->interval >= 0)
		fprintf(out, "\"interval\" : %.9f, ", o->interval);
	if (un) {
		switch (r->aggr) {
		case AGGR_NONE: fprintf(out, "\"cpu\" : \"%d\", ", un->cpu); break;
		case AGGR_SOCKET:
			fprintf(out, "\"socket\" : \"S%d\", \"aggregate-number\" : %d, ", un->socket, un->nr);
			break;
		case AGGR_DIE:
			fprintf(out, "\"die\" : \"S%d-D%d\", \"aggregate-number\" : %d, ", un->socket,
				un->die, un->nr);
			break;
		case AGGR_CORE:
			fprintf(out, "\"core\" : \"S%d-D%d-C%d\", \"aggregate-number\" : %d, ", un->socket,
				un->die, un->core, un->nr);
			break;
		case AGGR_NODE:
			fprintf(out, "\"node\" : \"N%d\", \"aggregate-number\" : %d, ", un->node, un->nr);
			break;
		case AGGR_THREAD: fprintf(out, "\"thread\" : \"%s-%d\", ", un->comm, un->tid); break;
		case AGGR_GLOBAL: break;
		}
	}
	if (!c->supported || !run)
		fprintf(out, "\"counter-value\" : \"%s\", ", c->supported ? "<not counted>" : "<not supported>");
	else
		fprintf(out, "\"counter-value\" : \"%f\", ", is_clock(c) ? value_of(r, c) / 1e6 : value_of(r, c));
	if (c->supported && run)
		metric(r, c, &v, &unit);
	fprintf(out, "\"unit\" : \"%s\", \"event\" : \"%s\", ", is_clock(c) ? "msec" : "", c->name);
	if (u < 0 && r->runs > 1)
		fprintf(out, "\"variance\" : %.2f, ", variation_pct(c->values, r->runs));
	fprintf(out, "\"event-runtime\" : %" PRIu64
		", \"pcnt-running\" : %.2f, \"metric-value\" : %f, \"metric-unit\" : \"%s\"}\n",
		u < 0 ? run / (uint64_t)r->runs : run,
		en ? 100.0 * (double)run / (double)en : 100.0, v, unit);
	cur_unit = -1;
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
	};

	if (!o->sep && !o->json)
		fprintf(out, "%s\n", titles[aggr]);
}

static void text_line(FILE *out, const struct stat_result *r, const struct stat_print_opts *o,
		      const struct stat_counter *c, long u)
{
	uint64_t en = u < 0 ? sum_u64(c->enabled, r->runs) : c->uenabled[u];
	uint64_t run = u < 0 ? sum_u64(c->running, r->runs) : c->urunning[u];
	double v;
	const char *unit;

	if (o->json) {
		json_line(out, r, o, c, u);
		return;
	}
	if (o->sep) {
		csv_line(out, r, o, c, u);
		return;
	}
	cur_unit = u;
	if (o->interval >= 0)
		fprintf(out, "%16.9f ", o->interval);
	if (u >= 0)
		unit_prefix(out, r, &r->units[u], NULL);
	if (!c->supported || !run) {
		fprintf(out, "%18s %s %-32s%28s\n", c->supported ? "<not counted>" : "<not supported>",
			is_clock(c) ? "msec" : "    ", c->name, "");
		cur_unit = -1;
		return;
	}
	if (is_clock(c))
		fprintf(out, "%18.2f msec ", value_of(r, c) / 1e6);
	else
		fprintf(out, o->big_num ? "%'18.0f      " : "%18.0f      ", value_of(r, c));
	fprintf(out, "%-32s", c->name);
	if (metric(r, c, &v, &unit))
		fprintf(out, " # %8.3f %-23s", v, unit);
	else
		fprintf(out, "%35s", "");
	/* as perf: no variation shown when there was none */
	if (u < 0 && r->runs > 1 && variation_pct(c->values, r->runs) != 0)
		fprintf(out, "  ( +- %5.2f%% )", variation_pct(c->values, r->runs));
	if (run < en)
		fprintf(out, "  (%.2f%%)", 100.0 * (double)run / (double)en);
	fputc('\n', out);
	if (stalled_per_insn(r, c, &v)) {
		if (o->interval >= 0)
			fprintf(out, "%16s ", "");
		fprintf(out, "%56s # %8.2f  %-22s\n", "", v, "stalled cycles per insn");
	}
	cur_unit = -1;
}

static const struct stat_result *sort_r;
static const struct stat_counter *sort_c;

/* --per-thread: threads by count, largest first; ties by thread id */
static int cmp_unit(const void *pa, const void *pb)
{
	long a = *(const long *)pa, b = *(const long *)pb;
	double va = sort_c->urunning[a] ? sort_c->uvalues[a] : 0;
	double vb = sort_c->urunning[b] ? sort_c->uvalues[b] : 0;

	if (va != vb)
		return va > vb ? -1 : 1;
	return sort_r->units[a].tid - sort_r->units[b].tid;
}

static void for_units(FILE *out, const struct stat_result *r, const struct stat_print_opts *o,
		      const struct stat_counter *c)
{
	long order[4096];
	size_t n = r->nr_units < 4096 ? r->nr_units : 4096;

	for (size_t u = 0; u < n; u++)
		order[u] = (long)u;
	if (r->aggr == AGGR_THREAD && c->uvalues) {
		sort_r = r;
		sort_c = c;
		qsort(order, n, sizeof(*order), cmp_unit);
	}
	for (size_t u = 0; u < n; u++)
		text_line(out, r, o, c, order[u]);
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
	/* -I, -x and -j: the counter lines alone */
	if (o->sep || o->json || o->interval >= 0) {
		counter_lines(out, r, o);
		return;
	}
	if (o->big_num)
		setlocale(LC_NUMERIC, "");
	if (r->cmd)
		fprintf(out, "\n Performance counter stats for '%s'", r->cmd);
	else
		fprintf(out, "\n Performance counter stats for %s", r->target ? r->target : "'system wide'");
	if (r->runs > 1)
		fprintf(out, " (%d runs)", r->runs);
	fprintf(out, ":\n\n");
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
		fprintf(out, "%18.*f +- %.*f seconds time elapsed  ( +- %5.2f%% )\n\n", prec, m,
			prec, sd, variation_pct(r->elapsed_s, r->runs));
	} else {
		fprintf(out, "%18.9f seconds time elapsed\n\n", r->elapsed_s[0]);
		if (r->show_times)
			fprintf(out, "%18.9f seconds user\n%18.9f seconds sys\n\n\n", r->user_s,
				r->sys_s);
	}
	if (o->big_num)
		setlocale(LC_NUMERIC, "C");
}


/* ---- topology ------------------------------------------------------------- */

static int read_int(const char *fmt, int cpu, int dflt)
{
	char path[256];
	FILE *f;
	int v;

	snprintf(path, sizeof(path), fmt, cpu);
	f = fopen(path, "r");
	if (!f)
		return dflt;
	if (fscanf(f, "%d", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

static int node_of(int cpu)
{
	char path[256];

	for (int n = 0; n < 1024; n++) {
		FILE *f;

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpu%d", n, cpu);
		f = fopen(path, "r");
		if (f) {
			fclose(f);
			return n;
		}
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", n);
		if (!(f = fopen(path, "r")) && n > 0)
			break;
		if (f)
			fclose(f);
	}
	return 0;
}

int stat_read_topology(struct stat_unit *topo, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int cpu = (int)i;

		memset(&topo[i], 0, sizeof(topo[i]));
		topo[i].cpu = cpu;
		topo[i].socket = read_int("/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
					  cpu, 0);
		topo[i].die = read_int("/sys/devices/system/cpu/cpu%d/topology/die_id", cpu, 0);
		topo[i].core = read_int("/sys/devices/system/cpu/cpu%d/topology/core_id", cpu, cpu);
		topo[i].node = node_of(cpu);
		topo[i].nr = 1;
	}
	return 0;
}

static bool same_unit(enum stat_aggr aggr, const struct stat_unit *a, const struct stat_unit *b)
{
	switch (aggr) {
	case AGGR_SOCKET: return a->socket == b->socket;
	case AGGR_DIE: return a->socket == b->socket && a->die == b->die;
	case AGGR_CORE: return a->socket == b->socket && a->die == b->die && a->core == b->core;
	case AGGR_NODE: return a->node == b->node;
	case AGGR_NONE: return a->cpu == b->cpu;
	default: return true;
	}
}

int stat_units_for_cpus(enum stat_aggr aggr, const struct stat_unit *cpu_topo, size_t nr_cpus,
			struct stat_unit **units, size_t *nr_units, int *unit_of_cpu)
{
	*units = calloc(nr_cpus ? nr_cpus : 1, sizeof(**units));
	*nr_units = 0;
	if (!*units)
		return -1;
	for (size_t i = 0; i < nr_cpus; i++) {
		size_t u;

		for (u = 0; u < *nr_units; u++)
			if (same_unit(aggr, &(*units)[u], &cpu_topo[i]))
				break;
		if (u == *nr_units) {
			(*units)[u] = cpu_topo[i];
			(*units)[u].nr = 0;
			(*nr_units)++;
		}
		(*units)[u].nr++;
		unit_of_cpu[i] = (int)u;
	}
	return 0;
}

void stat_units_free(struct stat_result *r, struct stat_counter *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++) {
		free(c[i].uvalues);
		free(c[i].uenabled);
		free(c[i].urunning);
		c[i].uvalues = NULL;
		c[i].uenabled = c[i].urunning = NULL;
	}
	free(r->units);
	r->units = NULL;
	r->nr_units = 0;
}
