/* SPDX-License-Identifier: MIT */
/*
 * Decoding of the records the kernel writes into a perf ring buffer
 * (perf_event_open(2), "MMAP layout"), and of the PERF_RECORD_SAMPLE layouts
 * selected by attr.sample_type.
 *
 * Records are in host byte order, as the kernel wrote them. The container
 * refuses files of the other byte order before any record is decoded.
 *
 * Ownership: a decoded struct record points into the bytes it was decoded
 * from (file names, call chains, raw data, stack copies...); those pointers
 * are valid as long as the caller keeps the bytes. Array pointers are not
 * necessarily 8-byte aligned: read u64 elements with u64_at() (cursor.h).
 *
 * Which event a record belongs to: with one event, that event. With several,
 * through PERF_SAMPLE_IDENTIFIER (first u64 of a sample, last u64 of any other
 * record when sample_id_all is set); failing that, when every event has the
 * same sample_type with PERF_SAMPLE_ID, through the ID field at its computed
 * position. Otherwise the record cannot be attributed and decoding fails.
 *
 * Errors: a record whose size does not match its layout, or that claims more
 * bytes than it has, fails with -PREC_ETRUNC or -PREC_ECORRUPT and a message
 * naming the record type; nothing is ever read out of bounds. Unknown record
 * types (kernel types this code does not know, and user types >= 64) are not
 * errors: they decode as type-only records (rec->known == false).
 */
#ifndef PREC_FORMAT_RECORD_H
#define PREC_FORMAT_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <linux/perf_event.h>

#include "common/err.h"

/* What the decoder needs to know of an event: the attr fields that shape its
 * records. Filled from the perf_event_attr the kernel accepted. */
struct event_layout {
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t sample_regs_user;
	uint64_t sample_regs_intr;
	uint64_t branch_sample_type;
	bool sample_id_all;
};

/* Fill a layout from an attr of `size` bytes (attr->size may be smaller than
 * sizeof(struct perf_event_attr): missing fields read as 0). */
void event_layout_from_attr(struct event_layout *l, const void *attr, size_t size);

/* A set of events and the ids that point to them. Opaque. */
struct record_layouts;

struct record_layouts *record_layouts_new(void);
void record_layouts_free(struct record_layouts *ls);   /* NULL-tolerant */
/* Add an event; returns its index (>= 0) or a negative code. ids may be NULL
 * when nr_ids is 0. A duplicate id across events is -PREC_ECORRUPT, and so is
 * an event whose sample_id_all differs from the events already added (the
 * records could not be told apart from their trailers). */
int record_layouts_add(struct record_layouts *ls, const struct event_layout *l,
		       const uint64_t *ids, size_t nr_ids, struct err *err);
size_t record_layouts_count(const struct record_layouts *ls);
const struct event_layout *record_layouts_get(const struct record_layouts *ls, size_t idx);
/* Index of the event with this id, or -1. */
int record_layouts_find(const struct record_layouts *ls, uint64_t id);

/* The sample_id_all trailer of non-sample records, and the same fields of a
 * sample. `fields` holds the PERF_SAMPLE_* bits that were present. */
struct sample_id {
	uint64_t fields;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu, cpu_res;
	uint64_t identifier;
};

/* struct read_format, either form. Entries are `nr` groups of `stride` u64:
 * value, then id (PERF_FORMAT_ID), then lost (PERF_FORMAT_LOST). Without
 * PERF_FORMAT_GROUP the two time fields sit between value and id, as the
 * kernel writes them: read entries through the accessors below. */
struct read_values {
	uint64_t format;        /* the event's read_format */
	uint64_t nr;            /* 1 unless PERF_FORMAT_GROUP */
	uint64_t time_enabled;  /* 0 unless PERF_FORMAT_TOTAL_TIME_ENABLED */
	uint64_t time_running;  /* 0 unless PERF_FORMAT_TOTAL_TIME_RUNNING */
	unsigned stride;        /* u64 per entry: 1 + has id + has lost */
	const uint8_t *entries;
};

/* Entry i < nr; 0 when i is out of range. */
uint64_t read_values_value(const struct read_values *rv, size_t i);
uint64_t read_values_id(const struct read_values *rv, size_t i);   /* 0 without PERF_FORMAT_ID */
uint64_t read_values_lost(const struct read_values *rv, size_t i); /* 0 without PERF_FORMAT_LOST */

struct sample_regs {
	uint64_t abi;           /* enum perf_sample_regs_abi; NONE means no regs follow */
	uint64_t mask;          /* the event's sample_regs_user / _intr */
	unsigned nr;            /* popcount(mask) when abi != NONE, else 0 */
	const uint8_t *regs;    /* nr u64, in mask bit order */
};

struct sample {
	uint64_t type;          /* the event's sample_type: which fields are valid */
	uint64_t identifier;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu, cpu_res;
	uint64_t period;
	struct read_values read;
	uint64_t callchain_nr;
	const uint8_t *callchain;       /* callchain_nr u64 (PERF_CONTEXT_* markers included) */
	uint32_t raw_size;
	const uint8_t *raw;
	uint64_t branch_nr;
	bool branch_has_hw_idx;
	uint64_t branch_hw_idx;
	const uint8_t *branch_entries;  /* branch_nr entries of 3 u64: from, to, flags */
	struct sample_regs regs_user;
	uint64_t stack_size;
	const uint8_t *stack_data;      /* stack_size bytes */
	uint64_t stack_dyn_size;        /* present only when stack_size != 0 */
	uint64_t weight;                /* PERF_SAMPLE_WEIGHT, or the raw u64 of WEIGHT_STRUCT */
	uint32_t weight_var1_dw;        /* WEIGHT_STRUCT split (little-endian layout) */
	uint16_t weight_var2_w, weight_var3_w;
	uint64_t data_src;
	uint64_t transaction;
	struct sample_regs regs_intr;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	uint64_t aux_size;
	const uint8_t *aux;
};

struct record {
	uint32_t type;          /* header.type */
	uint16_t misc;
	uint16_t size;
	bool known;             /* false: a type this decoder does not know */
	int event;              /* index in record_layouts, or -1 when not attributable
				   (unknown types; records without a trailer when several
				   events exist) */
	const uint8_t *bytes;   /* the whole record, header included */
	struct sample_id sid;   /* the trailer (non-samples with sample_id_all) */
	union {
		struct sample sample;
		struct { uint32_t pid, tid; uint64_t addr, len, pgoff;
			 const char *filename; } mmap;
		struct { uint32_t pid, tid; uint64_t addr, len, pgoff;
			 bool has_build_id;       /* misc & PERF_RECORD_MISC_MMAP_BUILD_ID */
			 uint32_t maj, min; uint64_t ino, ino_generation;
			 uint8_t build_id_size; uint8_t build_id[20];
			 uint32_t prot, flags; const char *filename; } mmap2;
		struct { uint64_t id, lost; } lost;
		struct { uint32_t pid, tid; const char *comm; } comm;
		struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } task; /* FORK, EXIT */
		struct { uint64_t time, id, stream_id; } throttle;  /* THROTTLE, UNTHROTTLE */
		struct { uint32_t pid, tid; struct read_values values; } read;
		struct { uint64_t aux_offset, aux_size, flags; } aux;
		struct { uint32_t pid, tid; } itrace_start;
		struct { uint64_t lost; } lost_samples;
		struct { uint32_t next_prev_pid, next_prev_tid; } switch_cpu_wide; /* SWITCH: none */
		struct { uint32_t pid, tid; uint64_t nr; const uint8_t *entries; } namespaces; /* nr x {dev, inode} */
		struct { uint64_t addr; uint32_t len; uint16_t ksym_type, flags; const char *name; } ksymbol;
		struct { uint16_t type, flags; uint32_t id; uint8_t tag[8]; } bpf_event;
		struct { uint64_t id; const char *path; } cgroup;
		struct { uint64_t addr; uint16_t old_len, new_len; const uint8_t *bytes; } text_poke;
		struct { uint64_t hw_id; } aux_output_hw_id;
	} u;
};

/* Decode one record of exactly `len` bytes (header.size must equal len).
 * Strings (file names, comm) are checked to be NUL-terminated inside the
 * record. Returns 0 or a negative code with a message in err. */
int record_decode(const struct record_layouts *ls, const void *bytes, size_t len,
		  struct record *rec, struct err *err);

/* The record's time (PERF_SAMPLE_TIME of a sample, or of the sample_id
 * trailer) found without decoding the rest; 0 when it has none or cannot be
 * told (record_decode says why). In host byte order, like record_decode. */
uint64_t record_peek_time(const struct record_layouts *ls, const void *bytes, size_t len);

/* The event a SAMPLE of len bytes belongs to, as record_decode attributes
 * it, without decoding it: its index in ls, or -1 (not a SAMPLE, or not
 * attributable). */
int record_sample_event(const struct record_layouts *ls, const void *bytes, size_t len);
/* Where the SAMPLEs of event ev keep their time and period: offsets from
 * the record's start, 0 for a field they do not have. */
struct sample_offsets {
	uint16_t time, period;
};
void record_sample_offsets(const struct record_layouts *ls, int ev, struct sample_offsets *o);

/* What a reader that looks at nothing else takes of a SAMPLE (the fields
 * of its event's sample_type, 0 for the others; chain_nr 0 without a call
 * chain). */
struct sample_head {
	int event;
	uint64_t type;          /* the event's sample_type */
	uint64_t ip, time, period;
	uint32_t pid, tid, cpu;
	uint64_t chain_nr;
	const uint8_t *chain;   /* chain_nr u64, context markers included */
	bool stack;             /* it has a user stack copy (a non-empty one) */
};
/* A SAMPLE's head, read where its event's layout puts the fields,
 * without decoding the rest: 0 and *h, the same values record_decode
 * gives; -1 when it is not read so, because it is not a SAMPLE, cannot be
 * attributed, its event's samples have fields past PERIOD other than a
 * call chain (a stack copy, read values, raw data...) or it is not
 * exactly as long as its fields say (record_decode then says why, or
 * decodes the rest). */
int record_sample_head(const struct record_layouts *ls, const void *bytes, size_t len,
		       struct sample_head *h);

/* Where an event's sample heads keep their fields, when record_sample_head
 * reads them: for a reader of many (a walk over a recording of one event)
 * to read them inline, with sample_head_read. A field the samples do not
 * have lies at offset 0 (the record's header), masked away. */
struct sample_head_plan {
	uint64_t type;          /* the event's sample_type */
	uint32_t fixed;         /* the bytes before the call chain; the record's without one */
	bool chain;
	uint16_t ip_off, time_off, period_off, tid_off, cpu_off;
	uint64_t ip_mask, time_mask, period_mask, ids_mask;
	uint32_t cpu_mask;
};
/* The plan of every sample of a recording with one event, where
 * record_sample_head reads them: 0 and *hp, else -1. */
int record_sample_head_plan(const struct record_layouts *ls, struct sample_head_plan *hp);

/* The head's fields of a sample hp is the plan of, masked (a field the
 * samples do not have reads 0): no check of the record's length. */
struct sample_fields {
	uint64_t ip, time, period, ids;         /* ids: pid | tid << 32 */
	uint32_t cpu;
};

static inline void sample_fields_read(const struct sample_head_plan *hp, const uint8_t *p,
				      struct sample_fields *f)
{
	memcpy(&f->ip, p + hp->ip_off, 8);
	memcpy(&f->time, p + hp->time_off, 8);
	memcpy(&f->period, p + hp->period_off, 8);
	memcpy(&f->ids, p + hp->tid_off, 8);
	memcpy(&f->cpu, p + hp->cpu_off, 4);
	f->ip &= hp->ip_mask;
	f->time &= hp->time_mask;
	f->period &= hp->period_mask;
	f->ids &= hp->ids_mask;
	f->cpu &= hp->cpu_mask;
}

/* record_sample_head of a SAMPLE of the event (its index) hp is the plan
 * of: 0 and *h, or -1. */
static inline int sample_head_read(const struct sample_head_plan *hp, int event, const void *bytes,
				   size_t len, struct sample_head *h)
{
	const uint8_t *p = bytes;
	struct sample_fields f;
	uint64_t n = 0;
	uint16_t size;

	if (len < hp->fixed)
		return -1;
	memcpy(&size, p + 6, 2);
	if (size != len)
		return -1;
	if (hp->chain) {
		if (len - hp->fixed < 8)
			return -1;
		memcpy(&n, p + hp->fixed, 8);
		if (n != (len - hp->fixed - 8) / 8 || (len - hp->fixed) % 8)
			return -1;
	} else if (len != hp->fixed) {
		return -1;
	}
	sample_fields_read(hp, p, &f);
	*h = (struct sample_head){
		.event = event, .type = hp->type, .ip = f.ip, .time = f.time, .period = f.period,
		.pid = (uint32_t)f.ids, .tid = (uint32_t)(f.ids >> 32), .cpu = f.cpu,
		.chain_nr = n, .chain = n ? p + hp->fixed + 8 : NULL,
	};
	return 0;
}
/* The head of a SAMPLE record_decode decoded. */
void record_sample_head_of(const struct record *rec, struct sample_head *h);

/* Walk a buffer of back-to-back records: on success sets *rec_len to the size
 * of the record at `off` and returns 1; returns 0 at the end of the buffer;
 * fails with -PREC_ETRUNC / -PREC_ECORRUPT (header.size < 8, or past the end). */
int record_next(const void *buf, size_t len, size_t off, size_t *rec_len, struct err *err);

/* The name of a record type ("SAMPLE", "MMAP2", ...) or NULL if unknown. */
const char *record_type_name(uint32_t type);

#endif
