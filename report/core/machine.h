/* SPDX-License-Identifier: MIT */
/*
 * The machine model of the report: threads (pid, tid, comm history, parent
 * from FORK), per-process maps from MMAP/MMAP2 (new ones replace what they
 * overlap; an exec keeps the old ones as perf does, copied on
 * fork), and dsos keyed by path. Fed with the records in time order.
 */
#ifndef PREC_REPORT_MACHINE_H
#define PREC_REPORT_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hash.h"
#include "format/record.h"

struct dso {
	char *path;
	const char *short_name;         /* the basename, as perf's Shared Object column */
	uint8_t build_id[64];
	uint8_t build_id_size;
	bool kernel;                    /* [kernel.kallsyms] and modules */
	bool anon;                      /* //anon, [heap], [stack], ... */
	bool identity;                  /* perf's anonymous maps: addresses are not
					   offsets in a file (//anon, [heap], ...) */
	char name_buf[32];              /* short_name when made up ("[JIT] tid 12") */
	void *sym;                      /* the symbolizer's handle, set by the report */
	uint32_t idx;
};

struct map {
	uint64_t start, end, pgoff;
	struct dso *dso;
};

struct maps {
	struct map *m;                  /* sorted by start, not overlapping */
	size_t nr, cap;
};

struct proc {
	uint32_t pid;
	struct maps maps;
	uint64_t gen;                   /* maps_gen of its last map change */
};

struct thread {
	uint32_t pid, tid;
	uint32_t ppid;
	const char *comm;               /* interned: equal names, equal pointers */
	struct proc *proc;
	bool exited;
};

/* A cgroup's name, from a CGROUP record (--all-cgroups). */
struct cgroup_name {
	uint64_t id;                    /* what PERF_SAMPLE_CGROUP carries */
	const char *path;               /* interned: "/", "/a/b" */
};

struct machine {
	struct thread **threads;
	size_t nr_threads, cap_threads;
	struct hmap thread_idx;         /* by tid */
	struct proc **procs;
	size_t nr_procs, cap_procs;
	struct hmap proc_idx;           /* by pid */
	struct dso **dsos;
	size_t nr_dsos, cap_dsos;
	struct hmap dso_idx;            /* by path */
	char **strs;                    /* interned strings */
	size_t nr_strs, cap_strs;
	struct hmap str_idx;
	struct maps kernel;             /* pid -1 maps: the kernel and its modules */
	struct dso *kernel_dso;
	uint64_t unknown_threads;       /* samples' threads first seen without COMM */
	uint64_t maps_gen;              /* bumped whenever any map changes */
	struct cgroup_name *cgroups;    /* from CGROUP records, in their order */
	size_t nr_cgroups, cap_cgroups;
};

void machine_init(struct machine *m);
void machine_free(struct machine *m);

/* Apply a COMM, FORK, EXIT, MMAP, MMAP2 or CGROUP record (others are ignored).
 * 0 or -ENOMEM. */
int machine_process(struct machine *m, const struct record *rec);

/* Whose samples may resolve otherwise after rec than before it, as
 * machine_process applies it (their threads, commands or maps): one
 * process's (*pid: COMM, FORK, EXIT and MMAP of it), every process's (the
 * kernel's maps, cgroup names) or none (the records it ignores). */
enum machine_scope { MACHINE_SCOPE_NONE, MACHINE_SCOPE_PROCESS, MACHINE_SCOPE_ALL };
enum machine_scope machine_record_scope(const struct record *rec, uint32_t *pid);

/* The thread, created (with comm ":tid" as perf names unknown ones) if
 * needed. NULL only on ENOMEM. */
struct thread *machine_thread(struct machine *m, uint32_t pid, uint32_t tid);

/* The map of the thread's process (kernel: the kernel maps) holding addr. */
const struct map *machine_find_map(struct machine *m, const struct thread *t, uint64_t addr,
				   bool kernel);

struct dso *machine_dso(struct machine *m, const char *path);   /* find or add */
/* Give d the build id of n (1..64) bytes when it has none: the first one
 * known stays, as in perf. */
void machine_dso_build_id(struct dso *d, const uint8_t *id, size_t n);
const char *machine_intern(struct machine *m, const char *s);  /* NULL on ENOMEM */
/* The path of cgroup id from the CGROUP records read so far (the last
 * one for the id wins); NULL when none named it. */
const char *machine_cgroup_path(const struct machine *m, uint64_t id);

#endif
