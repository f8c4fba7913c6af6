/* SPDX-License-Identifier: MIT */
/*
 * prec: the sampling recorder. struct record_opts is what the command line
 * asked for (filled by the option table in main.c, never changed after but
 * for `-o -`, see pipe.c);
 * struct session is the runtime state of one recording.
 */
#ifndef PREC_RECORD_RECORD_H
#define PREC_RECORD_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/events.h"
#include "format/container.h"
#include "record/offcpu.h"
#include "record/sample_opts.h"

#define PREC_VERSION "0.1"

enum callgraph_mode {
	CALLGRAPH_NONE,
	CALLGRAPH_FP,
	CALLGRAPH_DWARF,
};

struct control;

struct record_opts {
	struct event_list events;       /* -e, in order; default cycles (fallback cpu-clock) */
	bool default_event;             /* no -e given */
	size_t last_e_first;            /* first event of the last -e (for --filter) */
	const char *filters[EVENT_LIST_MAX]; /* --filter per event, or NULL */
	long freq;                      /* -F; 0 when -c is used */
	bool freq_given;                /* -F was given (tracepoints default to period 1) */
	bool freq_max;                  /* -F max */
	long period;                    /* -c */
	enum callgraph_mode callgraph;
	long stack_size;                /* --call-graph dwarf,SIZE */
	const char *pids;               /* -p list */
	const char *tids;               /* -t list */
	bool all_cpus;                  /* -a */
	const char *cpu_list;           /* -C */
	double duration;                /* --duration seconds, 0 = until the command ends / Ctrl-C */
	const char *output;             /* -o */
	long mmap_pages;                /* -m, data pages per CPU, power of two; 0 = default */
	long level;                     /* -z */
	bool switch_events;
	bool latency;                   /* --latency: switch_events, for prep --latency */
	bool no_inherit;
	bool stat;                      /* -s: per-thread counts (inherit_stat) */
	bool no_buildid;
	bool no_embed;          /* --no-embed */
	bool embed_source;      /* --embed-source */
	bool overwrite;                 /* --overwrite: backward rings, read at a dump (flight.c) */
	bool switch_output;             /* --switch-output given (any form) */
	uint64_t switch_size;           /* --switch-output=SIZE: bytes, 0 none */
	double switch_time;             /* --switch-output=TIME: seconds, 0 none */
	long switch_max_files;          /* --switch-max-files: 0 keeps all */
	uint64_t max_size;              /* --max-size: bytes, 0 none */
	long delay_ms;                  /* -D: enable this long after the start; -1: on --control's enable */
	const char *control;            /* --control fifo:CTL[,ACK] or fd:N[,M] */
	struct sample_opts sample;      /* -d, -W, --user-regs, --clockid, -b/-j ... */
	int quiet;
	int verbose;
	int argc;                       /* the workload */
	char **argv;
	int record_argc;                /* prec's own command line, for the metadata */
	char **record_argv;
	const char *cgroups[EVENT_LIST_MAX];    /* -G: each event's cgroup, or NULL */
	size_t nr_cgroup_names;         /* -G names given so far (cgroup.h) */
	bool all_cgroups;               /* --all-cgroups */
	struct offcpu_opts off;         /* --off-cpu, --off-cpu-thresh (offcpu.h) */
};

/* One opened event on one CPU/thread. */
struct evfd {
	int fd;
	int event;                      /* index in opts.events */
	int cpu;                        /* -1: any */
	pid_t tid;                      /* -1: any */
	uint64_t id;
};

/* One ring buffer: 1 + 2^n pages mapped on the first fd of a CPU (or thread). */
struct ring {
	void *base;                     /* the control page, then the data pages */
	size_t data_size;
	uint64_t tail;                  /* how far we have copied (backward: head at the last dump) */
	uint64_t pass_head;             /* the kernel's head when the drain pass began */
	int cpu;
	int fd;
	bool backward;                  /* write_backward, mapped read-only (--overwrite) */
};

/* Where a session's blocks and drained records go besides the writer
 * (prec top's view, record/top.c): the EVENT blocks, each ring buffer's
 * bytes as copied (two pieces when it wrapped) and the end of each drain
 * pass. Each returns 0 or a negative code with err set. */
struct record_sink {
	int (*block)(void *ctx, unsigned type, const void *payload, size_t len, struct err *err);
	int (*records)(void *ctx, uint32_t cpu, const void *p1, size_t n1, const void *p2,
		       size_t n2, struct err *err);
	int (*round)(void *ctx, struct err *err);
	void *ctx;
};

struct session {
	const struct record_opts *opts;
	struct event_spec *events;      /* a copy of opts->events (the default may fall back) */
	size_t nr_events;
	struct perf_event_attr *attrs;  /* per event, as opened */
	size_t nr_evfds, cap_evfds;
	struct evfd *evfds;
	size_t nr_rings;
	size_t ring_pages;              /* data pages per ring (-m, or a default that fits) */
	struct ring *rings;
	int *cpus;                      /* CPUs events are opened on; -1 alone for per-thread */
	size_t nr_cpus;
	pid_t *tids;                    /* threads for -p / -t / a workload; NULL for -a */
	size_t nr_tids, cap_tids;
	struct container_writer *writer;        /* NULL: none (prec top without --record) */
	const struct record_sink *sink;         /* or NULL */
	uint64_t bytes_drained;
	uint64_t wakeups;
	bool build_id_in_mmap;          /* the kernel accepted attr.build_id */
	bool tried_user_only;           /* an event fell back to excluding the kernel */
	struct dso_list *dsos;          /* binaries seen in MMAP/MMAP2 records */
	struct record_layouts *layouts; /* the events as the decoder sees them */
	pid_t workload_pid;             /* once started: what a switched file synthesizes again */
	struct control *control;        /* --control, or NULL (control.h) */
	double enable_at;               /* -D MSEC: when to enable (CLOCK_MONOTONIC s); 0: none */
	bool disabled;                  /* -D or --control's disable holds the events off */
	pid_t workload;                 /* the workload followed, or 0 */
	int *cgroup_fds;                /* -G: per event, its cgroup's directory or -1 */
	struct offcpu_rec *offcpu;      /* --off-cpu (offcpu.h), else NULL */
	bool poll_stdin;                /* session_poll wakes on standard input too (prec top) */
	bool stdin_ready;               /* ... and it had something to read */
};

/* options.c: the command line into o (exits for --help and --version);
 * 0, or 129 after printing the error and the usage. */
int record_parse_args(struct record_opts *o, int argc, char **argv);

/* -F (a number of Hz or max; default 4000, none with -c) into o. */
int record_check_freq(struct record_opts *o, const char *freq_arg, struct err *err);
/* --call-graph fp|dwarf[,SIZE]|none (NULL: -g's fp when fp_flag) into o. */
int record_check_callgraph(struct record_opts *o, const char *a, bool fp_flag, struct err *err);

/* evlist.c */
int session_open_events(struct session *s, pid_t workload, struct err *err);
int session_mmap(struct session *s, struct err *err);
int session_enable(struct session *s, struct err *err);
int session_disable(struct session *s);
void record_session_close(struct session *s);

/* target.c: what prec and prec stat measure (-a, -C, -p, -t) */
int parse_cpu_list(const char *list, int **cpus, size_t *n, struct err *err);
/* The CPUs of -C list (each must be online), or without one every online
 * CPU, as a new array (the caller frees it). */
int target_cpus(const char *list, int **cpus, size_t *n, struct err *err);
/* The next id of a -p/-t comma list ("12,34"), advancing *p: 1 with *id,
 * 0 at the end, -EINVAL where no number in 1..max followed by a comma or
 * the end comes (the caller words the error: its option, its list). */
int id_list_next(const char **p, long max, long *id);
/* Append tid to the array *tids of *nr (capacity *cap): 0 or -ENOMEM. */
int tids_add(pid_t **tids, size_t *nr, size_t *cap, pid_t tid);
/* Append every thread of process pid, from /proc/PID/task: 0, -ESRCH when
 * there is no such process, or -ENOMEM. */
int tids_add_process(pid_t **tids, size_t *nr, size_t *cap, long pid);

/* stop.c: SIGINT and SIGTERM ask to stop; SIGCHLD (not for a stopped
 * child) notes that a child ended and ends a sleep in poll/ppoll. */
void stop_signals_install(void);
bool stop_requested(void);
/* Whether a child ended since the last call (the note is cleared). */
bool child_exited_take(void);
/* --control stop: ask to stop, as SIGTERM does. */
void stop_request(void);
/* --control snapshot (perf's SIGUSR2): a flag for the output switch to
 * take (true once per request). */
void switch_output_request(void);
bool switch_output_take(void);
/* --switch-output: SIGUSR2 asks for a new file, as --control's snapshot
 * does (switch_output_take). */
void switch_signal_install(void);

/* drain.c */
/* Copy whatever every ring holds into the writer and the sink; returns
 * bytes copied or a negative code. Writes a round marker after a pass that
 * copied anything. */
long session_drain(struct session *s, struct err *err);
/* Poll the rings until data, a signal or the timeout: 0, 1 when every
 * ring is hung up (the tasks followed have all exited), or negative. */
int session_poll(struct session *s, int timeout_ms);

/* flight.c: --overwrite, --switch-output, --switch-max-files, --max-size */
/* "100K", "2M", "1G", "512" (bytes; B K M G, perf's units): 0 or -EINVAL. */
int flight_parse_size(const char *arg, uint64_t *bytes);
/* --switch-output[=signal|SIZE|TIME] into o: 0 or -EINVAL with err set. */
int flight_parse_switch(struct record_opts *o, const char *arg, struct err *err);
/* The tracking event that --overwrite adds, appended to o->events: 0 or
 * negative with err set. Its index is o->events.nr - 1. */
int flight_add_tracking_event(struct record_opts *o, struct err *err);
/* Which event tracks tasks and mappings (mmap/comm/task bits): the first,
 * or with --overwrite the dummy one on a forward ring. */
size_t flight_tracking_event(const struct session *s);
/* The data pages of --overwrite's forward (tracking) rings for -m pages. */
size_t flight_tracking_pages(size_t pages);
/* --overwrite: pause each backward ring, copy what it gained since the last
 * dump into the writer (oldest record first), resume it. Bytes or negative. */
long session_dump_backward(struct session *s, struct err *err);
/* --switch-output: the counters read into samples (:S groups, -s) start
 * again from 0, so that a new file's first deltas hold only its own counts:
 * hold them off before the old file's last drain, reset (and turn them back
 * on, unless -D or --control holds the events off) after it. */
void flight_hold_read_counts(struct session *s);
void flight_reset_read_counts(struct session *s);
/* "PATH.YYYYMMDDHHMMSScc" (now, local time, as perf names them) into out. */
void flight_timestamp_name(const char *path, char *out, size_t len);
/* Rename the finished path to its timestamped name (out), remember it and,
 * past --switch-max-files, delete the oldest one kept. 0 or -errno. */
struct flight_files;
int flight_files_rotate(struct flight_files **ff, const char *path, long max_files, char *out,
			size_t len, struct err *err);
void flight_files_free(struct flight_files *ff);
/* Synthesize again the workload and its descendants (a switched file needs
 * their COMM/MMAP2 records too). */
struct synth_params;
int flight_synth_workload(pid_t pid, const struct synth_params *p, struct err *err);
/* control_record.c: -D and --control in prec's loop */
/* As the workload starts: -D holds the events off ("Events disabled"). */
void record_control_start(struct session *s);
/* timeout (ms) cut to -D's time to enable. */
int record_control_timeout(const struct session *s, int timeout);
/* -D's time come, and the commands that arrived (never blocks). */
void record_control_poll(struct session *s);

/* stat.c: prec stat [record] */
int cmd_stat(int argc, char **argv);

/* list.c: prec list [sw|hw|cache|tracepoint|pmu|GLOB]... */
int cmd_list(int argc, char **argv);

/* workload.c */
struct workload {
	pid_t pid;
	int go_fd;                      /* write end: the child execs when it closes */
	int err_fd;                     /* read end: errno of a failed exec, or EOF */
	bool stop_at_exec;              /* traced: stops after its exec (probes.c) */
};
int workload_prepare(struct workload *wl, char **argv, struct err *err);
int workload_start(struct workload *wl, struct err *err);

/* advice.c */
/* What failed to open, for open_error_advice. */
struct open_failure {
	const char *name;               /* the event as named (after any :u fallback) */
	bool hardware;                  /* a hardware event (may be missing on a VM) */
	bool system_wide;               /* -a / -C */
	pid_t pid;                      /* the process attached to (-p/-t), 0 for none */
	bool tried_user_only;           /* the :u fallback was tried and refused too */
	uint8_t probe;                  /* enum event_probe of the event */
};
/* A number from a /proc/sys file, or dflt when it cannot be read. */
long sysctl_long(const char *path, long dflt);
/* /proc/sys/kernel/perf_event_paranoid (2 when unreadable). */
int perf_paranoid(void);
/* A one-line explanation of why perf_event_open failed for this event, with
 * what to do about it: the paranoid level, another user's process, a
 * missing counter, the open-files limit. */
void open_error_advice(int errnum, const struct open_failure *f, char *buf, size_t len);
/* perf's fallback for a permission error at perf_event_paranoid >= 2: set
 * exclude_kernel and exclude_hv in a, append ":u" (or "u") to name (a
 * buffer of size bytes) and return true; false when it does not apply. */
bool event_fallback_user_only(struct perf_event_attr *a, char *name, size_t size, int errnum);
/* perf_event_open(a, pid, cpu, group_fd), close-on-exec, with the fallback
 * above: when it is taken, ev is renamed, a follows its exclude bits, and
 * *user_only is set. The fd, or -errno. */
int event_open(struct event_spec *ev, struct perf_event_attr *a, pid_t pid, int cpu, int group_fd,
	       bool *user_only);
/* The same with perf_event_open's flags (PERF_FLAG_PID_CGROUP: pid is a
 * cgroup directory's fd); close-on-exec is always added. */
int event_open_flags(struct event_spec *ev, struct perf_event_attr *a, pid_t pid, int cpu,
		     int group_fd, unsigned long flags, bool *user_only);
/* open_error_advice as err's message; returns -errnum. */
int open_error(int errnum, const struct open_failure *f, struct err *err);
/* The one note line printed once when the fallback was taken. */
void user_only_note(FILE *out, const char *tool, const char *first_name);

/* probes.c: u:/ur:/k:/kr: probes and mem:SYMBOL (common/events.h) */
/* A u:, ur:, k: or kr: probe (not mem:SYMBOL). */
bool event_is_probe(const struct event_spec *ev);
/* Resolve the probes' symbols to file offsets, and mem:SYMBOL to the
 * address of the variable in argv[0] (the command, NULL for none) or in
 * the first process of the -p (or -t) list pids (NULL for none). 0, or a negative
 * code with a one-line message naming the event. */
int probes_resolve(struct event_list *l, char *const *argv, const char *pids, struct err *err);
/* Just before perf_event_open: for a probe, a->config1 points at its path
 * (uprobe) or symbol (kprobe), copied into buf, which must outlive the call;
 * nothing for other events. The kernel copies the text during the call. */
void probe_attr_for_open(const struct event_spec *ev, struct perf_event_attr *a, char *buf,
			 size_t size);

/* Whether a mem:SYMBOL breakpoint waits for the command's exec (a PIE):
 * then the workload is prepared with stop_at_exec, and once started,
 * handed to one of the *_probes_at_exec functions. */
bool probes_need_exec_stop(const struct event_list *l);
/* Wait for the exec stop of the traced command pid and read where its
 * executable was loaded: 0, or -ESRCH when it ended or cannot be read. */
int probes_exec_stopped(pid_t pid, uint64_t *base, struct err *err);
/* Move a breakpoint of ev opened on fd with attr opened to base, enabled
 * or not afterwards; nothing for other events. */
int probe_bp_move(int fd, const struct event_spec *ev, const struct perf_event_attr *opened,
		  uint64_t base, bool enable, struct err *err);
/* Let the traced command go on (PTRACE_DETACH); killed first unless ok. */
void probes_exec_release(pid_t pid, bool ok);
/* All three for a recording session, whose workload pid was just started. */
int session_probes_at_exec(struct session *s, pid_t pid, struct err *err);

/* finish.c */
struct dso_list;
struct dso_list *dso_list_new(void);
void dso_list_free(struct dso_list *l);
void dso_list_note(struct dso_list *l, const void *rec, size_t len);
int write_build_ids(struct container_writer *w, struct dso_list *l, struct err *err);
int write_kallsyms(struct container_writer *w, int verbose, struct err *err);
int write_metadata(struct container_writer *w, const struct record_opts *o, uint64_t start_ns,
		   struct err *err);
int write_final_metadata(struct container_writer *w, const struct container_writer_stats *st,
			 int workload_status, uint64_t end_ns, struct err *err);

/* output.c: what prec and prec top write alike */
/* The container writer's options for this session's file. */
void record_writer_opts(struct session *s, struct container_writer_opts *wo);
/* Each event's EVENT block, to the writer and to the sink (either may be
 * absent), and its layout into s->layouts. 0 or negative with err set. */
int record_write_events(struct session *s, struct err *err);
/* Into out: the kernel's map, and for -p/-t/-a/-C what already runs. */
int record_synthesize(struct session *s, struct buf *out, struct err *err);
/* The finished file o->output gets what the report needs of the binaries
 * hit (unless --no-embed), with prec's messages: its growth in bytes. */
uint64_t record_embed(const struct record_opts *o);

/* top.c: prec top; argv is prec's whole command line ("prec", "top", ...). */
int cmd_top(int argc, char **argv);

/* pipe.c: `-o -`, the stream form on standard output (FORMAT.md 7). The
 * recording is written as usual, to a private unlinked file (o->output
 * names it while recording: the one change to record_opts after parsing);
 * a thread copies each finished block of it to standard output, and
 * record_pipe_finish, once the symbols are embedded, sends the rest and
 * ends the stream. Standard output itself then goes to stderr, for prec and
 * the workload alike, so nothing else can get into the stream. */
struct record_pipe;
/* Nothing (*out NULL) unless o->output is "-". */
int record_pipe_open(struct record_pipe **out, struct record_opts *o, struct err *err);
/* The file is closed and complete: end the stream; *bytes: its length. */
int record_pipe_finish(struct record_pipe *p, uint64_t *bytes, struct err *err);
/* Unfinished (an error): send the blocks that are whole, without the end
 * mark, so the stream reads as cut short. NULL-tolerant. */
void record_pipe_close(struct record_pipe *p);

#endif
