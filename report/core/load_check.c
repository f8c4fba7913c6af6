/* SPDX-License-Identifier: MIT */
/*
 * The values of the shared input and filter options, checked before any
 * file is read: a list of ids that is not one, a CPU the recording did not
 * have, a kernel symbol file that cannot be read. Each message names the
 * option and its value.
 */
#include "load.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/blocks.h"

/* "1,2,3": decimal ids, none empty; perf says "problems parsing pid list" */
static int check_ids(const char *opt, const char *what, const char *list, struct err *err)
{
	const char *p = list;

	do {
		char *end;

		if (*p < '0' || *p > '9')
			goto bad;
		errno = 0;
		if (strtol(p, &end, 10) > 0x7fffffff || errno || (*end && *end != ','))
			goto bad;
		p = *end ? end + 1 : end;
	} while (*p || p[-1] == ',');
	return 0;
bad:
	return err_set(err, -EINVAL, "%s '%s': problems parsing %s list", opt, list, what);
}

/* "0-2,5": the highest CPU in *max */
static int check_cpus(const char *list, long *max, struct err *err)
{
	const char *p = list;

	*max = -1;
	do {
		char *end;
		long a, b;

		if (*p < '0' || *p > '9')
			goto bad;
		a = b = strtol(p, &end, 10);
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				goto bad;
			b = strtol(end + 1, &end, 10);
		}
		if ((*end && *end != ',') || a > b || b > 1 << 20)
			goto bad;
		if (b > *max)
			*max = b;
		p = *end ? end + 1 : end;
	} while (*p || p[-1] == ',');
	return 0;
bad:
	return err_set(err, -EINVAL, "--cpu '%s': not a CPU list like 0-2,5", list);
}

static int check_names(const char *opt, const char *list, struct err *err)
{
	if (!*list || *list == ',' || list[strlen(list) - 1] == ',' || strstr(list, ",,"))
		return err_set(err, -EINVAL, "%s '%s': empty name in the list", opt, list);
	return 0;
}

int load_check(const struct load *l, struct err *err)
{
	const struct filters *f = &l->f;
	struct stat st;
	long max;

	if ((f->pids && check_ids("--pid", "pid", f->pids, err)) ||
	    (f->tids && check_ids("--tid", "tid", f->tids, err)) ||
	    (f->cpus && check_cpus(f->cpus, &max, err)) ||
	    (f->comms && check_names("--comm", f->comms, err)) ||
	    (f->dsos && check_names("--dso", f->dsos, err)) ||
	    (f->syms && check_names("--symbols", f->syms, err)))
		return -EINVAL;
	if (l->kallsyms_path && access(l->kallsyms_path, R_OK))
		return err_set(err, -EINVAL, "--kallsyms '%s': invalid file: %s", l->kallsyms_path,
			       strerror(errno));
	if (l->symfs && (stat(l->symfs, &st) || !S_ISDIR(st.st_mode)))
		return err_set(err, -EINVAL, "--symfs '%s': not a folder", l->symfs);
	return 0;
}

int load_check_cpus(const struct load *l, const struct session *s, struct err *err)
{
	struct err ignore = { 0 };
	uint64_t n;
	long max;

	if (!l->f.cpus || check_cpus(l->f.cpus, &max, &ignore) ||
	    !metadata_get_u64(&s->meta, META_NR_CPUS_AVAIL, &n) || !n || (uint64_t)max < n)
		return 0;
	return err_set(err, -EINVAL, "--cpu '%s': CPU %ld is not in the recording (it had 0-%" PRIu64 ")",
		       l->f.cpus, max, n - 1);
}
