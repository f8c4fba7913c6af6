/* SPDX-License-Identifier: MIT */
/*
 * prec list [sw|hw|cache|tracepoint|pmu|GLOB]...: what this machine can
 * count and sample, in perf list's layout ("  %-50s [%s]", sections in
 * perf's order, names sorted). The names come from the event parser itself
 * (events_builtin_next, events_for_each), so each one parses with -e.
 *
 * Unlike perf, which leaves out the hardware and cache events the machine
 * cannot open, they are listed with ", not supported here" in their tag:
 * each is tried with perf_event_open, as perf's is_event_supported() does.
 *
 * Arguments as in perf: a section keyword; sys:event (globs) for
 * tracepoints; any other word is the glob *word*, matched against every
 * name (tracepoints by their event part). On a terminal, perf's title and a
 * blank line after each section; in a pipe, only the event lines.
 */
#include "record.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/opts.h"

#define NAME_WIDTH	50	/* perf's "  %-50s [%s]" */
#define NOT_HERE	", not supported here"

enum support { SUPPORTED, UNSUPPORTED, UNKNOWN };

struct line {
	char *text;		/* "context-switches OR cs", owned */
	const char *tag;	/* "Software event" */
	enum support support;
};

/* Lines of one section, printed sorted. */
struct lines {
	struct line *v;
	size_t nr, cap;
};

struct lister {
	FILE *out;
	bool tty;		/* perf's pager layout: a title, blank lines */
	size_t printed;		/* event lines printed for this argument */
	int notes;		/* notes printed: the one on an unreadable tracefs */
	enum support hw;	/* of cycles: raw events follow it */
};

static const char *const builtin_tag[] = {
	[PERF_TYPE_HARDWARE] = "Hardware event",
	[PERF_TYPE_SOFTWARE] = "Software event",
	[PERF_TYPE_HW_CACHE] = "Hardware cache event",
};

/* ---- probing, as perf's is_event_supported() ------------------------------ */

static int probe_open(struct perf_event_attr *a)
{
	return (int)syscall(SYS_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Opens on this thread, user space only when the kernel is not allowed. */
static enum support probe(uint32_t type, uint64_t config)
{
	struct perf_event_attr a = { .type = type, .size = sizeof(a), .config = config,
				     .disabled = 1 };
	int fd = probe_open(&a);

	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		fd = probe_open(&a);
	}
	if (fd >= 0) {
		close(fd);
		return SUPPORTED;
	}
	if (errno == ENOENT || errno == ENODEV || errno == EOPNOTSUPP || errno == EINVAL)
		return UNSUPPORTED;
	return UNKNOWN;		/* refused, out of files: it says nothing */
}

/* ---- output ------------------------------------------------------------------- */

static void print_line(struct lister *ls, const char *text, const char *tag,
		       enum support s)
{
	fprintf(ls->out, "  %-*s [%s%s]\n", NAME_WIDTH, text, tag,
		s == UNSUPPORTED ? NOT_HERE : "");
	ls->printed++;
}

static void section_end(struct lister *ls, size_t nr)
{
	if (ls->tty && nr)
		fputc('\n', ls->out);
}

static int lines_add(struct lines *l, const char *text, const char *tag, enum support s)
{
	char *copy;

	if (l->nr == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 32;
		struct line *v = array_realloc(l->v, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	copy = strdup(text);
	if (!copy)
		return -ENOMEM;
	l->v[l->nr++] = (struct line){ copy, tag, s };
	return 0;
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

/* Print sorted, then free. */
static void lines_flush(struct lister *ls, struct lines *l)
{
	if (l->nr)
		qsort(l->v, l->nr, sizeof(*l->v), line_cmp);
	for (size_t i = 0; i < l->nr; i++) {
		print_line(ls, l->v[i].text, l->v[i].tag, l->v[i].support);
		free(l->v[i].text);
	}
	section_end(ls, l->nr);
	free(l->v);
	*l = (struct lines){ 0 };
}

static bool glob_ok(const char *glob, const char *name, int flags)
{
	return !glob || (name && !fnmatch(glob, name, flags));
}

/* ---- sections ------------------------------------------------------------------ */

/* hardware, software or hw-cache events; "name OR alias" as perf writes it */
static int list_builtin(struct lister *ls, uint32_t type, const char *glob)
{
	struct lines l = { 0 };
	struct event_name ev;
	char text[2 * sizeof(ev.name) + 8];
	size_t pos = 0;
	int ret = 0;

	while (!ret && events_builtin_next(type, &pos, &ev)) {
		enum support s;

		if (!glob_ok(glob, ev.name, 0) && !(ev.alias && glob_ok(glob, ev.alias, 0)))
			continue;
		s = probe(type, ev.config);
		if (type == PERF_TYPE_HARDWARE && ev.config == PERF_COUNT_HW_CPU_CYCLES)
			ls->hw = s;
		snprintf(text, sizeof(text), "%s%s%s", ev.name, ev.alias ? " OR " : "",
			 ev.alias ? ev.alias : "");
		ret = lines_add(&l, text, builtin_tag[type], s);
	}
	lines_flush(ls, &l);
	return ret;
}

struct pmu_walk {
	struct lines lines;
	const char *glob;
	char pmu[NAME_MAX + 1];	/* the PMU whose format line is being built */
	char text[512];
};

/* "pmu/alias/", with the terms the user is to supply (",ldlat=?") as perf */
static int on_alias(const struct event_item *it, void *ctx)
{
	struct pmu_walk *w = ctx;
	int n = snprintf(w->text, sizeof(w->text), "%s/%s", it->group, it->name);

	for (const char *p = it->value; p && *p && n > 0 && (size_t)n < sizeof(w->text); ) {
		size_t len = strcspn(p, ",");

		if (len > 2 && !strncmp(p + len - 2, "=?", 2))
			n += snprintf(w->text + n, sizeof(w->text) - (size_t)n, ",%.*s",
				      (int)len, p);
		p += len + (p[len] == ',');
	}
	if (n <= 0 || (size_t)n + 2 > sizeof(w->text))
		return 0;
	memcpy(w->text + n, "/", 2);      /* room checked above */
	if (!glob_ok(w->glob, w->text, FNM_CASEFOLD) && !glob_ok(w->glob, it->name, FNM_CASEFOLD))
		return 0;
	return lines_add(&w->lines, w->text, "Kernel PMU event", SUPPORTED);
}

static int format_flush(struct pmu_walk *w)
{
	size_t n = strlen(w->text);
	int ret = 0;

	if (n && n + 2 <= sizeof(w->text)) {
		memcpy(w->text + n, "/", 2);      /* room checked above */
		ret = lines_add(&w->lines, w->text, "Kernel PMU format", SUPPORTED);
	}
	w->text[0] = '\0';
	return ret;
}

/* One line per PMU: "uprobe/ref_ctr_offset=N,retprobe/"; a one-bit term
 * needs no value (it is set to 1). */
static int on_format(const struct event_item *it, void *ctx)
{
	struct pmu_walk *w = ctx;
	const char *bits = strchr(it->value, ':');
	bool flag = bits && !strpbrk(bits, ",-");
	size_t n = strlen(w->text);
	int ret = 0;

	if (strcmp(w->pmu, it->group)) {
		ret = format_flush(w);
		snprintf(w->pmu, sizeof(w->pmu), "%s", it->group);
		n = (size_t)snprintf(w->text, sizeof(w->text), "%s/", it->group);
	} else if (n < sizeof(w->text)) {
		w->text[n++] = ',';
		w->text[n] = '\0';
	}
	if (n < sizeof(w->text))
		snprintf(w->text + n, sizeof(w->text) - n, "%s%s", it->name, flag ? "" : "=N");
	return ret;
}

/* The events sorted, then one format line per PMU (which it walks in order). */
static int list_pmu(struct lister *ls, const char *glob, struct err *err)
{
	struct pmu_walk w = { .glob = glob };
	int ret = events_for_each(NULL, EVENT_WALK_PMU_ALIASES, on_alias, &w, err);

	lines_flush(ls, &w.lines);
	if (!ret && !glob) {
		w.text[0] = '\0';
		ret = events_for_each(NULL, EVENT_WALK_PMU_FORMATS, on_format, &w, err);
		if (!ret)
			ret = format_flush(&w);
		lines_flush(ls, &w.lines);
	}
	return ret == -ENOMEM ? err_set(err, ret, "out of memory") : ret;
}

/* The syntax of mem:SYMBOL and of probes through the uprobe and kprobe
 * PMUs (common/events_probe.c), tagged as missing where the PMU is. */
static void list_probes(struct lister *ls)
{
	enum support u = access("/sys/bus/event_source/devices/uprobe", F_OK) ? UNSUPPORTED :
			 SUPPORTED;
	enum support k = access("/sys/bus/event_source/devices/kprobe", F_OK) ? UNSUPPORTED :
			 SUPPORTED;

	print_line(ls, "mem:<symbol>[/len][:access]", "Hardware breakpoint", SUPPORTED);
	print_line(ls, "u:<path>:<symbol>[+off]", "Uprobe", u);
	print_line(ls, "ur:<path>:<symbol>[+off]", "Uretprobe", u);
	print_line(ls, "k:<symbol>[+off]", "Kprobe", k);
	print_line(ls, "kr:<symbol>[+off]", "Kretprobe", k);
}

static void list_raw_and_breakpoint(struct lister *ls)
{
	print_line(ls, "rNNN", "Raw hardware event descriptor", ls->hw);
	print_line(ls, "cpu/t1=v1[,t2=v2,t3 ...]/modifier", "Raw hardware event descriptor", ls->hw);
	if (ls->tty)
		fprintf(ls->out, "   (see 'man perf-list' on how to encode it)\n\n");
	print_line(ls, "mem:<addr>[/len][:access]", "Hardware breakpoint", SUPPORTED);
	list_probes(ls);
	section_end(ls, 1);
}

struct tp_walk {
	struct lines lines;
	const char *sys_glob, *glob;
};

static int on_tracepoint(const struct event_item *it, void *ctx)
{
	struct tp_walk *w = ctx;
	char text[2 * NAME_MAX + 2];

	if (!glob_ok(w->sys_glob, it->group, 0) || !glob_ok(w->glob, it->name, 0))
		return 0;
	snprintf(text, sizeof(text), "%s:%s", it->group, it->name);
	return lines_add(&w->lines, text, "Tracepoint event", SUPPORTED);
}

/*
 * Sorted as whole "sys:event" strings, as perf does (fib6:... before
 * fib:...). A tracefs that cannot be read is a note, once: the other
 * sections stand.
 */
static int list_tracepoints(struct lister *ls, const char *sys_glob, const char *glob)
{
	struct tp_walk w = { { 0 }, sys_glob, glob };
	struct err err = { 0 };
	int ret = events_for_each(NULL, EVENT_WALK_TRACEPOINTS, on_tracepoint, &w, &err);

	lines_flush(ls, &w.lines);
	if (ret && ret != -ENOMEM && !ls->notes++) {
		fflush(ls->out);
		fprintf(stderr, "prec list: no tracepoints: %s\n", err.msg);
	}
	return ret;
}

/* ---- arguments ------------------------------------------------------------------ */

static int list_all(struct lister *ls, const char *glob, struct err *err)
{
	int ret;

	list_builtin(ls, PERF_TYPE_HARDWARE, glob);
	list_builtin(ls, PERF_TYPE_SOFTWARE, glob);
	ret = list_builtin(ls, PERF_TYPE_HW_CACHE, glob);
	if (!ret)
		ret = list_pmu(ls, glob, err);
	if (ret == -ENOMEM)
		return ret;
	if (!glob)
		list_raw_and_breakpoint(ls);
	list_tracepoints(ls, NULL, glob);
	return 0;
}

/* Which sections an argument names, as perf list's keywords. */
static int list_arg(struct lister *ls, const char *arg, struct err *err)
{
	const char *colon = strchr(arg, ':');
	char glob[EVENT_NAME_MAX + 3];

	if (!strcmp(arg, "hw") || !strcmp(arg, "hardware"))
		return list_builtin(ls, PERF_TYPE_HARDWARE, NULL);
	if (!strcmp(arg, "sw") || !strcmp(arg, "software"))
		return list_builtin(ls, PERF_TYPE_SOFTWARE, NULL);
	if (!strcmp(arg, "cache") || !strcmp(arg, "hwcache"))
		return list_builtin(ls, PERF_TYPE_HW_CACHE, NULL);
	if (!strcmp(arg, "pmu"))
		return list_pmu(ls, NULL, err);
	if (!strcmp(arg, "tracepoint"))
		return list_tracepoints(ls, NULL, NULL) == -ENOMEM ? -ENOMEM : 0;
	if (strlen(arg) > EVENT_NAME_MAX)
		return err_set(err, -EINVAL, "'%.32s...' is longer than %d characters",
			       arg, EVENT_NAME_MAX);
	if (colon) {
		/* sys:event, both globs */
		snprintf(glob, sizeof(glob), "%.*s", (int)(colon - arg), arg);
		return list_tracepoints(ls, glob, colon + 1) == -ENOMEM ? -ENOMEM : 0;
	}
	snprintf(glob, sizeof(glob), "*%s*", arg);
	return list_all(ls, glob, err);
}

/* Each argument in turn; *status 1 when one lists nothing (said why). */
static int list_args(struct lister *ls, int argc, char **argv, int *status, struct err *err)
{
	for (int i = 0; i < argc; i++) {
		int notes = ls->notes, ret;

		ls->printed = 0;
		ret = list_arg(ls, argv[i], err);
		if (ret)
			return ret;
		if (ls->printed)
			continue;
		*status = 1;
		if (ls->notes == notes)
			fprintf(stderr, "prec list: no event matches '%s'\n", argv[i]);
	}
	return 0;
}

static const char usage_line[] = "prec list [sw|hw|cache|tracepoint|pmu|SYS:EVENT|GLOB]...";

static int usage_error(const char *msg)
{
	fprintf(stderr, "prec list: %s (usage: %s)\n", msg, usage_line);
	return 129;
}

int cmd_list(int argc, char **argv)
{
	bool help = false;
	const struct opt table[] = {
		OPTION_FLAG('h', "help", &help, "show this help"),
		OPTION_END,
	};
	struct lister ls = { .out = stdout, .hw = UNKNOWN };
	struct err err = { 0 };
	int first = opts_parse(table, argc, argv, &err), status = 0, ret;

	if (first < 0)
		return usage_error(err.msg);
	if (help) {
		opts_usage(stdout, usage_line, table);
		printf("\n    With no argument, every event; a GLOB lists the events whose name "
		       "matches *GLOB*.\n");
		return 0;
	}
	for (int i = first; i < argc; i++) {
		if (argv[i][0] == '-' || !argv[i][0]) {
			char msg[64];

			snprintf(msg, sizeof(msg), "bad argument '%.40s'", argv[i]);
			return usage_error(msg);
		}
	}
	ls.tty = isatty(STDOUT_FILENO);
	if (ls.tty)
		printf("\nList of pre-defined events (to be used in -e):\n\n");
	if (first == argc)
		ret = list_all(&ls, NULL, &err);
	else
		ret = list_args(&ls, argc - first, argv + first, &status, &err);
	if (ret) {
		fflush(stdout);
		fprintf(stderr, "prec list: %s\n", err.msg[0] ? err.msg : err_str(ret));
		return 1;
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "prec list: cannot write the list: %s\n", strerror(errno));
		return 1;
	}
	return status;
}
