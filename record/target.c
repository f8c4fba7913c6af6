/* SPDX-License-Identifier: MIT */
/*
 * What prec and prec stat measure, from the command line: the CPUs of -a
 * and -C (each checked online before anything opens) and the threads of -p
 * (every thread of each process, from /proc) and -t. The two commands word
 * their -p/-t errors differently (prec as perf record, prec stat as it
 * always has), so the thread lists come as primitives the callers drive.
 */
#include "record.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"

static int add_cpus(int **out, size_t *nr, size_t *cap, long a, long b)
{
	for (long c = a; c <= b; c++) {
		if (array_grow((void **)out, cap, *nr + 1, sizeof(**out)))
			return -ENOMEM;
		(*out)[(*nr)++] = (int)c;
	}
	return 0;
}

int parse_cpu_list(const char *list, int **cpus, size_t *n, struct err *err)
{
	const char *p = list;
	int *out = NULL;
	size_t nr = 0, cap = 0;

	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p || a < 0 || a > 4095)
			goto bad;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b > 4095)
				goto bad;
		}
		if (add_cpus(&out, &nr, &cap, a, b)) {
			free(out);
			return err_set(err, -ENOMEM, "out of memory");
		}
		p = end;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			goto bad;
	}
	if (!nr)
		goto bad;
	*cpus = out;
	*n = nr;
	return 0;
bad:
	free(out);
	return err_set(err, -EINVAL, "-C '%s': not a CPU list like 0-3,6", list);
}

/* The online CPUs as the kernel lists them ("0-1"), newline removed. */
static void online_cpu_text(char *line, size_t size)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");

	if (!f || !fgets(line, (int)size, f)) {
		long nr = sysconf(_SC_NPROCESSORS_ONLN);

		snprintf(line, size, "0-%ld", nr > 0 ? nr - 1 : 0);
	}
	if (f)
		fclose(f);
	line[strcspn(line, "\n")] = '\0';
}

static int online_cpus(int **cpus, size_t *n, struct err *err)
{
	char line[4096];

	online_cpu_text(line, sizeof(line));
	return parse_cpu_list(line, cpus, n, err);
}

/* -C: every CPU named must be online, else a clear error before anything opens. */
static int check_cpu_list(const char *list, const int *cpus, size_t n, struct err *err)
{
	char line[4096];
	int *online = NULL;
	size_t nr_online = 0;
	int ret = 0;

	online_cpu_text(line, sizeof(line));
	if (parse_cpu_list(line, &online, &nr_online, err))
		return 0;       /* cannot tell: let perf_event_open say */
	for (size_t i = 0; i < n && !ret; i++) {
		bool found = false;

		for (size_t k = 0; k < nr_online && !found; k++)
			found = online[k] == cpus[i];
		if (!found)
			ret = err_set(err, -EINVAL, "-C %s: CPU %d does not exist (this machine has %s)",
				      list, cpus[i], line);
	}
	free(online);
	return ret;
}

int target_cpus(const char *list, int **cpus, size_t *n, struct err *err)
{
	int ret;

	if (!list)
		return online_cpus(cpus, n, err);
	ret = parse_cpu_list(list, cpus, n, err);
	if (!ret && (ret = check_cpu_list(list, *cpus, *n, err))) {
		free(*cpus);
		*cpus = NULL;
	}
	return ret;
}

int id_list_next(const char **p, long max, long *id)
{
	char *end;

	if (!**p)
		return 0;
	*id = strtol(*p, &end, 10);
	if (end == *p || *id <= 0 || *id > max || (*end && *end != ','))
		return -EINVAL;
	*p = *end ? end + 1 : end;
	return 1;
}

int tids_add(pid_t **tids, size_t *nr, size_t *cap, pid_t tid)
{
	if (array_grow((void **)tids, cap, *nr + 1, sizeof(**tids)))
		return -ENOMEM;
	(*tids)[(*nr)++] = tid;
	return 0;
}

int tids_add_process(pid_t **tids, size_t *nr, size_t *cap, long pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%ld/task", pid);
	d = opendir(path);
	if (!d)
		return -ESRCH;
	while ((de = readdir(d))) {
		long tid = strtol(de->d_name, NULL, 10);

		if (tid <= 0)
			continue;       /* "." and ".." */
		if (tids_add(tids, nr, cap, (pid_t)tid)) {
			closedir(d);
			return -ENOMEM;
		}
	}
	closedir(d);
	return 0;
}
