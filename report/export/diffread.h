/* SPDX-License-Identifier: MIT */
/*
 * One recording of a differential read into named stacks (stacks.h), the
 * way prep export reads one: the loader with the command's options, a
 * histogram with call chains, and the stacks of one event (the one named,
 * else the first with samples). For prep flamegraph --diff, prep export
 * difffolded and prep diff --folded: read a run, add it to a side
 * (diffstacks_add, difftree_add), free it, read the next.
 *
 * No printing: failures come back with a message in err (may be NULL)
 * that names the file (or the option, for --event).
 */
#ifndef PREC_REPORT_DIFFREAD_H
#define PREC_REPORT_DIFFREAD_H

#include <stdbool.h>

#include "common/err.h"
#include "report/aggregate/hist.h"
#include "report/aggregate/stacks.h"
#include "report/core/load.h"

struct diffrun {
	struct load *l;
	struct hist h;
	struct stacks st;       /* names point into l and h */
	int event;              /* the load's index of the event read */
	bool other_events;      /* other events had samples too */
	bool durations;         /* the event's samples are nanoseconds (offcpu-time,
				   wall-time: offcpu_weighted_event): weigh by period */
};

struct diffread_opts {
	const struct load_opts *lo;     /* filters and symbol options; its inputs are ignored */
	const char *event;              /* NULL: the first event with samples */
	bool no_inline;                 /* no frames for inlined functions */
	int max_stack;                  /* 0: the whole call chain */
	struct progress *progress;      /* may be NULL: report/core/progress.h */
};

/* Read path into r (zeroed here). 0, or a negative code with err set (r
 * is then freed): what load_new and load_run say, "--event: no event
 * 'NAME' in 'PATH'", "'PATH': no samples". */
int diffrun_read(struct diffrun *r, const struct diffread_opts *o, const char *path,
		 struct err *err);
void diffrun_free(struct diffrun *r);   /* NULL-tolerant */

#endif
