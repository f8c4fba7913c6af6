/* SPDX-License-Identifier: MIT */
/*
 * The code bytes of a binary, for disassembly (prep annotate): one function
 * so that where they come from can change without its callers changing.
 * They come from the recording's embedded code when it holds them all
 * (embed_code.h: prec embeds the functions hit), else from the binary found
 * on this machine for the dso (by build id or path, under --symfs, as the
 * symbolizer finds binaries), else from what the recording embedded of them.
 */
#ifndef PREC_REPORT_CODE_H
#define PREC_REPORT_CODE_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "symbols.h"

/*
 * Copy up to len bytes of the dso's code at addr (an ELF vaddr, as the
 * symbol table has it) to out; *got is how many were copied (fewer when a
 * segment's file bytes end first). 0, or a negative code with a message in
 * err: -ENOENT when no binary of the dso can be read here (a debug file
 * has no code), -ERANGE when no segment holds addr, -errno of the read.
 */
int code_read(struct symbolizer *sz, struct sym_dso *dso, uint64_t addr, size_t len,
	      uint8_t *out, size_t *got, struct err *err);

#endif
