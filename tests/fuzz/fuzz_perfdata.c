/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for the perf.data importer (format/perfdata*.c): the input is
 * a whole perf.data file (file or pipe mode). It is opened, its events,
 * metadata, build ids and feature sections are read back, the data walk is
 * run to its end with every chunk checked to lie inside the input (stable
 * chunks) or read in full (decompressed ones) and every kernel record
 * decoded; a second walk after perfdata_rewind must give the same chunks.
 * Then the whole report pipeline reads the same bytes through the session
 * (ordering by FINISHED_ROUND, machine model, histograms, symbolization with
 * an empty kallsyms) and prints to /dev/null, as fuzz_report.c does for
 * prec.data; prep annotate's reading by sums (load_run_sum) must count
 * what the reading in time order counts, address by address. Last, prep stat report reads them (report/stat/stat_perf.c: perf's
 * STAT_CONFIG, STAT, STAT_ROUND, THREAD_MAP, CPU_MAP and EVENT_UPDATE
 * records) in five output modes. The committed corpus
 * (tests/fuzz/corpus/perfdata/) holds small files written by perf record:
 * plain, -g, pipe mode, -z, two events by ID and by IDENTIFIER, dwarf call
 * graphs, a fixed period, per-thread reads; and by perf stat record: the
 * default events, -I, -A -a, -I --per-core -a, --per-thread -p, pipe mode.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/perfdata.h"
#include "common/hash.h"
#include "report/aggregate/addr_hits.h"
#include "report/aggregate/hist.h"
#include "report/core/load.h"
#include "report/views/print.h"
#include "report/stat/stat_perf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void touch(const uint8_t *p, size_t n)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += p[i];
	sink += sum;
}

static struct record_layouts *layouts_of(const struct perfdata *pd)
{
	struct record_layouts *ls = record_layouts_new();
	const struct event_desc *ev;
	size_t n;

	if (!ls)
		abort();
	ev = perfdata_events(pd, &n);
	for (size_t i = 0; i < n; i++) {
		struct event_layout l;
		uint64_t *ids = calloc(ev[i].nr_ids + 1, sizeof(*ids));

		if (!ids)
			abort();
		for (size_t k = 0; k < ev[i].nr_ids; k++)
			ids[k] = ev[i].ids[k].id;
		event_layout_from_attr(&l, ev[i].attr_bytes, ev[i].attr_size);
		record_layouts_add(ls, &l, ids, ev[i].nr_ids, NULL);
		free(ids);
		if (!ev[i].name)
			abort();
		sink += strlen(ev[i].name);
	}
	return ls;
}

/* One walk: a checksum of the chunks, so that two walks can be compared. */
static uint64_t walk(struct perfdata *pd, const struct record_layouts *ls, const uint8_t *data,
		     size_t size)
{
	struct perfdata_chunk ch;
	uint64_t sum = 0;

	while (perfdata_next(pd, &ch, NULL) == 1) {
		if (ch.stable && (ch.p < data || ch.len > size || ch.p - data > (ptrdiff_t)(size - ch.len)))
			abort();
		touch(ch.p, ch.len);
		sum = sum * 31 + ch.len + ch.kind + ch.type;
		if (ch.kind != PERFDATA_CHUNK_RECORDS)
			continue;
		for (size_t off = 0, len; off < ch.len; off += len) {
			struct record rec;

			if (record_next(ch.p, ch.len, off, &len, NULL) != 1)
				abort();        /* the walk hands out whole records only */
			if (!record_decode(ls, ch.p + off, len, &rec, NULL))
				sink += rec.type;
			sink += record_peek_time(ls, ch.p + off, len);
		}
	}
	return sum;
}

static void importer(const uint8_t *data, size_t size)
{
	struct perfdata *pd;
	struct record_layouts *ls;
	const struct metadata *m;
	const struct build_id_entry *b;
	size_t n;
	uint64_t first, second;

	if (perfdata_open_mem(&pd, data, size, NULL, NULL))
		return;
	m = perfdata_meta(pd);
	for (size_t i = 0; i < m->nr; i++)
		touch(m->items[i].value, m->items[i].len);
	b = perfdata_build_ids(pd, &n);
	for (size_t i = 0; i < n; i++)
		sink += strlen(b[i].path) + b[i].size;
	for (unsigned f = 0; f < PERFDATA_FEAT_MAX; f++) {
		const uint8_t *p;
		size_t len;

		if (perfdata_feature(pd, f, &p, &len))
			touch(p, len);
	}
	ls = layouts_of(pd);
	first = walk(pd, ls, data, size);
	perfdata_rewind(pd);
	second = walk(pd, ls, data, size);
	if (first != second)
		abort();
	record_layouts_free(ls);
	perfdata_close(pd);
}

static int add(void *ctx, struct load *l, const struct load_sample *s)
{
	(void)l;
	return hist_add(ctx, s->event, s->thread, s->rec->u.sample.cpu, s->period,
			s->addrs, s->kernel, s->nr, s->kernel_table);
}

static void report(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct load_opts lo = { .inputs = { "fuzz.data" }, .nr_inputs = 1, .quiet = true,
				.kallsyms_path = "/dev/null", .no_cache = true, .mem = data,
				.mem_len = size };
	struct load *l;
	struct hist_opts ho = { .keys = { SORT_COMM, SORT_DSO, SORT_SYM }, .nr_keys = 3,
				.children = true, .callchain = true, .caller = true };
	struct print_opts po = { .mode = CG_GRAPH, .threshold = 0.5, .children = true,
				 .callchain = true, .show_nr = true, .skip_first = true };
	struct err err = { 0 };
	struct hist h;

	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	if (!(l = load_new(&lo, &err)))
		abort();
	hist_init(&h, &ho, load_machine(l), load_symbolizer(l));
	if (!load_run(l, add, NULL, &h, &err) && !hist_resolve(&h)) {
		print_header(null, l);
		print_report(null, l, &h, &po);
	}
	hist_free(&h);
	load_free(l);
}

/* prep annotate's reading: the counts per sampled address, by sums where
 * the file may be read so (load_run_sum), must be those of the reading in
 * time order, entry by entry, with the same session counts. */
static int add_hit(void *ctx, struct load *l, const struct load_sample *s)
{
	return addr_hits_add(ctx, l, s);
}

static uint64_t hits_sum(const uint8_t *data, size_t size, bool sum, struct session_stats *st)
{
	struct load_opts lo = { .inputs = { "fuzz.data" }, .nr_inputs = 1, .quiet = true,
				.kallsyms_path = "/dev/null", .no_cache = true, .ip_only = true,
				.mem = data, .mem_len = size };
	struct addr_hits h = ADDR_HITS_INIT;
	struct err err = { 0 };
	struct load *l = load_new(&lo, &err);
	uint64_t x = 0;
	int ret;

	if (!l)
		abort();
	ret = sum ? load_run_sum(l, add_hit, &h, false, &err) : load_run(l, add_hit, NULL, &h, &err);
	for (size_t i = 0; !ret && i < h.nr; i++) {
		const struct addr_hit *e = &h.v[i];

		x = x * 1000003 + (e->dso ? hash_bytes(e->dso->path, strlen(e->dso->path), 0) : 0);
		x = x * 1000003 + e->off + (uint64_t)e->event * 7 + e->kernel * 11 + e->ktab * 13;
		x = x * 1000003 + e->count * 17 + e->period;
	}
	memset(st, 0, sizeof(*st));
	if (!ret && load_nr_sessions(l))
		*st = load_session(l, 0)->stats;
	addr_hits_free(&h);
	load_free(l);
	return ret ? 0 : x;
}

static void sums(const uint8_t *data, size_t size)
{
	struct session_stats a, b;

	if (hits_sum(data, size, false, &a) != hits_sum(data, size, true, &b) ||
	    memcmp(&a, &b, sizeof(a)))
		abort();
}

/* prep stat report: text, CSV, JSON, and regrouped per core and per CPU */
static void stat_report(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct stat_perf_opts modes[] = {
		{ .big_num = true }, { .sep = ";" }, { .json = true },
		{ .aggr_set = true, .aggr = AGGR_CORE }, { .aggr_set = true, .aggr = AGGR_NONE, .json = true },
	};

	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	for (size_t m = 0; m < sizeof(modes) / sizeof(*modes); m++) {
		struct perfdata *pd;
		struct err err = { 0 };

		if (perfdata_open_mem(&pd, data, size, NULL, NULL))
			return;
		modes[m].out = null;
		if (stat_perf_report(pd, &modes[m], &err) && !err.msg[0])
			abort();        /* every failure says why */
		perfdata_close(pd);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	/* an exactly-sized heap copy: a read past the end is caught */
	memcpy(copy, data, size);
	importer(copy, size);
	report(copy, size);
	sums(copy, size);
	stat_report(copy, size);
	free(copy);
	return 0;
}
