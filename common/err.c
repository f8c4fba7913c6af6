/* SPDX-License-Identifier: MIT */
#include "err.h"

#include <stdio.h>
#include <string.h>

int err_set(struct err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

void err_prefix(struct err *err, const char *fmt, ...)
{
	char head[ERR_MSG_MAX], both[2 * ERR_MSG_MAX + 2];
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	snprintf(both, sizeof(both), "%s: %s", head, err->msg);
	/* The message keeps its head; an over-long tail is cut short. */
	snprintf(err->msg, sizeof(err->msg), "%.*s", (int)sizeof(err->msg) - 1, both);
}

const char *err_str(int code)
{
	static const char *const names[] = {
		[PREC_ECORRUPT - PREC_EBASE] = "corrupt data",
		[PREC_ETRUNC - PREC_EBASE] = "truncated data",
		[PREC_EVERSION - PREC_EBASE] = "unsupported format version",
		[PREC_EFORMAT - PREC_EBASE] = "not a prec.data file",
		[PREC_EUNKNOWN - PREC_EBASE] = "unknown type",
		[PREC_ELIMIT - PREC_EBASE] = "length beyond limits",
		[PREC_EENDIAN - PREC_EBASE] = "foreign byte order",
	};
	int c = code < 0 ? -code : code;

	if (c > PREC_EBASE && c < PREC_EMAX)
		return names[c - PREC_EBASE];
	return strerror(c);
}
