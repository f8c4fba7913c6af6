/* SPDX-License-Identifier: MIT */
/* Files and symbols read ahead on a thread; see symbols_ahead.h. */
#include "symbols_ahead.h"
#include "symbols_elf.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/thread.h"

struct ahead {
	pthread_t thread;
	atomic_bool stop;               /* the caller wants them now */
	struct debug_find *find;        /* its own */
	struct arena arena;             /* the names of its tables */
	struct buf warnings;            /* its finder's, said at the end */
	struct ahead_job *jobs;
	size_t n;
};

static void keep_warning(void *ctx, const char *msg)
{
	struct ahead *a = ctx;

	(void)buf_append(&a->warnings, msg, strlen(msg) + 1);
}

static void *ahead_main(void *arg)
{
	struct ahead *a = arg;

	for (size_t i = 0; i < a->n && !atomic_load(&a->stop); i++) {
		struct ahead_job *j = &a->jobs[i];

		j->found = debug_find_files(a->find, j->path, j->build_id, j->build_id_size,
					    &j->files);
		if (j->found < 0)
			break;          /* out of memory: the caller reads the rest */
		if (j->found == BIN_OK)
			j->syms_loaded = !elf_read_symbols(j->files.bin_path, j->files.debug_path,
							   &a->arena, &j->syms);
		j->done = true;
	}
	return NULL;
}

struct ahead *ahead_start(const char *debug_root, const char *buildid_dir,
			  struct ahead_job *jobs, size_t n)
{
	struct ahead *a = calloc(1, sizeof(*a));

	if (!a) {
		free(jobs);
		return NULL;
	}
	a->jobs = jobs;
	a->n = n;
	atomic_init(&a->stop, false);
	a->find = debug_find_new(debug_root, buildid_dir,
				 (struct sym_warner){ keep_warning, a });
	if (!a->find || thread_create(&a->thread, ahead_main, a)) {
		ahead_free(a);
		return NULL;
	}
	return a;
}

struct ahead_job *ahead_finish(struct ahead *a, bool stop, const struct sym_warner *w,
			       size_t *n)
{
	const char *msgs;

	if (stop)
		atomic_store(&a->stop, true);
	pthread_join(a->thread, NULL);
	msgs = (const char *)a->warnings.data;
	for (size_t off = 0; off < a->warnings.len; off += strlen(msgs + off) + 1)
		sym_warn(w, "%s", msgs + off);
	*n = a->n;
	return a->jobs;
}

void ahead_free(struct ahead *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++) {
		bin_files_free(&a->jobs[i].files);
		free(a->jobs[i].syms.v);
	}
	free(a->jobs);
	debug_find_free(a->find);
	arena_free(&a->arena);
	buf_free(&a->warnings);
	free(a);
}
