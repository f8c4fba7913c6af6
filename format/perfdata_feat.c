/* SPDX-License-Identifier: MIT */
/*
 * perf.data feature sections (HEADER_* bits): strings and numbers into the
 * metadata that prec.data files carry under meta tags, build ids, event
 * names, and the rest into struct perfdata_info. Layouts as perf writes
 * them: a string is a u32 length then that many bytes (NUL-padded to 64), a
 * string list a u32 count then strings.
 */
#include "perfdata_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- build ids ------------------------------------------------------------ */

/* struct build_id_event: header, s32 pid, u8 id[24] (with
 * PD_MISC_BUILD_ID_SIZE, id[20] is the size), then the file name. */
#define BID_EVENT_MIN (8 + 4 + 24)

static int add_bid(struct perfdata *pd, uint16_t misc, const uint8_t *id, const char *name)
{
	struct build_id_entry *all, *e;
	uint8_t size = (misc & PD_MISC_BUILD_ID_SIZE) ? id[20] : 20;
	uint16_t mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;

	if (size > 20)
		return -PREC_ECORRUPT;
	all = array_realloc(pd->bids, pd->nr_bids + 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	pd->bids = all;
	e = &all[pd->nr_bids];
	memset(e, 0, sizeof(*e));
	e->path = strdup(name);
	if (!e->path)
		return -ENOMEM;
	e->size = size;
	memcpy(e->id, id, size);
	if (mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL)
		e->flags |= BUILD_ID_FLAG_KERNEL;
	pd->nr_bids++;
	return 0;
}

int pd_build_ids_add(struct perfdata *pd, const uint8_t *p, size_t len, uint64_t off)
{
	size_t pos = 0;

	while (len - pos >= 8) {
		uint16_t misc, size;
		const char *name;
		int ret;

		memcpy(&misc, p + pos + 4, 2);
		memcpy(&size, p + pos + 6, 2);
		if (size < BID_EVENT_MIN + 1 || size > len - pos) {
			pd_problem(pd, off + pos, "build id entry at offset %" PRIu64 ": size %u "
				   "does not fit (%zu bytes left): the rest is ignored",
				   off + pos, size, len - pos);
			return 0;
		}
		name = (const char *)p + pos + BID_EVENT_MIN;
		if (!memchr(name, 0, size - BID_EVENT_MIN)) {
			pd_problem(pd, off + pos, "build id entry at offset %" PRIu64
				   ": file name without its NUL: ignored", off + pos);
		} else {
			ret = add_bid(pd, misc, p + pos + 12, name);
			if (ret == -ENOMEM)
				return ret;
			if (ret)
				pd_problem(pd, off + pos, "build id entry at offset %" PRIu64
					   ": build id size %u over 20: ignored", off + pos,
					   p[pos + 12 + 20]);
		}
		pos += size;
	}
	return 0;
}

/* ---- event names ------------------------------------------------------- */

char *pd_default_name(const struct perf_event_attr *a)
{
	static const char *const hw[] = {
		"cycles", "instructions", "cache-references", "cache-misses", "branches",
		"branch-misses", "bus-cycles", "stalled-cycles-frontend",
		"stalled-cycles-backend", "ref-cycles",
	};
	static const char *const sw[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
		"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
		"bpf-output", "cgroup-switches",
	};
	char buf[64];

	if (a->type == PERF_TYPE_HARDWARE && a->config < sizeof(hw) / sizeof(*hw))
		return strdup(hw[a->config]);
	if (a->type == PERF_TYPE_SOFTWARE && a->config < sizeof(sw) / sizeof(*sw))
		return strdup(sw[a->config]);
	if (a->type == PERF_TYPE_RAW)
		snprintf(buf, sizeof(buf), "raw 0x%llx", (unsigned long long)a->config);
	else
		snprintf(buf, sizeof(buf), "unknown attr type: %u", a->type);
	return strdup(buf);
}

static int find_event_by_id(const struct perfdata *pd, uint64_t id)
{
	for (size_t e = 0; e < pd->nr_events; e++)
		for (size_t i = 0; i < pd->events[e].nr_ids; i++)
			if (pd->events[e].ids[i].id == id)
				return (int)e;
	return -1;
}

/* EVENT_DESC: u32 nr, u32 attr_size, then per event the attr, u32 nr_ids,
 * the name string and the ids. An event is matched by its first id, else
 * by its place. */
static int event_desc(struct perfdata *pd, struct cursor *c)
{
	uint32_t nr, asize;

	if (!cur_h32(c, &nr) || !cur_h32(c, &asize))
		return -PREC_ETRUNC;
	if (asize < PD_ATTR_SIZE_VER0 || asize > EVENT_ATTR_MAX)
		return -PREC_ECORRUPT;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nr_ids;
		const uint8_t *ids;
		char *name;
		int ev, ret;

		if (!cur_skip(c, asize) || !cur_h32(c, &nr_ids))
			return -PREC_ETRUNC;
		ret = perfdata_string(c, &name);
		if (ret)
			return ret;
		ids = cur_h64_array(c, nr_ids);
		if (!ids) {
			free(name);
			return -PREC_ETRUNC;
		}
		ev = nr_ids ? find_event_by_id(pd, u64_at(ids, 0)) : -1;
		if (ev < 0 && nr == pd->nr_events)
			ev = (int)i;
		if (ev >= 0 && !pd->events[ev].name) {
			pd->events[ev].name = name;
			name = NULL;
		}
		free(name);
	}
	return 0;
}

/* ---- the rest -------------------------------------------------------------- */

static int meta_string(struct perfdata *pd, uint16_t tag, struct cursor *c)
{
	char *s;
	int ret = perfdata_string(c, &s);

	if (!ret)
		ret = metadata_set_str(&pd->meta, tag, s);
	free(s);
	return ret;
}

static int cmdline(struct perfdata *pd, struct cursor *c)
{
	uint32_t nr;
	char **argv;
	int ret = 0;
	uint32_t i;

	if (!cur_h32(c, &nr))
		return -PREC_ETRUNC;
	if (nr > cur_left(c) / 4)
		return -PREC_ECORRUPT;
	argv = calloc(nr + 1, sizeof(*argv));
	if (!argv)
		return -ENOMEM;
	for (i = 0; i < nr && !ret; i++)
		ret = perfdata_string(c, &argv[i]);
	if (!ret)
		ret = metadata_set_strlist(&pd->meta, META_CMDLINE, (int)nr, argv);
	for (i = 0; i < nr; i++)
		free(argv[i]);
	free(argv);
	return ret;
}

static int numbers(struct perfdata *pd, unsigned feat, struct cursor *c)
{
	struct perfdata_info *in = &pd->info;
	uint32_t a, b;
	uint64_t v;

	switch (feat) {
	case PERFDATA_FEAT_NRCPUS:      /* CPUs present, then online */
		if (!cur_h32(c, &a) || !cur_h32(c, &b))
			return -PREC_ETRUNC;
		return metadata_set_u64(&pd->meta, META_NR_CPUS_AVAIL, a) ?:
		       metadata_set_u64(&pd->meta, META_NR_CPUS_ONLINE, b);
	case PERFDATA_FEAT_TOTAL_MEM:   /* kB */
		if (!cur_h64(c, &v))
			return -PREC_ETRUNC;
		return metadata_set_u64(&pd->meta, META_TOTAL_MEM_KB, v);
	case PERFDATA_FEAT_SAMPLE_TIME:
		if (!cur_h64(c, &in->first_sample_time) || !cur_h64(c, &in->last_sample_time))
			return -PREC_ETRUNC;
		in->has_sample_time = true;
		return metadata_set_u64(&pd->meta, META_START_CLOCK_NS, in->first_sample_time) ?:
		       metadata_set_u64(&pd->meta, META_END_CLOCK_NS, in->last_sample_time);
	case PERFDATA_FEAT_COMPRESSED:
		if (!cur_h32(c, &in->comp_version) || !cur_h32(c, &in->comp_type) ||
		    !cur_h32(c, &in->comp_level) || !cur_h32(c, &in->comp_ratio) ||
		    !cur_h32(c, &in->comp_mmap_len))
			return -PREC_ETRUNC;
		in->has_compressed = true;
		return 0;
	case PERFDATA_FEAT_CLOCK_DATA:
		if (!cur_h32(c, &a) || !cur_h32(c, &in->clockid) ||
		    !cur_h64(c, &in->clock_wall_ns) || !cur_h64(c, &in->clock_clockid_ns))
			return -PREC_ETRUNC;
		in->has_clock_data = true;
		return metadata_set_u64(&pd->meta, META_CLOCK_ID, in->clockid);
	}
	return 0;
}

int pd_feature_apply(struct perfdata *pd, unsigned feat, const uint8_t *p, size_t len,
		     uint64_t off)
{
	static const uint16_t string_tags[] = {
		[PERFDATA_FEAT_HOSTNAME] = META_HOSTNAME, [PERFDATA_FEAT_OSRELEASE] = META_OS_RELEASE,
		[PERFDATA_FEAT_VERSION] = META_WRITER, [PERFDATA_FEAT_ARCH] = META_ARCH,
		[PERFDATA_FEAT_CPUDESC] = META_CPU_DESC,
	};
	struct cursor c = cur_make(p, len);
	int ret;

	switch (feat) {
	case PERFDATA_FEAT_BUILD_ID:
		return pd_build_ids_add(pd, p, len, off);
	case PERFDATA_FEAT_HOSTNAME: case PERFDATA_FEAT_OSRELEASE: case PERFDATA_FEAT_VERSION:
	case PERFDATA_FEAT_ARCH: case PERFDATA_FEAT_CPUDESC:
		ret = meta_string(pd, string_tags[feat], &c);
		break;
	case PERFDATA_FEAT_CPUID:
		free(pd->info.cpuid);
		ret = perfdata_string(&c, &pd->info.cpuid);
		break;
	case PERFDATA_FEAT_CMDLINE:
		ret = cmdline(pd, &c);
		break;
	case PERFDATA_FEAT_EVENT_DESC:
		ret = event_desc(pd, &c);
		break;
	case PERFDATA_FEAT_STAT:
		pd->info.counting = true;
		return 0;
	default:
		ret = numbers(pd, feat, &c);
		break;
	}
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		pd_problem(pd, off, "feature %s at offset %" PRIu64 " (%zu bytes) does not decode "
			   "(%s): ignored", perfdata_feature_name(feat), off, len, err_str(ret));
	return 0;
}
