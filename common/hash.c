/* SPDX-License-Identifier: MIT */
/* The hash index of hash.h: linear probing over a power-of-two table. */
#include "hash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int hmap_find(const struct hmap *m, uint64_t h, bool (*eq)(void *ctx, uint32_t idx), void *ctx,
	      uint32_t *idx)
{
	if (!m->cap)
		return 0;
	for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->slots[i])
			return 0;
		if (m->hashes[i] == h && (!eq || eq(ctx, m->slots[i] - 1))) {
			*idx = m->slots[i] - 1;
			return 1;
		}
	}
}

static void put(uint64_t *hashes, uint32_t *slots, size_t cap, uint64_t h, uint32_t slot)
{
	size_t i = h & (cap - 1);

	while (slots[i])
		i = (i + 1) & (cap - 1);
	hashes[i] = h;
	slots[i] = slot;
}

int hmap_insert(struct hmap *m, uint64_t h, uint32_t idx)
{
	if ((m->nr + 1) * 4 > m->cap * 3) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		uint64_t *hashes = malloc(cap * sizeof(*hashes));
		uint32_t *slots = calloc(cap, sizeof(*slots));

		if (!hashes || !slots || cap < m->cap) {
			free(hashes);
			free(slots);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->slots[i])
				put(hashes, slots, cap, m->hashes[i], m->slots[i]);
		free(m->hashes);
		free(m->slots);
		m->hashes = hashes;
		m->slots = slots;
		m->cap = cap;
	}
	put(m->hashes, m->slots, m->cap, h, idx + 1);
	m->nr++;
	return 0;
}

void hmap_free(struct hmap *m)
{
	free(m->hashes);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const uint8_t *b = p;
	uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ull);

	while (n >= 8) {
		uint64_t v;

		memcpy(&v, b, 8);
		h = hash_combine(h, v);
		b += 8;
		n -= 8;
	}
	if (n) {
		uint64_t v = 0;

		memcpy(&v, b, n);
		h = hash_combine(h, v);
	}
	return h;
}
