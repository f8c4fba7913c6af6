/* SPDX-License-Identifier: MIT */
/*
 * `sleeper [N[w] [SLEEPS [MS [hang]]]]`: a program with a known off-CPU
 * profile (tests/programs/PROFILES.md). N million xorshift steps in all
 * (default 250, about 0.5 s of CPU here), in SLEEPS equal parts (default
 * 5), each followed by a sleep of MS milliseconds (default 200):
 *
 *   main -> compute        the CPU time (cpu-clock)
 *   main -> nap            SLEEPS x MS of off-CPU time, blocked in the
 *                          kernel's nanosleep called from nap
 *
 * Prints how long its loop took ("elapsed N us"). With "hang" it then
 * blocks in hang_forever (a read of a pipe nobody
 * writes), so that a recording that stops first ends with the thread still
 * blocked there.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "work.h"

NOINL unsigned long compute(unsigned long x, long pct);
NOINL void nap(long ms);
NOINL void hang_forever(void);

unsigned long compute(unsigned long x, long pct)
{
	FRAME();
	x = burn(x, pct);
	KEEP(x);
	return x;
}

/* The system call is made here, not in libc's nanosleep: libc's wrappers
 * keep no frame pointer, so a frame-pointer chain taken in the kernel would
 * go from the wrapper straight to nap's caller, leaving nap out. */
/* the time spent in nap's system calls: from the call to the return, so
 * with the wait for a CPU after the wakeup, which a loaded machine
 * lengthens; what prec --off-cpu should measure (printed as "slept") */
static long long slept_ns;

static long long mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	long long t0 = mono_ns();
	long r;

	FRAME();
	do {
		__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_nanosleep), "D"(&ts), "S"(&ts)
				 : "rcx", "r11", "memory");
	} while (r == -EINTR);
	slept_ns += mono_ns() - t0;
	KEEP(r);
}

/* read(2) of a pipe nobody writes, made here for the same reason */
void hang_forever(void)
{
	int fd[2];
	char c;
	long n;

	FRAME();
	if (pipe(fd))
		return;
	__asm__ volatile("syscall" : "=a"(n) : "0"((long)SYS_read), "D"((long)fd[0]), "S"(&c),
			 "d"(1L) : "rcx", "r11", "memory");
	KEEP(n);
}

int main(int argc, char **argv)
{
	long sleeps = argc > 2 ? atol(argv[2]) : 5, ms = argc > 3 ? atol(argv[3]) : 200;
	unsigned long x = 88172645463325252ul;
	struct timespec t0, t1;

	if (work_setup(argc > 1 ? argc : 2, argc > 1 ? argv : (char *[]){ argv[0], "250", NULL },
		       "sleeper"))
		return 2;
	if (sleeps < 1 || ms < 0) {
		fprintf(stderr, "usage: sleeper [MILLION_STEPS[w] [SLEEPS [MS [hang]]]]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < sleeps; i++) {
		x = compute(x, 100 / sleeps);
		nap(ms);
	}
	if (argc > 4 && !strcmp(argv[4], "hang"))
		hang_forever();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* main's own time, for the wall-clock view (the x keeps the work) */
	printf("elapsed %ld us %lu\n", (t1.tv_sec - t0.tv_sec) * 1000000L +
	       (t1.tv_nsec - t0.tv_nsec) / 1000, x & 1);
	printf("slept %lld ns\n", slept_ns);
	return 0;
}
