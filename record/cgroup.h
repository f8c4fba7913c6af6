/* SPDX-License-Identifier: MIT */
/*
 * Cgroups for prec and prec stat (record/cgroup.c): -G lists, the cgroup
 * file system perf events work on, cgroup directories opened for
 * PERF_FLAG_PID_CGROUP, and the CGROUP records of --all-cgroups.
 */
#ifndef PREC_RECORD_CGROUP_H
#define PREC_RECORD_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "synth.h"

/*
 * One -G/--cgroup LIST (opt names the option in messages), perf's rules:
 * the names of all -G options so far go to the events in order (the n-th
 * name given to the n-th event defined by then), an empty name leaves its
 * event out of cgroup mode, and when only one name is given in all, every
 * event defined so far is counted in it. names has an entry per event
 * (NULL: no cgroup); *nr_given counts the names given so far. Events
 * must come first (nr_events 0 is an error), and there may not be more
 * names than events. The names are copies (cgroup_names_free).
 */
int cgroup_list_assign(const char *opt, const char *list, size_t nr_events, const char **names,
		       size_t *nr_given, struct err *err);

/* Free the names of cgroup_list_assign (each once: events may share one). */
void cgroup_names_free(const char **names, size_t n);

/* Where the cgroups perf events are counted in are: the mount point of a
 * cgroup v1 hierarchy with the perf_event controller, else of cgroup2.
 * 0, or -ENOENT when neither is mounted. */
int cgroup_mountpoint(char *buf, size_t n);

/* The directory of cgroup NAME (relative to that mount point, a leading
 * '/' allowed), opened: the fd, or a negative code with a message naming
 * opt, the name and the path. */
int cgroup_open(const char *opt, const char *name, struct err *err);

/* Every named cgroup of names[0..nr) opened: *fds a new array, -1 where
 * names[i] is NULL (equal names share one fd). 0 or negative, as above. */
int cgroup_open_all(const char *opt, const char *const *names, size_t nr, int **fds,
		    struct err *err);
void cgroup_close_all(int *fds, size_t nr);       /* NULL: nothing */

/* The 64-bit id of the cgroup directory name (relative to dirfd), the one
 * PERF_SAMPLE_CGROUP carries: from name_to_handle_at. 0 or -errno. */
int cgroup_id(int dirfd, const char *name, uint64_t *id);

/* A PERF_RECORD_CGROUP (id, path from the mount point, "/" for the root)
 * for every cgroup that exists, to p->emit (--all-cgroups), parents before
 * children. Nothing when no cgroup file system is mounted. 0 or a negative
 * code from emit. */
int cgroup_synth(const struct synth_params *p, struct err *err);

#endif
