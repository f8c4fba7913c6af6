/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target for prep stat report: the input is a counting file (prec stat
 * record), read through the report's loader (events, runs, intervals, the
 * kept topology and thread names) and printed as text, per CPU, per core, per
 * thread and as JSON, to /dev/null. Each input runs as given and again with
 * its checksums recomputed, so that mutations reach the readings.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fix_crcs.h"
#include "report/stat/stat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void report(const uint8_t *data, size_t size)
{
	static const char *const modes[] = { NULL, "-A", "--per-core", "--per-thread", "-j" };
	char path[64];
	int fd = memfd_create("stat", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		char *argv[5] = { "report", "-i", path, (char *)modes[m], NULL };

		cmd_stat_report(modes[m] ? 4 : 3, argv);
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int out = dup(1), err = dup(2);
	uint8_t *copy;

	/* the reports and their warnings go nowhere, for this input only */
	if (null < 0 || out < 0 || err < 0)
		abort();
	fflush(stdout);
	fflush(stderr);
	dup2(null, 1);
	dup2(null, 2);
	report(data, size);
	copy = malloc(size ? size : 1);
	if (copy) {
		memcpy(copy, data, size);
		fix_crcs(copy, size);
		report(copy, size);
		free(copy);
	}
	fflush(stdout);
	fflush(stderr);
	dup2(out, 1);
	dup2(err, 2);
	close(out);
	close(err);
	close(null);
	return 0;
}
