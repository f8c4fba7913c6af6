/* SPDX-License-Identifier: MIT */
/*
 * Inputs named "-": the standard input (`prec -o - -- cmd | prep -i -`,
 * also perf's pipe mode). It is read once, to its end, on first use, and
 * kept for the rest of the process, since stdin cannot be read twice and a
 * command may open its input more than once. A regular file on stdin
 * (`prep -i - < file`) is mapped instead of copied.
 */
#ifndef PREC_REPORT_INPUT_H
#define PREC_REPORT_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

bool input_is_stdin(const char *path);
/* All the bytes of stdin: 0 with *data and *len set (valid until exit), or
 * a negative code with err set: stdin is a terminal, empty, or unreadable. */
int input_stdin(const void **data, size_t *len, struct err *err);

#endif
