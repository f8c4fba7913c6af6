/* SPDX-License-Identifier: MIT */
/*
 * perf.data: the file header, the attr section (or the HEADER_ATTR records
 * of a pipe-mode stream), the records before the first sample that describe
 * the events (ID_INDEX, EVENT_UPDATE, HEADER_FEATURE, HEADER_BUILD_ID), and
 * the feature table. See perfdata.h.
 */
#include "perfdata_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PD_MAGIC_SWAPPED 0x50455246494c4532ull

void pd_problem(struct perfdata *pd, uint64_t off, const char *fmt, ...)
{
	struct perfdata_problem p = { off, NULL };
	char msg[ERR_MSG_MAX];
	va_list ap;

	if (!pd->opts.warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p.msg = msg;
	pd->opts.warn(pd->opts.ctx, &p);
}

bool perfdata_magic(const void *p, size_t len)
{
	uint64_t m;

	if (len < 8)
		return false;
	memcpy(&m, p, 8);
	return m == PERFDATA_MAGIC || m == PD_MAGIC_SWAPPED || !memcmp(p, "PERFFILE", 8);
}

int perfdata_probe(const char *path)
{
	uint8_t b[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, b, sizeof(b));
	close(fd);
	return n == (ssize_t)sizeof(b) && perfdata_magic(b, sizeof(b));
}

static const char *const type_names[PERFDATA_TYPE_END - 64] = {
	"HEADER_ATTR", "HEADER_EVENT_TYPE", "HEADER_TRACING_DATA", "HEADER_BUILD_ID",
	"FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR",
	"THREAD_MAP", "CPU_MAP", "STAT_CONFIG", "STAT", "STAT_ROUND", "EVENT_UPDATE",
	"TIME_CONV", "HEADER_FEATURE", "COMPRESSED", "FINISHED_INIT", "COMPRESSED2",
};

const char *perfdata_type_name(uint32_t type)
{
	return type >= 64 && type < PERFDATA_TYPE_END ? type_names[type - 64] : NULL;
}

static const char *const feat_names[] = {
	NULL, "TRACING_DATA", "BUILD_ID", "HOSTNAME", "OSRELEASE", "VERSION", "ARCH",
	"NRCPUS", "CPUDESC", "CPUID", "TOTAL_MEM", "CMDLINE", "EVENT_DESC", "CPU_TOPOLOGY",
	"NUMA_TOPOLOGY", "BRANCH_STACK", "PMU_MAPPINGS", "GROUP_DESC", "AUXTRACE", "STAT",
	"CACHE", "SAMPLE_TIME", "MEM_TOPOLOGY", "CLOCKID", "DIR_FORMAT", "BPF_PROG_INFO",
	"BPF_BTF", "COMPRESSED", "CPU_PMU_CAPS", "CLOCK_DATA", "HYBRID_TOPOLOGY", "PMU_CAPS",
};

const char *perfdata_feature_name(unsigned feat)
{
	return feat < sizeof(feat_names) / sizeof(*feat_names) ? feat_names[feat] : NULL;
}

int perfdata_string(struct cursor *c, char **out)
{
	uint32_t len;
	const uint8_t *p;
	size_t n;

	*out = NULL;
	if (!cur_h32(c, &len))
		return -PREC_ETRUNC;
	p = cur_take(c, len);
	if (!p)
		return -PREC_ETRUNC;
	n = strnlen((const char *)p, len);
	*out = malloc(n + 1);
	if (!*out)
		return -ENOMEM;
	memcpy(*out, p, n);
	(*out)[n] = 0;
	return 0;
}

/* ---- accessors ---------------------------------------------------------- */

const struct perfdata_info *perfdata_info(const struct perfdata *pd)
{
	return &pd->info;
}

const struct event_desc *perfdata_events(const struct perfdata *pd, size_t *nr)
{
	*nr = pd->nr_events;
	return pd->events;
}

const struct metadata *perfdata_meta(const struct perfdata *pd)
{
	return &pd->meta;
}

const struct build_id_entry *perfdata_build_ids(const struct perfdata *pd, size_t *nr)
{
	*nr = pd->nr_bids;
	return pd->bids;
}

void perfdata_take(struct perfdata *pd, struct event_desc **events, size_t *nr_events,
		   struct metadata *meta, struct build_id_entry **bids, size_t *nr_bids)
{
	*events = pd->events;
	*nr_events = pd->nr_events;
	*meta = pd->meta;
	*bids = pd->bids;
	*nr_bids = pd->nr_bids;
	pd->events = NULL;
	pd->nr_events = 0;
	memset(&pd->meta, 0, sizeof(pd->meta));
	pd->bids = NULL;
	pd->nr_bids = 0;
}

bool perfdata_feature(const struct perfdata *pd, unsigned feat, const uint8_t **p, size_t *len)
{
	if (feat >= PERFDATA_FEAT_MAX || !pd->feat_p[feat])
		return false;
	*p = pd->feat_p[feat];
	*len = pd->feat_len[feat];
	return true;
}

void perfdata_close(struct perfdata *pd)
{
	if (!pd)
		return;
	for (size_t i = 0; i < pd->nr_events; i++)
		event_desc_free(&pd->events[i]);
	free(pd->events);
	metadata_free(&pd->meta);
	build_ids_free(pd->bids, pd->nr_bids);
	free(pd->info.cpuid);
	pd_walk_free(pd);
	if (pd->mapped)
		munmap((void *)pd->base, pd->size);
	free(pd);
}

/* ---- events ------------------------------------------------------------- */

static int add_event(struct perfdata *pd, const uint8_t *attr, size_t attr_len,
		     const uint8_t *ids, size_t nr_ids)
{
	struct event_desc *all, *ev;

	if (pd->nr_events >= PERFDATA_EVENTS_MAX)
		return -PREC_ELIMIT;
	all = array_realloc(pd->events, pd->nr_events + 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	pd->events = all;
	ev = &all[pd->nr_events];
	memset(ev, 0, sizeof(*ev));
	ev->attr_bytes = malloc(attr_len);
	ev->ids = calloc(nr_ids ? nr_ids : 1, sizeof(*ev->ids));
	if (!ev->attr_bytes || !ev->ids) {
		event_desc_free(ev);
		return -ENOMEM;
	}
	memcpy(ev->attr_bytes, attr, attr_len);
	memcpy(&ev->attr, attr, attr_len < sizeof(ev->attr) ? attr_len : sizeof(ev->attr));
	ev->attr_size = (uint32_t)attr_len;
	ev->nr_ids = nr_ids;
	for (size_t i = 0; i < nr_ids; i++) {
		memcpy(&ev->ids[i].id, ids + 8 * i, 8);
		ev->ids[i].cpu = -1;
		ev->ids[i].tid = -1;
	}
	pd->nr_events++;
	return 0;
}

static bool in_file(const struct perfdata *pd, uint64_t off, uint64_t len)
{
	return off <= pd->size && len <= pd->size - off;
}

/* The attr section: attr_size-byte entries, each the attr followed by the
 * file section of its ids. */
static int read_attrs(struct perfdata *pd, struct err *err)
{
	const struct perfdata_info *in = &pd->info;
	uint64_t n;

	if (!in->attrs_size)
		return 0;
	if (in->attr_size < PD_ATTR_SIZE_VER0 + 16 || in->attr_size > EVENT_ATTR_MAX + 16)
		return err_set(err, -PREC_ECORRUPT, "attr entries of %" PRIu64 " bytes (not %u..%u)",
			       in->attr_size, PD_ATTR_SIZE_VER0 + 16, EVENT_ATTR_MAX + 16);
	if (!in_file(pd, in->attrs_offset, in->attrs_size))
		return err_set(err, -PREC_ETRUNC, "attr section (offset %" PRIu64 ", %" PRIu64
			       " bytes) runs past the end of the file (%zu bytes)",
			       in->attrs_offset, in->attrs_size, pd->size);
	if (in->attrs_size % in->attr_size)
		return err_set(err, -PREC_ECORRUPT, "attr section of %" PRIu64
			       " bytes is not a whole number of %" PRIu64 "-byte entries",
			       in->attrs_size, in->attr_size);
	n = in->attrs_size / in->attr_size;
	if (n > PERFDATA_EVENTS_MAX)
		return err_set(err, -PREC_ELIMIT, "%" PRIu64 " events in the attr section (at most %u)",
			       n, PERFDATA_EVENTS_MAX);
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *e = pd->base + in->attrs_offset + i * in->attr_size;
		size_t alen = (size_t)in->attr_size - 16;
		uint64_t ids_off, ids_size;
		int ret;

		memcpy(&ids_off, e + alen, 8);
		memcpy(&ids_size, e + alen + 8, 8);
		if (ids_size % 8 || ids_size / 8 > PERFDATA_IDS_MAX || !in_file(pd, ids_off, ids_size))
			return err_set(err, -PREC_ECORRUPT, "event %" PRIu64 ": ids section (offset %"
				       PRIu64 ", %" PRIu64 " bytes) is not a list of ids in the file",
				       i, ids_off, ids_size);
		ret = add_event(pd, e, alen, pd->base + ids_off, (size_t)(ids_size / 8));
		if (ret)
			return err_set(err, ret, "event %" PRIu64 ": %s", i, err_str(ret));
	}
	return 0;
}

/* HEADER_ATTR (pipe mode): the attr, as long as its size field says, then
 * the ids to the end of the record. */
static int header_attr(struct perfdata *pd, const uint8_t *r, uint16_t size, uint64_t off)
{
	uint32_t asize;
	int ret;

	if (size < 8 + PD_ATTR_SIZE_VER0) {
		pd_problem(pd, off, "HEADER_ATTR record at offset %" PRIu64 ": %u bytes cannot hold "
			   "an attr: ignored", off, size);
		return 0;
	}
	memcpy(&asize, r + 8 + 4, 4);
	if (!asize)
		asize = PD_ATTR_SIZE_VER0;
	if (asize < PD_ATTR_SIZE_VER0 || asize > size - 8u || (size - 8u - asize) % 8) {
		pd_problem(pd, off, "HEADER_ATTR record at offset %" PRIu64 ": attr size %u does not "
			   "fit its %u bytes: ignored", off, asize, size);
		return 0;
	}
	ret = add_event(pd, r + 8, asize, r + 8 + asize, (size - 8u - asize) / 8);
	if (ret == -PREC_ELIMIT) {
		pd_problem(pd, off, "HEADER_ATTR record at offset %" PRIu64 ": more than %u events: "
			   "ignored", off, PERFDATA_EVENTS_MAX);
		return 0;
	}
	return ret;
}

static struct event_id *find_id(struct perfdata *pd, uint64_t id, size_t *event)
{
	for (size_t e = 0; e < pd->nr_events; e++)
		for (size_t i = 0; i < pd->events[e].nr_ids; i++)
			if (pd->events[e].ids[i].id == id) {
				if (event)
					*event = e;
				return &pd->events[e].ids[i];
			}
	return NULL;
}

/* ID_INDEX: nr entries of { id, idx, cpu, tid } (perf may append a second
 * array of { machine_pid, vcpu }, not needed here). */
static void id_index(struct perfdata *pd, const uint8_t *r, uint16_t size, uint64_t off)
{
	struct cursor c = cur_make(r + 8, size - 8u);
	uint64_t nr;

	if (!cur_h64(&c, &nr) || nr > cur_left(&c) / 32) {
		pd_problem(pd, off, "ID_INDEX record at offset %" PRIu64 ": entries do not fit its "
			   "%u bytes: ignored", off, size);
		return;
	}
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t id = 0, idx = 0, cpu = 0, tid = 0;
		struct event_id *e;

		cur_h64(&c, &id);
		cur_h64(&c, &idx);
		cur_h64(&c, &cpu);
		cur_h64(&c, &tid);
		e = find_id(pd, id, NULL);
		if (e) {
			e->cpu = (int32_t)cpu;
			e->tid = (int32_t)tid;
		}
	}
}

/* EVENT_UPDATE: u64 type, u64 id, then the value; type 2 names the event
 * (pipe mode has no EVENT_DESC). Units, scales and CPU lists are for stat. */
static int event_update(struct perfdata *pd, const uint8_t *r, uint16_t size)
{
	uint64_t type, id;
	size_t ev, n;
	char *name;

	if (size < 24)
		return 0;
	memcpy(&type, r + 8, 8);
	memcpy(&id, r + 16, 8);
	if (type != 2 || !find_id(pd, id, &ev) || pd->events[ev].name)
		return 0;
	n = strnlen((const char *)r + 24, size - 24u);
	name = malloc(n + 1);
	if (!name)
		return -ENOMEM;
	memcpy(name, r + 24, n);
	name[n] = 0;
	pd->events[ev].name = name;
	return 0;
}

/* HEADER_FEATURE (pipe mode): u64 feature, then its bytes as the file's
 * feature section would hold them. */
static void header_feature(struct perfdata *pd, const uint8_t *r, uint16_t size, uint64_t off)
{
	uint64_t feat;

	if (size < 16)
		return;
	memcpy(&feat, r + 8, 8);
	if (feat == 0 || feat >= PERFDATA_FEAT_MAX || pd->feat_p[feat])
		return;
	pd->feat_p[feat] = r + 16;
	pd->feat_len[feat] = size - 16u;
	pd->feat_off[feat] = off + 16;
	pd->info.features[feat / 8] |= (uint8_t)(1u << (feat % 8));
}

/* Walk the records before the first sample, round or compressed record:
 * pass 0 takes events and features (pipe mode), pass 1 what refers to
 * events by id. Damage ends the scan quietly: the data walk reports it. */
static int prescan(struct perfdata *pd, int pass)
{
	uint64_t pos = pd->data_start;
	int ret = 0;

	while (!ret) {
		uint32_t type;
		uint16_t size;
		uint64_t total;
		const uint8_t *r;

		if (pd_record_at(pd, pos, pd->data_end, &type, &size, &total, NULL) != 1)
			break;
		if (type == PERF_RECORD_SAMPLE || type == PERFDATA_FINISHED_ROUND ||
		    type == PERFDATA_COMPRESSED || type == PERFDATA_COMPRESSED2 ||
		    type == PERFDATA_FINISHED_INIT)
			break;
		r = pd->base + pos;
		if (pass == 0 && type == PERFDATA_HEADER_ATTR && pd->info.pipe)
			ret = header_attr(pd, r, size, pos);
		else if (pass == 0 && type == PERFDATA_HEADER_FEATURE && pd->info.pipe)
			header_feature(pd, r, size, pos);
		else if (pass == 1 && type == PERFDATA_ID_INDEX)
			id_index(pd, r, size, pos);
		else if (pass == 1 && type == PERFDATA_EVENT_UPDATE)
			ret = event_update(pd, r, size);
		else if (pass == 1 && type == PERFDATA_HEADER_BUILD_ID)
			ret = pd_build_ids_add(pd, r, size, pos);
		pos += total;
	}
	return ret;
}

/* ---- the header --------------------------------------------------------- */

static int read_header(struct perfdata *pd, struct err *err)
{
	struct perfdata_info *in = &pd->info;
	struct cursor c = cur_make(pd->base, pd->size);
	uint64_t magic = 0, ev_off, ev_size;

	in->file_size = pd->size;
	if (pd->size >= 8 && !memcmp(pd->base, "PERFFILE", 8))
		return err_set(err, -PREC_EVERSION, "a perf.data file of the first version "
			       "(PERFFILE): not supported, convert it with a newer perf");
	cur_h64(&c, &magic);
	if (magic == PD_MAGIC_SWAPPED)
		return err_set(err, -PREC_EENDIAN, "a perf.data file of the other byte order: "
			       "read it on a machine like the one that recorded it");
	if (magic != PERFDATA_MAGIC)
		return err_set(err, -PREC_EFORMAT, "not a perf.data file");
	if (!cur_h64(&c, &in->header_size))
		return err_set(err, -PREC_ETRUNC, "perf.data header cut short (%zu bytes)", pd->size);
	if (in->header_size == PD_PIPE_HEADER_SIZE) {
		in->pipe = true;
		pd->data_start = PD_PIPE_HEADER_SIZE;
		pd->data_end = pd->size;
		return 0;
	}
	if (in->header_size != PD_FILE_HEADER_SIZE && in->header_size != PD_FILE_HEADER_OLD)
		return err_set(err, -PREC_ECORRUPT, "perf.data header size %" PRIu64
			       " is neither %u (file) nor %u (pipe)", in->header_size,
			       PD_FILE_HEADER_SIZE, PD_PIPE_HEADER_SIZE);
	if (pd->size < in->header_size)
		return err_set(err, -PREC_ETRUNC, "perf.data header cut short (%zu of %" PRIu64
			       " bytes)", pd->size, in->header_size);
	cur_h64(&c, &in->attr_size);
	cur_h64(&c, &in->attrs_offset);
	cur_h64(&c, &in->attrs_size);
	cur_h64(&c, &in->data_offset);
	cur_h64(&c, &in->data_size);
	cur_h64(&c, &ev_off);
	cur_h64(&c, &ev_size);
	if (in->header_size == PD_FILE_HEADER_SIZE)
		memcpy(in->features, cur_take(&c, sizeof(in->features)), sizeof(in->features));
	if (in->data_offset < in->header_size || in->data_offset > pd->size)
		return err_set(err, -PREC_ECORRUPT, "data section offset %" PRIu64
			       " is outside the file (%zu bytes)", in->data_offset, pd->size);
	pd->data_start = in->data_offset;
	if (!in->data_size) {
		in->unfinished = true;
		pd->data_end = pd->size;
		if (pd->size > in->data_offset)
			pd_problem(pd, 0, "the header gives a data size of 0 (perf record did not "
				   "finish): reading records to the end of the file");
	} else if (in->data_size > pd->size - in->data_offset) {
		pd->data_end = pd->size;
		pd_problem(pd, in->data_offset, "data section (offset %" PRIu64 ", %" PRIu64
			   " bytes) runs past the end of the file: %" PRIu64 " bytes missing",
			   in->data_offset, in->data_size,
			   in->data_size - (pd->size - in->data_offset));
	} else {
		pd->data_end = in->data_offset + in->data_size;
	}
	return 0;
}

/* The feature table follows the data: one file section per bit set. */
static int read_features(struct perfdata *pd)
{
	struct perfdata_info *in = &pd->info;
	size_t nr = 0, k = 0;

	in->features[0] &= (uint8_t)~1u;        /* HEADER_RESERVED */
	for (size_t i = 0; i < sizeof(in->features); i++)
		nr += (size_t)__builtin_popcount(in->features[i]);
	if (!nr)
		return 0;
	in->feat_offset = in->data_offset + in->data_size;
	if (in->unfinished || in->data_offset + in->data_size > pd->size ||
	    !in_file(pd, in->feat_offset, 16 * (uint64_t)nr)) {
		if (!in->unfinished)
			pd_problem(pd, in->feat_offset, "feature table at offset %" PRIu64
				   " runs past the end of the file: header features ignored",
				   in->feat_offset);
		memset(in->features, 0, sizeof(in->features));
		return 0;
	}
	for (unsigned f = 1; f < PERFDATA_FEAT_MAX; f++) {
		uint64_t off, size;
		const uint8_t *s;

		if (!(in->features[f / 8] & (1u << (f % 8))))
			continue;
		s = pd->base + in->feat_offset + 16 * k++;
		memcpy(&off, s, 8);
		memcpy(&size, s + 8, 8);
		if (!in_file(pd, off, size)) {
			pd_problem(pd, in->feat_offset, "feature %s: section (offset %" PRIu64 ", %"
				   PRIu64 " bytes) runs past the end of the file: ignored",
				   perfdata_feature_name(f) ? perfdata_feature_name(f) : "?", off, size);
			continue;
		}
		pd->feat_p[f] = pd->base + off;
		pd->feat_len[f] = (size_t)size;
		pd->feat_off[f] = off;
	}
	return 0;
}

static int read_all(struct perfdata *pd, struct err *err)
{
	int ret = read_header(pd, err);

	if (ret)
		return ret;
	if (!pd->info.pipe) {
		ret = read_attrs(pd, err);
		if (!ret)
			ret = read_features(pd);
	}
	if (!ret)
		ret = prescan(pd, 0);
	/* names (EVENT_DESC) refer to events, which pipe mode gives last */
	for (unsigned f = 1; !ret && f < PERFDATA_FEAT_MAX; f++)
		if (pd->feat_p[f])
			ret = pd_feature_apply(pd, f, pd->feat_p[f], pd->feat_len[f], pd->feat_off[f]);
	if (!ret)
		ret = prescan(pd, 1);
	for (size_t i = 0; !ret && i < pd->nr_events; i++)
		if (!pd->events[i].name && !(pd->events[i].name = pd_default_name(&pd->events[i].attr)))
			ret = -ENOMEM;
	if (ret && !err->code)
		err_set(err, ret, "%s", err_str(ret));
	pd->pos = pd->data_start;
	return ret;
}

int perfdata_open_mem(struct perfdata **out, const void *data, size_t len,
		      const struct perfdata_opts *o, struct err *err)
{
	struct perfdata *pd = calloc(1, sizeof(*pd));
	struct err e = { 0 };
	int ret;

	*out = NULL;
	if (!pd)
		return err_set(err, -ENOMEM, "out of memory");
	pd->base = data;
	pd->size = len;
	if (o)
		pd->opts = *o;
	ret = read_all(pd, &e);
	if (ret) {
		perfdata_close(pd);
		return err_set(err, ret, "%s", e.msg);
	}
	*out = pd;
	return 0;
}

int perfdata_open(struct perfdata **out, const char *path, const struct perfdata_opts *o,
		  struct err *err)
{
	struct stat st;
	void *map = NULL;
	int fd, ret;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		return err_set(err, ret, "cannot open '%s': %s", path, err_str(ret));
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(err, -EINVAL, "'%s' is not a regular file", path);
	}
	if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		ret = -errno;
		if (map == MAP_FAILED) {
			close(fd);
			return err_set(err, ret, "cannot map '%s': %s", path, err_str(ret));
		}
	}
	close(fd);
	ret = perfdata_open_mem(out, map ? map : "", (size_t)st.st_size, o, err);
	if (ret) {
		if (map)
			munmap(map, (size_t)st.st_size);
		err_prefix(err, "'%s'", path);
		return ret;
	}
	(*out)->mapped = map != NULL;
	(*out)->info.mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull +
				(uint64_t)st.st_mtim.tv_nsec;
	(*out)->info.ctime_ns = (uint64_t)st.st_ctim.tv_sec * 1000000000ull +
				(uint64_t)st.st_ctim.tv_nsec;
	(*out)->info.dev = (uint64_t)st.st_dev;
	(*out)->info.ino = (uint64_t)st.st_ino;
	/* perf's "captured on" is the file's modification time */
	if (metadata_set_u64(&(*out)->meta, META_START_TIME_NS, (*out)->info.mtime_ns)) {
		perfdata_close(*out);
		*out = NULL;
		return err_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}
