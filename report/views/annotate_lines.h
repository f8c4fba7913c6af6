/* SPDX-License-Identifier: MIT */
/*
 * prep annotate's engine for other outputs (the flame graph page): the same
 * one pass counting per sampled address as prep annotate, and one
 * function's annotated lines (its instructions with their share of its
 * samples, and the source lines where annotate --stdio shows them) through
 * a callback instead of printed. The counting, the disassembly and the
 * percentages are annotate's own (annotate.c, annotate_print.c).
 */
#ifndef PREC_REPORT_ANNOTATE_LINES_H
#define PREC_REPORT_ANNOTATE_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"
#include "report/core/load.h"

/* One line of an annotated function. */
struct annot_line {
	bool source;            /* a source line (line, text); else an instruction */
	unsigned line;          /* source: its number */
	const char *text;       /* instruction text, or the source text ("file:line"
				   when the file cannot be read) */
	size_t len;             /* of text */
	uint64_t addr;          /* instruction: its address (ELF vaddr) */
	double pct;             /* instruction: its share of the function's samples
				   (local period, as annotate --stdio by default) */
};

typedef int (*annot_line_fn)(void *ctx, const struct annot_line *ln);

struct annot_pass;

/* A pass for the reading l (which must outlive it); NULL: out of memory. */
struct annot_pass *annot_pass_new(struct load *l);
void annot_pass_free(struct annot_pass *p);     /* NULL: nothing */
/* A load_sample_fn; ctx is the pass. */
int annot_pass_sample(void *ctx, struct load *l, const struct load_sample *s);
/* Instead of the samples: a histogram's stacks, each counted at its
 * sampled address (the browser annotates from what it shows). 0 or -ENOMEM. */
int annot_pass_add_hist(struct annot_pass *p, const struct hist *h);
/* After load_run (or annot_pass_add_hist): the addresses named and grouped
 * into functions. 0 or -ENOMEM. */
int annot_pass_group(struct annot_pass *p);
/* The samples of event ev (load event index) whose sampled address is in the
 * function name of dso; 0 when none. */
uint64_t annot_pass_samples(struct annot_pass *p, const struct dso *dso, const char *name, int ev);
/* Their period (nanoseconds for offcpu-time and wall-time); 0 when none. */
uint64_t annot_pass_period(struct annot_pass *p, const struct dso *dso, const char *name, int ev);
/* The lines of that function for event ev, at most max instructions (with
 * *cut set when there were more): 0; 1 when it cannot be annotated (err
 * says why: "binary not available", "no code: kernel", "no samples");
 * negative on failure (or fn's negative return). */
int annot_pass_lines(struct annot_pass *p, const struct dso *dso, const char *name, int ev,
		     size_t max, bool *cut, annot_line_fn fn, void *ctx, struct err *err);

/* Source lines among the instructions (the default) or not, for the
 * annot_pass_lines calls that follow (annotate --stdio's --no-source). */
void annot_pass_set_source(struct annot_pass *p, bool source);

/* A line as annotate --stdio prints it with one percent column: an
 * instruction "   12.34 :   401136:   add $0x1,%rcx", a source line
 * "         :   12   x ^= x << 13;". Appended to b; 0 or -ENOMEM. */
int annot_line_text(struct buf *b, const struct annot_line *ln);

#endif
