/* SPDX-License-Identifier: MIT */
/*
 * `diffprog [N[w]]`: the two versions of one program that prep diff's
 * tests compare (tests/programs/PROFILES.md). Built from this file twice,
 * with -DVERSION=1 and -DVERSION=2, into two folders under the same name
 * (build/tests/programs/diff1/diffprog, diff2/diffprog), as two builds of
 * one program are. N million xorshift steps in all (default 500, about
 * 1 s), split in fixed parts of 100:
 *
 *               version 1   version 2
 *   grow            30          35       the designed change: +5 points
 *   shrink          40          35       where they come from: -5
 *   steady          20          20
 *   small           10          10
 *
 * main calls the four in a hundred rounds of a hundredth each (about 5 ms a
 * round at N 250), so that a stretch of the machine without samples (the
 * timer late while the VM's vCPU was away: the task still counts as
 * running, the missed ticks give one sample) takes from all four alike. With
 * ten rounds, a 20 ms stretch could fall on one function's part of a round
 * and move its share of a 0.5 s run by points (the likely cause of a CI
 * failure of prep_diff_noise.sh: one run of three 2 points off). Every
 * function is noinline/noclone and keeps a frame (work.h, NOTES.md).
 */
#include "work.h"

#ifndef VERSION
#define VERSION 1
#endif

#define GROW (VERSION == 2 ? 35 : 30)
#define ROUNDS 100
#define SHRINK (VERSION == 2 ? 35 : 40)

NOINL unsigned long grow(unsigned long x);
NOINL unsigned long shrink(unsigned long x);
NOINL unsigned long steady(unsigned long x);
NOINL unsigned long small(unsigned long x);

unsigned long grow(unsigned long x)
{
	FRAME();
	return burn(x, GROW);
}

unsigned long shrink(unsigned long x)
{
	FRAME();
	return burn(x, SHRINK);
}

unsigned long steady(unsigned long x)
{
	FRAME();
	return burn(x, 20);
}

unsigned long small(unsigned long x)
{
	FRAME();
	return burn(x, 10);
}

int main(int argc, char **argv)
{
	unsigned long x = 88172645463325252ul;

	if (work_setup(argc, argv, "diffprog"))
		return 2;
	unit /= ROUNDS;
	for (int i = 0; i < ROUNDS; i++) {
		x = grow(x);
		KEEP(x);
		x = shrink(x);
		KEEP(x);
		x = steady(x);
		KEEP(x);
		x = small(x);
		KEEP(x);
	}
	return x == 42;
}
