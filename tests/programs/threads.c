/* SPDX-License-Identifier: MIT */
/*
 * `threads [N[w]]`: three named threads with designed shares of the work (see
 * tests/programs/PROFILES.md). N million xorshift steps in all (default 500,
 * about 1 s of CPU here, about 0.6 s of wall time on 2 CPUs):
 *
 *   thread "worker-a": thread_main -> work_a   50%
 *   thread "worker-b": thread_main -> work_b   30%
 *   thread "worker-c": thread_main -> work_c   20%
 *   main thread ("threads"): creates and joins them, no work of its own
 *
 * Each thread names itself (pthread_setname_np) before it starts working, so
 * all its samples carry its name as comm.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

NOINL unsigned long work_a(unsigned long x);
NOINL unsigned long work_b(unsigned long x);
NOINL unsigned long work_c(unsigned long x);
NOINL void *thread_main(void *arg);

unsigned long work_a(unsigned long x) { FRAME(); return burn(x, 50); }
unsigned long work_b(unsigned long x) { FRAME(); return burn(x, 30); }
unsigned long work_c(unsigned long x) { FRAME(); return burn(x, 20); }

struct worker {
	const char *name;
	unsigned long (*fn)(unsigned long);
	unsigned long result;
	pthread_t tid;
};

void *thread_main(void *arg)
{
	struct worker *w = arg;
	unsigned long x = 88172645463325252ul;

	FRAME();
	pthread_setname_np(pthread_self(), w->name);
	x = w->fn(x);
	KEEP(x);
	w->result = x;
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker w[] = {
		{ "worker-a", work_a, 0, 0 },
		{ "worker-b", work_b, 0, 0 },
		{ "worker-c", work_c, 0, 0 },
	};
	unsigned long x = 0;

	if (work_setup(argc, argv, "threads"))
		return 2;
	for (int i = 0; i < 3; i++)
		if (pthread_create(&w[i].tid, NULL, thread_main, &w[i]) != 0)
			return 1;
	for (int i = 0; i < 3; i++) {
		pthread_join(w[i].tid, NULL);
		x ^= w[i].result;
	}
	printf("threads %lu\n", x & 1);
	return 0;
}
