/* SPDX-License-Identifier: MIT */
/*
 * Payloads of the container's block types (FORMAT.md section 5): encoders
 * that append a payload to a struct buf, and decoders that check every length
 * and reserved field of a raw payload.
 *
 * Ownership: decoders that return objects (metadata, event_desc, arrays)
 * allocate them; free them with the matching *_free(). The data-block
 * iterator returns views into the payload, valid as long as the payload.
 */
#ifndef PREC_FORMAT_BLOCKS_H
#define PREC_FORMAT_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

#include "common/buf.h"
#include "common/cursor.h"
#include "common/err.h"

/* Check the structure of a decoded payload of a known type (used by the
 * reader before it hands a block out). Unknown types pass. */
int block_payload_validate(unsigned type, const uint8_t *p, size_t len, struct err *err);

/* ---- METADATA -------------------------------------------------------- */

enum meta_kind {
	META_U64 = 1,
	META_STRING = 2,
	META_STRLIST = 3,
	META_BYTES = 4,
};

enum meta_tag {
	META_HOSTNAME = 1,
	META_OS_RELEASE,
	META_ARCH,
	META_NR_CPUS_ONLINE,
	META_NR_CPUS_AVAIL,
	META_CPU_DESC,
	META_CMDLINE,
	META_CLOCK_ID,
	META_START_TIME_NS,
	META_END_TIME_NS,
	META_START_CLOCK_NS,
	META_END_CLOCK_NS,
	META_PAGE_SIZE,
	META_PERF_EVENT_PARANOID,
	META_WRITER,
	META_TOTAL_MEM_KB,
	META_OS_VERSION,
	META_NR_SAMPLES,
	META_NR_LOST_SAMPLES,
	META_NR_LOST_RECORDS,
	META_WORKLOAD_EXIT,
	META_STAT_RUNS,
	META_STAT_ELAPSED_NS,
	META_STAT_USER_NS,
	META_STAT_SYS_NS,
	META_STAT_TARGET,
	META_STAT_AGGR,
	META_STAT_TOPOLOGY,
	META_STAT_THREADS,
	META_REPAIRED,          /* since 1.4 */
	META_STAT_TOPOLOGY_MORE,        /* clusters and caches (--per-cluster, --per-cache) */
	META_STAT_LAYOUT,               /* --table, --metric-only */
	META_STAT_CGROUPS,      /* since 1.5 */
	META_EVENT_GROUPS,      /* {a,b} groups of a recording; since 1.6 */
	META_TAG_MAX,
};

/* The table of known tags: name and kind. */
struct meta_field {
	uint16_t tag;
	uint16_t kind;
	const char *name;
};
const struct meta_field *meta_field_find(uint16_t tag);   /* NULL if unknown */

struct meta_item {
	uint16_t tag;
	uint16_t kind;
	uint32_t len;
	uint8_t *value;         /* len bytes, plus a NUL the format does not have */
};

/* One entry as stored, pointing into the payload. */
struct meta_entry {
	uint16_t tag;
	uint16_t kind;
	uint32_t len;
	const uint8_t *value;
};

/* Next entry of a METADATA payload: 1 and *e filled, 0 at the end, or a
 * negative code if the entry is malformed (FORMAT.md 5.1). */
int meta_next(struct cursor *c, struct meta_entry *e, struct err *err);

struct metadata {
	size_t nr;
	struct meta_item *items;   /* at most one item per tag */
};

/* Setters replace an existing value of the same tag. */
int metadata_set_u64(struct metadata *m, uint16_t tag, uint64_t v);
int metadata_set_str(struct metadata *m, uint16_t tag, const char *s);
int metadata_set_strlist(struct metadata *m, uint16_t tag, int argc, char *const argv[]);
int metadata_set_bytes(struct metadata *m, uint16_t tag, uint16_t kind, const void *p, size_t len);
const struct meta_item *metadata_get(const struct metadata *m, uint16_t tag);
bool metadata_get_u64(const struct metadata *m, uint16_t tag, uint64_t *v);
const char *metadata_get_str(const struct metadata *m, uint16_t tag);  /* NULL if absent */
int metadata_encode(const struct metadata *m, struct buf *out);
/* Merge a payload into m (values replace those already there). */
int metadata_decode(struct metadata *m, const uint8_t *p, size_t len, struct err *err);
void metadata_free(struct metadata *m);

/* ---- EVENT ----------------------------------------------------------- */

#define EVENT_ATTR_MIN 64u
#define EVENT_ATTR_MAX 4096u
#define EVENT_BLOCK_NAME_MAX 4096u
#define EVENT_IDS_MAX (1u << 20)

struct event_id {
	uint64_t id;
	int32_t cpu;
	int32_t tid;
};

struct event_desc {
	struct perf_event_attr attr;    /* zero-filled beyond attr_size */
	uint32_t attr_size;             /* as stored (may exceed sizeof attr) */
	uint8_t *attr_bytes;            /* the attr_size bytes as stored */
	char *name;
	size_t nr_ids;
	struct event_id *ids;
};

int event_block_encode(const void *attr, uint32_t attr_size, const char *name,
		       const struct event_id *ids, size_t nr_ids, struct buf *out);
int event_block_decode(const uint8_t *p, size_t len, struct event_desc *ev, struct err *err);
void event_desc_free(struct event_desc *ev);

/* ---- DATA ------------------------------------------------------------ */

#define DATA_HEADER_SIZE 24
#define SPAN_HEADER_SIZE 16
#define SPAN_CPU_SYNTH 0xFFFFFFFFu

enum span_kind {
	SPAN_RECORDS = 0,
	SPAN_ROUND_END = 1,
};

struct data_header {
	uint64_t time_min, time_max;
	uint32_t nr_records;
	uint32_t nr_spans;
};

struct data_span {
	uint32_t cpu;
	uint16_t kind;
	const uint8_t *records;
	uint64_t len;
};

struct data_iter {
	struct cursor c;
	struct data_header h;
};

void data_header_encode(const struct data_header *h, uint8_t out[DATA_HEADER_SIZE]);
void span_header_encode(uint32_t cpu, uint16_t kind, uint64_t len, uint8_t out[SPAN_HEADER_SIZE]);
/* Start iterating a DATA payload: reads the data header into it->h. */
int data_iter_init(struct data_iter *it, const uint8_t *p, size_t len, struct err *err);
/* 1 and *s filled, 0 at the end, negative if a span header does not fit. */
int data_iter_next(struct data_iter *it, struct data_span *s, struct err *err);

/* ---- BUILD_IDS ------------------------------------------------------- */

#define BUILD_ID_MAX 64u
#define BUILD_ID_FLAG_KERNEL 0x01

struct build_id_entry {
	uint8_t size;
	uint8_t flags;
	uint8_t id[BUILD_ID_MAX];
	char *path;
};

int build_ids_encode(const struct build_id_entry *e, size_t n, struct buf *out);
int build_ids_decode(const uint8_t *p, size_t len, struct build_id_entry **out, size_t *n,
		     struct err *err);
void build_ids_free(struct build_id_entry *e, size_t n);

/* ---- COUNTS ---------------------------------------------------------- */

#define COUNT_FLAG_FINAL 0x01
#define COUNT_FLAG_INTERVAL 0x02

struct count_reading {
	uint32_t event;
	int32_t cpu;
	int32_t tid;
	uint32_t flags;
	uint64_t time_ns;
	uint64_t value;
	uint64_t time_enabled;
	uint64_t time_running;
};

int counts_encode(const struct count_reading *r, size_t n, struct buf *out);
int counts_decode(const uint8_t *p, size_t len, struct count_reading **out, size_t *n,
		  struct err *err);

/* ---- INDEX ----------------------------------------------------------- */

/* KALLSYMS (5.7): the kernel's symbol table as /proc/kallsyms prints it.
 * kallsyms_walk checks every line and calls fn (when not NULL) for each; name
 * and module are not NUL-terminated; module_len is 0 for the core kernel. A
 * non-zero return from fn stops the walk and is returned. */
struct kallsym {
	uint64_t addr;
	char type;
	const char *name, *module;
	size_t name_len, module_len;
};

int kallsyms_walk(const uint8_t *p, size_t len,
		  int (*fn)(void *ctx, const struct kallsym *s), void *ctx, size_t *nr,
		  struct err *err);

struct index_entry {
	uint64_t offset;
	uint16_t type;
	uint32_t seq;
	uint64_t time_min, time_max;
};

int index_encode(const struct index_entry *e, size_t n, struct buf *out);
int index_decode(const uint8_t *p, size_t len, struct index_entry **out, size_t *n,
		 struct err *err);

#endif
