/* SPDX-License-Identifier: MIT */
/*
 * A recording of a command carries no kernel symbols: the embedding step
 * (embed.h) keeps those of the kernel addresses hit, each with the symbol
 * after it (a symbol reaches the next one, FORMAT.md 5.7), so that kernel
 * frames are named the same elsewhere.
 */
#ifndef PREC_REPORT_SYMBOLS_EMBED_KERNEL_H
#define PREC_REPORT_SYMBOLS_EMBED_KERNEL_H

#include "common/buf.h"
#include "report/aggregate/hist.h"
#include "symbols.h"

/* Append to out the KALLSYMS lines (FORMAT.md 5.7) of the kernel symbols
 * of h's kernel frames, each followed by the next symbol when that one is
 * not hit itself, named by sz's running kernel table. 0 or -ENOMEM. */
int embed_kernel_hit(const struct hist *h, struct symbolizer *sz, struct buf *out);

#endif
