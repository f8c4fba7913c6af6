/* SPDX-License-Identifier: MIT */
/*
 * --control: a channel on which another program turns the counting or the
 * recording on and off while prec runs, as perf's --control does.
 *
 *   --control fifo:CTL[,ACK]   named pipes, opened by prec (read and write,
 *                              so that opening never waits for the other end)
 *   --control fd:N[,M]         descriptors the caller opened (a shell's
 *                              `exec 7<>ctl 8<>ack`)
 *
 * Commands are lines (ended by a newline or a NUL): enable, disable,
 * enable NAME, disable NAME, snapshot, stop, ping, evlist. After each
 * command it knows, prec writes "ack\n" on the ACK channel, if there is one;
 * an unknown command is reported on stderr and gets no ack, as in perf.
 * Reading never blocks: the loops poll control_fd() and call
 * control_process() when it is readable.
 */
#ifndef PREC_RECORD_CONTROL_H
#define PREC_RECORD_CONTROL_H

#include <stdbool.h>

#include "common/err.h"

struct control;

/* What a command does to the caller's events. */
struct control_ops {
	/* enable (on) or disable every event (name NULL) or those named name:
	 * 0, or -ENOENT when no event has that name */
	int (*enable)(void *ctx, const char *name, bool on);
	/* evlist: the events' names on stderr, one a line */
	void (*list)(void *ctx);
	void *ctx;
};

/* --control SPEC: *out opened (NULL when spec is NULL), or a negative code
 * with err naming the option and what is wrong. */
int control_open(struct control **out, const char *spec, struct err *err);
/* Closes what control_open opened (fifos; fd: descriptors stay the
 * caller's). NULL-tolerant. */
void control_close(struct control *c);
/* The descriptor to poll for input; -1 for none (NULL, or the writer
 * closed its end). */
int control_fd(const struct control *c);
/* Read what has arrived and carry out each whole command; never blocks.
 * `stop` asks to stop as SIGTERM does (stop.c); `snapshot` asks for
 * switch_output_request(). */
void control_process(struct control *c, const struct control_ops *ops);

#endif
