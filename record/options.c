/* SPDX-License-Identifier: MIT */
/*
 * prec's command line: the option table, and the checks that turn what was
 * typed into struct record_opts (frequency, call-graph mode, ring size,
 * duration, targets, tracepoint filters).
 */
#include "record.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "common/opts.h"
#include "record/cgroup.h"

#define DEFAULT_FREQ 4000
#define DEFAULT_STACK 8192

/* ---- options --------------------------------------------------------- */

/* Options given as text, checked and turned into record_opts after parsing. */
struct raw_args {
	const char *freq, *callgraph, *duration;
	const char *switch_output, *switch_max_files, *max_size;
	bool fp;
};

/* -e: the events of the last -e are what a following --filter applies to. */
static int cb_event(const struct opt *opt, const char *arg, struct err *err)
{
	struct record_opts *o = opt->dest;

	o->last_e_first = o->events.nr;
	return events_parse(arg, NULL, &o->events, err);
}

/* --filter follows an -e of tracepoints, as in perf. */
static int cb_filter(const struct opt *opt, const char *arg, struct err *err)
{
	struct record_opts *o = opt->dest;
	size_t n = 0;

	for (size_t i = o->last_e_first; i < o->events.nr; i++) {
		if (o->events.ev[i].attr.type != PERF_TYPE_TRACEPOINT)
			continue;
		if (o->filters[i])
			return err_set(err, -EINVAL, "--filter '%s': event '%s' has a filter already",
				       arg, o->events.ev[i].name);
		o->filters[i] = arg;
		n++;
	}
	if (!n)
		return err_set(err, -EINVAL, "--filter '%s' must follow an -e of tracepoint events "
			       "(e.g. -e sched:sched_switch --filter 'prev_pid == 1')", arg);
	return 0;
}

/* -G: the cgroups of the events defined so far (cgroup.h). */
static int cb_cgroup(const struct opt *opt, const char *arg, struct err *err)
{
	struct record_opts *o = opt->dest;

	return cgroup_list_assign("-G", arg, o->events.nr, o->cgroups, &o->nr_cgroup_names, err);
}

/* --switch-output[=signal|SIZE|TIME]: checked with the rest (check_flight) */
static int cb_switch_output(const struct opt *opt, const char *arg, struct err *err)
{
	struct raw_args *raw = opt->dest;

	(void)err;
	raw->switch_output = arg ? arg : "signal";
	return 0;
}

/* --overwrite, --switch-output, --switch-max-files, --max-size (flight.c) */
static int check_flight(struct record_opts *o, const struct raw_args *raw, struct err *err)
{
	char *end;
	int ret;

	if (raw->switch_output && (ret = flight_parse_switch(o, raw->switch_output, err)))
		return ret;
	if (raw->switch_max_files) {
		o->switch_max_files = strtol(raw->switch_max_files, &end, 10);
		if (end == raw->switch_max_files || *end || o->switch_max_files < 1)
			return err_set(err, -EINVAL, "--switch-max-files %s: expected a number of "
				       "files, 1 or more", raw->switch_max_files);
	}
	if (raw->max_size && flight_parse_size(raw->max_size, &o->max_size))
		return err_set(err, -EINVAL, "--max-size %s: expected a size in bytes, or with a unit "
			       "B, K, M or G (e.g. 100K, 2M)", raw->max_size);
	if (o->switch_output && o->output && !strcmp(o->output, "-"))
		return err_set(err, -EINVAL, "--switch-output cannot write to standard output (-o -)");
	return o->overwrite ? flight_add_tracking_event(o, err) : 0;
}

static long max_sample_rate(void)
{
	return sysctl_long("/proc/sys/kernel/perf_event_max_sample_rate", 100000);
}

int record_check_freq(struct record_opts *o, const char *freq_arg, struct err *err)
{
	long max = max_sample_rate();
	char *end;

	if (!freq_arg) {
		o->freq = o->period ? 0 : DEFAULT_FREQ;
		return 0;
	}
	o->freq_given = true;
	if (!strcmp(freq_arg, "max")) {
		o->freq = max;
		o->freq_max = true;
		return 0;
	}
	o->freq = strtol(freq_arg, &end, 10);
	if (end == freq_arg || *end || o->freq <= 0)
		return err_set(err, -EINVAL, "-F %s: not a frequency (a number of Hz, or 'max')",
			       freq_arg);
	if (o->freq > max) {
		fprintf(stderr, "warning: Maximum frequency rate (%'ld Hz) exceeded, throttling from "
			"%'ld Hz to %'ld Hz.\n         The limit can be raised via "
			"/proc/sys/kernel/perf_event_max_sample_rate.\n", max, o->freq, max);
		o->freq = max;
	}
	return 0;
}

int record_check_callgraph(struct record_opts *o, const char *a, bool fp_flag, struct err *err)
{
	o->stack_size = DEFAULT_STACK;
	if (!a) {
		o->callgraph = fp_flag ? CALLGRAPH_FP : CALLGRAPH_NONE;
		return 0;
	}
	if (!strcmp(a, "fp")) {
		o->callgraph = CALLGRAPH_FP;
	} else if (!strncmp(a, "dwarf", 5) && (!a[5] || a[5] == ',')) {
		o->callgraph = CALLGRAPH_DWARF;
		if (a[5]) {
			char *end;
			long size = strtol(a + 6, &end, 10);

			/* the kernel takes at most 65528 bytes, in multiples of 8 */
			if (end == a + 6 || *end || size <= 0 || size > 65528)
				return err_set(err, -EINVAL,
					       "--call-graph %s: the stack size must be 8..65528 bytes", a);
			o->stack_size = (size + 7) & ~7L;
		}
	} else if (!strcmp(a, "none")) {
		o->callgraph = CALLGRAPH_NONE;
	} else {
		return err_set(err, -EINVAL, "--call-graph %s: expected fp, dwarf[,SIZE] or none", a);
	}
	return 0;
}

static int check_opts(struct record_opts *o, const struct raw_args *raw, struct err *err)
{
	int targets = !!o->pids + !!o->tids + (o->all_cpus || o->cpu_list) + (o->argc > 0);
	const char *duration_arg = raw->duration;
	int ret = record_check_freq(o, raw->freq, err);

	if (!ret)
		ret = record_check_callgraph(o, raw->callgraph, raw->fp, err);
	if (!ret)
		ret = sample_opts_check(&o->sample, err);
	if (ret)
		return ret;
	if (o->mmap_pages && (o->mmap_pages & (o->mmap_pages - 1)))
		return err_set(err, -EINVAL,
			       "-m %ld: the number of mmap data pages must be a power of two (e.g. %ld)",
			       o->mmap_pages, 1L << (64 - __builtin_clzl((unsigned long)o->mmap_pages)));
	if (duration_arg) {
		char *end;

		o->duration = strtod(duration_arg, &end);
		if (end == duration_arg || *end || !(o->duration > 0) || !isfinite(o->duration))
			return err_set(err, -EINVAL, "--duration %s: expected seconds, e.g. 2.5",
				       duration_arg);
	}
	if (targets == 0)
		return err_set(err, -EINVAL, "nothing to record: give a command, -p PID, -t TID or -a");
	if (o->pids && o->tids)
		return err_set(err, -EINVAL, "-p and -t cannot be used together");
	if (o->embed_source && o->no_embed)
		return err_set(err, -EINVAL, "--embed-source and --no-embed cannot be used together "
			       "(the source lines are embedded with the rest)");
	/* perf 6.15: the parallelism is that of the recorded threads, from
	 * their own switches; what it means system-wide is not settled there */
	if (o->latency && (o->all_cpus || o->cpu_list))
		return err_set(err, -EINVAL, "--latency: latency profiling is not supported with "
			       "system-wide collection (-a, -C)");
	o->switch_events |= o->latency;
	if (o->nr_cgroup_names && !o->all_cpus && !o->cpu_list)
		return err_set(err, -EINVAL, "-G: cgroup monitoring needs system-wide mode: add -a "
			       "(or -C CPUS)");
	if (!o->events.nr) {
		o->default_event = true;
		ret = events_parse("cycles", NULL, &o->events, err);
	}
	if (!ret)       /* --off-cpu: its event after the others */
		ret = offcpu_check(o, err);
	if (!ret)       /* probes' symbols, mem:SYMBOL's variable */
		ret = probes_resolve(&o->events, o->argc ? o->argv : NULL,
				     o->pids ? o->pids : o->tids, err);
	if (!ret)
		ret = check_flight(o, raw, err);
	return ret;
}

static const char usage_line[] = "prec [<options>] [--] <command> [<args>]\n"
				 "   or: prec record [<options>] [--] <command> [<args>]\n"
				 "   or: prec top [<options>]"
				 "   (what the system runs now: prec top --help)\n"
				 "   or: prec stat [record] [<options>] [--] <command> [<args>]"
				 "   (counting: prec stat --help)\n"
				 "   or: prec list [<filter>...]"
				 "   (the events: prec list --help)";

int record_parse_args(struct record_opts *o, int argc, char **argv)
{
	struct raw_args raw = { 0 };
	bool help = false, version = false;
	const struct opt table[] = {
		OPTION_CALLBACK('e', "event", o, "event", "event to sample (repeatable; comma list; "
				"default cycles, or cpu-clock without a PMU; probes: mem:ADDR|VAR[/LEN][:rwx], "
				"u:|ur:PATH:FUNC[+OFF], k:|kr:FUNC[+OFF])", cb_event),
		OPTION_CALLBACK(0, "filter", o, "filter", "tracepoint filter for the events of the "
				"preceding -e (the kernel's filter syntax)", cb_filter),
		OPTION_STRING('F', "freq", &raw.freq, "n", "sample frequency in Hz, or 'max' (default 4000)"),
		OPTION_INT('c', "count", &o->period, "n", "sample every n events instead", 1, LONG_MAX),
		OPTION_FLAG('g', NULL, &raw.fp, "record call chains (frame pointers)"),
		OPTION_STRING(0, "call-graph", &raw.callgraph, "mode",
			      "fp, dwarf[,stack size] (default 8192) or none"),
		OPTION_STRING('p', "pid", &o->pids, "pid", "record existing processes (comma list)"),
		OPTION_STRING('t', "tid", &o->tids, "tid", "record existing threads (comma list)"),
		OPTION_FLAG('a', "all-cpus", &o->all_cpus, "system-wide, on all CPUs"),
		OPTION_STRING('C', "cpu", &o->cpu_list, "cpus", "system-wide on these CPUs (e.g. 0-1,3)"),
		OPTION_STRING(0, "duration", &raw.duration, "seconds",
			      "stop after this long (without a command: else Ctrl-C)"),
		OPTION_STRING('o', "output", &o->output, "file", "output file (default prec.data)"),
		OPTION_INT('m', "mmap-pages", &o->mmap_pages, "pages",
			   "ring buffer data pages per CPU, a power of two", 1, 1L << 20),
		OPTION_INT_OPTARG('z', "compression-level", &o->level, "n",
				  "deflate level 0-12 (default 1; 0 stores raw)", 0, 12, 1),
		OPTION_FLAG(0, "switch-events", &o->switch_events, "record context switches"),
		OPTION_FLAG(0, "latency", &o->latency, "record what prep --latency needs: the context "
			    "switches of the recorded threads"),
		OFFCPU_OPTIONS(&o->off),
		OPTION_INT('D', "delay", &o->delay_ms, "ms", "enable the events ms milliseconds after "
			   "the start (-1: when --control says enable)", -1, 1L << 30),
		OPTION_STRING(0, "control", &o->control, "fifo:ctl[,ack]|fd:ctl[,ack]",
			      "commands enable, disable, snapshot, stop, ping (answered ack)"),
		OPTION_CALLBACK('G', "cgroup", o, "name", "with -a/-C: sample the events given "
				"before it only in these cgroups (comma list, one per event)",
				cb_cgroup),
		OPTION_FLAG(0, "all-cgroups", &o->all_cgroups, "record each sample's cgroup and the "
			    "cgroups' names (for prep --sort cgroup)"),
		OPTION_FLAG(0, "overwrite", &o->overwrite, "flight recorder: keep only the newest "
			    "samples of each ring buffer (-m), written at the end or at a switch"),
		OPTION_CALLBACK_OPTARG(0, "switch-output", &raw, "signal|size|time",
				       "start a new timestamped output file on SIGUSR2 (default), "
				       "every SIZE (e.g. 100M) or every TIME (e.g. 30s)",
				       cb_switch_output),
		OPTION_STRING(0, "switch-max-files", &raw.switch_max_files, "n",
			      "with --switch-output, keep only the newest n files"),
		OPTION_STRING(0, "max-size", &raw.max_size, "size",
			      "stop when the output file reaches this size (B, K, M, G)"),
		OPTION_FLAG(0, "no-inherit", &o->no_inherit, "do not follow new threads and children"),
		OPTION_FLAG('s', "stat", &o->stat, "per-thread counts at each thread's exit (inherit_stat; prep report -T)"),
		OPTION_FLAG('B', "no-buildid", &o->no_buildid, "do not collect build ids"),
		OPTION_FLAG(0, "no-embed", &o->no_embed, "do not embed what the report needs of the binaries hit (symbols, lines, unwind tables)"),
		OPTION_FLAG(0, "embed-source", &o->embed_source, "also embed the source lines around the lines hit (prep annotate shows them without the files)"),
		SAMPLE_OPTIONS(&o->sample),
		OPTION_COUNT('q', "quiet", &o->quiet, "print no messages but errors"),
		OPTION_COUNT('v', "verbose", &o->verbose, "say more"),
		OPTION_FLAG('h', "help", &help, "show this help"),
		OPTION_FLAG(0, "version", &version, "show the version"),
		OPTION_END,
	};
	struct err err = { 0 };
	int first;

	first = opts_parse(table, argc, argv, &err);
	if (first < 0) {
		fprintf(stderr, "prec: %s\n", err.msg);
		opts_usage(stderr, usage_line, table);
		return 129;
	}
	if (help) {
		opts_usage(stdout, usage_line, table);
		exit(0);
	}
	if (o->sample.list_regs) {
		sample_regs_list(stdout);
		exit(0);
	}
	if (version) {
		printf("prec %s\n", PREC_VERSION);
		exit(0);
	}
	o->argc = argc - first;
	o->argv = argv + first;
	if (check_opts(o, &raw, &err)) {
		fprintf(stderr, "prec: %s\n", err.msg);
		return 129;
	}
	return 0;
}
