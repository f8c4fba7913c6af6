/* SPDX-License-Identifier: MIT */
/*
 * The samples of a reading summed by class, for a file's SAMPLE_SUMS block
 * (format/samplesums.h, FORMAT.md 5.12): fed every record the reading
 * hands on, in its order (the session's raw hook), it keeps the records
 * that are not samples as they are and puts each sample into a class: the
 * samples whose bytes are the same but for their time and period, with no
 * other record between them (load_memo.c's rule: nothing that changes
 * threads, maps or commands), have the same outcome in any view whose
 * outcome depends on nothing else. A class is kept as its first sample,
 * at its place, with its count and the sum of its periods.
 *
 * A reading that it cannot stand for (read values, user stack copies,
 * off-CPU samples, records that are not whole words, more classes than
 * SUMS_MAX_CLASSES) makes it give up: it then gives nothing. So does one
 * whose payload grows past SUMS_MAX_BYTES, or past SUMS_EARLY_BYTES with
 * more than one item for every 4 samples (a block is written only at one
 * in SUMS_MIN_RATIO or fewer): the memory it holds stays small where
 * samples do not repeat.
 */
#ifndef PREC_REPORT_SUMS_BUILD_H
#define PREC_REPORT_SUMS_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "session.h"

#define SUMS_MAX_CLASSES (1u << 20)
#define SUMS_MAX_BYTES (32u << 20)
/* Worth a block: at least this many samples for each item (a report reads
 * that many times fewer records; the block, ~20 bytes an item deflated,
 * adds a few per cent to a file of ~3 bytes a sample) */
#define SUMS_MIN_RATIO 16
/* ... nor more than the file's bytes it covers, unless under this (the
 * writer's rule, report/symbols/embed.c) */
#define SUMS_SMALL_BYTES (64u << 10)
#define SUMS_EARLY_BYTES (4u << 20)

struct sums_build;

/* May the samples of event e be summed (and a reading take them summed)?
 * Not with read values (a leader's sample stands for its members'), a
 * user stack copy (unwound, never alike) or as the off-CPU event of a
 * prec --off-cpu recording (its samples are held for their switch-in). */
bool sums_event_fit(const struct event_desc *e);

struct sums_build *sums_build_new(void);
void sums_build_free(struct sums_build *b);
/* One record of s in the order the reading hands them on: a sample's
 * class (>= 0), or -1 (another record, or given up). */
int sums_build_record(struct sums_build *b, const struct session *s, const uint8_t *p,
		      uint32_t len);
/* One more sample of class cls (that sums_build_record gave a sample of
 * the same bytes but time and period, with no other record since), of
 * this PERIOD (0 when its event's samples carry none): what the reading's
 * memo (load_memo.c) knows without looking the sample up again. */
void sums_build_again(struct sums_build *b, uint32_t cls, uint64_t period);
/* Once the reading is over: the block's payload for s (its covered_end
 * and covered_crc left 0, for the writer to fill: samplesums_cover) when
 * the sums stand for the reading and are worth keeping (at most one item
 * for every SUMS_MIN_RATIO samples): 1 and *payload (the builder's; valid
 * until it is freed), else 0. */
int sums_build_payload(struct sums_build *b, const struct session *s, struct buf **payload);

#endif
