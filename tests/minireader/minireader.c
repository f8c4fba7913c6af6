/*
 * minireader: an independent, minimal reader of the prec.data container
 * (format/FORMAT.md, version 1.9), written from the specification alone
 * (columns.c: section 6.4).
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
 *    for zero unless the file's minor version is newer than 9.  The file
 *    header's flags (offset 16) were reserved before 1.3: in a file of
 *    minor 0..2 all of it must be zero, from 1.3 on all but bit 0 (STREAM).
 *  - a stream (section 7) prints "stream" after the file line; it is
 *    "unfinished" unless its last 32 bytes are a valid block header of
 *    type END with stored_len 0.  The END block itself is walked like any
 *    other (its payload must be empty) and prints only its block line.
 *  - a valid block header (magic, CRC, limits, reserved) sets the "last
 *    good seq" used by resync, even if its payload is then skipped or
 *    found corrupt.
 *  - skip order: unknown codec, then TRANSFORMED on a block that is not
 *    DATA, then COLUMNS on a block that is not DATA (reason=columns), then
 *    other flag bits or both encodings set (reason=unknown-flags), then
 *    unknown type.
 *    Skipped blocks are not decoded or CRC-checked.
 *  - a TRANSFORMED DATA block (6.3): codec, then the 6.3 rewrite is undone,
 *    then the CRC over the decoded DATA payload, then 5.3.  Anything the
 *    6.3 decoding rejects is payload corruption, like a bad CRC.  It also
 *    rejects what 6.3 calls invalid without listing it among the rejects
 *    (nops outside 1..8, an edited size below 8, an edit len of 0, an
 *    XOR_RLE pair 0/0 or one that produces more than the edit's len, a
 *    verbatim record whose header.size is below 8), orig_len below 24 (no
 *    room for the data header) and bytes after the last span that do not
 *    form a span.  The spans of the rewritten payload run to its end, as
 *    in 5.3.  The literal stream is consumed in record order (gap, edit,
 *    gap, ...).  XOR and XOR_RLE share one key space.  An edited record's
 *    rebuilt header.size must equal its u16 size (the CRC and
 *    5.3 catch a mismatch).  The block line shows raw=orig_len.
 *  - codec 0 with stored_len != raw_len, and a zlib stream with bytes
 *    left over after its end, are payload corruption.
 *  - SYMBOLS (5.8): the reserved bytes of its header (1..7, 56..63) and of
 *    each segment are checked like any reserved field (not in a file of a
 *    newer minor); the zeros after the build id are not a reserved field
 *    and are always checked.  "No wrap-around" (symbols, ranges) means the
 *    end, start + size or vaddr + len, is below 2^64 (it does not overflow
 *    64 bits).  A string offset may point anywhere in the string table
 *    (into the middle of a string too); the string runs to the next NUL.
 *    The canonical lines print strings resolved, 0xFFFFFFFF as "-", and the
 *    CRC of each range's bytes.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define READER_MAJOR 1
#define READER_MINOR 9
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

/* 5.7: "ADDRESS TYPE NAME[\t[MODULE]]\n" lines. */
static int parse_kallsyms(FILE *o, const uint8_t *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t nd = 0, name, name_end, mod = 0, mod_end = 0;
		uint64_t addr = 0;
		char type;

		for (; i < n; i++, nd++) {
			uint8_t c = p[i];
			unsigned v;

			if (c >= '0' && c <= '9')
				v = c - '0';
			else if (c >= 'a' && c <= 'f')
				v = c - 'a' + 10;
			else if (c >= 'A' && c <= 'F')
				v = c - 'A' + 10;
			else
				break;
			addr = addr * 16 + v;
		}
		if (nd < 1 || nd > 16 || n - i < 3 || p[i] != ' ' || p[i + 1] < 0x21 ||
		    p[i + 1] > 0x7e || p[i + 2] != ' ')
			return -1;
		type = (char)p[i + 1];
		i += 3;
		name = i;
		while (i < n && p[i] >= 0x21 && p[i] <= 0x7e)
			i++;
		name_end = i;
		if (name_end == name || i == n)
			return -1;
		if (p[i] == '\t') {
			if (++i == n || p[i] != '[')
				return -1;
			mod = ++i;
			while (i < n && p[i] >= 0x21 && p[i] <= 0x7e && p[i] != ']')
				i++;
			mod_end = i;
			if (mod_end == mod || i == n || p[i] != ']')
				return -1;
			i++;
		}
		if (i == n || p[i] != '\n')
			return -1;
		i++;
		fprintf(o, "  ksym addr=%" PRIx64 " type=%c name=", addr, type);
		put_quoted(o, p + name, name_end - name);
		fputs(" module=", o);
		put_quoted(o, p + mod, mod_end - mod);
		fputc('\n', o);
	}
	return 0;
}

/* 5.8: a 128-byte header, then segs, syms, addrs, frames, ranges, strings
 * and bytes back to back. */
#define SYM_NONE 0xFFFFFFFFu

/* String at offset off of the string table s[0..n) (its last byte is NUL). */
static void put_string(FILE *o, const uint8_t *s, uint32_t off)
{
	put_quoted(o, s + off, strlen((const char *)s + off));
}

static void put_string_or_none(FILE *o, const uint8_t *s, uint32_t off)
{
	if (off == SYM_NONE)
		fputc('-', o);
	else
		put_string(o, s, off);
}

static int parse_symbols(FILE *o, const uint8_t *p, size_t n)
{
	struct cur c = { p, n, 0, 0 };
	const uint8_t *h = take(&c, 128);
	const uint8_t *segs, *syms, *addrs, *frames, *ranges, *strs, *bytes;
	uint32_t nr_segs, nr_syms, nr_addrs, nr_frames, nr_ranges, strings_len, bytes_len;
	uint32_t path, i;
	uint8_t id_size;
	uint64_t need;

	if (c.bad)
		return -1;
	id_size = h[0];
	path = le32(h + 24);
	nr_segs = le32(h + 28);
	nr_syms = le32(h + 32);
	nr_addrs = le32(h + 36);
	nr_frames = le32(h + 40);
	nr_ranges = le32(h + 44);
	strings_len = le32(h + 48);
	bytes_len = le32(h + 52);
	need = 128u + 40u * (uint64_t)nr_segs + 20u * (uint64_t)nr_syms +
	       16u * (uint64_t)nr_addrs + 12u * (uint64_t)nr_frames +
	       16u * (uint64_t)nr_ranges + strings_len + bytes_len;
	if (need != n)
		return -1;
	if (g_check_reserved) {
		for (i = 1; i < 8; i++)
			if (h[i] != 0)
				return -1;
		if (le64(h + 56) != 0)
			return -1;
	}
	if (id_size < 1 || id_size > 64)
		return -1;
	for (i = 64u + id_size; i < 128; i++)
		if (h[i] != 0)
			return -1;
	segs = take(&c, 40u * (size_t)nr_segs);
	syms = take(&c, 20u * (size_t)nr_syms);
	addrs = take(&c, 16u * (size_t)nr_addrs);
	frames = take(&c, 12u * (size_t)nr_frames);
	ranges = take(&c, 16u * (size_t)nr_ranges);
	strs = take(&c, strings_len);
	bytes = take(&c, bytes_len);
	if (c.bad || left(&c) != 0)
		return -1;
	/* strings: at least one byte, the last one NUL */
	if (strings_len < 1 || strs[strings_len - 1] != 0)
		return -1;
	if (path >= strings_len)
		return -1;

	fputs("  symbols build_id=", o);
	put_hex(o, h + 64, id_size);
	fputs(" path=", o);
	put_string(o, strs, path);
	fprintf(o, " eh_frame_hdr=%" PRIx64 " fde_count=%" PRIu64 " segs=%" PRIu32
		" syms=%" PRIu32 " addrs=%" PRIu32 " frames=%" PRIu32 " ranges=%" PRIu32
		" strings=%" PRIu32 " bytes=%" PRIu32 " strings_crc=%08" PRIx32
		" bytes_crc=%08" PRIx32 "\n",
		le64(h + 8), le64(h + 16), nr_segs, nr_syms, nr_addrs, nr_frames, nr_ranges,
		strings_len, bytes_len, crc(strs, strings_len), crc(bytes, bytes_len));

	for (i = 0; i < nr_segs; i++) {
		const uint8_t *s = segs + 40u * (size_t)i;

		if (g_check_reserved && le32(s + 36) != 0)
			return -1;
		fprintf(o, "    seg offset=%" PRIx64 " vaddr=%" PRIx64 " filesz=%" PRIx64
			" memsz=%" PRIx64 " flags=%" PRIu32 "\n",
			le64(s), le64(s + 8), le64(s + 16), le64(s + 24), le32(s + 32));
	}
	for (i = 0; i < nr_syms; i++) {
		const uint8_t *s = syms + 20u * (size_t)i;
		uint64_t start = le64(s), size = le64(s + 8);
		uint32_t name = le32(s + 16);

		if (name >= strings_len)
			return -1;
		if (size > UINT64_MAX - start) /* start + size >= 2^64 */
			return -1;
		if (i > 0 && start <= le64(s - 20)) /* strictly increasing */
			return -1;
		fprintf(o, "    sym start=%" PRIx64 " size=%" PRIx64 " name=", start, size);
		put_string(o, strs, name);
		fputc('\n', o);
	}
	for (i = 0; i < nr_addrs; i++) {
		const uint8_t *a = addrs + 16u * (size_t)i;
		uint64_t vaddr = le64(a);
		uint32_t first = le32(a + 8), nr = le32(a + 12);

		if (i > 0 && vaddr <= le64(a - 16))
			return -1;
		if ((uint64_t)first + nr > nr_frames)
			return -1;
		fprintf(o, "    addr vaddr=%" PRIx64 " first=%" PRIu32 " nr=%" PRIu32 "\n",
			vaddr, first, nr);
	}
	for (i = 0; i < nr_frames; i++) {
		const uint8_t *f = frames + 12u * (size_t)i;
		uint32_t function = le32(f), file = le32(f + 4);

		if ((function != SYM_NONE && function >= strings_len) ||
		    (file != SYM_NONE && file >= strings_len))
			return -1;
		fputs("    frame function=", o);
		put_string_or_none(o, strs, function);
		fputs(" file=", o);
		put_string_or_none(o, strs, file);
		fprintf(o, " line=%" PRIu32 "\n", le32(f + 8));
	}
	for (i = 0; i < nr_ranges; i++) {
		const uint8_t *r = ranges + 16u * (size_t)i;
		uint64_t vaddr = le64(r);
		uint32_t len = le32(r + 8), data = le32(r + 12);

		if (len < 1 || (uint64_t)data + len > bytes_len)
			return -1;
		if (len > UINT64_MAX - vaddr) /* vaddr + len >= 2^64 */
			return -1;
		if (i > 0) { /* the previous range ends at or before this one */
			const uint8_t *q = r - 16;

			if (le64(q) > vaddr || vaddr - le64(q) < le32(q + 8))
				return -1;
		}
		fprintf(o, "    range vaddr=%" PRIx64 " len=%" PRIu32 " data=%" PRIu32
			" crc=%08" PRIx32 "\n", vaddr, len, data, crc(bytes + data, len));
	}
	return 0;
}

/* 5.10: a 16-byte header, then files (12 bytes), lines (8 bytes) and
 * strings.  Paths sorted byte-wise, each once; a file's lines strictly
 * increasing from 1.  Strings are printed as their length and CRC. */
static int parse_source(FILE *o, const uint8_t *p, size_t n)
{
	uint32_t nf, nl, ns;
	const uint8_t *files, *lines, *strs;

	if (n < 16)
		return -1;
	nf = le32(p);
	nl = le32(p + 4);
	ns = le32(p + 8);
	if ((uint64_t)16 + 12ull * nf + 8ull * nl + ns != n)
		return -1;
	if (g_check_reserved && le32(p + 12) != 0)
		return -1;
	files = p + 16;
	lines = files + 12ull * nf;
	strs = lines + 8ull * nl;
	if (ns && strs[ns - 1] != 0)
		return -1;
	fprintf(o, "  source files=%" PRIu32 " lines=%" PRIu32 " strings=%" PRIu32 "\n", nf, nl, ns);
	for (uint32_t i = 0; i < nf; i++) {
		const uint8_t *f = files + 12ull * i;
		uint32_t path = le32(f), first = le32(f + 4), nr = le32(f + 8);
		size_t plen;

		if (path >= ns || first > nl || nr > nl - first)
			return -1;
		plen = strlen((const char *)strs + path);
		if (i > 0 && strcmp((const char *)strs + le32(f - 12), (const char *)strs + path) >= 0)
			return -1;
		fprintf(o, "    file first=%" PRIu32 " nr=%" PRIu32 " path_len=%zu path_crc=%08" PRIx32
			"\n", first, nr, plen, crc(strs + path, plen));
		for (uint32_t j = first; j < first + nr; j++) {
			const uint8_t *l = lines + 8ull * j;
			uint32_t line = le32(l), text = le32(l + 4);
			size_t tlen;

			if (text >= ns || line == 0 || (j > first && line <= le32(l - 8)))
				return -1;
			tlen = strlen((const char *)strs + text);
			fprintf(o, "    line line=%" PRIu32 " len=%zu crc=%08" PRIx32 "\n", line, tlen,
				crc(strs + text, tlen));
		}
	}
	return 0;
}

/* 5.11: a 32-byte header, then dsos (72 bytes), events (16), entries (32)
 * and strings.  Paths unique and non-empty; entries unique by (addr, dso,
 * event, flags); each event's totals the sums of its entries. */
struct ac_key {
	uint64_t addr;
	uint32_t dso, event, flags;
};

static int ac_key_cmp(const void *a, const void *b)
{
	const struct ac_key *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->dso != y->dso)
		return x->dso < y->dso ? -1 : 1;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	return (x->flags > y->flags) - (x->flags < y->flags);
}

static int ac_str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int ac_dsos(FILE *o, const uint8_t *d, uint32_t nd, const uint8_t *strs, uint32_t ns)
{
	const char **paths = malloc(((size_t)nd + 1) * sizeof(*paths));
	int bad = !paths;

	for (uint32_t i = 0; !bad && i < nd; i++) {
		const uint8_t *e = d + 72ull * i;
		uint32_t path = le32(e), idsz = e[4];
		size_t plen;

		if (path >= ns || !strs[path] || idsz > 64 ||
		    (g_check_reserved && (e[5] || e[6] || e[7]))) {
			bad = 1;
			break;
		}
		for (uint32_t k = 8 + idsz; k < 72; k++)
			bad |= e[k] != 0;
		plen = strlen((const char *)strs + path);
		paths[i] = (const char *)strs + path;
		fprintf(o, "    dso path_len=%zu path_crc=%08" PRIx32 " id=", plen, crc(strs + path, plen));
		for (uint32_t k = 0; k < idsz; k++)
			fprintf(o, "%02x", e[8 + k]);
		fputc('\n', o);
	}
	if (!bad && nd > 1) {
		qsort(paths, nd, sizeof(*paths), ac_str_cmp);
		for (uint32_t i = 1; i < nd; i++)
			bad |= !strcmp(paths[i - 1], paths[i]);
	}
	free(paths);
	return bad ? -1 : 0;
}

static int ac_entries(FILE *o, const uint8_t *x, uint32_t nx, uint32_t nd, const uint8_t *ev,
		      uint32_t ne)
{
	struct ac_key *k = malloc(((size_t)nx + 1) * sizeof(*k));
	uint64_t *sum = calloc(2 * (size_t)ne + 1, sizeof(*sum));
	int bad = !k || !sum;

	for (uint32_t i = 0; !bad && i < nx; i++) {
		const uint8_t *e = x + 32ull * i;
		uint32_t dso = le32(e + 24), event = le16(e + 28), flags = e[30];

		if ((dso != 0xffffffffu && dso >= nd) || event >= ne || le64(e + 8) == 0 ||
		    (g_check_reserved && ((flags & ~1u) || e[31]))) {
			bad = 1;
			break;
		}
		k[i] = (struct ac_key){ le64(e), dso, event, flags };
		sum[2 * event] += le64(e + 8);
		sum[2 * event + 1] += le64(e + 16);
		fprintf(o, "    entry addr=%" PRIx64 " samples=%" PRIu64 " period=%" PRIu64 " dso=",
			le64(e), le64(e + 8), le64(e + 16));
		if (dso == 0xffffffffu)
			fputc('-', o);
		else
			fprintf(o, "%" PRIu32, dso);
		fprintf(o, " event=%" PRIu32 " flags=%" PRIu32 "\n", event, flags);
	}
	for (uint32_t i = 0; !bad && i < ne; i++)
		bad = sum[2 * i] != le64(ev + 16ull * i) || sum[2 * i + 1] != le64(ev + 16ull * i + 8);
	if (!bad && nx > 1) {
		qsort(k, nx, sizeof(*k), ac_key_cmp);
		for (uint32_t i = 1; i < nx; i++)
			bad |= !ac_key_cmp(&k[i - 1], &k[i]);
	}
	free(k);
	free(sum);
	return bad ? -1 : 0;
}

static int parse_addr_counts(FILE *o, const uint8_t *p, size_t n)
{
	uint32_t nd, ne, nx, ns;
	const uint8_t *dsos, *events, *entries, *strs;

	if (n < 32)
		return -1;
	nd = le32(p + 12);
	ne = le32(p + 16);
	nx = le32(p + 20);
	ns = le32(p + 24);
	if ((uint64_t)32 + 72ull * nd + 16ull * ne + 32ull * nx + ns != n)
		return -1;
	if ((g_check_reserved && le32(p + 28) != 0) || ne > 65536)
		return -1;
	dsos = p + 32;
	events = dsos + 72ull * nd;
	entries = events + 16ull * ne;
	strs = entries + 32ull * nx;
	if (ns && strs[ns - 1] != 0)
		return -1;
	fprintf(o, "  addr_counts covered_end=%" PRIu64 " covered_crc=%08" PRIx32 " dsos=%" PRIu32
		" events=%" PRIu32 " entries=%" PRIu32 " strings=%" PRIu32 "\n", le64(p), le32(p + 8),
		nd, ne, nx, ns);
	if (ac_dsos(o, dsos, nd, strs, ns))
		return -1;
	for (uint32_t i = 0; i < ne; i++)
		fprintf(o, "    event samples=%" PRIu64 " period=%" PRIu64 "\n", le64(events + 16ull * i),
			le64(events + 16ull * i + 8));
	return ac_entries(o, entries, nx, nd, events, ne);
}

/* 5.12: a 48-byte header, then items: a 24-byte head (len, flags, count,
 * period), the record, zeros to a multiple of 8.  Flags only SUM; a SUM
 * item counts at least one sample, another none and no period; the counts
 * add up to the header's samples; tmin <= tmax; nr_items items, filling
 * the payload. */
static int parse_sample_sums(FILE *o, const uint8_t *p, size_t n)
{
	uint64_t samples, total = 0;
	uint32_t nr, k = 0;
	size_t off = 48;

	if (n < 48)
		return -1;
	samples = le64(p + 16);
	nr = le32(p + 40);
	if ((g_check_reserved && le32(p + 44) != 0) || le64(p + 24) > le64(p + 32))
		return -1;
	fprintf(o, "  sample_sums covered_end=%" PRIu64 " covered_crc=%08" PRIx32 " events=%" PRIu32
		" samples=%" PRIu64 " tmin=%" PRIu64 " tmax=%" PRIu64 " items=%" PRIu32 "\n", le64(p),
		le32(p + 8), le32(p + 12), samples, le64(p + 24), le64(p + 32), nr);
	while (off < n) {
		uint32_t len, flags;
		uint64_t count, period;
		size_t pad;

		if (n - off < 24)
			return -1;
		len = le32(p + off);
		flags = le32(p + off + 4);
		count = le64(p + off + 8);
		period = le64(p + off + 16);
		off += 24;
		pad = ((size_t)len + 7) / 8 * 8;
		if (len < 8 || pad > n - off || (flags & ~1u))
			return -1;
		if ((flags & 1) ? count == 0 : (count != 0 || period != 0))
			return -1;
		for (size_t i = len; i < pad; i++)
			if (p[off + i])
				return -1;
		if (total + count < total)
			return -1;
		total += count;
		fprintf(o, "    item sum=%u count=%" PRIu64 " period=%" PRIu64 " len=%" PRIu32
			" crc=%08" PRIx32 "\n", flags & 1, count, period, len, crc(p + off, len));
		off += pad;
		k++;
	}
	return k == nr && total == samples ? 0 : -1;
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
	case 7: return parse_kallsyms(o, p, n);
	case 8: return parse_symbols(o, p, n);
	case 9: return n != 0; /* END: an empty payload */
	case 10: return parse_source(o, p, n);
	case 11: return parse_addr_counts(o, p, n);
	case 12: return parse_sample_sums(o, p, n);
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

/* ---- section 6.3: undoing the TRANSFORMED rewrite of a DATA payload ----- */

/* A range of bytes already written to the decoded output. The output buffer
 * is allocated once (orig_len bytes) and never moves, so table entries and
 * previous regions are kept as offsets into it. */
struct region {
	uint32_t off;
	uint32_t len;
};

/* One slot of the key -> previous region hash table (open addressing). */
struct keyslot {
	uint64_t key;
	struct region r;
	int used;
};

struct untr {
	struct cur in;          /* the rewritten payload (raw_len bytes) */
	uint8_t *out;           /* the decoded DATA payload */
	size_t out_len;         /* orig_len */
	size_t out_pos;
	struct region *table;   /* NEW entries, numbered from 0 */
	size_t ntable, table_cap;
	struct keyslot *keys;   /* size keys_cap, a power of two */
	size_t nkeys, keys_cap;
};

struct edit {
	uint16_t off;
	uint16_t len;
	uint8_t kind;
	uint32_t index;         /* REF */
	uint64_t key;           /* XOR, XOR_RLE */
	int32_t shift;          /* XOR, XOR_RLE */
};

uint8_t *columns_decode_mini(const uint8_t *p, size_t n, uint32_t *out_len);

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fprintf(stderr, "error: out of memory\n");
		exit(1);
	}
	return p;
}

/* Copy n bytes from the input (literal stream) to dst. */
static int copy_in(struct untr *u, uint8_t *dst, size_t n)
{
	const uint8_t *s = take(&u->in, n);

	if (!s)
		return -1;
	memcpy(dst, s, n);
	return 0;
}

static size_t key_hash(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

/* The slot of key, created (with an empty previous region) if absent. */
static struct keyslot *key_slot(struct untr *u, uint64_t key)
{
	size_t i;

	if (2 * (u->nkeys + 1) > u->keys_cap) {
		size_t old_cap = u->keys_cap, j;
		struct keyslot *old = u->keys;

		u->keys_cap = old_cap ? 2 * old_cap : 64;
		u->keys = calloc(u->keys_cap, sizeof(*u->keys));
		if (!u->keys) {
			fprintf(stderr, "error: out of memory\n");
			exit(1);
		}
		for (j = 0; j < old_cap; j++) {
			if (!old[j].used)
				continue;
			i = key_hash(old[j].key, u->keys_cap);
			while (u->keys[i].used)
				i = (i + 1) & (u->keys_cap - 1);
			u->keys[i] = old[j];
		}
		free(old);
	}
	i = key_hash(key, u->keys_cap);
	while (u->keys[i].used && u->keys[i].key != key)
		i = (i + 1) & (u->keys_cap - 1);
	if (!u->keys[i].used) {
		u->keys[i].used = 1;
		u->keys[i].key = key;
		u->keys[i].r.off = 0;
		u->keys[i].r.len = 0;
		u->nkeys++;
	}
	return &u->keys[i];
}

/* Byte i + shift of the previous region, 0 where that falls outside it. */
static uint8_t prev_byte(const struct untr *u, struct region r, size_t i, int32_t shift)
{
	int64_t j = (int64_t)i + shift;

	if (j < 0 || j >= (int64_t)r.len)
		return 0;
	return u->out[r.off + (size_t)j];
}

/* Apply one edit to the record that starts at output offset rec. The
 * range [rec + e->off, rec + e->off + e->len) lies in the output. */
static int apply_edit(struct untr *u, size_t rec, const struct edit *e)
{
	size_t at = rec + e->off, i;
	uint8_t *dst = u->out + at;
	struct keyslot *k;
	struct region prev;

	switch (e->kind) {
	case 1: /* NEW */
		if (copy_in(u, dst, e->len))
			return -1;
		if (u->ntable == u->table_cap) {
			u->table_cap = u->table_cap ? 2 * u->table_cap : 64;
			u->table = xrealloc(u->table, u->table_cap * sizeof(*u->table));
		}
		u->table[u->ntable].off = (uint32_t)at;
		u->table[u->ntable].len = e->len;
		u->ntable++;
		return 0;
	case 2: /* REF */
		if (e->index >= u->ntable || u->table[e->index].len != e->len)
			return -1;
		/* the entry lies wholly before dst (earlier edits, earlier records) */
		memmove(dst, u->out + u->table[e->index].off, e->len);
		return 0;
	case 3: /* XOR */
		k = key_slot(u, e->key);
		prev = k->r;
		if (copy_in(u, dst, e->len))
			return -1;
		for (i = 0; i < e->len; i++)
			dst[i] ^= prev_byte(u, prev, i, e->shift);
		break;
	case 4: /* XOR_RLE */
		k = key_slot(u, e->key);
		prev = k->r;
		for (i = 0; i < e->len;) {
			uint16_t zeros = rd16(&u->in);
			uint16_t count = rd16(&u->in);

			if (u->in.bad || (zeros == 0 && count == 0))
				return -1;
			if (zeros > e->len - i || count > e->len - i - zeros)
				return -1;
			memset(dst + i, 0, zeros);
			if (copy_in(u, dst + i + zeros, count))
				return -1;
			i += (size_t)zeros + count;
		}
		for (i = 0; i < e->len; i++)
			dst[i] ^= prev_byte(u, prev, i, e->shift);
		break;
	default:
		return -1;
	}
	/* XOR, XOR_RLE: the decoded range becomes the key's previous region
	 * (k is still valid: key_slot was not called since) */
	k->r.off = (uint32_t)at;
	k->r.len = e->len;
	return 0;
}

/* Decode one edited record (after its tag byte) of at most span_left bytes. */
static int decode_edited(struct untr *u, uint64_t span_left, size_t *rec_size)
{
	struct edit e[8];
	uint16_t size = rd16(&u->in);
	uint8_t nops = rd8(&u->in);
	size_t rec = u->out_pos, pos, end, i;

	if (u->in.bad || size < 8 || nops < 1 || nops > 8)
		return -1;
	if (size > span_left || size > u->out_len - u->out_pos)
		return -1;
	end = 0;
	for (i = 0; i < nops; i++) {
		e[i].off = rd16(&u->in);
		e[i].len = rd16(&u->in);
		e[i].kind = rd8(&u->in);
		e[i].index = 0;
		e[i].key = 0;
		e[i].shift = 0;
		if (e[i].kind == 2) {
			e[i].index = rd32(&u->in);
		} else if (e[i].kind == 3 || e[i].kind == 4) {
			e[i].key = rd64(&u->in);
			e[i].shift = (int32_t)rd32(&u->in);
		} else if (e[i].kind != 1) {
			return -1; /* unknown edit kind */
		}
		if (u->in.bad)
			return -1;
		/* sorted, not overlapping, len >= 1, within the record */
		if (e[i].len < 1 || e[i].off < end || (size_t)e[i].off + e[i].len > size)
			return -1;
		end = (size_t)e[i].off + e[i].len;
	}
	/* rebuild from offset 0: literal gaps and edit ranges in order */
	pos = 0;
	for (i = 0; i < nops; i++) {
		if (copy_in(u, u->out + rec + pos, e[i].off - pos))
			return -1;
		if (apply_edit(u, rec, &e[i]))
			return -1;
		pos = (size_t)e[i].off + e[i].len;
	}
	if (copy_in(u, u->out + rec + pos, size - pos))
		return -1;
	/* the rebuilt header.size must be the edited record's size */
	if (le16(u->out + rec + 6) != size)
		return -1;
	u->out_pos += size;
	*rec_size = size;
	return 0;
}

/* Decode one verbatim record (after its tag byte) of at most span_left bytes. */
static int decode_verbatim(struct untr *u, uint64_t span_left, size_t *rec_size)
{
	uint16_t size;

	if (left(&u->in) < 8)
		return -1;
	/* header.size, in record byte order (little-endian: others are refused) */
	size = le16(u->in.p + u->in.pos + 6);
	if (size < 8 || size > span_left || size > u->out_len - u->out_pos)
		return -1;
	if (copy_in(u, u->out + u->out_pos, size))
		return -1;
	u->out_pos += size;
	*rec_size = size;
	return 0;
}

/* Copy n bytes unchanged from the input to the output. */
static int copy_through(struct untr *u, size_t n)
{
	if (n > u->out_len - u->out_pos || copy_in(u, u->out + u->out_pos, n))
		return -1;
	u->out_pos += n;
	return 0;
}

/* Undo the 6.3 rewrite of p[0..n). Returns the decoded DATA payload (its
 * length in *out_len), or NULL if it does not decode. */
static uint8_t *untransform(const uint8_t *p, size_t n, uint32_t *out_len)
{
	struct untr u;
	uint32_t orig_len;
	int ok = 0;

	memset(&u, 0, sizeof(u));
	u.in.p = p;
	u.in.len = n;
	orig_len = rd32(&u.in);
	if (u.in.bad || orig_len > RAW_MAX || orig_len < 24)
		return NULL;
	u.out_len = orig_len;
	u.out = xrealloc(NULL, orig_len);
	if (copy_through(&u, 24)) /* data header */
		goto out;
	while (left(&u.in) > 0) {
		uint64_t length;

		if (copy_through(&u, 16)) /* span header */
			goto out;
		length = le64(u.out + u.out_pos - 8);
		if (length > u.out_len - u.out_pos)
			goto out;
		while (length > 0) {
			uint8_t tag = rd8(&u.in);
			size_t size;

			if (u.in.bad)
				goto out;
			if (tag == 0) {
				if (decode_verbatim(&u, length, &size))
					goto out;
			} else if (tag == 1) {
				if (decode_edited(&u, length, &size))
					goto out;
			} else {
				goto out; /* unknown tag */
			}
			length -= size;
		}
	}
	ok = u.out_pos == u.out_len;
out:
	free(u.table);
	free(u.keys);
	if (!ok) {
		free(u.out);
		return NULL;
	}
	*out_len = orig_len;
	return u.out;
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

/* 7.2: the stream's last 32 bytes are the header of an empty END block. */
static int stream_ended(void)
{
	struct bhdr e;

	return g_size >= FILE_HDR_SIZE + BLOCK_HDR_SIZE &&
	       header_valid(g_size - BLOCK_HDR_SIZE, &e) && e.type == 9 && e.stored_len == 0;
}

static void check_file_header(void)
{
	uint8_t h[FILE_HDR_SIZE];
	uint16_t major, minor;
	int stream;

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
		int nz = (le32(h + 16) & (minor >= 3 ? ~1u : ~0u)) != 0;
		for (i = 40; i < 64; i++)
			nz |= h[i] != 0;
		if (nz)
			refuse("corrupt header (reserved)");
	}
	stream = (le32(h + 16) & 1) != 0;
	if (stream && le64(h + 24) != 0)
		refuse("corrupt header (stream with an index offset)");
	if (h[15] != 1)
		refuse("records are big-endian; this reader is little-endian only");
	printf("file version=%u.%u kind=%u order=%u index=%" PRIu64 "\n",
	       major, minor, h[14], h[15], le64(h + 24));
	if (stream)
		printf("stream\n");
	if (stream ? !stream_ended() : le64(h + 24) == 0)
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
		uint32_t raw_len;
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
		else if ((h.flags & 1) && h.type != 3)
			skip = "transformed";
		else if ((h.flags & 2) && h.type != 3)
			skip = "columns";
		else if ((h.flags & ~3u) || h.flags == 3)
			skip = "unknown-flags";
		else if (h.type < 1 || h.type > 12)
			skip = "unknown-type";
		if (skip) {
			printf("skip off=%zu reason=%s\n", off, skip);
			nskipped++;
			off = next;
			continue;
		}

		raw = decode(&h, g_file + off + BLOCK_HDR_SIZE);
		raw_len = h.raw_len;
		if (raw && (h.flags & 2)) {
			/* COLUMNS DATA block (6.4): the CRC is of the encoded bytes */
			uint8_t *orig = crc(raw, raw_len) == h.raw_crc ?
					columns_decode_mini(raw, h.raw_len, &raw_len) : NULL;

			free(raw);
			raw = orig;
			if (raw)        /* checked: let the check below pass */
				h.raw_crc = crc(raw, raw_len);
		} else if (raw && (h.flags & 1)) {
			/* TRANSFORMED DATA block: undo the rewrite of 6.3 */
			uint8_t *orig = untransform(raw, h.raw_len, &raw_len);
			free(raw);
			raw = orig;
		}
		if (!raw || crc(raw, raw_len) != h.raw_crc) {
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
		bad = parse_payload(o, h.type, raw, raw_len);
		fclose(o);
		free(raw);
		if (bad) {
			printf("corrupt off=%zu what=structure\n", off);
			ncorrupt++;
		} else {
			printf("block off=%zu seq=%" PRIu32 " type=%u codec=%u flags=%u raw=%" PRIu32 "\n",
			       off, h.seq, h.type, h.codec, h.flags, raw_len);
			fwrite(text, 1, text_len, stdout);
			nblocks++;
		}
		free(text);
		off = next;
	}
	printf("end blocks=%lu corrupt=%lu skipped=%lu\n", nblocks, ncorrupt, nskipped);
	return 0;
}
