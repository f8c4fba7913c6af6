/* SPDX-License-Identifier: MIT */
/*
 * A CPU-bound test program with a known profile: `spin MS [THREADS]` burns
 * MS milliseconds of CPU in spin_work() on each of THREADS threads (default
 * 1), then prints the CPU time it used (getrusage), so that tests can check
 * sample counts against duration x frequency.
 *
 * `spin Nw [THREADS]` does a fixed amount of work instead (N million rounds
 * per thread), so that the time it takes shows what a recorder costs it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long work_rounds;   /* fixed work: rounds of 100000 steps; 0 = timed */

/* A dependent xorshift chain: no vectorising, no folding (NOTES.md). */
__attribute__((noinline, noclone)) static unsigned long spin_work(double seconds)
{
	unsigned long x = 88172645463325252ul;
	double end = thread_cpu_s() + seconds;
	long rounds = 0;

	while (work_rounds ? rounds++ < work_rounds : thread_cpu_s() < end) {
		for (int i = 0; i < 100000; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static void *thread_main(void *arg)
{
	spin_work(*(double *)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = (argc > 1 ? atof(argv[1]) : 500) / 1000.0;
	char *unit = argc > 1 ? argv[1] + strlen(argv[1]) : NULL;

	if (unit && unit > argv[1] && unit[-1] == 'w')
		work_rounds = (long)(atof(argv[1]) * 10);   /* N million steps */
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	pthread_t tid[64];
	struct rusage ru;

	if (threads < 1 || threads > 64)
		threads = 1;
	for (int i = 1; i < threads; i++)
		pthread_create(&tid[i], NULL, thread_main, &seconds);
	spin_work(seconds);
	for (int i = 1; i < threads; i++)
		pthread_join(tid[i], NULL);
	getrusage(RUSAGE_SELF, &ru);
	printf("cpu %.3f\n", (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	return 0;
}
