/* SPDX-License-Identifier: MIT */
/* The sample filters, compiled once; see filter.h. */
#include "filter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Items of a comma list: at most its commas + 1. */
static size_t nr_items(const char *list)
{
	size_t n = 1;

	for (; *list; list++)
		n += *list == ',';
	return n;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* perf says "problems parsing pid list" */
int filter_parse_ids(const char *opt, const char *what, const char *list,
		     struct filter_ids *out, struct err *err)
{
	const char *p = list;
	size_t n = 0;

	if (out && !(out->v = malloc(nr_items(list) * sizeof(*out->v))))
		return err_set(err, -ENOMEM, "out of memory");
	do {
		char *end;
		long v;

		if (*p < '0' || *p > '9')
			goto bad;
		errno = 0;
		v = strtol(p, &end, 10);
		if (v > 0x7fffffff || errno || (*end && *end != ','))
			goto bad;
		/* the list used to be compared as text: "007" named no id */
		if (out && (*p != '0' || end - p == 1))
			out->v[n++] = (uint32_t)v;
		p = *end ? end + 1 : end;
	} while (*p || p[-1] == ',');
	if (out) {
		qsort(out->v, n, sizeof(*out->v), cmp_u32);
		out->nr = n;
		out->on = true;
	}
	return 0;
bad:
	if (out) {
		free(out->v);
		out->v = NULL;
	}
	return err_set(err, -EINVAL, "%s '%s': problems parsing %s list", opt, list, what);
}

/* One walk over "0-2,5": the highest CPU in *max, and the bits set when
 * bits is not NULL. 0, or -1 when the list is not one. */
static int walk_cpus(const char *list, long *max, uint64_t *bits)
{
	const char *p = list;

	*max = -1;
	do {
		char *end;
		long a, b;

		if (*p < '0' || *p > '9')
			return -1;
		a = b = strtol(p, &end, 10);
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				return -1;
			b = strtol(end + 1, &end, 10);
		}
		if ((*end && *end != ',') || a > b || b > 1 << 20)
			return -1;
		if (b > *max)
			*max = b;
		for (long c = a; bits && c <= b; c++)
			bits[c / 64] |= UINT64_C(1) << (c % 64);
		p = *end ? end + 1 : end;
	} while (*p || p[-1] == ',');
	return 0;
}

int filter_parse_cpus(const char *list, struct filter_cpus *out, struct err *err)
{
	long max;

	if (walk_cpus(list, &max, NULL))
		return err_set(err, -EINVAL, "--cpu '%s': not a CPU list like 0-2,5", list);
	if (!out)
		return 0;
	out->nr_words = (size_t)max / 64 + 1;
	out->bits = calloc(out->nr_words, sizeof(*out->bits));
	if (!out->bits)
		return err_set(err, -ENOMEM, "out of memory");
	walk_cpus(list, &out->max, out->bits);
	out->on = true;
	return 0;
}

int filter_parse_names(const char *opt, const char *list, struct filter_names *out,
		       struct err *err)
{
	char *save = NULL;

	if (!*list || *list == ',' || list[strlen(list) - 1] == ',' || strstr(list, ",,"))
		return err_set(err, -EINVAL, "%s '%s': empty name in the list", opt, list);
	if (!out)
		return 0;
	out->text = strdup(list);
	out->v = malloc(nr_items(list) * sizeof(*out->v));
	if (!out->text || !out->v)
		return err_set(err, -ENOMEM, "out of memory");
	for (char *s = strtok_r(out->text, ",", &save); s; s = strtok_r(NULL, ",", &save))
		out->v[out->nr++] = s;
	qsort(out->v, out->nr, sizeof(*out->v), cmp_str);
	out->on = true;
	return 0;
}

/* "START,END" in seconds.fraction, either side may be empty */
static int parse_seconds(const char *t, struct filter_time *out)
{
	char *end;

	if (*t != ',') {
		double a = strtod(t, &end);

		if (end == t || *end != ',' || a < 0)
			return -1;
		out->start = (uint64_t)(a * 1e9 + 0.5);
		t = end;
	}
	if (*t != ',')
		return -1;
	t++;
	if (*t) {
		double b = strtod(t, &end);

		if (end == t || *end || b < 0)
			return -1;
		out->end = (uint64_t)(b * 1e9 + 0.5);
	}
	return 0;
}

/* "10%-20%" of the recording */
static int parse_percent(const char *t, struct filter_time *out)
{
	char *end;
	double a = strtod(t, &end), b;

	if (*end != '%' || end[1] != '-')
		return -1;
	b = strtod(end + 2, &end);
	if (*end != '%' || end[1] || a < 0 || b > 100 || a > b)
		return -1;
	out->pct = true;
	out->pct_start = a;
	out->pct_end = b;
	return 0;
}

int filter_parse_time(const char *t, struct filter_time *out, struct err *err)
{
	struct filter_time tt = { .on = true };

	if (strchr(t, '%') ? parse_percent(t, &tt) : parse_seconds(t, &tt))
		return err_set(err, -EINVAL, "--time '%s': expected START,END in seconds "
			       "(either may be empty) or a percent range like 10%%-20%%", t);
	if (tt.end && tt.start > tt.end)
		return err_set(err, -EINVAL, "--time '%s': invalid time string (the end is before "
			       "the start)", t);
	if (out)
		*out = tt;
	return 0;
}

int filter_compile(struct filter *f, const struct load_filter_opts *o, struct err *err)
{
	int ret = 0;

	memset(f, 0, sizeof(*f));
	if (o->pids)
		ret = filter_parse_ids("--pid", "pid", o->pids, &f->pids, err);
	if (!ret && o->tids)
		ret = filter_parse_ids("--tid", "tid", o->tids, &f->tids, err);
	if (!ret && o->cpus)
		ret = filter_parse_cpus(o->cpus, &f->cpus, err);
	if (!ret && o->comms)
		ret = filter_parse_names("--comm", o->comms, &f->comms, err);
	if (!ret && o->dsos)
		ret = filter_parse_names("--dso", o->dsos, &f->dsos, err);
	if (!ret && o->syms)
		ret = filter_parse_names("--symbols", o->syms, &f->syms, err);
	if (!ret && o->time)
		ret = filter_parse_time(o->time, &f->time, err);
	if (!ret && o->cgroups)
		ret = filter_parse_names("--cgroup", o->cgroups, &f->cgroups, err);
	if (ret)
		filter_free(f);
	else
		f->by_sample = f->pids.on || f->tids.on || f->cpus.on || f->comms.on || f->time.on;
	return ret;
}

static void names_free(struct filter_names *n)
{
	free(n->text);
	free(n->v);
}

void filter_free(struct filter *f)
{
	free(f->pids.v);
	free(f->tids.v);
	free(f->cpus.bits);
	names_free(&f->comms);
	names_free(&f->dsos);
	names_free(&f->syms);
	names_free(&f->cgroups);
	memset(f, 0, sizeof(*f));
}

static bool id_wanted(const struct filter_ids *ids, uint32_t v)
{
	return !ids->on || bsearch(&v, ids->v, ids->nr, sizeof(v), cmp_u32);
}

bool filter_ids_wanted(const struct filter *f, uint32_t pid, uint32_t tid, uint32_t cpu)
{
	const struct filter_cpus *c = &f->cpus;

	if (c->on && (cpu > (uint64_t)c->max || !(c->bits[cpu / 64] & (UINT64_C(1) << (cpu % 64)))))
		return false;
	return id_wanted(&f->pids, pid) && id_wanted(&f->tids, tid);
}

bool filter_time_wanted(const struct filter_time *t, uint64_t time, uint64_t t0, uint64_t t1)
{
	if (!t->on)
		return true;
	if (t->pct) {
		double span = (double)(t1 - t0);
		double at = span > 0 ? ((double)(time - t0)) * 100.0 / span : 0;

		return at >= t->pct_start && at <= t->pct_end;
	}
	return (!t->start || time >= t->start) && (!t->end || time <= t->end);
}

bool filter_name_wanted(const struct filter_names *n, const char *name)
{
	return !n->on || bsearch(&name, n->v, n->nr, sizeof(*n->v), cmp_str);
}

bool filter_frame_wanted(const struct filter *f, const char *dso_short, const char *dso_path,
			 const char *sym)
{
	if (f->dsos.on && !((dso_short && filter_name_wanted(&f->dsos, dso_short)) ||
			    (dso_path && filter_name_wanted(&f->dsos, dso_path))))
		return false;
	return !f->syms.on || (sym && filter_name_wanted(&f->syms, sym));
}

bool filter_by_frame(const struct filter *f)
{
	return f->dsos.on || f->syms.on;
}

bool filter_cgroup_wanted(const struct filter *f, const char *path)
{
	if (!f->cgroups.on)
		return true;
	if (!path)
		return false;
	return filter_name_wanted(&f->cgroups, path) ||
	       (path[0] == '/' && path[1] && filter_name_wanted(&f->cgroups, path + 1));
}
