/* SPDX-License-Identifier: MIT */
/*
 * Two of perf stat's less common layouts, for the one printer (stat.c):
 * --table (each -r run's elapsed time and its distance from the mean, as a
 * row of #s) and --metric-only (one column per metric, no counts).
 *
 * --metric-only follows perf 6.1 as measured: metrics per second and "CPUs
 * utilized" are not shown (so software events show none); a counter that
 * did not count leaves an empty column; the column titles are given for the
 * whole count (each counted counter's) and per CPU with -A (every
 * counter's, as perf computes them), not for sockets, dies, cores or nodes.
 */
#include "stat.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define ONLY_LEN 20     /* a metric column's width, as perf's */

void stat_print_table(FILE *out, const struct stat_result *r, double m, int prec)
{
	char tmp[64];
	int indent = 0;

	snprintf(tmp, sizeof(tmp), " %17.*f", prec, m);
	while (tmp[indent] == ' ')
		indent++;
	fprintf(out, "%*s# Table of individual measurements:\n", indent, "");
	for (int k = 0; k < r->runs; k++) {
		double t = r->elapsed_s[k];
		int pct = t != 0 ? (int)(100.0 * (t - m) / t) : 0;
		int bar = 1 + abs(pct / 5);

		fprintf(out, " %17.*f (%+.*f) ", prec, t, prec, t - m);
		for (int h = 0; h < bar; h++)
			fputc('#', out);
		fputc('\n', out);
	}
	fprintf(out, "\n%*s# Final result:\n", indent, "");
}

/* The metrics --metric-only shows: not rates, not CPUs utilized. */
static bool shown(const char *unit)
{
	return unit && !strstr(unit, "/sec") && !strstr(unit, "CPUs utilized");
}

/* The width of the unit column before the metrics, per aggregation. */
static int aggr_indent(enum stat_aggr a)
{
	static const int w[] = {
		[AGGR_GLOBAL] = 0, [AGGR_NONE] = 6, [AGGR_SOCKET] = 12, [AGGR_DIE] = 18,
		[AGGR_CORE] = 24, [AGGR_NODE] = 6, [AGGR_THREAD] = 24, [AGGR_CLUSTER] = 24,
		[AGGR_CACHE] = 24,
	};

	return w[a];
}

static const char *aggr_csv(enum stat_aggr a)
{
	static const char *const h[] = {
		[AGGR_GLOBAL] = "", [AGGR_NONE] = "cpu,", [AGGR_SOCKET] = "socket,cpus,",
		[AGGR_DIE] = "die,cpus,", [AGGR_CORE] = "core,cpus,", [AGGR_NODE] = "node,cpus,",
		[AGGR_THREAD] = "comm-pid,", [AGGR_CLUSTER] = "cluster,cpus,", [AGGR_CACHE] = "cache,cpus,",
	};

	return h[a];
}

/* The column titles of every counter (nothing for sockets, dies, ...). */
static void titles(FILE *out, const struct stat_result *r, const struct stat_print_opts *o)
{
	bool first = true;

	if (r->aggr != AGGR_GLOBAL && r->aggr != AGGR_NONE)
		return;
	for (size_t i = 0; i < r->nr; i++) {
		struct stat_metric m[2];
		bool counted = stat_metrics_of(r, &r->c[i], r->aggr == AGGR_NONE ? 0 : -1, m);

		if (r->aggr == AGGR_GLOBAL && !counted)
			continue;
		for (int k = 0; k < 2; k++) {
			if (o->json && m[k].unit && (r->aggr == AGGR_NONE || shown(m[k].unit))) {
				fprintf(out, "%s\"unit\" : \"%s\"", first ? "" : ", ", m[k].unit);
				first = false;
			} else if (o->json || !shown(m[k].unit)) {
				continue;
			} else if (o->sep) {
				fprintf(out, "%s%s", m[k].unit, o->sep);
			} else {
				fprintf(out, "%*s ", ONLY_LEN, m[k].unit);
			}
		}
	}
}

void stat_print_metric_only_header(FILE *out, const struct stat_result *r,
				   const struct stat_print_opts *o)
{
	if (o->json) {
		fputc('{', out);
	} else if (o->sep) {
		fprintf(out, " time%s", o->sep);
		fputs(aggr_csv(r->aggr), out);
	} else {
		fputs("#           time ", out);
		if (r->aggr != AGGR_GLOBAL)
			fprintf(out, "%-*s", r->aggr == AGGR_NONE ? 8 : aggr_indent(r->aggr),
				r->aggr == AGGR_NONE ? "CPU" : "");
	}
	titles(out, r, o);
	fputs(o->json ? "}\n" : "\n", out);
}

/* One value: its digits (CSV, JSON) or its column (text). */
static void value(FILE *out, const struct stat_print_opts *o, const struct stat_metric *m,
		  bool counted)
{
	char buf[64] = "", *v = buf, *end;

	if (counted && m->fmt)
		snprintf(buf, sizeof(buf), m->fmt, m->v);
	if (o->sep || o->json) {
		while (isspace((unsigned char)*v))
			v++;
		for (end = v; isdigit((unsigned char)*end) || *end == '.'; end++)
			;
		*end = 0;
	}
	if (o->json && counted)
		fprintf(out, "{\"%s\" : \"%s\"}", m->unit, v);
	else if (o->json)
		fputs("{\"metric-value\" : \"\"}", out);
	else if (o->sep)
		fprintf(out, "%s%s", v, o->sep);
	else
		fprintf(out, "%*s ", ONLY_LEN, v);
}

/* The values of one unit (-1: the whole count), counter by counter. */
static void values(FILE *out, const struct stat_result *r, const struct stat_print_opts *o,
		   long u)
{
	for (size_t i = 0; i < r->nr; i++) {
		struct stat_metric m[2];
		bool counted = stat_metrics_of(r, &r->c[i], u, m);

		if (!counted) {
			struct stat_metric none = { NULL, "", 0 };

			value(out, o, &none, false);
			continue;
		}
		for (int k = 0; k < 2; k++)
			if (shown(m[k].unit))
				value(out, o, &m[k], true);
	}
}

static void unit_label(FILE *out, const struct stat_result *r, const struct stat_print_opts *o,
		       const struct stat_unit *un)
{
	const char *s = o->sep;

	switch (r->aggr) {
	case AGGR_NONE:
		if (o->json)
			fprintf(out, "{\"cpu\" : \"%d\", ", un->cpu);
		else
			fprintf(out, s ? "CPU%d%s" : "CPU%-7d ", un->cpu, s);
		return;
	case AGGR_SOCKET:
		if (o->json)
			fprintf(out, "{\"socket\" : \"S%d\", \"aggregate-number\" : %d, ", un->socket, un->nr);
		else if (s)
			fprintf(out, "S%d%s%d%s", un->socket, s, un->nr, s);
		else
			fprintf(out, "S%-5d %4d ", un->socket, un->nr);
		return;
	case AGGR_DIE:
		if (o->json)
			fprintf(out, "{\"die\" : \"S%d-D%d\", \"aggregate-number\" : %d, ", un->socket,
				un->die, un->nr);
		else if (s)
			fprintf(out, "S%d-D%d%s%d%s", un->socket, un->die, s, un->nr, s);
		else
			fprintf(out, "S%d-D%-8d %4d ", un->socket, un->die, un->nr);
		return;
	case AGGR_CORE:
		if (o->json)
			fprintf(out, "{\"core\" : \"S%d-D%d-C%d\", \"aggregate-number\" : %d, ",
				un->socket, un->die, un->core, un->nr);
		else if (s)
			fprintf(out, "S%d-D%d-C%d%s%d%s", un->socket, un->die, un->core, s, un->nr, s);
		else
			fprintf(out, "S%d-D%d-C%-8d %4d ", un->socket, un->die, un->core, un->nr);
		return;
	case AGGR_NODE:
		if (o->json)
			fprintf(out, "{\"node\" : \"N%d\", \"aggregate-number\" : %d, ", un->node, un->nr);
		else if (s)
			fprintf(out, "N%d%s%d%s", un->node, s, un->nr, s);
		else
			fprintf(out, "N%-5d %4d ", un->node, un->nr);
		return;
	case AGGR_CLUSTER:
	case AGGR_CACHE:
		if (o->json)
			fprintf(out, "{\"%s\" : \"%s\", \"aggregate-number\" : %d, ",
				r->aggr == AGGR_CACHE ? "cache" : "cluster",
				stat_unit_label(r->aggr, un).s, un->nr);
		else if (s)
			fprintf(out, "%s%s%d%s", stat_unit_label(r->aggr, un).s, s, un->nr, s);
		else
			fprintf(out, "%-15s %4d ", stat_unit_label(r->aggr, un).s, un->nr);
		return;
	default:
		return;
	}
}

static void interval_prefix(FILE *out, const struct stat_print_opts *o)
{
	if (o->interval < 0)
		return;
	if (o->json)
		fprintf(out, "{\"interval\" : %.9f}", o->interval);
	else
		fprintf(out, "%16.9f%s", o->interval, o->sep ? o->sep : " ");
}

void stat_print_metric_only(FILE *out, const struct stat_result *r, const struct stat_print_opts *o)
{
	/* the titles once before the totals; -I prints its own */
	if (o->interval < 0) {
		if (o->json)
			fprintf(out, "{%*s", r->aggr == AGGR_GLOBAL ? 0 : aggr_indent(r->aggr), "");
		else if (o->sep)
			fputs(aggr_csv(r->aggr), out);
		else
			fprintf(out, "%*s", aggr_indent(r->aggr), "");
		titles(out, r, o);
		fputs(o->json ? "}\n" : "\n", out);
	}
	if (r->aggr == AGGR_GLOBAL) {
		interval_prefix(out, o);
		values(out, r, o, -1);
		fputc('\n', out);
		return;
	}
	for (size_t u = 0; u < r->nr_units; u++) {
		interval_prefix(out, o);
		unit_label(out, r, o, &r->units[u]);
		values(out, r, o, (long)u);
		fputc('\n', out);
	}
}
