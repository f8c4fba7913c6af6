// SPDX-License-Identifier: MIT
/* The browser's source for a histogram read from files (browser.h). */
#include <string.h>

#include "browser.h"
#include "report/core/load.h"

static void load_event(void *ctx, int event, struct browser_event *ev)
{
	struct load *l = ctx;

	ev->name = load_event_name(l, event);
	ev->period = load_event_period(l, event);
	ev->has_chains = load_event_has_chains(l, event);
	/* prec --overwrite's tracking event: no section in the text report */
	ev->hidden = !strncmp(ev->name, "dummy", 5) && !ev->period;
}

static uint64_t load_lost(void *ctx)
{
	return load_lost_samples(ctx);
}

static bool load_wanted(void *ctx, const struct frame *f)
{
	return load_frame_wanted(ctx, f);
}

void browser_source_init(struct browser_source *src, struct load *l, struct hist *h,
			 const struct print_opts *po)
{
	memset(src, 0, sizeof(*src));
	src->hist = h;
	src->po = po;
	src->nr_events = load_nr_events(l);
	src->event = load_event;
	src->ctx = l;
	src->lost = load_lost;
	src->frame_wanted = load_filters_frames(l) ? load_wanted : NULL;
	src->dso_list = load_options(l)->f.dsos != NULL;
	src->load = l;
	src->first_event = po->event ? load_event_index(l, po->event) : -1;
	src->name = "prep report";
}
