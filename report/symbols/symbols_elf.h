/* SPDX-License-Identifier: MIT */
/*
 * The ELF part of the symbolizer (symbols_elf.c): opening files with
 * libelf, build-id notes, .gnu_debuglink, program headers, and the function
 * symbols of a binary. Knows nothing of dsos or of the symbolizer; used by
 * the debug-file lookup, the DWARF part and the facade. Not a public
 * interface: use symbols.h.
 */
#ifndef PREC_REPORT_SYMBOLS_ELF_H
#define PREC_REPORT_SYMBOLS_ELF_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sym_types.h"
#include "symtab.h"

#define SYM_BUILD_ID_MAX 64

/* A regular ELF file opened for reading (mapped), or NULL; *fd is its file
 * descriptor (-1 with NULL). elf_close takes both (NULL-tolerant). */
Elf *elf_open_path(const char *path, int *fd);
void elf_close(Elf *e, int fd);
/* The NT_GNU_BUILD_ID note: its size (0 when none), bytes copied to out. */
size_t elf_build_id(Elf *e, uint8_t out[SYM_BUILD_ID_MAX]);
bool elf_has_section(Elf *e, const char *name, bool with_bits);
/* The section of that name (and its header), or NULL. */
Elf_Scn *elf_section(Elf *e, const char *name, GElf_Shdr *sh);
/* The .gnu_debuglink name (malloc'd) and CRC; NULL when none. */
char *elf_debuglink(Elf *e, uint32_t *crc);
/* The PT_LOAD headers (malloc'd; NULL and 0 when none). 0 or -ENOMEM. */
int elf_load_segs(Elf *e, struct load_seg **segs, size_t *n);

/* Reading one kind of symbol table (symbols_elf.c, symbols_data.c): the
 * symbols of every section of type sh_type (SHT_SYMTAB or SHT_DYNSYM) of e
 * into r, *found set when such a table had any; and, for the binary, what
 * else the kind has (symtab: a .symtab was found). 0 or -ENOMEM. */
struct rawsyms;
typedef int (*elf_table_fn)(struct arena *names, Elf *e, uint32_t sh_type, struct rawsyms *r,
			    bool *found);
typedef int (*elf_extra_fn)(struct arena *names, Elf *bin, struct rawsyms *r, bool symtab);
/* The tables of a binary through add into *out (array malloc'd, names in
 * the arena): .symtab of the debug file if it has one, else of the binary;
 * .dynsym of the binary; then extra (may be NULL). Either path may be NULL. */
int elf_read_tables(const char *bin_path, const char *debug_path, struct arena *names,
		    elf_table_fn add, elf_extra_fn extra, struct symtab *out);

/*
 * The function symbols of a binary into *out (its array malloc'd, names in
 * the arena): .symtab of the debug file if it has one, else of the binary;
 * .dynsym of the binary; when no .symtab was found, .gnu_debugdata; the PLT
 * entries of the binary. Either path may be NULL. Unreadable pieces are
 * skipped; only -ENOMEM is returned (and leaves *out empty).
 */
int elf_read_symbols(const char *bin_path, const char *debug_path, struct arena *names,
		     struct symtab *out);

#endif
