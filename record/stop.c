/* SPDX-License-Identifier: MIT */
/*
 * The stop flag of prec and prec stat. A signal handler can only set a flag
 * of its own, so this file holds those flags; everything else asks
 * through the functions below.
 */
#include "record.h"

#include <signal.h>

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t child_exited;
static volatile sig_atomic_t switch_output;     /* SIGUSR2 or --control's snapshot */

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void on_child(int sig)
{
	(void)sig;      /* ends a sleep in poll() or ppoll(), which never restart */
	child_exited = 1;
}

void stop_signals_install(void)
{
	struct sigaction sa = { 0 };

	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP | SA_RESTART;
	sigaction(SIGCHLD, &sa, NULL);
}

bool stop_requested(void)
{
	return stop_signal != 0;
}

/* One atomic exchange: a SIGCHLD that comes between a read and a clear
 * of the flag would be lost, and prec would wait for a child that is gone. */
bool child_exited_take(void)
{
	return __atomic_exchange_n(&child_exited, 0, __ATOMIC_SEQ_CST) != 0;
}

/* --control's stop: as SIGTERM (the loops see stop_requested()). */
void stop_request(void)
{
	stop_signal = SIGTERM;
}

/* --control's snapshot: perf's SIGUSR2, a switch of the output or a
 * snapshot, for --switch-output / --overwrite to take. Without them nothing
 * takes the flag and the command only gets its ack, as in perf. */
void switch_output_request(void)
{
	switch_output = 1;
}

bool switch_output_take(void)
{
	return __atomic_exchange_n(&switch_output, 0, __ATOMIC_SEQ_CST) != 0;
}

/* --switch-output: SIGUSR2 as perf takes it, a switch of the output. */
static void on_switch(int sig)
{
	(void)sig;      /* ends a sleep in poll() too */
	switch_output = 1;
}

void switch_signal_install(void)
{
	struct sigaction sa = { 0 };

	sa.sa_handler = on_switch;
	sigaction(SIGUSR2, &sa, NULL);
}
