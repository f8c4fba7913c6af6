/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the report pipeline: the input is a whole prec.data file,
 * read through the session (time ordering), the machine model (threads,
 * maps, exec, fork), the histogram folding and symbolization, and printed
 * with call graphs in children mode to /dev/null. Binaries named in the
 * file are looked up as usual (most names are missing: unresolved); the
 * kernel symbols come from an empty file so that no run reads
 * /proc/kallsyms. Each input runs as given and again with its checksums
 * recomputed (stored blocks: the committed corpus has -z 0 recordings), so
 * that mutations reach the records.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix_crcs.h"
#include "report/aggregate/hist.h"
#include "report/core/load.h"
#include "report/views/print.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int add(void *ctx, struct load *l, const struct load_sample *s)
{
	(void)l;
	return hist_add(ctx, s->event, s->thread, s->rec->u.sample.cpu, s->rec->u.sample.period,
			s->addrs, s->kernel, s->nr, s->kernel_table);
}

static void run(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct load_opts lo = { .inputs = { "fuzz.data" }, .nr_inputs = 1, .quiet = true,
				.kallsyms_path = "/dev/null", .no_cache = true, .mem = data,
				.mem_len = size };
	struct load l;
	struct hist_opts ho = { .keys = { SORT_COMM, SORT_DSO, SORT_SYM, SORT_SRCLINE },
				.nr_keys = 4, .children = true, .callchain = true, .caller = true,
				.inline_frames = true };
	struct print_opts po = { .mode = CG_GRAPH, .threshold = 0.5, .children = true,
				 .callchain = true, .show_nr = true };
	struct err err = { 0 };
	struct hist h;

	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	if (load_init(&l, &lo, &err))
		abort();
	hist_init(&h, &ho, &l.machine, l.sym);
	if (!load_run(&l, add, NULL, &h, &err) && !hist_resolve(&h))
		print_report(null, &l, &h, &po);
	hist_free(&h);
	load_free(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);

	run(data, size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fix_crcs(copy, size);
	run(copy, size);
	free(copy);
	return 0;
}
