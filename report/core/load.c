/* SPDX-License-Identifier: MIT */
/* Reading inputs for the report and script; see load.h. */
#include "load_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/opts.h"
#include "format/blocks.h"
#include "offcpu.h"
#include "report/aggregate/daddr.h"
#include "parallel.h"
#include "sums_build.h"

static void warn(void *ctx, const char *msg)
{
	const struct load *l = ctx;

	if (!l->opts.quiet)
		log_msg(LOG_WARNING, "%s", msg);
}

/* For the data sort keys: the sample's data address named while its maps
 * are current (none without PERF_SAMPLE_ADDR: "[unknown]" 0). */
static int add_with_data(struct hist *h, struct load *l, const struct load_sample *s)
{
	const struct sample *smp = &s->rec->u.sample;
	struct stack_data sd = { 0 };
	struct daddr d;

	if (smp->type & PERF_SAMPLE_ADDR) {
		int ret = daddr_resolve(load_machine(l), load_symbolizer(l), load_options(l)->symfs,
					s->thread, smp->addr, &d);

		if (ret)
			return ret;
		sd.dso = d.dso;
		sd.sym = d.sym;
		sd.addr = d.sym ? d.sym_start : smp->addr;
	} else if (!l->warned_no_daddr) {
		char msg[256];

		l->warned_no_daddr = true;
		snprintf(msg, sizeof(msg), "the samples of event '%s' have no data address: they "
			 "show as 0x0 in [unknown] (record with prec -d)", load_event_name(l, s->event));
		warn(l, msg);
	}
	return hist_add_data(h, &sd, s->event, s->thread,
			     (smp->type & PERF_SAMPLE_CPU) ? smp->cpu : 0,
			     (smp->type & PERF_SAMPLE_CGROUP) ? smp->cgroup : 0, s->period, s->addrs,
			     s->kernel, s->nr, s->kernel_table);
}

int load_add_to_hist(void *hist, struct load *l, const struct load_sample *s)
{
	const struct sample *smp = &s->rec->u.sample;
	struct hist *h = hist;
	int ret;

	hist_set_parallelism(h, s->parallelism);
	if (hist_wants_data(h))
		ret = add_with_data(h, l, s);
	else
		ret = hist_add_cgroup(h, s->event, s->thread,
				      (smp->type & PERF_SAMPLE_CPU) ? smp->cpu : 0,
				      (smp->type & PERF_SAMPLE_CGROUP) ? smp->cgroup : 0,
				      s->period, s->addrs, s->kernel, s->nr, s->kernel_table);
	/* a sum of samples (load_run_sum): the others alike */
	if (!ret && s->count > 1)
		h->stacks[h->last_stack].count += s->count - 1;
	return ret;
}

/* l zeroed; on failure its parts are freed by load_free. */
static int load_init(struct load *l, const struct load_opts *o, struct err *err)
{
	struct symbolizer_opts so = { .warn = warn, .warn_ctx = l };
	char debug_root[4096], cache[4096];

	machine_init(&l->machine);
	if (load_opts_check(o, err) || filter_compile(&l->filter, &o->f, err))
		return -EINVAL;
	l->opts = *o;
	/* with --symfs, debug files are looked for under it too, as perf does */
	if (o->symfs && *o->symfs) {
		snprintf(debug_root, sizeof(debug_root), "%s/usr/lib/debug", o->symfs);
		so.debug_root = debug_root;
	}
	so.kallsyms_path = o->kallsyms_path;
	so.cache_dir = o->no_cache ? NULL : load_cache_dir(cache, sizeof(cache));
	if (so.cache_dir && !(l->cache_dir = strdup(so.cache_dir)))
		return err_set(err, -ENOMEM, "out of memory");
	l->sym = symbolizer_new(&so);
	l->unw = unwinder_new(&l->machine, o->symfs);
	l->off = offcpu_new(o->wall);
	if (!l->sym || !l->unw || !l->off)
		return err_set(err, -ENOMEM, "out of memory");
	if (o->parallelism && !(l->par = parallel_new(o->parallelism_list, err)))
		return -EINVAL;
	/* Reading /proc/kallsyms is the slowest single step of a report (the
	 * kernel formats 100k+ lines): overlap it with reading the file. */
	if (!o->no_kallsyms)
		symbolizer_prefetch_kallsyms(l->sym);
	return 0;
}

struct load *load_new(const struct load_opts *o, struct err *err)
{
	/* zeroed: load_init and load_free count on it */
	struct load *l = calloc(1, sizeof(*l));

	if (!l) {
		err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	if (load_init(l, o, err)) {
		load_free(l);
		return NULL;
	}
	return l;
}

void load_close_inputs(struct load *l)
{
	for (size_t i = 0; i < l->nr_sessions; i++)
		session_close(&l->sessions[i]);
	l->nr_sessions = 0;
}

void load_free(struct load *l)
{
	if (!l)
		return;
	load_close_inputs(l);
	symbolizer_free(l->sym);
	unwinder_free(l->unw);
	offcpu_free(l->off);
	free(l->cache_dir);
	machine_free(&l->machine);
	for (size_t i = 0; i < l->nr_merged; i++)
		embed_free(l->merged[i]);
	free(l->merged);
	free(l->embeds);
	filter_free(&l->filter);
	sums_build_free(l->sb);
	read_deltas_free(&l->deltas);
	load_live_free(l);
	parallel_free(l->par);
	free(l);
}

bool load_frame_wanted(const struct load *l, const struct frame *f)
{
	return filter_frame_wanted(&l->filter, f->dso ? f->dso->short_name : NULL,
				   f->dso ? f->dso->path : NULL, f->sym);
}

bool load_filters_frames(const struct load *l)
{
	return filter_by_frame(&l->filter);
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

/* Counting: every sample of an event, before the filters (count samples
 * of total period). */
static void count_sample(struct load *l, int event, uint64_t count, uint64_t period)
{
	l->samples_by_event[event] += count;
	l->period_by_event[event] += period;
	parallel_count(l->par, event, period);
}

/* Filtering on what the sample carries (ids, CPU, time). */
static bool sample_wanted(const struct run_ctx *rc, const struct sample *smp)
{
	const struct filter *f = &rc->l->filter;

	return filter_ids_wanted(f, smp->pid, smp->tid, smp->cpu) &&
	       filter_time_wanted(&f->time, smp->time, rc->t0, rc->t1);
}

/* Filtering on the sample's thread (--comm) and cgroup. */
static bool thread_wanted(const struct load *l, const struct sample *smp, const struct thread *t)
{
	if (l->filter.comms.on && !filter_name_wanted(&l->filter.comms, t->comm))
		return false;
	return !l->filter.cgroups.on || filter_cgroup_wanted(&l->filter, (smp->type & PERF_SAMPLE_CGROUP) ?
			machine_cgroup_path(&l->machine, smp->cgroup) : NULL);
}

/* Leader sampling: the sample read its group's counts (load_read.c).
 * Each member whose count grew since its last sample stands for a sample
 * of that member weighted by the growth (as perf: none when it did not
 * grow); they are counted here, and given to fn by read_group_deliver. */
static int read_group(struct run_ctx *rc, struct session *s, const struct record *rec)
{
	struct load *l = rc->l;
	const struct sample *smp = &rec->u.sample;
	int leader = l->event_map[rc->file][rec->event];

	rc->grp_nr = 0;
	for (uint64_t i = 0; i < smp->read.nr && rc->grp_nr < LOAD_MAX_EVENTS; i++) {
		uint64_t id = read_values_id(&smp->read, i), delta;
		int ev = record_layouts_find(s->layouts, id);

		if (ev < 0 || ev >= LOAD_MAX_EVENTS)
			continue;
		if (read_deltas_step(&l->deltas, rc->file, id, smp->tid,
				     read_values_value(&smp->read, i), &delta))
			return -ENOMEM;
		ev = l->event_map[rc->file][ev];
		l->group_leader[ev] = leader + 1;
		if (!delta)
			continue;
		count_sample(l, ev, 1, delta);
		rc->grp_event[rc->grp_nr] = ev;
		rc->grp_delta[rc->grp_nr++] = delta;
	}
	return 0;
}

static int read_group_deliver(struct run_ctx *rc, struct load_sample *ls)
{
	for (size_t i = 0; i < rc->grp_nr && rc->fn; i++) {
		int ret;

		ls->event = rc->grp_event[i];
		ls->period = rc->grp_delta[i];
		ret = rc->fn(rc->ctx, rc->l, ls);
		if (ret)
			return ret;
	}
	return 0;
}

static bool is_read_group(const struct sample *smp)
{
	return (smp->type & PERF_SAMPLE_READ) && (smp->read.format & PERF_FORMAT_ID) &&
	       (smp->read.format & PERF_FORMAT_GROUP);
}

/* prec --off-cpu: a switch-out's stack, held until the thread's switch-in
 * makes it an offcpu-time sample (offcpu.h). */
static int hold_stack(struct run_ctx *rc, struct session *s, const struct record *rec)
{
	const struct sample *smp = &rec->u.sample;
	struct thread *t;
	int ret;

	if (rc->on_record && (ret = rc->on_record(rc->ctx, rc->l, s, rec)))
		return ret;
	t = machine_thread(&rc->l->machine, smp->pid, smp->tid);
	if (!t)
		return -ENOMEM;
	return offcpu_stack(rc->l->off, rec, t, rc->addrs, rc->kernel, load_assemble_chain(rc, t, rec));
}

/* An offcpu-time sample made of a wait (offcpu.h): given the parallelism
 * at its time (the switch-in that ended it), counted, filtered as a
 * recorded one (by its thread's own command: a wait open at the end shows
 * under a marked copy; --parallelism by that level), handed to fn. */
static int deliver_made(void *ctx, const struct load_sample *made)
{
	struct run_ctx *rc = ctx;
	struct load *l = rc->l;
	struct load_sample ls = *made;
	const struct sample *smp = &ls.rec->u.sample;
	const struct thread *t = machine_thread(&l->machine, smp->pid, smp->tid);
	int ret;

	if (!t)
		return -ENOMEM;
	if ((ret = parallel_sample(l->par, ls.rec, &ls.parallelism)))
		return ret;
	count_sample(l, ls.event, 1, ls.period);
	if ((l->filter.by_sample && !sample_wanted(rc, smp)) || !thread_wanted(l, smp, t) ||
	    !parallel_wanted(l->par, ls.parallelism)) {
		l->filtered++;
		return 0;
	}
	return rc->fn ? rc->fn(rc->ctx, l, &ls) : 0;
}

/* The sample's thread (machine_thread), from the recent ones when there. */
static struct thread *sample_thread(struct run_ctx *rc, uint32_t pid, uint32_t tid)
{
	unsigned k = tid % 8;

	if (!rc->recent[k].t || rc->recent[k].pid != pid || rc->recent[k].tid != tid) {
		rc->recent[k].t = machine_thread(&rc->l->machine, pid, tid);
		rc->recent[k].pid = pid;
		rc->recent[k].tid = tid;
	}
	return rc->recent[k].t;
}

/* A sample: counted, shown to on_record, filtered, its chain assembled,
 * handed to fn. */
static int on_sample(struct run_ctx *rc, struct session *s, const struct record *rec)
{
	struct load *l = rc->l;
	const struct sample *smp = &rec->u.sample;
	struct load_sample ls = { .rec = rec, .addrs = rc->addrs, .kernel = rc->kernel, .count = 1 };
	bool group = is_read_group(smp);
	int ret;

	if (rec->event < 0 || rec->event >= LOAD_MAX_EVENTS)
		return 0;
	/* a switch-out's stack: no sample, its wait will be (deliver_made) */
	if (offcpu_holds(l->off, rec->event))
		return hold_stack(rc, s, rec);
	if ((ret = parallel_sample(l->par, rec, &ls.parallelism)))
		return ret;
	ls.event = l->event_map[rc->file][rec->event];
	ls.period = sample_period(s, rec);
	if (!group)
		count_sample(l, ls.event, 1, ls.period);
	else if ((ret = read_group(rc, s, rec)))
		return ret;
	if (rc->on_record && (ret = rc->on_record(rc->ctx, l, s, rec)))
		return ret;
	if ((l->filter.by_sample && !sample_wanted(rc, smp)) ||
	    !parallel_wanted(l->par, ls.parallelism)) {
		l->filtered++;
		return 0;
	}
	ls.thread = sample_thread(rc, smp->pid, smp->tid);
	if (!ls.thread)
		return -ENOMEM;
	if (!thread_wanted(l, smp, ls.thread)) {
		l->filtered++;
		return 0;
	}
	ls.nr = load_assemble_chain(rc, ls.thread, rec);
	ls.kernel_table = (unsigned)rc->file + 1;
	if (group)
		return read_group_deliver(rc, &ls);
	return rc->fn ? rc->fn(rc->ctx, l, &ls) : 0;
}

static int on_record(void *ctx, struct session *s, const struct record *rec)
{
	struct run_ctx *rc = ctx;
	int ret;

	if (rec->type == PERF_RECORD_SAMPLE)
		return on_sample(rc, s, rec);
	/* a COMM, FORK or EXIT may give a tid another thread */
	memset(rc->recent, 0, sizeof(rc->recent));
	if (rc->memo)
		load_memo_forget(rc->memo);
	ret = machine_process(&rc->l->machine, rec);
	if (!ret)
		ret = parallel_record(rc->l->par, rec);
	if (!ret && rc->on_record)
		ret = rc->on_record(rc->ctx, rc->l, s, rec);
	if (!ret)       /* a switch-in ends an off-CPU wait: its sample after it (offcpu.h) */
		ret = offcpu_record(rc->l->off, &rc->l->machine, rec, deliver_made, rc);
	return ret;
}

int load_map_events(struct load *l, size_t file, struct err *err)
{
	const struct session *s = &l->sessions[file];

	for (size_t i = 0; i < s->nr_events && i < LOAD_MAX_EVENTS; i++) {
		const char *name = offcpu_event_name(l->off, s, i, session_event_name(s, (int)i));
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
					 (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER)) &&
				      !offcpu_event_stackless(s, i);
	}
	offcpu_file_begin(l->off, s, file, l->event_map[file]);
	return 0;
}

/* The file's events into the load's, once: 0 or -E2BIG. */
static int map_file(struct run_ctx *rc, const struct session *s)
{
	struct err e;
	uint64_t cpus = 0;

	if (!s->nr_events || rc->l->mapped[rc->file])
		return 0;
	rc->l->mapped[rc->file] = true;
	metadata_get_u64(&s->meta, META_NR_CPUS_AVAIL, &cpus);
	parallel_file(rc->l->par, cpus);
	if (load_map_events(rc->l, rc->file, &e))
		return -E2BIG;
	load_groups_from_header(rc->l, rc->file);
	return 0;
}

/* Events are known only once their blocks are read; the first sample of a
 * file maps them (EVENT blocks precede DATA blocks). */
int load_on_record_first(void *ctx, struct session *s, const struct record *rec)
{
	int ret = map_file(ctx, s);

	return ret ? ret : on_record(ctx, s, rec);
}

/* load_run_sum: count samples of total period, like the one in rec
 * (session_read_sum), as on_sample takes one (no filter, group, off-CPU
 * stack or parallelism: load_run_sum reads no file that has them). */
static int on_sum(void *ctx, struct session *s, const struct record *rec, uint64_t count,
		  uint64_t period)
{
	struct run_ctx *rc = ctx;
	struct load *l = rc->l;
	const struct sample *smp = &rec->u.sample;
	struct load_sample ls = { .rec = rec, .addrs = rc->addrs, .kernel = rc->kernel,
				  .count = count };

	if (rec->event < 0 || rec->event >= LOAD_MAX_EVENTS)
		return 0;
	ls.event = l->event_map[rc->file][rec->event];
	ls.period = (smp->type & PERF_SAMPLE_PERIOD) ? period : count * sample_period(s, rec);
	count_sample(l, ls.event, count, ls.period);
	ls.thread = sample_thread(rc, smp->pid, smp->tid);
	if (!ls.thread)
		return -ENOMEM;
	ls.nr = load_assemble_chain(rc, ls.thread, rec);
	ls.kernel_table = (unsigned)rc->file + 1;
	return rc->fn ? rc->fn(rc->ctx, l, &ls) : 0;
}

/* A sample's class beside its event and thread: its first frame (and
 * its CPU, when the view reads it). */
static void sum_key(void *ctx, const struct sample_head *h, uint16_t misc, uint64_t key[2])
{
	const struct run_ctx *rc = ctx;
	bool kernel;

	load_head_frame(h, misc, &key[0], &kernel);
	key[1] = kernel | (rc->sum_cpu ? (uint64_t)h->cpu << 1 : 0);
}

/* The file read by sums (load_run_sum) where it may be: 0 with *summed,
 * or a failure; else (*summed false) nothing read. */
static int read_sums(struct run_ctx *rc, struct session *s, bool *summed, struct err *err)
{
	static const struct session_sum_ops ops = { load_on_record_first, on_sum, sum_key,
						    machine_record_scope, SUM_KEY_IP };
	static const struct session_sum_ops ops_cpu = { load_on_record_first, on_sum, sum_key,
							machine_record_scope, SUM_KEY_IP_CPU };
	struct session_sum_cache cache;
	int ret = map_file(rc, s);

	*summed = false;
	if (ret)
		return ret;
	for (size_t i = 0; i < s->nr_events; i++)
		if (offcpu_holds(rc->l->off, (int)i))
			return 0;
	if (s->pd)
		load_prefetch_symbols(rc->l, s);
	/* kept apart by what sum_key computes */
	cache = (struct session_sum_cache){ rc->l->opts.no_kept_sums ? NULL : rc->l->cache_dir,
					    rc->sum_cpu ? 2 : 1 };
	return session_read_sum(s, rc->sum_cpu ? &ops_cpu : &ops, rc, &cache, summed, err);
}

/* The file's SAMPLE_SUMS block instead of its samples, where it may stand
 * for them: 0 with *summed, or a failure; else (*summed false) nothing
 * read. */
static int read_kept(struct run_ctx *rc, struct session *s, bool *summed, struct err *err)
{
	static const struct session_sum_ops ops = { load_on_record_first, on_sum, NULL, NULL,
						    SUM_KEY_CALL };
	struct session_sums ss;
	int ret = session_sample_sums(s, sums_event_fit, &ss, err);

	*summed = ret > 0;
	if (ret <= 0)
		return ret;
	ret = map_file(rc, s);
	if (!ret)
		ret = session_sums_replay(s, &ss, &ops, rc);
	session_sums_free(&ss);
	return ret;
}

/* The session's raw hook: the memo, then the sums being built (a sample
 * the memo took, it counted into its class). */
static int raw_hook(void *ctx, struct session *s, const uint8_t *p, uint32_t len)
{
	struct run_ctx *rc = ctx;
	int ret = rc->memo ? load_memo_raw(ctx, s, p, len) : 0;

	if (!ret && rc->l->sb)
		load_memo_class(rc->memo, sums_build_record(rc->l->sb, s, p, len));
	return ret;
}

int load_open_input(const struct load *l, size_t i, struct session *s, bool quiet,
		      struct err *err)
{

	const struct load_opts *o = &l->opts;
	int ret;

	if (i == 0 && o->mem)
		ret = session_open_mem(s, o->inputs[i], o->mem, o->mem_len, quiet, err);
	else
		ret = session_open(s, o->inputs[i], quiet, err);
	if (!ret) {
		s->progress = o->progress;
		s->progress_ctx = o->progress_ctx;
	}
	return ret;
}

/* The file's copy of kallsyms names its kernel samples (table i + 1). */
void load_file_kallsyms(struct load *l, size_t i)
{
	const struct session *s = &l->sessions[i];
	struct err e2 = { 0 };

	if (symbolizer_load_kallsyms_table(l->sym, (unsigned)i + 1, s->kallsyms, s->kallsyms_len,
					   &e2) && !l->opts.quiet)
		log_msg(LOG_WARNING, "%s: kernel symbols of the file unusable: %s",
			l->opts.inputs[i], e2.msg);
}

/* Open every input: what the files embedded and their kernel symbols are
 * known before any sample is named (and their DWARF unwound). */
static int open_all(struct load *l, bool *kallsyms_done, struct err *err)
{
	int ret;

	for (size_t i = 0; i < l->opts.nr_inputs; i++) {
		struct session *s = &l->sessions[i];

		ret = load_open_input(l, i, s, l->opts.quiet, err);
		if (ret)
			return ret;
		l->nr_sessions++;
		if (s->header.kind != CONTAINER_KIND_SAMPLES)
			return err_set(err, -EINVAL, "%s is a counting recording (%s stat record): "
				       "use prep stat report", l->opts.inputs[i], s->pd ? "perf" : "prec");
		if (!l->opts.no_embedded && s->early && load_take_embeds(l, s))
			return err_set(err, -ENOMEM, "out of memory");
		if (s->kallsyms) {
			load_file_kallsyms(l, i);
			kallsyms_done[i] = true;
		}
	}
	if (l->nr_embeds && (symbolizer_add_embedded(l->sym, l->embeds, l->nr_embeds) ||
			     unwinder_add_embedded(l->unw, l->embeds, l->nr_embeds)))
		return err_set(err, -ENOMEM, "out of memory");
	return 0;
}

/* --cpu against the CPUs the file s was recorded on. */
static int check_cpus(const struct load *l, const struct session *s, struct err *err)
{
	uint64_t n;

	if (!l->filter.cpus.on || !metadata_get_u64(&s->meta, META_NR_CPUS_AVAIL, &n) || !n ||
	    (uint64_t)l->filter.cpus.max < n)
		return 0;
	return err_set(err, -EINVAL, "--cpu '%s': CPU %ld is not in the recording (it had 0-%" PRIu64 ")",
		       l->opts.f.cpus, l->filter.cpus.max, n - 1);
}

/* For --time with percentages, the span of file i's samples: from its
 * index where it has one (and its events and metadata), else from reading
 * it once ahead (a perf.data file, a stream, a recording cut short); an
 * off-CPU recording's made samples to its end (offcpu_span_end). 0 or
 * -ENOMEM. */
static int sample_span(struct load *l, size_t i, uint64_t *t0, uint64_t *t1, struct err *err)
{
	struct session probe;
	struct err e = { 0 };
	int ret;

	*t0 = *t1 = 0;
	if (!l->filter.time.pct)
		return 0;
	ret = session_sample_span(&l->sessions[i], t0, t1, err);
	if (ret < 0 || load_open_input(l, i, &probe, true, &e))
		return ret < 0 ? ret : 0;
	if (!ret) {
		session_read(&probe, NULL, NULL, err);
		*t0 = probe.first_time;
		*t1 = probe.last_time;
	} else if (session_read_heads(&probe, &e) == -ENOMEM) {
		ret = err_set(err, -ENOMEM, "out of memory");
	}
	*t1 = offcpu_span_end(&probe, *t1);
	session_close(&probe);
	return ret < 0 ? ret : 0;
}

/* What a file gives after its records: the events of a file without
 * samples, its lost samples, and the blocks at the end of a file without
 * an index (they serve what is named after the reading; a merged entry is
 * found first). */
static int after_read(struct load *l, size_t i, const bool *kallsyms_done, struct err *err)
{
	struct session *s = &l->sessions[i];
	int ret;

	if (!l->mapped[i] && (ret = load_map_events(l, i, err)))
		return ret;
	l->lost_samples += s->stats.lost_samples;
	load_apply_build_ids(l, s);
	if (!l->opts.no_embedded && !s->early && s->nr_embeds &&
	    (load_take_embeds(l, s) || symbolizer_add_embedded(l->sym, l->embeds, l->nr_embeds)))
		return err_set(err, -ENOMEM, "out of memory");
	if (s->kallsyms && !kallsyms_done[i])
		load_file_kallsyms(l, i);
	return 0;
}

static int read_input(struct load *l, struct run_ctx *rc, const bool *kallsyms_done,
		      struct err *err)
{
	size_t i = rc->file;
	struct session *s = &l->sessions[i];
	bool summed = false;
	int ret = sample_span(l, i, &rc->t0, &rc->t1, err);

	if (ret)
		return ret;
	/* perf.data gives its build ids before its records: the script
	 * resolves as it reads */
	load_apply_build_ids(l, s);
	if (rc->memo)
		load_memo_file(rc->memo);
	if (rc->memo || l->sb) {
		s->raw = raw_hook;
		s->raw_ctx = rc;
	}
	if (rc->kept)
		ret = read_kept(rc, s, &summed, err);
	if (!ret && !summed && rc->sum)
		ret = read_sums(rc, s, &summed, err);
	if (!ret && !summed)
		ret = session_read(s, load_on_record_first, rc, err);
	s->raw = NULL;
	if (ret == -E2BIG)
		ret = err_set(err, ret, "%s: more than %d events", l->opts.inputs[i], LOAD_MAX_EVENTS);
	if (!ret)       /* the waits still open, closed at the end */
		ret = offcpu_file_end(l->off, &l->machine, s, deliver_made, rc);
	if (!ret)
		ret = check_cpus(l, s, err);
	return ret ? ret : after_read(l, i, kallsyms_done, err);
}

/* kept: fn takes a sample's count (load_sample.count), and its outcome of
 * a sample depends on nothing but the sample's bytes other than its time
 * and period and on the records before it (load_run_memo's rule). */
static int run(struct load *l, load_sample_fn fn, load_record_fn rec_fn, void *ctx,
	       struct load_memo *memo, bool kept, bool sum, bool sum_cpu, struct err *err)
{
	struct run_ctx rc = { .l = l, .fn = fn, .on_record = rec_fn, .ctx = ctx, .memo = memo,
			      .sum = sum, .sum_cpu = sum_cpu };
	bool kallsyms_done[LOAD_MAX_INPUTS] = { false };
	int ret;

	rc.addrs = malloc(CHAIN_MAX * sizeof(*rc.addrs));
	rc.kernel = malloc(CHAIN_MAX * sizeof(*rc.kernel));
	if (!rc.addrs || !rc.kernel) {
		ret = err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	rc.kept = kept && !l->opts.no_kept_sums && !l->sb && !l->par && !l->filter.by_sample &&
		  !l->filter.comms.on && !l->filter.cgroups.on;
	ret = open_all(l, kallsyms_done, err);
	for (size_t i = 0; !ret && i < l->opts.nr_inputs; i++) {
		rc.file = i;
		memset(rc.recent, 0, sizeof(rc.recent));
		ret = read_input(l, &rc, kallsyms_done, err);
	}
	if (!ret && l->opts.wall && !offcpu_seen(l->off))
		warn(l, "--wall: the input has no off-CPU time (record with prec --off-cpu): "
		     "wall-time is cpu-clock alone");
out:
	free(rc.addrs);
	free(rc.kernel);
	return ret;
}

int load_run(struct load *l, load_sample_fn fn, load_record_fn rec_fn, void *ctx,
	     struct err *err)
{
	return run(l, fn, rec_fn, ctx, NULL, false, false, false, err);
}

int load_run_sum(struct load *l, load_sample_fn fn, void *ctx, bool by_cpu, struct err *err)
{
	bool sum = l->opts.ip_only && !l->par && !l->filter.by_sample && !l->filter.cgroups.on;

	return run(l, fn, NULL, ctx, NULL, false, sum, by_cpu, err);
}

static int run_memo(struct load *l, load_sample_fn fn, load_record_fn rec_fn,
		    const struct load_memo_ops *ops, void *ctx, bool kept, struct err *err)
{
	struct load_memo *m = load_memo_new(l, ops, ctx);
	int ret;

	if (!m)
		return run(l, fn, rec_fn, ctx, NULL, kept, false, false, err);
	l->memo = m;
	ret = run(l, fn, rec_fn, ctx, m, kept, false, false, err);
	l->memo = NULL;
	load_memo_free(m);
	return ret;
}

int load_run_memo(struct load *l, load_sample_fn fn, load_record_fn rec_fn,
		  const struct load_memo_ops *ops, void *ctx, struct err *err)
{
	return run_memo(l, fn, rec_fn, ops, ctx, false, err);
}

static int hist_fn(void *ctx, struct load *l, const struct load_sample *s)
{
	struct hist *h = ctx;
	int ret = load_add_to_hist(h, l, s);

	if (!ret)
		load_memo_keep(l, s, h->last_stack);
	return ret;
}

static int hist_again(void *ctx, uint32_t stack, uint64_t time, uint64_t period)
{
	(void)time;
	return hist_count(ctx, stack, period);
}

int load_run_hist(struct load *l, struct hist *h, struct err *err)
{
	static const struct load_memo_ops ops = { hist_again };

	if (hist_wants_data(h) || h->opts.latency || h->by_par)
		return load_run(l, load_add_to_hist, NULL, h, err);
	/* a sum of samples is what hist_fn adds (load_add_to_hist) */
	return run_memo(l, hist_fn, NULL, &ops, h, true, err);
}

int load_build_sums(struct load *l)
{
	if (!l->sb)
		l->sb = sums_build_new();
	return l->sb ? 0 : -ENOMEM;
}

int load_sums_payload(struct load *l, struct buf **payload)
{
	if (!l->sb || l->nr_sessions != 1)
		return 0;
	return sums_build_payload(l->sb, &l->sessions[0], payload);
}
