/* SPDX-License-Identifier: MIT */
/* A sample's call chain as the loader hands it on (load.h): the recorded
 * chain with its context markers made each frame's kernel flag, the user
 * part unwound from a stack copy, or the sampled address alone. */
#include "load_int.h"

#include <string.h>

/* Call-chain assembly: the recorded chain, its context markers turned into
 * each frame's kernel flag; it starts with the sampled ip itself. */
static size_t chain_recorded(const struct sample *smp, bool kmode, uint64_t *addrs, bool *kernel)
{
	bool k = kmode, first = true;
	size_t n = 0;

	for (uint64_t i = 0; i < smp->callchain_nr && n < CHAIN_MAX; i++) {
		uint64_t a;

		memcpy(&a, smp->callchain + 8 * i, 8);
		if (a >= PERF_CONTEXT_MAX) {
			k = a == PERF_CONTEXT_KERNEL;
			continue;
		}
		if (first && a != smp->ip && (smp->type & PERF_SAMPLE_IP)) {
			addrs[n] = smp->ip;
			kernel[n++] = kmode;
		}
		first = false;
		addrs[n] = a;
		kernel[n++] = k;
	}
	return n;
}

/* Unwinding glue (--call-graph dwarf): the kernel's part of the n frames
 * assembled, then the user frames unwound from the copied stack. */
static size_t chain_unwound(struct unwinder *unw, struct thread *t, const struct sample *smp,
			    bool kmode, uint64_t *addrs, bool *kernel, size_t n)
{
	size_t k = 0, got;

	for (size_t i = 0; i < n; i++)
		if (kernel[i]) {
			addrs[k] = addrs[i];
			kernel[k++] = true;
		}
	if (!k && kmode) {
		addrs[k] = smp->ip;
		kernel[k++] = true;
	}
	got = unwind_user(unw, t, smp, addrs + k, CHAIN_MAX - k);
	for (size_t i = k; i < k + got; i++)
		kernel[i] = false;
	return k + got;
}

bool load_chain_first(const struct sample_head *h, bool kmode, bool want_kernel, uint64_t *addr,
		      bool *kernel)
{
	bool k = kmode, first = true;
	size_t n = 0;

	for (uint64_t i = 0; i < h->chain_nr && n < CHAIN_MAX; i++) {
		uint64_t a;

		memcpy(&a, h->chain + 8 * i, 8);
		if (a >= PERF_CONTEXT_MAX) {
			k = a == PERF_CONTEXT_KERNEL;
			continue;
		}
		if (first && a != h->ip && (h->type & PERF_SAMPLE_IP)) {
			if (!want_kernel || kmode) {
				*addr = h->ip;
				*kernel = kmode;
				return true;
			}
			n++;
		}
		first = false;
		if (!want_kernel || k) {
			*addr = a;
			*kernel = k;
			return true;
		}
		n++;
	}
	return false;
}

static void first_frame(const struct record *rec, uint64_t *addr, bool *kernel)
{
	struct sample_head h;

	record_sample_head_of(rec, &h);
	load_head_frame(&h, rec->misc, addr, kernel);
}

void load_sample_first_frame(const struct load_sample *s, uint64_t *addr, bool *kernel)
{
	/* a sample the loader made (offcpu-time, offcpu.h) has its frames in
	 * s->addrs, not in a recorded chain */
	if (!s->rec->u.sample.callchain && s->nr) {
		*addr = s->addrs[0];
		*kernel = s->kernel[0];
		return;
	}
	first_frame(s->rec, addr, kernel);
}

size_t load_assemble_chain(struct run_ctx *rc, struct thread *t, const struct record *rec)
{
	const struct sample *smp = &rec->u.sample;
	bool kmode = (rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	size_t n = 0;

	if (rc->l->opts.ip_only) {
		first_frame(rec, &rc->addrs[0], &rc->kernel[0]);
		return 1;
	}
	if ((smp->type & PERF_SAMPLE_CALLCHAIN) && smp->callchain_nr)
		n = chain_recorded(smp, kmode, rc->addrs, rc->kernel);
	if ((smp->type & PERF_SAMPLE_STACK_USER) && smp->stack_size)
		n = chain_unwound(rc->l->unw, t, smp, kmode, rc->addrs, rc->kernel, n);
	if (!n) {
		rc->addrs[0] = smp->ip;
		rc->kernel[0] = kmode;
		n = 1;
	}
	return n;
}

