/* SPDX-License-Identifier: MIT */
/*
 * The units of an aggregation (stat.h): each CPU's socket, die, core and
 * NUMA node from /sys, CPUs grouped into units in perf's order, and the
 * scaling of a multiplexed count, shared by prec stat and prep stat report.
 */
#include "stat.h"

#include <stdlib.h>
#include <string.h>

double stat_scaled(double value, uint64_t enabled, uint64_t running)
{
	return running && running < enabled ? value * (double)enabled / (double)running : value;
}

/* ---- topology ------------------------------------------------------------- */

static int read_int(const char *fmt, int cpu, int dflt)
{
	char path[256];
	FILE *f;
	int v;

	snprintf(path, sizeof(path), fmt, cpu);
	f = fopen(path, "r");
	if (!f)
		return dflt;
	if (fscanf(f, "%d", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

static int node_of(int cpu)
{
	char path[256];

	for (int n = 0; n < 1024; n++) {
		FILE *f;

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpu%d", n, cpu);
		f = fopen(path, "r");
		if (f) {
			fclose(f);
			return n;
		}
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", n);
		if (!(f = fopen(path, "r")) && n > 0)
			break;
		if (f)
			fclose(f);
	}
	return 0;
}

/* The id of each level's data or unified cache of a CPU (cache/indexK). */
static void read_cache_ids(struct stat_unit *u, int cpu)
{
	for (int l = 0; l < STAT_CACHE_LEVELS; l++)
		u->cache_id[l] = -1;
	for (int k = 0; k < 16; k++) {
		char path[256], type[32] = "";
		int level, id;
		FILE *f;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/type", cpu, k);
		f = fopen(path, "r");
		if (!f)
			break;
		if (fscanf(f, "%31s", type) != 1)
			type[0] = 0;
		fclose(f);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%%d/cache/index%d/level", k);
		level = read_int(path, cpu, 0);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%%d/cache/index%d/id", k);
		id = read_int(path, cpu, -1);
		if (level >= 1 && level <= STAT_CACHE_LEVELS && strcmp(type, "Instruction"))
			u->cache_id[level - 1] = id;
	}
}

void stat_read_cpu_topology(struct stat_unit *u, int cpu)
{
	memset(u, 0, sizeof(*u));
	u->cpu = cpu;
	u->socket = read_int("/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu, 0);
	u->die = read_int("/sys/devices/system/cpu/cpu%d/topology/die_id", cpu, 0);
	u->core = read_int("/sys/devices/system/cpu/cpu%d/topology/core_id", cpu, cpu);
	u->node = node_of(cpu);
	u->nr = 1;
	u->cluster = read_int("/sys/devices/system/cpu/cpu%d/topology/cluster_id", cpu, 0);
	read_cache_ids(u, cpu);
}

int stat_set_cache_level(struct stat_unit *cpus, size_t n, int level)
{
	if (!level)
		for (size_t i = 0; i < n; i++)
			for (int l = STAT_CACHE_LEVELS; l > level; l--)
				if (cpus[i].cache_id[l - 1] >= 0)
					level = l;
	if (level > STAT_CACHE_LEVELS)
		return 0;
	for (size_t i = 0; i < n; i++)
		cpus[i].cache_level = level;
	return level;
}

int stat_read_topology(struct stat_unit *topo, size_t n)
{
	for (size_t i = 0; i < n; i++)
		stat_read_cpu_topology(&topo[i], (int)i);
	return 0;
}

static bool same_unit(enum stat_aggr aggr, const struct stat_unit *a, const struct stat_unit *b)
{
	switch (aggr) {
	case AGGR_SOCKET: return a->socket == b->socket;
	case AGGR_DIE: return a->socket == b->socket && a->die == b->die;
	case AGGR_CORE: return a->socket == b->socket && a->die == b->die && a->core == b->core;
	case AGGR_NODE: return a->node == b->node;
	case AGGR_NONE: return a->cpu == b->cpu;
	case AGGR_CLUSTER:
		return a->socket == b->socket && a->die == b->die && a->cluster == b->cluster;
	case AGGR_CACHE:
		return a->socket == b->socket && a->die == b->die &&
		       a->cache_id[a->cache_level - 1] == b->cache_id[b->cache_level - 1];
	default: return true;
	}
}

/* perf's order of the units of an aggregation: by node, socket, die, core
 * (cpu_aggr_map__new sorts them); the CPUs' units renumbered to match. */
static int unit_key_cmp(enum stat_aggr aggr, const struct stat_unit *a, const struct stat_unit *b)
{
	if (aggr == AGGR_NODE)
		return (a->node > b->node) - (a->node < b->node);
	if (a->socket != b->socket)
		return (a->socket > b->socket) - (a->socket < b->socket);
	if (aggr == AGGR_SOCKET)
		return 0;
	if (a->die != b->die)
		return (a->die > b->die) - (a->die < b->die);
	if (aggr == AGGR_DIE)
		return 0;
	if (aggr == AGGR_CLUSTER)
		return (a->cluster > b->cluster) - (a->cluster < b->cluster);
	if (aggr == AGGR_CACHE)
		return (a->cache_id[a->cache_level - 1] > b->cache_id[b->cache_level - 1]) -
		       (a->cache_id[a->cache_level - 1] < b->cache_id[b->cache_level - 1]);
	return (a->core > b->core) - (a->core < b->core);
}

static int sort_units(enum stat_aggr aggr, struct stat_unit *units, size_t n, int *unit_of_cpu,
		      size_t nr_cpus)
{
	struct stat_unit *copy;
	size_t *idx, *rank;

	if (aggr == AGGR_NONE || aggr == AGGR_GLOBAL || aggr == AGGR_THREAD || n < 2)
		return 0;
	copy = malloc(n * sizeof(*copy));
	idx = malloc(n * sizeof(*idx));
	rank = malloc(n * sizeof(*rank));
	if (!copy || !idx || !rank) {
		free(copy);
		free(idx);
		free(rank);
		return -1;
	}
	/* insertion sort of the indexes: stable, and units are few */
	for (size_t i = 0; i < n; i++) {
		size_t k = i;

		while (k > 0 && unit_key_cmp(aggr, &units[idx[k - 1]], &units[i]) > 0) {
			idx[k] = idx[k - 1];
			k--;
		}
		idx[k] = i;
	}
	memcpy(copy, units, n * sizeof(*units));
	for (size_t k = 0; k < n; k++) {
		units[k] = copy[idx[k]];
		rank[idx[k]] = k;
	}
	for (size_t i = 0; i < nr_cpus; i++)
		unit_of_cpu[i] = (int)rank[unit_of_cpu[i]];
	free(copy);
	free(idx);
	free(rank);
	return 0;
}

int stat_units_for_cpus(enum stat_aggr aggr, const struct stat_unit *cpu_topo, size_t nr_cpus,
			struct stat_unit **units, size_t *nr_units, int *unit_of_cpu)
{
	*units = calloc(nr_cpus ? nr_cpus : 1, sizeof(**units));
	*nr_units = 0;
	if (!*units)
		return -1;
	for (size_t i = 0; i < nr_cpus; i++) {
		size_t u;

		for (u = 0; u < *nr_units; u++)
			if (same_unit(aggr, &(*units)[u], &cpu_topo[i]))
				break;
		if (u == *nr_units) {
			(*units)[u] = cpu_topo[i];
			(*units)[u].nr = 0;
			(*nr_units)++;
		}
		(*units)[u].nr++;
		unit_of_cpu[i] = (int)u;
	}
	return sort_units(aggr, *units, *nr_units, unit_of_cpu, nr_cpus);
}

void stat_units_free(struct stat_result *r, struct stat_counter *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++) {
		free(c[i].uvalues);
		free(c[i].uenabled);
		free(c[i].urunning);
		c[i].uvalues = NULL;
		c[i].uenabled = c[i].urunning = NULL;
	}
	free(r->units);
	r->units = NULL;
	r->nr_units = 0;
}
