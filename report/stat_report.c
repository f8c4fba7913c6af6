/* SPDX-License-Identifier: MIT */
/*
 * prep stat report: the readings of a counting file (prec stat record),
 * printed by the same printer as the live run (stat.c), with the output
 * options -x and -B to present them differently.
 */
#include "stat.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../common/opts.h"
#include "../format/blocks.h"
#include "../format/container.h"


struct loaded {
	struct event_desc *ev;
	size_t nr_ev;
	struct stat_counter *c;
	int runs;
	struct metadata meta;
};

static void report_warn(void *ctx, const struct container_problem *p)
{
	fprintf(stderr, "prep: warning: %s: %s\n", (const char *)ctx, p->msg);
}

static int load_counts(const char *path, struct loaded *ld, struct err *err)
{
	struct container_reader_opts ro = { report_warn, (void *)path };
	struct container_reader *r;
	struct container_block b;
	int ret, got, run = 0;
	uint64_t runs = 1;

	ret = container_reader_open(&r, path, &ro, err);
	if (ret)
		return ret;
	if (container_reader_header(r)->kind != CONTAINER_KIND_COUNTS) {
		container_reader_close(r);
		return err_set(err, -EINVAL, "%s is a sampling recording, not a counting one "
			       "(prec stat record): use prep report", path);
	}
	/* metadata and events first: the number of runs sizes the arrays */
	while ((got = container_reader_next(r, &b, err)) == 1 && !ret) {
		if (b.type == BLOCK_METADATA)
			ret = metadata_decode(&ld->meta, b.data, b.len, err);
		else if (b.type == BLOCK_EVENT) {
			struct event_desc *grown = realloc(ld->ev, (ld->nr_ev + 1) * sizeof(*grown));

			if (!grown) {
				ret = err_set(err, -ENOMEM, "out of memory");
				break;
			}
			ld->ev = grown;
			ret = event_block_decode(b.data, b.len, &ld->ev[ld->nr_ev], err);
			if (!ret)
				ld->nr_ev++;
		}
	}
	if (!ret && got < 0)
		ret = got;
	metadata_get_u64(&ld->meta, META_STAT_RUNS, &runs);
	if (!ret && (runs < 1 || runs > 100000))
		ret = err_set(err, -PREC_ECORRUPT, "%s: %" PRIu64 " runs recorded", path, runs);
	if (!ret && !ld->nr_ev)
		ret = err_set(err, -PREC_ECORRUPT, "%s: no events in the file", path);
	ld->runs = (int)runs;
	if (!ret && !(ld->c = calloc(ld->nr_ev, sizeof(*ld->c))))
		ret = err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; !ret && i < ld->nr_ev; i++) {
		struct stat_counter *c = &ld->c[i];

		c->name = ld->ev[i].name ? ld->ev[i].name : "unknown";
		c->type = ld->ev[i].attr.type;
		c->config = ld->ev[i].attr.config;
		c->supported = ld->ev[i].nr_ids > 0;
		c->values = calloc((size_t)runs, sizeof(double));
		c->enabled = calloc((size_t)runs, sizeof(uint64_t));
		c->running = calloc((size_t)runs, sizeof(uint64_t));
		if (!c->values || !c->enabled || !c->running)
			ret = err_set(err, -ENOMEM, "out of memory");
	}
	container_reader_rewind(r);
	while (!ret && (got = container_reader_next(r, &b, err)) == 1) {
		struct count_reading *cr;
		size_t n;

		if (b.type != BLOCK_COUNTS)
			continue;
		if (run >= ld->runs)
			break;
		if (counts_decode(b.data, b.len, &cr, &n, NULL))
			continue;
		for (size_t k = 0; k < n; k++) {
			struct stat_counter *c;

			if (cr[k].event >= ld->nr_ev)
				continue;
			c = &ld->c[cr[k].event];
			c->values[run] += (double)cr[k].value;
			c->enabled[run] += cr[k].time_enabled;
			c->running[run] += cr[k].time_running;
		}
		free(cr);
		run++;
	}
	for (size_t i = 0; !ret && i < ld->nr_ev; i++) {
		struct stat_counter *c = &ld->c[i];

		for (int k = 0; k < ld->runs; k++)
			if (c->running[k] && c->running[k] < c->enabled[k])
				c->values[k] = c->values[k] * (double)c->enabled[k] / (double)c->running[k];
	}
	container_reader_close(r);
	return ret;
}

static void loaded_free(struct loaded *ld)
{
	for (size_t i = 0; ld->c && i < ld->nr_ev; i++) {
		free(ld->c[i].values);
		free(ld->c[i].enabled);
		free(ld->c[i].running);
	}
	for (size_t i = 0; i < ld->nr_ev; i++)
		event_desc_free(&ld->ev[i]);
	free(ld->ev);
	free(ld->c);
	metadata_free(&ld->meta);
}

int cmd_stat_report(int argc, char **argv)
{
	const char *input = "prec.data", *sep = NULL;
	bool big = false, no_big = false, help = false;
	const struct opt table[] = {
		OPTION_STRING('i', "input", &input, "file", "counting file (default prec.data)"),
		OPTION_STRING('x', "field-separator", &sep, "sep", "CSV output with this separator"),
		OPTION_FLAG('B', "big-num", &big, "thousands separators in counts"),
		OPTION_FLAG(0, "no-big-num", &no_big, "no thousands separators"),
		OPTION_FLAG('h', "help", &help, "show this help"),
		OPTION_END,
	};
	struct loaded ld = { 0 };
	struct stat_result r = { 0 };
	struct stat_print_opts po = { 0 };
	struct err err = { 0 };
	double *elapsed = NULL;
	uint64_t user = 0, sys = 0;
	int first, ret;

	first = opts_parse(table, argc, argv, &err);
	if (first < 0 || first < argc) {
		fprintf(stderr, "prep stat report: %s\n", first < 0 ? err.msg : "unexpected argument");
		opts_usage(stderr, "prep stat report [-i FILE] [-x SEP]", table);
		return 129;
	}
	if (help) {
		opts_usage(stdout, "prep stat report [-i FILE] [-x SEP]", table);
		return 0;
	}
	ret = load_counts(input, &ld, &err);
	if (!ret && !(elapsed = calloc((size_t)ld.runs, sizeof(double))))
		ret = err_set(&err, -ENOMEM, "out of memory");
	if (ret) {
		fprintf(stderr, "prep: %s\n", err.msg);
		loaded_free(&ld);
		return 1;
	}
	{
		const struct meta_item *el = metadata_get(&ld.meta, META_STAT_ELAPSED_NS);

		for (int i = 0; el && i < ld.runs && (size_t)(8 * i + 8) <= el->len; i++) {
			uint64_t ns = 0;

			for (int k = 0; k < 8; k++)
				ns |= (uint64_t)el->value[8 * i + k] << (8 * k);
			elapsed[i] = (double)ns / 1e9;
		}
	}
	r.show_times = metadata_get_u64(&ld.meta, META_STAT_USER_NS, &user) &&
		       metadata_get_u64(&ld.meta, META_STAT_SYS_NS, &sys) && ld.runs == 1;
	r.user_s = (double)user / 1e9;
	r.sys_s = (double)sys / 1e9;
	r.target = metadata_get_str(&ld.meta, META_STAT_TARGET);
	r.c = ld.c;
	r.nr = ld.nr_ev;
	r.runs = ld.runs;
	r.elapsed_s = elapsed;
	po.sep = sep;
	po.big_num = big && !no_big;
	stat_print(stdout, &r, &po);
	free(elapsed);
	loaded_free(&ld);
	return 0;
}
