/* SPDX-License-Identifier: MIT */
/*
 * A test program for leader sampling ({cpu-clock,page-faults}:S):
 * `grpwork PAGES MSTEPS [THREADS]` first touches PAGES fresh pages of an
 * anonymous mapping in touch_pages() (one minor page fault each, with 2000
 * xorshift steps of user time after each), then burns MSTEPS million xorshift steps in spin(), which
 * takes no page fault. With THREADS 2, a second thread runs spin() too
 * (the main thread joins it at the end), so that per-thread counts can be
 * told apart. Prints what it did.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "work.h"

NOINL long touch_pages(volatile char *p, long pages, long page);
NOINL unsigned long spin(unsigned long x);
NOINL void *thread_main(void *arg);

long touch_pages(volatile char *p, long pages, long page)
{
	unsigned long x = 1;

	FRAME();
	for (long i = 0; i < pages; i++) {
		p[i * page] = 1;
		/* user time between faults, so that user-only samples land here */
		for (int k = 0; k < 2000; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			KEEP(x);
		}
	}
	return pages + (long)(x & 1);
}

unsigned long spin(unsigned long x)
{
	FRAME();
	return burn(x, 100);
}

void *thread_main(void *arg)
{
	unsigned long x = spin((unsigned long)arg | 1);

	KEEP(x);
	return NULL;
}

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 10000;
	long page = sysconf(_SC_PAGESIZE);
	int threads = argc > 3 ? atoi(argv[3]) : 1;
	pthread_t t;
	char *p;
	unsigned long x;

	if (pages <= 0 || work_setup(argc - 1, argv + 1, "grpwork"))
		return 2;
	p = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	touch_pages(p, pages, page);
	if (threads > 1 && pthread_create(&t, NULL, thread_main, (void *)7ul)) {
		perror("pthread_create");
		return 1;
	}
	x = spin(88172645463325252ull);
	KEEP(x);
	if (threads > 1)
		pthread_join(t, NULL);
	printf("pages %ld threads %d\n", pages, threads);
	return 0;
}
