/* SPDX-License-Identifier: MIT */
/*
 * What the test programs with designed profiles share (tests/programs/
 * PROFILES.md): the work unit, the xorshift chain that burns it, and the
 * macros that keep call trees exactly as written (NOTES.md: frames in leaves,
 * no tail calls).
 */
#ifndef PREC_TESTS_PROGRAMS_WORK_H
#define PREC_TESTS_PROGRAMS_WORK_H

#include <stdio.h>
#include <stdlib.h>

#define NOINL __attribute__((noinline, noclone))
/* Forces a frame even in a leaf (gcc drops it otherwise). Built with
 * -DNO_FRAME_POINTER (the *_nofp programs, for DWARF unwinding): no frame is
 * forced, and -fomit-frame-pointer leaves none at all. */
#ifdef NO_FRAME_POINTER
#define FRAME() do { } while (0)
#else
#define FRAME() __asm__ volatile("" : : "r"(__builtin_frame_address(0)))
#endif
/* Keeps x live after a call, so the call is not in tail position. */
#define KEEP(x) __asm__ volatile("" : "+r"(x))

static long unit;   /* steps per 1% of the total work */

/* A dependent xorshift chain: no vectorising, no folding. Inlined into each
 * caller, so its samples are that caller's self time. */
static inline __attribute__((always_inline)) unsigned long burn(unsigned long x, long pct)
{
	for (long i = 0, n = pct * unit; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		KEEP(x);
	}
	return x;
}

/* argv[1]: million steps in all ("500" or "500w", default 500); sets unit.
 * 0, or 2 after a usage line. */
static inline int work_setup(int argc, char **argv, const char *name)
{
	double millions = argc > 1 ? atof(argv[1]) : 500;

	if (millions <= 0) {
		fprintf(stderr, "usage: %s [MILLION_STEPS[w]]\n", name);
		return 2;
	}
	unit = (long)(millions * 1e6 / 100);
	return 0;
}

#endif
