/* SPDX-License-Identifier: MIT */
/*
 * The rest of perf-stat(1)'s options for prec stat (their table entries are
 * STAT_MORE_OPTIONS in stat_int.h): their checks, with perf's own words
 * where this machine or prec lacks what they need (hybrid PMUs, top-down
 * metrics, BPF), --log-fd's output stream, and the --pre/--post hooks.
 */
#include "stat_int.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* --per-cache[=LEVEL]: L3 or l3 (any level from 1); none: the highest. */
int stat_cb_per_cache(const struct opt *opt, const char *arg, struct err *err)
{
	struct stat_opts *o = opt->dest;
	const char *p = arg;

	if (!arg || !*arg) {
		o->per_cache = "";
		return 0;
	}
	if ((*p != 'L' && *p != 'l') || p[1] < '1' || p[1] > '9')
		return err_set(err, -EINVAL, "--per-cache '%s': not a cache level (L1, L2, L3 ...)",
			       arg);
	for (p += 2; *p; p++)
		if (!isdigit((unsigned char)*p))
			return err_set(err, -EINVAL, "--per-cache '%s': not a cache level (L1, L2, "
				       "L3 ...)", arg);
	o->per_cache = arg + 1;
	return 0;
}

/* A hybrid machine: the kernel shows its two core PMUs. */
static bool hybrid(void)
{
	return !access("/sys/bus/event_source/devices/cpu_core", F_OK) ||
	       !access("/sys/bus/event_source/devices/cpu_atom", F_OK);
}

static bool pmu_exists(const char *name)
{
	char path[512];

	if (!*name || strchr(name, '/'))
		return false;
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s", name);
	return !access(path, F_OK);
}

/* What prec has no means for: BPF, hybrid CPUs it is not on. */
static int check_missing(const struct stat_opts *o, struct err *err)
{
	if (o->bpf_prog || o->bpf_counters)
		return err_set(err, -EINVAL, "prec stat: %s needs BPF, which prec does not have "
			       "(as perf built without BPF skeletons)",
			       o->bpf_prog ? "-b/--bpf-prog" : "--bpf-counters");
	if (o->cputype && (!hybrid() || (strcmp(o->cputype, "core") && strcmp(o->cputype, "atom"))))
		return err_set(err, -EINVAL, "--cputype %s is not supported!", o->cputype);
	if (o->cputype)
		return err_set(err, -EOPNOTSUPP, "prec stat: --cputype: counting hybrid CPUs by "
			       "type is not in prec");
	if (o->pmu_filter && !pmu_exists(o->pmu_filter))
		return err_set(err, -EINVAL, "prec stat: --pmu-filter '%s': no such PMU in "
			       "/sys/bus/event_source/devices", o->pmu_filter);
	return 0;
}

int stat_more_check(const struct stat_opts *o, bool cpu_pmu, struct err *err)
{
	int ret = check_missing(o, err);

	(void)cpu_pmu;
	if (ret)
		return ret;
	if (o->table && o->repeat <= 1)
		return err_set(err, -EINVAL, "--table is only supported with -r");
	if (o->metric_only && o->repeat > 1)
		return err_set(err, -EINVAL, "--metric-only is not supported with -r");
	if (o->metric_only && o->per_thread)
		return err_set(err, -EINVAL, "--metric-only is not supported with --per-thread");
	if (o->log_fd && o->output)
		return err_set(err, -EINVAL, "cannot use both --output and --log-fd");
	if ((o->per_cache || o->per_cluster) &&
	    (o->no_aggr || o->per_socket || o->per_die || o->per_core || o->per_node ||
	     o->per_thread || (o->per_cache && o->per_cluster)))
		return err_set(err, -EINVAL, "prec stat: choose one of -A, --per-socket, --per-die, "
			       "--per-cluster, --per-cache, --per-core, --per-node, --per-thread");
	if ((o->per_cache || o->per_cluster) && !o->all_cpus && !o->cpu_list)
		return err_set(err, -EINVAL, "prec stat: --per-cache and --per-cluster need -a or -C "
			       "(counts per CPU)");
	if (o->topdown && o->td_level > 1 && o->all_cpus)
		return err_set(err, -EOPNOTSUPP, "Invalid top-down metrics level. The max level "
			       "is 1.");
	return 0;
}

FILE *stat_log_fd(const struct stat_opts *o, struct err *err)
{
	FILE *f;

	if (fcntl((int)o->log_fd, F_GETFD) < 0) {
		err_set(err, -EBADF, "Failed opening logfd: %s", strerror(EBADF));
		return NULL;
	}
	f = fdopen((int)o->log_fd, o->append ? "a" : "w");
	if (!f)
		err_set(err, -errno, "Failed opening logfd: %s", strerror(errno));
	return f;
}

int stat_hook(const char *which, const char *cmd, struct err *err)
{
	int st;

	if (!cmd)
		return 0;
	fflush(NULL);
	st = system(cmd);
	if (st == -1)
		return err_set(err, -ECANCELED, "--%s '%s': cannot run the shell: %s", which, cmd,
			       strerror(errno));
	if (WIFEXITED(st) && !WEXITSTATUS(st))
		return 0;
	if (WIFEXITED(st))
		return err_set(err, -ECANCELED, "--%s '%s' failed (exit status %d): stopped", which,
			       cmd, WEXITSTATUS(st));
	return err_set(err, -ECANCELED, "--%s '%s' was killed by signal %d: stopped", which, cmd,
		       WTERMSIG(st));
}
