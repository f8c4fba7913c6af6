/* SPDX-License-Identifier: MIT */
/*
 * A test program with known software-event counts: `swev FAULTS SWITCHES`
 * touches FAULTS fresh pages of an anonymous mapping (one minor page fault
 * each) and then sleeps SWITCHES times for 50 us (one voluntary context
 * switch each), so that tests can check how many samples -c N takes.
 * Prints what it did.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long faults = argc > 1 ? atol(argv[1]) : 10000;
	long switches = argc > 2 ? atol(argv[2]) : 0;
	long page = sysconf(_SC_PAGESIZE);
	struct timespec ts = { 0, 50000 };
	volatile char *p = NULL;

	if (faults > 0) {
		p = mmap(NULL, (size_t)(faults * page), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		for (long i = 0; i < faults; i++)
			p[i * page] = 1;
	}
	for (long i = 0; i < switches; i++)
		nanosleep(&ts, NULL);
	printf("faults %ld switches %ld\n", faults, switches);
	return 0;
}
