/* SPDX-License-Identifier: MIT */
/* prep report and prep script: the command lines and their drivers. */
#ifndef PREC_REPORT_REPORT_H
#define PREC_REPORT_REPORT_H

#define PREP_VERSION "0.1"

/* argv[0] is the command name ("report", "script" or "prep"). Returns the
 * exit status. */
int cmd_report(int argc, char **argv);
int cmd_script(int argc, char **argv);

#endif
