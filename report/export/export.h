/* SPDX-License-Identifier: MIT */
/*
 * prep export (--speedscope, --pprof) and prep flamegraph: read the input like the
 * report does, fold it into named stacks (stacks.h) and write a file for
 * another viewer.
 */
#ifndef PREC_REPORT_EXPORT_H
#define PREC_REPORT_EXPORT_H

/* argv[0] is the command name. Returns the exit status. */
int cmd_export(int argc, char **argv);
int cmd_flamegraph(int argc, char **argv);
/* prep export --pprof (export_pprof.c) */
int cmd_export_pprof(int argc, char **argv);

#endif
