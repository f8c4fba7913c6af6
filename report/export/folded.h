/* SPDX-License-Identifier: MIT */
/*
 * prep --folded: collapsed stacks, the input of FlameGraph's flamegraph.pl
 * and of many viewers. One line per unique stack: the frames root first,
 * joined by ';', a space, and the number of samples (or the sum of their
 * periods). As FlameGraph's stackcollapse-perf.pl writes them: the command
 * name is the root frame (spaces made '_'; with pid: "comm-PID", with tid:
 * "comm-PID/TID"), ';' inside a name becomes ':', and the lines are sorted
 * (byte order). Optional marks, also stackcollapse-perf's: "_[k]" after
 * kernel functions, "_[i]" after inlined ones.
 */
#ifndef PREC_REPORT_FOLDED_H
#define PREC_REPORT_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"
#include "common/err.h"
#include "report/aggregate/stacks.h"

struct folded_opts {
	bool period;            /* weights are periods, not sample counts */
	bool count;             /* "count" was given: counts even for offcpu-time */
	bool no_comm;           /* no command-name root frame */
	bool pid, tid;          /* comm-PID, comm-PID/TID root frames */
	bool kernel_mark;       /* "_[k]" after kernel functions */
	bool inline_mark;       /* "_[i]" after inlined functions */
};

/* "period,pid,tid,kernel,inline,no-comm" (any of them, comma-separated);
 * NULL or "" for none. 0 or -EINVAL with err set (the message does not name
 * the option: prep --folded=LIST and prep export folded --with LIST). */
int folded_parse(const char *arg, struct folded_opts *o, struct err *err);

/* The lines of s (all its events: pick one with stacks_opts.event). 0,
 * -ENOMEM, or -EIO when out reports a write error. */
int folded_write(FILE *out, const struct stacks *s, const struct folded_opts *o);

/* The same lines in memory (what folded_write prints), for whoever merges
 * them (diffstacks.h): line i is the bytes text.data[v[i].off ..
 * v[i].off + v[i].len) (no newline) and its weight; sorted in byte order,
 * equal lines merged into one, lines of weight 0 left out. The struct owns
 * both arrays; the text does not point into s. */
struct folded_line {
	size_t off, len;
	uint64_t weight;
};

struct folded_lines {
	struct buf text;
	struct folded_line *v;
	size_t nr;
};

/* 0 or -ENOMEM (fl is then empty). */
int folded_lines_build(struct folded_lines *fl, const struct stacks *s, const struct folded_opts *o);
void folded_lines_free(struct folded_lines *fl);       /* NULL-tolerant; fl reusable */

#endif
