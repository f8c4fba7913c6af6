/* SPDX-License-Identifier: MIT */
/*
 * `prec -o -`: the recording as a stream on standard output (record.h).
 *
 * Why a private file first: the SYMBOLS and KALLSYMS blocks are made once
 * the recording is over by reading it back (report/symbols/embed.h reads a
 * finished file), and a pipe cannot be read back. So the writer writes a
 * normal file, unlinked from the start (O_TMPFILE in $TMPDIR or /tmp, else
 * a memfd) so that nothing is left behind whatever happens; embed_binaries_hit
 * completes it through /proc/self/fd/N; format/stream.c turns its blocks
 * into the stream. The forwarding runs on a thread of its own, so a slow
 * reader of the pipe never stalls the drain (the file absorbs the
 * difference) and samples are not lost for it.
 */
#include "record.h"
#include "common/thread.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PUMP_INTERVAL_MS 50

struct record_pipe {
	struct record_opts *o;
	int file_fd;                    /* the private copy */
	int out_fd;                     /* the stream: stdout as it was */
	char path[64];                  /* /proc/self/fd/N, what o->output names */
	struct container_stream *cs;
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	int ret;                        /* the forwarder's first failure */
	struct err err;
};

static int private_file(struct err *err)
{
	const char *dir = getenv("TMPDIR");
	int fd = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0)
		fd = memfd_create("prec-stream", MFD_CLOEXEC);
	if (fd < 0)
		return err_set(err, -errno, "-o -: cannot create the private copy of the stream: %s",
			       err_str(-errno));
	return fd;
}

static void *forwarder(void *arg)
{
	struct record_pipe *p = arg;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		struct timespec ts;
		struct err e = { 0 };
		int ret;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += PUMP_INTERVAL_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p->cond, &p->lock, &ts);
		if (p->stop)
			break;
		pthread_mutex_unlock(&p->lock);
		ret = container_stream_pump(p->cs, &e);
		pthread_mutex_lock(&p->lock);
		if (ret) {
			/* the reader went away (EPIPE): stop recording as Ctrl-C does */
			p->ret = ret;
			p->err = e;
			kill(getpid(), SIGTERM);
			break;
		}
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* The thread takes no signals: SIGPIPE becomes EPIPE, and SIGINT, SIGTERM
 * and SIGCHLD stay the main loop's. */
static int start_forwarder(struct record_pipe *p, struct err *err)
{
	pthread_condattr_t ca;
	sigset_t all, old;
	int ret;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, &ca);
	pthread_condattr_destroy(&ca);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = thread_create(&p->thread, forwarder, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->cond);
		return err_set(err, -ret, "-o -: cannot start a thread: %s", err_str(-ret));
	}
	p->running = true;
	return 0;
}

static void stop_forwarder(struct record_pipe *p)
{
	if (!p->running)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	p->running = false;
}

static void pipe_free(struct record_pipe *p)
{
	container_stream_free(p->cs);
	if (p->file_fd >= 0)
		close(p->file_fd);
	if (p->out_fd >= 0)
		close(p->out_fd);
	free(p);
}

int record_pipe_open(struct record_pipe **out, struct record_opts *o, struct err *err)
{
	struct record_pipe *p;
	int ret;

	*out = NULL;
	if (strcmp(o->output, "-"))
		return 0;
	if (isatty(STDOUT_FILENO))
		return err_set(err, -EINVAL, "-o -: the standard output is a terminal: pipe it "
			       "(prec -o - -- cmd | prep -i -) or redirect it to a file");
	p = calloc(1, sizeof(*p));
	if (!p)
		return err_set(err, -ENOMEM, "out of memory");
	p->o = o;
	p->out_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	p->file_fd = -1;
	if (p->out_fd < 0) {
		ret = err_set(err, -errno, "-o -: standard output: %s", err_str(-errno));
		goto fail;
	}
	/* from now on, stdout is stderr: the workload's output (perf does
	 * dup2(2, 1) in its child) and any of ours stay out of the stream */
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		ret = err_set(err, -errno, "-o -: cannot redirect standard output: %s",
			      err_str(-errno));
		goto fail;
	}
	p->file_fd = ret = private_file(err);
	if (ret < 0)
		goto fail;
	snprintf(p->path, sizeof(p->path), "/proc/self/fd/%d", p->file_fd);
	ret = container_stream_new(&p->cs, p->file_fd, p->out_fd, err);
	if (!ret)
		ret = start_forwarder(p, err);
	if (ret)
		goto fail;
	o->output = p->path;
	*out = p;
	return 0;
fail:
	pipe_free(p);
	return ret;
}

int record_pipe_finish(struct record_pipe *p, uint64_t *bytes, struct err *err)
{
	int ret;

	stop_forwarder(p);
	p->o->output = "-";             /* the summary names the stream as perf does */
	if (p->ret) {
		*err = p->err;
		return p->ret;
	}
	ret = container_stream_end(p->cs, err);
	*bytes = container_stream_bytes(p->cs);
	p->ret = ret ? ret : 1;         /* ended: nothing more to send on close */
	return ret;
}

void record_pipe_close(struct record_pipe *p)
{
	struct err e;

	if (!p)
		return;
	stop_forwarder(p);
	if (!p->ret)
		container_stream_pump(p->cs, &e);
	pipe_free(p);
}
