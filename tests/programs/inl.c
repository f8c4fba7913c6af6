/* SPDX-License-Identifier: MIT */
/*
 * `inl [N[w]]`: inlined hot code with designed ratios (see
 * tests/programs/PROFILES.md). N million xorshift steps in all (default 500,
 * about 1 s here), all run by the one noinline function inl_work(), through
 * always_inline functions:
 *
 *   main -> inl_work                         (a real call)
 *     inl_work: hot_inl            60%       (inlined)
 *     inl_work: warm_inl           25%       (inlined)
 *       warm_inl: cool_inl         15%       (inlined into warm_inl)
 *
 * Each inline function's loop sits on one source line that carries a
 * "MARK:name" comment, and so does each inlined call site, so that a test can
 * find the expected line numbers with `grep -n MARK:name inl.c`. Keep every
 * loop on its one line.
 */
#include "work.h"

#define INLINE static inline __attribute__((always_inline))

/* Dependent xorshift chains: no vectorising, no folding. */
INLINE unsigned long hot_inl(unsigned long x)
{
	for (long i = 0, n = 60 * unit; i < n; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; KEEP(x); }	/* MARK:hot_inl */
	return x;
}

INLINE unsigned long cool_inl(unsigned long x)
{
	for (long i = 0, n = 15 * unit; i < n; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; KEEP(x); }	/* MARK:cool_inl */
	return x;
}

INLINE unsigned long warm_inl(unsigned long x)
{
	for (long i = 0, n = 25 * unit; i < n; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; KEEP(x); }	/* MARK:warm_inl */
	x = cool_inl(x);	/* MARK:call_cool */
	return x;
}

NOINL unsigned long inl_work(unsigned long x);

unsigned long inl_work(unsigned long x)
{
	FRAME();
	x = hot_inl(x);		/* MARK:call_hot */
	KEEP(x);
	x = warm_inl(x);	/* MARK:call_warm */
	KEEP(x);
	return x;
}

int main(int argc, char **argv)
{
	unsigned long x = 88172645463325252ul;

	if (work_setup(argc, argv, "inl"))
		return 2;
	x = inl_work(x);	/* MARK:call_inl_work */
	KEEP(x);
	printf("inl %lu\n", x & 1);
	return 0;
}
