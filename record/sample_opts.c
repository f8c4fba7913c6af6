/* SPDX-License-Identifier: MIT */
/*
 * prec's options for what samples carry (sample_opts.h): register names,
 * clock names and branch filter names as perf record spells them, and the
 * attr bits they turn into.
 */
#include "sample_opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <asm/perf_regs.h>

#ifndef CLOCK_TAI
#define CLOCK_TAI 11
#endif

/* x86-64 names in perf_regs.h order; the segment registers ds..gs are not
 * sampled (perf leaves them out too). */
static const struct { const char *name; int bit; } regs[] = {
	{ "ax", PERF_REG_X86_AX }, { "bx", PERF_REG_X86_BX }, { "cx", PERF_REG_X86_CX },
	{ "dx", PERF_REG_X86_DX }, { "si", PERF_REG_X86_SI }, { "di", PERF_REG_X86_DI },
	{ "bp", PERF_REG_X86_BP }, { "sp", PERF_REG_X86_SP }, { "ip", PERF_REG_X86_IP },
	{ "flags", PERF_REG_X86_FLAGS }, { "cs", PERF_REG_X86_CS }, { "ss", PERF_REG_X86_SS },
	{ "r8", PERF_REG_X86_R8 }, { "r9", PERF_REG_X86_R9 }, { "r10", PERF_REG_X86_R10 },
	{ "r11", PERF_REG_X86_R11 }, { "r12", PERF_REG_X86_R12 }, { "r13", PERF_REG_X86_R13 },
	{ "r14", PERF_REG_X86_R14 }, { "r15", PERF_REG_X86_R15 },
};
#define NR_REGS (sizeof(regs) / sizeof(regs[0]))

const uint64_t sample_regs_all = ((1ULL << PERF_REG_X86_64_MAX) - 1) &
	~((1ULL << PERF_REG_X86_DS) | (1ULL << PERF_REG_X86_ES) |
	  (1ULL << PERF_REG_X86_FS) | (1ULL << PERF_REG_X86_GS));

void sample_regs_list(FILE *f)
{
	fputs("available registers:", f);
	for (size_t i = 0; i < NR_REGS; i++) {
		fputc(' ', f);
		for (const char *c = regs[i].name; *c; c++)
			fputc(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c, f);
	}
	fputc('\n', f);
}

/* "ax,bx,ip" (any case) into a mask; NULL: every register. */
static int parse_regs(const char *opt, const char *arg, uint64_t *mask, bool *list,
		      struct err *err)
{
	const char *p = arg;

	if (!arg || !*arg) {
		*mask = sample_regs_all;
		return 0;
	}
	if (!strcmp(arg, "?")) {
		*list = true;
		return 0;
	}
	*mask = 0;
	while (*p) {
		size_t n = strcspn(p, ","), i;

		for (i = 0; i < NR_REGS; i++)
			if (strlen(regs[i].name) == n && !strncasecmp(p, regs[i].name, n))
				break;
		if (i == NR_REGS)
			return err_set(err, -EINVAL, "--%s %s: unknown register '%.*s' "
				       "(--%s=? lists them)", opt, arg, (int)n, p, opt);
		*mask |= 1ULL << regs[i].bit;
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

int sample_opt_user_regs(const struct opt *opt, const char *arg, struct err *err)
{
	struct sample_opts *so = opt->dest;

	return parse_regs("user-regs", arg, &so->regs_user, &so->list_regs, err);
}

int sample_opt_intr_regs(const struct opt *opt, const char *arg, struct err *err)
{
	struct sample_opts *so = opt->dest;

	return parse_regs("intr-regs", arg, &so->regs_intr, &so->list_regs, err);
}

/* perf's -j names */
static const struct { const char *name; uint64_t bits; } branch_names[] = {
	{ "u", PERF_SAMPLE_BRANCH_USER }, { "k", PERF_SAMPLE_BRANCH_KERNEL },
	{ "hv", PERF_SAMPLE_BRANCH_HV }, { "any", PERF_SAMPLE_BRANCH_ANY },
	{ "any_call", PERF_SAMPLE_BRANCH_ANY_CALL },
	{ "any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN },
	{ "ind_call", PERF_SAMPLE_BRANCH_IND_CALL }, { "abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX },
	{ "in_tx", PERF_SAMPLE_BRANCH_IN_TX }, { "no_tx", PERF_SAMPLE_BRANCH_NO_TX },
	{ "cond", PERF_SAMPLE_BRANCH_COND }, { "ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP },
	{ "call", PERF_SAMPLE_BRANCH_CALL }, { "no_flags", PERF_SAMPLE_BRANCH_NO_FLAGS },
	{ "no_cycles", PERF_SAMPLE_BRANCH_NO_CYCLES },
	{ "save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE },
	{ "hw_index", PERF_SAMPLE_BRANCH_HW_INDEX }, { "stack", PERF_SAMPLE_BRANCH_CALL_STACK },
	{ "priv", PERF_SAMPLE_BRANCH_PRIV_SAVE },
};

#define BRANCH_PLM (PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV)

int sample_opt_branch(const struct opt *opt, const char *arg, struct err *err)
{
	struct sample_opts *so = opt->dest;
	uint64_t bits = 0;
	const char *p = arg;

	while (*p) {
		size_t n = strcspn(p, ","), i;

		for (i = 0; i < sizeof(branch_names) / sizeof(branch_names[0]); i++)
			if (strlen(branch_names[i].name) == n && !strncmp(p, branch_names[i].name, n))
				break;
		if (i == sizeof(branch_names) / sizeof(branch_names[0]))
			return err_set(err, -EINVAL, "-j %s: unknown branch filter '%.*s' (any, "
				       "any_call, any_ret, ind_call, ind_jmp, call, cond, abort_tx, "
				       "in_tx, no_tx, u, k, hv, save_type, stack, ...)", arg, (int)n, p);
		bits |= branch_names[i].bits;
		p += n;
		if (*p == ',')
			p++;
	}
	if (!bits)
		return err_set(err, -EINVAL, "-j '%s': no branch filter given", arg);
	/* privilege levels alone: of any branch, as perf */
	if (!(bits & ~BRANCH_PLM))
		bits |= PERF_SAMPLE_BRANCH_ANY;
	so->branch_type |= bits;
	return 0;
}

static const struct { const char *name; int id; } clocks[] = {
	{ "monotonic", CLOCK_MONOTONIC }, { "mono", CLOCK_MONOTONIC },
	{ "monotonic_raw", CLOCK_MONOTONIC_RAW }, { "raw", CLOCK_MONOTONIC_RAW },
	{ "realtime", CLOCK_REALTIME }, { "real", CLOCK_REALTIME },
	{ "boottime", CLOCK_BOOTTIME }, { "boot", CLOCK_BOOTTIME },
	{ "tai", CLOCK_TAI },
};

static int parse_clock(struct sample_opts *so, const char *arg, struct err *err)
{
	char *end;
	long v;

	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		if (!strcasecmp(arg, clocks[i].name) ||
		    (!strncasecmp(arg, "CLOCK_", 6) && !strcasecmp(arg + 6, clocks[i].name))) {
			so->clockid = clocks[i].id;
			so->use_clockid = true;
			return 0;
		}
	}
	v = strtol(arg, &end, 10);
	if (end == arg || *end || v < 0 || v > 63)
		return err_set(err, -EINVAL, "--clockid %s: unknown clock (monotonic, monotonic_raw, "
			       "realtime, boottime, tai, or a clock number)", arg);
	so->clockid = (int)v;
	so->use_clockid = true;
	return 0;
}

int sample_opts_check(struct sample_opts *so, struct err *err)
{
	if (so->clock_arg)
		return parse_clock(so, so->clock_arg, err);
	return 0;
}

void sample_opts_attr(const struct sample_opts *so, struct perf_event_attr *a, bool first)
{
	if (so->data) {
		a->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
		a->mmap_data = first;
	}
	if (so->weight)
		a->sample_type |= PERF_SAMPLE_WEIGHT_STRUCT;
	if (so->regs_user) {
		a->sample_type |= PERF_SAMPLE_REGS_USER;
		a->sample_regs_user |= so->regs_user;   /* with DWARF's, if set */
	}
	if (so->regs_intr) {
		a->sample_type |= PERF_SAMPLE_REGS_INTR;
		a->sample_regs_intr = so->regs_intr;
	}
	if (so->use_clockid) {
		a->use_clockid = 1;
		a->clockid = so->clockid;
	}
	if (so->branch_any || so->branch_type) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = so->branch_type ? so->branch_type : PERF_SAMPLE_BRANCH_ANY;
	}
}
