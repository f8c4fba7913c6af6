/* SPDX-License-Identifier: MIT */
/*
 * prep export FORMAT: read the input like the report does, fold it into
 * named stacks (stacks.h) or a pprof profile and write a file for another
 * viewer. The formats are a table (export.c): folded, pprof, speedscope,
 * flamegraph. The older spellings stay: prep export --speedscope|--pprof,
 * prep flamegraph, and prep --folded (the report reads, export_folded_report
 * writes).
 */
#ifndef PREC_REPORT_EXPORT_H
#define PREC_REPORT_EXPORT_H

#include <stdbool.h>

#include "folded.h"
#include "report/aggregate/hist.h"
#include "report/core/load.h"

/* argv[0] is the command name. Returns the exit status. */
int cmd_export(int argc, char **argv);
int cmd_flamegraph(int argc, char **argv);

/* prep --folded: one event of h (hist_resolve done) as collapsed stacks on
 * the standard output: the event named, else the first with samples (none:
 * no lines), with a note on stderr when others had samples too, unless
 * quiet. The exit status; messages are printed. */
int export_folded_report(struct load *l, struct hist *h, const char *event, bool quiet,
			 const struct folded_opts *fo);

#endif
