/* SPDX-License-Identifier: MIT */
/* The SYMBOLS block payload; see embed.h and FORMAT.md 5.8. */
#include "embed.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>


#define SEG_SIZE 40
#define SYM_SIZE 20
#define ADDR_SIZE 16
#define FRAME_SIZE 12
#define RANGE_SIZE 16

static void put(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static int put_buf(struct buf *out, uint64_t v, int n)
{
	uint8_t b[8];

	put(b, v, n);
	return buf_append(out, b, (size_t)n);
}

static bool str_ok(const struct embed_dso *d, uint32_t off, bool none_ok)
{
	return (none_ok && off == EMBED_NONE) || off < d->strings_len;
}

/* The rules of FORMAT.md 5.8 beyond the lengths; NULL when d keeps them. */
static const char *check(const struct embed_dso *d)
{
	if (!d->build_id_size || d->build_id_size > EMBED_BUILD_ID_MAX)
		return "build id size not in 1..64";
	if (!d->strings_len || d->strings[d->strings_len - 1])
		return "string table does not end with NUL";
	if (!str_ok(d, d->path, false))
		return "path outside the string table";
	for (uint32_t i = 0; i < d->nr_syms; i++) {
		const struct embed_sym *s = &d->syms[i];

		if (!str_ok(d, s->name, false))
			return "symbol name outside the string table";
		if (s->start + s->size < s->start)
			return "symbol wraps around";
		if (i + 1 < d->nr_syms && s->start >= d->syms[i + 1].start)
			return "symbols not sorted by start, or two at one address";
	}
	for (uint32_t i = 0; i < d->nr_addrs; i++) {
		const struct embed_addr *a = &d->addrs[i];

		if (i + 1 < d->nr_addrs && a->vaddr >= d->addrs[i + 1].vaddr)
			return "addresses not sorted or repeated";
		if (a->first > d->nr_frames || a->nr > d->nr_frames - a->first)
			return "address frames outside the frame table";
	}
	for (uint32_t i = 0; i < d->nr_frames; i++)
		if (!str_ok(d, d->frames[i].function, true) || !str_ok(d, d->frames[i].file, true))
			return "frame string outside the string table";
	for (uint32_t i = 0; i < d->nr_ranges; i++) {
		const struct embed_range *r = &d->ranges[i];

		if (!r->len || r->data > d->bytes_len || r->len > d->bytes_len - r->data)
			return "range outside the bytes";
		if (r->vaddr + r->len < r->vaddr)
			return "range wraps around";
		if (i + 1 < d->nr_ranges && r->vaddr + r->len > d->ranges[i + 1].vaddr)
			return "ranges not sorted or overlapping";
	}
	return NULL;
}

int embed_encode(const struct embed_dso *d, struct buf *out)
{
	uint8_t h[EMBED_HEADER_SIZE] = { 0 };
	int ret;

	if (check(d))
		return -EINVAL;
	h[0] = d->build_id_size;
	put(h + 8, d->eh_frame_hdr, 8);
	put(h + 16, d->fde_count, 8);
	put(h + 24, d->path, 4);
	put(h + 28, d->nr_segs, 4);
	put(h + 32, d->nr_syms, 4);
	put(h + 36, d->nr_addrs, 4);
	put(h + 40, d->nr_frames, 4);
	put(h + 44, d->nr_ranges, 4);
	put(h + 48, d->strings_len, 4);
	put(h + 52, d->bytes_len, 4);
	memcpy(h + 64, d->build_id, d->build_id_size);
	ret = buf_append(out, h, sizeof(h));
	for (uint32_t i = 0; !ret && i < d->nr_segs; i++) {
		const struct embed_seg *s = &d->segs[i];

		ret = put_buf(out, s->offset, 8);
		ret = ret ? ret : put_buf(out, s->vaddr, 8);
		ret = ret ? ret : put_buf(out, s->filesz, 8);
		ret = ret ? ret : put_buf(out, s->memsz, 8);
		ret = ret ? ret : put_buf(out, s->flags, 4);
		ret = ret ? ret : put_buf(out, 0, 4);
	}
	for (uint32_t i = 0; !ret && i < d->nr_syms; i++) {
		ret = put_buf(out, d->syms[i].start, 8);
		ret = ret ? ret : put_buf(out, d->syms[i].size, 8);
		ret = ret ? ret : put_buf(out, d->syms[i].name, 4);
	}
	for (uint32_t i = 0; !ret && i < d->nr_addrs; i++) {
		ret = put_buf(out, d->addrs[i].vaddr, 8);
		ret = ret ? ret : put_buf(out, d->addrs[i].first, 4);
		ret = ret ? ret : put_buf(out, d->addrs[i].nr, 4);
	}
	for (uint32_t i = 0; !ret && i < d->nr_frames; i++) {
		ret = put_buf(out, d->frames[i].function, 4);
		ret = ret ? ret : put_buf(out, d->frames[i].file, 4);
		ret = ret ? ret : put_buf(out, d->frames[i].line, 4);
	}
	for (uint32_t i = 0; !ret && i < d->nr_ranges; i++) {
		ret = put_buf(out, d->ranges[i].vaddr, 8);
		ret = ret ? ret : put_buf(out, d->ranges[i].len, 4);
		ret = ret ? ret : put_buf(out, d->ranges[i].data, 4);
	}
	ret = ret ? ret : buf_append(out, d->strings, d->strings_len);
	ret = ret ? ret : buf_append(out, d->bytes, d->bytes_len);
	return ret;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* n bytes (4 or 8) little-endian: inlined, so that the compiler reads each
 * field at once (a SYMBOLS block holds ~100k of them) */
static inline __attribute__((always_inline)) uint64_t le(const uint8_t *p, int n)
{
	return n == 8 ? (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32 : le32(p);
}

int embed_decode(const uint8_t *p, size_t len, struct embed_dso **out, struct err *err)
{
	uint64_t nseg, nsym, naddr, nframe, nrange, nstr, nbyte, need;
	struct embed_dso *d;
	const char *why;
	uint8_t *mem;
	size_t size;

	*out = NULL;
	if (len < EMBED_HEADER_SIZE)
		return err_set(err, -PREC_ECORRUPT, "SYMBOLS block: shorter than its header");
	nseg = le(p + 28, 4);
	nsym = le(p + 32, 4);
	naddr = le(p + 36, 4);
	nframe = le(p + 40, 4);
	nrange = le(p + 44, 4);
	nstr = le(p + 48, 4);
	nbyte = le(p + 52, 4);
	need = EMBED_HEADER_SIZE + nseg * SEG_SIZE + nsym * SYM_SIZE + naddr * ADDR_SIZE +
	       nframe * FRAME_SIZE + nrange * RANGE_SIZE + nstr + nbyte;
	if (need != len)
		return err_set(err, -PREC_ECORRUPT, "SYMBOLS block: %zu bytes, its counts say %llu",
			       len, (unsigned long long)need);
	for (int i = 1; i < 8; i++)
		if (p[i])
			return err_set(err, -PREC_ECORRUPT, "SYMBOLS block: reserved bytes not 0");
	if (le(p + 56, 8))
		return err_set(err, -PREC_ECORRUPT, "SYMBOLS block: reserved bytes not 0");
	for (size_t i = p[0]; i < EMBED_BUILD_ID_MAX; i++)
		if (p[64 + i])
			return err_set(err, -PREC_ECORRUPT, "SYMBOLS block: bytes past the build id not 0");
	for (uint64_t i = 0; i < nseg; i++)
		if (le(p + EMBED_HEADER_SIZE + i * SEG_SIZE + 36, 4))
			return err_set(err, -PREC_ECORRUPT, "SYMBOLS block: segment %llu: reserved "
				       "field not 0", (unsigned long long)i);
	size = sizeof(*d) + nseg * sizeof(*d->segs) + nsym * sizeof(*d->syms) +
	       naddr * sizeof(*d->addrs) + nframe * sizeof(*d->frames) +
	       nrange * sizeof(*d->ranges) + nstr + nbyte;
	mem = malloc(size);
	if (!mem)
		return err_set(err, -ENOMEM, "out of memory");
	d = (struct embed_dso *)mem;
	memset(d, 0, sizeof(*d));
	d->build_id_size = p[0];
	memcpy(d->build_id, p + 64, EMBED_BUILD_ID_MAX);
	d->eh_frame_hdr = le(p + 8, 8);
	d->fde_count = le(p + 16, 8);
	d->path = (uint32_t)le(p + 24, 4);
	d->nr_segs = (uint32_t)nseg;
	d->nr_syms = (uint32_t)nsym;
	d->nr_addrs = (uint32_t)naddr;
	d->nr_frames = (uint32_t)nframe;
	d->nr_ranges = (uint32_t)nrange;
	d->strings_len = (uint32_t)nstr;
	d->bytes_len = (uint32_t)nbyte;
	/* in memory, the arrays of 8-byte fields come first (alignment) */
	d->segs = (struct embed_seg *)(mem + sizeof(*d));
	d->syms = (struct embed_sym *)(d->segs + nseg);
	d->addrs = (struct embed_addr *)(d->syms + nsym);
	d->ranges = (struct embed_range *)(d->addrs + naddr);
	d->frames = (struct embed_frame *)(d->ranges + nrange);
	p += EMBED_HEADER_SIZE;
	for (uint64_t i = 0; i < nseg; i++, p += SEG_SIZE)
		d->segs[i] = (struct embed_seg){ le(p, 8), le(p + 8, 8), le(p + 16, 8), le(p + 24, 8),
						 (uint32_t)le(p + 32, 4) };
	for (uint64_t i = 0; i < nsym; i++, p += SYM_SIZE)
		d->syms[i] = (struct embed_sym){ le(p, 8), le(p + 8, 8), (uint32_t)le(p + 16, 4) };
	for (uint64_t i = 0; i < naddr; i++, p += ADDR_SIZE)
		d->addrs[i] = (struct embed_addr){ le(p, 8), (uint32_t)le(p + 8, 4),
						   (uint32_t)le(p + 12, 4) };
	for (uint64_t i = 0; i < nframe; i++, p += FRAME_SIZE)
		d->frames[i] = (struct embed_frame){ (uint32_t)le(p, 4), (uint32_t)le(p + 4, 4),
						     (uint32_t)le(p + 8, 4) };
	for (uint64_t i = 0; i < nrange; i++, p += RANGE_SIZE)
		d->ranges[i] = (struct embed_range){ le(p, 8), (uint32_t)le(p + 8, 4),
						     (uint32_t)le(p + 12, 4) };
	mem = (uint8_t *)(d->frames + nframe);
	memcpy(mem, p, nstr + nbyte);
	d->strings = (const char *)mem;
	d->bytes = mem + nstr;
	why = check(d);
	if (why) {
		free(d);
		return err_set(err, -PREC_ECORRUPT, "SYMBOLS block: %s", why);
	}
	*out = d;
	return 0;
}

void embed_free(struct embed_dso *d)
{
	free(d);
}

const char *embed_str(const struct embed_dso *d, uint32_t off)
{
	return off < d->strings_len ? d->strings + off : NULL;
}

const struct embed_addr *embed_find_addr(const struct embed_dso *d, uint64_t vaddr)
{
	size_t lo = 0, hi = d->nr_addrs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->addrs[mid].vaddr < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nr_addrs && d->addrs[lo].vaddr == vaddr ? &d->addrs[lo] : NULL;
}

size_t embed_range_at(const struct embed_dso *d, uint64_t vaddr, const uint8_t **out)
{
	size_t lo = 0, hi = d->nr_ranges;
	const struct embed_range *r;

	*out = NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->ranges[mid].vaddr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	r = &d->ranges[lo - 1];
	if (vaddr - r->vaddr >= r->len)
		return 0;
	*out = d->bytes + r->data + (vaddr - r->vaddr);
	return (size_t)(r->len - (vaddr - r->vaddr));
}

const uint8_t *embed_find_bytes(const struct embed_dso *d, uint64_t vaddr, size_t n)
{
	const uint8_t *p;
	size_t have = embed_range_at(d, vaddr, &p);

	return have && have >= n ? p : NULL;
}

int embed_list_add(struct embed_list *l, struct embed_dso *const *v, size_t n)
{
	if (l->n + n > l->cap) {
		size_t cap = l->n + n > 2 * l->cap ? l->n + n : 2 * l->cap;
		const struct embed_dso **grown = array_realloc(l->v, cap, sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		l->v = grown;
		l->cap = cap;
	}
	for (size_t i = 0; i < n; i++)
		l->v[l->n++] = v[i];
	return 0;
}

const struct embed_dso *embed_list_find(const struct embed_list *l, const uint8_t *id,
					size_t id_size, const char *path)
{
	for (size_t i = l->n; i-- > 0;) {
		const struct embed_dso *e = l->v[i];

		if (id_size ? e->build_id_size == id_size && !memcmp(e->build_id, id, id_size) :
			      path && !strcmp(embed_str(e, e->path), path))
			return e;
	}
	return NULL;
}

void embed_list_free(struct embed_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* ---- two files' data of one binary, merged ---------------------------- */

/* b's string offsets follow a's in the merged table */
static uint32_t str_shift(uint32_t off, uint32_t by)
{
	return off == EMBED_NONE ? off : off + by;
}

/* Symbols of both by start; at a start both have, a's. */
static int merge_syms(struct embed_dso *m, const struct embed_dso *a, const struct embed_dso *b)
{
	uint32_t i = 0, j = 0, n = 0;

	m->syms = malloc(((size_t)a->nr_syms + b->nr_syms + 1) * sizeof(*m->syms));
	if (!m->syms)
		return -ENOMEM;
	while (i < a->nr_syms || j < b->nr_syms) {
		if (j == b->nr_syms || (i < a->nr_syms && a->syms[i].start <= b->syms[j].start)) {
			if (j < b->nr_syms && a->syms[i].start == b->syms[j].start)
				j++;
			m->syms[n++] = a->syms[i++];
		} else {
			m->syms[n] = b->syms[j++];
			m->syms[n++].name += a->strings_len;
		}
	}
	m->nr_syms = n;
	return 0;
}

/* Hit addresses of both by vaddr (at one both have, a's); b's frames
 * follow a's. */
static int merge_addrs(struct embed_dso *m, const struct embed_dso *a, const struct embed_dso *b)
{
	uint32_t i = 0, j = 0, n = 0;

	m->addrs = malloc(((size_t)a->nr_addrs + b->nr_addrs + 1) * sizeof(*m->addrs));
	m->frames = malloc(((size_t)a->nr_frames + b->nr_frames + 1) * sizeof(*m->frames));
	if (!m->addrs || !m->frames)
		return -ENOMEM;
	while (i < a->nr_addrs || j < b->nr_addrs) {
		if (j == b->nr_addrs || (i < a->nr_addrs && a->addrs[i].vaddr <= b->addrs[j].vaddr)) {
			if (j < b->nr_addrs && a->addrs[i].vaddr == b->addrs[j].vaddr)
				j++;
			m->addrs[n++] = a->addrs[i++];
		} else {
			m->addrs[n] = b->addrs[j++];
			m->addrs[n++].first += a->nr_frames;
		}
	}
	m->nr_addrs = n;
	memcpy(m->frames, a->frames, a->nr_frames * sizeof(*m->frames));
	for (uint32_t k = 0; k < b->nr_frames; k++) {
		struct embed_frame f = b->frames[k];

		f.function = str_shift(f.function, a->strings_len);
		f.file = str_shift(f.file, a->strings_len);
		m->frames[a->nr_frames + k] = f;
	}
	m->nr_frames = a->nr_frames + b->nr_frames;
	return 0;
}

/* The bytes of both: ranges by vaddr, those that overlap or touch joined
 * into one. */
static int merge_ranges(struct embed_dso *m, struct buf *bytes, const struct embed_dso *a,
			const struct embed_dso *b)
{
	uint32_t i = 0, j = 0, n = 0;
	uint64_t end = 0;

	m->ranges = malloc(((size_t)a->nr_ranges + b->nr_ranges + 1) * sizeof(*m->ranges));
	if (!m->ranges)
		return -ENOMEM;
	while (i < a->nr_ranges || j < b->nr_ranges) {
		bool from_a = j == b->nr_ranges ||
			      (i < a->nr_ranges && a->ranges[i].vaddr <= b->ranges[j].vaddr);
		const struct embed_dso *d = from_a ? a : b;
		const struct embed_range *r = from_a ? &a->ranges[i++] : &b->ranges[j++];
		uint64_t r_end = r->vaddr + r->len, skip = 0;

		if (n && r->vaddr <= end) {
			/* the last range's bytes end the buffer: extend it */
			if (r_end <= end)
				continue;
			skip = end - r->vaddr;
			if ((uint64_t)m->ranges[n - 1].len + (r->len - skip) > UINT32_MAX)
				return -E2BIG;
			m->ranges[n - 1].len += (uint32_t)(r->len - skip);
		} else {
			if (bytes->len > UINT32_MAX)
				return -E2BIG;
			m->ranges[n++] = (struct embed_range){ r->vaddr, r->len, (uint32_t)bytes->len };
		}
		if (buf_append(bytes, d->bytes + r->data + skip, r->len - skip))
			return -ENOMEM;
		end = r_end;
	}
	m->nr_ranges = n;
	return bytes->len > UINT32_MAX ? -E2BIG : 0;
}

int embed_merge(const struct embed_dso *a, const struct embed_dso *b, struct embed_dso **out)
{
	struct embed_dso m = *a;
	struct buf strings = BUF_INIT, bytes = BUF_INIT, enc = BUF_INIT;
	int ret;

	*out = NULL;
	m.syms = NULL;
	m.addrs = NULL;
	m.frames = NULL;
	m.ranges = NULL;
	if (a->build_id_size != b->build_id_size ||
	    memcmp(a->build_id, b->build_id, a->build_id_size))
		return -EINVAL;
	if ((uint64_t)a->strings_len + b->strings_len > UINT32_MAX ||
	    (uint64_t)a->nr_frames + b->nr_frames > UINT32_MAX ||
	    (uint64_t)a->nr_syms + b->nr_syms > UINT32_MAX ||
	    (uint64_t)a->nr_addrs + b->nr_addrs > UINT32_MAX)
		return -E2BIG;
	if (!m.eh_frame_hdr) {
		m.eh_frame_hdr = b->eh_frame_hdr;
		m.fde_count = b->fde_count;
	}
	ret = merge_syms(&m, a, b);
	ret = ret ? ret : merge_addrs(&m, a, b);
	ret = ret ? ret : merge_ranges(&m, &bytes, a, b);
	ret = ret ? ret : buf_append(&strings, a->strings, a->strings_len);
	ret = ret ? ret : buf_append(&strings, b->strings, b->strings_len);
	if (!ret) {
		m.strings = (const char *)strings.data;
		m.strings_len = (uint32_t)strings.len;
		m.bytes = bytes.data;
		m.bytes_len = (uint32_t)bytes.len;
		/* one allocation, as embed_decode gives, and checked */
		ret = embed_encode(&m, &enc);
		ret = ret ? ret : embed_decode(enc.data, enc.len, out, NULL);
		if (ret && ret != -ENOMEM)
			ret = -EINVAL;
	}
	free(m.syms);
	free(m.addrs);
	free(m.frames);
	free(m.ranges);
	buf_free(&strings);
	buf_free(&bytes);
	buf_free(&enc);
	return ret;
}
