/* SPDX-License-Identifier: MIT */
/*
 * Writing a gzip file (RFC 1952) through zlib, for exports whose format is
 * gzip-compressed (prep export --pprof). The output is deterministic: no
 * name and no time in the gzip header.
 */
#ifndef PREC_REPORT_GZOUT_H
#define PREC_REPORT_GZOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct gzout;

/* Create path ("-": standard output, refused when it is a terminal) for
 * gzip data at level 0-9. 0, or a negative code with err set. */
int gzout_open(struct gzout **g, const char *path, int level, struct err *err);
/* Compress n bytes into the file; finish ends the gzip stream (the last
 * call). 0, or -EIO with err set. */
int gzout_write(struct gzout *g, const void *p, size_t n, bool finish, struct err *err);
/* Close and free g (NULL-tolerant). ret is the caller's result so far:
 * when it is not 0, or closing fails, a regular file written is removed.
 * *bytes (may be NULL) gets the compressed size. Returns ret, or the
 * closing error. */
int gzout_close(struct gzout *g, int ret, uint64_t *bytes, struct err *err);

#endif
