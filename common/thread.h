/* SPDX-License-Identifier: MIT */
/*
 * Starting the helper threads of prec and prep (block decoding, symbol
 * prefetching, the writer, prec top's drain ...).
 */
#ifndef PREC_COMMON_THREAD_H
#define PREC_COMMON_THREAD_H

#include <pthread.h>

/* pthread_create(t, NULL, fn, arg) with every signal blocked in the new
 * thread but those its own actions raise (SIGPIPE, faults), so that the process's signals go to the thread that waits for
 * them: SIGWINCH to the browser's wgetch (curses wakes only when the signal
 * interrupts its own read; taken by a worker, a resize went unseen until
 * the next key), SIGINT and SIGCHLD to the recording loop. pthread_create's
 * result: 0 or an error number. */
int thread_create(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
