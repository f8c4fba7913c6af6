/* SPDX-License-Identifier: MIT */
/*
 * What a reading by sums of a perf.data handed on (session_sum.c), kept in
 * prep's cache folder, so that the next reading of the same file hands it
 * on again without walking the file: prep annotate and prep diff asked
 * twice of one perf.data (a symbol, then the next) walk it once.
 *
 * A kept file names the perf.data it was made from as perfdata_open found
 * it (device, inode, size, modification and change times: a file written
 * again, in place or anew, is another) and what the walk's key was (tag);
 * it holds the counts the walk gave the session and, in order, the
 * records handed on: each class's first sample with its count and period,
 * the other records as they are. A kept file that does not check (magic,
 * version, names, lengths, CRC-32 of its body) is not used: the file is
 * walked and the kept one written again.
 */
#ifndef PREC_REPORT_SUM_CACHE_H
#define PREC_REPORT_SUM_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A record handed on: a class's first sample (sum: with its class's count
 * and period), or another record. */
struct sum_out {
	const uint8_t *p;
	uint32_t len;
	bool sum;
	uint64_t count, period;
};

/* The perf.data and the walk's key a kept file is for. */
struct sum_cache_key {
	uint64_t dev, ino, size, mtime_ns, ctime_ns;
	uint32_t tag;
};

/* Smaller perf.data files are walked each time (in under a millisecond). */
#define SUM_CACHE_MIN_FILE (1u << 20)
/* Larger kept files are not written (samples that do not sum well). */
#define SUM_CACHE_MAX (64u << 20)

/* A kept file read back: the session's counts and the records to hand
 * on, their bytes in data. */
struct sum_cached {
	uint8_t *data;
	uint64_t samples, tmin, tmax;
	struct sum_out *v;
	size_t n;
};

/* The kept file of k in dir, when there is one that checks: 0 and *c (for
 * sum_cached_free), else -1. */
int sum_cache_load(const char *dir, const struct sum_cache_key *k, struct sum_cached *c);

/*
 * A kept file's bytes (host byte order; it is read where it was written):
 * a header of SUM_CACHE_HEADER_SIZE bytes,
 *	char[8] "prepsum1", u32 version, u32 tag,
 *	u64 dev, ino, size, mtime_ns, ctime_ns   (the perf.data's, as the key)
 *	u64 samples, tmin, tmax                  (the session's counts)
 *	u64 nr, body_len; u32 body_crc (CRC-32 of the body), u32 0
 * then the body: nr items, each u32 len, u32 sum (0 or 1), u64 count,
 * u64 period, then the record's len bytes (at least 8) and zeros to a
 * multiple of 8; nothing after the last.
 */
#define SUM_CACHE_HEADER_SIZE 104u
/* A kept file's bytes (malloc'ed; taken, freed on failure) decoded, when
 * they check and are of k: 0 and *c, its records pointing into file;
 * else -1. */
int sum_cache_decode(uint8_t *file, size_t len, const struct sum_cache_key *k,
		     struct sum_cached *c);
void sum_cached_free(struct sum_cached *c);

/* Keep what a walk handed on (v, n) with the session's counts, for k in
 * dir (made if missing), replacing the one kept for the same file before.
 * Best effort: a folder that cannot be written, a full disk, leave
 * nothing (and no partial file) behind, and say nothing. */
void sum_cache_store(const char *dir, const struct sum_cache_key *k, uint64_t samples,
		     uint64_t tmin, uint64_t tmax, const struct sum_out *v, size_t n);

#endif
