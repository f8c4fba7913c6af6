/* SPDX-License-Identifier: MIT */
/* Messages through the front end's handler; see log.h. */
#include "log.h"

#include <stdio.h>
#include <stdlib.h>

static struct {
	log_fn fn;
	void *ctx;
	unsigned mask;
} handler;

void log_set_handler(log_fn fn, void *ctx, unsigned mask)
{
	handler.fn = fn;
	handler.ctx = fn ? ctx : NULL;
	handler.mask = fn ? mask & LOG_ALL : 0;
}

void log_get_handler(log_fn *fn, void **ctx, unsigned *mask)
{
	*fn = handler.fn;
	*ctx = handler.ctx;
	*mask = handler.mask;
}

bool log_wants(enum log_level level)
{
	return (unsigned)level < LOG_NR_LEVELS && (handler.mask & LOG_MASK(level));
}

void log_vmsg(enum log_level level, const char *fmt, va_list ap)
{
	char line[1024], *big = NULL;
	va_list again;
	int n;

	if (!log_wants(level))
		return;
	va_copy(again, ap);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	/* a long path can make a line longer: said whole, or cut if memory
	 * is short */
	if (n >= (int)sizeof(line) && (big = malloc((size_t)n + 1)))
		vsnprintf(big, (size_t)n + 1, fmt, again);
	va_end(again);
	if (n >= 0)
		handler.fn(handler.ctx, level, big ? big : line);
	free(big);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}

const char *log_level_tag(enum log_level level)
{
	return level == LOG_WARNING ? "warning: " : "";
}
