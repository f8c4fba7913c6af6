// SPDX-License-Identifier: MIT
/*
 * A program with countable events, for probe and breakpoint tests
 * (tests/e2e/prec_probes.sh): probed_func() is called N times (N from
 * argv[1], default 1000) and probed_var is written N times, by
 * probed_write(); nothing else touches them. Built twice: probed (a PIE)
 * and probed_nopie (-no-pie, so probed_var has a fixed address).
 */
#include <stdlib.h>

volatile long probed_var = 1;	/* in .data: the kernel does not zero it at exec */

__attribute__((noinline, noclone)) long probed_func(long x)
{
	__asm__ volatile("" : : "r"(__builtin_frame_address(0)) : "memory");
	return x * 3 + 1;
}

__attribute__((noinline, noclone)) void probed_write(long v)
{
	probed_var = v;
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, sum = 0;

	for (long i = 0; i < n; i++) {
		sum += probed_func(i);
		probed_write(i);
	}
	return sum == -1;
}
