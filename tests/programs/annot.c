// SPDX-License-Identifier: MIT
/*
 * A test program for prep annotate with a known per-instruction profile:
 * annot_hot() runs two loops with the same instruction mix (a dependent
 * multiply-add chain that cannot be vectorised or folded), the first for
 * three times as many iterations as the second, so that 75% of its samples
 * land in the first loop and 25% in the second. annot_hot calls annot_cold
 * (a call with a callee name in the disassembly) and its loops end in
 * backward jumps (jump targets shown). Argument: the iterations of the
 * second loop, in millions (default 40).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline, noclone)) uint64_t annot_cold(uint64_t x)
{
	asm volatile("" : "+r"(x) : "r"(__builtin_frame_address(0)));
	return x ^ (x >> 7);
}

__attribute__((noinline, noclone)) uint64_t annot_hot(uint64_t n)
{
	uint64_t x = 1, y = 3;

	for (uint64_t i = 0; i < 3 * n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		asm volatile("" : "+r"(x));
	}
	x = annot_cold(x);
	for (uint64_t i = 0; i < n; i++) {
		y = y * 2862933555777941757ull + 3037000493ull;
		asm volatile("" : "+r"(y));
	}
	return x + y;
}

int main(int argc, char **argv)
{
	uint64_t n = (argc > 1 ? strtoull(argv[1], NULL, 10) : 40) * 1000000ull;

	printf("%llu\n", (unsigned long long)annot_hot(n));
	return 0;
}
