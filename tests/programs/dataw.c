/* SPDX-License-Identifier: MIT */
/*
 * A test program for data addresses (prec -d): `dataw PAGES` writes one
 * byte per page of a global array in .bss (big_array, an OBJECT symbol of
 * 4096 pages) and then one byte per page of a heap block of PAGES pages,
 * so that each write takes one minor page fault whose address the
 * page-faults event reports: big_array gets 4096 faults, the heap PAGES.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ARRAY_PAGES 4096
#define PAGE 4096

char big_array[ARRAY_PAGES * PAGE];

int main(int argc, char **argv)
{
	long heap_pages = argc > 1 ? atol(argv[1]) : 256;
	volatile char *heap = heap_pages > 0 ? malloc((size_t)heap_pages * PAGE) : NULL;

	for (long i = 0; i < ARRAY_PAGES; i++)
		((volatile char *)big_array)[i * PAGE] = 1;
	for (long i = 0; heap && i < heap_pages; i++)
		heap[i * PAGE] = 1;
	printf("array pages %d heap pages %ld\n", ARRAY_PAGES, heap_pages);
	return 0;
}
