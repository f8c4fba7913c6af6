/* SPDX-License-Identifier: MIT */
/*
 * A program that switches often, for the cost of recording context switches
 * (prec --latency, --switch-events; tools/bench_latency.sh):
 *
 *   pingpong [ROUNDS]        (default 200000)
 *
 * Two threads hand a byte back and forth through two pipes ROUNDS times:
 * each round blocks each thread once, so each thread is switched out and
 * in once per round (4 switches a round in all). Prints the rounds per
 * second of wall time and its own CPU time (user and system, both threads)
 * on stderr.
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2];
static long rounds;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *echo(void *arg)
{
	char c;

	(void)arg;
	for (long i = 0; i < rounds; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			break;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	struct rusage ru;
	double t0, wall;
	char c = 'x';

	rounds = argc > 1 ? atol(argv[1]) : 200000;
	if (rounds < 1 || pipe(ping) || pipe(pong)) {
		fprintf(stderr, "usage: pingpong [ROUNDS]\n");
		return 2;
	}
	if (pthread_create(&t, NULL, echo, NULL))
		return 1;
	t0 = now();
	for (long i = 0; i < rounds; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
	pthread_join(t, NULL);
	wall = now() - t0;
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "pingpong: %ld rounds, %.0f rounds/s, %.3f s CPU\n", rounds,
		(double)rounds / wall, (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		(double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	return 0;
}
