/* SPDX-License-Identifier: MIT */
/*
 * Reading a prec.data file for the report: events, metadata, build ids and
 * the kernel symbol copy, and the records of the DATA blocks delivered in
 * time order. Records of the ring buffers of different CPUs are merged as
 * perf's ordered events do: at the end of each drain pass (ROUND_END), the
 * records no later than the newest time of the pass before are sorted and
 * handed on; the rest wait for the next pass.
 *
 * A perf.data file (told by its magic) is read the same way through
 * format/perfdata.h: its events, metadata and build ids are known once it
 * is open, and its FINISHED_ROUND records end the passes.
 *
 * A live session (prec top) has no file: the blocks a prec.data file would
 * hold are handed to it one at a time as the recording produces them
 * (session_feed_block), and go through the same steps as a file's blocks,
 * in the same time order across CPU buffers.
 */
#ifndef PREC_REPORT_SESSION_H
#define PREC_REPORT_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"
#include "format/blocks.h"
#include "format/container.h"
#include "format/embed.h"
#include "format/source.h"
#include "format/perfdata.h"
#include "format/record.h"
#include "format/samplesums.h"
#include "machine.h"

struct stack_chains;

struct session_stats {
	uint64_t records;               /* records handed on */
	uint64_t by_type[PERF_RECORD_MAX];
	uint64_t samples;
	uint64_t bad_records;           /* records that did not decode */
	uint64_t unknown_records;       /* record types this version does not know */
	uint64_t lost_samples;          /* LOST.lost + LOST_SAMPLES.lost */
	uint64_t lost_records;          /* LOST records */
	uint64_t out_of_order;          /* records older than what was already handed on */
	uint64_t synth_records;         /* records in synthesized spans */
	uint64_t stacks_redecoded;      /* lazy stack copies their chain could not give */
};

typedef void (*session_progress_fn)(void *ctx, const char *path, uint64_t done,
				    uint64_t total);

enum session_format {
	SESSION_PREC = 0,
	SESSION_PERF,           /* perf.data */
};

struct session {
	const char *path;
	enum session_format format;
	struct container_reader *r;     /* prec.data, else NULL */
	struct stack_chains *chains;    /* its walk's lazy stack copies (format/stack_lazy.h) */
	struct perfdata *pd;            /* perf.data, else NULL */
	struct container_header header; /* perf.data: only kind is set */
	struct event_desc *events;
	size_t nr_events;
	struct record_layouts *layouts;
	struct metadata meta;
	struct build_id_entry *build_ids;
	size_t nr_build_ids;
	struct embed_dso **embeds;      /* the SYMBOLS blocks (format/embed.h) */
	size_t nr_embeds;
	struct source_block **sources;  /* the SOURCE blocks (format/source.h) */
	size_t nr_sources;
	bool early;                     /* BUILD_IDS, KALLSYMS and SYMBOLS read through the
					   index at open */
	bool early_damaged;             /* one of them was not good (the walk says so) */
	size_t nr_data_blocks;          /* the DATA blocks a finished file's index lists */
	/* session_open_counts: the CRC-32 of the bytes [64, counts_end) before
	 * the last ADDR_COUNTS block, taken while the SYMBOLS blocks were
	 * decoded (counts_end 0: not taken) */
	bool counts_want;
	uint64_t counts_end;
	uint32_t counts_crc;
	uint8_t *kallsyms;              /* the KALLSYMS block's text, or NULL */
	size_t kallsyms_len;
	uint64_t first_time, last_time; /* of samples */
	struct session_stats stats;
	const struct container_stats *cstats;   /* all zero for perf.data */
	struct container_stats no_cstats;
	bool quiet;                     /* no warnings to the log */
	uint64_t warnings;              /* problems the reader reported */
	/* Optional, set after open: how far session_read is, for a front
	 * end's progress line. Called as the reading passes each MiB of the
	 * file (done < total, in bytes), and once with done == total when
	 * session_read returns, whatever the outcome. */
	session_progress_fn progress;
	void *progress_ctx;
	uint64_t progress_at;           /* done at the last call */
	struct session_order *live;     /* a live session's records waiting for a later pass */
	/* Optional, set before session_read: each record's bytes in time
	 * order before they are decoded (session_raw_fn) */
	int (*raw)(void *ctx, struct session *s, const uint8_t *p, uint32_t len);
	void *raw_ctx;
};

/* A session's raw hook: 1 when it took care of the record (a SAMPLE it
 * counted with session_count_sample: it is not decoded, nor given to the
 * record function), 0 when it is to be decoded and handed on, negative to
 * stop the reading. */
typedef int (*session_raw_fn)(void *ctx, struct session *s, const uint8_t *p, uint32_t len);
/* Count a SAMPLE the raw hook took, as a decoded one is counted: its time
 * when it has one. */
void session_count_sample(struct session *s, bool has_time, uint64_t time);

/* Called for every record in time order. A non-zero return stops reading
 * and is returned by session_read. */
typedef int (*session_record_fn)(void *ctx, struct session *s, const struct record *rec);

/* Open the file (header checks only). Returns 0 or a negative code with err set. */
int session_open(struct session *s, const char *path, bool quiet, struct err *err);
/* As session_open (quiet), or session_open_mem when data is not NULL, for
 * session_addr_counts: the CRC it checks is taken while the blocks at the
 * end of the file are decoded, on the other thread. */
int session_open_counts(struct session *s, const char *path, const void *data, size_t len,
			struct err *err);
/* The same on bytes in memory (borrowed; they must outlive the session);
 * path only names them in messages. */
int session_open_mem(struct session *s, const char *path, const void *data, size_t len,
		     bool quiet, struct err *err);
/* Walk every block: events, metadata, build ids and kallsyms are kept in s;
 * fn (may be NULL) gets each record of the DATA blocks in time order. Events
 * come before DATA blocks in a well-formed file; records that cannot be
 * attributed are counted as bad. */
int session_read(struct session *s, session_record_fn fn, void *ctx, struct err *err);
void session_close(struct session *s);

/*
 * Reading by sums, for a reader that takes from a sample only its event,
 * thread, what ops->key makes of it and, summed, how many samples and how
 * much period (a count per sampled address: prep annotate), and that
 * keeps a model of what its samples resolve to that changes only at the
 * records ops->scope names. Between two such records of a process (or of
 * all), its samples with the same event, pid, tid and key are one class;
 * each class's first sample goes to ops->sum with the number of samples
 * and their PERIOD fields summed (0 for an event without PERIOD), in time
 * order among the other records, which go to ops->record as
 * session_read hands them on (and are counted alike). The samples are
 * not put in time order one by one: one walk sums them (session_sum.c).
 *
 * For a perf.data file whose records lie in its mapping (not compressed)
 * with time and thread ids in every sample and no read values, whose
 * records come in the order perf's rounds promise (else session_read
 * would hand some on late) and whose samples sum (at most
 * SETTLE_CLASSES_MAX classes): then *summed, and what session_read returns,
 * with the session's counts as session_read leaves them. Else (*summed
 * false) 0, nothing handed on: call session_read; or negative on failure
 * (out of memory), with err.
 */
struct session_sum_ops {
	session_record_fn record;
	int (*sum)(void *ctx, struct session *s, const struct record *rec, uint64_t count,
		   uint64_t period);
	/* what of the sample (its head, its header's misc) decides its
	 * outcome beside its event, pid and tid: two words */
	void (*key)(void *ctx, const struct sample_head *h, uint16_t misc, uint64_t key[2]);
	/* the samples whose outcome rec may change (machine_record_scope) */
	enum machine_scope (*scope)(const struct record *rec, uint32_t *pid);
	/* what key gives a sample without a call chain, where the walk may
	 * compute it itself (without the call): SUM_KEY_CALL, or its address
	 * and whether it ran in the kernel (misc's cpumode), with its CPU
	 * (SUM_KEY_IP_CPU): { ip, kernel | cpu << 1 } */
	enum { SUM_KEY_CALL, SUM_KEY_IP, SUM_KEY_IP_CPU } key_kind;
};
/* Where session_read_sum may keep what it handed on, so that it hands it
 * on again without walking the same file (report/core/sum_cache.h): dir
 * (NULL: nowhere), and tag, what ops->key computes (two keys, two tags). */
struct session_sum_cache {
	const char *dir;
	uint32_t tag;
};
int session_read_sum(struct session *s, const struct session_sum_ops *ops, void *ctx,
		     const struct session_sum_cache *cache, bool *summed, struct err *err);

/* A live session named name (in messages): no file; its blocks come
 * through session_feed_block. 0 or -ENOMEM with err set; session_close
 * ends it. */
int session_open_live(struct session *s, const char *name, bool quiet, struct err *err);
/* One block of a live session, a payload of the given type as a prec.data
 * file holds it (FORMAT.md 5; EVENT blocks before the DATA blocks whose
 * records they describe): what session_read does with a block read from
 * a file, fn getting the records of a DATA block in time order as its
 * ROUND_END spans let them go. The payload is only read during the call.
 * 0, a non-zero return of fn, or a negative code with err set. */
int session_feed_block(struct session *s, unsigned type, const void *payload, size_t len,
		       session_record_fn fn, void *ctx, struct err *err);
/* The end of a live session: the records still waiting go to fn. */
int session_feed_end(struct session *s, session_record_fn fn, void *ctx, struct err *err);
/* The times of the file's first and last sample, as session_read would
 * find them (first_time, last_time), from the few DATA blocks that the
 * index says may hold them (span.c): 1 when found so, 0 when the file has
 * no usable index (a perf.data file, a stream, a recording cut short) or
 * the ranges disagree with the records, or -ENOMEM. Call before
 * session_read; the walk is not disturbed. */
int session_sample_span(struct session *s, uint64_t *first, uint64_t *last, struct err *err);

/* A finished file's EVENT and METADATA blocks, through its index, without
 * walking its DATA blocks: for a view that takes what it needs of the
 * samples from elsewhere (load_open_counts). 1 when they were all good and
 * read, 0 when the file has no usable index or one of them is damaged (s
 * is then not to be read further), -ENOMEM. */
int session_read_heads(struct session *s, struct err *err);

/* The file's last ADDR_COUNTS block (FORMAT.md 5.11), where it may stand
 * for a reading of the file's samples: a finished file, not a stream, that
 * read clean so far (no warning, its blocks at the end good), whose index
 * lists only known types and no block missing, the block after the last
 * DATA and EVENT blocks and followed by blocks a session reads at open
 * only, good, covering the file up to itself with the right CRC, with an
 * entry per EVENT block. Then 1 and *out (for addrcounts_free), and the
 * EVENT and METADATA blocks are read (session_read_heads); else 0 (s
 * untouched unless that reading failed: close it then), or -ENOMEM.
 * Call right after session_open, instead of session_read. */
struct addrcounts;
int session_addr_counts(struct session *s, struct addrcounts **out, struct err *err);

/*
 * The file's SAMPLE_SUMS block (FORMAT.md 5.12) where it may stand for
 * reading its DATA blocks: a finished file that read clean so far, whose
 * last SAMPLE_SUMS block covers the file up to itself (CRC-32), its
 * records decode with the file's events, and each event is taken by fit()
 * (what the caller's view can read from sums). Then 1 and *out, the
 * file's events and metadata read into s (session_read_heads): hand its
 * records on with session_sums_replay instead of session_read, and free
 * it with session_sums_free. Else 0 and nothing read (session_read as
 * usual), or -ENOMEM with err. Call right after session_open.
 */
struct session_sums {
	struct samplesums ss;
	uint8_t *data;          /* the payload the items point into */
};
int session_sample_sums(struct session *s, bool (*fit)(const struct event_desc *ev),
			struct session_sums *out, struct err *err);
/* Its records handed on as session_read would hand on the file's, each
 * class's first sample to ops->sum with the class's count and period (as
 * session_read_sum does), the session's counts as session_read leaves
 * them. 0, or what ops returned. */
int session_sums_replay(struct session *s, const struct session_sums *ss,
			const struct session_sum_ops *ops, void *ctx);
void session_sums_free(struct session_sums *ss);

/* The file's size in bytes. */
uint64_t session_size(const struct session *s);
/* "perf.data" or "prec.data": the kind of file, as perf's messages name it. */
const char *session_kind_name(const struct session *s);

/* The event's display name (as recorded), or "unknown". */
const char *session_event_name(const struct session *s, int event);

#endif
