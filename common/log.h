/* SPDX-License-Identifier: MIT */
/*
 * Messages from below the front ends (libbpf's print callback).
 *
 * Library and report code never writes to stderr: what a user should see
 * on the way (a warning about a damaged block, the reading progress of a
 * large file) is handed to one callback with its level. Each front end
 * (prep's and prec's main) installs its handler once, before anything
 * else runs, and chooses there how a message looks ("prep: warning: ...")
 * and where it goes. Without a handler, messages go nowhere: unit tests and
 * fuzz targets stay silent, or install a handler that keeps them.
 *
 * The handler is process-wide state by design (one program, one terminal);
 * it is set once and only read afterwards, so it needs no lock as long as
 * it is installed before threads start.
 */
#ifndef PREC_COMMON_LOG_H
#define PREC_COMMON_LOG_H

#include <stdarg.h>
#include <stdbool.h>

enum log_level {
	LOG_ERROR,
	LOG_WARNING,
	LOG_NOTE,       /* information: what was done, what was assumed */
	/* the status line of a long read: each message replaces the one shown
	 * before (no newline); an empty message erases it */
	LOG_PROGRESS,
	LOG_NR_LEVELS,
};

#define LOG_MASK(level) (1u << (level))
#define LOG_ALL ((1u << LOG_NR_LEVELS) - 1)

/* msg is one line without its newline, valid only during the call. */
typedef void (*log_fn)(void *ctx, enum log_level level, const char *msg);

/* Install fn for the levels in mask (LOG_MASK bits); fn NULL or mask 0:
 * messages go nowhere. Replaces the handler installed before. */
void log_set_handler(log_fn fn, void *ctx, unsigned mask);

/* The handler installed now, for a front end that installs its own for a
 * while (the browser's message line) and puts it back afterwards. */
void log_get_handler(log_fn *fn, void **ctx, unsigned *mask);

/* Whether a message of this level would reach a handler: what is costly to
 * produce (a progress meter) is not set up for nobody. */
bool log_wants(enum log_level level);

void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void log_vmsg(enum log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* What a front end puts between its name and the message: "warning: " for
 * warnings, "" otherwise ("prep: cannot ...", "prep: warning: ..."). */
const char *log_level_tag(enum log_level level);

#endif
