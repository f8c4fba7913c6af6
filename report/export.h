/* SPDX-License-Identifier: MIT */
/* prep export: a recording in the file formats of other viewers. */
#ifndef PREC_REPORT_EXPORT_H
#define PREC_REPORT_EXPORT_H

/* argv[0] is "export". Returns the exit status. */
int cmd_export(int argc, char **argv);

#endif
