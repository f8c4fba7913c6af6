/* SPDX-License-Identifier: MIT */
/*
 * Prints a prec.data file in the canonical text form that
 * tests/minireader/minireader.c also prints, using the real reader and block
 * decoders. The tests diff the two outputs: a mismatch means the spec and one
 * of the readers disagree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "format/blocks.h"
#include "format/container.h"
#include "format/embed.h"
#include "format/record.h"
#include "format/source.h"
#include "format/addrcounts.h"
#include "format/samplesums.h"

struct counts {
	unsigned long blocks, corrupt, skipped;
};

static void quoted(const uint8_t *p, size_t n)
{
	putchar('"');
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\\' || p[i] == '"')
			printf("\\%c", p[i]);
		else if (p[i] < 0x20 || p[i] >= 0x7f)
			printf("\\x%02x", p[i]);
		else
			putchar(p[i]);
	}
	putchar('"');
}

static void hex(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
}

static void on_problem(void *ctx, const struct container_problem *p)
{
	static const char *const skip[] = {
		[SKIP_UNKNOWN_CODEC] = "unknown-codec",
		[SKIP_TRANSFORMED] = "transformed",
		[SKIP_UNKNOWN_FLAGS] = "unknown-flags",
		[SKIP_UNKNOWN_TYPE] = "unknown-type",
		[SKIP_COLUMNS] = "columns",
	};
	struct counts *n = ctx;
	unsigned long long off = p->offset, bytes = p->bytes;

	switch (p->kind) {
	case PROBLEM_CORRUPT_HEADER:
		printf("corrupt off=%llu what=header\n", off);
		n->corrupt++;
		break;
	case PROBLEM_RESYNC:
		printf("resync off=%llu skipped=%llu\n", off, bytes);
		break;
	case PROBLEM_CORRUPT_PAYLOAD:
		printf("corrupt off=%llu what=payload\n", off);
		n->corrupt++;
		break;
	case PROBLEM_CORRUPT_STRUCTURE:
		printf("corrupt off=%llu what=structure\n", off);
		n->corrupt++;
		break;
	case PROBLEM_SKIPPED:
		printf("skip off=%llu reason=%s\n", off, skip[p->reason]);
		n->skipped++;
		break;
	case PROBLEM_TRUNCATED:
		printf("truncated off=%llu ignored=%llu\n", off, bytes);
		break;
	case PROBLEM_UNFINISHED:
	case PROBLEM_BAD_INDEX:
	case PROBLEM_SEQ_GAP:
		break;
	}
}

static void dump_meta(const struct container_block *b)
{
	struct cursor c = cur_make(b->data, b->len);
	struct meta_entry e;

	while (meta_next(&c, &e, NULL) == 1) {
		printf("  meta tag=%u kind=%u len=%u value=", e.tag, e.kind, e.len);
		if (e.kind == META_U64) {
			uint64_t v = 0;

			for (int i = 0; i < 8; i++)
				v |= (uint64_t)e.value[i] << (8 * i);
			printf("%llu", (unsigned long long)v);
		} else if (e.kind == META_STRING) {
			quoted(e.value, e.len);
		} else if (e.kind == META_STRLIST) {
			for (uint32_t i = 0, start = 0; i < e.len; i++) {
				if (e.value[i])
					continue;
				if (start)
					putchar(' ');
				quoted(e.value + start, i - start);
				start = i + 1;
			}
		} else {
			hex(e.value, e.len);
		}
		putchar('\n');
	}
}

static void dump_event(const struct container_block *b)
{
	struct event_desc ev;

	if (event_block_decode(b->data, b->len, &ev, NULL))
		return;
	printf("  event attr_size=%u name=", ev.attr_size);
	quoted((const uint8_t *)ev.name, strlen(ev.name));
	printf(" ids=%zu attr_crc=%08lx\n", ev.nr_ids, crc32(0, ev.attr_bytes, ev.attr_size));
	for (size_t i = 0; i < ev.nr_ids; i++)
		printf("    id %llu cpu=%d tid=%d\n", (unsigned long long)ev.ids[i].id,
		       ev.ids[i].cpu, ev.ids[i].tid);
	event_desc_free(&ev);
}

static void dump_data(const struct container_block *b)
{
	struct data_iter it;
	struct data_span s;

	if (data_iter_init(&it, b->data, b->len, NULL))
		return;
	printf("  data tmin=%llu tmax=%llu records=%u spans=%u\n",
	       (unsigned long long)it.h.time_min, (unsigned long long)it.h.time_max,
	       it.h.nr_records, it.h.nr_spans);
	while (data_iter_next(&it, &s, NULL) == 1) {
		size_t off = 0, len;

		printf("    span cpu=%u kind=%u len=%llu\n", s.cpu, s.kind, (unsigned long long)s.len);
		while (record_next(s.records, s.len, off, &len, NULL) == 1) {
			struct perf_event_header h;

			memcpy(&h, s.records + off, sizeof(h));
			printf("      rec type=%u misc=%u size=%u crc=%08lx\n", h.type, h.misc, h.size,
			       crc32(0, s.records + off, (uInt)len));
			off += len;
		}
	}
}

static void dump_build_ids(const struct container_block *b)
{
	struct build_id_entry *e;
	size_t n;

	if (build_ids_decode(b->data, b->len, &e, &n, NULL))
		return;
	for (size_t i = 0; i < n; i++) {
		printf("  buildid size=%u flags=%u id=", e[i].size, e[i].flags);
		hex(e[i].id, e[i].size);
		printf(" path=");
		quoted((const uint8_t *)e[i].path, strlen(e[i].path));
		putchar('\n');
	}
	build_ids_free(e, n);
}

static int dump_ksym(void *ctx, const struct kallsym *s)
{
	(void)ctx;
	printf("  ksym addr=%llx type=%c name=", (unsigned long long)s->addr, s->type);
	quoted((const uint8_t *)s->name, s->name_len);
	printf(" module=");
	quoted((const uint8_t *)s->module, s->module_len);
	putchar('\n');
	return 0;
}

static void dump_kallsyms(const struct container_block *b)
{
	size_t n;

	kallsyms_walk(b->data, b->len, dump_ksym, NULL, &n, NULL);
}

static void dump_counts(const struct container_block *b)
{
	struct count_reading *r;
	size_t n;

	if (counts_decode(b->data, b->len, &r, &n, NULL))
		return;
	printf("  counts readings=%zu\n", n);
	for (size_t i = 0; i < n; i++)
		printf("    reading event=%u cpu=%d tid=%d flags=%u time=%llu value=%llu enabled=%llu running=%llu\n",
		       r[i].event, r[i].cpu, r[i].tid, r[i].flags, (unsigned long long)r[i].time_ns,
		       (unsigned long long)r[i].value, (unsigned long long)r[i].time_enabled,
		       (unsigned long long)r[i].time_running);
	free(r);
}

static void dump_index(const struct container_block *b)
{
	struct index_entry *e;
	size_t n;

	if (index_decode(b->data, b->len, &e, &n, NULL))
		return;
	printf("  index entries=%zu\n", n);
	for (size_t i = 0; i < n; i++)
		printf("    entry off=%llu type=%u seq=%u tmin=%llu tmax=%llu\n",
		       (unsigned long long)e[i].offset, e[i].type, e[i].seq,
		       (unsigned long long)e[i].time_min, (unsigned long long)e[i].time_max);
	free(e);
}

static void str_or_none(const struct embed_dso *d, uint32_t off)
{
	const char *s = embed_str(d, off);

	if (s)
		quoted((const uint8_t *)s, strlen(s));
	else
		putchar('-');
}

static void dump_symbols(const struct container_block *b)
{
	struct embed_dso *d;

	if (embed_decode(b->data, b->len, &d, NULL))
		return;
	printf("  symbols build_id=");
	hex(d->build_id, d->build_id_size);
	printf(" path=");
	str_or_none(d, d->path);
	printf(" eh_frame_hdr=%llx fde_count=%llu segs=%u syms=%u addrs=%u frames=%u ranges=%u"
	       " strings=%u bytes=%u strings_crc=%08lx bytes_crc=%08lx\n",
	       (unsigned long long)d->eh_frame_hdr, (unsigned long long)d->fde_count, d->nr_segs,
	       d->nr_syms, d->nr_addrs, d->nr_frames, d->nr_ranges, d->strings_len, d->bytes_len,
	       crc32(0, (const Bytef *)d->strings, d->strings_len),
	       crc32(0, d->bytes, d->bytes_len));
	for (uint32_t i = 0; i < d->nr_segs; i++)
		printf("    seg offset=%llx vaddr=%llx filesz=%llx memsz=%llx flags=%u\n",
		       (unsigned long long)d->segs[i].offset, (unsigned long long)d->segs[i].vaddr,
		       (unsigned long long)d->segs[i].filesz, (unsigned long long)d->segs[i].memsz,
		       d->segs[i].flags);
	for (uint32_t i = 0; i < d->nr_syms; i++) {
		printf("    sym start=%llx size=%llx name=", (unsigned long long)d->syms[i].start,
		       (unsigned long long)d->syms[i].size);
		str_or_none(d, d->syms[i].name);
		putchar('\n');
	}
	for (uint32_t i = 0; i < d->nr_addrs; i++)
		printf("    addr vaddr=%llx first=%u nr=%u\n", (unsigned long long)d->addrs[i].vaddr,
		       d->addrs[i].first, d->addrs[i].nr);
	for (uint32_t i = 0; i < d->nr_frames; i++) {
		printf("    frame function=");
		str_or_none(d, d->frames[i].function);
		printf(" file=");
		str_or_none(d, d->frames[i].file);
		printf(" line=%u\n", d->frames[i].line);
	}
	for (uint32_t i = 0; i < d->nr_ranges; i++)
		printf("    range vaddr=%llx len=%u data=%u crc=%08lx\n",
		       (unsigned long long)d->ranges[i].vaddr, d->ranges[i].len, d->ranges[i].data,
		       crc32(0, d->bytes + d->ranges[i].data, d->ranges[i].len));
	embed_free(d);
}

static void dump_source(const struct container_block *b)
{
	struct source_block *s;

	if (source_decode(b->data, b->len, &s, NULL))
		return;
	printf("  source files=%u lines=%u strings=%u\n", s->nr_files, s->nr_lines,
	       s->strings_len);
	for (uint32_t i = 0; i < s->nr_files; i++) {
		const struct source_file *f = &s->files[i];
		size_t plen = strlen(s->strings + f->path);

		printf("    file first=%u nr=%u path_len=%zu path_crc=%08lx\n", f->first, f->nr, plen,
		       crc32(0, (const Bytef *)s->strings + f->path, (uInt)plen));
		for (uint32_t j = f->first; j < f->first + f->nr; j++) {
			const char *t = s->strings + s->lines[j].text;
			size_t tlen = strlen(t);

			printf("    line line=%u len=%zu crc=%08lx\n", s->lines[j].line, tlen,
			       crc32(0, (const Bytef *)t, (uInt)tlen));
		}
	}
	source_free(s);
}

static void dump_addr_counts(const struct container_block *b)
{
	struct addrcounts *c;

	if (addrcounts_decode(b->data, b->len, &c, NULL))
		return;
	printf("  addr_counts covered_end=%llu covered_crc=%08x dsos=%u events=%u entries=%u "
	       "strings=%u\n", (unsigned long long)c->covered_end, c->covered_crc, c->nr_dsos,
	       c->nr_events, c->nr_entries, c->strings_len);
	for (uint32_t i = 0; i < c->nr_dsos; i++) {
		const char *path = c->strings + c->dsos[i].path;

		printf("    dso path_len=%zu path_crc=%08lx id=", strlen(path),
		       crc32(0, (const Bytef *)path, (uInt)strlen(path)));
		for (uint32_t k = 0; k < c->dsos[i].build_id_size; k++)
			printf("%02x", c->dsos[i].build_id[k]);
		printf("\n");
	}
	for (uint32_t i = 0; i < c->nr_events; i++)
		printf("    event samples=%llu period=%llu\n", (unsigned long long)c->events[i].samples,
		       (unsigned long long)c->events[i].period);
	for (uint32_t i = 0; i < c->nr_entries; i++) {
		const struct addrcounts_entry *e = &c->entries[i];

		printf("    entry addr=%llx samples=%llu period=%llu dso=", (unsigned long long)e->addr,
		       (unsigned long long)e->samples, (unsigned long long)e->period);
		if (e->dso == ADDRCOUNTS_NONE)
			printf("-");
		else
			printf("%u", e->dso);
		printf(" event=%u flags=%u\n", e->event, e->flags);
	}
	addrcounts_free(c);
}

static void dump_sample_sums(const struct container_block *b)
{
	struct samplesums ss;

	if (samplesums_decode(b->data, b->len, &ss, NULL))
		return;
	printf("  sample_sums covered_end=%llu covered_crc=%08x events=%u samples=%llu tmin=%llu "
	       "tmax=%llu items=%zu\n", (unsigned long long)ss.covered_end, ss.covered_crc,
	       ss.nr_events, (unsigned long long)ss.samples, (unsigned long long)ss.tmin,
	       (unsigned long long)ss.tmax, ss.nr_items);
	for (size_t i = 0; i < ss.nr_items; i++) {
		const struct samplesums_item *it = &ss.items[i];

		printf("    item sum=%d count=%llu period=%llu len=%u crc=%08lx\n", it->sum,
		       (unsigned long long)it->count, (unsigned long long)it->period, it->len,
		       crc32(0, it->rec, it->len));
	}
	samplesums_free(&ss);
}

static void dump_end(const struct container_block *b)
{
	(void)b;
}

int main(int argc, char **argv)
{
	static void (*const dumpers[BLOCK_TYPE_MAX])(const struct container_block *) = {
		[BLOCK_METADATA] = dump_meta,
		[BLOCK_EVENT] = dump_event,
		[BLOCK_DATA] = dump_data,
		[BLOCK_BUILD_IDS] = dump_build_ids,
		[BLOCK_COUNTS] = dump_counts,
		[BLOCK_INDEX] = dump_index,
		[BLOCK_KALLSYMS] = dump_kallsyms,
		[BLOCK_SYMBOLS] = dump_symbols,
		[BLOCK_END] = dump_end,
		[BLOCK_SOURCE] = dump_source,
		[BLOCK_ADDR_COUNTS] = dump_addr_counts,
		[BLOCK_SAMPLE_SUMS] = dump_sample_sums,
	};
	struct counts n = { 0, 0, 0 };
	struct container_reader_opts opts = { .warn = on_problem, .ctx = &n };
	const struct container_header *h;
	struct container_reader *r;
	struct container_block b;
	struct err err = { 0 };

	if (argc != 2) {
		fprintf(stderr, "usage: canondump FILE\n");
		return 2;
	}
	/* The header line comes first, but problems are reported while opening
	 * (none that print) and while walking: open, print, walk. */
	if (container_reader_open(&r, argv[1], NULL, &err)) {
		fprintf(stderr, "error: %s\n", err.msg);
		return 1;
	}
	h = container_reader_header(r);
	printf("file version=%u.%u kind=%u order=%u index=%llu\n", h->version_major,
	       h->version_minor, h->kind, h->byte_order, (unsigned long long)h->index_offset);
	if (h->flags & CONTAINER_FLAG_STREAM)
		printf("stream\n");
	/* a stream: no END block at its end (FORMAT.md 7.2) */
	if ((h->flags & CONTAINER_FLAG_STREAM) ? !container_reader_stats(r)->finished :
	    !h->index_offset)
		printf("unfinished\n");
	container_reader_close(r);
	if (container_reader_open(&r, argv[1], &opts, &err)) {
		fprintf(stderr, "error: %s\n", err.msg);
		return 1;
	}
	while (container_reader_next(r, &b, &err) == 1) {
		printf("block off=%llu seq=%u type=%u codec=%u flags=%u raw=%zu\n",
		       (unsigned long long)b.offset, b.seq, b.type, b.codec, b.flags, b.len);
		dumpers[b.type](&b);
		n.blocks++;
	}
	container_reader_close(r);
	printf("end blocks=%lu corrupt=%lu skipped=%lu\n", n.blocks, n.corrupt, n.skipped);
	return 0;
}
