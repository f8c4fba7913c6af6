/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the kept results of a reading by sums (report/core/
 * sum_cache.c; the layout in sum_cache.h). The input is a kept file; its
 * body length and CRC are set right first (else nearly every input would
 * stop at the check), and the key is the one its header names, so that
 * the bytes reach the item parser. What decodes must lie inside the file
 * (each record's bytes are read), decode as records of a usual perf.data
 * event without reading outside them, and be kept and read back the same:
 * sum_cache_store then sum_cache_load of the same key give the same
 * counts and the same items, byte for byte.
 */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/header.h"
#include "format/record.h"
#include "report/core/sum_cache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;
static char dir[64];
static struct record_layouts *layouts;

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* The kept files written, removed after each input (and the folder at
 * the end). */
static void clean(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			unlinkat(dirfd(d), de->d_name, 0);
	if (d)
		closedir(d);
}

static void clean_all(void)
{
	clean();
	rmdir(dir);
}

static void setup(void)
{
	struct event_layout l = {
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			       PERF_SAMPLE_CALLCHAIN,
		.sample_id_all = true,
	};
	uint64_t id = 1;

	strcpy(dir, "/tmp/fuzz_sumcache.XXXXXX");
	layouts = record_layouts_new();
	if (!mkdtemp(dir) || !layouts || record_layouts_add(layouts, &l, &id, 1, NULL) < 0)
		abort();
	atexit(clean_all);
}

/* What c holds must lie inside file and decode without reading outside. */
static void check(const struct sum_cached *c, const uint8_t *file, size_t len)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct sum_out *o = &c->v[i];
		uint64_t sum = 0;
		struct record rec;
		uint8_t *copy;

		if (o->p < file || o->len < 8 || o->len > len || o->p > file + len - o->len)
			abort();
		copy = malloc(o->len);
		if (!copy)
			abort();
		memcpy(copy, o->p, o->len);
		for (uint32_t k = 0; k < o->len; k++)
			sum += copy[k];
		if (!record_decode(layouts, copy, o->len, &rec, NULL) && rec.size > o->len)
			abort();
		sink += sum;
		free(copy);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sum_cache_key k;
	struct sum_cached c, back;
	uint8_t *file;
	uint64_t body;
	uint32_t crc;

	if (!layouts)
		setup();
	if (size < SUM_CACHE_HEADER_SIZE)
		return 0;
	file = malloc(size);
	if (!file)
		abort();
	memcpy(file, data, size);
	body = size - SUM_CACHE_HEADER_SIZE;
	memcpy(file + 88, &body, 8);
	crc = crc32_of(file + SUM_CACHE_HEADER_SIZE, body);
	memcpy(file + 96, &crc, 4);
	memcpy(&k.tag, file + 12, 4);
	k = (struct sum_cache_key){ get64(file + 16), get64(file + 24), get64(file + 32),
				    get64(file + 40), get64(file + 48), k.tag };
	if (sum_cache_decode(file, size, &k, &c))
		return 0;       /* freed */
	check(&c, file, size);
	sum_cache_store(dir, &k, c.samples, c.tmin, c.tmax, c.v, c.n);
	if (sum_cache_load(dir, &k, &back))
		abort();
	if (back.n != c.n || back.samples != c.samples || back.tmin != c.tmin ||
	    back.tmax != c.tmax)
		abort();
	for (size_t i = 0; i < c.n; i++) {
		const struct sum_out *a = &c.v[i], *b = &back.v[i];

		if (a->len != b->len || a->sum != b->sum || a->count != b->count ||
		    a->period != b->period || memcmp(a->p, b->p, a->len))
			abort();
	}
	sum_cached_free(&back);
	sum_cached_free(&c);
	clean();
	return 0;
}
