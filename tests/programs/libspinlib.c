/* SPDX-License-Identifier: MIT */
/* A shared library for tests/programs/forker.c to dlopen. */
#include <time.h>

__attribute__((noinline)) unsigned long spinlib_work(double seconds);

unsigned long spinlib_work(double seconds)
{
	unsigned long x = 88172645463325252ul;
	struct timespec ts;
	double now, end;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	end = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + seconds;
	do {
		for (int i = 0; i < 100000; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		__asm__ volatile("" : "+r"(x));
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	} while (now < end);
	return x;
}
