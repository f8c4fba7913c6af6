/* SPDX-License-Identifier: MIT */
/*
 * Plain values the symbolizer hands out (symbols.h) and its parts produce:
 * one position of an inline chain (from DWARF, or from the data a recording
 * embedded) and a PT_LOAD program header of a binary. Nothing but types, so
 * that the parts below the facade need not include it.
 */
#ifndef PREC_REPORT_SYM_TYPES_H
#define PREC_REPORT_SYM_TYPES_H

#include <stdint.h>

/* function may be NULL if unknown; file is the full path as DWARF names it
 * (comp_dir joined when relative). */
struct sym_frame {
	const char *function;
	const char *file;
	unsigned line;
};

/* A PT_LOAD program header: how file offsets map to vaddrs. */
struct load_seg {
	uint64_t offset, vaddr, filesz, memsz;
	uint32_t flags;
};

#endif
