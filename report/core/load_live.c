/* SPDX-License-Identifier: MIT */
/*
 * A live reading (prec top): one input without a file, a live session
 * (session.h) fed the blocks a prec.data file would hold as the recording
 * produces them. Each record takes the path of a file's records: the time
 * order across CPU buffers, the machine model, the filters, the call-chain
 * assembly and unwinding, then the view's sample function. See load.h.
 */
#include "load_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int load_live_start(struct load *l, const char *name, load_sample_fn fn,
		    load_record_fn on_record, void *ctx, struct err *err)
{
	struct run_ctx *rc;
	int ret;

	if (l->live || l->nr_sessions)
		return err_set(err, -EINVAL, "%s: the reading has its input already", name);
	rc = calloc(1, sizeof(*rc));
	if (!rc)
		return err_set(err, -ENOMEM, "out of memory");
	rc->addrs = malloc(CHAIN_MAX * sizeof(*rc->addrs));
	rc->kernel = malloc(CHAIN_MAX * sizeof(*rc->kernel));
	l->live = rc;
	if (!rc->addrs || !rc->kernel)
		return err_set(err, -ENOMEM, "out of memory");
	rc->l = l;
	rc->fn = fn;
	rc->on_record = on_record;
	rc->ctx = ctx;
	ret = session_open_live(&l->sessions[0], name, l->opts.quiet, err);
	if (ret)
		return ret;
	l->nr_sessions = 1;
	l->opts.inputs[0] = name;
	l->opts.nr_inputs = 1;
	return 0;
}

int load_live_feed(struct load *l, unsigned type, const void *payload, size_t len,
		   struct err *err)
{
	int ret;

	if (!l->live || !l->nr_sessions)
		return err_set(err, -EINVAL, "not a live reading");
	ret = session_feed_block(&l->sessions[0], type, payload, len, load_on_record_first,
				 l->live, err);
	if (ret == -E2BIG)
		ret = err_set(err, ret, "%s: more than %d events", l->opts.inputs[0],
			      LOAD_MAX_EVENTS);
	return ret;
}

int load_live_end(struct load *l, struct err *err)
{
	int ret;

	if (!l->live || !l->nr_sessions)
		return 0;
	ret = session_feed_end(&l->sessions[0], load_on_record_first, l->live, err);
	if (!ret)
		l->lost_samples = l->sessions[0].stats.lost_samples;
	return ret;
}

void load_live_free(struct load *l)
{
	if (!l->live)
		return;
	free(l->live->addrs);
	free(l->live->kernel);
	free(l->live);
	l->live = NULL;
}
