/* SPDX-License-Identifier: MIT */
/*
 * A binary's .debug_frame, made usable by libunwind's remote interface.
 *
 * libunwind 1.6 reads .debug_frame only for its own process: it loads the
 * section from the named file into local memory and searches it there
 * (dwarf_find_debug_frame, built only with CONFIG_DEBUG_FRAME, which the
 * x86-64 Debian library is not). For a remote address space it understands
 * only .eh_frame-style tables read through access_mem. So the section is
 * rewritten once, in memory, into that form: its CIEs and FDEs as .eh_frame
 * entries (CIE id 0, FDE CIE pointers relative, start addresses pc-relative)
 * followed by a sorted search table, one image that the unwinder serves from
 * access_mem at a synthetic address (see dframe_read). x86-64 (64-bit,
 * little-endian) only, like the unwinder.
 */
#ifndef PREC_REPORT_UNWIND_DEBUG_FRAME_H
#define PREC_REPORT_UNWIND_DEBUG_FRAME_H

#include <gelf.h>
#include <libunwind.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dframe;

/* Convert the bytes of a .debug_frame section (sec, len; only read during
 * the call). FDEs outside the link-time range [lo, hi) (the executable
 * segments) are left out, as are CIEs libunwind could not take (augmented,
 * 64-bit DWARF, address size other than 8) and their FDEs; a malformed entry
 * ends the conversion with what came before it. 0 with *out set, or NULL
 * when no FDE is left; -ENOMEM. Free with dframe_free. */
int dframe_new(const void *sec, size_t len, uint64_t lo, uint64_t hi, struct dframe **out);
/* The same from the .debug_frame section of an ELF file (decompressed when
 * needed); 0 with *out NULL when there is none or it is not 64-bit LE. */
int dframe_from_elf(Elf *e, uint64_t lo, uint64_t hi, struct dframe **out);
void dframe_free(struct dframe *d);   /* NULL-tolerant */

/* For a runtime ip of the binary loaded with bias (runtime = bias + link
 * address): a table libunwind's dwarf_search_unwind_table can search, in *di,
 * or false when ip is outside the FDEs' range. */
bool dframe_dyn_info(const struct dframe *d, uint64_t bias, uint64_t ip, unw_dyn_info_t *di);

/* The 8 bytes at addr, for access_mem: true when addr lies in the image of
 * the binary loaded with bias (bytes past its end read as 0). */
bool dframe_read(const struct dframe *d, uint64_t bias, uint64_t addr, uint64_t *v);

/* How many FDEs the image holds, and the link-time range [lo, hi) they
 * cover (tests, statistics). */
size_t dframe_fdes(const struct dframe *d);
void dframe_range(const struct dframe *d, uint64_t *lo, uint64_t *hi);

#endif
