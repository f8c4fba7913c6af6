/* SPDX-License-Identifier: MIT */
/* Internal to format/: the block header codec shared by writer and reader. */
#ifndef PREC_FORMAT_HEADER_H
#define PREC_FORMAT_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "container.h"

struct block_header {
	uint16_t type;
	uint8_t codec;
	uint8_t flags;
	uint32_t stored_len;
	uint32_t raw_len;
	uint32_t raw_crc;
	uint32_t seq;
};

void block_header_encode(const struct block_header *b, uint8_t out[CONTAINER_BLOCK_HEADER_SIZE]);
/* 0, -PREC_EFORMAT (no block magic), -PREC_ECORRUPT (header CRC, reserved
 * bytes) or -PREC_ELIMIT (lengths over the limits). */
int block_header_decode(const uint8_t *p, struct block_header *b, bool check_reserved);
/* CRC-32 (zlib's) of any length. */
uint32_t crc32_of(const void *p, size_t n);

#endif
