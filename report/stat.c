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

static double value_of(const struct stat_result *r, const struct stat_counter *c)
{
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

static uint64_t sum_u64(const uint64_t *v, int n)
{
	uint64_t s = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

static void print_csv(FILE *out, const struct stat_result *r, const struct stat_print_opts *o)
{
	const char *s = o->sep;

	for (size_t i = 0; i < r->nr; i++) {
		const struct stat_counter *c = &r->c[i];
		uint64_t en = sum_u64(c->enabled, r->runs), run = sum_u64(c->running, r->runs);
		double v;
		const char *unit;

		if (!c->supported) {
			fprintf(out, "<not supported>%s%s%s", s, s, c->name);
			if (r->runs > 1)
				fprintf(out, "%s%.2f%%", s, 0.0);
			fprintf(out, "%s0%s100.00%s%s\n", s, s, s, s);
			continue;
		}
		if (!run) {
			fprintf(out, "<not counted>%s%s%s%s%s%" PRIu64 "%s%.2f%s%s\n", s,
				is_clock(c) ? "msec" : "", s, c->name, s, run, s, 0.0, s, s);
			continue;
		}
		if (is_clock(c))
			fprintf(out, "%.2f%smsec%s%s", value_of(r, c) / 1e6, s, s, c->name);
		else
			fprintf(out, "%.0f%s%s%s", value_of(r, c), s, s, c->name);
		if (r->runs > 1)
			fprintf(out, "%s%.2f%%", s, variation_pct(c->values, r->runs));
		fprintf(out, "%s%" PRIu64 "%s%.2f", s, run / (uint64_t)r->runs, s,
			en ? 100.0 * (double)run / (double)en : 100.0);
		if (metric(r, c, &v, &unit))
			fprintf(out, "%s%.3f%s%s\n", s, v, s, unit);
		else
			fprintf(out, "%s%s\n", s, s);
	}
}

void stat_print(FILE *out, const struct stat_result *r, const struct stat_print_opts *o)
{
	if (o->sep) {
		print_csv(out, r, o);
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
	for (size_t i = 0; i < r->nr; i++) {
		const struct stat_counter *c = &r->c[i];
		uint64_t en = sum_u64(c->enabled, r->runs), run = sum_u64(c->running, r->runs);
		double v;
		const char *unit;

		if (!c->supported || !run) {
			fprintf(out, "%18s %s %-32s%28s\n", c->supported ? "<not counted>" : "<not supported>",
				is_clock(c) ? "msec" : "    ", c->name, "");
			continue;
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
		if (r->runs > 1 && variation_pct(c->values, r->runs) != 0)
			fprintf(out, "  ( +- %5.2f%% )", variation_pct(c->values, r->runs));
		if (run < en)
			fprintf(out, "  (%.2f%%)", 100.0 * (double)run / (double)en);
		fputc('\n', out);
	}
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

