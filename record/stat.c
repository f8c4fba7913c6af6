/* SPDX-License-Identifier: MIT */
/*
 * prec stat [record]: counting mode. Opens counting events (read_format with
 * the enabled and running times) on the workload (inherited, enabled on
 * exec), on CPUs (-a, -C) or on running threads (-p, -t), reads them when the
 * workload ends (or at --timeout / Ctrl-C), and prints perf stat's output
 * through the report's stat printer. `prec stat record` also writes the
 * readings into a counting prec.data file that `prep stat report` prints
 * again. The pieces are in stat_int.h; this is the command.
 */
#include "stat_int.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "control.h"
#include "record.h"

/* -p: every thread of each process; -t: the threads as given. The list is
 * there (allocated) even when empty: -p '' is a target of no threads. */
static int thread_targets(const struct stat_opts *o, struct stat_target *t, struct err *err)
{
	const char *list = o->pids ? o->pids : o->tids, *p = list;
	long id;
	int got;

	if (array_grow((void **)&t->tids, &t->cap_tids, 1, sizeof(*t->tids)))
		return err_set(err, -ENOMEM, "out of memory");
	while ((got = id_list_next(&p, LONG_MAX, &id)) > 0) {
		int ret = o->pids ? tids_add_process(&t->tids, &t->nr_tids, &t->cap_tids, id) :
			  tids_add(&t->tids, &t->nr_tids, &t->cap_tids, (pid_t)id);

		if (ret == -ESRCH)
			return err_set(err, ret, "process %ld does not exist", id);
		if (ret)
			return err_set(err, -ENOMEM, "out of memory");
	}
	if (got < 0)
		return err_set(err, -EINVAL, "%s '%s': not a list of ids", o->pids ? "-p" : "-t",
			       list);
	return 0;
}

static int stat_targets(struct stat_run *run, struct err *err)
{
	const struct stat_opts *o = run->o;
	int ret = 0;

	if (o->all_cpus || o->cpu_list)
		ret = target_cpus(o->cpu_list, &run->t.cpus, &run->t.nr_cpus, err);
	if (!ret && (o->pids || o->tids))
		ret = thread_targets(o, &run->t, err);
	return ret;
}

/* The arrays of the run: per event, and per run for -r. */
static int run_init(struct stat_run *run, struct err *err)
{
	const struct stat_opts *o = run->o;
	size_t n = o->events.nr, runs = (size_t)o->repeat;

	run->po.sep = o->sep;
	run->po.json = o->json;
	run->po.big_num = o->big_num && !o->no_big_num;
	run->po.table = o->table;
	run->po.metric_only = o->metric_only;
	run->c = calloc(n + 1, sizeof(*run->c));
	run->sc = calloc(n + 1, sizeof(*run->sc));
	run->per = calloc(n + 1, sizeof(*run->per));
	run->per_n = calloc(n + 1, sizeof(*run->per_n));
	run->iv.prev = calloc(n + 1, sizeof(*run->iv.prev));
	run->iv.prev_n = calloc(n + 1, sizeof(*run->iv.prev_n));
	run->r.elapsed_s = calloc(runs, sizeof(double));
	run->elapsed_ns = calloc(runs, sizeof(uint64_t));
	if (!run->c || !run->sc || !run->per || !run->per_n || !run->iv.prev || !run->iv.prev_n ||
	    !run->r.elapsed_s || !run->elapsed_ns)
		return err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct stat_counter *sc = &run->sc[i];

		sc->values = calloc(runs, sizeof(double));
		sc->enabled = calloc(runs, sizeof(uint64_t));
		sc->running = calloc(runs, sizeof(uint64_t));
		if (!sc->values || !sc->enabled || !sc->running)
			return err_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

static void run_free(struct stat_run *run)
{
	size_t n = run->o->events.nr;

	counters_close(run->c, n);
	if (run->sc)
		stat_units_free(&run->r, run->sc, n);
	for (size_t i = 0; run->sc && i < n; i++) {
		free(run->sc[i].values);
		free(run->sc[i].enabled);
		free(run->sc[i].running);
	}
	for (size_t i = 0; run->per && i < n; i++)
		free(run->per[i]);
	for (size_t i = 0; run->iv.prev && i < n; i++)
		free(run->iv.prev[i]);
	for (size_t k = 0; k < run->iv.nr_blocks; k++)
		buf_free(&run->iv.blocks[k]);
	free(run->iv.blocks);
	free(run->iv.prev);
	free(run->iv.prev_n);
	free(run->per);
	free(run->per_n);
	free(run->sc);
	free(run->c);
	free(run->r.elapsed_s);
	free(run->elapsed_ns);
	free(run->t.cpus);
	free(run->t.tids);
	free(run->topo);
	free(run->cmd);
	if (run->out && run->out != stderr)
		fclose(run->out);
}

static char *join_args(int argc, char **argv)
{
	struct buf b = BUF_INIT;

	for (int i = 0; i < argc; i++)
		if ((i && buf_append(&b, " ", 1)) || buf_append(&b, argv[i], strlen(argv[i])))
			goto fail;
	if (buf_append(&b, "", 1))
		goto fail;
	return (char *)b.data;
fail:
	buf_free(&b);
	return NULL;
}

/* What the heading names: the command, or the target counted. */
static void heading(struct stat_run *run)
{
	const struct stat_opts *o = run->o;

	run->cmd = o->argc ? join_args(o->argc, o->argv) : NULL;
	if (run->t.cpus && !o->cpu_list)
		snprintf(run->target, sizeof(run->target), "'system wide'");
	else if (run->t.cpus)
		snprintf(run->target, sizeof(run->target), "'CPU(s) %s'", o->cpu_list);
	else if (o->pids)
		snprintf(run->target, sizeof(run->target), "process id '%s'", o->pids);
	else if (o->tids)
		snprintf(run->target, sizeof(run->target), "thread id '%s'", o->tids);
	else
		run->target[0] = 0;
	run->r.cmd = run->t.cpus || run->t.tids ? NULL : run->cmd;
	run->r.target = run->target;
}

/* The totals: units, the file of stat record, and the output (with -I the
 * intervals were the output, unless --summary asks for the totals too, as
 * perf). */
static int stat_finish(struct stat_run *run, int argc, char **argv, struct err *err)
{
	const struct stat_opts *o = run->o;
	struct stat_result *r = &run->r;
	size_t n = o->events.nr;

	heading(run);
	r->c = run->sc;
	r->nr = n;
	r->runs = run->runs;
	r->show_times = r->cmd != NULL;
	stat_units_free(r, run->sc, n);
	if (counters_aggregate(run, run->per, run->per_n, &run->topo, &run->nr_topo))
		return err_set(err, -ENOMEM, "out of memory");
	if (o->record) {
		int ret = stat_write_file(run, argc, argv, err);

		counters_close(run->c, n);
		if (ret)
			return ret;
	}
	for (size_t i = 0; o->verbose && i < n; i++)
		fprintf(stderr, "%s: %.0f %" PRIu64 " %" PRIu64 "\n", run->sc[i].name,
			run->sc[i].values[0], run->sc[i].enabled[0], run->sc[i].running[0]);
	if (!o->quiet && (!o->interval_ms || o->summary)) {
		run->po.summary = o->interval_ms && (o->sep || o->json) && !o->no_csv_summary;
		stat_print(run->out, r, &run->po);
	}
	return 0;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = { 0 };
	struct stat_run run = { .o = &o, .po = { .interval = -1 }, .out = stderr };
	struct err err = { 0 };
	int ret, rec_argc = argc;
	char **rec_argv = argv;

	if (argc > 1 && !strcmp(argv[1], "record")) {
		o.record = true;
		argc--;
		argv++;
	}
	ret = stat_parse(&o, argc, argv);
	if (ret) {
		event_list_free(&o.events);     /* parsed before a bad value */
		return ret < 0 ? 0 : ret;
	}
	if (control_open(&run.control, o.control, &err)) {
		fprintf(stderr, "prec stat: %s\n", err.msg);
		event_list_free(&o.events);
		return 129;
	}
	if (o.record) {
		o.record_file = o.output ? o.output : "prec.data";
		o.output = NULL;
	}
	if (o.output && !(run.out = fopen(o.output, o.append ? "a" : "w"))) {
		fprintf(stderr, "prec stat: cannot write '%s': %s\n", o.output, strerror(errno));
		event_list_free(&o.events);
		return 1;
	}
	if (o.log_fd && !(run.out = stat_log_fd(&o, &err))) {
		fprintf(stderr, "%s\n", err.msg);
		event_list_free(&o.events);
		return 1;
	}
	ret = run_init(&run, &err);
	if (!ret)
		ret = stat_targets(&run, &err);
	if (!ret) {
		stop_signals_install();
		ret = stat_runs(&run, &err);
	}
	if (!ret)
		ret = stat_finish(&run, rec_argc, rec_argv, &err);
	if (ret)
		fprintf(stderr, "prec stat: %s\n", err.msg);
	run_free(&run);
	control_close(run.control);
	event_list_free(&o.events);
	if (ret)
		return 255;
	/* the workload's status, as perf stat exits */
	if (WIFEXITED(run.status))
		return WEXITSTATUS(run.status);
	return WIFSIGNALED(run.status) ? 128 + WTERMSIG(run.status) : 0;
}
