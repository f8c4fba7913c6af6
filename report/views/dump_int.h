/* SPDX-License-Identifier: MIT */
/* Internal to report/dump*.c: what the prec.data and perf.data dumps share. */
#ifndef PREC_REPORT_DUMP_INT_H
#define PREC_REPORT_DUMP_INT_H

#include <stdint.h>
#include <stdio.h>

#include "format/blocks.h"
#include "format/record.h"

struct dump {
	FILE *out;
	const char *path;
	struct record_layouts *layouts;
	size_t nr_events;
	uint64_t records, bad_records, unknown_records;
	uint64_t by_type[PERF_RECORD_MAX];
	const char *indent;     /* before each record line; NULL: six spaces */
	bool relative;          /* offsets as "+N" within the bytes given */
};

/* The attr of an event, a few lines. */
void dump__attr(FILE *f, const struct event_desc *ev);
/* One line per record of p[0..len), decoded; base: the offset shown for p. */
void dump__records(struct dump *d, const uint8_t *p, uint64_t len, uint64_t base);
/* prep dump of a perf.data file (dump_perfdata.c). */
int dump_perfdata(const char *path, FILE *out, struct err *err);

#endif
