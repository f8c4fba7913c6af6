/*
 * minireader: an independent, minimal reader of the prec.data container
 * (format/FORMAT.md, version 1.0), written from the specification alone.
 *
 * Usage: minireader FILE
 *
 * Prints one line per item in the canonical text format that the real
 * reader's test tool also prints, so that tests can diff the two.  All
 * integers are read through explicit little-endian helpers with bounds
 * checks; no struct is ever laid over the file bytes.
 *
 * Choices where the specification leaves room (see the report that came
 * with this file):
 *  - file header: magic, then major version, then CRC/size/kind/order/
 *    reserved, then "byte order is not ours".
 *  - reserved fields (file header, block header, structures) are checked
 *    for zero unless the file's minor version is newer than 0.
 *  - a valid block header (magic, CRC, limits, reserved) sets the "last
 *    good seq" used by resync, even if its payload is then skipped or
 *    found corrupt.
 *  - skip order: unknown codec, then TRANSFORMED, then other flag bits
 *    (reason=unknown-flags), then unknown type.  Skipped blocks are not
 *    decoded or CRC-checked.
 *  - codec 0 with stored_len != raw_len, and a zlib stream with bytes
 *    left over after its end, are payload corruption.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define READER_MAJOR 1
#define READER_MINOR 0
#define FILE_HDR_SIZE 64
#define BLOCK_HDR_SIZE 32
#define RAW_MAX (64u * 1024u * 1024u)
#define STORED_MAX (RAW_MAX + 64u * 1024u)

static const uint8_t file_magic[8] = { 0x89, 0x50, 0x52, 0x45, 0x43, 0x0d, 0x0a, 0x1a };
static const uint8_t block_magic[4] = { 0xb1, 0x42, 0x4c, 0x4b };

/* The whole file, read into memory. */
static uint8_t *g_file;
static size_t g_size;
/* Non-zero when reserved fields must be zero (minor version not newer). */
static int g_check_reserved;

/* ---- little-endian helpers ---------------------------------------------- */

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | ((uint64_t)le32(p + 4) << 32);
}

static uint32_t crc(const uint8_t *p, size_t n)
{
	return (uint32_t)crc32(0L, p, (uInt)n);
}

/* A bounds-checked read cursor over a byte range. Once a read fails the
 * cursor is marked bad and every later read returns 0 / NULL. */
struct cur {
	const uint8_t *p;
	size_t len;
	size_t pos;
	int bad;
};

static const uint8_t *take(struct cur *c, size_t n)
{
	const uint8_t *r;

	if (c->bad || c->len - c->pos < n) {
		c->bad = 1;
		return NULL;
	}
	r = c->p + c->pos;
	c->pos += n;
	return r;
}

static uint8_t rd8(struct cur *c)
{
	const uint8_t *p = take(c, 1);
	return p ? p[0] : 0;
}

static uint16_t rd16(struct cur *c)
{
	const uint8_t *p = take(c, 2);
	return p ? le16(p) : 0;
}

static uint32_t rd32(struct cur *c)
{
	const uint8_t *p = take(c, 4);
	return p ? le32(p) : 0;
}

static uint64_t rd64(struct cur *c)
{
	const uint8_t *p = take(c, 8);
	return p ? le64(p) : 0;
}

static size_t left(const struct cur *c)
{
	return c->len - c->pos;
}

/* ---- output helpers ----------------------------------------------------- */

static void put_quoted(FILE *o, const uint8_t *s, size_t n)
{
	size_t i;

	fputc('"', o);
	for (i = 0; i < n; i++) {
		uint8_t b = s[i];
		if (b == '\\')
			fputs("\\\\", o);
		else if (b == '"')
			fputs("\\\"", o);
		else if (b < 0x20 || b >= 0x7f)
			fprintf(o, "\\x%02x", b);
		else
			fputc(b, o);
	}
	fputc('"', o);
}

static void put_hex(FILE *o, const uint8_t *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(o, "%02x", s[i]);
}

/* ---- structures of section 5 (return 0 if valid, -1 if corrupt) --------- */

static int parse_metadata(FILE *o, const uint8_t *p, size_t n)
{
	struct cur c = { p, n, 0, 0 };

	while (left(&c) > 0) {
		uint16_t tag = rd16(&c);
		uint16_t kind = rd16(&c);
		uint32_t len = rd32(&c);
		const uint8_t *v = take(&c, len);

		if (c.bad)
			return -1;
		if (kind == 1 && len != 8)
			return -1;
		if (kind == 3 && len > 0 && v[len - 1] != 0)
			return -1;
		fprintf(o, "  meta tag=%u kind=%u len=%" PRIu32 " value=", tag, kind, len);
		if (kind == 1) {
			fprintf(o, "%" PRIu64, le64(v));
		} else if (kind == 2) {
			put_quoted(o, v, len);
		} else if (kind == 3) {
			size_t start = 0, i;
			for (i = 0; i < len; i++) {
				if (v[i] != 0)
					continue;
				if (start > 0)
					fputc(' ', o);
				put_quoted(o, v + start, i - start);
				start = i + 1;
			}
		} else {
			put_hex(o, v, len);
		}
		fputc('\n', o);
	}
	return 0;
}

static int parse_event(FILE *o, const uint8_t *p, size_t n)
{
	struct cur c = { p, n, 0, 0 };
	uint32_t attr_size = rd32(&c);
	uint32_t name_len = rd32(&c);
	uint32_t nr_ids = rd32(&c);
	uint32_t reserved = rd32(&c);
	const uint8_t *attr, *name;
	uint32_t i;

	if (c.bad)
		return -1;
	if (attr_size < 64 || attr_size > 4096 || name_len > 4096 || nr_ids > 1048576)
		return -1;
	if (g_check_reserved && reserved != 0)
		return -1;
	if ((uint64_t)n != 16u + (uint64_t)attr_size + name_len + 16u * (uint64_t)nr_ids)
		return -1;
	attr = take(&c, attr_size);
	name = take(&c, name_len);
	if (c.bad)
		return -1;
	fprintf(o, "  event attr_size=%" PRIu32 " name=", attr_size);
	put_quoted(o, name, name_len);
	fprintf(o, " ids=%" PRIu32 " attr_crc=%08" PRIx32 "\n", nr_ids, crc(attr, attr_size));
	for (i = 0; i < nr_ids; i++) {
		uint64_t id = rd64(&c);
		int32_t cpu = (int32_t)rd32(&c);
		int32_t tid = (int32_t)rd32(&c);
		if (c.bad)
			return -1;
		fprintf(o, "    id %" PRIu64 " cpu=%" PRId32 " tid=%" PRId32 "\n", id, cpu, tid);
	}
	return 0;
}

static int parse_data(FILE *o, const uint8_t *p, size_t n)
{
	struct cur c = { p, n, 0, 0 };
	uint64_t tmin = rd64(&c);
	uint64_t tmax = rd64(&c);
	uint32_t nr_records = rd32(&c);
	uint32_t nr_spans = rd32(&c);
	uint64_t records = 0, spans = 0;

	if (c.bad)
		return -1;
	fprintf(o, "  data tmin=%" PRIu64 " tmax=%" PRIu64 " records=%" PRIu32 " spans=%" PRIu32 "\n",
		tmin, tmax, nr_records, nr_spans);
	while (left(&c) > 0) {
		uint32_t cpu = rd32(&c);
		uint16_t kind = rd16(&c);
		uint16_t reserved = rd16(&c);
		uint64_t length = rd64(&c);
		const uint8_t *r;
		size_t rp;

		if (c.bad)
			return -1;
		if (g_check_reserved && reserved != 0)
			return -1;
		if (kind > 1 || (kind == 1 && length != 0))
			return -1;
		if (length > left(&c))
			return -1;
		r = take(&c, (size_t)length);
		if (c.bad)
			return -1;
		fprintf(o, "    span cpu=%" PRIu32 " kind=%u len=%" PRIu64 "\n", cpu, kind, length);
		for (rp = 0; rp < length;) {
			uint32_t type;
			uint16_t misc, size;

			if (length - rp < 8)
				return -1;
			type = le32(r + rp);
			misc = le16(r + rp + 4);
			size = le16(r + rp + 6);
			if (size < 8 || size > length - rp)
				return -1;
			fprintf(o, "      rec type=%" PRIu32 " misc=%u size=%u crc=%08" PRIx32 "\n",
				type, misc, size, crc(r + rp, size));
			rp += size;
			records++;
		}
		spans++;
	}
	if (records != nr_records || spans != nr_spans)
		return -1;
	return 0;
}

static int parse_buildids(FILE *o, const uint8_t *p, size_t n)
{
	struct cur c = { p, n, 0, 0 };

	while (left(&c) > 0) {
		uint8_t id_size = rd8(&c);
		uint8_t flags = rd8(&c);
		uint16_t path_len = rd16(&c);
		const uint8_t *id, *path;

		if (c.bad)
			return -1;
		if (id_size < 1 || id_size > 64 || path_len > 4096)
			return -1;
		id = take(&c, id_size);
		path = take(&c, path_len);
		if (c.bad)
			return -1;
		fprintf(o, "  buildid size=%u flags=%u id=", id_size, flags);
		put_hex(o, id, id_size);
		fputs(" path=", o);
		put_quoted(o, path, path_len);
		fputc('\n', o);
	}
	return 0;
}

static int parse_counts(FILE *o, const uint8_t *p, size_t n)
{
	struct cur c = { p, n, 0, 0 };
	uint32_t nr = rd32(&c);
	uint32_t reserved = rd32(&c);
	uint32_t i;

	if (c.bad)
		return -1;
	if (g_check_reserved && reserved != 0)
		return -1;
	if ((uint64_t)n != 8u + 48u * (uint64_t)nr)
		return -1;
	fprintf(o, "  counts readings=%" PRIu32 "\n", nr);
	for (i = 0; i < nr; i++) {
		uint32_t event = rd32(&c);
		int32_t cpu = (int32_t)rd32(&c);
		int32_t tid = (int32_t)rd32(&c);
		uint32_t flags = rd32(&c);
		uint64_t time = rd64(&c);
		uint64_t value = rd64(&c);
		uint64_t enabled = rd64(&c);
		uint64_t running = rd64(&c);

		if (c.bad)
			return -1;
		fprintf(o, "    reading event=%" PRIu32 " cpu=%" PRId32 " tid=%" PRId32
			" flags=%" PRIu32 " time=%" PRIu64 " value=%" PRIu64
			" enabled=%" PRIu64 " running=%" PRIu64 "\n",
			event, cpu, tid, flags, time, value, enabled, running);
	}
	return 0;
}

static int parse_index(FILE *o, const uint8_t *p, size_t n)
{
	struct cur c = { p, n, 0, 0 };
	uint32_t nr = rd32(&c);
	uint32_t reserved = rd32(&c);
	uint32_t i;

	if (c.bad)
		return -1;
	if (g_check_reserved && reserved != 0)
		return -1;
	if ((uint64_t)n != 8u + 32u * (uint64_t)nr)
		return -1;
	fprintf(o, "  index entries=%" PRIu32 "\n", nr);
	for (i = 0; i < nr; i++) {
		uint64_t off = rd64(&c);
		uint16_t type = rd16(&c);
		uint16_t res = rd16(&c);
		uint32_t seq = rd32(&c);
		uint64_t tmin = rd64(&c);
		uint64_t tmax = rd64(&c);

		if (c.bad)
			return -1;
		if (g_check_reserved && res != 0)
			return -1;
		fprintf(o, "    entry off=%" PRIu64 " type=%u seq=%" PRIu32 " tmin=%" PRIu64
			" tmax=%" PRIu64 "\n", off, type, seq, tmin, tmax);
	}
	return 0;
}

static int parse_payload(FILE *o, uint16_t type, const uint8_t *p, size_t n)
{
	switch (type) {
	case 1: return parse_metadata(o, p, n);
	case 2: return parse_event(o, p, n);
	case 3: return parse_data(o, p, n);
	case 4: return parse_buildids(o, p, n);
	case 5: return parse_counts(o, p, n);
	case 6: return parse_index(o, p, n);
	default: return -1; /* not reached: unknown types are skipped earlier */
	}
}

/* ---- blocks ------------------------------------------------------------- */

struct bhdr {
	uint16_t type;
	uint8_t codec;
	uint8_t flags;
	uint32_t stored_len;
	uint32_t raw_len;
	uint32_t raw_crc;
	uint32_t seq;
	uint32_t reserved;
};

/* Magic and header CRC of the block header at off (needs 32 bytes). */
static int header_sound(size_t off, struct bhdr *h)
{
	const uint8_t *b;

	if (off > g_size || g_size - off < BLOCK_HDR_SIZE)
		return 0;
	b = g_file + off;
	if (memcmp(b, block_magic, 4) != 0)
		return 0;
	if (crc(b, 28) != le32(b + 28))
		return 0;
	h->type = le16(b + 4);
	h->codec = b[6];
	h->flags = b[7];
	h->stored_len = le32(b + 8);
	h->raw_len = le32(b + 12);
	h->raw_crc = le32(b + 16);
	h->seq = le32(b + 20);
	h->reserved = le32(b + 24);
	return 1;
}

/* Full header validity: magic, CRC, length limits, reserved field. */
static int header_valid(size_t off, struct bhdr *h)
{
	if (!header_sound(off, h))
		return 0;
	if (h->raw_len > RAW_MAX || h->stored_len > STORED_MAX)
		return 0;
	if (g_check_reserved && h->reserved != 0)
		return 0;
	return 1;
}

/* Decode the payload into a fresh buffer of raw_len bytes (+1 spare).
 * Returns NULL when the codec cannot produce exactly raw_len bytes. */
static uint8_t *decode(const struct bhdr *h, const uint8_t *src)
{
	uint8_t *out = malloc((size_t)h->raw_len + 1);
	z_stream zs;
	int rc;

	if (!out) {
		fprintf(stderr, "error: out of memory\n");
		exit(1);
	}
	if (h->codec == 0) {
		if (h->stored_len != h->raw_len)
			goto fail;
		memcpy(out, src, h->raw_len);
		return out;
	}
	/* codec 1: zlib; give one spare output byte to catch over-long streams */
	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		goto fail;
	zs.next_in = (Bytef *)(uintptr_t)src;
	zs.avail_in = h->stored_len;
	zs.next_out = out;
	zs.avail_out = h->raw_len + 1;
	rc = inflate(&zs, Z_FINISH);
	if (rc != Z_STREAM_END || zs.total_out != h->raw_len || zs.avail_in != 0) {
		inflateEnd(&zs);
		goto fail;
	}
	inflateEnd(&zs);
	return out;
fail:
	free(out);
	return NULL;
}

static void read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n;

	if (!f) {
		fprintf(stderr, "error: cannot open %s\n", path);
		exit(1);
	}
	g_file = malloc(cap);
	while (g_file) {
		n = fread(g_file + g_size, 1, cap - g_size, f);
		g_size += n;
		if (n == 0)
			break;
		if (g_size == cap) {
			cap *= 2;
			g_file = realloc(g_file, cap);
		}
	}
	if (!g_file || ferror(f)) {
		fprintf(stderr, "error: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
}

static void refuse(const char *why)
{
	fprintf(stderr, "error: %s\n", why);
	exit(1);
}

static void check_file_header(void)
{
	uint8_t h[FILE_HDR_SIZE];
	uint16_t major, minor;

	if (g_size < FILE_HDR_SIZE || memcmp(g_file, file_magic, 8) != 0)
		refuse("not a prec.data file");
	memcpy(h, g_file, FILE_HDR_SIZE);
	major = le16(h + 8);
	minor = le16(h + 10);
	if (major > READER_MAJOR || major == 0) {
		fprintf(stderr, "error: version %u.%u, this reader understands %d.%d\n",
			major, minor, READER_MAJOR, READER_MINOR);
		exit(1);
	}
	g_check_reserved = !(major == READER_MAJOR && minor > READER_MINOR);
	memset(h + 20, 0, 4);
	if (crc(h, FILE_HDR_SIZE) != le32(g_file + 20))
		refuse("corrupt header (bad CRC)");
	if (le16(h + 12) != FILE_HDR_SIZE)
		refuse("corrupt header (header_size)");
	if (h[14] != 1 && h[14] != 2)
		refuse("corrupt header (kind)");
	if (h[15] != 1 && h[15] != 2)
		refuse("corrupt header (byte order)");
	if (g_check_reserved) {
		size_t i;
		int nz = le32(h + 16) != 0;
		for (i = 40; i < 64; i++)
			nz |= h[i] != 0;
		if (nz)
			refuse("corrupt header (reserved)");
	}
	if (h[15] != 1)
		refuse("records are big-endian; this reader is little-endian only");
	printf("file version=%u.%u kind=%u order=%u index=%" PRIu64 "\n",
	       major, minor, h[14], h[15], le64(h + 24));
	if (le64(h + 24) == 0)
		printf("unfinished\n");
}

int main(int argc, char **argv)
{
	size_t off = FILE_HDR_SIZE;
	int have_seq = 0;
	uint32_t last_seq = 0;
	unsigned long nblocks = 0, ncorrupt = 0, nskipped = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: minireader FILE\n");
		return 2;
	}
	read_file(argv[1]);
	check_file_header();

	while (off < g_size) {
		struct bhdr h;
		const char *skip = NULL;
		size_t next;
		uint8_t *raw;
		char *text = NULL;
		size_t text_len = 0;
		FILE *o;
		int bad;

		if (g_size - off < BLOCK_HDR_SIZE) {
			printf("truncated off=%zu ignored=%zu\n", off, g_size - off);
			break;
		}
		if (!header_valid(off, &h)) {
			size_t p;
			int found = 0;

			printf("corrupt off=%zu what=header\n", off);
			ncorrupt++;
			for (p = off + 1; g_size - p >= BLOCK_HDR_SIZE; p++) {
				struct bhdr c;
				if (header_valid(p, &c) && (!have_seq || c.seq > last_seq)) {
					found = 1;
					break;
				}
			}
			if (!found) {
				printf("truncated off=%zu ignored=%zu\n", off, g_size - off);
				break;
			}
			printf("resync off=%zu skipped=%zu\n", p, p - off);
			off = p;
			continue;
		}
		if (h.stored_len > g_size - off - BLOCK_HDR_SIZE) {
			printf("truncated off=%zu ignored=%zu\n", off, g_size - off);
			break;
		}
		/* seq gaps are not reported */
		have_seq = 1;
		last_seq = h.seq;
		next = off + BLOCK_HDR_SIZE + h.stored_len;

		if (h.codec > 1)
			skip = "unknown-codec";
		else if (h.flags & 1)
			skip = "transformed";
		else if (h.flags != 0)
			skip = "unknown-flags";
		else if (h.type < 1 || h.type > 6)
			skip = "unknown-type";
		if (skip) {
			printf("skip off=%zu reason=%s\n", off, skip);
			nskipped++;
			off = next;
			continue;
		}

		raw = decode(&h, g_file + off + BLOCK_HDR_SIZE);
		if (!raw || crc(raw, h.raw_len) != h.raw_crc) {
			printf("corrupt off=%zu what=payload\n", off);
			ncorrupt++;
			free(raw);
			off = next;
			continue;
		}

		o = open_memstream(&text, &text_len);
		if (!o) {
			fprintf(stderr, "error: out of memory\n");
			return 1;
		}
		bad = parse_payload(o, h.type, raw, h.raw_len);
		fclose(o);
		free(raw);
		if (bad) {
			printf("corrupt off=%zu what=structure\n", off);
			ncorrupt++;
		} else {
			printf("block off=%zu seq=%" PRIu32 " type=%u codec=%u flags=%u raw=%" PRIu32 "\n",
			       off, h.seq, h.type, h.codec, h.flags, h.raw_len);
			fwrite(text, 1, text_len, stdout);
			nblocks++;
		}
		free(text);
		off = next;
	}
	printf("end blocks=%lu corrupt=%lu skipped=%lu\n", nblocks, ncorrupt, nskipped);
	return 0;
}
