/* SPDX-License-Identifier: MIT */
/* prep annotate: per-instruction profiles of symbols, as perf annotate --stdio. */
#ifndef PREC_REPORT_ANNOTATE_H
#define PREC_REPORT_ANNOTATE_H

/* argv[0] is the command name. Returns the exit status. */
int cmd_annotate(int argc, char **argv);

#endif
