/* SPDX-License-Identifier: MIT */
/*
 * The values of the shared input and filter options, checked before any
 * file is read: a list of ids that is not one, a bad time range, a kernel
 * symbol file that cannot be read. Each message names the option and its
 * value. And the option callbacks that fill struct load_opts, and where
 * prep keeps what it reuses between runs.
 */
#include "load_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/opts.h"
#include "parallel.h"

int load_opts_check(const struct load_opts *o, struct err *err)
{
	const struct load_filter_opts *f = &o->f;
	struct stat st;

	if ((f->pids && filter_parse_ids("--pid", "pid", f->pids, NULL, err)) ||
	    (f->tids && filter_parse_ids("--tid", "tid", f->tids, NULL, err)) ||
	    (f->cpus && filter_parse_cpus(f->cpus, NULL, err)) ||
	    (f->comms && filter_parse_names("--comm", f->comms, NULL, err)) ||
	    (f->dsos && filter_parse_names("--dso", f->dsos, NULL, err)) ||
	    (f->syms && filter_parse_names("--symbols", f->syms, NULL, err)) ||
	    (f->cgroups && filter_parse_names("--cgroup", f->cgroups, NULL, err)))
		return -EINVAL;
	if (o->kallsyms_path && access(o->kallsyms_path, R_OK))
		return err_set(err, -EINVAL, "--kallsyms '%s': invalid file: %s", o->kallsyms_path,
			       strerror(errno));
	if (o->symfs && (stat(o->symfs, &st) || !S_ISDIR(st.st_mode)))
		return err_set(err, -EINVAL, "--symfs '%s': not a folder", o->symfs);
	if (f->time && filter_parse_time(f->time, NULL, err))
		return -EINVAL;
	if (o->parallelism_list && parallel_parse_list(o->parallelism_list, NULL, err))
		return -EINVAL;
	return 0;
}

void load_opts_default_input(struct load_opts *o)
{
	if (!o->nr_inputs)
		o->inputs[o->nr_inputs++] = "prec.data";
}

int load_opts_add_input(const struct opt *o, const char *arg, struct err *err)
{
	struct load_opts *lo = o->dest;

	if (lo->nr_inputs == LOAD_MAX_INPUTS)
		return err_set(err, -EINVAL, "at most %d input files", LOAD_MAX_INPUTS);
	lo->inputs[lo->nr_inputs++] = arg;
	return 0;
}

int load_opts_set_input(const struct opt *o, const char *arg, struct err *err)
{
	struct load_opts *lo = o->dest;

	(void)err;
	lo->inputs[0] = arg;
	lo->nr_inputs = 1;
	return 0;
}

const char *load_cache_dir(char *buf, size_t n)
{
	const char *d = getenv("PREP_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME"),
		   *home = getenv("HOME");
	int len;

	if (d && *d)
		return d;
	if (x && *x)
		len = snprintf(buf, n, "%s/prep", x);
	else if (home && *home) {
		len = snprintf(buf, n, "%s/.cache", home);
		if (len < 0 || (size_t)len >= n || (mkdir(buf, 0700) && errno != EEXIST))
			return NULL;
		len = snprintf(buf, n, "%s/.cache/prep", home);
	} else {
		return NULL;
	}
	return len < 0 || (size_t)len >= n ? NULL : buf;
}
