/* SPDX-License-Identifier: MIT */
/*
 * One symbol of one binary by name, for prec's probes and mem:SYMBOL
 * breakpoints (record/probes.c): its address, size and file offset. A
 * small public interface of report/symbols, like embed.h.
 */
#ifndef PREC_REPORT_SYMBOLS_SYMBOL_LOOKUP_H
#define PREC_REPORT_SYMBOLS_SYMBOL_LOOKUP_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"

struct symbol_hit {
	uint64_t vaddr;         /* st_value: the link-time address */
	uint64_t size;          /* st_size */
	uint64_t file_off;      /* where vaddr lies in the file (PT_LOAD), or 0 */
	bool in_file;           /* file_off is valid: vaddr is in a PT_LOAD's file bytes */
	bool pie;               /* ET_DYN: loaded at a base chosen at run time */
	uint64_t load_vaddr;    /* the link-time address of the file's first byte,
				 * page-aligned: where /proc/PID/maps's mapping of
				 * offset 0 starts, less the load bias */
};

/*
 * name in path's .symtab, else its .dynsym: a function (STT_FUNC or
 * STT_GNU_IFUNC) when func, else a data object (STT_OBJECT or STT_TLS is
 * refused). 0, or a negative code with a one-line message in err naming
 * the file or symbol: -ENOENT (no such symbol, or no such file), -ENOEXEC
 * (not an ELF file), another -errno.
 */
int symbol_lookup(const char *path, const char *name, bool func, struct symbol_hit *out,
		  struct err *err);

#endif
