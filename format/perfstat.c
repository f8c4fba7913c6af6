/* SPDX-License-Identifier: MIT */
/*
 * Decoders of perf stat record's records and of the topology features
 * (layouts in perfstat.h). Every read goes through a bounds-checked cursor.
 */
#include "perfstat.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cursor.h"
#include "blocks.h"

#define HDR 8u

int perfstat_config_decode(const uint8_t *rec, size_t len, struct perfstat_config *c,
			   struct err *err)
{
	struct cursor cur = cur_make(rec, len);
	uint64_t nr;

	memset(c, 0, sizeof(*c));
	if (!cur_skip(&cur, HDR) || !cur_h64(&cur, &nr))
		return err_set(err, -PREC_ETRUNC, "STAT_CONFIG record of %zu bytes has no count", len);
	if (nr > cur_left(&cur) / 16)
		return err_set(err, -PREC_ECORRUPT, "STAT_CONFIG record of %zu bytes cannot hold %"
			       PRIu64 " entries", len, nr);
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t tag = 0, val = 0;

		cur_h64(&cur, &tag);
		cur_h64(&cur, &val);
		switch (tag) {
		case PERFSTAT_TAG_AGGR_MODE: c->aggr = val; c->has_aggr = true; break;
		case PERFSTAT_TAG_INTERVAL: c->interval = val; c->has_interval = true; break;
		case PERFSTAT_TAG_SCALE: c->scale = val; c->has_scale = true; break;
		case PERFSTAT_TAG_AGGR_LEVEL: c->level = val; c->has_level = true; break;
		default: c->unknown_tags++; break;
		}
	}
	return 0;
}

int perfstat_value_decode(const uint8_t *rec, size_t len, struct perfstat_value *v,
			  struct err *err)
{
	struct cursor c = cur_make(rec, len);
	uint32_t cpu;

	if (!cur_skip(&c, HDR) || !cur_h64(&c, &v->id) || !cur_h32(&c, &cpu) ||
	    !cur_h32(&c, &v->thread) || !cur_h64(&c, &v->val) || !cur_h64(&c, &v->ena) ||
	    !cur_h64(&c, &v->run))
		return err_set(err, -PREC_ETRUNC, "STAT record of %zu bytes (48 needed)", len);
	v->cpu = (int32_t)cpu;
	return 0;
}

int perfstat_round_decode(const uint8_t *rec, size_t len, struct perfstat_round *r,
			  struct err *err)
{
	struct cursor c = cur_make(rec, len);

	if (!cur_skip(&c, HDR) || !cur_h64(&c, &r->type) || !cur_h64(&c, &r->time))
		return err_set(err, -PREC_ETRUNC, "STAT_ROUND record of %zu bytes (24 needed)", len);
	return 0;
}

int perfstat_update_decode(const uint8_t *rec, size_t len, struct perfstat_update *u,
			   struct err *err)
{
	struct cursor c = cur_make(rec, len);
	size_t n;

	memset(u, 0, sizeof(*u));
	if (!cur_skip(&c, HDR) || !cur_h64(&c, &u->type) || !cur_h64(&c, &u->id))
		return err_set(err, -PREC_ETRUNC, "EVENT_UPDATE record of %zu bytes (24 needed)", len);
	switch (u->type) {
	case PERFSTAT_UPDATE_UNIT:
	case PERFSTAT_UPDATE_NAME:
		n = strnlen((const char *)c.p + c.off, cur_left(&c));
		if (!(u->text = malloc(n + 1)))
			return err_set(err, -ENOMEM, "out of memory");
		memcpy(u->text, c.p + c.off, n);
		u->text[n] = 0;
		break;
	case PERFSTAT_UPDATE_SCALE:
		if (cur_left(&c) < sizeof(u->scale))
			return err_set(err, -PREC_ETRUNC, "EVENT_UPDATE scale of %zu bytes", len);
		memcpy(&u->scale, c.p + c.off, sizeof(u->scale));
		break;
	}
	return 0;
}

int perfstat_threads_decode(const uint8_t *rec, size_t len, struct perfstat_thread **out,
			    size_t *nr, struct err *err)
{
	struct cursor c = cur_make(rec, len);
	uint64_t n;

	*out = NULL;
	*nr = 0;
	if (!cur_skip(&c, HDR) || !cur_h64(&c, &n))
		return err_set(err, -PREC_ETRUNC, "THREAD_MAP record of %zu bytes has no count", len);
	if (!n || n > cur_left(&c) / 24 || n > PERFSTAT_THREADS_MAX)
		return err_set(err, -PREC_ECORRUPT, "THREAD_MAP record of %zu bytes cannot hold %"
			       PRIu64 " threads", len, n);
	*out = calloc((size_t)n, sizeof(**out));
	if (!*out)
		return err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		uint64_t pid = 0;
		const uint8_t *comm;

		cur_h64(&c, &pid);
		comm = cur_take(&c, 16);
		(*out)[i].pid = (int32_t)pid;
		memcpy((*out)[i].comm, comm, 16);
		(*out)[i].comm[16] = 0;
	}
	*nr = (size_t)n;
	return 0;
}

static int cpus_alloc(int **out, size_t n, struct err *err)
{
	if (!n || n > PERFSTAT_CPUS_MAX)
		return err_set(err, -PREC_ECORRUPT, "CPU_MAP record with %zu CPUs (1 to %u)", n,
			       PERFSTAT_CPUS_MAX);
	*out = calloc(n, sizeof(**out));
	return *out ? 0 : err_set(err, -ENOMEM, "out of memory");
}

/* Bit k of mask word w (words in host order, of 4 or 8 bytes). */
static bool mask_bit(const uint8_t *m, uint16_t lsize, size_t b)
{
	size_t w = b / (lsize * 8u), k = b % (lsize * 8u);

	if (lsize == 4) {
		uint32_t x;

		memcpy(&x, m + w * 4, 4);
		return x >> k & 1;
	} else {
		uint64_t x;

		memcpy(&x, m + w * 8, 8);
		return x >> k & 1;
	}
}

/* MASK: nr masks of long_size bytes; the CPUs whose bits are set. */
static int cpus_mask(struct cursor *c, int **out, size_t *nr, struct err *err)
{
	uint16_t n, lsize;
	size_t bits, count = 0;
	const uint8_t *m;
	int ret;

	if (!cur_h16(c, &n) || !cur_h16(c, &lsize))
		return err_set(err, -PREC_ETRUNC, "CPU_MAP mask cut short");
	if (lsize != 4 && lsize != 8)
		return err_set(err, -PREC_ECORRUPT, "CPU_MAP mask of %u-byte words (4 or 8)", lsize);
	if ((lsize == 8 && !cur_skip(c, 4)) || !(m = cur_take(c, (size_t)n * lsize)))
		return err_set(err, -PREC_ETRUNC, "CPU_MAP record cannot hold %u masks", n);
	bits = (size_t)n * lsize * 8;
	for (size_t b = 0; b < bits; b++)
		count += mask_bit(m, lsize, b);
	if ((ret = cpus_alloc(out, count, err)))
		return ret;
	for (size_t b = 0; b < bits; b++)
		if (mask_bit(m, lsize, b))
			(*out)[(*nr)++] = (int)b;
	return 0;
}

int perfstat_cpus_decode(const uint8_t *rec, size_t len, int **out, size_t *nr,
			 struct err *err)
{
	struct cursor c = cur_make(rec, len);
	struct err e = { 0 };
	uint16_t type, n, start, end;
	uint8_t any, pad;
	int ret = 0;

	*out = NULL;
	*nr = 0;
	if (!cur_skip(&c, HDR) || !cur_h16(&c, &type))
		return err_set(err, -PREC_ETRUNC, "CPU_MAP record of %zu bytes has no type", len);
	switch (type) {
	case 0:
		if (!cur_h16(&c, &n) || n > cur_left(&c) / 2)
			return err_set(err, -PREC_ETRUNC, "CPU_MAP record of %zu bytes cannot hold its "
				       "list of CPUs", len);
		if ((ret = cpus_alloc(out, n, &e)))
			break;
		for (size_t i = 0; i < n; i++) {
			uint16_t cpu = 0;

			cur_h16(&c, &cpu);
			(*out)[i] = cpu == 0xffff ? -1 : cpu;
		}
		*nr = n;
		break;
	case 1:
		ret = cpus_mask(&c, out, nr, &e);
		break;
	case 2:
		if (!cur_le8(&c, &any) || !cur_le8(&c, &pad) || !cur_h16(&c, &start) ||
		    !cur_h16(&c, &end))
			return err_set(err, -PREC_ETRUNC, "CPU_MAP range of %zu bytes cut short", len);
		if (end < start)
			return err_set(err, -PREC_ECORRUPT, "CPU_MAP range %u-%u ends before it starts",
				       start, end);
		if ((ret = cpus_alloc(out, (size_t)(end - start) + 1 + (any ? 1 : 0), &e)))
			break;
		if (any)
			(*out)[(*nr)++] = -1;
		for (unsigned cpu = start; cpu <= end; cpu++)
			(*out)[(*nr)++] = (int)cpu;
		break;
	default:
		return err_set(err, -PREC_ECORRUPT, "CPU_MAP record of unknown type %u", type);
	}
	if (ret) {
		free(*out);
		*out = NULL;
		*nr = 0;
		return err_set(err, ret, "%s", e.msg);
	}
	return 0;
}

/* ---- topology ------------------------------------------------------------- */

/* Skip a u32 count of perf_header_strings. */
static bool skip_strings(struct cursor *c)
{
	uint32_t n, len;

	if (!cur_h32(c, &n))
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (!cur_h32(c, &len) || !cur_skip(c, len))
			return false;
	return true;
}

/* A CPU list as perf writes it ("0-3,8,10-11") marks node for its CPUs. */
static void mark_cpu_list(const char *s, struct perfstat_cpu_topo *t, size_t n, int node)
{
	while (*s) {
		char *e;
		unsigned long a = strtoul(s, &e, 10), b = a;

		if (e == s)
			return;
		if (*e == '-') {
			s = e + 1;
			b = strtoul(s, &e, 10);
			if (e == s)
				return;
		}
		for (unsigned long cpu = a; cpu <= b && cpu < n; cpu++)
			t[cpu].node = node;
		s = *e == ',' ? e + 1 : e;
		if (*e && *e != ',')
			return;
	}
}

/* NUMA_TOPOLOGY: u32 nr, nr x { u32 node, u64 total, u64 free, string cpus }.
 * perf numbers a CPU's node by the node's place in this list. */
static void numa(const struct perfdata *pd, struct perfstat_cpu_topo *t, size_t n)
{
	struct cursor c;
	const uint8_t *p;
	size_t len;
	uint32_t nodes;

	if (!perfdata_feature(pd, PERFDATA_FEAT_NUMA_TOPOLOGY, &p, &len))
		return;
	c = cur_make(p, len);
	if (!cur_h32(&c, &nodes))
		return;
	for (uint32_t i = 0; i < nodes; i++) {
		uint32_t id;
		uint64_t x;
		char *cpus;

		if (!cur_h32(&c, &id) || !cur_h64(&c, &x) || !cur_h64(&c, &x) ||
		    perfdata_string(&c, &cpus))
			return;
		mark_cpu_list(cpus, t, n, (int)i);
		free(cpus);
	}
}

int perfstat_topology(const struct perfdata *pd, struct perfstat_cpu_topo **out, size_t *nr)
{
	const struct metadata *m = perfdata_meta(pd);
	struct perfstat_cpu_topo *t;
	struct cursor c;
	const uint8_t *p;
	size_t len;
	uint64_t n = 0;

	*out = NULL;
	*nr = 0;
	if (!perfdata_feature(pd, PERFDATA_FEAT_CPU_TOPOLOGY, &p, &len) ||
	    !metadata_get_u64(m, META_NR_CPUS_AVAIL, &n) || !n || n > PERFSTAT_CPUS_MAX)
		return 0;
	c = cur_make(p, len);
	/* core and thread siblings, then per CPU its core and socket */
	if (!skip_strings(&c) || !skip_strings(&c) || n > cur_left(&c) / 8)
		return 0;
	t = calloc((size_t)n, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint32_t core = 0, socket = 0;

		cur_h32(&c, &core);
		cur_h32(&c, &socket);
		t[i] = (struct perfstat_cpu_topo){ (int)socket, 0, (int)core, -1 };
	}
	/* dies, when the writer knew them: siblings, then per CPU its die */
	if (cur_left(&c) && skip_strings(&c) && n <= cur_left(&c) / 4)
		for (size_t i = 0; i < n; i++) {
			uint32_t die = 0;

			cur_h32(&c, &die);
			t[i].die = (int)die;
		}
	numa(pd, t, (size_t)n);
	*out = t;
	*nr = (size_t)n;
	return 1;
}

/* ---- aggregation modes ------------------------------------------------------ */

unsigned perfstat_aggr_mode(uint64_t value, const char *version, bool has_level)
{
	/* 6.1: none global socket die core thread unset node */
	static const unsigned v61[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	/* 6.5: none global socket die cache core thread unset node */
	static const unsigned v65[] = { 0, 1, 2, 3, PERFSTAT_AGGR_OTHER, 4, 5, 6, 7 };
	/* 6.8: none global socket die cluster cache core thread unset node */
	static const unsigned v68[] = { 0, 1, 2, 3, PERFSTAT_AGGR_OTHER, PERFSTAT_AGGR_OTHER,
					4, 5, 6, 7 };
	const unsigned *map = has_level ? v68 : v61;
	size_t n = has_level ? 10 : 8;
	unsigned major, minor;

	if (version && sscanf(version, "%u.%u", &major, &minor) == 2) {
		if (major > 6 || (major == 6 && minor >= 8)) {
			map = v68;
			n = 10;
		} else if (major == 6 && minor >= 5) {
			map = v65;
			n = 9;
		} else {
			map = v61;
			n = 8;
		}
	}
	return value < n ? map[value] : PERFSTAT_AGGR_OTHER;
}
