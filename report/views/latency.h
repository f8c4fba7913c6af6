/* SPDX-License-Identifier: MIT */
/*
 * prep report's latency profile (perf 6.15's --latency, --parallelism and
 * the parallelism key; docs/man/prep.1, LATENCY): what the options ask of
 * the reading (each sample's parallelism, report/core/parallel.h), of the
 * histogram (each entry's latency, the order) and of the printing (perf's
 * Latency columns), and the checks once the files are read.
 *
 * A latency profile is asked for by --latency, by --parallelism, or by a
 * latency or parallelism key in --sort or -F; without any of them nothing
 * here runs and the report is what it was.
 */
#ifndef PREC_REPORT_LATENCY_H
#define PREC_REPORT_LATENCY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"
#include "report/aggregate/hist.h"
#include "report/core/load.h"
#include "print.h"

struct latency_opts {
	bool latency;           /* --latency: Latency first, sorted by it */
	bool asked;             /* any of the options or keys (latency_setup) */
	bool sort_latency;      /* --sort or -F named latency */
};

/* The option table's lines: lat a struct latency_opts *, lo a struct
 * load_opts * (--parallelism is the reading's filter). */
#define LATENCY_OPTIONS(lat, lo) \
	OPTION_FLAG(0, "latency", &(lat)->latency, "latency (wall-clock) profile: a Latency column first, sorted by it (prec --latency recordings)"), \
	OPTION_STRING(0, "parallelism", &(lo)->parallelism_list, "list", "only samples that ran at these parallelism levels (e.g. 1,2-4)")

/* Before reading, with the --sort and -F lists (NULL when not given; their
 * keys already in ho): what a latency profile needs of the reading, the
 * histogram and the printing, when one is asked for (o->asked is set
 * then); nothing otherwise. A latency field in either list (perf's name of
 * the column) asks for it as --latency does. */
void latency_setup(struct latency_opts *o, const char *sort, const char *fields,
		   struct load_opts *lo, struct hist_opts *ho, struct print_opts *po);

/* Once the files are read: -EINVAL with perf's message when a file has no
 * context switches, or with another view that has no Latency column (the
 * group view, --folded: --parallelism alone filters them); without
 * --latency or a latency key, perf's rule that a profile whose samples ran
 * alone at least 99% of the time shows no Latency column. 0 when o->asked
 * is not set. */
int latency_check(const struct latency_opts *o, const struct load *l, struct hist *h,
		  struct print_opts *po, bool folded, struct err *err);

/* perf's refusal of a reading whose files have no context switches (no
 * level to tell): -EINVAL with its message naming the first such file, or 0.
 * latency_check's first check; prep diff's with the parallelism key. */
int latency_check_switches(const struct load *l, struct err *err);

/* The printing (print.c): the Latency total of an event's percentages
 * (shown entries, or with --percentage absolute every sample), the value
 * columns' titles (dots: their rules) and an entry's values, appended to b
 * (0 or -ENOMEM). */
uint64_t latency_total(const struct load *l, const struct hist *h, const struct print_opts *po,
		       int event);
int latency_titles(struct buf *b, const struct print_opts *po, bool dots);
int latency_values(struct buf *b, const struct print_opts *po, const struct hentry *e,
		   uint64_t total, uint64_t latency_total);

#endif
