/* SPDX-License-Identifier: MIT */
/* One recording of a differential read into named stacks; see diffread.h. */
#include "diffread.h"

#include <errno.h>
#include <string.h>

#include "report/core/offcpu.h"
#include "report/core/progress.h"

void diffrun_free(struct diffrun *r)
{
	if (!r)
		return;
	stacks_free(&r->st);
	hist_free(&r->h);
	load_free(r->l);
	memset(r, 0, sizeof(*r));
}

/* the event to read: named (-1 if absent), else the first with samples */
static int pick(struct diffrun *r, const struct diffread_opts *o, const char *path,
		struct err *err)
{
	struct err e = { 0 };
	int ev = stacks_pick_event(r->l, &r->h, o->event, &e);

	if (ev < 0 && o->event)
		return err_set(err, -ENOENT, "--event: no event '%s' in '%s'", o->event, path);
	if (ev < 0)
		return err_set(err, -ENOENT, "'%s': no samples", path);
	for (size_t i = 0; i < r->h.nr_stacks; i++)
		if (r->h.stacks[i].event != ev && r->h.stacks[i].nr_frames)
			r->other_events = true;
	r->event = ev;
	r->durations = offcpu_weighted_event(load_event_name(r->l, ev));
	return 0;
}

int diffrun_read(struct diffrun *r, const struct diffread_opts *o, const char *path,
		 struct err *err)
{
	struct hist_opts ho = { .callchain = true, .inline_frames = !o->no_inline,
				.max_stack = o->max_stack, .symfs = o->lo->symfs };
	struct stacks_opts so = { .inline_frames = !o->no_inline };
	struct load_opts lo = *o->lo;
	struct err local = { 0 };
	int ret;

	if (!err)
		err = &local;
	memset(r, 0, sizeof(*r));
	memset(lo.inputs, 0, sizeof(lo.inputs));
	lo.inputs[0] = path;
	lo.nr_inputs = 1;
	if (o->progress)
		progress_install(o->progress, &lo);
	ho.keys[ho.nr_keys++] = SORT_SYM;
	if (!(r->l = load_new(&lo, err)))
		return err->code ? err->code : -EINVAL;
	if ((ret = hist_init(&r->h, &ho, load_machine(r->l), load_symbolizer(r->l)))) {
		err_set(err, ret, "out of memory");
		goto fail;
	}
	if ((ret = load_run(r->l, load_add_to_hist, NULL, &r->h, err)) ||
	    (ret = pick(r, o, path, err)))
		goto fail;
	so.event = r->event;
	so.l = r->l;
	if ((ret = hist_resolve(&r->h)) || (ret = stacks_build(&r->st, &r->h, &so))) {
		err_set(err, ret, "out of memory");
		goto fail;
	}
	return 0;
fail:
	diffrun_free(r);
	return ret < 0 ? ret : -EINVAL;
}
