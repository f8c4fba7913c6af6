/* SPDX-License-Identifier: MIT */
/*
 * prec --off-cpu: where each thread blocked and for how long, without BPF.
 *
 * What is recorded: the `context-switches` software event at period 1 with
 * call chains (the stack at every switch-out), named `offcpu-time` in the
 * file, and PERF_RECORD_SWITCH records (attr.context_switch on the tracking
 * event: the exact switch-out and switch-in times). The report pairs them
 * (report/core/offcpu.h). Where the kernel refuses the event to the user
 * (perf_event_paranoid 2 without CAP_PERFMON: a switch happens in kernel
 * mode, and users may sample user space only), the event is written to the
 * file without ids and not opened, one note says so, and the switch records
 * alone give each thread's off-CPU time, without stacks.
 *
 * --off-cpu-thresh MSEC (perf's name and unit): the stacks of waits shorter
 * than that are left out of the file, while the switch records still count
 * every wait. The decision is made per drain pass, once every ring buffer
 * has been copied: a switch-out sample whose thread's switch-in is in the
 * same pass, less than the threshold later, is dropped; any other is kept
 * (so a short wait that straddles two passes keeps its stack). Nothing is
 * delayed, so the order guarantee of round marks holds (FORMAT.md 5.3).
 */
#ifndef PREC_RECORD_OFFCPU_H
#define PREC_RECORD_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/perf_event.h>

#include "common/err.h"
#include "common/opts.h"

/* The name of the event in the file, perf's (its BPF event's). */
#define OFFCPU_EVENT_NAME "offcpu-time"

struct offcpu_opts {
	bool on;                /* --off-cpu (also set by --off-cpu-thresh) */
	const char *thresh_arg; /* --off-cpu-thresh as typed */
	uint64_t thresh_ns;     /* 0: every stack is kept */
	size_t event;           /* the offcpu-time event's index in record_opts.events */
};

#define OFFCPU_OPTIONS(oo) \
	OPTION_FLAG(0, "off-cpu", &(oo)->on, "also record where threads block and for how " \
		    "long (event offcpu-time: context switches with call chains)"), \
	OPTION_STRING(0, "off-cpu-thresh", &(oo)->thresh_arg, "msec", "with --off-cpu: " \
		      "keep the stacks of waits of at least msec milliseconds only (the " \
		      "shorter ones are still counted, per thread)")

struct record_opts;
struct session;
struct container_writer;

/* After the other events are set (the default one too): the threshold
 * checked, the offcpu-time event appended. 0 or -EINVAL with err set. */
int offcpu_check(struct record_opts *o, struct err *err);

/* Before the events are opened: the state of the threshold's pass
 * (s->offcpu, freed by offcpu_session_free). 0 or -ENOMEM. */
int offcpu_session_open(struct session *s, struct err *err);
void offcpu_session_free(struct session *s);
/* setup_attr's part for event i: the offcpu-time event samples every
 * switch, with call chains. */
void offcpu_attr(const struct session *s, size_t i, struct perf_event_attr *a);
/* Once the events are open: where the kernel took offcpu-time only as
 * context-switches:u (it then never fires), its name is put back and one
 * note line says what is missing and how to get it, also naming the user-only
 * fallback of the first event if it was taken (out NULL: no note): true
 * then (and user_only_note is not printed as well). */
bool offcpu_note(struct session *s, FILE *out);

/* The drain with --off-cpu-thresh: each ring's spans are taken instead of
 * written (offcpu_pass_take, ring index r), then offcpu_pass_write drops
 * the short waits' samples and writes what is left, ring by ring. Without
 * a threshold offcpu_pass_active is false and the drain writes directly. */
bool offcpu_pass_active(const struct session *s);
int offcpu_pass_take(struct session *s, size_t r, const void *a, size_t na, const void *b,
		     size_t nb, struct err *err);
int offcpu_pass_write(struct session *s, struct container_writer *w, struct err *err);

/* The record clock now (the kernel's perf clock, or the --clockid clock,
 * as a record of a probe event on prec itself gets it) as the end_clock_ns
 * metadata: where the report closes the waits still open. Nothing without
 * --off-cpu, or where the kernel refuses the probe. */
int offcpu_write_end_clock(struct session *s, struct container_writer *w, struct err *err);
/* -v: how many switch-out stacks the threshold kept and dropped. */
void offcpu_print_stats(const struct session *s, FILE *out);

#endif
