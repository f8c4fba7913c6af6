/* SPDX-License-Identifier: MIT */
/*
 * prec: record samples into a prec.data file, as `perf record` does.
 *
 *   prec [options] [--] command [args]     (or: prec record ...)
 *
 * Order of work: parse options; fork the workload (held); open the events
 * and map the ring buffers; create the output under a temporary name; write
 * the metadata and the event blocks; synthesize what already runs
 * (-p/-t/-a); start the workload (or enable the events); rename an old
 * output file to NAME.old and the new one to NAME; drain until the workload
 * ends, the duration is over or a signal arrives; drain once more; write
 * build ids and the final metadata; close the file and print the summary
 * line.
 *
 * Never lose a file: a start that fails leaves the output and its .old as
 * they were; a failure once recording has started (disk full) keeps the file
 * up to its last complete block and says what it holds.
 */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "control.h"
#include "format/blocks.h"
#include "format/record.h"
#include "record/cgroup.h"

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- recording ------------------------------------------------------- */

/* perf renames an existing output file to NAME.old before writing (here:
 * once recording has started, commit_output). */
static void keep_old_output(const char *path)
{
	struct stat st;
	char old[4096];

	if (stat(path, &st) || !S_ISREG(st.st_mode) || !st.st_size)
		return;
	snprintf(old, sizeof(old), "%s.old", path);
	rename(path, old);
}

/* What already runs when we attach: tasks, their mappings, the kernel. */
static int synthesize(struct session *s, struct err *err)
{
	struct buf out = BUF_INIT;
	int ret = record_synthesize(s, &out, err);

	if (ret >= 0 && out.len)
		ret = container_write_records(s->writer, SPAN_CPU_SYNTH, out.data, out.len, NULL, 0,
					      err);
	buf_free(&out);
	return ret < 0 ? ret : 0;
}

static void print_setup(const struct session *s)
{
	fprintf(stderr, "prec: %zu event%s on %zu CPU%s%s, %zu file descriptors, "
		"%zu ring buffer%s of %zu KiB\n", s->nr_events, s->nr_events == 1 ? "" : "s",
		s->nr_cpus, s->nr_cpus == 1 ? "" : "s", s->tids ? " (following tasks)" : "",
		s->nr_evfds, s->nr_rings, s->nr_rings == 1 ? "" : "s",
		s->nr_rings ? s->rings[0].data_size >> 10 : 0);
	for (size_t i = 0; i < s->nr_events; i++)
		fprintf(stderr, "prec: event %zu '%s': type %u config %#llx, %s %llu, sample_type %#llx\n",
			i, s->events[i].name, s->attrs[i].type, (unsigned long long)s->attrs[i].config,
			s->attrs[i].freq ? "frequency" : "period",
			(unsigned long long)s->attrs[i].sample_period,
			(unsigned long long)s->attrs[i].sample_type);
	fprintf(stderr, "prec: build ids %s\n", s->build_id_in_mmap ?
		"from the kernel's MMAP2 records" : "read from the binaries at the end");
}

struct run {
	struct session s;
	struct workload wl;
	struct record_pipe *pipe;       /* -o -: the stream on stdout */
	bool have_workload;
	bool recording;         /* started: the output has its name */
	int status;             /* wait status of the workload, -1 when none */
	char tmp[PATH_MAX];     /* the output's name until then; "" when none */
	struct container_writer_stats kept;     /* what the file holds, once closed */
	struct flight_files *files;     /* --switch-output: the files written */
	double next_switch;     /* --switch-output=TIME: when (mono_s) */
	bool size_stop;         /* --max-size stopped it: exit 0, as perf */
	/* this thread's CPU clock (ns) at the loop's start, the loop's end and
	 * before the embedding step; -v prints where the time went */
	uint64_t cpu_loop, cpu_finish, cpu_embed;
	double drain_gap_max;           /* longest time between two drain passes, s */
};

/* The output is written under a temporary name beside it until recording
 * has started (commit_output), so that a start that fails touches no file.
 * A device or FIFO (/dev/null, /dev/full) and a stream's private file are
 * written in place. */
static int open_output(struct run *run, const struct container_writer_opts *wo,
		       struct err *err)
{
	const char *path = run->s.opts->output;
	struct stat st;
	int fd, ret;

	/* -o -: the private file the stream is copied from (record/pipe.c) */
	if (run->pipe || (!stat(path, &st) && !S_ISREG(st.st_mode)))
		return container_writer_open(&run->s.writer, path, wo, err);
	if ((size_t)snprintf(run->tmp, sizeof(run->tmp), "%s.XXXXXX", path) >= sizeof(run->tmp)) {
		run->tmp[0] = 0;
		return err_set(err, -ENAMETOOLONG, "cannot create '%s': %s", path,
			       err_str(-ENAMETOOLONG));
	}
	fd = mkostemp(run->tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		run->tmp[0] = 0;
		return err_set(err, ret, "cannot create '%s': %s", path, err_str(ret));
	}
	close(fd);
	ret = container_writer_open(&run->s.writer, run->tmp, wo, err);
	if (ret) {
		unlink(run->tmp);
		run->tmp[0] = 0;
	}
	return ret;
}

/* Recording has started: the output gets its name (an older one moves to
 * NAME.old). */
static int commit_output(struct run *run, struct err *err)
{
	const char *path = run->s.opts->output;
	int ret;

	if (run->tmp[0]) {
		keep_old_output(path);
		if (rename(run->tmp, path)) {
			ret = -errno;
			return err_set(err, ret, "cannot create '%s': %s", path, err_str(ret));
		}
		run->tmp[0] = 0;
	}
	run->recording = true;
	return 0;
}

/* A DATA block is written when full, and at least this often, so that a
 * recording killed with SIGKILL loses at most the last 0.2 s: the writer's
 * thread writes a block as soon as it is handed over, unless the machine
 * keeps it from the CPU (then the blocks wait in its queue, and so much
 * more may be lost, rather than the kernel's samples). */
#define FLUSH_INTERVAL_S 0.2

/* A poll timeout that ends no later than `when` (mono_s time). */
static int timeout_until(double when, int timeout)
{
	double left = when - mono_s();

	if (left <= 0)
		return 0;
	return left * 1000 < timeout ? (int)(left * 1000) + 1 : timeout;
}

static int close_output(struct run *run, struct container_writer_stats *st, uint64_t *file_bytes,
			struct err *err);

/* --switch-output: the current file is finished as a whole prec.data (build
 * ids, final metadata, embedded symbols) under its timestamped name, and the
 * recording goes on in a new one, with the metadata, the events and what
 * runs now synthesized again, as at the start. */
static int switch_output(struct run *run, struct err *err)
{
	struct session *s = &run->s;
	const struct record_opts *o = s->opts;
	struct container_writer_stats st;
	struct container_writer_opts wo;
	struct buf synth = BUF_INIT;
	char name[PATH_MAX];
	uint64_t bytes;
	int ret;

	flight_hold_read_counts(s);
	if (o->overwrite && session_dump_backward(s, err) < 0)
		return -1;
	if (session_drain(s, err) < 0)
		return -1;
	flight_reset_read_counts(s);
	/* what runs now, read before the slow part (embedding): a workload
	 * that ends meanwhile is still named in the new file */
	ret = record_synthesize(s, &synth, err);
	if (ret >= 0)
		ret = close_output(run, &st, &bytes, err);
	if (!ret)
		ret = flight_files_rotate(&run->files, o->output, o->switch_max_files, name,
					  sizeof(name), err);
	if (ret) {
		buf_free(&synth);
		return ret;
	}
	if (!o->quiet)
		fprintf(stderr, "[ prec: switched output: wrote %.3f MB %s (%llu samples, %llu lost) ]\n",
			(double)bytes / (1024.0 * 1024.0), name,
			(unsigned long long)st.by_type[PERF_RECORD_SAMPLE],
			(unsigned long long)st.lost_samples);
	dso_list_free(s->dsos);
	s->dsos = dso_list_new();
	record_layouts_free(s->layouts);
	s->layouts = record_layouts_new();
	record_writer_opts(s, &wo);
	ret = container_writer_open(&s->writer, o->output, &wo, err);
	if (!ret)
		ret = write_metadata(s->writer, o, wall_ns(), err);
	if (!ret)
		ret = record_write_events(s, err);
	if (!ret) {
		container_writer_set_layouts(s->writer, s->layouts);
		if (synth.len)
			ret = container_write_records(s->writer, SPAN_CPU_SYNTH, synth.data, synth.len,
						      NULL, 0, err);
	}
	buf_free(&synth);
	return ret;
}

/* --max-size and --switch-output, once per loop: 1 to stop, 0 to go on, or
 * negative. The file's size is known after a flush (flushed). */
static int flight_step(struct run *run, bool flushed, struct err *err)
{
	const struct record_opts *o = run->s.opts;
	struct container_writer_stats st;
	bool due = false;

	if (flushed && (o->max_size || o->switch_size)) {
		container_writer_get_stats(run->s.writer, &st);
		if (o->max_size && st.file_bytes >= o->max_size) {
			if (!o->quiet)
				fprintf(stderr, "[ prec: the output reached its size limit (%llu KiB), "
					"stopping ]\n", (unsigned long long)(st.file_bytes >> 10));
			run->size_stop = true;
			return 1;
		}
		due = o->switch_size && st.file_bytes >= o->switch_size;
	}
	if (o->switch_output && switch_output_take())
		due = true;
	if (run->next_switch && mono_s() >= run->next_switch) {
		due = true;
		run->next_switch = mono_s() + o->switch_time;
	}
	return due ? switch_output(run, err) : 0;
}

static int record_loop(struct run *run, struct err *err)
{
	const struct record_opts *o = run->s.opts;
	double deadline = o->duration > 0 ? mono_s() + o->duration : 0;
	double next_flush = mono_s() + FLUSH_INTERVAL_S, last_drain = mono_s(), now;

	run->cpu_loop = thread_cpu_ns();
	for (;;) {
		int timeout = timeout_until(next_flush, 100), ret, step;
		bool flushed;

		if (deadline) {
			double left = deadline - mono_s();

			if (left <= 0)
				break;
			if (left * 1000 < timeout)
				timeout = (int)(left * 1000) + 1;
		}
		timeout = record_control_timeout(&run->s, timeout);
		ret = session_poll(&run->s, timeout);
		if (ret < 0)
			return err_set(err, ret, "poll: %s", strerror(-ret));
		if (session_drain(&run->s, err) < 0)
			return -1;
		now = mono_s();
		if (now - last_drain > run->drain_gap_max)
			run->drain_gap_max = now - last_drain;
		last_drain = now;
		flushed = now >= next_flush;
		if (flushed) {
			if (container_writer_flush(run->s.writer, err))
				return -1;
			next_flush = mono_s() + FLUSH_INTERVAL_S;
		}
		step = flight_step(run, flushed, err);
		if (step < 0)
			return -1;
		if (step == 1)
			break;
		record_control_poll(&run->s);  /* -D's time, --control's commands */
		if (ret == 1 && !run->have_workload)
			break;                  /* the processes we attached to are gone */
		if (stop_requested())
			break;
		if (run->have_workload && child_exited_take() &&
		    waitpid(run->wl.pid, &run->status, WNOHANG) == run->wl.pid)
			break;
	}
	return 0;
}

static void print_summary(const struct record_opts *o, const struct container_writer_stats *st,
			  uint64_t file_bytes, const char *name)
{
	if (o->quiet)
		return;
	fprintf(stderr, "[ prec: captured and wrote %.3f MB %s (%llu samples, %llu lost) ]\n",
		(double)file_bytes / (1024.0 * 1024.0), name,
		(unsigned long long)st->by_type[PERF_RECORD_SAMPLE],
		(unsigned long long)st->lost_samples);
	if (st->lost_samples)
		fprintf(stderr, "prec: warning: the kernel lost %llu samples: the ring buffers "
			"overflowed; try a larger -m or a lower -F\n",
			(unsigned long long)st->lost_samples);
	if (st->blocks_stored_behind || st->blocks_eased)
		fprintf(stderr, "prec: the writer thread fell behind (kept from the CPU): to keep "
			"up, %llu data blocks were written uncompressed and %llu at -z 1 instead of "
			"%ld\n", (unsigned long long)st->blocks_stored_behind,
			(unsigned long long)st->blocks_eased, o->level);
}

/* The events follow the command (inherited, enabled on its exec) unless
 * a target is given too: then, as in perf, the command only sets the
 * duration of a system-wide (-a, -C) or attached (-p, -t) recording. */
/* -v: where prec's CPU time went (thread clocks). */
static void print_cpu(const struct run *run, const struct container_writer_stats *st)
{
	uint64_t now = thread_cpu_ns();

	fprintf(stderr, "prec: CPU: drain %.1f ms, writer thread %.1f ms (transform and CRC "
		"%.1f, compression %.1f), end %.1f ms (embedding %.1f)\n",
		(double)(run->cpu_finish - run->cpu_loop) / 1e6, (double)st->cpu_worker_ns / 1e6,
		(double)st->cpu_transform_ns / 1e6, (double)st->cpu_compress_ns / 1e6,
		(double)(now - run->cpu_finish) / 1e6, (double)(now - run->cpu_embed) / 1e6);
	fprintf(stderr, "prec: the longest time between two drains of the ring buffers: %.0f ms\n",
		run->drain_gap_max * 1e3);
	if (st->queue_peak > 1)
		fprintf(stderr, "prec: the writer thread fell behind: up to %llu blocks waited for "
			"it; the drain waited for room %llu times\n",
			(unsigned long long)st->queue_peak, (unsigned long long)st->queue_waits);
}

static bool follows_workload(const struct run *run)
{
	const struct record_opts *o = run->s.opts;

	return run->have_workload && !o->all_cpus && !o->cpu_list && !o->pids && !o->tids;
}

static int start(struct run *run, struct err *err)
{
	struct session *s = &run->s;
	const struct record_opts *o = s->opts;
	struct container_writer_opts wo;
	int ret;

	record_writer_opts(s, &wo);

	if (o->argc) {
		run->wl.stop_at_exec = probes_need_exec_stop(&o->events);
		ret = workload_prepare(&run->wl, o->argv, err);
		if (ret)
			return ret;
		run->have_workload = true;
	}
	ret = session_open_events(s, follows_workload(run) ? run->wl.pid : -1, err);
	if (!ret)
		ret = session_mmap(s, err);
	if (!ret)
		ret = open_output(run, &wo, err);
	if (!ret)
		ret = write_metadata(s->writer, o, wall_ns(), err);
	if (!ret)
		ret = record_write_events(s, err);
	if (ret)
		return ret;
	container_writer_set_layouts(s->writer, s->layouts);
	if (o->verbose)
		print_setup(s);
	if (follows_workload(run)) {
		/* the kernel's own map: the workload's come from the kernel;
		 * the events start with its exec (enable_on_exec) */
		ret = synthesize(s, err);
	} else {
		/* -a, -C, -p, -t: from now on (-D: later); a command only sets how long */
		ret = o->delay_ms ? 0 : session_enable(s, err);
		if (!ret)
			ret = synthesize(s, err);
	}
	if (ret)
		return ret;
	if (follows_workload(run))
		s->workload = run->wl.pid;
	record_control_start(s);
	if (run->have_workload) {
		ret = workload_start(&run->wl, err);
		if (ret) {
			err_prefix(err, "cannot run '%s'", o->argv[0]);
			return ret;
		}
		if (run->wl.stop_at_exec)       /* mem:SYMBOL of a PIE */
			ret = session_probes_at_exec(s, run->wl.pid, err);
		if (ret)
			return ret;
		if (follows_workload(run))
			s->workload_pid = run->wl.pid;
	}
	run->next_switch = o->switch_time > 0 ? mono_s() + o->switch_time : 0;
	return commit_output(run, err);
}

/* Exit status as perf: the workload's, 128 + signal if it was killed. */
static int exit_code(const struct run *run)
{
	if (run->status < 0 || run->size_stop)
		return 0;
	if (WIFSIGNALED(run->status))
		return 128 + WTERMSIG(run->status);
	return WEXITSTATUS(run->status);
}

/* The output is whole: build ids, final metadata, index, embedded symbols.
 * *st: what it holds; *file_bytes: its size. */
static int close_output(struct run *run, struct container_writer_stats *st, uint64_t *file_bytes,
			struct err *err)
{
	struct session *s = &run->s;
	uint64_t bytes;
	int ret;

	container_writer_get_stats(s->writer, st);
	ret = write_build_ids(s->writer, s->dsos, err);
	/* Attaching: the kernel's symbols too, so that the report names what ran
	 * (skipped for a command, where reading them would be most of the cost). */
	if (!ret && (s->opts->pids || s->opts->tids || s->opts->all_cpus || s->opts->cpu_list))
		ret = write_kallsyms(s->writer, s->opts->verbose, err);
	if (!ret)       /* --off-cpu: where waits still open end */
		ret = offcpu_write_end_clock(s, s->writer, err);
	if (!ret)
		ret = write_final_metadata(s->writer, st, run->status, wall_ns(), err);
	if (ret)
		return ret;
	container_writer_get_stats(s->writer, &run->kept);
	bytes = run->kept.file_bytes;
	ret = container_writer_close(s->writer, err);
	s->writer = NULL;
	if (ret) {
		/* all the data is in the file: its index or header is not */
		run->kept.error = ret;
		return ret;
	}
	run->cpu_embed = thread_cpu_ns();
	bytes += record_embed(s->opts);
	*file_bytes = bytes;
	return 0;
}

static int finish(struct run *run, struct err *err)
{
	struct session *s = &run->s;
	struct container_writer_stats st;
	char name[PATH_MAX];
	uint64_t file_bytes;
	int ret;

	run->cpu_finish = thread_cpu_ns();
	session_disable(s);
	if (s->opts->overwrite && session_dump_backward(s, err) < 0)
		return -1;
	if (session_drain(s, err) < 0)
		return -1;
	if (run->have_workload && run->status < 0) {
		/* stopped by a signal or --duration: end the workload as perf does */
		kill(run->wl.pid, SIGTERM);
		waitpid(run->wl.pid, &run->status, 0);
	}
	ret = close_output(run, &st, &file_bytes, err);
	if (ret)
		return ret;
	if (run->pipe && (ret = record_pipe_finish(run->pipe, &file_bytes, err)))
		return ret;
	snprintf(name, sizeof(name), "%s", s->opts->output);
	/* --switch-output: the last file gets its timestamped name too */
	if (s->opts->switch_output &&
	    (ret = flight_files_rotate(&run->files, s->opts->output, s->opts->switch_max_files,
				       name, sizeof(name), err)))
		return ret;
	print_summary(s->opts, &st, file_bytes, name);
	if (s->opts->verbose)
		print_cpu(run, &st);
	if (s->opts->verbose)
		offcpu_print_stats(s, stderr);
	return 0;
}

/* A start that failed: the workload (held, or not exec'd) is killed and the
 * temporary output removed; the output and its .old are as they were. */
static void abandon(struct run *run, const struct err *err)
{
	struct container_writer_stats st = { 0 };

	if (run->s.writer)
		container_writer_get_stats(run->s.writer, &st);
	if (st.error)
		fprintf(stderr, "prec: cannot write '%s': %s\n", run->s.opts->output,
			err_str(st.error));
	else
		fprintf(stderr, "prec: %s\n", err->msg);
	if (run->have_workload) {
		kill(run->wl.pid, SIGKILL);
		waitpid(run->wl.pid, NULL, 0);
	}
	container_writer_abort(run->s.writer);
	run->s.writer = NULL;
	if (run->tmp[0])
		unlink(run->tmp);
}

/* A failure once recording has started (disk full, I/O error): the file
 * keeps what was written, up to its last complete block, without index
 * (readers warn that the recording did not finish). The workload is ended
 * as perf ends it, with SIGTERM. One line says what the file holds. */
static void keep_partial(struct run *run, const struct err *err)
{
	const char *path = run->s.opts->output;
	struct container_writer_stats *st = &run->kept;
	double secs;

	session_disable(&run->s);
	if (run->have_workload && run->status < 0) {
		kill(run->wl.pid, SIGTERM);
		waitpid(run->wl.pid, &run->status, 0);
	}
	if (run->s.writer) {
		/* what was drained goes in too, unless the file cannot take it */
		container_writer_flush(run->s.writer, NULL);
		container_writer_get_stats(run->s.writer, st);
		container_writer_abort(run->s.writer);
		run->s.writer = NULL;
	}
	secs = st->time_max > st->time_min ? (double)(st->time_max - st->time_min) / 1e9 : 0;
	if (st->error)
		fprintf(stderr, "prec: cannot write '%s': %s; kept %llu samples (%.2f s)\n", path,
			err_str(st->error), (unsigned long long)st->samples, secs);
	else
		fprintf(stderr, "prec: %s; kept %llu samples (%.2f s) in '%s'\n", err->msg,
			(unsigned long long)st->samples, secs, path);
}

/* What library and report code say (common/log.h), under prec's name:
 * "prec: warning: ...". No progress line: prec reads no large input. */
static void on_log(void *ctx, enum log_level level, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "prec: %s%s\n", log_level_tag(level), msg);
}

int main(int argc, char **argv)
{
	struct record_opts o = { .output = "prec.data", .level = CONTAINER_DEFAULT_LEVEL,
				 .record_argc = argc, .record_argv = argv };
	struct run run = { .status = -1 };
	struct err err = { 0 };
	int ret;

	log_set_handler(on_log, NULL, LOG_ALL & ~LOG_MASK(LOG_PROGRESS));
	if (argc > 1 && !strcmp(argv[1], "stat"))
		return cmd_stat(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "list"))
		return cmd_list(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "top"))
		return cmd_top(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "record")) {
		argv++;
		argc--;
	}
	ret = record_parse_args(&o, argc, argv);
	if (ret) {
		cgroup_names_free(o.cgroups, o.events.nr);
		event_list_free(&o.events);     /* parsed before a bad value */
		return ret;
	}
	if (control_open(&run.s.control, o.control, &err)) {
		fprintf(stderr, "prec: %s\n", err.msg);
		cgroup_names_free(o.cgroups, o.events.nr);
		event_list_free(&o.events);
		return 129;
	}
	run.s.opts = &o;
	run.s.events = o.events.ev;
	run.s.nr_events = o.events.nr;
	run.s.dsos = dso_list_new();
	run.s.layouts = record_layouts_new();
	stop_signals_install();
	/* SIGUSR2 switches the output with --switch-output; without it, it is
	 * ignored as perf does, not a death that loses an --overwrite
	 * recording (a handler, unlike SIG_IGN, is not passed to the workload) */
	switch_signal_install();
	/* over the file size limit, write() fails with EFBIG: keep the file */
	signal(SIGXFSZ, SIG_IGN);

	ret = record_pipe_open(&run.pipe, &o, &err);
	if (!ret)
		ret = start(&run, &err);
	if (!ret)
		ret = record_loop(&run, &err);
	if (!ret)
		ret = finish(&run, &err);
	if (ret) {
		if (run.recording)
			keep_partial(&run, &err);
		else
			abandon(&run, &err);
		ret = 255;
	} else {
		ret = exit_code(&run);
	}
	record_pipe_close(run.pipe);
	flight_files_free(run.files);
	record_session_close(&run.s);
	control_close(run.s.control);
	cgroup_names_free(o.cgroups, o.events.nr);
	dso_list_free(run.s.dsos);
	record_layouts_free(run.s.layouts);
	event_list_free(&o.events);
	return ret;
}
