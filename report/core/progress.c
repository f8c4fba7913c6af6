/* SPDX-License-Identifier: MIT */
/* The progress line of long reads; see progress.h. */
#include "progress.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "common/log.h"
#include "input.h"
#include "load.h"

#define PROGRESS_MIN_BYTES (100ull << 20)
#define PROGRESS_INTERVAL_NS 100000000ull       /* ten lines a second at most */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void erase(struct progress *p)
{
	if (p->shown)
		log_msg(LOG_PROGRESS, "%s", "");
	p->shown = 0;
}

static void on_progress(void *ctx, const char *path, uint64_t done, uint64_t total)
{
	struct progress *p = ctx;
	uint64_t now;

	if (done >= total) {
		erase(p);
		return;
	}
	now = now_ns();
	if (now - p->last_ns < PROGRESS_INTERVAL_NS)
		return;
	p->last_ns = now;
	log_msg(LOG_PROGRESS, "reading %s: %3u%% (%llu of %llu MB)", path,
		(unsigned)(done * 100 / total), (unsigned long long)(done >> 20),
		(unsigned long long)(total >> 20));
	p->shown = 1;
}

/* $PREP_PROGRESS_MIN_BYTES (tests), else 100 MiB. */
static uint64_t min_bytes(void)
{
	const char *v = getenv("PREP_PROGRESS_MIN_BYTES");
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return PROGRESS_MIN_BYTES;
	n = strtoull(v, &end, 10);
	return *end ? PROGRESS_MIN_BYTES : n;
}

void progress_install(struct progress *p, struct load *l)
{
	uint64_t min;
	bool big = false;

	p->last_ns = 0;                 /* the first call shows the line */
	p->shown = 0;
	if (l->quiet || !log_wants(LOG_PROGRESS))
		return;
	min = min_bytes();
	for (size_t i = 0; i < l->nr_inputs && !big; i++) {
		struct stat st;

		big = !input_is_stdin(l->inputs[i]) && !stat(l->inputs[i], &st) &&
		      (uint64_t)st.st_size >= min;
	}
	if (!big)
		return;
	l->progress = on_progress;
	l->progress_ctx = p;
}
