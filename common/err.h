/* SPDX-License-Identifier: MIT */
/*
 * Error reporting for library code.
 *
 * Library functions (common/, format/) never print and never exit. They return
 * 0 (or a positive count) on success and a negative code on failure: -errno for
 * system errors, or one of the project codes below, which sit above the errno
 * range. The lowest layer that knows the detail (file offset, record type)
 * writes a one-line message into the caller's struct err; callers higher up
 * may prefix it with context (err_prefix). A NULL err is allowed everywhere
 * and means "the caller does not want the message".
 */
#ifndef PREC_COMMON_ERR_H
#define PREC_COMMON_ERR_H

#include <stdarg.h>

enum {
	PREC_EBASE = 4096,
	PREC_ECORRUPT,   /* bytes that cannot be what the format says: bad CRC, bad length */
	PREC_ETRUNC,     /* data ends before the structure it holds does */
	PREC_EVERSION,   /* a format version this code cannot read */
	PREC_EFORMAT,    /* not a file of this format at all (bad magic) */
	PREC_EUNKNOWN,   /* a type or codec this code does not know */
	PREC_ELIMIT,     /* a length beyond the documented limits */
	PREC_EENDIAN,    /* records written on a machine of the other byte order */
	PREC_EMAX,
};

#define ERR_MSG_MAX 320

struct err {
	int code;               /* last negative code stored, 0 when none */
	char msg[ERR_MSG_MAX];  /* one line, no trailing newline or period */
};

/* Store code and message in err (if not NULL); returns code so that callers
 * can write `return err_set(err, -PREC_ECORRUPT, "...")`. */
int err_set(struct err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix the message already in err with "prefix: ". Returns nothing: the
 * caller returns the code it holds (err may be NULL, and then knows none). */
void err_prefix(struct err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Short text for a code: strerror() for -errno, a phrase for project codes. */
const char *err_str(int code);

#endif
