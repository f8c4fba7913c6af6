/* SPDX-License-Identifier: MIT */
/*
 * User-stack copies left as deltas by the COLUMNS decoder ("lazy" copies).
 *
 * Rebuilding every stack copy of a DATA block (8 KiB each by default, a
 * memcpy from the thread's previous copy plus the few 8-byte units that
 * changed) is most of the cost of reading a --call-graph dwarf recording,
 * though the reader of the records looks at a few units of each. A walk
 * that asks for it (container_reader_opts.lazy_stacks) gets such a copy as
 * a descriptor written in the copy's own bytes, and the records that hold
 * one marked (container_block.marks): the copy's size, dyn_size and every
 * other field are as they were. Whoever hands the marked samples on, in
 * time order, rebuilds each copy in place in one window per chain
 * (stack_chains_take): a chain is the copies of one thread in one block,
 * and within it each copy is the previous one moved by the change of the
 * stack pointer, with its changed units XORed in (as FORMAT.md 6.4 stores
 * them), or, where a chain starts, the copy's non-zero units.
 *
 * A chain's copies are handed on in the order they were decoded whenever
 * their times do not go back; where they do (or a sample was dropped
 * before it was taken) the chain cannot give the copy (seq is not the one
 * it expects): the caller then decodes the block again whole
 * (container_reader_block_at) and gives the chain that copy's bytes
 * (stack_chains_set), from which it goes on. A copy whose descriptor would
 * not fit in its own bytes (nearly every unit changed) is rebuilt whole by
 * the decoder as before, and ends its chain.
 *
 * In memory only: nothing of this is ever written to a file.
 */
#ifndef PREC_FORMAT_STACK_LAZY_H
#define PREC_FORMAT_STACK_LAZY_H

#include <stddef.h>
#include <stdint.h>

/* The descriptor, in host byte order, at the start of the copy's bytes:
 * chain u64, block u64 (the file offset of the block), sp u64, rec u32 (the
 * record's offset in the block's payload), seq u32 (in the chain), nr u32,
 * flags u16, 0 u16; then nr runs of units, each its first unit u16, its
 * number of units u16 and their 8-byte XOR values (a copy's last unit may
 * be short: its first bytes count). */
#define LAZY_HEAD_SIZE 40
#define LAZY_RUN_HEAD 4
#define LAZY_FULL 1u            /* the units are the copy's own (a chain starts) */
#define LAZY_LAST 2u            /* the chain's last copy */

struct lazy_desc {
	uint64_t chain, block, sp;
	uint32_t rec, seq, nr;
	uint16_t flags;
	const uint8_t *runs, *end;
};

/* The descriptor in a copy of size bytes: 0, or -1 when it does not fit. */
int lazy_desc_read(const uint8_t *p, uint64_t size, struct lazy_desc *d);

/* The decoder's side: d's head written at p (its runs, d->nr of them, put
 * there by lazy_runs_put); the descriptor at p made its chain's last; the
 * n units (ascending indexes, their 8-byte values at x) as runs after the
 * head in a copy of size bytes: how many runs, or -1 when they do not fit. */
void lazy_desc_write(uint8_t *p, const struct lazy_desc *d);
void lazy_desc_set_last(uint8_t *p);
long lazy_runs_put(uint8_t *p, uint64_t size, const uint16_t *units, const uint8_t *x, size_t n);

/* XOR d's units into copy (size bytes): 0, or -1 for runs that do not fit. */
int lazy_desc_apply(const struct lazy_desc *d, uint8_t *copy, uint64_t size);

/* A window of bytes in which a chain's copies are rebuilt in place: the
 * current copy is buf[off, off + len). */
struct stack_win {
	uint8_t *buf;
	size_t cap, off, len;
	uint64_t sp;
};

/* Make the current copy the one of size bytes at sp: the bytes the
 * previous copy had at the same addresses stay, the others are zero (as
 * the decoder's rebuilding from the previous copy does). 0 or -ENOMEM. */
int stack_win_move(struct stack_win *w, uint64_t sp, size_t size);
void stack_win_free(struct stack_win *w);

static inline uint8_t *stack_win_data(const struct stack_win *w)
{
	return w->buf + w->off;
}

/* The chains being rebuilt, for one reader of the records. */
struct stack_chains;

struct stack_chains *stack_chains_new(void);
void stack_chains_free(struct stack_chains *c);         /* NULL-tolerant */

/* The bytes of the copy whose descriptor is at desc (size bytes): 0 and
 * *data (valid until the next call), 1 when its chain cannot give them
 * (see above), -1 for a descriptor that does not read, or -ENOMEM. */
int stack_chains_take(struct stack_chains *c, const uint8_t *desc, uint64_t size,
		      const uint8_t **data);

/* The chain of the descriptor at desc set from bytes, the copy decoded
 * whole (size bytes): 0 and *data as above, -1, or -ENOMEM. */
int stack_chains_set(struct stack_chains *c, const uint8_t *desc, const uint8_t *bytes,
		     uint64_t size, const uint8_t **data);

#endif
