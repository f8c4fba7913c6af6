/* SPDX-License-Identifier: MIT */
/* prep diff: two or more profiles compared, as perf diff, and against the
 * noise (diff_int.h has the parts). */
#ifndef PREC_REPORT_DIFF_H
#define PREC_REPORT_DIFF_H

/* argv[0] is "diff". Returns the exit status. */
int cmd_diff(int argc, char **argv);

#endif
