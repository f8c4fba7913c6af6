/* SPDX-License-Identifier: MIT */
/* prep report's latency profile; see latency.h. */
#include "latency.h"

#include <errno.h>
#include <string.h>

#include "print_int.h"
#include "report/core/parallel.h"

/* "latency" is one of the comma list's names */
static bool names_latency(const char *list)
{
	for (size_t len; list && *list; list += len + (list[len] == ',')) {
		len = strcspn(list, ",");
		if (len == 7 && !memcmp(list, "latency", 7))
			return true;
	}
	return false;
}

void latency_setup(struct latency_opts *o, const char *sort, const char *fields,
		   struct load_opts *lo, struct hist_opts *ho, struct print_opts *po)
{
	o->sort_latency = names_latency(sort) || names_latency(fields);
	o->asked = o->latency || o->sort_latency || lo->parallelism_list ||
		   sort_keys_have(ho->keys, ho->nr_keys, SK_PARALLEL);
	if (!o->asked)
		return;
	lo->parallelism = true;
	ho->latency = true;
	/* perf: --latency, or a latency key, puts the latency first */
	ho->prefer_latency = o->latency || o->sort_latency;
	po->latency = ho->prefer_latency ? PL_FIRST : PL_AFTER;
}

/* perf_session__has_switch_events(): some event records context switches */
static bool has_switches(const struct session *s)
{
	for (size_t i = 0; i < s->nr_events; i++)
		if (s->events[i].attr.context_switch)
			return true;
	return false;
}

int latency_check_switches(const struct load *l, struct err *err)
{
	for (size_t i = 0; i < load_nr_sessions(l); i++)
		if (!has_switches(load_session(l, i)))
			return err_set(err, -EINVAL, "use of latency profile or parallelism requires "
				       "--latency flag during record (%s has no context switches)",
				       load_session(l, i)->path);
	return 0;
}

int latency_check(const struct latency_opts *o, const struct load *l, struct hist *h,
		  struct print_opts *po, bool folded, struct err *err)
{
	const struct parallel *p = load_parallel(l);

	if (!o->asked)
		return 0;
	if (latency_check_switches(l, err))
		return -EINVAL;
	if (po->group || print_has_groups(l)) {
		if (o->latency || o->sort_latency || h->by_par)
			return err_set(err, -EINVAL, "the group view (--group, {a,b}:S events) has "
				       "no Latency column: --latency and the latency and parallelism "
				       "keys do not apply to it");
		po->latency = PL_OFF;   /* --parallelism alone: a filter */
		h->opts.latency = false;
		return 0;
	}
	if (folded && (o->latency || o->sort_latency))
		return err_set(err, -EINVAL, "--folded weighs stacks by their period: --latency "
			       "and the latency key do not apply to it");
	/* perf hides the column of a profile that hardly ran in parallel,
	 * unless it is asked for by name */
	if (po->latency == PL_AFTER && parallel_samples(p) &&
	    parallel_single(p) * 100 / parallel_samples(p) >= 99) {
		po->latency = PL_OFF;
		h->opts.latency = false;
	}
	return 0;
}

/* the shown entries' latency, as print.c's shown_totals sums the periods:
 * with --dso or --symbols only what they keep */
static uint64_t shown_latency(const struct load *l, const struct hist *h)
{
	uint64_t sum = 0;

	if (!load_filters_frames(l))
		return h->total_latency;
	for (size_t i = 0; i < h->nr_entries; i++)
		if (load_frame_wanted(l, &h->frames[h->entries[i].frame]))
			sum += h->entries[i].self_latency;
	return sum;
}

uint64_t latency_total(const struct load *l, const struct hist *h, const struct print_opts *po,
		       int event)
{
	uint64_t shown = shown_latency(l, h), all = parallel_event_latency(load_parallel(l), event);

	return po->absolute && all > shown ? all : shown;
}

/*
 * perf's columns (ui/hist.c): Overhead, Children, Self and Latency are 8
 * wide, the Latency of the children 7 (it has no width of its own, its
 * title's is taken); each value is " %*.2f%%" in its width less two, and
 * the first column follows the "# " of the title lines.
 */
struct lcol {
	const char *title;
	int width;
	bool latency, total;
};

static size_t layout(const struct print_opts *po, struct lcol *c)
{
	const struct lcol over = { "Overhead", 8, false, false }, lat = { "Latency", 8, true, false },
			  child = { "Children", 8, false, true }, self = { "Self", 8, false, false },
			  lat_acc = { "Latency", 7, true, true };
	bool first = po->latency == PL_FIRST;

	if (!po->children) {
		c[0] = first ? lat : over;
		c[1] = first ? over : lat;
		return 2;
	}
	c[0] = first ? lat_acc : child;
	c[1] = first ? child : lat_acc;
	c[2] = first ? lat : self;
	c[3] = first ? self : lat;
	return 4;
}

int latency_titles(struct buf *b, const struct print_opts *po, bool dots)
{
	struct lcol c[4];
	size_t n = layout(po, c);
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++)
		ret = dots ? buf_printf(b, "%s%.*s", i ? "  " : " ", c[i].width, "........") :
			     buf_printf(b, "%s%*s", i ? "  " : " ", c[i].width, c[i].title);
	return ret;
}

int latency_values(struct buf *b, const struct print_opts *po, const struct hentry *e,
		   uint64_t total, uint64_t latency_total)
{
	struct lcol c[4];
	size_t n = layout(po, c);
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		uint64_t v = c[i].latency ? (c[i].total ? e->total_latency : e->self_latency) :
			     (c[i].total ? e->total_period : e->self_period);
		uint64_t t = c[i].latency ? latency_total : total;

		ret = buf_printf(b, "   %*.2f%%", c[i].width - 2, t ? 100.0 * (double)v / (double)t : 0.0);
	}
	return ret;
}
