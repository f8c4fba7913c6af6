/* SPDX-License-Identifier: MIT */
/* Inside the session (session.c, session_embeds.c): the SYMBOLS blocks of
 * a finished file decoded at open. */
#ifndef PREC_REPORT_SESSION_INT_H
#define PREC_REPORT_SESSION_INT_H

#include "session.h"

/* Take d (decoded, owned from now on) into s->embeds. 0 or -ENOMEM (d is
 * not taken then). */
int session_add_embed(struct session *s, struct embed_dso *d, struct err *err);

/* The SYMBOLS blocks among the index entries e[0..n), decoded (on a second
 * thread too when they are large) and added to s->embeds in file order,
 * *damaged set when one of them is not good; meanwhile(s, ctx) (unless
 * NULL) runs on this thread while the other one decodes, and its failure
 * is returned. 0 or a negative code. */
int session_take_symbols(struct session *s, const struct index_entry *e, size_t n,
			 int (*meanwhile)(struct session *s, void *ctx), void *ctx,
			 bool *damaged, struct err *err);

/* Count a record handed on (session_read's counts), and tell the front
 * end how far the reading is (done bytes of the file). */
void session_count_record(struct session *s, const struct record *rec);
/* Count n samples (read by sums) whose times run from tmin to tmax. */
void session_count_samples(struct session *s, uint64_t n, uint64_t tmin, uint64_t tmax);
void session_progress(struct session *s, uint64_t done);
/* The records v[0..n) handed on in order: to ops->record (counted), or a
 * class's first sample to ops->sum with its count and period
 * (session_sum.c). 0, or what ops returned. */
struct sum_out;
int session_sum_replay(struct session *s, const struct session_sum_ops *ops, void *ctx,
		       const struct sum_out *v, size_t n);

#endif
