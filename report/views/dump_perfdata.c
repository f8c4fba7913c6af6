/* SPDX-License-Identifier: MIT */
/*
 * prep dump of a perf.data file: the header, each event with its attr and
 * ids, each feature section decoded (or its size), then every record of the
 * data section in file order, perf's own records named and their fields
 * shown, COMPRESSED records followed by the records they hold. Problems go
 * to the log as warnings; the last line counts what was read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/core/input.h"
#include "common/cursor.h"
#include "common/log.h"
#include "format/perfdata.h"
#include "dump.h"
#include "dump_int.h"

static void on_problem(void *ctx, const struct perfdata_problem *p)
{
	const struct dump *d = ctx;

	log_msg(LOG_WARNING, "%s: %s", d->path, p->msg);
}

static void put_string(FILE *f, const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			fprintf(f, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, f);
}

/* "name" strings of a feature: a string (list) read with perfdata_string */
static bool dump_strings(FILE *f, struct cursor *c, uint32_t nr, const char *sep)
{
	for (uint32_t i = 0; i < nr; i++) {
		char *s;

		if (perfdata_string(c, &s))
			return false;
		fputs(i ? sep : "", f);
		put_string(f, s);
		free(s);
	}
	return true;
}

static bool dump_string_list(FILE *f, struct cursor *c, const char *label)
{
	uint32_t nr;

	if (!cur_h32(c, &nr) || nr > cur_left(c) / 4)
		return false;
	fprintf(f, "    %s:", label);
	for (uint32_t i = 0; i < nr; i++) {
		fputc(' ', f);
		if (!dump_strings(f, c, 1, ""))
			return false;
	}
	fputc('\n', f);
	return true;
}

/* The features with a layout worth showing; false when it does not decode. */
static bool dump_feature_body(FILE *f, unsigned feat, const uint8_t *p, size_t len)
{
	struct cursor c = cur_make(p, len);
	uint32_t a, b;
	uint64_t x, y;

	switch (feat) {
	case PERFDATA_FEAT_HOSTNAME: case PERFDATA_FEAT_OSRELEASE: case PERFDATA_FEAT_VERSION:
	case PERFDATA_FEAT_ARCH: case PERFDATA_FEAT_CPUDESC: case PERFDATA_FEAT_CPUID:
		fputs("    ", f);
		if (!dump_strings(f, &c, 1, ""))
			return false;
		fputc('\n', f);
		return true;
	case PERFDATA_FEAT_CMDLINE:
		if (!cur_h32(&c, &a) || a > cur_left(&c) / 4)
			return false;
		fputs("    ", f);
		if (!dump_strings(f, &c, a, " "))
			return false;
		fputc('\n', f);
		return true;
	case PERFDATA_FEAT_NRCPUS:
		if (!cur_h32(&c, &a) || !cur_h32(&c, &b))
			return false;
		fprintf(f, "    %u available, %u online\n", a, b);
		return true;
	case PERFDATA_FEAT_TOTAL_MEM:
		if (!cur_h64(&c, &x))
			return false;
		fprintf(f, "    %" PRIu64 " kB\n", x);
		return true;
	case PERFDATA_FEAT_SAMPLE_TIME:
		if (!cur_h64(&c, &x) || !cur_h64(&c, &y))
			return false;
		fprintf(f, "    first sample %" PRIu64 ", last sample %" PRIu64 "\n", x, y);
		return true;
	case PERFDATA_FEAT_CPU_TOPOLOGY:
		return dump_string_list(f, &c, "sibling sockets") &&
		       dump_string_list(f, &c, "sibling threads");
	case PERFDATA_FEAT_PMU_MAPPINGS:
		if (!cur_h32(&c, &a) || a > cur_left(&c) / 8)
			return false;
		for (uint32_t i = 0; i < a; i++) {
			if (!cur_h32(&c, &b))
				return false;
			fprintf(f, "    %u = ", b);
			if (!dump_strings(f, &c, 1, ""))
				return false;
			fputc('\n', f);
		}
		return true;
	case PERFDATA_FEAT_EVENT_DESC:
		if (!cur_h32(&c, &a) || !cur_h32(&c, &b) || b > len)
			return false;
		for (uint32_t i = 0; i < a; i++) {
			uint32_t nr_ids;

			if (!cur_skip(&c, b) || !cur_h32(&c, &nr_ids))
				return false;
			fprintf(f, "    event %u: '", i);
			if (!dump_strings(f, &c, 1, "") || !cur_h64_array(&c, nr_ids))
				return false;
			fprintf(f, "', %u ids\n", nr_ids);
		}
		return true;
	}
	return false;
}

static void dump_features(struct dump *d, struct perfdata *pd)
{
	const struct perfdata_info *in = perfdata_info(pd);
	const struct build_id_entry *bids;
	size_t nr_bids;

	for (unsigned feat = 1; feat < PERFDATA_FEAT_MAX; feat++) {
		const uint8_t *p;
		size_t len;
		const char *name = perfdata_feature_name(feat);

		if (!perfdata_feature(pd, feat, &p, &len))
			continue;
		if (name)
			fprintf(d->out, "feature %s, %zu bytes\n", name, len);
		else
			fprintf(d->out, "feature %u, %zu bytes\n", feat, len);
		if (feat == PERFDATA_FEAT_BUILD_ID) {
			bids = perfdata_build_ids(pd, &nr_bids);
			for (size_t i = 0; i < nr_bids; i++) {
				fprintf(d->out, "    ");
				for (unsigned k = 0; k < bids[i].size; k++)
					fprintf(d->out, "%02x", bids[i].id[k]);
				fprintf(d->out, " %s%s\n", bids[i].path,
					bids[i].flags & BUILD_ID_FLAG_KERNEL ? " [kernel]" : "");
			}
		} else if (feat == PERFDATA_FEAT_COMPRESSED && in->has_compressed) {
			fprintf(d->out, "    %s, level %u, ratio %u, mmap %u bytes\n",
				in->comp_type == 1 ? "zstd" : "unknown codec", in->comp_level,
				in->comp_ratio, in->comp_mmap_len);
		} else if (feat == PERFDATA_FEAT_CLOCK_DATA && in->has_clock_data) {
			fprintf(d->out, "    clockid %u, wall clock %" PRIu64 " ns at %" PRIu64 " ns\n",
				in->clockid, in->clock_wall_ns, in->clock_clockid_ns);
		} else if (!dump_feature_body(d->out, feat, p, len) && feat != PERFDATA_FEAT_STAT &&
			   feat >= PERFDATA_FEAT_HOSTNAME && feat <= PERFDATA_FEAT_PMU_MAPPINGS &&
			   feat != PERFDATA_FEAT_NUMA_TOPOLOGY && feat != PERFDATA_FEAT_BRANCH_STACK) {
			fprintf(d->out, "    (does not decode)\n");
		}
	}
}

static void dump_events(struct dump *d, struct perfdata *pd)
{
	size_t n;
	const struct event_desc *ev = perfdata_events(pd, &n);

	for (size_t i = 0; i < n; i++) {
		struct event_layout l;
		uint64_t *ids = calloc(ev[i].nr_ids + 1, sizeof(*ids));
		struct err err = { 0 };

		fprintf(d->out, "event %zu: '%s', %zu ids\n", i, ev[i].name, ev[i].nr_ids);
		dump__attr(d->out, &ev[i]);
		for (size_t k = 0; k < ev[i].nr_ids; k++) {
			fprintf(d->out, "    id %" PRIu64 " cpu %d tid %d\n", ev[i].ids[k].id,
				ev[i].ids[k].cpu, ev[i].ids[k].tid);
			if (ids)
				ids[k] = ev[i].ids[k].id;
		}
		event_layout_from_attr(&l, ev[i].attr_bytes, ev[i].attr_size);
		if (!ids || record_layouts_add(d->layouts, &l, ids, ev[i].nr_ids, &err) < 0)
			log_msg(LOG_WARNING, "%s: event %zu: %s", d->path, i,
				ids ? err.msg : "out of memory");
		free(ids);
	}
	d->nr_events = n;
}

/* The fields of perf's own records that say something. */
static void user_body(FILE *f, uint32_t type, const uint8_t *p, size_t len)
{
	struct cursor c = cur_make(p + 8, len - 8);
	uint64_t a = 0, b = 0, v = 0;
	uint32_t x = 0, y = 0;

	switch (type) {
	case PERFDATA_ID_INDEX: case PERFDATA_THREAD_MAP: case PERFDATA_STAT_CONFIG:
		if (cur_h64(&c, &a))
			fprintf(f, " nr %" PRIu64, a);
		break;
	case PERFDATA_EVENT_UPDATE:
		if (cur_h64(&c, &a) && cur_h64(&c, &b))
			fprintf(f, " %s of id %" PRIu64, a == 0 ? "unit" : a == 1 ? "scale" :
				a == 2 ? "name" : a == 3 ? "cpus" : "type ?", b);
		break;
	case PERFDATA_STAT:
		if (cur_h64(&c, &a) && cur_h32(&c, &x) && cur_h32(&c, &y) && cur_h64(&c, &v))
			fprintf(f, " id %" PRIu64 " cpu %d thread %d value %" PRIu64, a, (int32_t)x,
				(int32_t)y, v);
		break;
	case PERFDATA_STAT_ROUND:
		if (cur_h64(&c, &a) && cur_h64(&c, &b))
			fprintf(f, " %s, time %" PRIu64, a ? "final" : "interval", b);
		break;
	case PERFDATA_TIME_CONV:
		if (cur_h64(&c, &a) && cur_h64(&c, &b) && cur_h64(&c, &v))
			fprintf(f, " shift %" PRIu64 " mult %" PRIu64 " zero %" PRIu64, a, b, v);
		break;
	case PERFDATA_HEADER_FEATURE:
		if (cur_h64(&c, &a))
			fprintf(f, " %s, %zu bytes", perfdata_feature_name((unsigned)a) ?
				perfdata_feature_name((unsigned)a) : "?", cur_left(&c));
		break;
	case PERFDATA_HEADER_ATTR:
		if (cur_skip(&c, 4) && cur_h32(&c, &x))
			fprintf(f, " attr of %u bytes", x ? x : 64);
		break;
	case PERFDATA_AUXTRACE:
		if (cur_h64(&c, &a))
			fprintf(f, " %" PRIu64 " bytes of trace follow", a);
		break;
	case PERFDATA_HEADER_TRACING_DATA:
		if (cur_h32(&c, &x))
			fprintf(f, " %u bytes of tracing data follow", x);
		break;
	}
}

static void dump_chunk(struct dump *d, const struct perfdata_chunk *ch)
{
	if (ch->kind == PERFDATA_CHUNK_USER) {
		const char *name = perfdata_type_name(ch->type);

		if (ch->compressed)
			fprintf(d->out, "    (from the COMPRESSED record at @%" PRIu64 ") size %zu ",
				ch->offset, ch->len);
		else
			fprintf(d->out, "@%" PRIu64 " size %zu ", ch->offset, ch->len);
		if (name)
			fprintf(d->out, "%s", name);
		else
			fprintf(d->out, "type %u", ch->type);
		user_body(d->out, ch->type, ch->p, ch->len);
		fputc('\n', d->out);
		return;
	}
	if (ch->compressed) {
		fprintf(d->out, "  %zu bytes of records from the COMPRESSED record at @%" PRIu64 ":\n",
			ch->len, ch->offset);
		d->indent = "    ";
		d->relative = true;
		dump__records(d, ch->p, ch->len, 0);
	} else {
		d->indent = "";
		d->relative = false;
		dump__records(d, ch->p, ch->len, ch->offset);
	}
}

int dump_perfdata(const char *path, FILE *out, struct err *err)
{
	struct dump d = { .out = out, .path = path };
	struct perfdata_opts o = { on_problem, &d };
	const struct perfdata_info *in;
	const struct perfdata_stats *st;
	struct perfdata_chunk ch;
	struct perfdata *pd;
	uint64_t user = 0;
	int ret;

	d.layouts = record_layouts_new();
	if (!d.layouts)
		return err_set(err, -ENOMEM, "out of memory");
	if (input_is_stdin(path)) {
		const void *data;
		size_t len;

		ret = input_stdin(&data, &len, err);
		if (!ret)
			ret = perfdata_open_mem(&pd, data, len, &o, err);
	} else {
		ret = perfdata_open(&pd, path, &o, err);
	}
	if (ret) {
		record_layouts_free(d.layouts);
		return ret;
	}
	in = perfdata_info(pd);
	if (in->pipe) {
		fprintf(out, "# %s: perf.data, pipe mode, %" PRIu64 " bytes\n", path, in->file_size);
	} else {
		fprintf(out, "# %s: perf.data, %" PRIu64 " bytes\n", path, in->file_size);
		fprintf(out, "# header %" PRIu64 " bytes, attrs @%" PRIu64 " (%" PRIu64 " bytes of %"
			PRIu64 "-byte entries), data @%" PRIu64 " (%" PRIu64 " bytes%s), features @%"
			PRIu64 "\n", in->header_size, in->attrs_offset, in->attrs_size, in->attr_size,
			in->data_offset, in->data_size, in->unfinished ? ": unfinished" : "",
			in->feat_offset);
	}
	dump_events(&d, pd);
	dump_features(&d, pd);
	fprintf(out, "data:\n");
	while ((ret = perfdata_next(pd, &ch, err)) == 1)
		dump_chunk(&d, &ch);
	st = perfdata_stats(pd);
	user = st->unknown_user;
	for (size_t i = 0; i < PERFDATA_TYPE_END - 64; i++)
		user += st->by_type[i];
	fprintf(out, "# %" PRIu64 " records (%" PRIu64 " samples, %" PRIu64 " undecodable, %" PRIu64
		" of unknown types), %" PRIu64 " of perf's own (%" PRIu64 " rounds, %" PRIu64
		" compressed: %" PRIu64 " bytes to %" PRIu64 ", %" PRIu64 " not decompressed); %"
		PRIu64 " bytes not read%s\n", d.records, d.by_type[PERF_RECORD_SAMPLE], d.bad_records,
		d.unknown_records, user, st->by_type[PERFDATA_FINISHED_ROUND - 64],
		st->by_type[PERFDATA_COMPRESSED - 64] + st->by_type[PERFDATA_COMPRESSED2 - 64],
		st->compressed_bytes, st->decompressed_bytes, st->bad_compressed, st->bytes_ignored,
		in->unfinished ? "; recording did not finish" : "");
	perfdata_close(pd);
	record_layouts_free(d.layouts);
	return ret < 0 ? ret : 0;
}
