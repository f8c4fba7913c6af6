/* SPDX-License-Identifier: MIT */
/*
 * perf stat record's own records, as format/perfdata.h hands them out (one
 * PERFDATA_CHUNK_USER chunk each), decoded: STAT_CONFIG, STAT, STAT_ROUND,
 * THREAD_MAP and CPU_MAP; and the CPU topology of the recording machine
 * from the CPU_TOPOLOGY, NUMA_TOPOLOGY and NRCPUS feature sections.
 *
 * Layouts (perf's tools/lib/perf/include/perf/event.h, perf 6.1; every
 * field in the byte order of the writer, which format/perfdata.c has
 * already checked is this machine's):
 *
 *   STAT_CONFIG   header, u64 nr, nr x { u64 tag, u64 value }
 *                 tags: 0 aggregation mode, 1 interval (ms), 2 scale,
 *                 3 cache level (newer perf); an unknown tag is skipped
 *   STAT          header, u64 id, u32 cpu, u32 thread (index in the thread
 *                 map), u64 value, u64 enabled, u64 running  (48 bytes)
 *   STAT_ROUND    header, u64 type (0 interval, 1 final), u64 time (ns)
 *   THREAD_MAP    header, u64 nr, nr x { u64 pid, char comm[16] }
 *   EVENT_UPDATE  header, u64 type, u64 id, then by type: 0 the unit and
 *                 2 the name (NUL-padded strings), 1 the scale (a double),
 *                 3 a CPU list (as CPU_MAP's data, not read here)
 *   CPU_MAP       header, u16 type, then (packed)
 *                   0 CPUS         u16 nr, nr x u16 cpu (0xffff: -1)
 *                   1 MASK         u16 nr, u16 long_size (4 or 8), with 8
 *                                  4 bytes of padding; nr masks of that
 *                                  size, bit i of mask k is CPU k*bits+i
 *                   2 RANGE_CPUS   u8 any_cpu, u8 pad, u16 start, u16 end
 *                                  (-1 first when any_cpu)
 *
 * What is rejected (-PREC_ECORRUPT or -PREC_ETRUNC with a one-line reason
 * in err): a record shorter than its fixed part, a count that does not fit
 * the record, an unknown CPU_MAP type or mask size, a range that ends
 * before it starts, more than PERFSTAT_CPUS_MAX CPUs or
 * PERFSTAT_THREADS_MAX threads. Nothing here prints or exits.
 */
#ifndef PREC_FORMAT_PERFSTAT_H
#define PREC_FORMAT_PERFSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "perfdata.h"

#define PERFSTAT_CPUS_MAX 65536u
#define PERFSTAT_THREADS_MAX 65536u

enum perfstat_config_tag {
	PERFSTAT_TAG_AGGR_MODE = 0,
	PERFSTAT_TAG_INTERVAL = 1,
	PERFSTAT_TAG_SCALE = 2,
	PERFSTAT_TAG_AGGR_LEVEL = 3,
};

struct perfstat_config {
	bool has_aggr, has_interval, has_scale, has_level;
	uint64_t aggr;          /* perf's enum aggr_mode, as the writer numbered it */
	uint64_t interval;      /* ms, 0 without -I */
	uint64_t scale;         /* 0 with --no-scale */
	uint64_t level;
	uint64_t unknown_tags;  /* entries of tags this code does not know */
};

/* Rec points at the whole record (header included), len its size. */
int perfstat_config_decode(const uint8_t *rec, size_t len, struct perfstat_config *c,
			   struct err *err);

struct perfstat_value {
	uint64_t id;
	int32_t cpu;            /* the CPU number, -1 for none */
	uint32_t thread;        /* index into the thread map */
	uint64_t val, ena, run;
};

int perfstat_value_decode(const uint8_t *rec, size_t len, struct perfstat_value *v,
			  struct err *err);

enum perfstat_round_type { PERFSTAT_ROUND_INTERVAL = 0, PERFSTAT_ROUND_FINAL = 1 };

struct perfstat_round {
	uint64_t type;
	uint64_t time;          /* ns: since the start (interval) or the run's length (final) */
};

int perfstat_round_decode(const uint8_t *rec, size_t len, struct perfstat_round *r,
			  struct err *err);

enum perfstat_update_type {
	PERFSTAT_UPDATE_UNIT = 0,
	PERFSTAT_UPDATE_SCALE = 1,
	PERFSTAT_UPDATE_NAME = 2,
	PERFSTAT_UPDATE_CPUS = 3,
};

struct perfstat_update {
	uint64_t type, id;
	char *text;             /* UNIT, NAME: a malloc'ed copy (free it); else NULL */
	double scale;           /* SCALE */
};

int perfstat_update_decode(const uint8_t *rec, size_t len, struct perfstat_update *u,
			   struct err *err);

struct perfstat_thread {
	int32_t pid;            /* -1 for "any" (system-wide) */
	char comm[17];          /* NUL-terminated copy of the 16 bytes */
};

/* *out is malloc'ed (free it); *nr >= 1 on success. */
int perfstat_threads_decode(const uint8_t *rec, size_t len, struct perfstat_thread **out,
			    size_t *nr, struct err *err);
int perfstat_cpus_decode(const uint8_t *rec, size_t len, int **out, size_t *nr,
			 struct err *err);

/* One CPU of the recording machine (perf's env->cpu[] and numa map). */
struct perfstat_cpu_topo {
	int socket, die, core, node;    /* -1 when the file does not say */
};

/* The topology of CPUs 0..*nr-1 from the file's features: 1 and *out
 * malloc'ed, 0 when the file lacks CPU_TOPOLOGY or NRCPUS (or they do not
 * decode), -ENOMEM. A CPU missing from every NUMA node has node -1, as in
 * perf. */
int perfstat_topology(const struct perfdata *pd, struct perfstat_cpu_topo **out, size_t *nr);

/* perf's enum aggr_mode changed with perf 6.5 (AGGR_CACHE) and 6.8
 * (AGGR_CLUSTER) inserted before AGGR_CORE. The file's version feature
 * ("6.1.187"; NULL when absent) says which numbering the writer used;
 * the result is 6.1's numbering: 0 none, 1 global, 2 socket, 3 die,
 * 4 core, 5 thread, 6 unset, 7 node, or PERFSTAT_AGGR_OTHER for a mode
 * that numbering lacks (cache, cluster, unknown values). */
#define PERFSTAT_AGGR_OTHER 100u
unsigned perfstat_aggr_mode(uint64_t value, const char *version, bool has_level);

#endif
