/* SPDX-License-Identifier: MIT */
/*
 * The workload: forked early, held on a pipe until every event is open (so
 * that enable_on_exec catches its very first instruction), then exec'd. A
 * second pipe, closed on exec, carries the errno of a failed exec back.
 */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <unistd.h>

int workload_prepare(struct workload *wl, char **argv, struct err *err)
{
	int go[2], report[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0)
		return err_set(err, -errno, "cannot create a pipe: %s", strerror(errno));
	if (pipe2(report, O_CLOEXEC) < 0) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		return err_set(err, -e, "cannot create a pipe: %s", strerror(e));
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		close(report[0]);
		close(report[1]);
		return err_set(err, -e, "cannot fork: %s", strerror(e));
	}
	if (pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(report[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGXFSZ, SIG_DFL);       /* prec ignores it; exec would keep that */
		/* Wait for the recorder: EOF or a byte means go. */
		if (read(go[0], &c, 1) < 0)
			_exit(127);
		close(go[0]);
		if (!wl->stop_at_exec || !ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			execvp(argv[0], argv);
		e = errno;
		if (write(report[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(report[1]);
	wl->pid = pid;
	wl->go_fd = go[1];
	wl->err_fd = report[0];
	return 0;
}

int workload_start(struct workload *wl, struct err *err)
{
	ssize_t n;
	int e = 0;
	char c = 'g';

	if (write(wl->go_fd, &c, 1) != 1) {
		e = errno;
		close(wl->go_fd);
		return err_set(err, -e, "cannot start the workload: %s", strerror(e));
	}
	close(wl->go_fd);
	wl->go_fd = -1;
	do
		n = read(wl->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(wl->err_fd);
	wl->err_fd = -1;
	if (n == (ssize_t)sizeof(e))
		return err_set(err, -e, "%s", strerror(e));
	return 0;
}
