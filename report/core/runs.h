/* SPDX-License-Identifier: MIT */
/*
 * The sides of a comparison (prep diff, prep flamegraph --diff, prep export
 * difffolded): each side one recording, or several runs of one version
 * given as a comma list. An argument that names an existing file is that
 * file, even with a comma in its name; anything else is split at its
 * commas. The same rules, messages and defaults for every command that
 * compares, so that a list means the same everywhere.
 */
#ifndef PREC_REPORT_RUNS_H
#define PREC_REPORT_RUNS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

#define RUNS_MAX 64     /* runs of one side */

struct run_list {
	const char *label;              /* the argument as given */
	const char *path[RUNS_MAX];     /* into label or copy */
	size_t nr;
	char *copy;                     /* the split list; run_list_free frees it */
};

/* arg into r (zeroed here); what names the argument in messages ("--base",
 * "OLD", ...). 0, or -EINVAL ("WHAT 'a,,b': an empty file name in the
 * list", "WHAT '...': more than 64 runs") or -ENOMEM with err set. */
int run_list_parse(struct run_list *r, const char *what, const char *arg, struct err *err);
void run_list_free(struct run_list *r);         /* NULL-tolerant */

/* perf diff's defaults: OLD prec.data.old and NEW prec.data; when no
 * prec.data.old is here but perf.data.old is (and NEW is given, or
 * perf.data is here), perf's pair instead. *old and *new_ are set for the
 * sides not given (old_given, new_given); true when perf's pair was
 * taken (the caller says so). */
bool runs_defaults(bool old_given, bool new_given, const char **old, const char **new_);

#endif
