/* SPDX-License-Identifier: MIT */
/*
 * `futexhop HOPS [SPIN]`: a program that blocks and wakes at a rate known
 * from its own output, for the off-CPU benchmark (tools/bench_offcpu.py).
 * Two threads, "ping" and "pong", on one CPU take turns HOPS times in all:
 * each waits on a futex for its turn, burns SPIN xorshift steps, hands the
 * turn over and wakes the other, so that every hop is one context switch
 * (a blocking wait of one thread). Prints the hops, the time they took, the
 * switches per second and the process's own CPU time:
 *
 *   hops 200000 elapsed_ns 812345678 switches_per_s 246201 cpu_ns 810000000
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int turn;
static long hops, spin;

static void futex(int *addr, int op, int val)
{
	syscall(SYS_futex, addr, op, val, NULL, NULL, 0);
}

static void *player(void *arg)
{
	int me = (int)(size_t)arg;
	unsigned long x = 88172645463325252ul + (unsigned long)me;

	pthread_setname_np(pthread_self(), me ? "pong" : "ping");
	for (long i = me; i < hops; i += 2) {
		while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != me)
			futex(&turn, FUTEX_WAIT_PRIVATE, !me);
		for (long k = 0; k < spin; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			__asm__ volatile("" : "+r"(x));
		}
		__atomic_store_n(&turn, !me, __ATOMIC_RELEASE);
		futex(&turn, FUTEX_WAKE_PRIVATE, 1);
	}
	return (void *)(x & 1);
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	pthread_t t[2];
	cpu_set_t one;
	long ns;

	hops = argc > 1 ? atol(argv[1]) : 200000;
	spin = argc > 2 ? atol(argv[2]) : 0;
	if (hops < 2 || spin < 0) {
		fprintf(stderr, "usage: pingpong HOPS [SPIN]\n");
		return 2;
	}
	/* both threads on the CPU this one runs on: each hop is one switch */
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
	sched_setaffinity(0, sizeof(one), &one);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, player, (void *)(size_t)i))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_SELF, &ru);
	ns = (t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec);
	printf("hops %ld elapsed_ns %ld switches_per_s %.0f cpu_ns %ld\n", hops, ns,
	       (double)hops * 1e9 / (double)ns,
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000L +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000L);
	return 0;
}
