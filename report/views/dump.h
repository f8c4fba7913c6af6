/* SPDX-License-Identifier: MIT */
#ifndef PREC_REPORT_DUMP_H
#define PREC_REPORT_DUMP_H

#include <stdio.h>

#include "common/err.h"

/* Print every block and record of a prec.data file to out (prep --dump-raw);
 * of a perf.data file, its header, events, features and records.
 * Damage is warned about on stderr and counted in the last line. Returns 0,
 * or a negative code when the file cannot be read at all. */
int dump_file(const char *path, FILE *out, struct err *err);

/* Names of perf_event_attr's bits: sample_type, read_format, and the flag
 * bitfield in its order (precise_ip's two bits are precise_ip, precise_ip2). */
#define ATTR_SAMPLE_BITS 25
#define ATTR_READ_BITS 5
#define ATTR_FLAGS 38
extern const char *const attr_sample_bits[ATTR_SAMPLE_BITS];
extern const char *const attr_read_bits[ATTR_READ_BITS];
extern const char *const attr_flags[ATTR_FLAGS];

#endif
