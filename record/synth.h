/* SPDX-License-Identifier: MIT */
/*
 * Synthesized records: what the kernel would have written for tasks and
 * mappings that existed before prec started watching them.
 *
 * When prec attaches to running processes (-p, -t, -a) the kernel sends no
 * COMM, FORK or MMAP2 for what already exists, so these functions read /proc
 * and build those records byte for byte as the kernel lays them out in the
 * ring buffer (perf_event_open(2), "MMAP layout"): host byte order, strings
 * NUL-padded to 8 bytes, size a multiple of 8 and at most 65535, each record
 * followed by the sample_id_all trailer of the tracking event. perf calls
 * these "synthesized events" (perf_event__synthesize_*).
 *
 * The trailer holds, as sample_type selects and in this order: pid/tid (the
 * record's own), time 0 (synthesized records come before everything), id,
 * stream_id (both p->id), cpu (u32)-1 with res 0, identifier (p->id). Pass
 * sample_type 0 when the tracking event has no sample_id_all.
 *
 * Records go to p->emit one at a time; the bytes are valid only during the
 * call. A negative return from emit stops the walk and is returned, with a
 * message in err naming the record. Nothing here prints or exits.
 *
 * /proc is read as untrusted input: lines that do not parse are skipped,
 * mappings whose name is PATH_MAX bytes or longer are skipped, a comm is cut
 * at 255 bytes. A task that exits while it is read is not an error: what
 * was emitted stays emitted and the walk goes on (or returns 0).
 */
#ifndef PREC_RECORD_SYNTH_H
#define PREC_RECORD_SYNTH_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"

struct synth_params {
	uint64_t sample_type;   /* of the tracking event: decides the trailer (TID, TIME,
				   ID, STREAM_ID, CPU, IDENTIFIER bits, in that order) */
	uint64_t id;            /* value of the ID, STREAM_ID and IDENTIFIER trailer fields */
	const char *proc;       /* "/proc" unless a test points elsewhere; NULL means "/proc" */
	int (*emit)(void *ctx, const void *rec, size_t len);   /* 0 or negative code; stops the walk */
	void *ctx;
	bool data;              /* -d: the readable data mappings too, as the kernel's
				   mmap_data gives them (misc PERF_RECORD_MISC_MMAP_DATA) */
};

/*
 * The process `pid` (the process of `pid` when it names a thread):
 *   COMM of the leader (pid = tid = tgid), then
 *   MMAP2 of every mapping with PROT_EXEC in /proc/PID/maps (with p->data,
 *     every readable one too, as perf does for -d; pid = tid =
 *     tgid; anonymous ones as "//anon", "[vdso]" and the like as named, a
 *     " (deleted)" suffix kept as the kernel does; maj/min/ino from the maps
 *     line, ino_generation 0, prot/flags from its permissions), then
 *   for every other thread, FORK (pid = ppid = ptid = tgid, tid = the
 *     thread, time 0) and its COMM.
 * Maps come before the FORKs so that a reader that copies the parent's maps
 * at FORK gets them. Every record has misc PERF_RECORD_MISC_USER.
 * Returns 0, or -ESRCH with "process N does not exist" when /proc has no
 * such task, or another negative code.
 */
int synth_process(pid_t pid, const struct synth_params *p, struct err *err);

/* Only the thread `tid` (for -t): its COMM (pid = its tgid, tid) and the
 * MMAP2 of its process (pid = tgid, tid = tid). 0 or a negative code, as
 * synth_process. */
int synth_thread(pid_t tid, const struct synth_params *p, struct err *err);

/* Every process in /proc (for -a), as synth_process. Kernel threads have no
 * maps and get only their COMM, so that kernel samples name them. Processes
 * that exit meanwhile or whose maps cannot be read (another user's, without
 * privileges) are skipped; a failing emit or a failure to list /proc stops
 * the walk. Returns the number of processes synthesized (some records
 * emitted, walk of that process complete) or a negative code. */
int synth_all(const struct synth_params *p, struct err *err);

/*
 * The kernel image as perf does: one MMAP (misc PERF_RECORD_MISC_KERNEL,
 * pid (u32)-1, tid 0) named "[kernel.kallsyms]_text", starting at _text (or
 * _stext) from <proc>/kallsyms, len ~0ULL - start, pgoff = start; then one
 * MMAP per module of <proc>/modules with a non-zero address, named "[name]",
 * len its size, pgoff 0, misc KERNEL, pid (u32)-1, tid 0. A missing modules
 * file means no modules.
 * *restricted (may be NULL) is set to true when kallsyms hides addresses
 * (kptr_restrict): then nothing is emitted and 0 returned. Neither _text nor
 * _stext in kallsyms is -ENOENT.
 */
int synth_kernel(const struct synth_params *p, bool *restricted, struct err *err);

/* One record of this type: the header, len bytes of body (a multiple of
 * 8, as the kernel lays the record out) and the trailer (pid and tid 0).
 * 0 or a negative code, as above. (cgroup.c's CGROUP records.) */
int synth_record(const struct synth_params *p, uint32_t type, const void *body, size_t len,
		 struct err *err);

#endif
