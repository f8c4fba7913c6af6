/* SPDX-License-Identifier: MIT */
/*
 * `twocall [N[w]]`: one leaf called from two callers built alike, left
 * first, then right, so that the leaf's samples have the same addresses
 * and stack pointer whoever called it: only the return address above its
 * frame tells the callers apart (tests/programs/PROFILES.md). N million
 * steps in all (default 500, about 1 s here):
 *
 *   main
 *   +- left      self 0   children 25
 *   |  +- leaf   self 25
 *   +- right     self 0   children 75
 *      +- leaf   self 75
 */
#include <stdio.h>

#include "work.h"

NOINL unsigned long leaf(unsigned long x, long pct);
NOINL unsigned long left(unsigned long x);
NOINL unsigned long right(unsigned long x);

unsigned long leaf(unsigned long x, long pct)
{
	FRAME();
	return burn(x, pct);
}

unsigned long left(unsigned long x)
{
	FRAME();
	x = leaf(x, 25);
	KEEP(x);
	return x;
}

unsigned long right(unsigned long x)
{
	FRAME();
	x = leaf(x, 75);
	KEEP(x);
	return x;
}

int main(int argc, char **argv)
{
	unsigned long x = 88172645463325252ul;

	if (work_setup(argc, argv, "twocall"))
		return 2;
	x = left(x);
	KEEP(x);
	x = right(x);
	KEEP(x);
	printf("twocall %lu\n", x & 1);
	return 0;
}
