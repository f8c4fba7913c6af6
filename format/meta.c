/* SPDX-License-Identifier: MIT */
/* METADATA blocks: tagged fields (FORMAT.md 5.1). */
#include "blocks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct meta_field meta_fields[] = {
	{ META_HOSTNAME, META_STRING, "hostname" },
	{ META_OS_RELEASE, META_STRING, "os_release" },
	{ META_ARCH, META_STRING, "arch" },
	{ META_NR_CPUS_ONLINE, META_U64, "nr_cpus_online" },
	{ META_NR_CPUS_AVAIL, META_U64, "nr_cpus_avail" },
	{ META_CPU_DESC, META_STRING, "cpu_desc" },
	{ META_CMDLINE, META_STRLIST, "cmdline" },
	{ META_CLOCK_ID, META_U64, "clock_id" },
	{ META_START_TIME_NS, META_U64, "start_time_ns" },
	{ META_END_TIME_NS, META_U64, "end_time_ns" },
	{ META_START_CLOCK_NS, META_U64, "start_clock_ns" },
	{ META_END_CLOCK_NS, META_U64, "end_clock_ns" },
	{ META_PAGE_SIZE, META_U64, "page_size" },
	{ META_PERF_EVENT_PARANOID, META_U64, "perf_event_paranoid" },
	{ META_WRITER, META_STRING, "writer" },
	{ META_TOTAL_MEM_KB, META_U64, "total_mem_kb" },
	{ META_OS_VERSION, META_STRING, "os_version" },
	{ META_NR_SAMPLES, META_U64, "nr_samples" },
	{ META_NR_LOST_SAMPLES, META_U64, "nr_lost_samples" },
	{ META_NR_LOST_RECORDS, META_U64, "nr_lost_records" },
	{ META_WORKLOAD_EXIT, META_U64, "workload_exit" },
	{ META_STAT_RUNS, META_U64, "stat_runs" },
	{ META_STAT_ELAPSED_NS, META_BYTES, "stat_elapsed_ns" },
	{ META_STAT_USER_NS, META_U64, "stat_user_ns" },
	{ META_STAT_SYS_NS, META_U64, "stat_sys_ns" },
	{ META_STAT_TARGET, META_STRING, "stat_target" },
	{ META_STAT_AGGR, META_U64, "stat_aggr" },
	{ META_STAT_TOPOLOGY, META_BYTES, "stat_topology" },
	{ META_STAT_THREADS, META_STRLIST, "stat_threads" },
	{ META_REPAIRED, META_U64, "repaired" },
	{ META_STAT_TOPOLOGY_MORE, META_BYTES, "stat_topology_more" },
	{ META_STAT_LAYOUT, META_U64, "stat_layout" },
	{ META_STAT_CGROUPS, META_STRLIST, "stat_cgroups" },
	{ META_EVENT_GROUPS, META_BYTES, "event_groups" },
};

const struct meta_field *meta_field_find(uint16_t tag)
{
	for (size_t i = 0; i < sizeof(meta_fields) / sizeof(meta_fields[0]); i++)
		if (meta_fields[i].tag == tag)
			return &meta_fields[i];
	return NULL;
}

static struct meta_item *metadata_slot(struct metadata *m, uint16_t tag)
{
	struct meta_item *items;

	for (size_t i = 0; i < m->nr; i++)
		if (m->items[i].tag == tag)
			return &m->items[i];
	items = array_realloc(m->items, m->nr + 1, sizeof(*items));
	if (!items)
		return NULL;
	m->items = items;
	memset(&items[m->nr], 0, sizeof(*items));
	items[m->nr].tag = tag;
	return &items[m->nr++];
}

int metadata_set_bytes(struct metadata *m, uint16_t tag, uint16_t kind, const void *p, size_t len)
{
	struct meta_item *it;
	uint8_t *copy;

	if (len > UINT32_MAX - 1)
		return -EINVAL;
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	if (len)
		memcpy(copy, p, len);
	copy[len] = 0;
	it = metadata_slot(m, tag);
	if (!it) {
		free(copy);
		return -ENOMEM;
	}
	free(it->value);
	it->kind = kind;
	it->len = (uint32_t)len;
	it->value = copy;
	return 0;
}

int metadata_set_u64(struct metadata *m, uint16_t tag, uint64_t v)
{
	uint8_t le[8];

	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	return metadata_set_bytes(m, tag, META_U64, le, 8);
}

int metadata_set_str(struct metadata *m, uint16_t tag, const char *s)
{
	return metadata_set_bytes(m, tag, META_STRING, s, strlen(s));
}

int metadata_set_strlist(struct metadata *m, uint16_t tag, int argc, char *const argv[])
{
	struct buf b = BUF_INIT;
	int ret = 0;

	for (int i = 0; i < argc && !ret; i++)
		ret = buf_append(&b, argv[i], strlen(argv[i]) + 1);
	if (!ret)
		ret = metadata_set_bytes(m, tag, META_STRLIST, b.data, b.len);
	buf_free(&b);
	return ret;
}

const struct meta_item *metadata_get(const struct metadata *m, uint16_t tag)
{
	for (size_t i = 0; i < m->nr; i++)
		if (m->items[i].tag == tag)
			return &m->items[i];
	return NULL;
}

bool metadata_get_u64(const struct metadata *m, uint16_t tag, uint64_t *v)
{
	const struct meta_item *it = metadata_get(m, tag);
	uint64_t x = 0;

	if (!it || it->kind != META_U64 || it->len != 8)
		return false;
	for (int i = 0; i < 8; i++)
		x |= (uint64_t)it->value[i] << (8 * i);
	*v = x;
	return true;
}

const char *metadata_get_str(const struct metadata *m, uint16_t tag)
{
	const struct meta_item *it = metadata_get(m, tag);

	if (!it || it->kind != META_STRING)
		return NULL;
	return (const char *)it->value;
}

int metadata_encode(const struct metadata *m, struct buf *out)
{
	int ret = 0;

	for (size_t i = 0; i < m->nr && !ret; i++) {
		const struct meta_item *it = &m->items[i];

		ret = buf_put_u16(out, it->tag);
		if (!ret)
			ret = buf_put_u16(out, it->kind);
		if (!ret)
			ret = buf_put_u32(out, it->len);
		if (!ret)
			ret = buf_append(out, it->value, it->len);
	}
	return ret;
}

int meta_next(struct cursor *c, struct meta_entry *e, struct err *err)
{
	size_t at = c->off;

	if (!cur_left(c))
		return 0;
	if (!cur_le16(c, &e->tag) || !cur_le16(c, &e->kind) || !cur_le32(c, &e->len))
		return err_set(err, -PREC_ECORRUPT,
			       "metadata entry at payload offset %zu: header does not fit", at);
	e->value = cur_take(c, e->len);
	if (!e->value)
		return err_set(err, -PREC_ECORRUPT,
			       "metadata tag %u: value of %u bytes does not fit", e->tag, e->len);
	if (e->kind == META_U64 && e->len != 8)
		return err_set(err, -PREC_ECORRUPT,
			       "metadata tag %u: u64 value with length %u", e->tag, e->len);
	if (e->kind == META_STRLIST && e->len && e->value[e->len - 1] != 0)
		return err_set(err, -PREC_ECORRUPT,
			       "metadata tag %u: string list not NUL-terminated", e->tag);
	return 1;
}

int metadata_decode(struct metadata *m, const uint8_t *p, size_t len, struct err *err)
{
	struct cursor c = cur_make(p, len);
	struct meta_entry e;
	int ret;

	while ((ret = meta_next(&c, &e, err)) == 1) {
		if (!m)
			continue;
		ret = metadata_set_bytes(m, e.tag, e.kind, e.value, e.len);
		if (ret)
			return err_set(err, ret, "metadata: out of memory");
	}
	return ret;
}

void metadata_free(struct metadata *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nr; i++)
		free(m->items[i].value);
	free(m->items);
	m->items = NULL;
	m->nr = 0;
}
