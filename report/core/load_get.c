/* SPDX-License-Identifier: MIT */
/* What the views may read of a reading: the accessors of load.h. None of
 * them is on a per-sample path (views get a sample's all in struct
 * load_sample), so a call each is no cost worth inlining. */
#include "load_int.h"
#include "offcpu.h"

#include <string.h>

const struct load_opts *load_options(const struct load *l)
{
	return &l->opts;
}

struct machine *load_machine(struct load *l)
{
	return &l->machine;
}

struct symbolizer *load_symbolizer(const struct load *l)
{
	return l->sym;
}

struct unwinder *load_unwinder(const struct load *l)
{
	return l->unw;
}

size_t load_nr_sessions(const struct load *l)
{
	return l->nr_sessions;
}

const struct session *load_session(const struct load *l, size_t i)
{
	return i < l->nr_sessions ? &l->sessions[i] : NULL;
}

bool load_has_callchains(const struct load *l)
{
	for (size_t i = 0; i < l->nr_sessions; i++)
		for (size_t e = 0; e < l->sessions[i].nr_events; e++)
			if ((l->sessions[i].events[e].attr.sample_type & PERF_SAMPLE_CALLCHAIN) &&
			    !offcpu_event_stackless(&l->sessions[i], e))
				return true;
	return false;
}

uint64_t load_lost_samples(const struct load *l)
{
	return l->lost_samples;
}

uint64_t load_filtered(const struct load *l)
{
	return l->filtered;
}

const struct parallel *load_parallel(const struct load *l)
{
	return l->par;
}

/* ---- the events, merged by name across files ------------------------------ */

static bool event_ok(const struct load *l, int event)
{
	return event >= 0 && (size_t)event < l->nr_events;
}

size_t load_nr_events(const struct load *l)
{
	return l->nr_events;
}

const char *load_event_name(const struct load *l, int event)
{
	return event_ok(l, event) ? l->events[event] : "unknown";
}

int load_event_index(const struct load *l, const char *name)
{
	for (size_t e = 0; e < l->nr_events; e++)
		if (!strcmp(l->events[e], name))
			return (int)e;
	return -1;
}

uint64_t load_event_samples(const struct load *l, int event)
{
	return event_ok(l, event) ? l->samples_by_event[event] : 0;
}

uint64_t load_event_period(const struct load *l, int event)
{
	return event_ok(l, event) ? l->period_by_event[event] : 0;
}

bool load_event_has_chains(const struct load *l, int event)
{
	return event_ok(l, event) && l->event_chains[event];
}

const struct perf_event_attr *load_event_attr(const struct load *l, int event)
{
	for (size_t i = 0; i < l->nr_sessions; i++)
		for (size_t e = 0; e < l->sessions[i].nr_events && e < LOAD_MAX_EVENTS; e++)
			if (l->event_map[i][e] == event)
				return &l->sessions[i].events[e].attr;
	return NULL;
}

int load_event_group_leader(const struct load *l, int event)
{
	return event_ok(l, event) ? l->group_leader[event] - 1 : -1;
}

const char *load_source_line(const struct load *l, const char *path, uint32_t line)
{
	for (size_t i = l->nr_sessions; i-- > 0;) {
		const struct session *s = &l->sessions[i];

		for (size_t j = s->nr_sources; j-- > 0;) {
			const char *t = source_find(s->sources[j], path, line);

			if (t)
				return t;
		}
	}
	return NULL;
}
