/* SPDX-License-Identifier: MIT */
/*
 * The prec.data container: a file header and checksummed, optionally
 * compressed blocks (format/FORMAT.md is the normative description).
 *
 * Writer: blocks are appended as they are produced; data spans from the ring
 * buffers accumulate in the current DATA block, which is compressed and
 * written when it is full, on container_writer_flush() and on close. A clean
 * close appends the INDEX block and patches the file header with its offset.
 *
 * Reader: walks the blocks forward, checking every length and CRC. Damage is
 * reported through the warn callback (one line per event, nothing printed by
 * the library itself) and counted in struct container_stats; the walk goes on
 * with the next good block. Only a file that cannot be a prec.data file at
 * all, or one this code must not read (newer major version, foreign byte
 * order), fails to open.
 */
#ifndef PREC_FORMAT_CONTAINER_H
#define PREC_FORMAT_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct record_layouts;

#define CONTAINER_MAGIC "\x89PREC\r\n\x1a"
#define CONTAINER_BLOCK_MAGIC "\xb1" "BLK"
#define CONTAINER_VERSION_MAJOR 1
#define CONTAINER_VERSION_MINOR 9
#define CONTAINER_HEADER_SIZE 64
#define CONTAINER_BLOCK_HEADER_SIZE 32
#define CONTAINER_MAX_RAW (64u << 20)
#define CONTAINER_MAX_STORED (CONTAINER_MAX_RAW + (64u << 10))
#define CONTAINER_DEFAULT_BLOCK (1u << 20)
#define CONTAINER_DEFAULT_QUEUE (64u << 20)
#define CONTAINER_DEFAULT_LEVEL 1
#define CONTAINER_MAX_LEVEL 12

enum container_kind {
	CONTAINER_KIND_SAMPLES = 1,
	CONTAINER_KIND_COUNTS = 2,
};

enum container_byte_order {
	CONTAINER_LITTLE_ENDIAN = 1,
	CONTAINER_BIG_ENDIAN = 2,
};

enum block_type {
	BLOCK_METADATA = 1,
	BLOCK_EVENT = 2,
	BLOCK_DATA = 3,
	BLOCK_BUILD_IDS = 4,
	BLOCK_COUNTS = 5,
	BLOCK_INDEX = 6,
	BLOCK_KALLSYMS = 7,
	BLOCK_SYMBOLS = 8,
	BLOCK_END = 9,          /* a stream's last block: it ended cleanly (1.3) */
	BLOCK_SOURCE = 10,      /* source lines around the hit lines (1.6) */
	BLOCK_ADDR_COUNTS = 11, /* samples per sampled address (1.7) */
	BLOCK_SAMPLE_SUMS = 12, /* the samples summed by class (1.9) */
	BLOCK_TYPE_MAX,
};

enum block_codec {
	CODEC_STORED = 0,
	CODEC_ZLIB = 1,
	CODEC_MAX,
};

#define BLOCK_FLAG_TRANSFORMED 0x01     /* FORMAT.md 6.3 */
#define BLOCK_FLAG_COLUMNS 0x02         /* FORMAT.md 6.4 (1.8) */
#define BLOCK_FLAGS_KNOWN (BLOCK_FLAG_TRANSFORMED | BLOCK_FLAG_COLUMNS)

/* Flags this version defines: at most one of the two encodings. */
static inline bool block_flags_known(uint8_t flags)
{
	return !(flags & ~BLOCK_FLAGS_KNOWN) && flags != BLOCK_FLAGS_KNOWN;
}

/* container_header.flags (FORMAT.md 2, since 1.3) */
#define CONTAINER_FLAG_STREAM 0x01      /* the stream form (FORMAT.md 7) */

struct container_header {
	uint16_t version_major, version_minor;
	uint8_t kind;
	uint8_t byte_order;
	uint64_t index_offset;
	uint64_t created_ns;
	uint32_t flags;                 /* CONTAINER_FLAG_* (since 1.3) */
};

/* Encode/decode the 64-byte file header (header CRC computed / checked). */
void container_header_encode(const struct container_header *h, uint8_t out[CONTAINER_HEADER_SIZE]);
int container_header_decode(const uint8_t *p, size_t len, struct container_header *h,
			    struct err *err);
/* The byte order of this machine, as enum container_byte_order. */
uint8_t container_host_byte_order(void);

const char *block_type_name(unsigned type);   /* "DATA", ... or NULL */

/* ---- writer ---------------------------------------------------------- */

struct container_writer_opts {
	uint8_t kind;                /* enum container_kind; 0 means SAMPLES */
	int level;                   /* deflate level for DATA blocks (0..12), 0 = stored;
					<0 = default */
	size_t block_size;           /* raw bytes per DATA block; 0 = default (1 MiB) */
	/* Optional: timestamp of a record (0 if it has none), used for the DATA
	 * blocks' time ranges. Called only when a block is written out. */
	uint64_t (*record_time)(void *ctx, const void *rec, size_t len);
	void *ctx;
	/* Optional: called for every record that is not a SAMPLE, as it is
	 * copied in (the recorder collects MMAP2 file names and build ids this
	 * way, without a second pass). The bytes are contiguous and valid only
	 * during the call. */
	void (*on_sideband)(void *ctx, const void *rec, size_t len);
	/* Optional: the events' layouts (format/record.h). With them, the writer
	 * clears, before compression, the bytes of each user-stack copy past its
	 * dyn_size: the kernel leaves them unwritten, so they hold whatever an
	 * older record left in the ring buffer, and cost more to store than the
	 * stack itself (FORMAT.md 5.3). */
	const struct record_layouts *layouts;
	/* Encode DATA blocks with the TRANSFORMED rewrite of FORMAT.md 6.3, as
	 * writers before 1.8 did, instead of in columns (6.4): for tests of the
	 * older encoding. */
	bool legacy_transform;
	/* Compress and write DATA blocks on a worker thread, so that the caller
	 * (the recorder's drain) only copies bytes. record_time is then called
	 * from that thread. Up to queue_bytes of full blocks (0 = default,
	 * 64 MiB; at least one block) wait for it; while 4 wait it compresses
	 * at level 1, past half of the queue it writes them stored, until it
	 * has caught up (writer.c). */
	bool background;
	size_t queue_bytes;
};

struct container_writer;
struct index_entry;

/* Create (truncate) path and write the file header. */
int container_writer_open(struct container_writer **out, const char *path,
			  const struct container_writer_opts *opts, struct err *err);
/* Append one whole block of `type` with the given raw payload. Non-DATA
 * blocks are zlib-compressed when that makes them smaller (level 6). Any
 * pending DATA block is written first, so blocks stay in call order. */
int container_write_block(struct container_writer *w, unsigned type,
			  const void *payload, size_t len, struct err *err);
/* Append records from ring buffer `cpu` (0xFFFFFFFF: synthesized) to the
 * current DATA block: the bytes p1[0..n1) followed by p2[0..n2) (the two
 * pieces of a wrapped ring buffer) must hold whole records. With
 * opts.background, a failure to write an earlier block is reported by the
 * first call of any writer function after the worker met it (the writer's
 * blocks wait in its queue meanwhile; a call that writes a block of its own
 * waits for them all).
 *
 * A failure to write the file stops the writer: the file is cut back to the
 * end of its last complete block (what a reader reads as a recording cut
 * short there), and every later call returns the same error. */
int container_write_records(struct container_writer *w, uint32_t cpu,
			    const void *p1, size_t n1, const void *p2, size_t n2,
			    struct err *err);
/* Mark the end of one drain pass (a ROUND_END span). */
int container_write_round(struct container_writer *w, struct err *err);
/* Write out the pending DATA block, if any. With opts.background the block
 * is queued for the worker (waiting only while the queue is full); the
 * worker writes the queue in order, at once unless it is kept from the CPU. */
int container_writer_flush(struct container_writer *w, struct err *err);
/* Flush, write the INDEX, patch the header, close and free. The writer is
 * freed even when this fails. */
int container_writer_close(struct container_writer *w, struct err *err);
/* Flush, then the CRC-32 of the file's bytes from offset 64 (its first
 * block) to where the next block goes (*end): what an ADDR_COUNTS block
 * written next covers (FORMAT.md 5.11). The file is read back. 0, or a
 * negative code with err set. */
int container_writer_crc(struct container_writer *w, uint64_t *end, uint32_t *crc,
			 struct err *err);
/* Reopen a cleanly finished file to add blocks after its last one (its
 * index is rewritten on close). Blocks of type `replace` (0: none) that end
 * the file are dropped first, then one block of type `replace_before` (0:
 * none) if it is the last one left, then one of type `replace_before2`
 * likewise; elsewhere blocks of type `replace` make this fail. The file's
 * minor version is raised to this writer's. */
int container_writer_append(struct container_writer **out, const char *path,
			    const struct container_writer_opts *opts, unsigned replace,
			    unsigned replace_before, unsigned replace_before2, struct err *err);
/* Reopen path to add blocks after its first `cut` bytes, which hold the
 * blocks e[0..n) (its index so far, in file order; taken over and freed by
 * the writer, even on failure), under the file header h. The file is cut
 * there at once (nothing is changed when it cannot be opened for writing);
 * close writes the new index and header. */
int container_writer_resume(struct container_writer **out, const char *path,
			    const struct container_writer_opts *opts,
			    const struct container_header *h, struct index_entry *e, size_t n,
			    uint64_t cut, struct err *err);
/* Set opts.layouts once the events are known (before records arrive). */
void container_writer_set_layouts(struct container_writer *w, const struct record_layouts *ls);
/* Close the file as it is, without index: what a crash would leave (tests). */
void container_writer_abort(struct container_writer *w);

struct container_writer_stats {
	uint64_t blocks;
	uint64_t raw_bytes;     /* payload bytes before compression */
	uint64_t file_bytes;    /* bytes written to the file */
	uint64_t records;       /* records in the DATA blocks written */
	uint64_t samples;       /* SAMPLE records in the DATA blocks written */
	uint64_t time_min;      /* their time range, through opts.record_time */
	uint64_t time_max;      /* (0: unknown) */
	uint64_t by_type[32];   /* records taken, by header.type (< 32) */
	uint64_t lost_samples;  /* sum of LOST.lost and LOST_SAMPLES.lost */
	/* CPU time (thread clocks) spent on DATA blocks: the transform
	 * (FORMAT.md 6.3), the codec, and the whole background thread */
	uint64_t cpu_transform_ns, cpu_compress_ns, cpu_worker_ns;
	/* opts.background: most blocks waiting for the worker at once, times
	 * the caller waited for the queue to have room; DATA blocks written
	 * stored because more than half of the queue waited, and at level 1
	 * (below opts.level) because 4 or more did */
	uint64_t queue_peak, queue_waits, blocks_stored_behind, blocks_eased;
	int error;              /* the failure that stopped the writer, 0 if none */
};
/* Waits for the background thread, if any, to finish its block. */
void container_writer_get_stats(struct container_writer *w, struct container_writer_stats *st);

/* ---- repair ---------------------------------------------------------- */

struct container_repair_stats {
	bool repaired;          /* it did not finish: final metadata and index added */
	bool stream;            /* it was a saved stream: now a file */
	uint64_t blocks;        /* blocks kept (and indexed) */
	uint64_t bytes_cut;     /* bytes cut off its end (an incomplete block, an END block) */
	uint64_t file_size;     /* its size before */
	uint64_t samples;       /* SAMPLE records in its DATA blocks */
};

/* Make path a cleanly finished file (FORMAT.md 8) when it is not one: a
 * file whose recording did not finish, or a saved stream. Its good blocks
 * are kept in place, what follows the last of them (an incomplete block,
 * an END block) is cut off, and for an unfinished one a METADATA block with
 * the counts a clean close writes and the `repaired` tag is added; then the
 * INDEX, and the header is rewritten (STREAM cleared). A file that finished
 * cleanly is left as it is (st->blocks 0). level: as in
 * container_writer_opts. 0, or a negative code with err set; the file is
 * untouched when it cannot be read or written. */
int container_repair(const char *path, int level, struct container_repair_stats *st,
		     struct err *err);

/* ---- stream ---------------------------------------------------------- */

/* The stream form (FORMAT.md 7) of a file that a container_writer writes:
 * its blocks are copied, each once the file holds all of it, to out_fd,
 * which is only ever written forward (a pipe, stdout: no seek, no patch).
 * The stream starts with the file's header marked STREAM, leaves out the
 * INDEX (blocks that container_writer_append() puts in its place follow),
 * and ends with an END block. file_fd is read with pread only; neither fd
 * is closed. Not thread-safe: one caller at a time. */
struct container_stream;

int container_stream_new(struct container_stream **out, int file_fd, int out_fd,
			 struct err *err);
/* Copy the blocks completed in the file since the last call. 0, or a
 * negative code with err set (a write error). */
int container_stream_pump(struct container_stream *cs, struct err *err);
/* The file is complete: copy the rest and end the stream cleanly. */
int container_stream_end(struct container_stream *cs, struct err *err);
uint64_t container_stream_bytes(const struct container_stream *cs);   /* written so far */
void container_stream_free(struct container_stream *cs);              /* NULL-tolerant */

/* ---- reader ---------------------------------------------------------- */

enum container_problem_kind {
	PROBLEM_UNFINISHED = 1,     /* no index: the recording did not finish */
	PROBLEM_BAD_INDEX,          /* index_offset does not point to an INDEX block */
	PROBLEM_CORRUPT_HEADER,     /* block header unusable; a resync follows */
	PROBLEM_RESYNC,             /* found the next valid block after damage */
	PROBLEM_CORRUPT_PAYLOAD,    /* codec, length or CRC failure: block skipped */
	PROBLEM_CORRUPT_STRUCTURE,  /* payload inconsistent with its type: skipped */
	PROBLEM_SKIPPED,            /* unknown type, codec or flags: skipped */
	PROBLEM_TRUNCATED,          /* the file ends inside a block: tail ignored */
	PROBLEM_SEQ_GAP,            /* a block sequence number is missing */
};

enum container_skip_reason {
	SKIP_UNKNOWN_CODEC = 1,
	SKIP_TRANSFORMED,
	SKIP_UNKNOWN_FLAGS,
	SKIP_UNKNOWN_TYPE,
	SKIP_COLUMNS,               /* COLUMNS on a block that is not DATA (1.8) */
};

struct container_problem {
	enum container_problem_kind kind;
	uint64_t offset;            /* the block (or damage) it is about */
	uint64_t bytes;             /* RESYNC: bytes skipped; TRUNCATED: bytes ignored */
	int reason;                 /* SKIPPED: enum container_skip_reason */
	const char *msg;            /* one line naming the offset, for users */
};

struct container_reader_opts {
	/* Called once per problem found, in file order. */
	void (*warn)(void *ctx, const struct container_problem *p);
	void *ctx;
	/* The walk (container_reader_next) leaves user-stack copies of COLUMNS
	 * blocks lazy (stack_lazy.h); block_at never does. */
	bool lazy_stacks;
};

struct container_block {
	uint64_t offset;        /* file offset of the block header */
	uint16_t type;
	uint8_t codec;
	uint8_t flags;
	uint32_t seq;
	const uint8_t *data;    /* decoded payload; valid until the next
				   container_reader_next() or close (or
				   container_reader_release when held) */
	size_t len;
	uint32_t stored_len;    /* payload bytes in the file, after the header */
	/* the offsets in data of the records whose stack copy is lazy
	 * (stack_lazy.h), ascending; none unless the reader leaves them so */
	const uint32_t *marks;
	size_t nr_marks;
};

struct container_stats {
	uint64_t blocks;            /* good blocks returned */
	uint64_t corrupt_blocks;    /* blocks skipped as corrupt */
	uint64_t skipped_blocks;    /* unknown type / codec / flags */
	uint64_t bytes_skipped;     /* bytes passed over while resynchronising */
	uint64_t bytes_ignored;     /* incomplete tail of a cut-short file */
	bool finished;              /* clean close: a file's valid index, or the
				       END block that ends a stream */
	bool truncated;             /* the last block was incomplete */
};

struct container_reader;

int container_reader_open(struct container_reader **out, const char *path,
			  const struct container_reader_opts *opts, struct err *err);
/* Read from memory; the bytes are borrowed and must outlive the reader. */
int container_reader_open_mem(struct container_reader **out, const void *data, size_t len,
			      const struct container_reader_opts *opts, struct err *err);
/* Next good block: 1 and *b filled; 0 at the end; negative only for
 * failures that stop reading (out of memory). Damage is warned, counted and
 * skipped. */
int container_reader_next(struct container_reader *r, struct container_block *b,
			  struct err *err);
/* The one block at offset (a block header), without moving the walk and
 * without warnings: 1 and *b filled (valid until the next read), 0 when no
 * good block is there, negative for out of memory. */
int container_reader_block_at(struct container_reader *r, uint64_t offset,
			      struct container_block *b, struct err *err);
/* The same, without checking the payload's structure (section 5; its CRC
 * is checked): for a caller that decodes it at once with the same checks,
 * and takes a failure to decode as a damaged block. */
int container_reader_payload_at(struct container_reader *r, uint64_t offset,
				struct container_block *b, struct err *err);
/* The payload of the block at offset decoded into out, its CRC checked and
 * its structure not (as container_reader_payload_at), for decoding blocks
 * on several threads at once: the reader itself is only read. 1 and *type,
 * 0 when no good block is there (and for a TRANSFORMED or COLUMNS one: the
 * DATA encodings, which this does not undo), -ENOMEM. */
struct buf;
int container_reader_payload_into(const struct container_reader *r, uint64_t offset,
				  struct buf *out, uint16_t *type);
/* The entries of the file's index (format/blocks.h; the caller frees *out):
 * 1 when the file finished cleanly and its index is good, else 0. */
struct index_entry;
int container_reader_index(struct container_reader *r, struct index_entry **out, size_t *n,
			   struct err *err);
/* Decode the blocks ahead of the walk on threads of their own while the
 * caller works on the one it has (several cores for one file; a few blocks
 * ahead, within a bound on their bytes). Blocks come in the same order
 * with the same checks, and the warn callback is called from the caller's
 * thread, in file order, as the walk gets to what it is about. Call from
 * the thread that calls container_reader_next, before the walk. 0 or a
 * negative errno. */
int container_reader_readahead(struct container_reader *r);
/* Keep the block container_reader_next returned last: its data stays valid
 * after the next calls, until container_reader_release(r, handle) (a
 * reader of records that wait past their block for the time order leaves
 * them there). 1 and *handle, or 0 when it cannot be kept (no readahead,
 * or as many blocks kept as the reader allows): its data is then valid
 * until the next call only. Both from the walk's thread. */
int container_reader_hold(struct container_reader *r, uint64_t *handle);
void container_reader_release(struct container_reader *r, uint64_t handle);
/* Restart the walk at the first block. */
void container_reader_rewind(struct container_reader *r);
const struct container_header *container_reader_header(const struct container_reader *r);
const struct container_stats *container_reader_stats(const struct container_reader *r);
uint64_t container_reader_size(const struct container_reader *r);
/* The CRC-32 of the file's bytes [from, to) (FORMAT.md 5.11's covered_crc
 * over [64, covered_end)): 0, or -EINVAL when they are not all there. */
int container_reader_crc(const struct container_reader *r, uint64_t from, uint64_t to,
			 uint32_t *crc);
void container_reader_close(struct container_reader *r);   /* NULL-tolerant */

#endif
