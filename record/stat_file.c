/* SPDX-License-Identifier: MIT */
/*
 * The counting file of `prec stat record` (FORMAT.md): an EVENT block per
 * event (its ids empty when not supported), a COUNTS block per -I interval,
 * one of the final readings, and metadata with the times, the aggregation,
 * the CPUs' topology, the threads and the heading's target, so that `prep
 * stat report` prints what the live run printed. With -r, a COUNTS block
 * per run, the last one written at the end.
 */
#include "stat_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/blocks.h"
#include "format/container.h"
#include "record.h"

static int write_events(struct container_writer *w, const struct stat_run *run, struct buf *b,
			struct err *err)
{
	const struct event_list *evl = &run->o->events;
	int ret = 0;

	for (size_t i = 0; i < evl->nr && !ret; i++) {
		const struct counter *c = &run->c[i];
		struct event_id *ids = calloc(c->nr_fds + 1, sizeof(*ids));

		if (!ids)
			return err_set(err, -ENOMEM, "out of memory");
		for (size_t k = 0; k < c->nr_fds; k++)
			ids[k] = (struct event_id){ c->ids[k], c->fds[k].cpu, -1 };
		buf_reset(b);
		ret = event_block_encode(&evl->ev[i].attr, sizeof(evl->ev[i].attr), evl->ev[i].name,
					 ids, c->supported ? run->per_n[i] : 0, b);
		free(ids);
		if (!ret)
			ret = container_write_block(w, BLOCK_EVENT, b->data, b->len, err);
	}
	return ret;
}

/* Run k's readings (run->per: the run just read), each fd's, flagged
 * final, encoded into b. */
static int encode_run(const struct stat_run *run, int k, struct buf *b, struct err *err)
{
	size_t nr_ev = run->o->events.nr, n = 0;
	uint64_t at = run->elapsed_ns[k];
	struct count_reading *cr;
	int ret;

	for (size_t i = 0; i < nr_ev; i++)
		n += run->per_n[i] + 1;
	cr = calloc(n + 1, sizeof(*cr));
	if (!cr)
		return err_set(err, -ENOMEM, "out of memory");
	n = 0;
	for (size_t i = 0; i < nr_ev; i++) {
		const struct reading *x = run->per[i];

		for (size_t j = 0; j < run->per_n[i]; j++)
			cr[n++] = (struct count_reading){ (uint32_t)i, x[j].cpu, x[j].tid,
							  COUNT_FLAG_FINAL, at, x[j].value,
							  x[j].enabled, x[j].running };
		/* opened but never scheduled (a broken group): <not counted> */
		if (!run->per_n[i] && run->c[i].supported)
			cr[n++] = (struct count_reading){ (uint32_t)i, -1, -1, COUNT_FLAG_FINAL, at,
							  0, 0, 0 };
	}
	buf_reset(b);
	ret = counts_encode(cr, n, b);
	free(cr);
	return ret ? err_set(err, ret, "out of memory") : 0;
}

/* The last run's readings; the runs before it are kept (stat_keep_run). */
static int write_counts(struct container_writer *w, const struct stat_run *run, struct buf *b,
			struct err *err)
{
	int ret = encode_run(run, run->r.runs - 1, b, err);

	if (!ret)
		ret = container_write_block(w, BLOCK_COUNTS, b->data, b->len, err);
	return ret;
}

int stat_keep_run(struct stat_run *run, int k, struct err *err)
{
	struct intervals *iv = &run->iv;
	int ret;

	if (array_grow((void **)&iv->blocks, &iv->cap_blocks, iv->nr_blocks + 1, sizeof(*iv->blocks)))
		return err_set(err, -ENOMEM, "out of memory");
	iv->blocks[iv->nr_blocks] = (struct buf)BUF_INIT;
	ret = encode_run(run, k, &iv->blocks[iv->nr_blocks], err);
	if (ret)
		buf_free(&iv->blocks[iv->nr_blocks]);
	else
		iv->nr_blocks++;
	return ret;
}

/* Every CPU's socket, die, core and node: four u32 each, little-endian. */
static void meta_topology(struct metadata *m, const struct stat_unit *topo, size_t n)
{
	uint8_t *tb;

	if (!n || !(tb = calloc(n, 16)))
		return;
	for (size_t i = 0; i < n; i++) {
		uint32_t f[4] = { (uint32_t)topo[i].socket, (uint32_t)topo[i].die,
				  (uint32_t)topo[i].core, (uint32_t)topo[i].node };

		for (int k = 0; k < 16; k++)
			tb[16 * i + k] = (uint8_t)(f[k / 4] >> (8 * (k % 4)));
	}
	metadata_set_bytes(m, META_STAT_TOPOLOGY, META_BYTES, tb, 16 * n);
	free(tb);
}

/* The level --per-cache asked, then every CPU's cluster and cache ids:
 * u32 little-endian each (FORMAT.md, stat_topology_more). */
static void meta_topology_more(struct metadata *m, const struct stat_unit *topo, size_t n,
			       int cache_level)
{
	size_t per = 1 + STAT_CACHE_LEVELS, len = 4 * (1 + per * n);
	uint8_t *tb;

	if (!n || !(tb = calloc(len, 1)))
		return;
	for (size_t w = 0; w < 1 + per * n; w++) {
		size_t cpu = (w - 1) / per, f = (w - 1) % per;
		uint32_t v = !w ? (uint32_t)cache_level :
			     !f ? (uint32_t)topo[cpu].cluster : (uint32_t)topo[cpu].cache_id[f - 1];

		for (int k = 0; k < 4; k++)
			tb[4 * w + k] = (uint8_t)(v >> (8 * k));
	}
	metadata_set_bytes(m, META_STAT_TOPOLOGY_MORE, META_BYTES, tb, len);
	free(tb);
}

/* --per-thread: "TID:COMM" of each unit. */
static void meta_threads(struct metadata *m, const struct stat_result *r)
{
	char **names;

	if (r->aggr != AGGR_THREAD || !r->nr_units || !(names = calloc(r->nr_units, sizeof(char *))))
		return;
	for (size_t u = 0; u < r->nr_units; u++)
		if (asprintf(&names[u], "%d:%s", r->units[u].tid, r->units[u].comm) < 0)
			names[u] = NULL;
	metadata_set_strlist(m, META_STAT_THREADS, (int)r->nr_units, names);
	for (size_t u = 0; u < r->nr_units; u++)
		free(names[u]);
	free(names);
}

/* Each run's wall-clock time in ns, u64 little-endian (the first 1024). */
static void meta_elapsed(struct metadata *m, const uint64_t *elapsed_ns, int runs)
{
	uint8_t el[8 * 1024];
	int n = runs < 1024 ? runs : 1024;

	for (int i = 0; i < n; i++)
		for (int k = 0; k < 8; k++)
			el[8 * i + k] = (uint8_t)(elapsed_ns[i] >> (8 * k));
	metadata_set_bytes(m, META_STAT_ELAPSED_NS, META_BYTES, el, 8 * (size_t)n);
}

/* The heading's text, quotes included: 'COMMAND' or the target. */
static void meta_heading(struct metadata *m, const struct stat_result *r)
{
	char *heading;

	if (asprintf(&heading, r->cmd ? "'%s'" : "%s", r->cmd ? r->cmd : r->target) < 0)
		return;
	metadata_set_str(m, META_STAT_TARGET, heading);
	free(heading);
}

static void stat_metadata(struct metadata *m, const struct stat_run *run, int argc, char **argv)
{
	const struct stat_result *r = &run->r;

	metadata_set_strlist(m, META_CMDLINE, argc, argv);
	metadata_set_str(m, META_WRITER, "prec " PREC_VERSION);
	metadata_set_u64(m, META_STAT_RUNS, (uint64_t)r->runs);
	metadata_set_u64(m, META_STAT_AGGR, (uint64_t)r->aggr);
	meta_topology(m, run->topo, run->nr_topo);
	meta_topology_more(m, run->topo, run->nr_topo, run->r.cache_level);
	meta_threads(m, r);
	meta_elapsed(m, run->elapsed_ns, r->runs);
	if (r->show_times) {
		metadata_set_u64(m, META_STAT_USER_NS, run->user_ns);
		metadata_set_u64(m, META_STAT_SYS_NS, run->sys_ns);
	}
	meta_heading(m, r);
	if (run->o->table || run->o->metric_only)
		metadata_set_u64(m, META_STAT_LAYOUT, (uint64_t)run->o->table |
				 (uint64_t)run->o->metric_only << 1);
}

int stat_write_file(const struct stat_run *run, int argc, char **argv, struct err *err)
{
	struct container_writer_opts wo = { .kind = CONTAINER_KIND_COUNTS };
	struct container_writer *w;
	struct metadata m = { 0 };
	struct buf b = BUF_INIT;
	int ret = container_writer_open(&w, run->o->record_file, &wo, err);

	if (ret)
		return ret;
	ret = write_events(w, run, &b, err);
	for (size_t k = 0; !ret && k < run->iv.nr_blocks; k++)
		ret = container_write_block(w, BLOCK_COUNTS, run->iv.blocks[k].data,
					    run->iv.blocks[k].len, err);
	if (!ret)
		ret = write_counts(w, run, &b, err);
	if (!ret) {
		stat_metadata(&m, run, argc, argv);
		buf_reset(&b);
		ret = metadata_encode(&m, &b);
		if (!ret)
			ret = container_write_block(w, BLOCK_METADATA, b.data, b.len, err);
	}
	metadata_free(&m);
	buf_free(&b);
	if (!ret)
		return container_writer_close(w, err);
	container_writer_abort(w);
	return ret;
}
