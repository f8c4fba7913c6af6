/* SPDX-License-Identifier: MIT */
/*
 * For fuzz targets that read whole prec.data files: recompute the header
 * CRC, every block header CRC and the payload CRC (and raw length) of
 * stored blocks, so that mutated bytes reach the decoders behind the
 * checksums instead of being skipped as corrupt.
 */
#ifndef PREC_TESTS_FUZZ_FIX_CRCS_H
#define PREC_TESTS_FUZZ_FIX_CRCS_H

#include <stdint.h>
#include <string.h>

#include "format/container.h"
#include "format/header.h"

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void fix_crcs(uint8_t *p, size_t n)
{
	size_t off = CONTAINER_HEADER_SIZE;

	if (n < CONTAINER_HEADER_SIZE)
		return;
	put32(p + 20, 0);
	put32(p + 20, crc32_of(p, CONTAINER_HEADER_SIZE));
	while (n - off >= CONTAINER_BLOCK_HEADER_SIZE) {
		uint8_t *b = p + off;
		uint32_t stored = get32(b + 8);

		if (memcmp(b, CONTAINER_BLOCK_MAGIC, 4) || stored > n - off - CONTAINER_BLOCK_HEADER_SIZE)
			break;
		if (b[6] == CODEC_STORED) {
			put32(b + 12, stored);
			put32(b + 16, crc32_of(b + CONTAINER_BLOCK_HEADER_SIZE, stored));
		}
		put32(b + 28, crc32_of(b, 28));
		off += CONTAINER_BLOCK_HEADER_SIZE + stored;
	}
}

#endif
