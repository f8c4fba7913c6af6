/* SPDX-License-Identifier: MIT */
/*
 * A test program in two phases, for prec's flight recorder (--overwrite,
 * --switch-output): `twophase A_MS B_MS` burns A_MS milliseconds of CPU in
 * phase_a(), then B_MS in phase_b(). Phases are measured in the thread's
 * own CPU time, so that a loaded machine stretches them without changing
 * how many samples each gets. Prints "phase_a" and "phase_b" on stderr as
 * each starts, so that a test can wait for them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A dependent xorshift chain: no vectorising, no folding (NOTES.md). */
static inline __attribute__((always_inline)) unsigned long burn(unsigned long x, double secs)
{
	double end = thread_cpu_s() + secs;

	while (thread_cpu_s() < end) {
		for (int i = 0; i < 20000; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

__attribute__((noinline, noclone)) static unsigned long phase_a(double secs)
{
	return burn(88172645463325252ul, secs);
}

__attribute__((noinline, noclone)) static unsigned long phase_b(double secs)
{
	return burn(1181783497276652981ul, secs);
}

int main(int argc, char **argv)
{
	double a = (argc > 1 ? atof(argv[1]) : 4000) / 1000.0;
	double b = (argc > 2 ? atof(argv[2]) : 1000) / 1000.0;
	unsigned long x;

	fprintf(stderr, "phase_a\n");
	x = phase_a(a);
	fprintf(stderr, "phase_b\n");
	x ^= phase_b(b);
	return x == 42;
}
