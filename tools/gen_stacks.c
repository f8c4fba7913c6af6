/* SPDX-License-Identifier: MIT */
/*
 * Writes a prec.data file with many distinct call chains, to try the
 * exports at scale (the flame graph page with 100k unique stacks):
 *
 *   build/tools/gen_stacks FILE [STACKS [FUNCTIONS]]
 *
 * STACKS (default 100000) samples of command "app", each with its own call
 * chain of kernel addresses, named by a kallsyms block in the file (so the
 * file needs nothing of this machine) over FUNCTIONS (default 2000)
 * functions func_0000, func_0001, ... The chains form a tree, as real ones
 * do: chain i takes, root first, the decimal digits of i as its choices
 * (distinct chains for distinct i), then 2 to 9 more pseudo-random ones; a
 * choice picks one of ten callees of the frame above, each frame's ten
 * callees fixed by a hash of its own place in the tree. The first
 * function is the root of every chain, so the tree has one trunk.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/blocks.h"
#include "format/container.h"
#include "synth.h"

#define KBASE 0xffffffff81001000ull
#define KSTEP 0x100u
#define MAX_CHAIN 24

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ull;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dull;
	return x ^ (x >> 33);
}

static uint64_t record_time(void *ctx, const void *rec, size_t len)
{
	uint64_t t = 0;

	(void)ctx;
	if (len >= 40)
		memcpy(&t, (const uint8_t *)rec + 32, 8);      /* sample: after id, ip, pid/tid */
	return t;
}

static void die(const char *what, const struct err *err)
{
	fprintf(stderr, "gen_stacks: %s: %s\n", what, err->msg);
	exit(1);
}

/* chain i, leaf first, into out; returns its length */
static int chain(uint64_t i, uint32_t nfuncs, uint64_t *out)
{
	uint32_t choice[MAX_CHAIN];
	char digits[24];
	int n = 0, nd = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)i);
	uint64_t r = mix(i + 1), place = 1;
	uint32_t fn[MAX_CHAIN + 1];

	for (int d = 0; d < nd; d++)
		choice[n++] = (uint32_t)(digits[d] - '0');
	for (int extra = 2 + (int)(r % 8); extra-- && n < MAX_CHAIN - 1;)
		choice[n++] = (uint32_t)((r = mix(r)) % 10);
	/* the digit count goes first, so that "7" and "70" differ */
	fn[0] = 0;
	place = mix(place * 31 + (uint64_t)nd);
	for (int d = 0; d < n; d++) {
		place = mix(place * 31 + choice[d] + 1);
		fn[d + 1] = 1 + (uint32_t)(place % (nfuncs - 1));
	}
	for (int d = 0; d <= n; d++)
		out[n - d] = KBASE + (uint64_t)fn[d] * KSTEP + 0x10;
	return n + 1;
}

int main(int argc, char **argv)
{
	struct container_writer_opts o = { .level = -1, .record_time = record_time };
	struct container_writer *w;
	struct perf_event_attr attr;
	struct event_id ids[1] = { { 100, 0, -1 } };
	struct synth s;
	struct buf b = BUF_INIT;
	struct err err = { 0 };
	static uint8_t rec[1 << 16];
	uint64_t nstacks = argc > 2 ? strtoull(argv[2], NULL, 10) : 100000;
	uint32_t nfuncs = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 2000;
	size_t off = 0;

	if (argc < 2 || nfuncs < 2) {
		fprintf(stderr, "usage: gen_stacks FILE [STACKS [FUNCTIONS]]\n");
		return 2;
	}
	if (container_writer_open(&w, argv[1], &o, &err))
		die(argv[1], &err);
	synth_attr(&attr);
	synth_init(&s, 1, 100, 1000);
	if (event_block_encode(&attr, sizeof(attr), "cpu-clock", ids, 1, &b) ||
	    container_write_block(w, BLOCK_EVENT, b.data, b.len, &err))
		die("event", &err);
	off = synth_comm(&s, rec, "app", 0);
	for (uint64_t i = 0; i < nstacks; i++) {
		struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, 0 };
		uint64_t c[MAX_CHAIN + 2], period = 1000000, nr;
		uint32_t pidtid[2] = { 1000, 1000 }, cpures[2] = { 0, 0 };
		uint8_t *p = rec + off + sizeof(h);
		int n = chain(i, nfuncs, c + 1);

		c[0] = (uint64_t)PERF_CONTEXT_KERNEL;
		nr = (uint64_t)n + 1;
		s.time += 1000000;
		p = synth_put(p, &s.id, 8);
		p = synth_put(p, &c[1], 8);
		p = synth_put(p, pidtid, 8);
		p = synth_put(p, &s.time, 8);
		p = synth_put(p, cpures, 8);
		p = synth_put(p, &period, 8);
		p = synth_put(p, &nr, 8);
		p = synth_put(p, c, 8 * (size_t)nr);
		h.size = (uint16_t)(p - (rec + off));
		memcpy(rec + off, &h, sizeof(h));
		off += h.size;
		if (off > sizeof(rec) - 1024 || i + 1 == nstacks) {
			if (container_write_records(w, 0, rec, off, NULL, 0, &err) ||
			    container_write_round(w, &err))
				die("records", &err);
			off = 0;
		}
	}
	buf_reset(&b);
	{
		char line[64];
		int n = snprintf(line, sizeof(line), "%016llx T _text\n",
				 (unsigned long long)(KBASE - 0x1000));

		buf_append(&b, line, (size_t)n);
		for (uint32_t f = 0; f < nfuncs; f++) {
			n = snprintf(line, sizeof(line), "%016llx T func_%04u\n",
				     (unsigned long long)(KBASE + (uint64_t)f * KSTEP), f);
			buf_append(&b, line, (size_t)n);
		}
		n = snprintf(line, sizeof(line), "%016llx T _etext\n",
			     (unsigned long long)(KBASE + (uint64_t)nfuncs * KSTEP));
		buf_append(&b, line, (size_t)n);
	}
	if (container_write_block(w, BLOCK_KALLSYMS, b.data, b.len, &err) ||
	    container_writer_close(w, &err))
		die("close", &err);
	buf_free(&b);
	return 0;
}
