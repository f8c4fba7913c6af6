/* SPDX-License-Identifier: MIT */
/*
 * `lockwait [THREADS [ROUNDS [N]]]`: threads contending for one mutex
 * (tests/programs/PROFILES.md). THREADS threads (default 4) each take the
 * lock ROUNDS times (default 200) and hold it for N thousand xorshift steps
 * (default 200, about 0.4 ms), so that the others wait for it, blocked in
 * the kernel's futex wait:
 *
 *   thread "locker": locker_main -> take_lock -> pthread_mutex_lock ->
 *                    (libc's lock wait) -> futex syscall       off CPU
 *                    locker_main -> hold                       on CPU
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

NOINL void take_lock(void);
NOINL unsigned long hold(unsigned long x);
NOINL void *locker_main(void *arg);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long rounds = 200, steps = 200000;

void take_lock(void)
{
	int r;

	FRAME();
	r = pthread_mutex_lock(&lock);
	KEEP(r);
}

unsigned long hold(unsigned long x)
{
	FRAME();
	for (long i = 0; i < steps; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		KEEP(x);
	}
	return x;
}

void *locker_main(void *arg)
{
	unsigned long x = 88172645463325252ul + (unsigned long)(size_t)arg;

	FRAME();
	pthread_setname_np(pthread_self(), "locker");
	for (long i = 0; i < rounds; i++) {
		take_lock();
		x = hold(x);
		pthread_mutex_unlock(&lock);
	}
	KEEP(x);
	return (void *)(size_t)(x & 1);
}

int main(int argc, char **argv)
{
	long threads = argc > 1 ? atol(argv[1]) : 4;
	pthread_t t[64];

	if (argc > 2)
		rounds = atol(argv[2]);
	if (argc > 3)
		steps = atol(argv[3]) * 1000;
	if (threads < 1 || threads > 64 || rounds < 1 || steps < 0) {
		fprintf(stderr, "usage: lockwait [THREADS [ROUNDS [THOUSAND_STEPS]]]\n");
		return 2;
	}
	for (long i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, locker_main, (void *)(size_t)i))
			return 1;
	for (long i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("done\n");
	return 0;
}
