/* SPDX-License-Identifier: MIT */
/*
 * The perf.data importer: files written by `perf record` (and the pipe-mode
 * stream of `perf record -o -`), turned into what the report takes from a
 * prec.data file: event descriptions (struct event_desc: attr, name, ids
 * with their CPU and thread), metadata (struct metadata, meta tags), build
 * ids (struct build_id_entry), and a walk over the data section that hands
 * out the kernel's records in file order with perf's round marks.
 *
 * What is read (perf's tools/perf/Documentation/perf.data-file-format.txt,
 * and perf 6.1's output):
 *
 *   file mode   header (magic "PERFILE2" as a host-order u64, size 104, or 72
 *               for files older than feature bits), the attr section (attr +
 *               ids section per event), the data section, and the feature
 *               sections the header's bitmap announces after the data;
 *   pipe mode   a 16-byte header, then a stream of records in which perf's
 *               synthesized HEADER_ATTR, HEADER_FEATURE and EVENT_UPDATE
 *               records stand for the attr and feature sections.
 *
 * Records of types >= 64 are perf's own (enum perfdata_type). ID_INDEX
 * gives each id its CPU and thread, EVENT_UPDATE names events in pipe mode,
 * HEADER_BUILD_ID adds build ids; those are read when the file is opened,
 * from the records before the first sample. COMPRESSED records hold one
 * zstd stream across the file whose output is the kernel's records; records
 * may straddle two COMPRESSED records. AUXTRACE and HEADER_TRACING_DATA are
 * followed by payload bytes that their header.size does not count: the walk
 * steps over them.
 *
 * Everything else of perf's (THREAD_MAP, CPU_MAP, STAT_CONFIG, STAT,
 * STAT_ROUND, TIME_CONV, FINISHED_INIT, AUXTRACE_INFO, ...) is handed out
 * as a single-record chunk of kind PERFDATA_CHUNK_USER, so that a consumer
 * (the report counts them; a stat report reads STAT) reaches them in order.
 *
 * What is refused at open: no perf magic, the magic of the other byte order
 * (files are in the byte order of the machine that wrote them), the version
 * 1 "PERFFILE" format, a header size other than 104, 72 or 16 (pipe), an
 * attr entry size outside 80..4112 bytes, ids that are not a whole number of
 * u64, more than PERFDATA_EVENTS_MAX events. What is damaged but readable is
 * warned about (one line naming the offset) and skipped: a section that
 * runs past the end of the file, a feature section that does not decode, a
 * data section cut short (read up to the last whole record), a data size of
 * 0 (perf did not finish: records are read to the end of the file), a
 * record whose size is below 8 or runs past its section (the walk stops
 * there), a COMPRESSED record that does not decompress (the rest of the
 * compressed stream is skipped).
 *
 * Ownership: the importer owns everything it returns; pointers stay valid
 * until perfdata_close, except chunk bytes that are not `stable` (valid
 * until the next perfdata_next) and what perfdata_take_* moved out (then
 * owned by the caller). Nothing here prints or exits.
 */
#ifndef PREC_FORMAT_PERFDATA_H
#define PREC_FORMAT_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cursor.h"
#include "common/err.h"
#include "blocks.h"

#define PERFDATA_MAGIC 0x32454c4946524550ull      /* "PERFILE2" */
#define PERFDATA_EVENTS_MAX 4096u
#define PERFDATA_IDS_MAX (1u << 20)
/* the most one COMPRESSED record may decompress to (perf's are at most the
 * size of one ring buffer) */
#define PERFDATA_DECOMP_MAX (64u << 20)

/* perf's own record types (perf_user_event_type) */
enum perfdata_type {
	PERFDATA_HEADER_ATTR = 64,
	PERFDATA_HEADER_EVENT_TYPE = 65,
	PERFDATA_HEADER_TRACING_DATA = 66,
	PERFDATA_HEADER_BUILD_ID = 67,
	PERFDATA_FINISHED_ROUND = 68,
	PERFDATA_ID_INDEX = 69,
	PERFDATA_AUXTRACE_INFO = 70,
	PERFDATA_AUXTRACE = 71,
	PERFDATA_AUXTRACE_ERROR = 72,
	PERFDATA_THREAD_MAP = 73,
	PERFDATA_CPU_MAP = 74,
	PERFDATA_STAT_CONFIG = 75,
	PERFDATA_STAT = 76,
	PERFDATA_STAT_ROUND = 77,
	PERFDATA_EVENT_UPDATE = 78,
	PERFDATA_TIME_CONV = 79,
	PERFDATA_HEADER_FEATURE = 80,
	PERFDATA_COMPRESSED = 81,
	PERFDATA_FINISHED_INIT = 82,
	PERFDATA_COMPRESSED2 = 83,      /* newer perf: u64 data_size, then the data */
	PERFDATA_TYPE_END,
};

/* feature bits of the header (HEADER_*) */
enum perfdata_feature {
	PERFDATA_FEAT_TRACING_DATA = 1,
	PERFDATA_FEAT_BUILD_ID,
	PERFDATA_FEAT_HOSTNAME,
	PERFDATA_FEAT_OSRELEASE,
	PERFDATA_FEAT_VERSION,
	PERFDATA_FEAT_ARCH,
	PERFDATA_FEAT_NRCPUS,
	PERFDATA_FEAT_CPUDESC,
	PERFDATA_FEAT_CPUID,
	PERFDATA_FEAT_TOTAL_MEM,
	PERFDATA_FEAT_CMDLINE,
	PERFDATA_FEAT_EVENT_DESC,
	PERFDATA_FEAT_CPU_TOPOLOGY,
	PERFDATA_FEAT_NUMA_TOPOLOGY,
	PERFDATA_FEAT_BRANCH_STACK,
	PERFDATA_FEAT_PMU_MAPPINGS,
	PERFDATA_FEAT_GROUP_DESC,
	PERFDATA_FEAT_AUXTRACE,
	PERFDATA_FEAT_STAT,
	PERFDATA_FEAT_CACHE,
	PERFDATA_FEAT_SAMPLE_TIME,
	PERFDATA_FEAT_MEM_TOPOLOGY,
	PERFDATA_FEAT_CLOCKID,
	PERFDATA_FEAT_DIR_FORMAT,
	PERFDATA_FEAT_BPF_PROG_INFO,
	PERFDATA_FEAT_BPF_BTF,
	PERFDATA_FEAT_COMPRESSED,
	PERFDATA_FEAT_CPU_PMU_CAPS,
	PERFDATA_FEAT_CLOCK_DATA,
	PERFDATA_FEAT_HYBRID_TOPOLOGY,
	PERFDATA_FEAT_PMU_CAPS,
	PERFDATA_FEAT_MAX = 256,
};

/* Is this the start of a perf.data file (either byte order, either
 * version, file or pipe)? Needs at least 8 bytes. */
bool perfdata_magic(const void *p, size_t len);
/* Does the file at path start with that magic? 1 yes, 0 no (or cannot be
 * read: the caller's own open says why). */
int perfdata_probe(const char *path);

struct perfdata_problem {
	uint64_t offset;        /* in the file */
	const char *msg;        /* one line naming the offset */
};

struct perfdata_opts {
	/* Called once per problem found. */
	void (*warn)(void *ctx, const struct perfdata_problem *p);
	void *ctx;
};

/* The header and the features that have no meta tag. */
struct perfdata_info {
	bool pipe;
	uint64_t file_size;
	uint64_t header_size, attr_size;       /* attr_size: of an attr section entry */
	uint64_t attrs_offset, attrs_size;
	uint64_t data_offset, data_size;       /* as the header gives them */
	uint64_t feat_offset;                  /* the feature table (file mode) */
	uint8_t features[PERFDATA_FEAT_MAX / 8];       /* announced or seen (pipe) */
	bool unfinished;        /* data size 0 in the header: perf did not finish */
	bool counting;          /* HEADER_STAT: written by perf stat record */
	uint64_t mtime_ns;      /* of the file; 0 when read from memory */
	/* the file read (perfdata_open), as it was when opened: what names
	 * its contents for a reader that keeps what it made of them (all 0
	 * when read from memory) */
	uint64_t dev, ino, ctime_ns;
	bool has_sample_time;
	uint64_t first_sample_time, last_sample_time;
	bool has_compressed;
	uint32_t comp_version, comp_type, comp_level, comp_ratio, comp_mmap_len;
	bool has_clock_data;
	uint32_t clockid;
	uint64_t clock_wall_ns, clock_clockid_ns;
	char *cpuid;            /* NULL when absent */
};

struct perfdata;

int perfdata_open(struct perfdata **out, const char *path, const struct perfdata_opts *o,
		  struct err *err);
/* The bytes are borrowed and must outlive the importer. */
int perfdata_open_mem(struct perfdata **out, const void *data, size_t len,
		      const struct perfdata_opts *o, struct err *err);
void perfdata_close(struct perfdata *pd);      /* NULL-tolerant */

const struct perfdata_info *perfdata_info(const struct perfdata *pd);
/* Events in the order of the attr section (or of HEADER_ATTR records). A
 * name comes from EVENT_DESC (or EVENT_UPDATE in pipe mode), else from the
 * attr's type and config; ids without an ID_INDEX entry have cpu and tid -1. */
const struct event_desc *perfdata_events(const struct perfdata *pd, size_t *nr);
const struct metadata *perfdata_meta(const struct perfdata *pd);
const struct build_id_entry *perfdata_build_ids(const struct perfdata *pd, size_t *nr);
/* Move them to the caller (who frees them with event_desc_free + free,
 * metadata_free, build_ids_free); the importer then has none. */
void perfdata_take(struct perfdata *pd, struct event_desc **events, size_t *nr_events,
		   struct metadata *meta, struct build_id_entry **bids, size_t *nr_bids);
/* The raw bytes of a feature section (file mode) or HEADER_FEATURE record's
 * data (pipe mode): true and *p, *len set when the file has it. */
bool perfdata_feature(const struct perfdata *pd, unsigned feat, const uint8_t **p, size_t *len);
const char *perfdata_feature_name(unsigned feat);      /* "HOSTNAME", or NULL */
const char *perfdata_type_name(uint32_t type);         /* "FINISHED_ROUND", or NULL */
/* A perf_header_string at c (u32 len, then len bytes holding a NUL-padded
 * string): a malloc'ed copy in *out. 0, -PREC_ETRUNC, -PREC_ECORRUPT, -ENOMEM. */
int perfdata_string(struct cursor *c, char **out);

/* ---- the data walk ----------------------------------------------------- */

enum perfdata_chunk_kind {
	PERFDATA_CHUNK_RECORDS = 1,     /* kernel records (types < 64) back to back: a
					   run of them, cut at 128 KiB when it lies in
					   the file (for the cache to hold it as it is
					   read) */
	PERFDATA_CHUNK_USER,            /* one record of perf's own (type >= 64) */
};

struct perfdata_chunk {
	enum perfdata_chunk_kind kind;
	uint32_t type;          /* USER: the record's type */
	const uint8_t *p;       /* the bytes, whole records */
	size_t len;
	uint64_t offset;        /* file offset of the first byte; for decompressed
				   bytes, of the COMPRESSED record they came from */
	bool compressed;        /* decompressed from COMPRESSED records */
	bool stable;            /* valid until perfdata_close; else until the
				   next perfdata_next or perfdata_rewind */
};

struct perfdata_stats {
	uint64_t by_type[PERFDATA_TYPE_END - 64];      /* perf's records, by type */
	uint64_t unknown_user;          /* types >= PERFDATA_TYPE_END */
	uint64_t compressed_bytes;      /* COMPRESSED payload bytes read */
	uint64_t decompressed_bytes;    /* what they decompressed to */
	uint64_t bad_compressed;        /* COMPRESSED records not decompressed */
	uint64_t bytes_ignored;         /* data not read: damage, a cut-short end */
	bool stopped;                   /* the walk stopped at damage */
};

/* Next chunk of the data section: 1 and *c set, 0 at the end (damage that
 * ends the walk was warned about), negative for out of memory. */
int perfdata_next(struct perfdata *pd, struct perfdata_chunk *c, struct err *err);
/* Restart the walk (and the decompression) at the start of the data. */
void perfdata_rewind(struct perfdata *pd);
const struct perfdata_stats *perfdata_stats(const struct perfdata *pd);

#endif
