/* SPDX-License-Identifier: MIT */
/*
 * `moved [N[w]]`: one program in two versions, for differential profiles
 * (prep flamegraph --diff, prep export difffolded): built twice from this
 * source, -DVERSION=1 into build/tests/programs/v1/moved and -DVERSION=2
 * into build/tests/programs/v2/moved (the same basename, two folders, as
 * two builds of one program). N million xorshift steps in all (default 500,
 * about 1 s here), split in parts of 100 (tests/programs/PROFILES.md):
 *
 *                      VERSION=1   VERSION=2
 *   main
 *   +- mid             self 0      self 0      children 20 -> 35
 *   |  +- grow         20          35          grew by 15
 *   +- shrink          30          20          shrank by 10
 *   +- steady          40          40          the same
 *   +- gone            10          -           only in version 1
 *   +- fresh           -            5          only in version 2
 *
 * Every function is noinline/noclone, keeps a frame and calls nothing in
 * tail position (work.h, NOTES.md), so frame-pointer call chains name every
 * caller in both builds.
 */
#include <stdio.h>

#include "work.h"

#ifndef VERSION
#define VERSION 1
#endif

#if VERSION == 1
#define GROW 20
#define SHRINK 30
#else
#define GROW 35
#define SHRINK 20
#endif

NOINL unsigned long grow(unsigned long x);
NOINL unsigned long mid(unsigned long x);
NOINL unsigned long shrink(unsigned long x);
NOINL unsigned long steady(unsigned long x);

unsigned long grow(unsigned long x)
{
	FRAME();
	return burn(x, GROW);
}

unsigned long mid(unsigned long x)
{
	FRAME();
	x = grow(x);
	KEEP(x);
	return x;
}

unsigned long shrink(unsigned long x)
{
	FRAME();
	return burn(x, SHRINK);
}

unsigned long steady(unsigned long x)
{
	FRAME();
	return burn(x, 40);
}

#if VERSION == 1
NOINL unsigned long gone(unsigned long x);

unsigned long gone(unsigned long x)
{
	FRAME();
	return burn(x, 10);
}
#else
NOINL unsigned long fresh(unsigned long x);

unsigned long fresh(unsigned long x)
{
	FRAME();
	return burn(x, 5);
}
#endif

int main(int argc, char **argv)
{
	unsigned long x = 88172645463325252ul;

	if (work_setup(argc, argv, "moved"))
		return 2;
	x = mid(x);
	KEEP(x);
	x = shrink(x);
	KEEP(x);
	x = steady(x);
	KEEP(x);
#if VERSION == 1
	x = gone(x);
#else
	x = fresh(x);
#endif
	KEEP(x);
	printf("moved %d %lu\n", VERSION, x & 1);
	return 0;
}
