/* SPDX-License-Identifier: MIT */
/*
 * The sample filters (--comm, --pid, --tid, --cpu, --time, --dso,
 * --symbols, --cgroup), compiled once from their option strings: id lists into sorted
 * arrays, CPU lists into a bitmap, name lists into sorted arrays, the time
 * range into numbers. A check per sample is then a lookup.
 *
 * Each parser validates too: with out NULL it only says whether the value
 * is good (load_opts_check), with out it fills it (filter_compile). Errors
 * are -EINVAL with a message naming the option and its value.
 */
#ifndef PREC_REPORT_FILTER_H
#define PREC_REPORT_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* The filters as given on the command line: comma lists, NULL when off. */
struct load_filter_opts {
	const char *comms, *pids, *tids, *cpus, *dsos, *syms, *time;
	const char *cgroups;
};

struct filter_ids {
	bool on;
	uint32_t *v;            /* sorted */
	size_t nr;
};

struct filter_cpus {
	bool on;
	uint64_t *bits;         /* CPU n: bit n % 64 of word n / 64 */
	size_t nr_words;
	long max;               /* the highest CPU named */
};

struct filter_names {
	bool on;
	char *text;             /* a copy of the list, cut at the commas */
	const char **v;         /* into text, sorted */
	size_t nr;
};

struct filter_time {
	bool on;
	bool pct;               /* a percent range of each file's samples */
	uint64_t start, end;    /* absolute, ns; 0 = open */
	double pct_start, pct_end;
};

struct filter {
	struct filter_ids pids, tids;
	struct filter_cpus cpus;
	struct filter_names comms, dsos, syms;
	struct filter_time time;
	struct filter_names cgroups;    /* paths, with or without the leading '/' */
	bool by_sample;         /* a filter on what a sample carries (pids, tids,
				   cpus, comms, time) is on; when none is, the
				   reading makes no filter call per sample */
};

/* "1,2,3": decimal ids (opt and what name them in the message). */
int filter_parse_ids(const char *opt, const char *what, const char *list,
		     struct filter_ids *out, struct err *err);
/* "0-2,5": CPU numbers and ranges. */
int filter_parse_cpus(const char *list, struct filter_cpus *out, struct err *err);
/* "a,b": names, none empty. */
int filter_parse_names(const char *opt, const char *list, struct filter_names *out,
		       struct err *err);
/* "START,END" in seconds (either may be empty) or "10%-20%". */
int filter_parse_time(const char *t, struct filter_time *out, struct err *err);

/* Every filter of o; f is zeroed first. 0, -EINVAL or -ENOMEM. */
int filter_compile(struct filter *f, const struct load_filter_opts *o, struct err *err);
void filter_free(struct filter *f);

/* The checks, each true when the filter is off. */
bool filter_ids_wanted(const struct filter *f, uint32_t pid, uint32_t tid, uint32_t cpu);
/* t0, t1: the span of the file's samples, for a percent range. */
bool filter_time_wanted(const struct filter_time *t, uint64_t time, uint64_t t0, uint64_t t1);
bool filter_name_wanted(const struct filter_names *n, const char *name);
/* --cgroup on a sample's cgroup path ("/a/b", matched as "/a/b" or "a/b");
 * NULL (no cgroup, or an id no CGROUP record named) is not wanted. */
bool filter_cgroup_wanted(const struct filter *f, const char *path);
/* --dso (its short name or its path) and --symbols on a resolved frame;
 * dso and sym may be NULL (unknown). */
bool filter_frame_wanted(const struct filter *f, const char *dso_short, const char *dso_path,
			 const char *sym);
/* --dso or --symbols given: entries are filtered after symbolization. */
bool filter_by_frame(const struct filter *f);

#endif
