/* SPDX-License-Identifier: MIT */
/* Inside the histogram: what hist.c (folding) and hist_entries.c (the
 * entries and trees built from the folded stacks) share. Not for others. */
#ifndef PREC_REPORT_HIST_INT_H
#define PREC_REPORT_HIST_INT_H

#include "hist.h"

/* Free h's entries and their trees (h->entries NULL, nr_entries 0). */
void hist_free_built(struct hist *h);

#endif
