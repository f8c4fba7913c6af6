/* SPDX-License-Identifier: MIT */
/*
 * The event-list parser, part two: names resolved through the file system.
 *
 * pmu/term,term=value/ reads <pmu_root>/<pmu>/type, then for each named term
 * <pmu>/format/<term> ("config:0-7,32-35": where the value's bits go) or,
 * for a term without a value, the event alias <pmu>/events/<term> ("event=
 * 0x3c,umask=0"), whose terms are applied in its place. sys:event reads
 * <tracefs>/events/<sys>/<event>/id. Every name that becomes a path
 * component is checked first: name characters only, no leading '.'.
 */
#define EVENTS_INTERNAL
#include "events.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define PMU_ROOT	"/sys/bus/event_source/devices"
#define TRACEFS		"/sys/kernel/tracing"
#define TRACEFS_OLD	"/sys/kernel/debug/tracing"
#define SMALL_FILE	512	/* sysfs type, id, format and alias files */

struct pmu {
	struct span name;
	char dir[PATH_MAX];	/* <pmu_root>/<name> */
	struct err *err;
};

/* ---- files ----------------------------------------------------------------- */

/* A name that is safe as one path component. */
static bool valid_name(struct span s)
{
	if (!s.n || s.p[0] == '.')
		return false;
	for (size_t i = 0; i < s.n; i++) {
		if (!is_name_char(s.p[i]))
			return false;
	}
	return true;
}

static int path_fmt(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int path_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Read a small text file, NUL-terminated, trailing whitespace cut. */
static int read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	size_t len = 0;
	ssize_t n = 0;
	int ret = 0;

	if (fd < 0)
		return -errno;
	while (len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (n < 0)
		ret = -errno;
	else if (len == size - 1)
		ret = -EFBIG;
	close(fd);
	while (len && isspace((unsigned char)buf[len - 1]))
		len--;
	buf[len] = '\0';
	return ret;
}

static int read_u64(const char *path, uint64_t *v)
{
	char buf[64];
	int ret = read_text(path, buf, sizeof(buf));

	if (ret)
		return ret;
	return parse_digits((struct span){ buf, strlen(buf) }, 10, v) ? -EINVAL : 0;
}

static bool missing(int ret)
{
	return ret == -ENOENT || ret == -ENOTDIR;
}

/* ---- PMU syntax: pmu/term,term=value/ ------------------------------------- */

static __u64 *attr_field(struct perf_event_attr *a, struct span name)
{
	if (span_eq(name, "config"))
		return &a->config;
	if (span_eq(name, "config1"))
		return &a->config1;
	if (span_eq(name, "config2"))
		return &a->config2;
	return NULL;
}

/* "lo-hi" or "bit" */
static int parse_range(struct span s, unsigned *lo, unsigned *hi)
{
	const char *dash = memchr(s.p, '-', s.n);
	struct span a = { s.p, dash ? (size_t)(dash - s.p) : s.n };
	struct span b = dash ? (struct span){ dash + 1, s.n - a.n - 1 } : a;
	uint64_t l, h;

	if (parse_digits(a, 10, &l) || parse_digits(b, 10, &h) || l > h || h > 63)
		return -EINVAL;
	*lo = (unsigned)l;
	*hi = (unsigned)h;
	return 0;
}

/*
 * Place v into the bits a format file names ("config:0-7,32-35"), low bits
 * first. -EINVAL for a bad format, -ERANGE when v does not fit.
 */
static int format_place(const char *fmt, uint64_t v, struct perf_event_attr *a)
{
	const char *colon = strchr(fmt, ':'), *p;
	__u64 *dst;

	if (!colon || !colon[1])
		return -EINVAL;
	dst = attr_field(a, (struct span){ fmt, (size_t)(colon - fmt) });
	if (!dst)
		return -EINVAL;
	for (p = colon + 1; *p; p += *p == ',') {
		size_t n = strcspn(p, ",");
		unsigned lo, hi, width;
		uint64_t mask;

		if (parse_range(span_trim(p, n), &lo, &hi))
			return -EINVAL;
		width = hi - lo + 1;
		mask = width == 64 ? ~0ULL : (1ULL << width) - 1;
		*dst = (*dst & ~(mask << lo)) | (v & mask) << lo;
		v = width == 64 ? 0 : v >> width;
		p += n;
	}
	return v ? -ERANGE : 0;
}

static int pmu_file(const struct pmu *pmu, const char *dir, struct span name,
		    char *path, char *buf)
{
	int ret = path_fmt(path, PATH_MAX, "%s/%s/%.*s", pmu->dir, dir, SPAN(name));

	return ret ? ret : read_text(path, buf, SMALL_FILE);
}

static int apply_terms(const struct pmu *pmu, struct item *it,
		       struct span terms, bool in_alias);

static int format_term(const struct pmu *pmu, struct item *it, struct span key,
		       struct span val, bool has_val, bool in_alias)
{
	char path[PATH_MAX], buf[SMALL_FILE];
	uint64_t v = 1;
	int ret;

	if (has_val && parse_u64(val, &v))
		return err_set(pmu->err, -EINVAL, "event '%.*s': bad value '%.*s' for term '%.*s'",
			       SPAN(it->text), SPAN(val), SPAN(key));
	ret = pmu_file(pmu, "format", key, path, buf);
	if (!ret) {
		ret = format_place(buf, v, &it->ev.attr);
		if (ret == -ERANGE)
			return err_set(pmu->err, -EINVAL,
				       "event '%.*s': value %#llx too big for term '%.*s' of PMU '%.*s'",
				       SPAN(it->text), (unsigned long long)v, SPAN(key),
				       SPAN(pmu->name));
		if (ret)
			return err_set(pmu->err, ret, "event '%.*s': bad format '%s' in %s",
				       SPAN(it->text), buf, path);
		return 0;
	}
	if (missing(ret) && !has_val && !in_alias) {
		/* an event alias: <pmu>/events/<key> holds more terms */
		ret = pmu_file(pmu, "events", key, path, buf);
		if (!ret)
			return apply_terms(pmu, it, (struct span){ buf, strlen(buf) }, true);
	}
	if (missing(ret))
		return err_set(pmu->err, -PREC_EUNKNOWN,
			       "event '%.*s': unknown term '%.*s' for PMU '%.*s'",
			       SPAN(it->text), SPAN(key), SPAN(pmu->name));
	return err_set(pmu->err, ret, "event '%.*s': cannot read %s: %s",
		       SPAN(it->text), path, err_str(ret));
}

enum term_kind { T_CONFIG, T_PERIOD, T_FREQ, T_NAME };

static const struct {
	const char *name;
	enum term_kind kind;
} builtin_terms[] = {
	{ "config", T_CONFIG },
	{ "config1", T_CONFIG },
	{ "config2", T_CONFIG },
	{ "period", T_PERIOD },
	{ "freq", T_FREQ },
	{ "name", T_NAME },
};

static int builtin_term(const struct pmu *pmu, struct item *it, enum term_kind kind,
			struct span key, struct span val)
{
	struct perf_event_attr *a = &it->ev.attr;
	uint64_t v;

	if (kind == T_NAME) {
		if (!val.n || val.n > EVENT_NAME_MAX)
			return err_set(pmu->err, -EINVAL, "event '%.*s': bad name '%.*s'",
				       SPAN(it->text), SPAN(val));
		memcpy(it->ev.name, val.p, val.n);
		it->ev.name[val.n] = '\0';
		it->named = true;
		return 0;
	}
	if (parse_u64(val, &v))
		return err_set(pmu->err, -EINVAL, "event '%.*s': bad value '%.*s' for term '%.*s'",
			       SPAN(it->text), SPAN(val), SPAN(key));
	if (kind == T_CONFIG) {
		*attr_field(a, key) = v;
		return 0;
	}
	a->sample_period = v;	/* a union with sample_freq */
	a->freq = kind == T_FREQ;
	it->ev.explicit_period = true;
	return 0;
}

static int apply_term(const struct pmu *pmu, struct item *it, struct span term,
		      bool in_alias)
{
	const char *eq = memchr(term.p, '=', term.n);
	struct span key = span_trim(term.p, eq ? (size_t)(eq - term.p) : term.n);
	struct span val = { "", 0 };

	if (eq)
		val = span_trim(eq + 1, term.n - (size_t)(eq + 1 - term.p));
	if (!valid_name(key))
		return err_set(pmu->err, -EINVAL, "event '%.*s': bad term '%.*s'",
			       SPAN(it->text), SPAN(term));
	if (in_alias && span_eq(val, "?"))
		return 0;	/* a value the user is to supply */
	for (size_t i = 0; i < ARRAY_SIZE(builtin_terms); i++) {
		if (!span_eq(key, builtin_terms[i].name))
			continue;
		if (!eq)
			return err_set(pmu->err, -EINVAL, "event '%.*s': term '%.*s' needs a value",
				       SPAN(it->text), SPAN(key));
		return builtin_term(pmu, it, builtin_terms[i].kind, key, val);
	}
	return format_term(pmu, it, key, val, eq != NULL, in_alias);
}

static int apply_terms(const struct pmu *pmu, struct item *it,
		       struct span terms, bool in_alias)
{
	const char *p = terms.p, *end = terms.p + terms.n;
	int ret;

	if (!span_trim(terms.p, terms.n).n)
		return 0;
	for (;;) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		struct span term = span_trim(p, (size_t)((c ? c : end) - p));

		if (!term.n)
			return err_set(pmu->err, -EINVAL, "event '%.*s': empty term",
				       SPAN(it->text));
		ret = apply_term(pmu, it, term, in_alias);
		if (ret || !c)
			return ret;
		p = c + 1;
	}
}

static bool pmu_is_core(const struct pmu *pmu, uint32_t type)
{
	static const char *const core[] = { "cpu", "cpu_core", "cpu_atom", "cpum_cf" };
	char path[PATH_MAX];

	if (type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW)
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(core); i++) {
		if (span_eq(pmu->name, core[i]))
			return true;
	}
	/* arm core PMUs list their CPUs in "cpus"; uncore ones have "cpumask" */
	return !path_fmt(path, sizeof(path), "%s/cpus", pmu->dir) && !access(path, F_OK);
}

static int pmu_open(const struct event_env *env, struct item *it, struct pmu *pmu)
{
	const char *root = env && env->pmu_root ? env->pmu_root : PMU_ROOT;
	char path[PATH_MAX];
	uint64_t type;
	int ret;

	if (!valid_name(pmu->name))
		return err_set(pmu->err, -EINVAL, "event '%.*s': bad PMU name '%.*s'",
			       SPAN(it->text), SPAN(pmu->name));
	ret = path_fmt(pmu->dir, sizeof(pmu->dir), "%s/%.*s", root, SPAN(pmu->name));
	if (!ret)
		ret = path_fmt(path, sizeof(path), "%s/type", pmu->dir);
	if (!ret)
		ret = read_u64(path, &type);
	if (missing(ret))
		return err_set(pmu->err, -ENOENT, "event '%.*s': no PMU '%.*s'",
			       SPAN(it->text), SPAN(pmu->name));
	if (!ret && type > UINT32_MAX)
		ret = -EINVAL;
	if (ret)
		return err_set(pmu->err, ret, "event '%.*s': cannot read %s/type: %s",
			       SPAN(it->text), pmu->dir, err_str(ret));
	it->ev.attr.type = (uint32_t)type;
	it->ev.is_hardware = pmu_is_core(pmu, (uint32_t)type);
	return 0;
}

int events__pmu(const struct event_env *env, struct item *it, size_t name_len,
		struct err *err)
{
	struct span t = it->text;
	const char *terms = t.p + name_len + 1, *close;
	struct pmu pmu = { .name = { t.p, name_len }, .err = err };
	size_t rest;
	int ret;

	close = memchr(terms, '/', t.n - name_len - 1);
	if (!close)
		return err_set(err, -EINVAL, "event '%.*s': missing closing '/'", SPAN(t));
	rest = t.n - (size_t)(close + 1 - t.p);
	it->has_mods = rest > 0;
	it->mods = (struct span){ close + 1, rest };
	if (rest && close[1] == ':') {
		it->mods.p++;
		it->mods.n--;
	}
	ret = pmu_open(env, it, &pmu);
	if (ret)
		return ret;
	return apply_terms(&pmu, it, (struct span){ terms, (size_t)(close - terms) }, false);
}

/* ---- tracefs --------------------------------------------------------------- */

/* The first default folder with an events folder: 0, -EACCES when one
 * exists but this user may not look inside, else -ENOENT. */
static int tracefs_find(char *buf, size_t size)
{
	static const char *const dirs[] = { TRACEFS, TRACEFS_OLD };
	int ret = -ENOENT;

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		if (path_fmt(buf, size, "%s/events", dirs[i]))
			return -ENAMETOOLONG;
		if (!access(buf, F_OK))
			return 0;
		if (errno == EACCES)
			ret = -EACCES;
	}
	return ret;
}

int events_tracefs(const struct event_env *env, char *buf, size_t size, struct err *err)
{
	int ret;

	if (env && env->tracefs) {
		ret = path_fmt(buf, size, "%s/events", env->tracefs);
		return ret ? err_set(err, ret, "tracefs path too long: %s", env->tracefs) : 0;
	}
	ret = tracefs_find(buf, size);
	if (ret == -ENOENT) {
		/* what perf does on first use of a tracepoint (tracefs__mount) */
		if (mount("nodev", TRACEFS, "tracefs", 0, NULL))
			return err_set(err, -ENOENT, "tracefs is not mounted and mounting it failed "
				       "(%s); as root: mount -t tracefs nodev %s",
				       strerror(errno), TRACEFS);
		ret = tracefs_find(buf, size);
	}
	if (ret == -EACCES)
		return err_set(err, ret, "cannot read %s: %s (tracefs is readable by root only here)",
			       TRACEFS, strerror(EACCES));
	if (ret == -ENOENT)
		return err_set(err, ret, "no tracepoints: tracefs at %s has no events folder",
			       TRACEFS);
	return ret ? err_set(err, ret, "tracefs path too long") : 0;
}

/* ---- tracepoints: sys:event ------------------------------------------------ */

int events__tracepoint(const struct event_env *env, struct item *it,
		       struct span sys, struct span rest, struct err *err)
{
	const char *colon = memchr(rest.p, ':', rest.n);
	struct span name = { rest.p, colon ? (size_t)(colon - rest.p) : rest.n };
	struct span tp = { sys.p, (size_t)(name.p + name.n - sys.p) };
	char dir[PATH_MAX], path[PATH_MAX];
	uint64_t id;
	int ret;

	if (colon) {
		it->has_mods = true;
		it->mods = (struct span){ colon + 1, rest.n - name.n - 1 };
	}
	if (!valid_name(sys) || !valid_name(name))
		return err_set(err, -EINVAL, "tracepoint '%.*s': bad name", SPAN(tp));
	ret = events_tracefs(env, dir, sizeof(dir), err);
	if (ret) {
		err_prefix(err, "tracepoint '%.*s'", SPAN(tp));
		return ret;
	}
	ret = path_fmt(path, sizeof(path), "%s/%.*s/%.*s/id", dir, SPAN(sys), SPAN(name));
	if (!ret)
		ret = read_u64(path, &id);
	if (missing(ret))
		return err_set(err, -ENOENT, "tracepoint '%.*s': not found in %s", SPAN(tp), dir);
	if (ret)
		return err_set(err, ret, "tracepoint '%.*s': cannot read id in %s: %s",
			       SPAN(tp), dir, err_str(ret));
	it->ev.attr.type = PERF_TYPE_TRACEPOINT;
	it->ev.attr.config = id;
	return 0;
}

/* ---- walking what there is, for listings ------------------------------------- */

struct walk {
	enum event_walk what;
	event_item_fn fn;
	void *ctx;
};

static int visible(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void names_free(struct dirent **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* perf keeps these beside the aliases: they describe one, are not one */
static bool alias_side_file(const char *name)
{
	static const char *const ext[] = { ".scale", ".unit", ".per-pkg", ".snapshot" };
	const char *dot = strrchr(name, '.');

	for (size_t i = 0; dot && i < ARRAY_SIZE(ext); i++) {
		if (!strcmp(dot, ext[i]))
			return true;
	}
	return false;
}

/* One item of dir: fills it->value (in buf) or checks the id; false to skip. */
static bool walk_item(const struct walk *w, const char *dir, struct event_item *it,
		      char *buf)
{
	char path[PATH_MAX];

	if (!valid_name((struct span){ it->name, strlen(it->name) }))
		return false;
	if (w->what == EVENT_WALK_TRACEPOINTS)
		return !path_fmt(path, sizeof(path), "%s/%s/id", dir, it->name) &&
		       !access(path, R_OK);
	if (w->what == EVENT_WALK_PMU_ALIASES && alias_side_file(it->name))
		return false;
	it->value = buf;
	return !path_fmt(path, sizeof(path), "%s/%s", dir, it->name) &&
	       !read_text(path, buf, SMALL_FILE);
}

/* The items of one PMU or tracepoint system; one that has none is skipped. */
static int walk_group(const struct walk *w, const char *top, const char *group)
{
	const char *sub = w->what == EVENT_WALK_PMU_ALIASES ? "/events" :
			  w->what == EVENT_WALK_PMU_FORMATS ? "/format" : "";
	char dir[PATH_MAX], buf[SMALL_FILE];
	struct dirent **names;
	int n, ret = 0;

	if (!valid_name((struct span){ group, strlen(group) }) ||
	    path_fmt(dir, sizeof(dir), "%s/%s%s", top, group, sub))
		return 0;
	n = scandir(dir, &names, visible, by_name);
	if (n < 0)
		return 0;
	for (int i = 0; i < n && !ret; i++) {
		struct event_item it = { group, names[i]->d_name, NULL };

		if (walk_item(w, dir, &it, buf))
			ret = w->fn(&it, w->ctx);
	}
	names_free(names, n);
	return ret;
}

int events_for_each(const struct event_env *env, enum event_walk what, event_item_fn fn,
		    void *ctx, struct err *err)
{
	const struct walk w = { what, fn, ctx };
	char top[PATH_MAX];
	struct dirent **groups;
	int n, ret = 0;

	if (what == EVENT_WALK_TRACEPOINTS)
		ret = events_tracefs(env, top, sizeof(top), err);
	else if (path_fmt(top, sizeof(top), "%s", env && env->pmu_root ? env->pmu_root : PMU_ROOT))
		ret = err_set(err, -ENAMETOOLONG, "PMU path too long");
	if (ret)
		return ret;
	n = scandir(top, &groups, visible, by_name);
	if (n < 0)
		return err_set(err, -errno, "cannot read %s: %s", top, strerror(errno));
	for (int i = 0; i < n && !ret; i++)
		ret = walk_group(&w, top, groups[i]->d_name);
	names_free(groups, n);
	return ret;
}
