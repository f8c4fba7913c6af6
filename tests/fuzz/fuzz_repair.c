/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: `prep archive`'s repair of a file cut short or a saved
 * stream (format/repair.c, FORMAT.md 8). The input is written to a file of
 * its own and repaired in place; a repair that succeeds must leave a file
 * that reads as finished (a good index, no incomplete block) and holds the
 * samples the repair counted. Each input is tried as it is and with its
 * checksums recomputed (so mutations reach the block walk behind the CRCs).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fix_crcs.h"
#include "format/blocks.h"
#include "format/container.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void ignore(void *ctx, const struct container_problem *p)
{
	(void)ctx;
	(void)p;
}

static void check_repaired(const struct container_repair_stats *st)
{
	struct container_reader_opts o = { .warn = ignore };
	struct container_reader *r;
	struct container_block b;
	struct index_entry *ie = NULL;
	size_t n = 0;

	if (container_reader_open(&r, path, &o, NULL))
		abort();        /* a repaired file that cannot be opened */
	while (container_reader_next(r, &b, NULL) == 1)
		;
	if (st->blocks && (!container_reader_stats(r)->finished ||
			   container_reader_stats(r)->truncated))
		abort();        /* repaired, yet not a finished file */
	if (container_reader_index(r, &ie, &n, NULL) == 1)
		free(ie);
	else if (st->blocks)
		abort();
	container_reader_close(r);
}

static void repair(const uint8_t *data, size_t size)
{
	struct container_repair_stats st;
	FILE *f = fopen(path, "wb");

	if (!f)
		return;
	if (size && fwrite(data, 1, size, f) != size) {
		fclose(f);
		return;
	}
	fclose(f);
	memset(&st, 0, sizeof(st));
	if (!container_repair(path, 1, &st, NULL))
		check_repaired(&st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	if (!path[0]) {
		const char *dir = getenv("TMPDIR");

		snprintf(path, sizeof(path), "%s/fuzz_repair.%d", dir && strlen(dir) < 40 ? dir : "/tmp",
			 (int)getpid());
	}
	repair(data, size);
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fix_crcs(copy, size);
	repair(copy, size);
	free(copy);
	unlink(path);
	return 0;
}
