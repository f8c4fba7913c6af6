/* SPDX-License-Identifier: MIT */
#include "thread.h"

#include <signal.h>
#include <stddef.h>

static const int own[] = { SIGPIPE, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT };

int thread_create(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int ret;

	sigfillset(&all);
	/* the signals a thread's own action raises stay as they were: a write
	 * to a closed pipe, a fault */
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		sigdelset(&all, own[i]);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}
