/* SPDX-License-Identifier: MIT */
/*
 * `prep archive`: a recording made self-contained (see archive.h). A
 * perf.data input is first written as a prec.data file, a file cut short
 * is repaired; the embedding itself is report/symbols/embed.h, which prec
 * also runs when a recording ends.
 */
#include "report/core/input.h"
#include "archive.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/opts.h"
#include "format/container.h"
#include "format/perfdata.h"
#include "report/core/load.h"
#include "report/core/session.h"
#include "report/symbols/embed_code.h"

/* ---- perf.data to prec.data ------------------------------------------ */

struct conv {
	struct container_writer *w;
	struct buf batch;               /* records in time order, written in spans */
	struct err *err;
};

static int conv_flush(struct conv *c)
{
	int ret;

	if (!c->batch.len)
		return 0;
	/* the records come out of the session in time order already: each
	 * batch is a pass of its own */
	ret = container_write_records(c->w, 0, c->batch.data, c->batch.len, NULL, 0, c->err);
	ret = ret ? ret : container_write_round(c->w, c->err);
	buf_reset(&c->batch);
	return ret;
}

static int conv_record(void *ctx, struct session *s, const struct record *rec)
{
	struct conv *c = ctx;

	(void)s;
	if (rec->type >= PERF_RECORD_MAX)
		return 0;       /* perf's own records (rounds, ids, ...) are perf.data's */
	if (buf_append(&c->batch, rec->bytes, rec->size))
		return err_set(c->err, -ENOMEM, "out of memory");
	return c->batch.len >= (256u << 10) ? conv_flush(c) : 0;
}

/* Write the events, metadata, records and build ids of a perf.data file
 * as a prec.data file at out. */
static int convert_perfdata(const char *in, const char *out, int level, bool quiet,
			    struct err *err)
{
	struct container_writer_opts wo = { .level = level };
	struct conv c = { .batch = BUF_INIT, .err = err };
	struct session s;
	struct buf b = BUF_INIT;
	int ret = session_open(&s, in, quiet, err);

	if (ret)
		return ret;
	ret = container_writer_open(&c.w, out, &wo, err);
	if (ret) {
		session_close(&s);
		return ret;
	}
	ret = metadata_encode(&s.meta, &b);
	ret = ret ? ret : container_write_block(c.w, BLOCK_METADATA, b.data, b.len, err);
	for (size_t i = 0; !ret && i < s.nr_events; i++) {
		const struct event_desc *e = &s.events[i];

		buf_reset(&b);
		ret = event_block_encode(e->attr_bytes, e->attr_size, e->name, e->ids, e->nr_ids, &b);
		ret = ret ? ret : container_write_block(c.w, BLOCK_EVENT, b.data, b.len, err);
	}
	ret = ret ? ret : session_read(&s, conv_record, &c, err);
	ret = ret ? ret : conv_flush(&c);
	if (!ret && s.nr_build_ids) {
		buf_reset(&b);
		ret = build_ids_encode(s.build_ids, s.nr_build_ids, &b);
		ret = ret ? ret : container_write_block(c.w, BLOCK_BUILD_IDS, b.data, b.len, err);
	}
	if (ret == -ENOMEM)
		err_set(err, ret, "out of memory");
	if (ret) {
		container_writer_abort(c.w);
		unlink(out);
	} else {
		ret = container_writer_close(c.w, err);
	}
	buf_free(&b);
	buf_free(&c.batch);
	session_close(&s);
	return ret;
}

/* -i -: only a perf.data stream can be completed from stdin (it becomes
 * the file o->output); a prec stream carries its symbols already. */
static int stdin_perf(struct err *err)
{
	const void *data;
	size_t len;
	int ret = input_stdin(&data, &len, err);

	if (!ret && !perfdata_magic(data, len))
		ret = err_set(err, -EINVAL, "-i -: a prec.data stream cannot be changed in place "
			      "(and prec embedded its symbols already); save it to a file first");
	return ret;
}

/* A samples file cut short, or a saved stream, gets its index first (a
 * counting file is refused below as it is). */
static int repair_if_cut(const char *path, int level, struct container_repair_stats *rs,
			 struct err *err)
{
	struct container_reader *r;
	struct container_header h;
	bool finished;
	int ret = container_reader_open(&r, path, NULL, err);

	if (ret)
		return ret;
	h = *container_reader_header(r);
	finished = container_reader_stats(r)->finished;
	container_reader_close(r);
	if (h.kind != CONTAINER_KIND_SAMPLES || (finished && !(h.flags & CONTAINER_FLAG_STREAM)))
		return 0;
	return container_repair(path, level, rs, err);
}

int archive_file(const char *path, const struct archive_opts *o, struct archive_stats *st,
		 struct err *err)
{
	struct embed_opts eo = { .symfs = o ? o->symfs : NULL, .quiet = o && o->quiet,
				 .level = o ? o->level : -1, .embed_source = o && o->embed_source };
	struct archive_stats dummy;
	int ret;

	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	if (input_is_stdin(path) && (ret = stdin_perf(err)))
		return ret;
	if (input_is_stdin(path) || perfdata_probe(path) == 1) {
		/* a perf.data file becomes a prec.data file (o->output) first */
		if (!o || !o->output || !strcmp(o->output, path))
			return err_set(err, -EINVAL, "%s is a perf.data file: name the self-contained "
				       "prec.data file to write with -o", path);
		ret = convert_perfdata(path, o->output, o->level, o->quiet, err);
		if (ret)
			return ret;
		path = o->output;
	}
	ret = repair_if_cut(path, o ? o->level : -1, &st->repair, err);
	if (ret)
		return ret;
	return embed_binaries_hit(path, &eo, &st->embed, err);
}

/* ---- prep archive ---------------------------------------------------- */

static void print_repair(const char *input, const struct container_repair_stats *rs)
{
	if (rs->repaired)
		printf("%s: repaired a %s cut short: %llu blocks kept (%llu samples), %llu bytes "
		       "of an incomplete block cut off, index written\n", input,
		       rs->stream ? "saved stream" : "recording", (unsigned long long)rs->blocks,
		       (unsigned long long)rs->samples, (unsigned long long)rs->bytes_cut);
	else if (rs->stream)
		printf("%s: a saved stream made a file: %llu blocks kept, index written\n", input,
		       (unsigned long long)rs->blocks);
}

/* What was embedded in the file out (named after input, or the file a
 * perf.data input became). */
static void print_embedded(const char *out, const char *input, const struct embed_stats *e)
{
	printf("%s: embedded the symbols of %llu binaries (%llu addresses, %llu symbols, "
	       "%llu bytes of unwind tables): the file grew by %llu bytes\n", out,
	       (unsigned long long)e->binaries, (unsigned long long)e->addresses,
	       (unsigned long long)e->symbols, (unsigned long long)e->unwind_bytes,
	       (unsigned long long)e->file_growth);
	printf("%s: embedded the code of %llu functions hit (%llu bytes)\n", out,
	       (unsigned long long)e->code_functions, (unsigned long long)e->code_bytes);
	if (e->counted_addresses)
		printf("%s: counted the samples of %llu sampled addresses (for prep annotate)\n",
		       out, (unsigned long long)e->counted_addresses);
	if (e->summed_records)
		printf("%s: summed the samples into %llu records (for prep report)\n", out,
		       (unsigned long long)e->summed_records);
	if (e->code_left_out)
		printf("%s: the code of %llu functions hit was not embedded (larger than %u KiB, "
		       "past %u MiB per binary, or not readable)\n", input,
		       (unsigned long long)e->code_left_out, EMBED_CODE_FN_MAX / 1024,
		       EMBED_CODE_BIN_MAX / (1024 * 1024));
	if (e->source_files || e->source_unreadable || e->source_left_out)
		printf("%s: embedded the lines of %llu source files (%llu lines); %llu could not "
		       "be read, %llu past the bound\n", out, (unsigned long long)e->source_files,
		       (unsigned long long)e->source_lines,
		       (unsigned long long)e->source_unreadable,
		       (unsigned long long)e->source_left_out);
	if (e->no_file)
		printf("%s: %llu binaries hit could not be read here (missing, or another "
		       "build id)\n", input, (unsigned long long)e->no_file);
	if (e->no_build_id)
		printf("%s: %llu binaries hit have no build id: not embedded\n", input,
		       (unsigned long long)e->no_build_id);
}

int cmd_archive(int argc, char **argv)
{
	static const char usage_line[] = "prep archive [-i FILE] [-o FILE] [--symfs DIR] [--embed-source] [-q]";
	struct load_opts lo = { 0 };
	const char *input;
	struct archive_opts o = { .level = -1 };
	struct archive_stats st;
	bool help = false;
	const struct opt table[] = {
		LOAD_OPT_INPUT(&lo),
		OPTION_STRING('o', "output", &o.output, "file", "for a perf.data input: the self-contained prec.data file to write"),
		LOAD_OPT_SYMFS(&lo),
		OPTION_FLAG(0, "embed-source", &o.embed_source, "also embed the source lines around the lines hit"),
		OPTION_FLAG('q', "quiet", &o.quiet, "print nothing but errors"),
		OPTION_FLAG('h', "help", &help, "show this help"),
		OPTION_END,
	};
	struct err err = { 0 };
	int ret = opts_parse_command(table, argc, argv, "prep archive", usage_line, &help);

	if (ret >= 0)
		return ret;
	load_opts_default_input(&lo);
	input = lo.inputs[0];
	o.symfs = lo.symfs;
	if (o.output && !input_is_stdin(input) && !access(input, R_OK) && perfdata_probe(input) == 0) {
		fprintf(stderr, "prep archive: -o '%s': only for a perf.data input ('%s' is "
			"completed in place)\n", o.output, input);
		return 129;
	}
	if (archive_file(input, &o, &st, &err)) {
		fprintf(stderr, "prep archive: %s\n", err.msg);
		return 1;
	}
	if (!o.quiet) {
		print_repair(input, &st.repair);
		print_embedded(o.output && (input_is_stdin(input) || perfdata_probe(input) == 1) ?
			       o.output : input, input, &st.embed);
	}
	return 0;
}
