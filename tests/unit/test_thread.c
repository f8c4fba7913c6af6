/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of thread_create (common/thread.c): the new thread blocks the
 * process's asynchronous signals (a SIGWINCH sent to the process reaches
 * the thread that waits in curses, not a worker) but not those its own
 * actions raise; the caller's mask is as it was.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/thread.h"

static void *read_mask(void *arg)
{
	pthread_sigmask(SIG_BLOCK, NULL, arg);
	return NULL;
}

static void test_worker_mask(void **state)
{
	sigset_t before, after, worker;
	pthread_t t;

	(void)state;
	sigemptyset(&worker);
	pthread_sigmask(SIG_BLOCK, NULL, &before);
	assert_int_equal(thread_create(&t, read_mask, &worker), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	pthread_sigmask(SIG_BLOCK, NULL, &after);
	assert_true(sigismember(&worker, SIGWINCH));
	assert_true(sigismember(&worker, SIGINT));
	assert_true(sigismember(&worker, SIGCHLD));
	assert_true(sigismember(&worker, SIGTERM));
	assert_false(sigismember(&worker, SIGPIPE));
	assert_false(sigismember(&worker, SIGSEGV));
	assert_false(sigismember(&worker, SIGBUS));
	for (int s = 1; s < 32; s++)
		assert_int_equal(sigismember(&after, s), sigismember(&before, s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worker_mask),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
