/* SPDX-License-Identifier: MIT */
/*
 * The data-symbol part of the symbolizer (symbols_data.c): the variables of
 * a binary and how a data address's file offset becomes a vaddr (.bss
 * included). Not a public interface: use symbols.h (sym_dso_lookup_data).
 */
#ifndef PREC_REPORT_SYMBOLS_DATA_H
#define PREC_REPORT_SYMBOLS_DATA_H

#include <stdbool.h>
#include <stdint.h>

#include "symbols_elf.h"

/* The STT_OBJECT and STT_COMMON symbols of .symtab (of the debug file when
 * it has one, else of the binary) and .dynsym into *out (array malloc'd,
 * names in the arena). Only -ENOMEM is an error. */
int elf_read_data_symbols(const char *bin_path, const char *debug_path, struct arena *names,
			  struct symtab *out);
/* The vaddr of file offset off through the PT_LOAD headers, counting a
 * segment's memory size (its .bss) too; *inside: some segment held it. */
uint64_t segs_data_vaddr(const struct load_seg *segs, size_t n, uint64_t off, bool *inside);

#endif
