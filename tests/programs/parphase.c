/* SPDX-License-Identifier: MIT */
/*
 * A serial phase and a parallel phase of designed lengths, for latency
 * profiles (prec --latency, prep --latency; PROFILES.md, parphase):
 *
 *   parphase [SERIAL_MS [PARALLEL_MS [THREADS]]]     (default 600 400 2)
 *
 * main -> serial_work burns SERIAL_MS of CPU on the main thread alone; then
 * THREADS threads (thread_main -> parallel_work) burn PARALLEL_MS each, let
 * go together from a barrier, while the main thread waits in pthread_join.
 * Phases are measured in each thread's own CPU time, so a loaded machine
 * stretches them without changing the CPU shares; the latency shares hold
 * when the threads get a CPU each at once (2 CPUs here: THREADS 2; on a
 * busy machine, `chrt -f 1 parphase` gives them the CPUs). The main thread
 * sleeps 50 ms between the phases.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "work.h"

NOINL unsigned long serial_work(unsigned long x, double secs);
NOINL unsigned long parallel_work(unsigned long x, double secs);
NOINL void *thread_main(void *arg);

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The xorshift chain of work.h, for secs of this thread's CPU time (read
 * every 200k steps, about 0.4 ms: the clock's system calls stay under 0.5%
 * of the samples). */
static inline __attribute__((always_inline)) unsigned long spend(unsigned long x, double secs)
{
	double end = thread_cpu_s() + secs;

	while (thread_cpu_s() < end) {
		for (int i = 0; i < 200000; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		KEEP(x);
	}
	return x;
}

unsigned long serial_work(unsigned long x, double secs)
{
	FRAME();
	return spend(x, secs);
}

unsigned long parallel_work(unsigned long x, double secs)
{
	FRAME();
	return spend(x, secs);
}

struct worker {
	pthread_t tid;
	pthread_barrier_t *start;
	double secs;
	unsigned long result;
};

void *thread_main(void *arg)
{
	struct worker *w = arg;
	unsigned long x = 88172645463325252ul + (unsigned long)(uintptr_t)arg;

	FRAME();
	pthread_barrier_wait(w->start);
	x = parallel_work(x, w->secs);
	KEEP(x);
	w->result = x;
	return NULL;
}

int main(int argc, char **argv)
{
	double serial = (argc > 1 ? atof(argv[1]) : 600) / 1000.0;
	double par = (argc > 2 ? atof(argv[2]) : 400) / 1000.0;
	int n = argc > 3 ? atoi(argv[3]) : 2;
	struct worker w[64];
	pthread_barrier_t start;
	unsigned long x;

	if (serial < 0 || par < 0 || n < 1 || n > 64) {
		fprintf(stderr, "usage: parphase [SERIAL_MS [PARALLEL_MS [THREADS (1-64)]]]\n");
		return 2;
	}
	x = serial_work(1181783497276652981ul, serial);
	/* off the CPU between the phases (no samples): under a real-time
	 * policy (tests run it with chrt) the kernel lets other tasks run after
	 * about 0.95 s of it on a CPU, which would cut into the parallel phase */
	usleep(50000);
	pthread_barrier_init(&start, NULL, (unsigned)n);
	for (int i = 0; i < n; i++) {
		w[i].start = &start;
		w[i].secs = par;
		if (pthread_create(&w[i].tid, NULL, thread_main, &w[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < n; i++) {
		pthread_join(w[i].tid, NULL);
		x ^= w[i].result;
	}
	pthread_barrier_destroy(&start);
	return x == 42;
}
