/* SPDX-License-Identifier: MIT */
/* EVENT, DATA, BUILD_IDS, COUNTS and INDEX payloads (FORMAT.md section 5). */
#include "blocks.h"
#include "addrcounts.h"
#include "samplesums.h"
#include "container.h"
#include "embed.h"
#include "record.h"
#include "source.h"
#include "common/text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- EVENT ----------------------------------------------------------- */

int event_block_encode(const void *attr, uint32_t attr_size, const char *name,
		       const struct event_id *ids, size_t nr_ids, struct buf *out)
{
	size_t name_len = strlen(name);
	int ret;

	if (attr_size < EVENT_ATTR_MIN || attr_size > EVENT_ATTR_MAX ||
	    name_len > EVENT_BLOCK_NAME_MAX || nr_ids > EVENT_IDS_MAX)
		return -EINVAL;
	ret = buf_put_u32(out, attr_size);
	ret = ret ? ret : buf_put_u32(out, (uint32_t)name_len);
	ret = ret ? ret : buf_put_u32(out, (uint32_t)nr_ids);
	ret = ret ? ret : buf_put_u32(out, 0);
	ret = ret ? ret : buf_append(out, attr, attr_size);
	ret = ret ? ret : buf_append(out, name, name_len);
	for (size_t i = 0; i < nr_ids && !ret; i++) {
		ret = buf_put_u64(out, ids[i].id);
		ret = ret ? ret : buf_put_u32(out, (uint32_t)ids[i].cpu);
		ret = ret ? ret : buf_put_u32(out, (uint32_t)ids[i].tid);
	}
	return ret;
}

static int event_block_check(struct cursor *c, uint32_t *attr_size, uint32_t *name_len,
			     uint32_t *nr_ids, struct err *err)
{
	uint32_t reserved;

	if (!cur_le32(c, attr_size) || !cur_le32(c, name_len) || !cur_le32(c, nr_ids) ||
	    !cur_le32(c, &reserved))
		return err_set(err, -PREC_ECORRUPT, "EVENT block: header does not fit");
	if (reserved)
		return err_set(err, -PREC_ECORRUPT, "EVENT block: reserved field is %u", reserved);
	if (*attr_size < EVENT_ATTR_MIN || *attr_size > EVENT_ATTR_MAX)
		return err_set(err, -PREC_ECORRUPT, "EVENT block: attr size %u outside %u..%u",
			       *attr_size, EVENT_ATTR_MIN, EVENT_ATTR_MAX);
	if (*name_len > EVENT_BLOCK_NAME_MAX)
		return err_set(err, -PREC_ECORRUPT, "EVENT block: name of %u bytes", *name_len);
	if (*nr_ids > EVENT_IDS_MAX)
		return err_set(err, -PREC_ECORRUPT, "EVENT block: %u ids", *nr_ids);
	if (cur_left(c) != (uint64_t)*attr_size + *name_len + 16ull * *nr_ids)
		return err_set(err, -PREC_ECORRUPT,
			       "EVENT block: payload of %zu bytes does not match its counts",
			       c->len);
	return 0;
}

int event_block_decode(const uint8_t *p, size_t len, struct event_desc *ev, struct err *err)
{
	struct cursor c = cur_make(p, len);
	uint32_t attr_size, name_len, nr_ids;
	const uint8_t *a, *n;
	int ret;

	memset(ev, 0, sizeof(*ev));
	ret = event_block_check(&c, &attr_size, &name_len, &nr_ids, err);
	if (ret)
		return ret;
	a = cur_take(&c, attr_size);
	n = cur_take(&c, name_len);
	ev->attr_bytes = malloc(attr_size);
	ev->name = malloc(name_len + 1);
	ev->ids = calloc(nr_ids ? nr_ids : 1, sizeof(*ev->ids));
	if (!ev->attr_bytes || !ev->name || !ev->ids) {
		event_desc_free(ev);
		return err_set(err, -ENOMEM, "EVENT block: out of memory");
	}
	memcpy(ev->attr_bytes, a, attr_size);
	memcpy(&ev->attr, a, attr_size < sizeof(ev->attr) ? attr_size : sizeof(ev->attr));
	ev->attr_size = attr_size;
	memcpy(ev->name, n, name_len);
	ev->name[name_len] = 0;
	ev->nr_ids = nr_ids;
	for (uint32_t i = 0; i < nr_ids; i++) {
		uint32_t cpu = 0, tid = 0;

		cur_le64(&c, &ev->ids[i].id);
		cur_le32(&c, &cpu);
		cur_le32(&c, &tid);
		ev->ids[i].cpu = (int32_t)cpu;
		ev->ids[i].tid = (int32_t)tid;
	}
	return 0;
}

void event_desc_free(struct event_desc *ev)
{
	if (!ev)
		return;
	free(ev->attr_bytes);
	free(ev->name);
	free(ev->ids);
	memset(ev, 0, sizeof(*ev));
}

/* ---- DATA ------------------------------------------------------------ */

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void data_header_encode(const struct data_header *h, uint8_t out[DATA_HEADER_SIZE])
{
	put_le(out, h->time_min, 8);
	put_le(out + 8, h->time_max, 8);
	put_le(out + 16, h->nr_records, 4);
	put_le(out + 20, h->nr_spans, 4);
}

void span_header_encode(uint32_t cpu, uint16_t kind, uint64_t len, uint8_t out[SPAN_HEADER_SIZE])
{
	put_le(out, cpu, 4);
	put_le(out + 4, kind, 2);
	put_le(out + 6, 0, 2);
	put_le(out + 8, len, 8);
}

int data_iter_init(struct data_iter *it, const uint8_t *p, size_t len, struct err *err)
{
	it->c = cur_make(p, len);
	if (!cur_le64(&it->c, &it->h.time_min) || !cur_le64(&it->c, &it->h.time_max) ||
	    !cur_le32(&it->c, &it->h.nr_records) || !cur_le32(&it->c, &it->h.nr_spans))
		return err_set(err, -PREC_ECORRUPT, "DATA block: data header does not fit");
	return 0;
}

int data_iter_next(struct data_iter *it, struct data_span *s, struct err *err)
{
	size_t at = it->c.off;
	uint16_t reserved;

	if (!cur_left(&it->c))
		return 0;
	if (!cur_le32(&it->c, &s->cpu) || !cur_le16(&it->c, &s->kind) ||
	    !cur_le16(&it->c, &reserved) || !cur_le64(&it->c, &s->len))
		return err_set(err, -PREC_ECORRUPT,
			       "DATA block: span header at payload offset %zu does not fit", at);
	if (reserved)
		return err_set(err, -PREC_ECORRUPT,
			       "DATA block: span at payload offset %zu: reserved field is %u",
			       at, reserved);
	if (s->kind == SPAN_ROUND_END && s->len)
		return err_set(err, -PREC_ECORRUPT,
			       "DATA block: round-end span at payload offset %zu has length %llu",
			       at, (unsigned long long)s->len);
	if (s->kind > SPAN_ROUND_END)
		return err_set(err, -PREC_ECORRUPT,
			       "DATA block: span at payload offset %zu has unknown kind %u",
			       at, s->kind);
	s->records = cur_take(&it->c, s->len > SIZE_MAX ? SIZE_MAX : (size_t)s->len);
	if (!s->records && s->len)
		return err_set(err, -PREC_ECORRUPT,
			       "DATA block: span at payload offset %zu: %llu bytes of records do not fit",
			       at, (unsigned long long)s->len);
	return 1;
}

static int data_block_validate(const uint8_t *p, size_t len, struct err *err)
{
	struct data_iter it;
	struct data_span s;
	uint64_t nr_records = 0, nr_spans = 0;
	int ret = data_iter_init(&it, p, len, err);

	while (!ret && (ret = data_iter_next(&it, &s, err)) == 1) {
		size_t off = 0, rec_len;

		nr_spans++;
		while ((ret = record_next(s.records, s.len, off, &rec_len, err)) == 1) {
			off += rec_len;
			nr_records++;
		}
		if (ret < 0) {
			err_prefix(err, "DATA block: span %llu", (unsigned long long)nr_spans - 1);
			return ret;
		}
	}
	if (ret < 0)
		return ret;
	if (nr_spans != it.h.nr_spans || nr_records != it.h.nr_records)
		return err_set(err, -PREC_ECORRUPT,
			       "DATA block: header says %u spans and %u records, found %llu and %llu",
			       it.h.nr_spans, it.h.nr_records, (unsigned long long)nr_spans,
			       (unsigned long long)nr_records);
	return 0;
}

/* ---- BUILD_IDS ------------------------------------------------------- */

int build_ids_encode(const struct build_id_entry *e, size_t n, struct buf *out)
{
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		size_t plen = strlen(e[i].path);

		if (!e[i].size || e[i].size > BUILD_ID_MAX || plen > EVENT_BLOCK_NAME_MAX)
			return -EINVAL;
		ret = buf_put_u8(out, e[i].size);
		ret = ret ? ret : buf_put_u8(out, e[i].flags);
		ret = ret ? ret : buf_put_u16(out, (uint16_t)plen);
		ret = ret ? ret : buf_append(out, e[i].id, e[i].size);
		ret = ret ? ret : buf_append(out, e[i].path, plen);
	}
	return ret;
}

/* Walk the entries; with out != NULL, fill out[0..) (the caller sized it). */
static int build_ids_walk(const uint8_t *p, size_t len, struct build_id_entry *out,
			  size_t *n, struct err *err)
{
	struct cursor c = cur_make(p, len);
	size_t count = 0;

	while (cur_left(&c)) {
		size_t at = c.off;
		uint8_t size, flags;
		uint16_t plen;
		const uint8_t *id, *path;

		if (!cur_le8(&c, &size) || !cur_le8(&c, &flags) || !cur_le16(&c, &plen))
			return err_set(err, -PREC_ECORRUPT,
				       "BUILD_IDS block: entry at payload offset %zu does not fit", at);
		if (!size || size > BUILD_ID_MAX || plen > EVENT_BLOCK_NAME_MAX)
			return err_set(err, -PREC_ECORRUPT,
				       "BUILD_IDS block: entry at payload offset %zu: id size %u, path length %u",
				       at, size, plen);
		id = cur_take(&c, size);
		path = cur_take(&c, plen);
		if (!id || !path)
			return err_set(err, -PREC_ECORRUPT,
				       "BUILD_IDS block: entry at payload offset %zu does not fit", at);
		if (out) {
			struct build_id_entry *e = &out[count];

			e->size = size;
			e->flags = flags;
			memset(e->id, 0, sizeof(e->id));
			memcpy(e->id, id, size);
			e->path = strndup((const char *)path, plen);
			if (!e->path)
				return err_set(err, -ENOMEM, "BUILD_IDS block: out of memory");
		}
		count++;
	}
	*n = count;
	return 0;
}

int build_ids_decode(const uint8_t *p, size_t len, struct build_id_entry **out, size_t *n,
		     struct err *err)
{
	size_t count, filled = 0;
	int ret = build_ids_walk(p, len, NULL, &count, err);

	*out = NULL;
	*n = 0;
	if (ret)
		return ret;
	*out = calloc(count ? count : 1, sizeof(**out));
	if (!*out)
		return err_set(err, -ENOMEM, "BUILD_IDS block: out of memory");
	ret = build_ids_walk(p, len, *out, &filled, err);
	if (ret) {
		build_ids_free(*out, count);
		*out = NULL;
		return ret;
	}
	*n = count;
	return 0;
}

void build_ids_free(struct build_id_entry *e, size_t n)
{
	if (!e)
		return;
	for (size_t i = 0; i < n; i++)
		free(e[i].path);
	free(e);
}

/* ---- fixed-size tables: COUNTS and INDEX ------------------------------ */

/* Both start with "u32 nr, u32 reserved" followed by nr entries of `size`. */
static int table_check(const uint8_t *p, size_t len, size_t size, const char *what,
		       uint32_t *nr, struct err *err)
{
	struct cursor c = cur_make(p, len);
	uint32_t reserved;

	if (!cur_le32(&c, nr) || !cur_le32(&c, &reserved))
		return err_set(err, -PREC_ECORRUPT, "%s block: header does not fit", what);
	if (reserved)
		return err_set(err, -PREC_ECORRUPT, "%s block: reserved field is %u", what, reserved);
	if (cur_left(&c) != (uint64_t)*nr * size)
		return err_set(err, -PREC_ECORRUPT,
			       "%s block: %u entries of %zu bytes do not match %zu payload bytes",
			       what, *nr, size, len);
	return 0;
}

/* Check a table payload and allocate room for its entries (at least one, so
 * that an empty table is not a NULL result); leaves c after the header. */
static int table_open(const uint8_t *p, size_t len, size_t size, const char *what,
		      size_t elem_size, struct cursor *c, uint32_t *nr, void **out,
		      struct err *err)
{
	int ret = table_check(p, len, size, what, nr, err);

	*out = NULL;
	if (ret)
		return ret;
	*out = calloc(*nr ? *nr : 1, elem_size);
	if (!*out)
		return err_set(err, -ENOMEM, "%s block: out of memory", what);
	*c = cur_make(p, len);
	cur_skip(c, 8);
	return 0;
}

#define COUNT_SIZE 48
#define INDEX_ENTRY_SIZE 32

int counts_encode(const struct count_reading *r, size_t n, struct buf *out)
{
	int ret;

	if (n > UINT32_MAX)
		return -EINVAL;
	ret = buf_put_u32(out, (uint32_t)n);
	ret = ret ? ret : buf_put_u32(out, 0);
	for (size_t i = 0; i < n && !ret; i++) {
		ret = buf_put_u32(out, r[i].event);
		ret = ret ? ret : buf_put_u32(out, (uint32_t)r[i].cpu);
		ret = ret ? ret : buf_put_u32(out, (uint32_t)r[i].tid);
		ret = ret ? ret : buf_put_u32(out, r[i].flags);
		ret = ret ? ret : buf_put_u64(out, r[i].time_ns);
		ret = ret ? ret : buf_put_u64(out, r[i].value);
		ret = ret ? ret : buf_put_u64(out, r[i].time_enabled);
		ret = ret ? ret : buf_put_u64(out, r[i].time_running);
	}
	return ret;
}

int counts_decode(const uint8_t *p, size_t len, struct count_reading **out, size_t *n,
		  struct err *err)
{
	struct cursor c;
	uint32_t nr;
	int ret = table_open(p, len, COUNT_SIZE, "COUNTS", sizeof(**out), &c, &nr,
			     (void **)out, err);

	*n = 0;
	if (ret)
		return ret;
	for (uint32_t i = 0; i < nr; i++) {
		struct count_reading *r = &(*out)[i];
		uint32_t cpu = 0, tid = 0;

		cur_le32(&c, &r->event);
		cur_le32(&c, &cpu);
		cur_le32(&c, &tid);
		cur_le32(&c, &r->flags);
		cur_le64(&c, &r->time_ns);
		cur_le64(&c, &r->value);
		cur_le64(&c, &r->time_enabled);
		cur_le64(&c, &r->time_running);
		r->cpu = (int32_t)cpu;
		r->tid = (int32_t)tid;
	}
	*n = nr;
	return 0;
}

int index_encode(const struct index_entry *e, size_t n, struct buf *out)
{
	int ret;

	if (n > UINT32_MAX)
		return -EINVAL;
	ret = buf_put_u32(out, (uint32_t)n);
	ret = ret ? ret : buf_put_u32(out, 0);
	for (size_t i = 0; i < n && !ret; i++) {
		ret = buf_put_u64(out, e[i].offset);
		ret = ret ? ret : buf_put_u16(out, e[i].type);
		ret = ret ? ret : buf_put_u16(out, 0);
		ret = ret ? ret : buf_put_u32(out, e[i].seq);
		ret = ret ? ret : buf_put_u64(out, e[i].time_min);
		ret = ret ? ret : buf_put_u64(out, e[i].time_max);
	}
	return ret;
}

int index_decode(const uint8_t *p, size_t len, struct index_entry **out, size_t *n,
		 struct err *err)
{
	struct cursor c;
	uint32_t nr;
	int ret = table_open(p, len, INDEX_ENTRY_SIZE, "INDEX", sizeof(**out), &c, &nr,
			     (void **)out, err);

	*n = 0;
	if (ret)
		return ret;
	for (uint32_t i = 0; i < nr; i++) {
		struct index_entry *e = &(*out)[i];
		uint16_t reserved = 0;

		cur_le64(&c, &e->offset);
		cur_le16(&c, &e->type);
		cur_le16(&c, &reserved);
		cur_le32(&c, &e->seq);
		cur_le64(&c, &e->time_min);
		cur_le64(&c, &e->time_max);
		if (reserved) {
			free(*out);
			*out = NULL;
			return err_set(err, -PREC_ECORRUPT, "INDEX block: entry %u: reserved field is %u",
				       i, reserved);
		}
	}
	*n = nr;
	return 0;
}

/* ---- KALLSYMS ------------------------------------------------------- */

static int kallsyms_line(const uint8_t *p, size_t n, struct kallsym *s)
{
	size_t i = 0, d = 0;

	s->addr = 0;
	for (; i < n && hex_digit(p[i]) >= 0; i++, d++)
		s->addr = s->addr << 4 | (uint64_t)hex_digit(p[i]);
	if (d < 1 || d > 16 || i + 3 > n || p[i] != ' ' || p[i + 1] <= ' ' || p[i + 1] > '~' ||
	    p[i + 2] != ' ')
		return -1;
	s->type = (char)p[i + 1];
	i += 3;
	s->name = (const char *)p + i;
	while (i < n && p[i] > ' ' && p[i] <= '~')
		i++;
	s->name_len = (size_t)((const char *)p + i - s->name);
	s->module = NULL;
	s->module_len = 0;
	if (!s->name_len)
		return -1;
	if (i == n)
		return 0;
	/* "\t[module]" */
	if (p[i] != '\t' || n - i < 4 || p[i + 1] != '[' || p[n - 1] != ']')
		return -1;
	s->module = (const char *)p + i + 2;
	s->module_len = n - i - 3;
	for (size_t k = i + 2; k < n - 1; k++)
		if (p[k] <= ' ' || p[k] > '~' || p[k] == ']')
			return -1;
	return 0;
}

int kallsyms_walk(const uint8_t *p, size_t len,
		  int (*fn)(void *ctx, const struct kallsym *s), void *ctx, size_t *nr,
		  struct err *err)
{
	size_t off = 0, line = 0;
	struct kallsym s;
	int ret;

	*nr = 0;
	if (len && p[len - 1] != '\n')
		return err_set(err, -PREC_ECORRUPT, "KALLSYMS block: last line has no newline");
	while (off < len) {
		const uint8_t *nl = memchr(p + off, '\n', len - off);
		size_t n = (size_t)(nl - (p + off));

		line++;
		if (kallsyms_line(p + off, n, &s))
			return err_set(err, -PREC_ECORRUPT, "KALLSYMS block: line %zu is not "
				       "'ADDRESS TYPE NAME [MODULE]'", line);
		if (fn && (ret = fn(ctx, &s)))
			return ret;
		off += n + 1;
	}
	*nr = line;
	return 0;
}

/* ---- validation dispatch --------------------------------------------- */

static int validate_event(const uint8_t *p, size_t len, struct err *err)
{
	struct cursor c = cur_make(p, len);
	uint32_t a, n, i;

	return event_block_check(&c, &a, &n, &i, err);
}

static int validate_metadata(const uint8_t *p, size_t len, struct err *err)
{
	return metadata_decode(NULL, p, len, err);
}

static int validate_build_ids(const uint8_t *p, size_t len, struct err *err)
{
	size_t n;

	return build_ids_walk(p, len, NULL, &n, err);
}

static int validate_counts(const uint8_t *p, size_t len, struct err *err)
{
	uint32_t nr;

	return table_check(p, len, COUNT_SIZE, "COUNTS", &nr, err);
}

static int validate_index(const uint8_t *p, size_t len, struct err *err)
{
	struct index_entry *e;
	size_t n;
	int ret = index_decode(p, len, &e, &n, err);

	free(e);
	return ret;
}

static int validate_kallsyms(const uint8_t *p, size_t len, struct err *err)
{
	size_t n;

	return kallsyms_walk(p, len, NULL, NULL, &n, err);
}

static int validate_symbols(const uint8_t *p, size_t len, struct err *err)
{
	struct embed_dso *d;
	int ret = embed_decode(p, len, &d, err);

	embed_free(d);
	return ret;
}

static int validate_addr_counts(const uint8_t *p, size_t len, struct err *err)
{
	struct addrcounts *c;
	int ret = addrcounts_decode(p, len, &c, err);

	addrcounts_free(c);
	return ret;
}

static int validate_sample_sums(const uint8_t *p, size_t len, struct err *err)
{
	struct samplesums ss;
	int ret = samplesums_decode(p, len, &ss, err);

	samplesums_free(&ss);
	return ret;
}

static int validate_source(const uint8_t *p, size_t len, struct err *err)
{
	struct source_block *b;
	int ret = source_decode(p, len, &b, err);

	source_free(b);
	return ret;
}

/* 7.2: END carries nothing */
static int validate_end(const uint8_t *p, size_t len, struct err *err)
{
	(void)p;
	return len ? err_set(err, -PREC_ECORRUPT, "END block with a %zu byte payload", len) : 0;
}

static int (*const validators[BLOCK_TYPE_MAX])(const uint8_t *, size_t, struct err *) = {
	[BLOCK_METADATA] = validate_metadata,
	[BLOCK_EVENT] = validate_event,
	[BLOCK_DATA] = data_block_validate,
	[BLOCK_BUILD_IDS] = validate_build_ids,
	[BLOCK_COUNTS] = validate_counts,
	[BLOCK_INDEX] = validate_index,
	[BLOCK_KALLSYMS] = validate_kallsyms,
	[BLOCK_SYMBOLS] = validate_symbols,
	[BLOCK_END] = validate_end,
	[BLOCK_SOURCE] = validate_source,
	[BLOCK_ADDR_COUNTS] = validate_addr_counts,
	[BLOCK_SAMPLE_SUMS] = validate_sample_sums,
};

int block_payload_validate(unsigned type, const uint8_t *p, size_t len, struct err *err)
{
	if (type >= BLOCK_TYPE_MAX || !validators[type])
		return 0;
	return validators[type](p, len, err);
}
