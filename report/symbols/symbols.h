/* SPDX-License-Identifier: MIT */
/*
 * The symbolizer of prep: addresses in binaries (dsos) and in the kernel to
 * function names, and (from DWARF) to source lines with inline chains.
 *
 * Ownership: the symbolizer owns every dso, name, path and frame array it
 * hands out; all of them stay valid until symbolizer_free(). Nothing is
 * opened until a lookup needs it, and a file that cannot be read, or whose
 * build id differs from the recorded one, only leaves addresses unresolved
 * (counted in the stats, warned about once through opts.warn). Functions
 * return 0, or a negative code only for ENOMEM (and for kallsyms text that
 * does not parse). Not thread-safe: one symbolizer per thread.
 *
 * The files of a dso with a known build id, in this order: by build id on
 * this machine (<debug_root>/.build-id/xx/rest.debug; perf's cache
 * <buildid_dir>/.build-id/xx/rest/elf and .../debug; the .gnu_debuglink of
 * the binary), then debuginfod when DEBUGINFOD_URLS is set and nothing
 * local serves (no binary with that build id, or one with neither .symtab
 * nor .debug_info and no debug file), then the recorded path when its
 * build id is the recorded one. A file whose build id differs is never used.
 */
#ifndef PREC_REPORT_SYMBOLS_H
#define PREC_REPORT_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "sym_types.h"

struct symbolizer;
struct sym_dso;                 /* one binary: path + build id; opened lazily */

struct symbolizer_opts {
	const char *debug_root;     /* NULL: "/usr/lib/debug"; tests point it elsewhere */
	/* perf's build-id cache. NULL: $PERF_BUILDID_DIR if set, else
	 * $HOME/.debug; "": none */
	const char *buildid_dir;
	/* one-line warnings, each said once; NULL: the log's LOG_WARNING */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
	const char *kallsyms_path;  /* NULL: "/proc/kallsyms" (tests point it elsewhere) */
	/* Where an index of kallsyms_path may be kept between runs (NULL: not
	 * kept). It is valid for one boot, one set of loaded modules and one
	 * size and change time of the file, and is mapped instead of reading
	 * and parsing /proc/kallsyms again. */
	const char *cache_dir;
};

/* o may be NULL; NULL on ENOMEM. The strings in o are copied. */
struct symbolizer *symbolizer_new(const struct symbolizer_opts *o);
void symbolizer_free(struct symbolizer *s);     /* NULL-tolerant */

/* Find or create the dso for (path, build id). build_id NULL/0 = unknown.
 * Opens nothing yet. The same (path, build id) always returns the same
 * pointer. NULL only on ENOMEM. */
struct sym_dso *symbolizer_dso(struct symbolizer *s, const char *path,
			       const uint8_t *build_id, size_t build_id_size);

struct sym_info {
	const char *name;   /* NULL: unresolved (no file, no symbol covers it, build-id mismatch) */
	uint64_t start;     /* symbol start as ELF vaddr (kernel: absolute address) */
	uint64_t size;
	uint64_t addr;      /* the looked-up address as ELF vaddr (kernel: absolute); valid even
			     * when name is NULL if the file could be read, else = file_offset */
};

/* file_offset = sample ip - map start + map pgoff. Converted to a vaddr
 * through the PT_LOAD program headers of the binary (the one containing that
 * offset). Returns 0 (possibly with name NULL) or -ENOMEM. */
int sym_dso_lookup(struct symbolizer *s, struct sym_dso *d, uint64_t file_offset,
		   struct sym_info *out);

/* A data address (a sample's PERF_SAMPLE_ADDR) at file_offset = address -
 * map start + map pgoff of the file's map at or below it: converted to a
 * vaddr through the PT_LOAD headers, their .bss included, and named by the
 * binary's data symbols (STT_OBJECT; read from its files even when the
 * recording embedded its functions). 1 when a segment of the binary holds
 * the address (out->name NULL when no symbol covers it), 0 when none does
 * or no file was found, -ENOMEM. */
int sym_dso_lookup_data(struct symbolizer *s, struct sym_dso *d, uint64_t file_offset,
			struct sym_info *out);

/* Source position and inline chain for an address, innermost first:
 * frames[0] = the innermost function at the address (an inlined one if the
 * address is inside an inlined copy) with the file:line of the address;
 * frames[i+1] = the function that inlined frames[i], with the line of that
 * call site; the last frame is the out-of-line function. *n == 0 when there
 * is no DWARF line info for the address (struct sym_frame: sym_types.h).
 * Cached per (dso, address). Returns 0 or -ENOMEM. */
int sym_dso_srcline(struct symbolizer *s, struct sym_dso *d, uint64_t file_offset,
		    const struct sym_frame **frames, size_t *n);

/* Kernel symbols, text in /proc/kallsyms layout ("ffffffff81000000 T _text\n",
 * optional "\t[module]"). symbolizer_load_kallsyms copies what it needs from
 * text (call it at most once; a second call replaces the table). If never
 * called, the first kernel lookup reads /proc/kallsyms (all-zero addresses:
 * hidden by kptr_restrict, treated as unavailable, warned once). Only
 * function symbols (t T w W) are used; a symbol extends to the next higher
 * symbol address. Returns 0, -ENOMEM, or -PREC_ECORRUPT with err set. */
int symbolizer_load_kallsyms(struct symbolizer *s, const uint8_t *text, size_t len,
			     struct err *err);
/* The kernel symbols of one recording among several: tables numbered from 1,
 * each from its own text (the same text as another table's shares that
 * table, names included); table 0 is the one above. A lookup in a table
 * never loaded is a lookup in table 0. As symbolizer_load_kallsyms. */
int symbolizer_load_kallsyms_table(struct symbolizer *s, unsigned table, const uint8_t *text,
				   size_t len, struct err *err);
/* Start reading /proc/kallsyms (opts.kallsyms_path) on a thread now, so
 * that the first kernel lookup does not wait for the kernel to format it.
 * Loading the recording's copy instead discards the prefetch. Always 0. */
int symbolizer_prefetch_kallsyms(struct symbolizer *s);

/* Start reading the files and symbols of these dsos on a thread (their
 * ELF symbol tables: what the first lookups would read), while the caller
 * does other work that does not use the symbolizer; the first use of a
 * dso waits for it to end and takes what it read (its warnings said
 * then, in the order of dsos). Once per symbolizer; not where debuginfod
 * is configured. 0 or -ENOMEM. */
int symbolizer_prefetch_symbols(struct symbolizer *s, struct sym_dso *const *dsos, size_t n);
/* Wait until the thread has read them all, and take what it read. */
void symbolizer_prefetch_wait(struct symbolizer *s);

/* Start opening the DWARF of these dsos on a thread (the slow part is the
 * decompression of their debug sections), so that sym_dso_srcline finds it
 * ready. Files are located here first. 0 or -ENOMEM. */
int symbolizer_prefetch_dwarf(struct symbolizer *s, struct sym_dso *const *dsos, size_t n);

/* *module (when module is not NULL) is NULL for the core kernel. 0 or -ENOMEM. */
int symbolizer_kernel_lookup(struct symbolizer *s, uint64_t addr, struct sym_info *out,
			     const char **module);
/* The same in a table of symbolizer_load_kallsyms_table. */
int symbolizer_kernel_lookup_table(struct symbolizer *s, unsigned table, uint64_t addr,
				   struct sym_info *out, const char **module);

/* What a recording embedded (format/embed.h, SYMBOLS blocks): a dso whose
 * build id is among them takes its segments, symbols and source lines from
 * there, before any file is looked for; addresses the data does not cover
 * stay unresolved. The array's elements are borrowed and must outlive s;
 * call before the first lookup. 0 or -ENOMEM. */
struct embed_dso;
int symbolizer_add_embedded(struct symbolizer *s, struct embed_dso *const *v, size_t n);
/* The code bytes the recording embedded at vaddr of the binary with this
 * build id (embed_code.h): how many of the n bytes from vaddr on are there
 * in one piece (0: none), *out pointing at them (valid while s is). */
size_t symbolizer_embedded_code(const struct symbolizer *s, const uint8_t *id, size_t id_size,
				uint64_t vaddr, size_t n, const uint8_t **out);

struct symbolizer_stats {
	uint64_t dsos;
	uint64_t dsos_missing;      /* file not found/readable */
	uint64_t dsos_mismatch;     /* build id differs */
	uint64_t dsos_embedded;     /* taken from the recording's SYMBOLS blocks */
	uint64_t debuginfod_asked;  /* questions sent to debuginfod (one per build id and kind) */
	uint64_t debuginfod_files;  /* of which answered with a file that was trusted */
	uint64_t lookups;           /* sym_dso_lookup and symbolizer_kernel_lookup calls */
	uint64_t unresolved;        /* of which ended with name NULL */
	uint64_t dwarf_dsos;        /* dsos whose DWARF was loaded */
	uint64_t kallsyms_cached;   /* 1 when the kernel symbols came from a kept index */
};

void symbolizer_get_stats(const struct symbolizer *s, struct symbolizer_stats *st);

/* Whether the dso's file (or a debug file) was found and trusted; opens it
 * if needed. */
bool sym_dso_usable(struct symbolizer *s, struct sym_dso *d);

/* The program headers the dso's addresses are converted with (after
 * sym_dso_usable; struct load_seg: sym_types.h). */
const struct load_seg *sym_dso_segs(const struct sym_dso *d, size_t *n);

/* The binary found on this machine for the dso (by build id or path; also
 * for one whose symbols the recording embedded): its path, valid until
 * symbolizer_free; NULL when none (or only a debug file, which has no
 * code). For its code bytes: code.h. */
const char *sym_dso_bin_path(struct symbolizer *s, struct sym_dso *d);

/* The dso's path and recorded build id (size 0 when unknown). */
const char *sym_dso_path(const struct sym_dso *d);
const uint8_t *sym_dso_build_id(const struct sym_dso *d, size_t *size);

/* The build id of the ELF file at path, copied to out: its size, or 0 when
 * the file cannot be read, has none, or it is longer than size. */
size_t sym_file_build_id(const char *path, uint8_t *out, size_t size);

/* The binary file found for the dso by sym_dso_usable (not for one taken
 * from a recording's embedded data), NULL when none was (only a debug
 * file): what the code of its functions is embedded from (embed_code.h). */
const char *sym_dso_found_binary(const struct sym_dso *d);

/* The vaddrs in [lo, hi) where the dso's DWARF line table has a row (its
 * files, not embedded data), sorted, malloc'd: where the source position
 * of an address may change (embed_code.h embeds them for the functions
 * whose code it embeds). 0 or -ENOMEM; none without DWARF. */
int sym_dso_line_rows(struct symbolizer *s, struct sym_dso *d, uint64_t lo, uint64_t hi,
		      uint64_t **out, size_t *n);

#endif
