/* SPDX-License-Identifier: MIT */
/* The file header and block header (FORMAT.md sections 2 and 3). */
#include "container.h"
#include "header.h"

#include <string.h>
#include <libdeflate.h>

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

uint32_t crc32_of(const void *p, size_t n)
{
	/* libdeflate's CRC-32 is zlib's CRC-32, several times faster here. */
	return libdeflate_crc32(0, p, n);
}

uint8_t container_host_byte_order(void)
{
	const uint16_t probe = 1;
	uint8_t first;

	memcpy(&first, &probe, 1);
	return first ? CONTAINER_LITTLE_ENDIAN : CONTAINER_BIG_ENDIAN;
}

void container_header_encode(const struct container_header *h, uint8_t out[CONTAINER_HEADER_SIZE])
{
	memset(out, 0, CONTAINER_HEADER_SIZE);
	memcpy(out, CONTAINER_MAGIC, 8);
	put_le(out + 8, h->version_major, 2);
	put_le(out + 10, h->version_minor, 2);
	put_le(out + 12, CONTAINER_HEADER_SIZE, 2);
	out[14] = h->kind;
	out[15] = h->byte_order;
	put_le(out + 16, h->flags, 4);
	put_le(out + 24, h->index_offset, 8);
	put_le(out + 32, h->created_ns, 8);
	put_le(out + 20, crc32_of(out, CONTAINER_HEADER_SIZE), 4);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

int container_header_decode(const uint8_t *p, size_t len, struct container_header *h,
			    struct err *err)
{
	uint8_t tmp[CONTAINER_HEADER_SIZE];
	uint32_t crc, known;
	bool newer_minor;

	if (len < CONTAINER_HEADER_SIZE || memcmp(p, CONTAINER_MAGIC, 8))
		return err_set(err, -PREC_EFORMAT, "not a prec.data file (bad magic)");
	h->version_major = (uint16_t)get_le(p + 8, 2);
	h->version_minor = (uint16_t)get_le(p + 10, 2);
	/* The version first: a newer major may have laid the header out anew. */
	if (h->version_major > CONTAINER_VERSION_MAJOR || h->version_major == 0)
		return err_set(err, -PREC_EVERSION,
			       "file format version %u.%u is not supported (this build reads %u.x)",
			       h->version_major, h->version_minor, CONTAINER_VERSION_MAJOR);
	memcpy(tmp, p, sizeof(tmp));
	put_le(tmp + 20, 0, 4);
	crc = (uint32_t)get_le(p + 20, 4);
	if (crc32_of(tmp, sizeof(tmp)) != crc)
		return err_set(err, -PREC_ECORRUPT, "corrupt file header (checksum mismatch)");
	newer_minor = h->version_minor > CONTAINER_VERSION_MINOR;
	h->kind = p[14];
	h->byte_order = p[15];
	h->flags = (uint32_t)get_le(p + 16, 4);
	h->index_offset = get_le(p + 24, 8);
	h->created_ns = get_le(p + 32, 8);
	if (get_le(p + 12, 2) != CONTAINER_HEADER_SIZE)
		return err_set(err, -PREC_ECORRUPT, "corrupt file header (header size %u)",
			       (unsigned)get_le(p + 12, 2));
	if (h->kind != CONTAINER_KIND_SAMPLES && h->kind != CONTAINER_KIND_COUNTS)
		return err_set(err, -PREC_ECORRUPT, "corrupt file header (kind %u)", h->kind);
	if (h->byte_order != CONTAINER_LITTLE_ENDIAN && h->byte_order != CONTAINER_BIG_ENDIAN)
		return err_set(err, -PREC_ECORRUPT, "corrupt file header (byte order %u)",
			       h->byte_order);
	/* flags was reserved before 1.3; its undefined bits are reserved */
	known = h->version_minor >= 3 ? CONTAINER_FLAG_STREAM : 0;
	if (!newer_minor && ((h->flags & ~known) || !all_zero(p + 40, 24)))
		return err_set(err, -PREC_ECORRUPT, "corrupt file header (reserved bytes set)");
	if ((h->flags & CONTAINER_FLAG_STREAM) && h->index_offset)
		return err_set(err, -PREC_ECORRUPT, "corrupt file header (a stream with an index offset)");
	if (h->byte_order != container_host_byte_order())
		return err_set(err, -PREC_EENDIAN,
			       "file was recorded on a %s-endian machine; this one is %s-endian",
			       h->byte_order == CONTAINER_LITTLE_ENDIAN ? "little" : "big",
			       h->byte_order == CONTAINER_LITTLE_ENDIAN ? "big" : "little");
	return 0;
}

void block_header_encode(const struct block_header *b, uint8_t out[CONTAINER_BLOCK_HEADER_SIZE])
{
	memcpy(out, CONTAINER_BLOCK_MAGIC, 4);
	put_le(out + 4, b->type, 2);
	out[6] = b->codec;
	out[7] = b->flags;
	put_le(out + 8, b->stored_len, 4);
	put_le(out + 12, b->raw_len, 4);
	put_le(out + 16, b->raw_crc, 4);
	put_le(out + 20, b->seq, 4);
	put_le(out + 24, 0, 4);
	put_le(out + 28, crc32_of(out, 28), 4);
}

int block_header_decode(const uint8_t *p, struct block_header *b, bool check_reserved)
{
	if (memcmp(p, CONTAINER_BLOCK_MAGIC, 4))
		return -PREC_EFORMAT;
	if (crc32_of(p, 28) != (uint32_t)get_le(p + 28, 4))
		return -PREC_ECORRUPT;
	b->type = (uint16_t)get_le(p + 4, 2);
	b->codec = p[6];
	b->flags = p[7];
	b->stored_len = (uint32_t)get_le(p + 8, 4);
	b->raw_len = (uint32_t)get_le(p + 12, 4);
	b->raw_crc = (uint32_t)get_le(p + 16, 4);
	b->seq = (uint32_t)get_le(p + 20, 4);
	if (check_reserved && get_le(p + 24, 4))
		return -PREC_ECORRUPT;
	if (b->raw_len > CONTAINER_MAX_RAW || b->stored_len > CONTAINER_MAX_STORED)
		return -PREC_ELIMIT;
	return 0;
}

const char *block_type_name(unsigned type)
{
	static const char *const names[BLOCK_TYPE_MAX] = {
		[BLOCK_METADATA] = "METADATA",
		[BLOCK_EVENT] = "EVENT",
		[BLOCK_DATA] = "DATA",
		[BLOCK_BUILD_IDS] = "BUILD_IDS",
		[BLOCK_COUNTS] = "COUNTS",
		[BLOCK_INDEX] = "INDEX",
		[BLOCK_KALLSYMS] = "KALLSYMS",
		[BLOCK_SYMBOLS] = "SYMBOLS",
		[BLOCK_END] = "END",
		[BLOCK_SOURCE] = "SOURCE",
		[BLOCK_ADDR_COUNTS] = "ADDR_COUNTS",
		[BLOCK_SAMPLE_SUMS] = "SAMPLE_SUMS",
	};

	return type < BLOCK_TYPE_MAX ? names[type] : NULL;
}
