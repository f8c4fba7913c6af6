/* SPDX-License-Identifier: MIT */
/*
 * Inside the pprof export (pprof.c builds the tables, pprof_encode.c writes
 * them): the state both halves share. Private to report/export.
 */
#ifndef PREC_REPORT_PPROF_INT_H
#define PREC_REPORT_PPROF_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/hash.h"
#include "gzout.h"
#include "pprof.h"
#include "report/aggregate/hist.h"


/* A user map as an MMAP/MMAP2 record gave it. */
struct umap {
	struct dso *dso;
	uint64_t start, end, pgoff;
	uint32_t mapping;               /* index + 1 in pp.maps, 0 until used */
};

struct mapping {
	struct dso *dso;
	uint64_t start, limit, offset;
	uint64_t self;                  /* period of the samples whose leaf is here */
	bool all_fn, all_lines;         /* every location has a function / DWARF lines */
	uint32_t id;
};

struct loc {
	uint32_t mapping;               /* index + 1, 0 = none */
	uint64_t address;
	uint32_t first_line, nr_lines;
};

struct line {
	uint32_t function;              /* id */
	int64_t line;
};

struct func {
	uint32_t name, file;            /* string ids */
};

struct str {
	size_t off, len;                /* in pp.strdata */
};

struct pp {
	struct load *l;
	struct hist *h;
	int event;
	struct umap *umaps;
	size_t nr_umaps, cap_umaps;
	struct hmap umap_idx;           /* while reading: dso, pgoff, length */
	struct buf strdata;
	struct str *strs;
	size_t nr_strs, cap_strs;
	struct hmap str_idx;
	struct mapping *maps;
	size_t nr_maps, cap_maps;
	uint32_t *dso_map;              /* dso idx -> mapping index + 1: ranges of addresses */
	size_t nr_dso_map;
	struct loc *locs;
	size_t nr_locs, cap_locs;
	uint32_t *loc_of;               /* hist frame -> location id, 0 = none yet */
	struct line *lines;
	size_t nr_lines, cap_lines;
	struct func *funcs;
	size_t nr_funcs, cap_funcs;
	struct hmap func_idx;
	uint64_t *scratch;              /* location ids of one sample */
	size_t cap_scratch;
};

/* The string table index of s[0..len) / of s (NULL: ""), added if new.
 * 0 or -ENOMEM. */
int pprof_str_idn(struct pp *p, const char *s, size_t len, uint32_t *id);
int pprof_str_id(struct pp *p, const char *s, uint32_t *id);

/* The profile of the event p->event (the tables built) into gz. 0, or a
 * negative code with err set. */
int pprof_encode(struct pp *p, const struct pprof_result *res, struct gzout *gz,
		 struct err *err);

#endif
