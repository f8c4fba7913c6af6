/* SPDX-License-Identifier: MIT */
/*
 * What prec record and prec top (--record) write alike into a prec.data
 * file, and hand alike to a sink (prec top's view): the writer's options,
 * the EVENT blocks, the records synthesized from /proc, and, once the file
 * is closed, the embedding of what the report needs of the binaries hit.
 */
#include "record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/blocks.h"
#include "format/record.h"
#include "record/cgroup.h"
#include "report/symbols/embed.h"
#include "synth.h"

#define DWARF_BLOCK_SIZE (4u << 20)

static void on_sideband(void *ctx, const void *rec, size_t len)
{
	dso_list_note(ctx, rec, len);
}

/* Timestamps for the DATA blocks' time ranges. Every event prec opens has
 * IDENTIFIER, IP, TID, TIME first in its samples, and TID, TIME, CPU,
 * IDENTIFIER as its sample_id_all trailer (evlist.c, setup_attr). */
static uint64_t record_time(void *ctx, const void *rec, size_t len)
{
	struct perf_event_header h;
	uint64_t t = 0;

	(void)ctx;
	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_RECORD_SAMPLE && len >= 40)
		memcpy(&t, (const uint8_t *)rec + 32, 8);
	else if (h.type < PERF_RECORD_MAX && len >= 8 + 32)
		memcpy(&t, (const uint8_t *)rec + len - 24, 8);
	return t;
}

void record_writer_opts(struct session *s, struct container_writer_opts *wo)
{
	*wo = (struct container_writer_opts){ .level = (int)s->opts->level,
					      .on_sideband = on_sideband,
					      .record_time = record_time, .ctx = s->dsos,
					      .background = true };
	/* Stack copies make 8 KiB samples: bigger blocks keep each thread's
	 * previous stack at hand for the transform (FORMAT.md 6.3) across more
	 * samples, instead of starting over every hundred of them. 4 MiB
	 * (500 samples) stores as small as 16 MiB did, and a report holds two
	 * decoded blocks at a time (one decoded ahead on the other core). */
	if (s->opts->callgraph == CALLGRAPH_DWARF)
		wo->block_size = DWARF_BLOCK_SIZE;
}

/* The decoder's view of the events, for the writer (record.h layouts). */
static int add_layout(struct session *s, const struct perf_event_attr *a,
		      const struct event_id *ids, size_t n, struct err *err)
{
	struct event_layout l;
	uint64_t *id = calloc(n + 1, sizeof(*id));
	int ret;

	if (!id)
		return err_set(err, -ENOMEM, "out of memory");
	for (size_t k = 0; k < n; k++)
		id[k] = ids[k].id;
	event_layout_from_attr(&l, a, sizeof(*a));
	ret = record_layouts_add(s->layouts, &l, id, n, err);
	free(id);
	return ret < 0 ? ret : 0;
}

/* One EVENT block: to the writer, to the sink, and into the layouts. */
static int write_event(struct session *s, size_t i, struct event_id *ids, struct err *err)
{
	struct buf b = BUF_INIT;
	size_t n = 0;
	int ret;

	for (size_t k = 0; k < s->nr_evfds; k++) {
		if (s->evfds[k].event != (int)i)
			continue;
		ids[n].id = s->evfds[k].id;
		ids[n].cpu = s->evfds[k].cpu;
		ids[n].tid = s->evfds[k].tid;
		n++;
	}
	ret = event_block_encode(&s->attrs[i], sizeof(s->attrs[i]), s->events[i].name, ids, n, &b);
	if (ret)
		err_set(err, ret, "cannot encode event '%s'", s->events[i].name);
	if (!ret && s->writer)
		ret = container_write_block(s->writer, BLOCK_EVENT, b.data, b.len, err);
	if (!ret && s->sink)
		ret = s->sink->block(s->sink->ctx, BLOCK_EVENT, b.data, b.len, err);
	if (!ret)
		ret = add_layout(s, &s->attrs[i], ids, n, err);
	buf_free(&b);
	return ret;
}

int record_write_events(struct session *s, struct err *err)
{
	int ret = 0;

	for (size_t i = 0; i < s->nr_events && !ret; i++) {
		struct event_id *ids = calloc(s->nr_evfds + 1, sizeof(*ids));

		if (!ids)
			return err_set(err, -ENOMEM, "out of memory");
		ret = write_event(s, i, ids, err);
		free(ids);
	}
	return ret;
}

/* Synthesized records are gathered and written as one span. */
static int emit_synth(void *ctx, const void *rec, size_t len)
{
	return buf_append(ctx, rec, len);
}

/* -p: s->tids holds every thread; each process is synthesized once. */
static int synth_pids(const char *pids, const struct synth_params *p, struct err *err)
{
	const char *q = pids;

	while (*q) {
		char *end;
		long pid = strtol(q, &end, 10);
		int ret = synth_process((pid_t)pid, p, err);

		if (ret < 0)
			return ret;
		q = *end ? end + 1 : end;
	}
	return 0;
}

int record_synthesize(struct session *s, struct buf *out, struct err *err)
{
	const struct record_opts *o = s->opts;
	struct synth_params p = { .sample_type = s->attrs[0].sample_type, .id = s->evfds[0].id,
				  .proc = "/proc", .emit = emit_synth, .ctx = out,
				  .data = o->sample.data };
	bool restricted = false;
	int ret = synth_kernel(&p, &restricted, err);

	if (ret < 0)
		return ret;
	if (restricted && !o->quiet && !s->attrs[0].exclude_kernel)
		fprintf(stderr, "prec: kernel addresses are hidden (kptr_restrict): kernel samples "
			"will not be named\n");
	if (o->all_cgroups && (ret = cgroup_synth(&p, err)) < 0)
		return ret;
	if (s->workload_pid > 0)        /* a switched file: what runs now (flight.c) */
		return flight_synth_workload(s->workload_pid, &p, err);
	if (o->all_cpus || o->cpu_list)
		return synth_all(&p, err) < 0 ? err->code : 0;
	if (o->pids)
		return synth_pids(o->pids, &p, err);
	for (size_t i = 0; o->tids && i < s->nr_tids; i++) {
		ret = synth_thread(s->tids[i], &p, err);
		if (ret < 0)
			return ret;
	}
	return 0;
}

uint64_t record_embed(const struct record_opts *o)
{
	struct embed_opts eo = { .quiet = true, .level = o->level, .embed_source = o->embed_source };
	struct embed_stats as = { 0 };
	struct err e2 = { 0 };
	uint64_t growth = 0;

	if (o->no_embed)
		return 0;
	/* the file is whole already: a failure here only costs offline use */
	if (embed_binaries_hit(o->output, &eo, &as, &e2))
		fprintf(stderr, "prec: warning: the symbols of the binaries hit could not be "
			"embedded: %s\n", e2.msg);
	else
		growth = as.file_growth;
	if (o->verbose)
		fprintf(stderr, "prec: embedded %llu binaries (%llu addresses, %llu bytes)\n",
			(unsigned long long)as.binaries, (unsigned long long)as.addresses,
			(unsigned long long)as.file_growth);
	if (o->verbose && as.counted_addresses)
		fprintf(stderr, "prec: counted the samples of %llu sampled addresses "
			"(for prep annotate)\n", (unsigned long long)as.counted_addresses);
	if (o->verbose && as.summed_records)
		fprintf(stderr, "prec: summed the samples into %llu records (for prep report)\n",
			(unsigned long long)as.summed_records);
	if (o->verbose)
		fprintf(stderr, "prec: embedded the code of %llu functions (%llu bytes); "
			"%llu left out (larger than the bound, or no file)\n",
			(unsigned long long)as.code_functions,
			(unsigned long long)as.code_bytes, (unsigned long long)as.code_left_out);
	if (o->embed_source && (o->verbose || (!o->quiet &&
					       (as.source_unreadable || as.source_left_out))))
		fprintf(stderr, "prec: --embed-source: the lines of %llu source files embedded "
			"(%llu lines); %llu could not be read, %llu past the bound\n",
			(unsigned long long)as.source_files,
			(unsigned long long)as.source_lines,
			(unsigned long long)as.source_unreadable,
			(unsigned long long)as.source_left_out);
	return growth;
}
