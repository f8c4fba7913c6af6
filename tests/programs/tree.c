/* SPDX-License-Identifier: MIT */
/*
 * `tree [N[w]]`: a call tree with designed self/children ratios (see
 * tests/programs/PROFILES.md). N million xorshift steps in all (default
 * 500, about 1 s here), split between the functions below in fixed parts of
 * 100:
 *
 *   main
 *   +- a            self  0   children 55
 *   |  +- a1        self 34
 *   |  +- a2        self 21
 *   +- b            self  3   children 27
 *   |  +- b1        self  9   children 24
 *   |     +- b2     self 15
 *   +- c            self  6   children 18
 *      +- rec(4) -> rec(3) -> rec(2) -> rec(1) -> rec(0)   self 12 (in rec(0))
 *
 * Every function is noinline/noclone, keeps a frame (FRAME()) even when it is
 * a leaf, and does something after each call so that no call becomes a jump
 * (see NOTES.md): frame-pointer call chains then name every caller.
 * The self time of each function is the inlined burn() loop in its own body.
 */
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

NOINL unsigned long a1(unsigned long x);
NOINL unsigned long a2(unsigned long x);
NOINL unsigned long a(unsigned long x);
NOINL unsigned long b2(unsigned long x);
NOINL unsigned long b1(unsigned long x);
NOINL unsigned long b(unsigned long x);
NOINL unsigned long rec(unsigned long x, int depth);
NOINL unsigned long c(unsigned long x);

unsigned long a1(unsigned long x)
{
	FRAME();
	return burn(x, 34);
}

unsigned long a2(unsigned long x)
{
	FRAME();
	return burn(x, 21);
}

unsigned long a(unsigned long x)
{
	FRAME();
	x = a1(x);
	KEEP(x);
	x = a2(x);
	KEEP(x);
	return x;
}

unsigned long b2(unsigned long x)
{
	FRAME();
	return burn(x, 15);
}

unsigned long b1(unsigned long x)
{
	FRAME();
	x = burn(x, 9);
	x = b2(x);
	KEEP(x);
	return x;
}

unsigned long b(unsigned long x)
{
	FRAME();
	x = burn(x, 3);
	x = b1(x);
	KEEP(x);
	return x;
}

/* rec(4) recurses down to rec(0), which does the work: 5 rec frames. */
unsigned long rec(unsigned long x, int depth)
{
	FRAME();
	if (depth == 0)
		return burn(x, 12);
	x = rec(x + 1, depth - 1);
	KEEP(x);
	return x;
}

unsigned long c(unsigned long x)
{
	FRAME();
	x = burn(x, 6);
	x = rec(x, 4);
	KEEP(x);
	return x;
}

int main(int argc, char **argv)
{
	unsigned long x = 88172645463325252ul;

	if (work_setup(argc, argv, "tree"))
		return 2;
	x = a(x);
	KEEP(x);
	x = b(x);
	KEEP(x);
	x = c(x);
	KEEP(x);
	printf("tree %lu\n", x & 1);
	return 0;
}
