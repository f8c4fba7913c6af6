/* SPDX-License-Identifier: MIT */
/*
 * Source lines and inline chains of one binary (symbols_dwarf.c): from its
 * DWARF (libdw), or from the data a recording embedded for it, each answer
 * cached by address. Knows nothing of dsos or of the symbolizer, whose
 * facade (symbols.h) decides the files and converts file offsets to the
 * addresses asked for here. Not a public interface: use symbols.h.
 */
#ifndef PREC_REPORT_SYMBOLS_DWARF_H
#define PREC_REPORT_SYMBOLS_DWARF_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

#include "format/embed.h"
#include "sym_types.h"
#include "symtab.h"

struct srcline_slot;
struct cu_index;

/* The DWARF handles stay open while the lines are in use: the names and
 * paths libdw hands out point into them. Zero-initialized with fd -1
 * (srclines_init) is closed and empty. */
struct srclines {
	int fd;
	Elf *elf;
	Dwarf *dw;
	struct srcline_slot *lines;     /* open addressing on addr */
	size_t lines_cap, lines_n;
	const char **paths;             /* joined comp_dir/file strings, a set */
	size_t paths_cap, paths_n;
	struct {                        /* the last joins, by the pointers libdw gave */
		const char *dir, *file, *path;
	} joins[64];
	Dwarf_Die last_cu;              /* the CU of the last address range asked for */
	uint64_t last_lo, last_hi;      /* its .debug_aranges range; hi 0: none */
	struct cu_index **cus;          /* function ranges of the CUs seen, by CU offset */
	size_t ncus, cus_cap;
};

void srclines_init(struct srclines *l);
void srclines_free(struct srclines *l); /* closes, and leaves it as srclines_init does */

/* Open the DWARF of the debug file, else of the binary (either may be
 * NULL); a copy of a file with compressed debug sections may be kept under
 * cache_dir (NULL: none) and used instead. 1 when open, -1 when there is
 * none. Writes only l: it may run on a thread while the symbolizer serves
 * other binaries. */
int srclines_open(struct srclines *l, const char *debug_path, const char *bin_path,
		  const char *cache_dir);

/* The frames of addr (an ELF vaddr), as sym_dso_srcline gives them: from
 * the open DWARF (srclines_find), or from embedded data e (srclines_embedded).
 * *n == 0 when there is no line. Arrays and joined paths are allocated in
 * names; 0 or -ENOMEM. */
int srclines_find(struct srclines *l, struct arena *names, uint64_t addr,
		  const struct sym_frame **frames, size_t *n);
/* The addresses of the line-table rows in [lo, hi) of the CU holding lo
 * (sorted, unique; malloc'd): where the source position may change. 0 or
 * -ENOMEM; none without DWARF. */
int srclines_rows(struct srclines *l, uint64_t lo, uint64_t hi, uint64_t **out, size_t *n);
int srclines_embedded(struct srclines *l, struct arena *names, const struct embed_dso *e,
		      uint64_t addr, const struct sym_frame **frames, size_t *n);

#endif
