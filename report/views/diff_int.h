/* SPDX-License-Identifier: MIT */
/*
 * Inside prep diff. Each file (a run) is read into a profile of plain
 * entries (diff_read.c: one reading per file, on worker threads); the
 * entries of one event are matched across the runs and sides and their
 * shares, deltas, ratios, weighted differences and noise statistics
 * computed and sorted (diff_calc.c: pure, no files, no printing); then
 * printed in perf diff's layout or with the noise columns (diff_print.c).
 * diff.c is the command: options, inputs, the runs of each side.
 *
 * A side is one version of the program: the baseline (side 0) or a new
 * one (sides 1...), each one or more runs (recordings) of that version.
 */
#ifndef PREC_REPORT_DIFF_INT_H
#define PREC_REPORT_DIFF_INT_H

#include "report/core/runs.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "report/aggregate/sortkey.h"
#include "report/core/load.h"

#define DIFF_MAX_SIDES 16       /* the baseline and up to 15 new sides */
#define DIFF_MAX_RUNS RUNS_MAX  /* runs of one side (report/core/runs.h) */
#define DIFF_MAX_KEYS SORT_NR

/* ---- profiles (diff_read.c) ------------------------------------------- */

/* One sort key's value of an entry, as entries are matched across files:
 * by text (s) and number (n: pid, tid, cpu; 0 for the others). A symbol
 * without a name has s NULL and its address in n: such entries match each
 * other whatever their address, as in perf diff (addresses do not carry
 * over from one build to the next), and the row shows the lowest one. */
struct dkey {
	const char *s;
	uint64_t n;
};

struct dentry {
	struct dkey k[DIFF_MAX_KEYS];
	const char *cell[DIFF_MAX_KEYS];        /* each key's column text */
	uint64_t period, count;
	bool unresolved;                        /* no symbol names its address */
};

/* One event of one run. Its shares are of period_all (perf diff's
 * default, --percentage absolute: every sample the reading kept, those of
 * the entries --comm, --pid, --tid, --dso and --symbols hide included;
 * --cpu and --time drop samples) or of period_shown (relative: only the
 * entries shown). */
struct devent {
	const char *name;
	uint32_t type;          /* perf matches events across files by type */
	uint64_t config;        /* and config */
	struct dentry *e;
	size_t nr;
	uint64_t period_all, count_all, period_shown, count_shown;
};

struct dpool_block;

struct drun {
	const char *path;
	struct devent *ev;
	size_t nr_ev;
	struct dpool_block *pool;       /* the strings */
};

/* How every file is read: the load options (inputs are set per file; the
 * --comm, --pid and --tid lists are applied here, not by the loader, so
 * that their samples count in the total as in perf) and the sort keys. */
struct diff_read_opts {
	struct load_opts lo;
	const char *comms, *pids, *tids;
	enum sort_key_id keys[DIFF_MAX_KEYS];
	size_t nr_keys;
	unsigned threads;       /* at most this many files at once (0: 1) */
};

/* Read paths[0..n) into runs[0..n) (zeroed by the caller). 0, or the
 * error of the first file that failed, with its message in err. */
int diff_read(const char *const *paths, size_t n, const struct diff_read_opts *o,
	      struct drun *runs, struct err *err);
void drun_free(struct drun *r);         /* NULL: nothing */

/* The event of r that perf would pair with ev (same type and config); NULL
 * if none. */
const struct devent *drun_match_event(const struct drun *r, const struct devent *ev);

/* ---- rows (diff_calc.c) ----------------------------------------------- */

enum diff_compute { DC_DELTA, DC_DELTA_ABS, DC_RATIO, DC_WDIFF };
enum diff_correction { DCORR_HOLM, DCORR_BH, DCORR_NONE };

struct diff_calc_opts {
	enum diff_compute compute;
	int64_t w1, w2;                 /* wdiff: the baseline's weight, the new one's */
	unsigned order;                 /* -o: 0 by baseline, i by new side i first */
	bool absolute;                  /* shares of period_all, else of period_shown */
	bool baseline_only;             /* -b: only rows with a baseline entry */
	double percent_limit;           /* rows with every share under it go; 0: none */
	enum sort_key_id keys[DIFF_MAX_KEYS];
	size_t nr_keys;
	bool noise;                     /* the noise statistics */
	double alpha;
	enum diff_correction correction;
};

/* One side of one event: the event in each run of the side that has it. */
struct dside {
	const struct devent *run[DIFF_MAX_RUNS];
	size_t nr;
};

/* A row's values on one side. Shares are percentages. */
struct dval {
	bool present;           /* a run of the side has the entry */
	double share;           /* the runs' mean share (a run without it: 0) */
	double spread;          /* the runs' standard deviation; one run: the
				   share's sampling error, sqrt(p (1 - p) / N) */
	uint64_t period, count; /* summed over the runs */
	/* the new sides, against the baseline (where present) */
	double delta;           /* share - the baseline's share */
	double ratio;           /* period / the baseline's period (1 where none) */
	int64_t wdiff;          /* period * w2 - the baseline's period * w1 */
	/* noise: the delta's standard error, the p value (adjusted for the
	 * family's multiple comparisons), the verdict p < alpha */
	double err, p_raw, p;
	bool changed;
};

struct drow {
	const struct dentry *name;      /* the entry that names the row */
	bool dummy;                     /* no baseline entry (perf's dummy entry) */
	struct dval *v;                 /* one per side */
};

struct dtable {
	struct drow *rows;
	size_t nr;
	size_t nr_sides;
	size_t runs[DIFF_MAX_SIDES];    /* the runs of each side with the event */
	struct dval *vals;              /* the rows' values, nr * nr_sides */
	/* noise: the rows each side tested, and how many of them its family
	 * counts (those whose samples can pass at all: Tarone) */
	size_t considered[DIFF_MAX_SIDES], tested[DIFF_MAX_SIDES];
	uint64_t total[DIFF_MAX_SIDES]; /* the period a share of the side's first run is of */
};

/* The rows of one event: side 0's entries matched with every other side's
 * (by their keys), valued, filtered (-b, --percent-limit), tested (noise)
 * and sorted as perf diff sorts them. sides[i].nr 0: side i lacks the
 * event (its columns stay empty). 0, or -ENOMEM. */
int diff_table(const struct dside *sides, size_t nr_sides, const struct diff_calc_opts *o,
	       struct dtable *t);
void diff_table_free(struct dtable *t);

/* perf's percentage of a period: period * 100 / total (0 for no total). */
double diff_pct(uint64_t period, uint64_t total);

/* ---- output (diff_print.c) -------------------------------------------- */

struct diff_print_opts {
	const struct diff_calc_opts *calc;
	bool show_period;               /* -p */
	bool show_formula;              /* -F */
	bool quiet;                     /* -q: no header lines */
	bool significant;               /* only rows that changed */
	bool data_files;                /* the "# Data files:" lines */
	const char *sep;                /* -t: the field separator, else NULL */
	bool elide[DIFF_MAX_KEYS];      /* columns left out (one --dso, --comm or --symbols name) */
	bool dso_list;                  /* --dso given: no width for unresolved entries */
	const char *labels[DIFF_MAX_SIDES];     /* each side's files, as given */
	size_t nr_sides;
};

/* One event's section; first: no blank line before it. */
void diff_print_event(FILE *out, const char *event, const struct dtable *t,
		      const struct diff_print_opts *po, bool first);

#endif
