/* SPDX-License-Identifier: MIT */
/*
 * The --control channel (control.h): parsing fifo:/fd:, reading commands
 * without blocking, carrying them out through the caller's ops, and the
 * "ack\n" answers.
 */
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"

#define CONTROL_LINE 256

struct control {
	int fd, ack;            /* ack: -1 when none */
	bool own;               /* fifos we opened (closed at the end) */
	bool eof;               /* the writer closed its end: no more polling */
	bool overlong;          /* the line being read is too long: skipped */
	size_t len;
	char line[CONTROL_LINE];
};

/* A descriptor number of fd:N[,M]: *end is what follows it. */
static int parse_fd(const char *s, char **end, int *fd)
{
	long v;

	errno = 0;
	v = strtol(s, end, 10);
	if (*end == s || errno || v < 0 || v > 1 << 20)
		return -EINVAL;
	*fd = (int)v;
	return 0;
}

static int open_fds(struct control *c, const char *spec, struct err *err)
{
	char *end;

	if (parse_fd(spec + 3, &end, &c->fd) || (*end && *end != ','))
		return -EINVAL;
	if (*end && (parse_fd(end + 1, &end, &c->ack) || *end))
		return -EINVAL;
	if (fcntl(c->fd, F_GETFL) < 0)
		return err_set(err, -EBADF, "--control %s: descriptor %d is not open", spec, c->fd);
	if (c->ack >= 0 && fcntl(c->ack, F_GETFL) < 0)
		return err_set(err, -EBADF, "--control %s: descriptor %d is not open", spec, c->ack);
	return 0;
}

/* Read and write, non-blocking: neither open waits for the other side
 * (a FIFO opened for writing alone waits for a reader), and an ack that
 * nobody reads never stops prec. */
static int open_fifo(const char *spec, const char *path, int *fd, struct err *err)
{
	struct stat st;

	*fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (*fd < 0)
		return err_set(err, -errno, "--control %s: cannot open '%s': %s", spec, path,
			       strerror(errno));
	if (fstat(*fd, &st) || !S_ISFIFO(st.st_mode))
		return err_set(err, -EINVAL, "--control %s: '%s' is not a FIFO (mkfifo makes one)",
			       spec, path);
	return 0;
}

static int open_fifos(struct control *c, const char *spec, struct err *err)
{
	const char *ctl = spec + 5, *comma = strchr(ctl, ',');
	char path[4096];
	int ret;

	c->own = true;
	if (comma == ctl || !*ctl || (comma && !comma[1]))
		return -EINVAL;
	snprintf(path, sizeof(path), "%.*s", comma ? (int)(comma - ctl) : (int)strlen(ctl), ctl);
	ret = open_fifo(spec, path, &c->fd, err);
	if (!ret && comma)
		ret = open_fifo(spec, comma + 1, &c->ack, err);
	return ret;
}

int control_open(struct control **out, const char *spec, struct err *err)
{
	struct control *c;
	int ret;

	*out = NULL;
	if (!spec)
		return 0;
	c = calloc(1, sizeof(*c));
	if (!c)
		return err_set(err, -ENOMEM, "out of memory");
	c->fd = c->ack = -1;
	if (!strncmp(spec, "fd:", 3))
		ret = open_fds(c, spec, err);
	else if (!strncmp(spec, "fifo:", 5))
		ret = open_fifos(c, spec, err);
	else
		ret = -EINVAL;
	if (ret == -EINVAL && !err->msg[0])
		err_set(err, ret, "--control %s: expected fifo:CTL-FIFO[,ACK-FIFO] or "
			"fd:CTL-FD[,ACK-FD]", spec);
	if (ret) {
		control_close(c);
		return ret;
	}
	*out = c;
	return 0;
}

void control_close(struct control *c)
{
	if (!c)
		return;
	if (c->own && c->fd >= 0)
		close(c->fd);
	if (c->own && c->ack >= 0)
		close(c->ack);
	free(c);
}

int control_fd(const struct control *c)
{
	return c && !c->eof ? c->fd : -1;
}

static void ack(struct control *c)
{
	if (c->ack >= 0 && write(c->ack, "ack\n", 4) != 4 && errno != EAGAIN)
		fprintf(stderr, "prec: warning: --control: cannot write the ack: %s\n",
			strerror(errno));
}

/* enable / disable, of every event or of the one named */
static void run_enable(const struct control_ops *ops, const char *name, bool on)
{
	int ret = ops->enable(ops->ctx, name, on);

	if (ret == -ENOENT)
		fprintf(stderr, "prec: --control: no event named '%s'\n", name);
	else if (name)
		fprintf(stderr, "Event %s %s\n", name, on ? "enabled" : "disabled");
	else
		fprintf(stderr, "Events %s\n", on ? "enabled" : "disabled");
}

/* One command line; true when it was a command (acked). */
static bool run_command(const struct control_ops *ops, char *cmd)
{
	size_t n = strlen(cmd);

	while (n && (cmd[n - 1] == ' ' || cmd[n - 1] == '\t' || cmd[n - 1] == '\r'))
		cmd[--n] = 0;
	if (!n)
		return false;
	if (!strcmp(cmd, "enable") || !strcmp(cmd, "disable"))
		run_enable(ops, NULL, cmd[0] == 'e');
	else if (!strncmp(cmd, "enable ", 7))
		run_enable(ops, cmd + 7 + strspn(cmd + 7, " "), true);
	else if (!strncmp(cmd, "disable ", 8))
		run_enable(ops, cmd + 8 + strspn(cmd + 8, " "), false);
	else if (!strcmp(cmd, "snapshot"))
		switch_output_request();
	else if (!strcmp(cmd, "stop"))
		stop_request();
	else if (!strcmp(cmd, "evlist") || !strncmp(cmd, "evlist ", 7))
		ops->list(ops->ctx);
	else if (strcmp(cmd, "ping")) {
		fprintf(stderr, "prec: --control: unknown command '%s' (enable, disable, "
			"snapshot, stop, ping or evlist)\n", cmd);
		return false;
	}
	return true;
}

/* Bytes read: whole lines are carried out, a partial one is kept. */
static void take_bytes(struct control *c, const struct control_ops *ops, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] != '\n' && p[i] != 0) {
			if (c->len + 1 < sizeof(c->line))
				c->line[c->len++] = p[i];
			else
				c->overlong = true;
			continue;
		}
		c->line[c->len] = 0;
		if (c->overlong)
			fprintf(stderr, "prec: --control: command longer than %d bytes ignored\n",
				CONTROL_LINE - 1);
		else if (run_command(ops, c->line))
			ack(c);
		c->len = 0;
		c->overlong = false;
	}
}

void control_process(struct control *c, const struct control_ops *ops)
{
	char buf[512];

	while (control_fd(c) >= 0) {
		struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 0) <= 0 || !(pfd.revents & (POLLIN | POLLHUP | POLLERR)))
			return;
		n = read(c->fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			return;
		if (n <= 0) {
			/* the writer is gone: a last command without its newline counts */
			if (c->len)
				take_bytes(c, ops, "\n", 1);
			c->eof = true;
			return;
		}
		take_bytes(c, ops, buf, (size_t)n);
	}
}
