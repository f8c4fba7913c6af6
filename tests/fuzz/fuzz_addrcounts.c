/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the ADDR_COUNTS block decoder (format/addrcounts.c,
 * FORMAT.md 5.11). The input is a block payload. What decodes must encode
 * back to the very same bytes (the format has one spelling of each block:
 * the zeros after a build id and the reserved bytes are checked), and a
 * payload with one byte changed must not crash the decoder either.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/addrcounts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const uint8_t *data, size_t size)
{
	struct addrcounts *c;
	struct buf out = BUF_INIT;

	if (addrcounts_decode(data, size, &c, NULL))
		return;
	if (addrcounts_encode(c, &out) || out.len != size || memcmp(out.data, data, size))
		abort();
	addrcounts_free(c);
	buf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	round_trip(data, size);
	if (!size)
		return 0;
	copy = malloc(size);
	if (!copy)
		return 0;
	/* the byte the input's first byte points at, flipped */
	memcpy(copy, data, size);
	copy[data[0] % size] ^= 0x01;
	round_trip(copy, size);
	free(copy);
	return 0;
}
