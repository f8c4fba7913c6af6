/* SPDX-License-Identifier: MIT */
/*
 * Internals shared by the symbolizer's files (symbols.c: dsos and lookups;
 * symbols_find.c: which files of a dso are used and trusted; symbols_elf.c:
 * ELF symbol tables; symbols_dwarf.c: source lines; symbols_kernel.c:
 * kallsyms). Not a public interface: use symbols.h.
 */
#ifndef PREC_REPORT_SYMBOLS_INT_H
#define PREC_REPORT_SYMBOLS_INT_H

#include <elfutils/libdw.h>
#include <pthread.h>
#include <gelf.h>

#include "symbols.h"
#include "format/embed.h"

#define SYM_BUILD_ID_MAX 64

/* A symbol of a sorted table: [start, start + size), no overlap decisions
 * left (duplicates at one address were resolved while loading). */
struct sym {
	uint64_t start;
	uint64_t size;
	const char *name;       /* in the symbolizer's arena */
};

/* A symbol while a table is being collected. */
struct rawsym {
	uint64_t start;
	uint64_t size;
	uint64_t limit;         /* a zero-size symbol never extends past this (section end) */
	const char *name;
	uint8_t bind;           /* STB_* */
	uint8_t type;           /* STT_* */
	const char *aux;        /* carried to the table's parallel array (kernel: module) */
	uint32_t seq;           /* order of arrival (set by rawsyms_push) */
};

struct rawsyms {
	struct rawsym *v;
	size_t n, cap;
};

struct symtab {
	struct sym *v;
	size_t n;
};

/* A PT_LOAD program header: how file offsets map to vaddrs. */
struct load_seg {
	uint64_t offset, vaddr, filesz, memsz;
	uint32_t flags;
};

struct srcline_slot {
	uint64_t addr;
	const struct sym_frame *frames;
	uint32_t n;
	uint32_t used;
};

enum dso_state { DSO_NEW, DSO_OK, DSO_MISSING, DSO_MISMATCH };

struct sym_dso {
	struct sym_dso *next;           /* hash chain in the symbolizer */
	uint64_t hash;
	char *path;
	uint8_t build_id[SYM_BUILD_ID_MAX];
	size_t build_id_size;

	enum dso_state state;
	const struct embed_dso *embed;  /* from the recording; no files then */
	char *bin_path;                 /* the binary, when found and trusted */
	char *debug_path;               /* a separate debug file, when found */
	struct load_seg *segs;
	size_t nsegs;

	bool syms_loaded;
	struct symtab syms;

	int dwarf_state;                /* 0 not tried, 1 loaded, -1 none, 2 being opened */
	int dw_result;                  /* what the prefetch thread found */
	int dw_fd;
	Elf *dw_elf;
	Dwarf *dw;
	struct srcline_slot *lines;     /* open addressing on addr */
	size_t lines_cap, lines_n;
	const char **paths;             /* joined comp_dir/file strings, a set */
	size_t paths_cap, paths_n;
	struct cu_index **cus;          /* function ranges of the CUs seen, by CU offset */
	size_t ncus, cus_cap;
};

struct cu_index;

/* Bump allocator for names and frame arrays, freed all at once. */
struct arena_chunk;

struct arena {
	struct arena_chunk *head;
};

/* One function symbol of a kallsyms text, by position in that text. */
struct kent {
	uint64_t start;
	uint32_t name_off, module_off;  /* module_off 0: core kernel */
	uint16_t name_len, module_len;
	char type;
};

/* Kernel symbols: the kallsyms text kept as it is, plus an index of its
 * function symbols sorted by address; names are copied out only for the
 * symbols a lookup lands on. */
struct kindex {
	uint8_t *text;                  /* names are at text + name_off */
	size_t len;
	struct kent *v;
	size_t n;
	/* or, from a kept index: read with pread as needed (mapping it would
	 * make the kernel map whole large page-cache folios) */
	int fd;                         /* -1 unless from a kept index */
	uint64_t *top;                  /* start of every KBLOCK-th entry */
	size_t ntop;
	uint64_t entries_off, strings_off;
	size_t nonzero;                 /* entries with a non-zero address */
	int err;                        /* 0, -ENOMEM or -PREC_ECORRUPT */
	char msg[ERR_MSG_MAX];
};

struct ksyms {
	int state;                      /* 0 not loaded, 1 loaded, -1 unavailable */
	bool prefetching;               /* a thread is reading and indexing kallsyms_path */
	pthread_t prefetch;
	bool pf_read;                   /* the prefetch could read the file */
	struct kindex pf;               /* its result */
	struct kindex ix;
	const char **names;             /* per index entry, filled on first use */
	const char **modules;
	unsigned same_as;               /* a table of ktabs: the same text as table same_as */
};

/* The debuginfod client and what it was asked (symbols_find.c). */
struct dbgd;

struct symbolizer {
	char *debug_root;
	char *buildid_dir;              /* perf's build-id cache; NULL: none */
	struct dbgd *dbgd;              /* NULL until debuginfod is first needed */
	char *kallsyms_path;
	char *cache_dir;
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;

	struct embed_list embeds;       /* given by symbolizer_add_embedded */
	struct sym_dso **buckets;
	size_t nbuckets, ndsos;
	struct arena arena;
	struct ksyms kernel;             /* table 0 */
	struct ksyms *ktabs;            /* tables 1.. (symbolizer_load_kallsyms_table) */
	size_t nr_ktabs;
	struct symbolizer_stats stats;
	/* DWARF opened ahead on a thread (symbolizer_prefetch_dwarf) */
	bool dw_pf_running;
	pthread_t dw_pf_thread;
	struct sym_dso **dw_pf;
	size_t dw_pf_n;
};

void *arena_alloc(struct arena *a, size_t size);
char *arena_strndup(struct arena *a, const char *p, size_t n);
char *arena_strdup(struct arena *a, const char *p);

/* Wait for and discard a /proc/kallsyms prefetch; free the kernel symbols
 * (symbols_kernel.c). */
void kernel_prefetch_drop(struct symbolizer *s);
void kernel_free(struct symbolizer *s);
/* Wait for a DWARF prefetch (symbols_dwarf.c). */
void dwarf_prefetch_stop(struct symbolizer *s);

/* printf-style warning through opts.warn (or the log, common/log.h). */
void sym_warn(struct symbolizer *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* rawsyms: append, and turn into a sorted, deduplicated table whose
 * zero-size symbols extend to the next symbol (perf's choice among
 * duplicates, see symbols_elf.c). */
int rawsyms_push(struct rawsyms *r, const struct rawsym *s);
/* Of two symbols at the same address, whether a is the one perf keeps. */
bool sym_better(const struct rawsym *a, const struct rawsym *b);
int rawsyms_finish(struct rawsyms *r, struct symtab *out, const char ***aux_out);
const struct sym *symtab_find(const struct symtab *t, uint64_t addr);

/* ELF helpers (symbols_elf.c). */
Elf *elf_open_path(const char *path, int *fd);
void elf_close(Elf *e, int fd);
/* The NT_GNU_BUILD_ID note: its size (0 when none), bytes copied to out. */
size_t elf_build_id(Elf *e, uint8_t out[SYM_BUILD_ID_MAX]);
bool elf_has_section(Elf *e, const char *name, bool with_bits);
/* The section of that name (and its header), or NULL. */
Elf_Scn *elf_section(Elf *e, const char *name, GElf_Shdr *sh);
/* The .gnu_debuglink name (malloc'd) and CRC; NULL when none. */
char *elf_debuglink(Elf *e, uint32_t *crc);
int elf_load_segs(Elf *e, struct load_seg **segs, size_t *n);
/* Load the dso's symbols from its binary / debug file into d->syms. */
int dso_load_symbols(struct symbolizer *s, struct sym_dso *d);

uint64_t dso_vaddr(const struct sym_dso *d, uint64_t file_offset);
/* Open the dso (decide its files) if not done yet: 0 or -ENOMEM. */
int dso_ensure(struct symbolizer *s, struct sym_dso *d);
/* The lookup's settings from the options (symbols_find.c): 0 or -ENOMEM;
 * and their release, with the debuginfod client (NULL-tolerant parts). */
int find_init(struct symbolizer *s, const struct symbolizer_opts *o);
void find_free(struct symbolizer *s);
void dso_dwarf_free(struct sym_dso *d);
/* Take the dso from the recording's embedded data if it is there: 1 done,
 * 0 not embedded, -ENOMEM (symbols.c). */
int dso_use_embedded(struct symbolizer *s, struct sym_dso *d);
/* Source lines of an embedded dso (symbols_dwarf.c), as sym_dso_srcline. */
int embed_srcline(struct symbolizer *s, struct sym_dso *d, uint64_t addr,
		  const struct sym_frame **frames, size_t *n);

#endif
