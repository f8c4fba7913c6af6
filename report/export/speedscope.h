/* SPDX-License-Identifier: MIT */
/*
 * prep export --speedscope: the speedscope file format
 * (https://www.speedscope.app/file-format-schema.json). One "sampled"
 * profile per event and thread, largest first (the one speedscope opens);
 * shared frames with the function's name, its source file (else the path of
 * its binary) and the lowest line sampled in it. Each unique stack is one
 * sample, root first, weighted by the sum of its samples' periods: for
 * cpu-clock and task-clock, nanoseconds (speedscope shows times), for other
 * events the event's count (unit "none").
 */
#ifndef PREC_REPORT_SPEEDSCOPE_H
#define PREC_REPORT_SPEEDSCOPE_H

#include <stdio.h>

#include "report/core/load.h"
#include "report/aggregate/stacks.h"

/* name: the file's name (the input); exporter: "prep VERSION". 0, -ENOMEM,
 * or -EIO when out reports a write error. */
int speedscope_write(FILE *out, const struct load *l, const struct stacks *s, const char *name,
		     const char *exporter);

#endif
