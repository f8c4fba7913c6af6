/* SPDX-License-Identifier: MIT */
/*
 * What prec's samples carry beyond the defaults, as perf record's options
 * ask for it: data addresses (-d), weights (-W), registers (--user-regs,
 * --intr-regs), the clock of the timestamps (--clockid), branch stacks
 * (-b, -j). -T and --sample-cpu are accepted: prec samples TIME and CPU
 * always. The options (SAMPLE_OPTIONS, in prec's table), their checks and
 * the attr bits they set (sample_opts_attr, from setup_attr) live here.
 */
#ifndef PREC_RECORD_SAMPLE_OPTS_H
#define PREC_RECORD_SAMPLE_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/perf_event.h>

#include "common/err.h"
#include "common/opts.h"

struct sample_opts {
	bool data;              /* -d: PERF_SAMPLE_ADDR | DATA_SRC, mmap_data */
	bool weight;            /* -W: PERF_SAMPLE_WEIGHT_STRUCT */
	bool sample_cpu;        /* --sample-cpu: always on */
	bool timestamp;         /* -T: always on */
	uint64_t regs_user;     /* --user-regs mask; 0: not asked */
	uint64_t regs_intr;     /* --intr-regs mask */
	bool list_regs;         /* --user-regs=? or --intr-regs=?: list them and exit */
	const char *clock_arg;  /* --clockid as typed */
	bool use_clockid;
	int clockid;
	bool branch_any;        /* -b / --branch-any */
	uint64_t branch_type;   /* -j / --branch-filter; 0: no branch stack */
};

/* The x86-64 registers perf names (ax, bx, ..., r15), all of them. */
extern const uint64_t sample_regs_all;

int sample_opt_user_regs(const struct opt *opt, const char *arg, struct err *err);
int sample_opt_intr_regs(const struct opt *opt, const char *arg, struct err *err);
int sample_opt_branch(const struct opt *opt, const char *arg, struct err *err);

#define SAMPLE_OPTIONS(so) \
	OPTION_FLAG('d', "data", &(so)->data, "record the data address of each sample " \
		    "(page-faults, mem: breakpoints)"), \
	OPTION_FLAG('W', "weight", &(so)->weight, "record the weight of each sample"), \
	OPTION_FLAG(0, "sample-cpu", &(so)->sample_cpu, "record the CPU of each sample " \
		    "(always on in prec)"), \
	OPTION_FLAG('T', "timestamp", &(so)->timestamp, "record the time of each sample " \
		    "(always on in prec)"), \
	OPTION_CALLBACK_OPTARG(0, "user-regs", (so), "regs", "user registers to record with " \
			       "each sample (comma list; none: all; ? lists them)", \
			       sample_opt_user_regs), \
	OPTION_CALLBACK_OPTARG(0, "intr-regs", (so), "regs", "registers at the interrupt to " \
			       "record with each sample (comma list; none: all; ? lists them)", \
			       sample_opt_intr_regs), \
	OPTION_STRING('k', "clockid", &(so)->clock_arg, "clock", "the clock of the timestamps: " \
		      "monotonic, monotonic_raw, realtime, boottime, tai, or a number"), \
	OPTION_FLAG('b', "branch-any", &(so)->branch_any, "record branch stacks (any branch; " \
		    "needs a PMU that has them)"), \
	OPTION_CALLBACK('j', "branch-filter", (so), "filter", "record branch stacks of these " \
			"kinds: any, any_call, any_ret, ind_call, ind_jmp, call, cond, u, k, hv, ...", \
			sample_opt_branch)

/* After parsing: the clock name, the register list request. 0 or -EINVAL
 * with the message in err. */
int sample_opts_check(struct sample_opts *so, struct err *err);
/* Print the register names (for `=?`). */
void sample_regs_list(FILE *f);
/* The bits of so into an attr that setup_attr has filled: sample_type,
 * register masks (merged with the ones DWARF unwinding set), the clock,
 * branch_sample_type, mmap_data for the first event. */
void sample_opts_attr(const struct sample_opts *so, struct perf_event_attr *a, bool first);

#endif
