/* SPDX-License-Identifier: MIT */
/*
 * Samples counted per sampled address, as prep annotate counts them: one
 * entry per (binary, file offset, event) for user addresses in a file, per
 * (kernel mapping, address, kernel table) for kernel ones, per (mapping or
 * none, address) where the address is no file offset; each with its samples
 * and period, in the order the first sample of each came, and every
 * event's totals. Filled either from the samples of a reading (addr_hits_add
 * as a load_sample_fn's work) or from a file's ADDR_COUNTS block
 * (addr_hits_from_counts, FORMAT.md 5.11), with the same result: that block
 * is what addr_hits_encode makes of the samples of the one file read.
 */
#ifndef PREC_REPORT_ADDR_HITS_H
#define PREC_REPORT_ADDR_HITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/hash.h"
#include "report/core/load.h"

struct addr_bin;
struct addrcounts_event;

struct addr_hit {
	struct dso *dso;        /* NULL: no map (or kernel: the kernel table below) */
	uint64_t off;           /* file offset; the address for the kernel and no dso */
	int event;
	unsigned ktab;          /* kernel addresses: the file's kernel symbols */
	bool kernel;
	uint64_t count, period;
};

struct addr_hits {
	struct addr_hit *v;
	size_t nr, cap;
	uint32_t *slots;        /* open addressing on the key: index in v + 1, 0 empty */
	size_t nr_slots;        /* a power of two, at least twice nr */
	uint64_t count[LOAD_MAX_EVENTS], period[LOAD_MAX_EVENTS];
	/* addr_hits_freeze: the binaries as the reading left them */
	struct addr_bin *bins;
	size_t nr_bins;
	uint32_t *bin_of;       /* by dso idx: index in bins + 1, 0 if none */
	size_t nr_bin_of;
	uint16_t first[LOAD_MAX_EVENTS];        /* the EVENT block of each event */
	struct addrcounts_event *file_events;   /* per EVENT block */
	size_t nr_file_events;
	bool unfit;             /* the events do not fit the block */
};

#define ADDR_HITS_INIT { .nr = 0 }

void addr_hits_free(struct addr_hits *h);

/* Count the sample (s->count of them: load_run_sum) at the frame its
 * chain starts with (load_sample_first_frame). 0 or -ENOMEM. */
int addr_hits_add(struct addr_hits *h, struct load *l, const struct load_sample *s);

/* Add count samples of total period at k's address (k's own counts are
 * not read): the counts of an address known otherwise, e.g. a histogram's
 * stacks by their first frame (the browser's annotate). 0 or -ENOMEM. */
int addr_hits_add_counted(struct addr_hits *h, const struct addr_hit *k, uint64_t count,
			  uint64_t period);

/* A histogram's samples (read with ip_only, or without inline frames)
 * counted at the first frame of each of its stacks: what addr_hits_add
 * gives of the same samples, in the same order. 0 or -ENOMEM. */
struct hist;
int addr_hits_from_hist(struct addr_hits *h, const struct hist *hist);

/* What load_open_counts gave, as if its samples had been counted. 0, 1
 * when the block does not fit this reading (an entry of an event the
 * reading has no index for), or -ENOMEM. */
int addr_hits_from_counts(struct addr_hits *h, const struct load_counts *lc);

/* Once the one file of l is read, while it is open: keep the binaries the
 * entries name and the machine model's kernel one, in its order, with the
 * build ids they have now (before anything else gives them one), and the
 * events as the file numbers them, for addr_hits_encode. 0 or -ENOMEM. */
int addr_hits_freeze(struct addr_hits *h, const struct load *l);
/* Append the ADDR_COUNTS payload of what was counted (after
 * addr_hits_freeze), covering the file's bytes [64, covered_end) whose
 * CRC-32 is covered_crc. 0, -ENOMEM, or -EINVAL when the counts do not fit
 * the format (an event the file does not number alone, a binary's empty
 * path). */
int addr_hits_encode(const struct addr_hits *h, uint64_t covered_end, uint32_t covered_crc,
		     struct buf *out);

#endif
