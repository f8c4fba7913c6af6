/* SPDX-License-Identifier: MIT */
#ifndef PREC_REPORT_DUMP_H
#define PREC_REPORT_DUMP_H

#include <stdio.h>

#include "../common/err.h"

/* Print every block and record of a prec.data file to out (prep --dump-raw);
 * of a perf.data file, its header, events, features and records.
 * Damage is warned about on stderr and counted in the last line. Returns 0,
 * or a negative code when the file cannot be read at all. */
int dump_file(const char *path, FILE *out, struct err *err);

#endif
