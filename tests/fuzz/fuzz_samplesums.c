/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the SAMPLE_SUMS block (format/samplesums.c, FORMAT.md 5.12)
 * and the report that reads it (report/core/session_counts.c, load.c's
 * read_kept). The input is a whole prec.data file. Its SAMPLE_SUMS payloads
 * stored as they are must encode back to the very same bytes when they
 * decode (the format has one spelling of each block); then the file is
 * reported as prep report reads it (load_run_hist, which takes the block
 * where it may stand for the samples), as given and again with its
 * checksums recomputed and the blocks' covered CRCs made to match the
 * bytes before them, so that mutations reach the records handed on from
 * the block. Nothing checks the output: a mutated block no longer stands
 * for the samples, and must only not crash the reading.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix_crcs.h"
#include "format/samplesums.h"
#include "report/aggregate/hist.h"
#include "report/core/load.h"
#include "report/views/print.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const uint8_t *p, size_t n)
{
	struct samplesums ss;
	struct buf out = BUF_INIT;
	size_t at;

	if (samplesums_decode(p, n, &ss, NULL))
		return;
	if (samplesums_begin(&out))
		abort();
	for (size_t i = 0; i < ss.nr_items; i++) {
		const struct samplesums_item *it = &ss.items[i];

		if (samplesums_add(&out, it->rec, it->len, it->sum, it->period, &at))
			abort();
		if (it->sum)
			samplesums_set(&out, at, it->count, it->period);
	}
	samplesums_finish(&out, &ss, ss.nr_items);
	samplesums_cover(&out, ss.covered_end, ss.covered_crc);
	if (out.len != n || memcmp(out.data, p, n))
		abort();
	samplesums_free(&ss);
	buf_free(&out);
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Each stored SAMPLE_SUMS and ADDR_COUNTS block made to cover the bytes
 * before it, its own CRCs then made right (after fix_crcs). */
static void fix_covered(uint8_t *p, size_t n, bool check)
{
	size_t off = CONTAINER_HEADER_SIZE;

	while (n >= off && n - off >= CONTAINER_BLOCK_HEADER_SIZE) {
		uint8_t *b = p + off;
		uint32_t stored = get32(b + 8);
		uint16_t type = (uint16_t)(b[4] | b[5] << 8);

		if (memcmp(b, CONTAINER_BLOCK_MAGIC, 4) || stored > n - off - CONTAINER_BLOCK_HEADER_SIZE)
			break;
		if (b[6] == CODEC_STORED && type == BLOCK_SAMPLE_SUMS && check)
			round_trip(b + CONTAINER_BLOCK_HEADER_SIZE, stored);
		if (b[6] == CODEC_STORED && stored >= 12 &&
		    (type == BLOCK_SAMPLE_SUMS || type == BLOCK_ADDR_COUNTS) && !check) {
			put64(b + CONTAINER_BLOCK_HEADER_SIZE, off);
			put32(b + CONTAINER_BLOCK_HEADER_SIZE + 8,
			      crc32_of(p + CONTAINER_HEADER_SIZE, off - CONTAINER_HEADER_SIZE));
			put32(b + 16, crc32_of(b + CONTAINER_BLOCK_HEADER_SIZE, stored));
			put32(b + 28, crc32_of(b, 28));
		}
		off += CONTAINER_BLOCK_HEADER_SIZE + stored;
	}
}

static void run(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct load_opts lo = { .inputs = { "fuzz.data" }, .nr_inputs = 1, .quiet = true,
				.kallsyms_path = "/dev/null", .no_cache = true, .mem = data,
				.mem_len = size };
	struct load *l;
	struct hist_opts ho = { .keys = { SORT_COMM, SORT_DSO, SORT_SYM }, .nr_keys = 3,
				.children = true, .callchain = true, .caller = true,
				.inline_frames = true };
	struct print_opts po = { .mode = CG_GRAPH, .threshold = 0.5, .children = true,
				 .callchain = true, .show_nr = true };
	struct err err = { 0 };
	struct hist h;

	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	if (!(l = load_new(&lo, &err)))
		abort();
	hist_init(&h, &ho, load_machine(l), load_symbolizer(l));
	if (!load_run_hist(l, &h, &err) && !hist_resolve(&h))
		print_report(null, l, &h, &po);
	hist_free(&h);
	load_free(l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fix_covered(copy, size, true);
	run(data, size);
	fix_crcs(copy, size);
	fix_covered(copy, size, false);
	run(copy, size);
	free(copy);
	return 0;
}
