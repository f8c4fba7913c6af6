/* SPDX-License-Identifier: MIT */
/* Small text helpers shared by parsers of user input and of /proc, /sys. */
#ifndef PREC_COMMON_TEXT_H
#define PREC_COMMON_TEXT_H

/* The value of a hexadecimal digit, or -1. */
static inline int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
