/* SPDX-License-Identifier: MIT */
/*
 * Synthetic kernel records for benchmarks and tests: samples shaped like what
 * `prec -F 4000 -g` records of a real program (a few hundred distinct call
 * chains over a few dozen functions, hot ones more often, timestamps 250 us
 * apart with jitter), plus COMM and MMAP2 records. Deterministic for a seed.
 * Header-only so that tools/ and tests/ can share it without a library.
 */
#ifndef PREC_TOOLS_SYNTH_H
#define PREC_TOOLS_SYNTH_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>

#define SYNTH_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			   PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
			   PERF_SAMPLE_CALLCHAIN)
#define SYNTH_STACKS 256
#define SYNTH_MAX_DEPTH 24

struct synth {
	uint64_t rng;
	uint64_t time;
	uint64_t id;
	uint32_t pid;
	uint8_t depth[SYNTH_STACKS];
	uint64_t stacks[SYNTH_STACKS][SYNTH_MAX_DEPTH];
};

static inline uint64_t synth_rand(struct synth *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return s->rng;
}

static inline void synth_init(struct synth *s, uint64_t seed, uint64_t id, uint32_t pid)
{
	memset(s, 0, sizeof(*s));
	s->rng = seed * 2654435761u + 88172645463325252ull;
	s->time = 1000000000ull;
	s->id = id;
	s->pid = pid;
	for (int i = 0; i < SYNTH_STACKS; i++) {
		s->depth[i] = (uint8_t)(4 + synth_rand(s) % (SYNTH_MAX_DEPTH - 4));
		s->stacks[i][0] = (uint64_t)PERF_CONTEXT_USER;
		for (int d = 1; d < s->depth[i]; d++)
			s->stacks[i][d] = 0x401000 + (synth_rand(s) % 48) * 0x140 + synth_rand(s) % 0x40;
	}
}

static inline uint8_t *synth_put(uint8_t *p, const void *v, size_t n)
{
	memcpy(p, v, n);
	return p + n;
}

/* A sample with a call chain; returns its size (at most 64 + 8 * 24 bytes). */
static inline size_t synth_sample(struct synth *s, uint8_t *out, uint32_t cpu)
{
	/* Hot stacks: the low-numbered ones, by squaring a uniform draw. */
	uint64_t u = synth_rand(s) % SYNTH_STACKS;
	int k = (int)(u * u / SYNTH_STACKS);
	int depth = s->depth[k];
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 };
	uint32_t pidtid[2] = { s->pid, s->pid + (uint32_t)(synth_rand(s) % 4) };
	uint32_t cpures[2] = { cpu, 0 };
	uint64_t ip = s->stacks[k][1], period = 250000, nr = (uint64_t)depth;
	uint8_t *p = out + sizeof(h);

	s->time += 240000 + synth_rand(s) % 20000;
	p = synth_put(p, &s->id, 8);
	p = synth_put(p, &ip, 8);
	p = synth_put(p, pidtid, 8);
	p = synth_put(p, &s->time, 8);
	p = synth_put(p, cpures, 8);
	p = synth_put(p, &period, 8);
	p = synth_put(p, &nr, 8);
	p = synth_put(p, s->stacks[k], 8 * (size_t)depth);
	h.size = (uint16_t)(p - out);
	memcpy(out, &h, sizeof(h));
	return h.size;
}

/* The sample_id_all trailer for SYNTH_SAMPLE_TYPE: tid, time, cpu, identifier. */
static inline uint8_t *synth_trailer(struct synth *s, uint8_t *p, uint32_t cpu)
{
	uint32_t pidtid[2] = { s->pid, s->pid };
	uint32_t cpures[2] = { cpu, 0 };

	p = synth_put(p, pidtid, 8);
	p = synth_put(p, &s->time, 8);
	p = synth_put(p, cpures, 8);
	return synth_put(p, &s->id, 8);
}

/* COMM record for the synthetic process, with trailer. */
static inline size_t synth_comm(struct synth *s, uint8_t *out, const char *comm, uint32_t cpu)
{
	struct perf_event_header h = { PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, 0 };
	uint32_t pidtid[2] = { s->pid, s->pid };
	uint8_t name[16] = { 0 };
	uint8_t *p = out + sizeof(h);

	strncpy((char *)name, comm, sizeof(name) - 1);
	p = synth_put(p, pidtid, 8);
	p = synth_put(p, name, 16);
	p = synth_trailer(s, p, cpu);
	h.size = (uint16_t)(p - out);
	memcpy(out, &h, sizeof(h));
	return h.size;
}

/* MMAP2 record (inode form) mapping `path` at `addr`, with trailer. */
static inline size_t synth_mmap2(struct synth *s, uint8_t *out, const char *path, uint64_t addr,
				 uint32_t cpu)
{
	struct perf_event_header h = { PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 0 };
	uint32_t pidtid[2] = { s->pid, s->pid };
	uint64_t len = 0x100000, pgoff = 0, ino = 1234, gen = 0;
	uint32_t majmin[2] = { 8, 1 }, protflags[2] = { 5, 2 };
	size_t plen = strlen(path) + 1, padded = (plen + 7) & ~(size_t)7;
	uint8_t *p = out + sizeof(h);

	p = synth_put(p, pidtid, 8);
	p = synth_put(p, &addr, 8);
	p = synth_put(p, &len, 8);
	p = synth_put(p, &pgoff, 8);
	p = synth_put(p, majmin, 8);
	p = synth_put(p, &ino, 8);
	p = synth_put(p, &gen, 8);
	p = synth_put(p, protflags, 8);
	memset(p, 0, padded);
	memcpy(p, path, plen);
	p += padded;
	p = synth_trailer(s, p, cpu);
	h.size = (uint16_t)(p - out);
	memcpy(out, &h, sizeof(h));
	return h.size;
}

/* A perf_event_attr as prec would open it for the synthetic samples. */
static inline void synth_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->size = sizeof(*a);
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_freq = 4000;
	a->freq = 1;
	a->sample_type = SYNTH_SAMPLE_TYPE;
	a->sample_id_all = 1;
	a->mmap = a->mmap2 = a->comm = a->task = 1;
}

#endif
