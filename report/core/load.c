/* SPDX-License-Identifier: MIT */
/* Reading inputs for the report and script; see load.h. */
#include "load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/log.h"
#include "common/opts.h"

static void warn(void *ctx, const char *msg)
{
	const struct load *l = ctx;

	if (!l->quiet)
		log_msg(LOG_WARNING, "%s", msg);
}

/* Where prep keeps what it may reuse between runs (the kernel symbol
 * index): $PREP_CACHE_DIR, else $XDG_CACHE_HOME/prep, else ~/.cache/prep. */
static const char *cache_dir(char *buf, size_t n)
{
	const char *d = getenv("PREP_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME"),
		   *home = getenv("HOME");
	int len;

	if (d && *d)
		return d;
	if (x && *x)
		len = snprintf(buf, n, "%s/prep", x);
	else if (home && *home) {
		len = snprintf(buf, n, "%s/.cache", home);
		if (len < 0 || (size_t)len >= n || (mkdir(buf, 0700) && errno != EEXIST))
			return NULL;
		len = snprintf(buf, n, "%s/.cache/prep", home);
	} else {
		return NULL;
	}
	return len < 0 || (size_t)len >= n ? NULL : buf;
}

int load_opt_input(const struct opt *o, const char *arg, struct err *err)
{
	struct load *l = o->dest;

	if (l->nr_inputs == LOAD_MAX_INPUTS)
		return err_set(err, -EINVAL, "at most %d input files", LOAD_MAX_INPUTS);
	l->inputs[l->nr_inputs++] = arg;
	return 0;
}

int load_add_to_hist(void *hist, struct load *l, const struct load_sample *s)
{
	const struct sample *smp = &s->rec->u.sample;

	(void)l;
	return hist_add(hist, s->event, s->thread, (smp->type & PERF_SAMPLE_CPU) ? smp->cpu : 0,
			s->period, s->addrs, s->kernel, s->nr, s->kernel_table);
}

int load_init(struct load *l, struct err *err)
{
	struct symbolizer_opts so = { .warn = warn, .warn_ctx = l };
	char debug_root[4096], cache[4096];

	if (load_check(l, err))
		return -EINVAL;
	/* with --symfs, debug files are looked for under it too, as perf does */
	if (l->symfs && *l->symfs) {
		snprintf(debug_root, sizeof(debug_root), "%s/usr/lib/debug", l->symfs);
		so.debug_root = debug_root;
	}
	so.kallsyms_path = l->kallsyms_path;
	so.cache_dir = l->no_cache ? NULL : cache_dir(cache, sizeof(cache));
	machine_init(&l->machine);
	l->sym = symbolizer_new(&so);
	l->unw = unwinder_new(&l->machine, l->symfs);
	if (!l->sym || !l->unw)
		return err_set(err, -ENOMEM, "out of memory");
	/* Reading /proc/kallsyms is the slowest single step of a report (the
	 * kernel formats 100k+ lines): overlap it with reading the file. */
	if (!l->no_kallsyms)
		symbolizer_prefetch_kallsyms(l->sym);
	return 0;
}

void load_free(struct load *l)
{
	for (size_t i = 0; i < l->nr_sessions; i++)
		session_close(&l->sessions[i]);
	symbolizer_free(l->sym);
	unwinder_free(l->unw);
	machine_free(&l->machine);
	for (size_t i = 0; i < l->nr_merged; i++)
		embed_free(l->merged[i]);
	free(l->merged);
	free(l->embeds);
}

/* "a,b,c" holds item? */
static bool in_list(const char *list, const char *item, size_t len)
{
	for (const char *p = list; p && *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (n == len && !strncmp(p, item, len))
			return true;
		p = comma ? comma + 1 : NULL;
	}
	return false;
}

static bool num_in_list(const char *list, unsigned long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lu", v);
	return in_list(list, buf, strlen(buf));
}

/* cpu lists: "0-2,5" */
static bool cpu_in_list(const char *list, unsigned cpu)
{
	for (const char *p = list; p && *p;) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;

		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		if (cpu >= a && cpu <= b)
			return true;
		p = *end == ',' ? end + 1 : NULL;
	}
	return false;
}

bool load_frame_wanted(const struct load *l, const struct frame *f)
{
	if (l->f.dsos && !(f->dso && (in_list(l->f.dsos, f->dso->short_name,
					      strlen(f->dso->short_name)) ||
				    in_list(l->f.dsos, f->dso->path, strlen(f->dso->path)))))
		return false;
	if (l->f.syms && !(f->sym && in_list(l->f.syms, f->sym, strlen(f->sym))))
		return false;
	return true;
}

/* --time START,END: seconds.fraction, either side may be empty; or percent
 * ranges "10%-20%" of the recording. */
static int parse_time(struct filters *f, struct err *err)
{
	const char *t = f->time;
	char *end;

	f->pct_start = f->pct_end = -1;
	if (!t)
		return 0;
	if (strchr(t, '%')) {
		double a = strtod(t, &end), b;

		if (*end != '%' || end[1] != '-')
			goto bad;
		b = strtod(end + 2, &end);
		if (*end != '%' || end[1] || a < 0 || b > 100 || a > b)
			goto bad;
		f->pct_start = a;
		f->pct_end = b;
		return 0;
	}
	if (*t != ',') {
		double a = strtod(t, &end);

		if (end == t || *end != ',' || a < 0)
			goto bad;
		f->t_start = (uint64_t)(a * 1e9 + 0.5);
		t = end;
	}
	if (*t != ',')
		goto bad;
	t++;
	if (*t) {
		double b = strtod(t, &end);

		if (end == t || *end || b < 0)
			goto bad;
		f->t_end = (uint64_t)(b * 1e9 + 0.5);
	}
	if (f->t_end && f->t_start > f->t_end)
		return err_set(err, -EINVAL, "--time '%s': invalid time string (the end is before "
			       "the start)", f->time);
	return 0;
bad:
	return err_set(err, -EINVAL, "--time '%s': expected START,END in seconds "
		       "(either may be empty) or a percent range like 10%%-20%%", f->time);
}

struct run_ctx {
	struct load *l;
	size_t file;
	load_sample_fn fn;
	load_record_fn on_record;
	void *ctx;
	uint64_t *addrs;
	bool *kernel;
	uint64_t t0, t1;        /* the session's sample time span, for % ranges */
};

static bool time_wanted(const struct run_ctx *rc, uint64_t t)
{
	const struct filters *f = &rc->l->f;

	if (f->pct_start >= 0) {
		double span = (double)(rc->t1 - rc->t0);
		double at = span > 0 ? ((double)(t - rc->t0)) * 100.0 / span : 0;

		return at >= f->pct_start && at <= f->pct_end;
	}
	return (!f->t_start || t >= f->t_start) && (!f->t_end || t <= f->t_end);
}

/* A sample's weight: its period, or without one the event's fixed
 * sample_period (-c), as perf reads it. */
static uint64_t sample_period(const struct session *s, const struct record *rec)
{
	const struct sample *smp = &rec->u.sample;
	uint64_t p = 1;

	if (smp->type & PERF_SAMPLE_PERIOD)
		return smp->period;
	if ((size_t)rec->event < s->nr_events && !s->events[rec->event].attr.freq)
		p = s->events[rec->event].attr.sample_period;
	return p ? p : 1;
}

static int on_record(void *ctx, struct session *s, const struct record *rec)
{
	struct run_ctx *rc = ctx;
	struct load *l = rc->l;
	const struct sample *smp = &rec->u.sample;
	struct load_sample ls;
	struct thread *t;
	bool kmode;
	size_t n = 0;
	int ret;

	if (rec->type != PERF_RECORD_SAMPLE) {
		ret = machine_process(&l->machine, rec);
		if (!ret && rc->on_record)
			ret = rc->on_record(rc->ctx, l, s, rec);
		return ret;
	}
	if (rec->event < 0 || rec->event >= LOAD_MAX_EVENTS)
		return 0;
	ls.event = l->event_map[rc->file][rec->event];
	ls.period = sample_period(s, rec);
	l->samples_by_event[ls.event]++;
	l->period_by_event[ls.event] += ls.period;
	if (rc->on_record && (ret = rc->on_record(rc->ctx, l, s, rec)))
		return ret;
	if ((l->f.pids && !num_in_list(l->f.pids, smp->pid)) ||
	    (l->f.tids && !num_in_list(l->f.tids, smp->tid)) ||
	    (l->f.cpus && !cpu_in_list(l->f.cpus, smp->cpu)) ||
	    ((l->f.time) && !time_wanted(rc, smp->time))) {
		l->filtered++;
		return 0;
	}
	t = machine_thread(&l->machine, smp->pid, smp->tid);
	if (!t)
		return -ENOMEM;
	if (l->f.comms && !in_list(l->f.comms, t->comm, strlen(t->comm))) {
		l->filtered++;
		return 0;
	}
	kmode = (rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	if ((smp->type & PERF_SAMPLE_CALLCHAIN) && smp->callchain_nr) {
		bool k = kmode, first = true;

		for (uint64_t i = 0; i < smp->callchain_nr && n < PERF_MAX_STACK_DEPTH + 8; i++) {
			uint64_t a;

			memcpy(&a, smp->callchain + 8 * i, 8);
			if (a >= PERF_CONTEXT_MAX) {
				k = a == PERF_CONTEXT_KERNEL;
				continue;
			}
			/* the chain starts with the sampled ip itself */
			if (first && a != smp->ip && (smp->type & PERF_SAMPLE_IP)) {
				rc->addrs[n] = smp->ip;
				rc->kernel[n++] = kmode;
			}
			first = false;
			rc->addrs[n] = a;
			rc->kernel[n++] = k;
		}
	}
	/* --call-graph dwarf: the kernel's part of the chain, then the user
	 * frames unwound from the copied stack */
	if ((smp->type & PERF_SAMPLE_STACK_USER) && smp->stack_size) {
		size_t k = 0, got;

		for (size_t i = 0; i < n; i++)
			if (rc->kernel[i]) {
				rc->addrs[k] = rc->addrs[i];
				rc->kernel[k++] = true;
			}
		if (!k && kmode) {
			rc->addrs[k] = smp->ip;
			rc->kernel[k++] = true;
		}
		got = unwind_user(l->unw, t, smp, rc->addrs + k, PERF_MAX_STACK_DEPTH + 8 - k);
		for (size_t i = k; i < k + got; i++)
			rc->kernel[i] = false;
		n = k + got;
	}
	if (!n) {
		rc->addrs[0] = smp->ip;
		rc->kernel[0] = kmode;
		n = 1;
	}
	ls.thread = t;
	ls.kernel_table = (unsigned)rc->file + 1;
	ls.rec = rec;
	ls.addrs = rc->addrs;
	ls.kernel = rc->kernel;
	ls.nr = n;
	return rc->fn ? rc->fn(rc->ctx, l, &ls) : 0;
}

static int map_events(struct load *l, size_t file, struct err *err)
{
	const struct session *s = &l->sessions[file];

	for (size_t i = 0; i < s->nr_events && i < LOAD_MAX_EVENTS; i++) {
		const char *name = session_event_name(s, (int)i);
		size_t j;

		for (j = 0; j < l->nr_events; j++)
			if (!strcmp(l->events[j], name))
				break;
		if (j == l->nr_events) {
			if (l->nr_events == LOAD_MAX_EVENTS)
				return err_set(err, -E2BIG, "more than %d events", LOAD_MAX_EVENTS);
			l->events[l->nr_events++] = name;
		}
		l->event_map[file][i] = (int)j;
		l->event_chains[j] |= !!(s->events[i].attr.sample_type &
					 (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER));
	}
	return 0;
}

/* Events are known only once their blocks are read; the first sample of a
 * file maps them (EVENT blocks precede DATA blocks). */
static int on_record_first(void *ctx, struct session *s, const struct record *rec)
{
	struct run_ctx *rc = ctx;

	if (s->nr_events && !rc->l->mapped[rc->file]) {
		struct err e;

		rc->l->mapped[rc->file] = true;
		if (map_events(rc->l, rc->file, &e))
			return -E2BIG;
	}
	return on_record(ctx, s, rec);
}

/* Apply the build ids of the file's BUILD_IDS blocks to dsos without one. */
static void apply_build_ids(struct load *l, const struct session *s)
{
	for (size_t i = 0; i < s->nr_build_ids; i++) {
		const struct build_id_entry *e = &s->build_ids[i];
		struct dso *d = machine_dso(&l->machine, e->path);

		if (d && !d->build_id_size && !d->sym) {
			memcpy(d->build_id, e->id, e->size);
			d->build_id_size = e->size;
			/* perf keeps the vdso it recorded in its build-id cache */
			if (!strcmp(d->path, "[vdso]") && e->size)
				d->anon = false;
		}
	}
}

static int open_input(const struct load *l, size_t i, struct session *s, bool quiet,
		      struct err *err)
{
	int ret;

	if (i == 0 && l->mem)
		ret = session_open_mem(s, l->inputs[i], l->mem, l->mem_len, quiet, err);
	else
		ret = session_open(s, l->inputs[i], quiet, err);
	if (!ret) {
		s->progress = l->progress;
		s->progress_ctx = l->progress_ctx;
	}
	return ret;
}

static bool same_binary(const struct embed_dso *a, const struct embed_dso *b)
{
	return a->build_id_size == b->build_id_size &&
	       !memcmp(a->build_id, b->build_id, a->build_id_size);
}

/* A merged entry replaces *slot (and is kept until load_free). */
static int merge_into(struct load *l, struct embed_dso **slot, const struct embed_dso *e)
{
	struct embed_dso **grown, *m;
	int ret = embed_merge(*slot, e, &m);

	if (ret)
		return ret == -ENOMEM ? ret : 0;        /* too large: the first file's data serve */
	grown = array_realloc(l->merged, l->nr_merged + 1, sizeof(*grown));
	if (!grown) {
		embed_free(m);
		return -ENOMEM;
	}
	l->merged = grown;
	l->merged[l->nr_merged++] = m;
	*slot = m;
	return 0;
}

/* Take a file's SYMBOLS data into l->embeds, one entry per build id: a
 * binary that an earlier file embedded too gets the data of both, so that
 * the hit addresses of each file are served. 0 or -ENOMEM. */
static int take_embeds(struct load *l, const struct session *s)
{
	for (size_t i = 0; i < s->nr_embeds; i++) {
		struct embed_dso *e = s->embeds[i], **slot = NULL, **grown;

		for (size_t j = 0; j < l->nr_embeds && !slot; j++)
			if (same_binary(l->embeds[j], e))
				slot = &l->embeds[j];
		if (slot) {
			if (merge_into(l, slot, e))
				return -ENOMEM;
			continue;
		}
		grown = array_realloc(l->embeds, l->nr_embeds + 1, sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		l->embeds = grown;
		l->embeds[l->nr_embeds++] = e;
	}
	return 0;
}

/* The file's copy of kallsyms names its kernel samples (table i + 1). */
static void load_kallsyms(struct load *l, size_t i)
{
	const struct session *s = &l->sessions[i];
	struct err e2 = { 0 };

	if (symbolizer_load_kallsyms_table(l->sym, (unsigned)i + 1, s->kallsyms, s->kallsyms_len,
					   &e2) && !l->quiet)
		log_msg(LOG_WARNING, "%s: kernel symbols of the file unusable: %s", l->inputs[i],
			e2.msg);
}

/* Open every input: what the files embedded and their kernel symbols are
 * known before any sample is named (and their DWARF unwound). */
static int open_all(struct load *l, bool *kallsyms_done, struct err *err)
{
	int ret;

	for (size_t i = 0; i < l->nr_inputs; i++) {
		struct session *s = &l->sessions[i];

		ret = open_input(l, i, s, l->quiet, err);
		if (ret)
			return ret;
		l->nr_sessions++;
		if (s->header.kind != CONTAINER_KIND_SAMPLES)
			return err_set(err, -EINVAL, "%s is a counting recording (%s stat record): "
				       "use prep stat report", l->inputs[i], s->pd ? "perf" : "prec");
		if (!l->no_embedded && s->early && take_embeds(l, s))
			return err_set(err, -ENOMEM, "out of memory");
		if (s->kallsyms) {
			load_kallsyms(l, i);
			kallsyms_done[i] = true;
		}
	}
	if (l->nr_embeds && (symbolizer_add_embedded(l->sym, l->embeds, l->nr_embeds) ||
			     unwinder_add_embedded(l->unw, l->embeds, l->nr_embeds)))
		return err_set(err, -ENOMEM, "out of memory");
	return 0;
}

int load_run(struct load *l, load_sample_fn fn, load_record_fn rec_fn, void *ctx,
	     struct err *err)
{
	struct run_ctx rc = { .l = l, .fn = fn, .on_record = rec_fn, .ctx = ctx };
	bool kallsyms_done[LOAD_MAX_INPUTS] = { false };
	int ret = parse_time(&l->f, err);

	if (ret)
		return ret;
	rc.addrs = malloc((PERF_MAX_STACK_DEPTH + 8) * sizeof(*rc.addrs));
	rc.kernel = malloc((PERF_MAX_STACK_DEPTH + 8) * sizeof(*rc.kernel));
	if (!rc.addrs || !rc.kernel) {
		ret = err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	ret = open_all(l, kallsyms_done, err);
	if (ret)
		goto out;
	for (size_t i = 0; i < l->nr_inputs; i++) {
		struct session *s = &l->sessions[i];

		rc.file = i;
		if (l->f.pct_start >= 0) {
			/* percent ranges need the span of the recording first */
			struct session probe;

			if (!open_input(l, i, &probe, true, err)) {
				session_read(&probe, NULL, NULL, err);
				rc.t0 = probe.first_time;
				rc.t1 = probe.last_time;
				session_close(&probe);
			}
		}
		/* perf.data gives its build ids before its records: the
		 * script resolves as it reads */
		apply_build_ids(l, s);
		ret = session_read(s, on_record_first, &rc, err);
		if (ret == -E2BIG)
			ret = err_set(err, ret, "%s: more than %d events", l->inputs[i], LOAD_MAX_EVENTS);
		if (!ret)
			ret = load_check_cpus(l, s, err);
		if (ret)
			goto out;
		if (!l->mapped[i] && (ret = map_events(l, i, err)))
			goto out;
		l->lost_samples += s->stats.lost_samples;
		apply_build_ids(l, s);
		/* a file without an index: its blocks at the end serve what is
		 * named after the reading (a merged entry is found first) */
		if (!l->no_embedded && !s->early && s->nr_embeds &&
		    (take_embeds(l, s) ||
		     symbolizer_add_embedded(l->sym, l->embeds, l->nr_embeds))) {
			ret = err_set(err, -ENOMEM, "out of memory");
			goto out;
		}
		if (s->kallsyms && !kallsyms_done[i])
			load_kallsyms(l, i);
	}
out:
	free(rc.addrs);
	free(rc.kernel);
	return ret;
}
