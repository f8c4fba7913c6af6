/* SPDX-License-Identifier: MIT */
/*
 * prec stat's options checked as a whole, once parsed: which combine, which
 * need a target, and the options for counters this machine cannot have
 * (refused in perf's own words). Reads only the options; the caller prints.
 */
#include "stat_int.h"

#include <errno.h>

bool stat_opts_has_target(const struct stat_opts *o)
{
	return o->argc || o->all_cpus || o->cpu_list || o->pids || o->tids;
}

/* The command, its targets and the aggregation they allow. */
static int check_targets(const struct stat_opts *o, struct err *err)
{
	if (!stat_opts_has_target(o))
		return err_set(err, -EINVAL, "prec stat: no command and no target (-a, -C, -p, -t) "
			       "to count");
	if (o->repeat > 1 && !o->argc)
		return err_set(err, -EINVAL, "prec stat: -r needs a command to run again");
	if (o->pids && o->tids)
		return err_set(err, -EINVAL, "prec stat: -p and -t exclude each other");
	if ((o->no_aggr + o->per_socket + o->per_die + o->per_core + o->per_node +
	     o->per_thread) > 1)
		return err_set(err, -EINVAL, "prec stat: choose one of -A, --per-socket, --per-die, "
			       "--per-core, --per-node, --per-thread");
	if ((o->no_aggr || o->per_socket || o->per_die || o->per_core || o->per_node) &&
	    !o->all_cpus && !o->cpu_list)
		return err_set(err, -EINVAL, "prec stat: -A and --per-socket/die/core/node need -a "
			       "or -C (counts per CPU)");
	return 0;
}

/* Options for counters this machine may not have: perf's messages. */
static int check_counters(const struct stat_opts *o, bool cpu_pmu, struct err *err)
{
	if (o->transaction)
		return err_set(err, -EOPNOTSUPP, "Cannot set up transaction events%s",
			       cpu_pmu ? "" : ": there is no cpu PMU on this machine");
	if (o->topdown && !o->all_cpus)
		return err_set(err, -EOPNOTSUPP, "top down event configuration requires "
			       "system-wide mode (-a)");
	if (o->topdown)
		return err_set(err, -EOPNOTSUPP, "System does not support topdown");
	if (o->smi_cost)
		return err_set(err, -EOPNOTSUPP, "freeze_on_smi is not supported.");
	return 0;
}

/* How the counts are taken and shown. */
static int check_modes(const struct stat_opts *o, struct err *err)
{
	if (o->all_user && o->all_kernel)
		return err_set(err, -EINVAL, "prec stat: --all-user and --all-kernel exclude each other");
	if (o->interval_count && !o->interval_ms)
		return err_set(err, -EINVAL, "prec stat: --interval-count needs -I");
	if (o->interval_ms && o->repeat > 1)
		return err_set(err, -EINVAL, "prec stat: -I and -r exclude each other");
	if (o->sep && !*o->sep)
		return err_set(err, -EINVAL, "prec stat: -x '': the separator is empty");
	if (o->json && o->sep)
		return err_set(err, -EINVAL, "prec stat: -j and -x exclude each other");
	if (o->per_thread && !o->pids && !o->tids)
		return err_set(err, -EINVAL, "prec stat: --per-thread needs -p or -t");
	return 0;
}

int stat_check(const struct stat_opts *o, bool cpu_pmu, bool *no_metrics, struct err *err)
{
	int ret = check_targets(o, err);

	*no_metrics = false;
	if (!ret)
		ret = check_counters(o, cpu_pmu, err);
	if (ret)
		return ret;
	/* -M: perf says it cannot find them, and goes on without */
	*no_metrics = o->metrics != NULL;
	return check_modes(o, err);
}
