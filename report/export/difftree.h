/* SPDX-License-Identifier: MIT */
/*
 * The call trees of a differential's two sides merged into one by name
 * path, for the differential flame graph (prep flamegraph --diff): a node
 * is a path from the root ("all", then the command name unless no_comm,
 * then the functions, root first), each step a frame named as the flame
 * graph names it (its function name) and qualified by the basename of its
 * binary ("main" of ".../v1/app" is "main" of ".../v2/app": two builds
 * compare; "[kernel.kallsyms]" for the kernel, none for "[unknown]"), never
 * by address. A frame's kind (user, library, kernel, inlined, other) is
 * shown, not matched: a function inlined in one build and called in the
 * other is one frame.
 *
 * Every side may hold several runs (recordings); every node has the
 * inclusive sample count of each run (nanoseconds for an event whose
 * samples are durations: offcpu-time, wall-time), in columns: OLD's runs
 * first, then NEW's. A node that only one side has is 0 in the other side's
 * columns.
 *
 * Pure: built from struct stacks one run at a time (nothing points into
 * them, so each recording can be freed once added), no printing.
 */
#ifndef PREC_REPORT_DIFFTREE_H
#define PREC_REPORT_DIFFTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/hash.h"
#include "diffstacks.h"
#include "report/aggregate/stacks.h"

/* label kinds past the frames' (enum sframe_kind), as the flame graph has them */
enum { DT_COMM = SF_NR_KINDS, DT_ROOT };

struct dlabel {
	uint32_t name;          /* offsets into strings, NUL-terminated ... */
	uint32_t dso;           /* the binary's basename (the key); 0: "" (none) */
	uint32_t path;          /* its path as the page shows it (NEW's where both); 0: none */
	uint8_t kind;           /* enum sframe_kind, DT_COMM or DT_ROOT (NEW's where both) */
	bool seen_new;
};

struct difftree {
	size_t runs[2];         /* per side (enum diff_side) */
	size_t cols;            /* runs[DIFF_OLD] + runs[DIFF_NEW] */
	bool no_comm;
	bool durations;         /* some run's weights are nanoseconds (difftree_add) */
	uint64_t *totals;       /* per column: the weight of the run's stacks */
	uint64_t *samples;      /* per column: the samples of the run's stacks */
	/* nodes: node 0 is the root, parent[i] < i */
	uint32_t *parent, *label;
	uint64_t *counts;       /* node i, column c: counts[i * cols + c], inclusive */
	size_t nr, cap;
	struct dlabel *labels;
	size_t nr_labels, cap_labels;
	struct buf strings;
	struct hmap label_idx, child_idx;
};

/* An empty tree for nr_old and nr_new runs (each at least 1), with the root.
 * 0 or -ENOMEM. */
int difftree_init(struct difftree *t, size_t nr_old, size_t nr_new, bool no_comm);
/* The stacks of run `run` of a side (one event: stacks_opts.event), weighed
 * by samples, or with durations (an event whose samples are nanoseconds:
 * offcpu-time, wall-time) by their periods, as the single flame graph weighs
 * them; the run's samples are kept beside (difftree.samples). 0 or -ENOMEM
 * (t may then hold part of the run). */
int difftree_add(struct difftree *t, enum diff_side side, size_t run, const struct stacks *s,
		 bool durations);
void difftree_free(struct difftree *t);         /* NULL-tolerant */

/* A string of t->strings (a label's name, dso or path). */
const char *difftree_str(const struct difftree *t, uint32_t off);
/* The column of a side's run. */
size_t difftree_col(const struct difftree *t, enum diff_side side, size_t run);
/* Self counts (inclusive less the children's), same layout as counts: a
 * new array for free(), or NULL when memory is short. */
uint64_t *difftree_self(const struct difftree *t);

/*
 * Which nodes changed more than the runs' noise: per node and metric (its
 * total share, its self share), a two-sided p value of the change in share,
 *  - with at least two runs a side: Welch's t test on the per-run shares
 *    (count / the run's total), so that the spread between runs counts;
 *  - otherwise: the two-proportion z test on the sides' summed counts
 *    (the sampling error of a share from its sample count alone; with
 *    durations, the shares of the weights and the runs' sample counts);
 * then, because a flame graph tests every frame at once, the
 * Benjamini-Hochberg procedure at false discovery rate alpha over the
 * nodes tested: a node is significant when p <= cut. Under no change at
 * all, the chance that any node is marked is at most alpha.
 *
 * Not tested (p 1, never marked): the root, and the nodes whose share in
 * the metric, the mean of the two sides' shares, is under min_share. A
 * deep tree has thousands of frames of a few samples each, none of which
 * could show a change beyond the noise, and counting them would raise the
 * bar for all the others (to alpha / thousands for the first); the mean of
 * both sides is blind to the change itself, so leaving such frames out
 * keeps the false discovery rate (independent filtering).
 */
enum { DT_TOTAL, DT_SELF, DT_NR_METRICS };

/* sig bits: marked in a metric (1 << m), tested in a metric (4 << m) */
#define DT_MARKED(m) (1u << (m))
#define DT_TESTED(m) (4u << (m))

struct difftest {
	bool welch;             /* Welch's t test (else the z test) */
	double alpha, min_share;
	double *p[DT_NR_METRICS];       /* per node (1 where not tested) */
	uint8_t *sig;           /* per node: DT_MARKED(m) | DT_TESTED(m) bits */
	size_t tested[DT_NR_METRICS];
	size_t marked[DT_NR_METRICS];
	double cut[DT_NR_METRICS];      /* -1: nothing significant */
};

/* alpha in (0, 1], min_share in [0, 1] (a fraction). 0 or -ENOMEM. */
int difftree_test(const struct difftree *t, double alpha, double min_share,
		  struct difftest *out);
void difftest_free(struct difftest *d);         /* NULL-tolerant */

#endif
