/* SPDX-License-Identifier: MIT */
/*
 * Naming the data address of a sample (PERF_SAMPLE_ADDR, prec -d): the
 * binary whose segments hold it (its .bss too, which the kernel maps
 * anonymously after the file's pages) and the data symbol (a variable)
 * covering it. For the sort keys symbol_daddr and dso_daddr and for
 * `prep script -F addr`. Maps are those of the moment: call it while the
 * samples are read.
 */
#ifndef PREC_REPORT_DADDR_H
#define PREC_REPORT_DADDR_H

#include <stdint.h>

#include "report/core/machine.h"
#include "report/symbols/symbols.h"

struct daddr {
	struct dso *dso;        /* the binary holding it; NULL: none ([unknown]) */
	const char *sym;        /* its data symbol (the symbolizer's); NULL: none */
	uint64_t sym_start;     /* the symbol's vaddr */
	uint64_t vaddr;         /* the address as a vaddr of dso (else as sampled) */
};

/* 0, or -ENOMEM. symfs as the report's --symfs (may be NULL). */
int daddr_resolve(struct machine *m, struct symbolizer *sy, const char *symfs,
		  const struct thread *t, uint64_t addr, struct daddr *out);

#endif
