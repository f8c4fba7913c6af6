/* SPDX-License-Identifier: MIT */
/*
 * prep annotate's parts: the disassembler (annotate_asm.c, capstone in
 * process), what the samples say per symbol and instruction, and the
 * printer (annotate_print.c); annotate.c has the command, its options and
 * the one pass over the samples.
 */
#ifndef PREC_REPORT_ANNOTATE_INT_H
#define PREC_REPORT_ANNOTATE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "report/core/load.h"
#include "report/symbols/srctext.h"

/* ---- disassembly ---- */

struct annot_insn {
	uint64_t addr;
	uint8_t size;
	uint8_t bytes[16];
	const char *text;       /* "mnemonic operands", objdump's spacing; a direct
				   jump or call names its target: "jmp 4005d0 <loop+0x20>"
				   (in the array's block, after the instructions) */
};

/* The name of the function holding addr and its start; NULL if none. */
typedef const char *(*annot_name_fn)(void *ctx, uint64_t addr, uint64_t *start);

/* Disassemble len bytes of x86-64 code at addr (AT&T spelling, Intel with
 * intel) into *out (malloc'ed, *n instructions; for free()); bytes that do
 * not decode become one "(bad)" each. name may be NULL. 0, or -ENOMEM /
 * -EINVAL (capstone would not start) with a message. */
int annot_disasm(const uint8_t *code, size_t len, uint64_t addr, bool intel, annot_name_fn name,
		 void *ctx, struct annot_insn **out, size_t *n, struct err *err);
/* The same, calling meanwhile(ctx) (unless NULL) on this thread while the
 * bytes are decoded on another one, before any name is asked for. */
int annot_disasm_with(const uint8_t *code, size_t len, uint64_t addr, bool intel,
		      annot_name_fn name, void *ctx, void (*meanwhile)(void *ctx),
		      struct annot_insn **out, size_t *n, struct err *err);

/* ---- the samples of one symbol ---- */

enum annot_pct { PCT_LOCAL_PERIOD, PCT_GLOBAL_PERIOD, PCT_LOCAL_HITS, PCT_GLOBAL_HITS };

struct annot_hit {
	uint64_t vaddr;
	int event;              /* column, 0.. */
	uint64_t count, period;
};

struct annot_sym {
	struct dso *dso;
	const char *name;
	uint64_t start, size;   /* ELF vaddr */
	bool kernel;
	uint64_t count[LOAD_MAX_EVENTS], period[LOAD_MAX_EVENTS];
	struct annot_hit *hits;
	size_t nr_hits, cap_hits;
};

struct annot_opts {
	const char *syms[64];
	size_t nr_syms;
	bool nr_samples, total_period, print_line, no_source, asm_raw, intel;
	bool skip_missing, color, group;
	bool no_index;          /* read the samples, not the file's ADDR_COUNTS block */
	enum annot_pct pct;
	double percent_limit;
	const char *prefix;
	unsigned prefix_strip;
};

/* What the printer needs beside the symbol. */
struct annot_ctx {
	const struct annot_opts *o;
	struct load *l;
	struct srctext *src;
	int events[LOAD_MAX_EVENTS];    /* the columns: load event indexes */
	size_t nr_events;
	uint64_t total_count[LOAD_MAX_EVENTS], total_period[LOAD_MAX_EVENTS];
	FILE *out;
};

/* Print one symbol as perf annotate --stdio does: 0, 1 when skipped
 * (missing binary, message in err), negative on failure. */
int annot_print_sym(struct annot_ctx *c, struct annot_sym *s, struct err *err);

/* One symbol's lines for column col through fn (annotate_lines.h), at most
 * max instructions: as annot_print_sym's return; "binary not available"
 * when skipped. */
struct annot_line;
int annot_sym_lines(struct annot_ctx *c, struct annot_sym *s, size_t col, size_t max, bool *cut,
		    int (*fn)(void *ctx, const struct annot_line *ln), void *ctx, struct err *err);

#endif
