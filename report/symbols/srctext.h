/* SPDX-License-Identifier: MIT */
/*
 * Source text for views that show source lines (prep annotate): one
 * function, srctext_line(), so that where the text comes from can change
 * without its callers changing. Today: the file DWARF names, read on this
 * machine, its path remapped as perf's --prefix and --prefix-strip do
 * (strip that many leading folders, then put the prefix in front). Files
 * are read once and kept until srctext_free(); one that cannot be read is
 * remembered as such.
 */
#ifndef PREC_REPORT_SRCTEXT_H
#define PREC_REPORT_SRCTEXT_H

#include <stddef.h>

struct srctext;

/* prefix may be NULL (none); strip: leading folders removed first. The
 * prefix string is borrowed: it must outlive the object. NULL on ENOMEM. */
struct srctext *srctext_new(const char *prefix, unsigned strip);
void srctext_free(struct srctext *st);  /* NULL: nothing */

/* Line `line` (from 1) of the file at path as DWARF names it: its text,
 * without the newline, *len bytes long, valid until srctext_free; NULL when
 * the file cannot be read or is shorter. */
const char *srctext_line(struct srctext *st, const char *path, unsigned line, size_t *len);

/* Lines a recording embedded (prec --embed-source, load_source_line):
 * srctext_line asks fn(ctx, path, line) first, with the path as DWARF
 * names it (before --prefix), and reads the file only for a line it does
 * not have. */
typedef const char *(*srctext_embedded_fn)(const void *ctx, const char *path, unsigned line);
void srctext_set_embedded(struct srctext *st, srctext_embedded_fn fn, const void *ctx);

#endif
