/* SPDX-License-Identifier: MIT */
/*
 * A hash index: maps 64-bit hashes to uint32_t indexes into an array the
 * caller owns, with open addressing. Equality is the caller's: hmap_find
 * asks eq(ctx, idx) for each candidate with the same hash. No deletion.
 */
#ifndef PREC_COMMON_HASH_H
#define PREC_COMMON_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hmap {
	uint64_t *hashes;
	uint32_t *slots;        /* index + 1; 0 = empty */
	size_t cap;             /* power of two, or 0 */
	size_t nr;
};

#define HMAP_INIT { NULL, NULL, 0, 0 }

/* 1 and *idx when found, 0 when not. eq may be NULL: the hash alone decides. */
int hmap_find(const struct hmap *m, uint64_t h, bool (*eq)(void *ctx, uint32_t idx), void *ctx,
	      uint32_t *idx);
/* Add idx under h (call after hmap_find said 0). 0 or -ENOMEM. */
int hmap_insert(struct hmap *m, uint64_t h, uint32_t idx);
void hmap_free(struct hmap *m);

/* A fast 64-bit hash of bytes, and a mixer for integers. */
uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);

static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static inline uint64_t hash_combine(uint64_t h, uint64_t v)
{
	return hash_u64(h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)));
}

#endif
