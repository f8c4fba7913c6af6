/* SPDX-License-Identifier: MIT */
/*
 * Functions production code must not call (git's banned.h). The Makefile
 * force-includes this header (-include) into every object of common/,
 * format/, record/ and report/, so a call is a compile error that names
 * the function: "sorry_strcpy_is_a_banned_function".
 *
 *   strcpy, strcat        unbounded: snprintf, or memcpy with a known length
 *   sprintf, vsprintf     unbounded: snprintf, vsnprintf
 *   strtok                hidden state between calls: strtok_r, or a cursor
 *   gets                  cannot be used safely at all
 *   realloc               n * size can wrap: array_grow() or array_realloc()
 *                         (common/buf.h; common/buf.c is the one caller)
 *
 * The system headers that declare them come first, so that their own
 * declarations (and _FORTIFY_SOURCE's inline wrappers) are read before
 * the names become macros; later includes of them are then no-ops.
 */
#ifndef PREC_COMMON_BANNED_H
#define PREC_COMMON_BANNED_H

#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(...) BANNED(strcpy)
#undef strcat
#define strcat(...) BANNED(strcat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(...) BANNED(strtok)
#undef gets
#define gets(...) BANNED(gets)
#undef realloc
#define realloc(...) BANNED(realloc)

#endif
