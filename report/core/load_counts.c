/* SPDX-License-Identifier: MIT */
/* A reading that takes its counts from the file's ADDR_COUNTS block
 * (FORMAT.md 5.11) instead of its samples; see load_open_counts in load.h. */
#include "load_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/addrcounts.h"

void load_counts_free(struct load_counts *lc)
{
	addrcounts_free(lc->c);
	free(lc->dsos);
	free(lc->events);
	memset(lc, 0, sizeof(*lc));
}

/* Nothing the counts cannot tell: one file, every sample, each at its
 * first frame. */
static bool counts_may_serve(const struct load *l)
{
	return l->opts.nr_inputs == 1 && l->opts.ip_only && !l->nr_sessions &&
	       !l->filter.by_sample && !l->filter.comms.on && !l->filter.cgroups.on;
}

/* The file's parts that a reading gives beside its samples, after
 * session_addr_counts: what it embedded, its kernel symbols, its events
 * and build ids; then the binaries and events of the block. */
static int counts_setup(struct load *l, struct load_counts *lc, struct err *err)
{
	struct session *s = &l->sessions[0];
	const struct addrcounts *c = lc->c;
	uint64_t lost;

	if (!l->opts.no_embedded && load_take_embeds(l, s))
		return err_set(err, -ENOMEM, "out of memory");
	if (s->kallsyms)
		load_file_kallsyms(l, 0);
	if (l->nr_embeds && (symbolizer_add_embedded(l->sym, l->embeds, l->nr_embeds) ||
			     unwinder_add_embedded(l->unw, l->embeds, l->nr_embeds)))
		return err_set(err, -ENOMEM, "out of memory");
	if (load_map_events(l, 0, err))
		return err_prefix(err, "%s", l->opts.inputs[0]), -E2BIG;
	l->mapped[0] = true;
	load_groups_from_header(l, 0);
	load_apply_build_ids(l, s);
	lc->dsos = calloc(c->nr_dsos + 1, sizeof(*lc->dsos));
	lc->events = calloc(c->nr_events + 1, sizeof(*lc->events));
	if (!lc->dsos || !lc->events)
		return err_set(err, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < c->nr_dsos; i++) {
		lc->dsos[i] = machine_dso(&l->machine, c->strings + c->dsos[i].path);
		if (!lc->dsos[i])
			return err_set(err, -ENOMEM, "out of memory");
		machine_dso_build_id(lc->dsos[i], c->dsos[i].build_id, c->dsos[i].build_id_size);
	}
	for (uint32_t i = 0; i < c->nr_events; i++) {
		int ev = i < LOAD_MAX_EVENTS ? l->event_map[0][i] : -1;

		lc->events[i] = ev;
		if (ev >= 0) {
			l->samples_by_event[ev] += c->events[i].samples;
			l->period_by_event[ev] += c->events[i].period;
		}
	}
	if (metadata_get_u64(&s->meta, META_NR_LOST_SAMPLES, &lost))
		l->lost_samples = lost;
	return 0;
}

int load_open_counts(struct load *l, struct load_counts *lc, struct err *err)
{
	struct session *s = &l->sessions[0];
	int ret;

	memset(lc, 0, sizeof(*lc));
	if (!counts_may_serve(l))
		return 0;
	/* quiet: a file that warns at all is read as usual, warnings and all */
	ret = session_open_counts(s, l->opts.inputs[0], l->opts.mem, l->opts.mem_len, err);
	if (ret)
		return ret == -ENOMEM ? ret : 0;
	s->progress = l->opts.progress;
	s->progress_ctx = l->opts.progress_ctx;
	ret = session_addr_counts(s, &lc->c, err);
	if (ret <= 0) {
		session_close(s);
		return ret;
	}
	l->nr_sessions = 1;
	ret = counts_setup(l, lc, err);
	if (ret) {
		load_counts_free(lc);
		return ret;
	}
	return 1;
}
