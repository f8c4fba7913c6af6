/* SPDX-License-Identifier: MIT */
/*
 * JSON text for the exports: a string literal from C text. Quotes,
 * backslashes and control characters are escaped, bytes that are not UTF-8
 * become U+FFFD (so strict readers accept any symbol name), and '<', '>'
 * and '&' are written as \u escapes so that the text can sit inside an HTML
 * <script> element as it is.
 */
#ifndef PREC_REPORT_JSON_H
#define PREC_REPORT_JSON_H

#include <stdio.h>

void json_string(FILE *out, const char *s);

/* The length of the valid UTF-8 sequence at p (1 to 4; 1 for ASCII and for
 * the terminating 0), 0 when the bytes there are not UTF-8. */
int utf8_len(const unsigned char *p);

#endif
