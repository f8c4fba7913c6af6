/* SPDX-License-Identifier: MIT */
/* Internal to format/perfdata*.c: the importer's state, shared by the
 * header and attr reader (perfdata.c), the feature decoders
 * (perfdata_feat.c) and the data walk (perfdata_walk.c). */
#ifndef PREC_FORMAT_PERFDATA_INT_H
#define PREC_FORMAT_PERFDATA_INT_H

#include "common/buf.h"
#include "perfdata.h"

#define PD_FILE_HEADER_SIZE 104u
#define PD_FILE_HEADER_OLD 72u          /* before the feature bitmap */
#define PD_PIPE_HEADER_SIZE 16u
#define PD_ATTR_SIZE_VER0 64u
#define PD_MISC_BUILD_ID_SIZE (1u << 15)

struct perfdata {
	const uint8_t *base;
	size_t size;
	bool mapped;
	struct perfdata_opts opts;
	struct perfdata_info info;
	struct event_desc *events;
	size_t nr_events;
	struct metadata meta;
	struct build_id_entry *bids;
	size_t nr_bids;
	const uint8_t *feat_p[PERFDATA_FEAT_MAX];
	size_t feat_len[PERFDATA_FEAT_MAX];
	uint64_t feat_off[PERFDATA_FEAT_MAX];
	/* the walk */
	uint64_t data_start, data_end, pos;
	uint64_t dropped;       /* the mapping's pages before this are given back */
	bool ended;
	struct perfdata_stats stats;
	/* decompression: dbuf holds [0, dend) whole records, handed out from
	 * dpos, then the start of a record that the next COMPRESSED record
	 * completes */
	void *zd;
	struct buf dbuf;
	size_t dpos, dend;
	bool dactive, zbroken;
	uint64_t doff;
};

void pd_problem(struct perfdata *pd, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The record at pos, before end: 1 with its type, header size and the bytes
 * it takes in all (*total: AUXTRACE and HEADER_TRACING_DATA are followed by
 * payload their size does not count), 0 at end, -PREC_ETRUNC or
 * -PREC_ECORRUPT with the reason in err. */
int pd_record_at(const struct perfdata *pd, uint64_t pos, uint64_t end, uint32_t *type,
		 uint16_t *size, uint64_t *total, struct err *err);

/* Decode a feature's bytes into the metadata, info, build ids or event
 * names. Damage is warned about (the feature is ignored); 0 or -ENOMEM. */
int pd_feature_apply(struct perfdata *pd, unsigned feat, const uint8_t *p, size_t len,
		     uint64_t off);
/* build_id_event entries back to back (the BUILD_ID feature, or one
 * HEADER_BUILD_ID record): 0 or -ENOMEM; damage is warned about. */
int pd_build_ids_add(struct perfdata *pd, const uint8_t *p, size_t len, uint64_t off);
/* The name perf gives an event without one in the file. */
char *pd_default_name(const struct perf_event_attr *a);

void pd_walk_free(struct perfdata *pd);

#endif
