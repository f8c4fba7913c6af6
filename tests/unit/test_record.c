/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of format/record.c and format/sample.c: every record type and
 * every sample_type bit decoded from hand-built bytes, attribution to events,
 * and records whose size is wrong. Every decode runs on an exactly-sized heap
 * copy of the record so that AddressSanitizer sees any read past its end.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/cursor.h"
#include "format/record.h"

/* ---- a record builder -------------------------------------------------- */

struct rb {
	uint8_t b[8192];
	size_t len, start;
};

static void put(struct rb *r, const void *p, size_t n)
{
	assert_true(r->len + n <= sizeof(r->b));
	memcpy(r->b + r->len, p, n);
	r->len += n;
}

static void p16(struct rb *r, uint16_t v) { put(r, &v, 2); }
static void p32(struct rb *r, uint32_t v) { put(r, &v, 4); }
static void p64(struct rb *r, uint64_t v) { put(r, &v, 8); }

/* s and its NUL, zero-padded to a multiple of 8 as the kernel does */
static void pstr(struct rb *r, const char *s)
{
	size_t n = strlen(s) + 1;

	put(r, s, n);
	while (n++ % 8)
		put(r, "", 1);
}

static void begin(struct rb *r, uint32_t type, uint16_t misc)
{
	r->start = r->len;
	p32(r, type);
	p16(r, misc);
	p16(r, 0);
}

/* patch header.size; returns it */
static size_t end(struct rb *r)
{
	uint16_t size = (uint16_t)(r->len - r->start);

	memcpy(r->b + r->start + 6, &size, 2);
	return size;
}

/* The trailer values every test uses. */
#define SID_PID		10
#define SID_TID		11
#define SID_TIME	1000
#define SID_ID		42
#define SID_STREAM	43
#define SID_CPU		2

static void put_sid(struct rb *r, const struct event_layout *l, uint64_t id)
{
	uint64_t st = l->sample_type;

	if (!l->sample_id_all)
		return;
	if (st & PERF_SAMPLE_TID) {
		p32(r, SID_PID);
		p32(r, SID_TID);
	}
	if (st & PERF_SAMPLE_TIME)
		p64(r, SID_TIME);
	if (st & PERF_SAMPLE_ID)
		p64(r, id);
	if (st & PERF_SAMPLE_STREAM_ID)
		p64(r, SID_STREAM);
	if (st & PERF_SAMPLE_CPU) {
		p32(r, SID_CPU);
		p32(r, 0);
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		p64(r, id);
}

static void check_sid(const struct record *rec, const struct event_layout *l, uint64_t id)
{
	const uint64_t bits = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
		PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
	uint64_t st = l->sample_id_all ? l->sample_type : 0;

	assert_int_equal(rec->sid.fields, st & bits);
	assert_int_equal(rec->sid.pid, st & PERF_SAMPLE_TID ? SID_PID : 0);
	assert_int_equal(rec->sid.tid, st & PERF_SAMPLE_TID ? SID_TID : 0);
	assert_int_equal(rec->sid.time, st & PERF_SAMPLE_TIME ? SID_TIME : 0);
	assert_int_equal(rec->sid.id, st & PERF_SAMPLE_ID ? id : 0);
	assert_int_equal(rec->sid.stream_id, st & PERF_SAMPLE_STREAM_ID ? SID_STREAM : 0);
	assert_int_equal(rec->sid.cpu, st & PERF_SAMPLE_CPU ? SID_CPU : 0);
	assert_int_equal(rec->sid.identifier, st & PERF_SAMPLE_IDENTIFIER ? id : 0);
}

/* ---- decoding from exact heap copies ----------------------------------- */

static uint8_t *copy;   /* the bytes the last decoded record points into */

static int decode_bytes(const struct record_layouts *ls, const void *p, size_t len,
			struct record *rec, struct err *err)
{
	free(copy);
	copy = malloc(len ? len : 1);
	assert_non_null(copy);
	memcpy(copy, p, len);
	memset(err, 0, sizeof(*err));
	return record_decode(ls, copy, len, rec, err);
}

/* decode the last record built in r */
static int decode(const struct record_layouts *ls, const struct rb *r,
		  struct record *rec, struct err *err)
{
	return decode_bytes(ls, r->b + r->start, r->len - r->start, rec, err);
}

static int teardown_all(void **state)
{
	(void)state;
	free(copy);
	copy = NULL;
	return 0;
}

static struct record_layouts *layouts_of(const struct event_layout *l, size_t n,
					 uint64_t first_id)
{
	struct record_layouts *ls = record_layouts_new();
	struct err err;

	assert_non_null(ls);
	for (size_t i = 0; i < n; i++) {
		uint64_t id = first_id + i;

		assert_int_equal(record_layouts_add(ls, &l[i], &id, 1, &err), (int)i);
	}
	return ls;
}

static void assert_err(int ret, int code, const struct err *err, const char *msg)
{
	assert_int_equal(ret, code);
	assert_int_equal(err->code, code);
	if (msg)
		assert_string_equal(err->msg, msg);
}

static void assert_prefix_of(const char *s, const char *prefix)
{
	if (strncmp(s, prefix, strlen(prefix)))
		fail_msg("'%s' does not start with '%s'", s, prefix);
}

static void assert_prefix(const struct err *err, const char *prefix)
{
	assert_prefix_of(err->msg, prefix);
}


/* ---- samples: one generator and one checker for every field ------------ */

#define V_IP		0x401000ULL
#define V_PID		100
#define V_TID		101
#define V_TIME		123456789ULL
#define V_ADDR		0xdead0000ULL
#define V_ID		77
#define V_STREAM	78
#define V_CPU		3
#define V_PERIOD	4000
#define V_WEIGHT	0x0004000300000002ULL   /* var3 4, var2 3, var1 2 */
#define V_DATA_SRC	0x55
#define V_TXN		0x66
#define V_PHYS		0x77000ULL
#define V_CGROUP	0x88
#define V_DPAGE		4096
#define V_CPAGE		(2u << 20)
#define RD_NR		2       /* group size */

/* read_format values: entry i is {1000 + i, id 500 + i, lost 3 + i} */
static void put_read(struct rb *r, uint64_t fmt)
{
	bool group = fmt & PERF_FORMAT_GROUP;
	size_t n = group ? RD_NR : 1;

	if (group)
		p64(r, RD_NR);
	else
		p64(r, 1000);
	if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
		p64(r, 900);
	if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
		p64(r, 800);
	for (size_t i = 0; i < n; i++) {
		if (group)
			p64(r, 1000 + i);
		if (fmt & PERF_FORMAT_ID)
			p64(r, 500 + i);
		if (fmt & PERF_FORMAT_LOST)
			p64(r, 3 + i);
	}
}

static void check_read(const struct read_values *rv, uint64_t fmt)
{
	size_t n = fmt & PERF_FORMAT_GROUP ? RD_NR : 1;

	assert_int_equal(rv->format, fmt);
	assert_int_equal(rv->nr, n);
	assert_int_equal(rv->time_enabled, fmt & PERF_FORMAT_TOTAL_TIME_ENABLED ? 900 : 0);
	assert_int_equal(rv->time_running, fmt & PERF_FORMAT_TOTAL_TIME_RUNNING ? 800 : 0);
	assert_int_equal(rv->stride, 1 + !!(fmt & PERF_FORMAT_ID) + !!(fmt & PERF_FORMAT_LOST));
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(read_values_value(rv, i), 1000 + i);
		assert_int_equal(read_values_id(rv, i), fmt & PERF_FORMAT_ID ? 500 + i : 0);
		assert_int_equal(read_values_lost(rv, i), fmt & PERF_FORMAT_LOST ? 3 + i : 0);
	}
	assert_int_equal(read_values_value(rv, n), 0);   /* out of range */
}

static void put_regs(struct rb *r, uint64_t mask, uint64_t base)
{
	p64(r, PERF_SAMPLE_REGS_ABI_64);
	for (int i = 0; i < __builtin_popcountll(mask); i++)
		p64(r, base + (uint64_t)i);
}

static void check_regs(const struct sample_regs *g, bool on, uint64_t mask, uint64_t base)
{
	unsigned nr = on ? (unsigned)__builtin_popcountll(mask) : 0;

	assert_int_equal(g->abi, on ? PERF_SAMPLE_REGS_ABI_64 : 0);
	assert_int_equal(g->mask, on ? mask : 0);
	assert_int_equal(g->nr, nr);
	for (unsigned i = 0; i < nr; i++)
		assert_int_equal(u64_at(g->regs, i), base + i);
}

/* A sample of layout l in kernel field order, id as IDENTIFIER and ID. */
static void put_sample(struct rb *r, const struct event_layout *l, uint64_t id)
{
	uint64_t st = l->sample_type;

	begin(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	if (st & PERF_SAMPLE_IDENTIFIER) p64(r, id);
	if (st & PERF_SAMPLE_IP) p64(r, V_IP);
	if (st & PERF_SAMPLE_TID) { p32(r, V_PID); p32(r, V_TID); }
	if (st & PERF_SAMPLE_TIME) p64(r, V_TIME);
	if (st & PERF_SAMPLE_ADDR) p64(r, V_ADDR);
	if (st & PERF_SAMPLE_ID) p64(r, id);
	if (st & PERF_SAMPLE_STREAM_ID) p64(r, V_STREAM);
	if (st & PERF_SAMPLE_CPU) { p32(r, V_CPU); p32(r, 0); }
	if (st & PERF_SAMPLE_PERIOD) p64(r, V_PERIOD);
	if (st & PERF_SAMPLE_READ) put_read(r, l->read_format);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		p64(r, 3);
		p64(r, PERF_CONTEXT_USER);
		p64(r, V_IP);
		p64(r, V_IP + 0x100);
	}
	if (st & PERF_SAMPLE_RAW) {     /* 4 + 12: the u32 and data end 8-aligned */
		p32(r, 12);
		put(r, "raw-payload", 12);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		p64(r, 2);
		if (l->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			p64(r, 9);
		for (uint64_t i = 0; i < 6; i++)
			p64(r, 0x500 + i);
	}
	if (st & PERF_SAMPLE_REGS_USER) put_regs(r, l->sample_regs_user, 10);
	if (st & PERF_SAMPLE_STACK_USER) {
		p64(r, 16);
		put(r, "stack-bytes-16!!", 16);
		p64(r, 12);
	}
	if (st & PERF_SAMPLE_WEIGHT_TYPE) p64(r, V_WEIGHT);
	if (st & PERF_SAMPLE_DATA_SRC) p64(r, V_DATA_SRC);
	if (st & PERF_SAMPLE_TRANSACTION) p64(r, V_TXN);
	if (st & PERF_SAMPLE_REGS_INTR) put_regs(r, l->sample_regs_intr, 20);
	if (st & PERF_SAMPLE_PHYS_ADDR) p64(r, V_PHYS);
	if (st & PERF_SAMPLE_CGROUP) p64(r, V_CGROUP);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE) p64(r, V_DPAGE);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE) p64(r, V_CPAGE);
	if (st & PERF_SAMPLE_AUX) {
		p64(r, 8);
		put(r, "aux-data", 8);
	}
	end(r);
}

#define HAS(bit) (!!(st & (bit)))
#define WANT(field, bit, v) assert_int_equal(s->field, HAS(bit) ? (uint64_t)(v) : 0)

static void check_sample_fixed(const struct sample *s, uint64_t st, uint64_t id)
{
	WANT(identifier, PERF_SAMPLE_IDENTIFIER, id);
	WANT(ip, PERF_SAMPLE_IP, V_IP);
	WANT(pid, PERF_SAMPLE_TID, V_PID);
	WANT(tid, PERF_SAMPLE_TID, V_TID);
	WANT(time, PERF_SAMPLE_TIME, V_TIME);
	WANT(addr, PERF_SAMPLE_ADDR, V_ADDR);
	WANT(id, PERF_SAMPLE_ID, id);
	WANT(stream_id, PERF_SAMPLE_STREAM_ID, V_STREAM);
	WANT(cpu, PERF_SAMPLE_CPU, V_CPU);
	assert_int_equal(s->cpu_res, 0);
	WANT(period, PERF_SAMPLE_PERIOD, V_PERIOD);
	WANT(weight, PERF_SAMPLE_WEIGHT_TYPE, V_WEIGHT);
	WANT(weight_var1_dw, PERF_SAMPLE_WEIGHT_STRUCT, 2);
	WANT(weight_var2_w, PERF_SAMPLE_WEIGHT_STRUCT, 3);
	WANT(weight_var3_w, PERF_SAMPLE_WEIGHT_STRUCT, 4);
	WANT(data_src, PERF_SAMPLE_DATA_SRC, V_DATA_SRC);
	WANT(transaction, PERF_SAMPLE_TRANSACTION, V_TXN);
	WANT(phys_addr, PERF_SAMPLE_PHYS_ADDR, V_PHYS);
	WANT(cgroup, PERF_SAMPLE_CGROUP, V_CGROUP);
	WANT(data_page_size, PERF_SAMPLE_DATA_PAGE_SIZE, V_DPAGE);
	WANT(code_page_size, PERF_SAMPLE_CODE_PAGE_SIZE, V_CPAGE);
}

static void check_sample_var(const struct sample *s, const struct event_layout *l)
{
	uint64_t st = l->sample_type;
	bool hw_idx = HAS(PERF_SAMPLE_BRANCH_STACK) &&
		(l->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX);

	if (HAS(PERF_SAMPLE_READ))
		check_read(&s->read, l->read_format);
	else
		assert_null(s->read.entries);
	WANT(callchain_nr, PERF_SAMPLE_CALLCHAIN, 3);
	if (HAS(PERF_SAMPLE_CALLCHAIN)) {
		assert_int_equal(u64_at(s->callchain, 0), PERF_CONTEXT_USER);
		assert_int_equal(u64_at(s->callchain, 2), V_IP + 0x100);
	}
	WANT(raw_size, PERF_SAMPLE_RAW, 12);
	if (HAS(PERF_SAMPLE_RAW))
		assert_memory_equal(s->raw, "raw-payload", 12);
	WANT(branch_nr, PERF_SAMPLE_BRANCH_STACK, 2);
	assert_int_equal(s->branch_has_hw_idx, hw_idx);
	assert_int_equal(s->branch_hw_idx, hw_idx ? 9 : 0);
	if (HAS(PERF_SAMPLE_BRANCH_STACK))
		assert_int_equal(u64_at(s->branch_entries, 5), 0x505);
	check_regs(&s->regs_user, HAS(PERF_SAMPLE_REGS_USER), l->sample_regs_user, 10);
	WANT(stack_size, PERF_SAMPLE_STACK_USER, 16);
	WANT(stack_dyn_size, PERF_SAMPLE_STACK_USER, 12);
	if (HAS(PERF_SAMPLE_STACK_USER))
		assert_memory_equal(s->stack_data, "stack-bytes-16!!", 16);
	check_regs(&s->regs_intr, HAS(PERF_SAMPLE_REGS_INTR), l->sample_regs_intr, 20);
	WANT(aux_size, PERF_SAMPLE_AUX, 8);
	if (HAS(PERF_SAMPLE_AUX))
		assert_memory_equal(s->aux, "aux-data", 8);
}

static void check_sample(const struct record *rec, const struct event_layout *l, uint64_t id)
{
	const struct sample *s = &rec->u.sample;
	uint64_t st = l->sample_type;

	assert_true(rec->known);
	assert_int_equal(rec->type, PERF_RECORD_SAMPLE);
	assert_int_equal(rec->misc, PERF_RECORD_MISC_USER);
	assert_int_equal(s->type, st);
	check_sample_fixed(s, st, id);
	check_sample_var(s, l);
	/* the sample's own sample_id fields are mirrored in rec->sid */
	assert_int_equal(rec->sid.pid, s->pid);
	assert_int_equal(rec->sid.time, s->time);
	assert_int_equal(rec->sid.cpu, s->cpu);
	assert_int_equal(rec->sid.identifier, s->identifier);
}

#define ALL_SAMPLE_BITS ((1ULL << 25) - 1)

static const struct event_layout rich = {
	.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID | PERF_FORMAT_LOST,
	.sample_regs_user = 0x7,
	.sample_regs_intr = 0x8003,
	.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX,
	.sample_id_all = true,
};

/* Every field is exact, so any cut runs a field short and any extra byte
 * is left over. */
static void resize_sample(const struct record_layouts *ls, struct rb *r)
{
	size_t len = r->len;
	struct record rec;
	struct err err;

	for (size_t size = 8; size < len; size++) {
		memcpy(r->b + 6, &(uint16_t){ (uint16_t)size }, 2);
		assert_err(decode_bytes(ls, r->b, size, &rec, &err), -PREC_ETRUNC, &err, NULL);
		assert_prefix(&err, "SAMPLE record: ");
	}
	for (size_t extra = 1; extra <= 9; extra++) {
		put(r, "\x11", 1);
		end(r);
		assert_err(decode(ls, r, &rec, &err), -PREC_ECORRUPT, &err, NULL);
		assert_prefix(&err, "SAMPLE record: ");
	}
}

static void roundtrip_sample(const struct event_layout *l)
{
	struct record_layouts *ls = layouts_of(l, 1, V_ID);
	struct record rec;
	struct err err;
	struct rb r = { .len = 0 };

	put_sample(&r, l, V_ID);
	if (decode(ls, &r, &rec, &err))
		fail_msg("sample_type 0x%llx: %s", (unsigned long long)l->sample_type, err.msg);
	assert_int_equal(rec.event, 0);
	check_sample(&rec, l, V_ID);
	resize_sample(ls, &r);
	record_layouts_free(ls);
}

/* state: the bit number, or 64 for all bits at once */
static void test_sample_bit(void **state)
{
	unsigned bit = (unsigned)(uintptr_t)*state;
	struct event_layout l = rich;

	l.sample_type = bit < 64 ? 1ULL << bit : ALL_SAMPLE_BITS;
	roundtrip_sample(&l);
}

static void test_sample_read_formats(void **state)
{
	struct event_layout l = rich;

	(void)state;
	l.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_READ | PERF_SAMPLE_PERIOD;
	for (uint64_t fmt = 0; fmt < (1u << 5); fmt++) {
		l.read_format = fmt;
		roundtrip_sample(&l);
	}
}

static void test_sample_branch_hw_index(void **state)
{
	struct event_layout l = rich;

	(void)state;
	l.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_PERIOD;
	l.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	roundtrip_sample(&l);
	l.branch_sample_type |= PERF_SAMPLE_BRANCH_HW_INDEX;
	roundtrip_sample(&l);
}

/* Regs with ABI_NONE carry no values; a zero mask gives none either. */
static void test_sample_regs_abi_none(void **state)
{
	struct event_layout l = rich;
	struct record_layouts *ls;
	struct record rec;
	struct err err;
	struct rb r = { .len = 0 };

	(void)state;
	l.sample_type = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PERIOD;
	l.sample_regs_intr = 0;
	ls = layouts_of(&l, 1, 1);
	begin(&r, PERF_RECORD_SAMPLE, 0);
	p64(&r, 5);
	p64(&r, PERF_SAMPLE_REGS_ABI_NONE);
	p64(&r, PERF_SAMPLE_REGS_ABI_64);       /* intr: mask 0, no regs */
	end(&r);
	assert_int_equal(decode(ls, &r, &rec, &err), 0);
	assert_int_equal(rec.u.sample.regs_user.abi, PERF_SAMPLE_REGS_ABI_NONE);
	assert_int_equal(rec.u.sample.regs_user.mask, 0x7);
	assert_int_equal(rec.u.sample.regs_user.nr, 0);
	assert_null(rec.u.sample.regs_user.regs);
	assert_int_equal(rec.u.sample.regs_intr.abi, PERF_SAMPLE_REGS_ABI_64);
	assert_int_equal(rec.u.sample.regs_intr.nr, 0);
	assert_int_equal(rec.u.sample.period, 5);
	record_layouts_free(ls);
}

/* An empty user stack copy has no dyn_size after it. */
static void test_sample_stack_empty(void **state)
{
	struct event_layout l = rich;
	struct record_layouts *ls;
	struct record rec;
	struct err err;
	struct rb r = { .len = 0 };

	(void)state;
	l.sample_type = PERF_SAMPLE_STACK_USER | PERF_SAMPLE_PERIOD;
	ls = layouts_of(&l, 1, 1);
	begin(&r, PERF_RECORD_SAMPLE, 0);
	p64(&r, 6);
	p64(&r, 0);
	end(&r);
	assert_int_equal(decode(ls, &r, &rec, &err), 0);
	assert_int_equal(rec.u.sample.stack_size, 0);
	assert_null(rec.u.sample.stack_data);
	assert_int_equal(rec.u.sample.stack_dyn_size, 0);
	assert_int_equal(rec.u.sample.period, 6);
	record_layouts_free(ls);
}

/* ---- every record type ------------------------------------------------- */

static void b_mmap(struct rb *r)
{
	begin(r, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	p32(r, 1); p32(r, 2); p64(r, 0x400000); p64(r, 0x1000); p64(r, 0x200);
	pstr(r, "/bin/true");
}

static void c_mmap(const struct record *rec)
{
	assert_int_equal(rec->u.mmap.pid, 1);
	assert_int_equal(rec->u.mmap.tid, 2);
	assert_int_equal(rec->u.mmap.addr, 0x400000);
	assert_int_equal(rec->u.mmap.len, 0x1000);
	assert_int_equal(rec->u.mmap.pgoff, 0x200);
	assert_string_equal(rec->u.mmap.filename, "/bin/true");
}

static void b_mmap2_head(struct rb *r, uint16_t misc)
{
	begin(r, PERF_RECORD_MMAP2, misc);
	p32(r, 3); p32(r, 4); p64(r, 0x7f0000); p64(r, 0x2000); p64(r, 0x1000);
}

static void b_mmap2(struct rb *r)
{
	b_mmap2_head(r, PERF_RECORD_MISC_USER);
	p32(r, 8); p32(r, 1); p64(r, 1234); p64(r, 5);
	p32(r, 5); p32(r, 2);
	pstr(r, "/usr/lib/libc.so.6");
}

static void c_mmap2_common(const struct record *rec)
{
	assert_int_equal(rec->u.mmap2.pid, 3);
	assert_int_equal(rec->u.mmap2.tid, 4);
	assert_int_equal(rec->u.mmap2.addr, 0x7f0000);
	assert_int_equal(rec->u.mmap2.len, 0x2000);
	assert_int_equal(rec->u.mmap2.pgoff, 0x1000);
	assert_int_equal(rec->u.mmap2.prot, 5);
	assert_int_equal(rec->u.mmap2.flags, 2);
	assert_string_equal(rec->u.mmap2.filename, "/usr/lib/libc.so.6");
}

static void c_mmap2(const struct record *rec)
{
	c_mmap2_common(rec);
	assert_false(rec->u.mmap2.has_build_id);
	assert_int_equal(rec->u.mmap2.maj, 8);
	assert_int_equal(rec->u.mmap2.min, 1);
	assert_int_equal(rec->u.mmap2.ino, 1234);
	assert_int_equal(rec->u.mmap2.ino_generation, 5);
}

static const uint8_t build_id[20] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20
};

static void b_mmap2_bid(struct rb *r)
{
	b_mmap2_head(r, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	put(r, "\x14\0\0\0", 4);
	put(r, build_id, 20);
	p32(r, 5); p32(r, 2);
	pstr(r, "/usr/lib/libc.so.6");
}

static void c_mmap2_bid(const struct record *rec)
{
	c_mmap2_common(rec);
	assert_true(rec->u.mmap2.has_build_id);
	assert_int_equal(rec->u.mmap2.build_id_size, 20);
	assert_memory_equal(rec->u.mmap2.build_id, build_id, 20);
	assert_int_equal(rec->u.mmap2.ino, 0);
}

static void b_lost(struct rb *r)
{
	begin(r, PERF_RECORD_LOST, 0);
	p64(r, 42); p64(r, 7);
}

static void c_lost(const struct record *rec)
{
	assert_int_equal(rec->u.lost.id, 42);
	assert_int_equal(rec->u.lost.lost, 7);
}

static void b_comm(struct rb *r)
{
	begin(r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	p32(r, 5); p32(r, 6);
	pstr(r, "bash");
}

static void c_comm(const struct record *rec)
{
	assert_int_equal(rec->misc, PERF_RECORD_MISC_COMM_EXEC);
	assert_int_equal(rec->u.comm.pid, 5);
	assert_int_equal(rec->u.comm.tid, 6);
	assert_string_equal(rec->u.comm.comm, "bash");
}

static void b_task(struct rb *r, uint32_t type)
{
	begin(r, type, 0);
	p32(r, 20); p32(r, 1); p32(r, 21); p32(r, 1); p64(r, 555);
}

static void b_fork(struct rb *r) { b_task(r, PERF_RECORD_FORK); }
static void b_exit(struct rb *r) { b_task(r, PERF_RECORD_EXIT); }

static void c_task(const struct record *rec)
{
	assert_int_equal(rec->u.task.pid, 20);
	assert_int_equal(rec->u.task.ppid, 1);
	assert_int_equal(rec->u.task.tid, 21);
	assert_int_equal(rec->u.task.ptid, 1);
	assert_int_equal(rec->u.task.time, 555);
}

static void b_throttle_t(struct rb *r, uint32_t type)
{
	begin(r, type, 0);
	p64(r, 777); p64(r, 42); p64(r, 43);
}

static void b_throttle(struct rb *r) { b_throttle_t(r, PERF_RECORD_THROTTLE); }
static void b_unthrottle(struct rb *r) { b_throttle_t(r, PERF_RECORD_UNTHROTTLE); }

static void c_throttle(const struct record *rec)
{
	assert_int_equal(rec->u.throttle.time, 777);
	assert_int_equal(rec->u.throttle.id, 42);
	assert_int_equal(rec->u.throttle.stream_id, 43);
}

/* the read_format of both record-test layouts (see rec_layouts[]) */
#define REC_READ_FORMAT (PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_RUNNING)

static void b_read(struct rb *r)
{
	begin(r, PERF_RECORD_READ, 0);
	p32(r, 30); p32(r, 31);
	put_read(r, REC_READ_FORMAT);
}

static void c_read(const struct record *rec)
{
	assert_int_equal(rec->u.read.pid, 30);
	assert_int_equal(rec->u.read.tid, 31);
	check_read(&rec->u.read.values, REC_READ_FORMAT);
}

static void b_aux(struct rb *r)
{
	begin(r, PERF_RECORD_AUX, 0);
	p64(r, 0x1000); p64(r, 0x800); p64(r, PERF_AUX_FLAG_TRUNCATED);
}

static void c_aux(const struct record *rec)
{
	assert_int_equal(rec->u.aux.aux_offset, 0x1000);
	assert_int_equal(rec->u.aux.aux_size, 0x800);
	assert_int_equal(rec->u.aux.flags, PERF_AUX_FLAG_TRUNCATED);
}

static void b_itrace(struct rb *r)
{
	begin(r, PERF_RECORD_ITRACE_START, 0);
	p32(r, 40); p32(r, 41);
}

static void c_itrace(const struct record *rec)
{
	assert_int_equal(rec->u.itrace_start.pid, 40);
	assert_int_equal(rec->u.itrace_start.tid, 41);
}

static void b_lost_samples(struct rb *r)
{
	begin(r, PERF_RECORD_LOST_SAMPLES, 0);
	p64(r, 99);
}

static void c_lost_samples(const struct record *rec)
{
	assert_int_equal(rec->u.lost_samples.lost, 99);
}

static void b_switch(struct rb *r)
{
	begin(r, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT);
}

static void c_switch(const struct record *rec)
{
	assert_int_equal(rec->misc, PERF_RECORD_MISC_SWITCH_OUT);
}

static void b_switch_cpu(struct rb *r)
{
	begin(r, PERF_RECORD_SWITCH_CPU_WIDE, 0);
	p32(r, 50); p32(r, 51);
}

static void c_switch_cpu(const struct record *rec)
{
	assert_int_equal(rec->u.switch_cpu_wide.next_prev_pid, 50);
	assert_int_equal(rec->u.switch_cpu_wide.next_prev_tid, 51);
}

static void b_namespaces(struct rb *r)
{
	begin(r, PERF_RECORD_NAMESPACES, 0);
	p32(r, 60); p32(r, 61); p64(r, 2);
	p64(r, 4); p64(r, 0xf0000001); p64(r, 4); p64(r, 0xf0000002);
}

static void c_namespaces(const struct record *rec)
{
	assert_int_equal(rec->u.namespaces.pid, 60);
	assert_int_equal(rec->u.namespaces.tid, 61);
	assert_int_equal(rec->u.namespaces.nr, 2);
	assert_int_equal(u64_at(rec->u.namespaces.entries, 3), 0xf0000002);
}

static void b_ksymbol(struct rb *r)
{
	begin(r, PERF_RECORD_KSYMBOL, 0);
	p64(r, 0xffffffffc0000000ULL); p32(r, 256);
	p16(r, PERF_RECORD_KSYMBOL_TYPE_BPF); p16(r, 0);
	pstr(r, "bpf_prog_6deef7357e7b4530");
}

static void c_ksymbol(const struct record *rec)
{
	assert_int_equal(rec->u.ksymbol.addr, 0xffffffffc0000000ULL);
	assert_int_equal(rec->u.ksymbol.len, 256);
	assert_int_equal(rec->u.ksymbol.ksym_type, PERF_RECORD_KSYMBOL_TYPE_BPF);
	assert_int_equal(rec->u.ksymbol.flags, 0);
	assert_string_equal(rec->u.ksymbol.name, "bpf_prog_6deef7357e7b4530");
}

static void b_bpf(struct rb *r)
{
	begin(r, PERF_RECORD_BPF_EVENT, 0);
	p16(r, PERF_BPF_EVENT_PROG_LOAD); p16(r, 0); p32(r, 17);
	put(r, "TAG-8byt", 8);
}

static void c_bpf(const struct record *rec)
{
	assert_int_equal(rec->u.bpf_event.type, PERF_BPF_EVENT_PROG_LOAD);
	assert_int_equal(rec->u.bpf_event.flags, 0);
	assert_int_equal(rec->u.bpf_event.id, 17);
	assert_memory_equal(rec->u.bpf_event.tag, "TAG-8byt", 8);
}

static void b_cgroup(struct rb *r)
{
	begin(r, PERF_RECORD_CGROUP, 0);
	p64(r, 0x1234);
	pstr(r, "/user.slice/session-2.scope");
}

static void c_cgroup(const struct record *rec)
{
	assert_int_equal(rec->u.cgroup.id, 0x1234);
	assert_string_equal(rec->u.cgroup.path, "/user.slice/session-2.scope");
}

/* 8 + 12 + 10 bytes of text: 2 bytes of padding to 32 */
static void b_text_poke(struct rb *r)
{
	begin(r, PERF_RECORD_TEXT_POKE, 0);
	p64(r, 0xffffffff81000000ULL); p16(r, 5); p16(r, 5);
	put(r, "\x0f\x1f\x44\x00\x00\xe8\x10\x20\x30\x40\0\0", 12);
}

static void c_text_poke(const struct record *rec)
{
	assert_int_equal(rec->u.text_poke.addr, 0xffffffff81000000ULL);
	assert_int_equal(rec->u.text_poke.old_len, 5);
	assert_int_equal(rec->u.text_poke.new_len, 5);
	assert_memory_equal(rec->u.text_poke.bytes, "\x0f\x1f\x44\x00\x00\xe8\x10\x20\x30\x40", 10);
}

static void b_hw_id(struct rb *r)
{
	begin(r, PERF_RECORD_AUX_OUTPUT_HW_ID, 0);
	p64(r, 0xabc);
}

static void c_hw_id(const struct record *rec)
{
	assert_int_equal(rec->u.aux_output_hw_id.hw_id, 0xabc);
}

/* FIXED: any change of size is an error; VAR: the string or padding may
 * absorb a few bytes, so only "no crash, and a named error if any" holds. */
enum rec_kind { FIXED, VAR };

struct rec_case {
	const char *label;
	uint32_t type;
	void (*build)(struct rb *r);    /* header and body, no trailer */
	void (*check)(const struct record *rec);
	enum rec_kind kind;
};

static const struct rec_case rec_cases[] = {
	{ "MMAP", PERF_RECORD_MMAP, b_mmap, c_mmap, VAR },
	{ "MMAP2 inode", PERF_RECORD_MMAP2, b_mmap2, c_mmap2, VAR },
	{ "MMAP2 build-id", PERF_RECORD_MMAP2, b_mmap2_bid, c_mmap2_bid, VAR },
	{ "LOST", PERF_RECORD_LOST, b_lost, c_lost, FIXED },
	{ "COMM", PERF_RECORD_COMM, b_comm, c_comm, VAR },
	{ "FORK", PERF_RECORD_FORK, b_fork, c_task, FIXED },
	{ "EXIT", PERF_RECORD_EXIT, b_exit, c_task, FIXED },
	{ "THROTTLE", PERF_RECORD_THROTTLE, b_throttle, c_throttle, FIXED },
	{ "UNTHROTTLE", PERF_RECORD_UNTHROTTLE, b_unthrottle, c_throttle, FIXED },
	{ "READ", PERF_RECORD_READ, b_read, c_read, FIXED },
	{ "AUX", PERF_RECORD_AUX, b_aux, c_aux, FIXED },
	{ "ITRACE_START", PERF_RECORD_ITRACE_START, b_itrace, c_itrace, FIXED },
	{ "LOST_SAMPLES", PERF_RECORD_LOST_SAMPLES, b_lost_samples, c_lost_samples, FIXED },
	{ "SWITCH", PERF_RECORD_SWITCH, b_switch, c_switch, FIXED },
	{ "SWITCH_CPU_WIDE", PERF_RECORD_SWITCH_CPU_WIDE, b_switch_cpu, c_switch_cpu, FIXED },
	{ "NAMESPACES", PERF_RECORD_NAMESPACES, b_namespaces, c_namespaces, FIXED },
	{ "KSYMBOL", PERF_RECORD_KSYMBOL, b_ksymbol, c_ksymbol, VAR },
	{ "BPF_EVENT", PERF_RECORD_BPF_EVENT, b_bpf, c_bpf, FIXED },
	{ "CGROUP", PERF_RECORD_CGROUP, b_cgroup, c_cgroup, VAR },
	{ "TEXT_POKE", PERF_RECORD_TEXT_POKE, b_text_poke, c_text_poke, VAR },
	{ "AUX_OUTPUT_HW_ID", PERF_RECORD_AUX_OUTPUT_HW_ID, b_hw_id, c_hw_id, FIXED },
};

#define NR_REC_CASES (sizeof(rec_cases) / sizeof(rec_cases[0]))

/* One event without trailers, one with every trailer field. */
static const struct event_layout rec_layouts[] = {
	{ .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD,
	  .read_format = REC_READ_FORMAT },
	{ .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_PERIOD,
	  .read_format = REC_READ_FORMAT, .sample_id_all = true },
};

static void build_case(struct rb *r, const struct rec_case *c, const struct event_layout *l)
{
	r->len = 0;
	c->build(r);
	put_sid(r, l, SID_ID);
	end(r);
}

static void test_record_type(void **state)
{
	const struct rec_case *c = *state;
	struct record rec;
	struct err err;
	struct rb r;

	for (size_t i = 0; i < 2; i++) {
		const struct event_layout *l = &rec_layouts[i];
		struct record_layouts *ls = layouts_of(l, 1, SID_ID);

		build_case(&r, c, l);
		if (decode(ls, &r, &rec, &err))
			fail_msg("%s: %s", c->label, err.msg);
		assert_true(rec.known);
		assert_int_equal(rec.type, c->type);
		assert_int_equal(rec.size, r.len);
		assert_ptr_equal(rec.bytes, copy);
		assert_int_equal(rec.event, 0);
		assert_int_equal(strcspn(c->label, " "), strlen(record_type_name(c->type)));
		assert_prefix_of(c->label, record_type_name(c->type));
		c->check(&rec);
		check_sid(&rec, l, SID_ID);
		record_layouts_free(ls);
	}
}

/* Cut 1..(body + trailer) bytes off the end, header.size to match. */
static void test_record_too_small(void **state)
{
	const struct rec_case *c = *state;
	const char *name = record_type_name(c->type);
	struct record rec;
	struct err err;
	struct rb r;

	for (size_t i = 0; i < 2; i++) {
		struct record_layouts *ls = layouts_of(&rec_layouts[i], 1, SID_ID);

		build_case(&r, c, &rec_layouts[i]);
		for (size_t cut = 1; cut + 8 <= r.len; cut++) {
			uint16_t size = (uint16_t)(r.len - cut);
			int ret;

			memcpy(r.b + 6, &size, 2);
			ret = decode_bytes(ls, r.b, size, &rec, &err);
			if (c->kind == FIXED && c->type != PERF_RECORD_SWITCH)
				assert_err(ret, -PREC_ETRUNC, &err, NULL);
			if (ret)
				assert_prefix(&err, name);
		}
		record_layouts_free(ls);
	}
}

/* Append 1..16 bytes: left over for fixed layouts. */
static void test_record_too_large(void **state)
{
	const struct rec_case *c = *state;
	struct record rec;
	struct err err;
	struct rb r;

	for (size_t i = 0; i < 2; i++) {
		struct record_layouts *ls = layouts_of(&rec_layouts[i], 1, SID_ID);

		build_case(&r, c, &rec_layouts[i]);
		for (size_t extra = 1; extra <= 16; extra++) {
			int ret;

			put(&r, "\xaa", 1);
			end(&r);
			ret = decode(ls, &r, &rec, &err);
			if (c->kind == FIXED)
				assert_err(ret, -PREC_ECORRUPT, &err, NULL);
			if (ret)
				assert_prefix(&err, record_type_name(c->type));
		}
		record_layouts_free(ls);
	}
}

static void test_unknown_types(void **state)
{
	static const uint32_t types[] = { 0, PERF_RECORD_MAX, 63, 64, 68, 0xffffffffu };
	struct record_layouts *ls = layouts_of(&rec_layouts[1], 1, SID_ID);
	struct record rec;
	struct err err;
	struct rb r = { .len = 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		r.len = 0;
		begin(&r, types[i], 7);
		p64(&r, 1);
		p32(&r, 2);
		end(&r);
		assert_int_equal(decode(ls, &r, &rec, &err), 0);
		assert_false(rec.known);
		assert_int_equal(rec.event, -1);
		assert_int_equal(rec.type, types[i]);
		assert_int_equal(rec.misc, 7);
		assert_int_equal(rec.size, 20);
		assert_null(record_type_name(types[i]));
	}
	record_layouts_free(ls);
}

/* header.size must be the length given, which must hold a header */
static void test_record_header_mismatch(void **state)
{
	struct record rec;
	struct err err;
	struct rb r = { .len = 0 };

	(void)state;
	b_lost(&r);
	end(&r);
	assert_err(decode_bytes(NULL, r.b, 7, &rec, &err), -PREC_ETRUNC, &err,
		   "record of 7 bytes is shorter than its 8-byte header");
	assert_err(decode_bytes(NULL, r.b, 16, &rec, &err), -PREC_ECORRUPT, &err,
		   "LOST record: header gives 24 bytes, 16 were given");
	r.b[0] = 99;
	assert_err(decode_bytes(NULL, r.b, 16, &rec, &err), -PREC_ECORRUPT, &err,
		   "type 99 record: header gives 24 bytes, 16 were given");
}

/* ---- strings, counts and limits ---------------------------------------- */

/* A name that fills its span without a NUL is refused even when the trailer
 * after it holds zero bytes. */
static void test_strings_without_nul(void **state)
{
	static const struct { uint32_t type; unsigned fixed; const char *msg; } c[] = {
		{ PERF_RECORD_MMAP, 32, "MMAP record: file name is not NUL-terminated within its 8 bytes" },
		{ PERF_RECORD_MMAP2, 64, "MMAP2 record: file name is not NUL-terminated within its 8 bytes" },
		{ PERF_RECORD_COMM, 8, "COMM record: comm is not NUL-terminated within its 8 bytes" },
		{ PERF_RECORD_KSYMBOL, 16, "KSYMBOL record: symbol name is not NUL-terminated within its 8 bytes" },
		{ PERF_RECORD_CGROUP, 8, "CGROUP record: cgroup path is not NUL-terminated within its 8 bytes" },
	};
	struct record rec;
	struct err err;
	struct rb r;

	(void)state;
	for (size_t l = 0; l < 2; l++) {
		struct record_layouts *ls = layouts_of(&rec_layouts[l], 1, 0);

		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			r.len = 0;
			begin(&r, c[i].type, 0);
			for (unsigned k = 0; k < c[i].fixed; k++)
				put(&r, "\0", 1);
			put(&r, "abcdefgh", 8);
			put_sid(&r, &rec_layouts[l], 0);
			end(&r);
			assert_err(decode(ls, &r, &rec, &err), -PREC_ECORRUPT, &err, c[i].msg);
			/* no room at all for the string */
			r.len -= 8 + (l ? 48 : 0);
			put_sid(&r, &rec_layouts[l], 0);
			end(&r);
			assert_err(decode(ls, &r, &rec, &err), -PREC_ECORRUPT, &err, NULL);
		}
		record_layouts_free(ls);
	}
}

static void test_mmap2_build_id_too_long(void **state)
{
	struct record_layouts *ls = layouts_of(&rec_layouts[0], 1, 0);
	struct record rec;
	struct err err;
	struct rb r = { .len = 0 };

	(void)state;
	b_mmap2_bid(&r);
	end(&r);
	r.b[40] = 21;
	assert_err(decode(ls, &r, &rec, &err), -PREC_ECORRUPT, &err,
		   "MMAP2 record: build id of 21 bytes is longer than 20");
	r.b[40] = 0;    /* an empty build id is fine */
	assert_int_equal(decode(ls, &r, &rec, &err), 0);
	record_layouts_free(ls);
}

static void test_text_poke_lengths(void **state)
{
	struct record_layouts *ls = layouts_of(&rec_layouts[0], 1, 0);
	struct record rec;
	struct err err;
	struct rb r = { .len = 0 };

	(void)state;
	begin(&r, PERF_RECORD_TEXT_POKE, 0);
	p64(&r, 1); p16(&r, 0xffff); p16(&r, 0xffff);
	p32(&r, 0);
	end(&r);
	assert_err(decode(ls, &r, &rec, &err), -PREC_ETRUNC, &err,
		   "TEXT_POKE record: 65535 + 65535 bytes of text do not fit in 4 bytes");
	r.len = 0;
	begin(&r, PERF_RECORD_TEXT_POKE, 0);
	p64(&r, 1); p16(&r, 1); p16(&r, 2);
	p64(&r, 0); p32(&r, 0);
	end(&r);
	assert_err(decode(ls, &r, &rec, &err), -PREC_ECORRUPT, &err,
		   "TEXT_POKE record: 9 bytes after the text, more than padding");
	/* both lengths zero, no padding */
	r.len = 0;
	begin(&r, PERF_RECORD_TEXT_POKE, 0);
	p64(&r, 1); p32(&r, 0); p32(&r, 0);
	end(&r);
	assert_int_equal(decode(ls, &r, &rec, &err), 0);
	assert_int_equal(rec.u.text_poke.old_len + rec.u.text_poke.new_len, 0);
	record_layouts_free(ls);
}

/* A one-field sample: sample_type `st`, a u64 count, then `have` bytes. */
static int huge_sample(uint64_t st, uint64_t count, size_t have, struct err *err)
{
	struct event_layout l = rich;
	struct record_layouts *ls;
	struct record rec;
	struct rb r = { .len = 0 };
	int ret;

	l.sample_type = st;
	l.read_format = PERF_FORMAT_GROUP;
	ls = layouts_of(&l, 1, 0);
	begin(&r, PERF_RECORD_SAMPLE, 0);
	if (st == PERF_SAMPLE_RAW)
		p32(&r, (uint32_t)count);
	else
		p64(&r, count);
	for (size_t i = 0; i < have; i++)
		put(&r, "\x01", 1);
	end(&r);
	ret = decode(ls, &r, &rec, err);
	record_layouts_free(ls);
	return ret;
}

/* Counts whose byte size wraps to 0 or a small number must not fit. */
static void test_sample_huge_counts(void **state)
{
	struct err err;

	(void)state;
	assert_err(huge_sample(PERF_SAMPLE_CALLCHAIN, 5000, 64, &err), -PREC_ETRUNC, &err,
		   "SAMPLE record: callchain of 5000 entries does not fit in 64 bytes");
	assert_err(huge_sample(PERF_SAMPLE_CALLCHAIN, 1ULL << 61, 0, &err), -PREC_ETRUNC, &err,
		   "SAMPLE record: callchain of 2305843009213693952 entries does not fit in 0 bytes");
	assert_err(huge_sample(PERF_SAMPLE_CALLCHAIN, UINT64_MAX, 8, &err), -PREC_ETRUNC, &err, NULL);
	assert_err(huge_sample(PERF_SAMPLE_BRANCH_STACK, 1ULL << 61, 8, &err), -PREC_ETRUNC, &err,
		   "SAMPLE record: branch stack of 2305843009213693952 entries does not fit in 0 bytes");
	assert_err(huge_sample(PERF_SAMPLE_READ, 1ULL << 61, 8, &err), -PREC_ETRUNC, &err,
		   "SAMPLE record: read group of 2305843009213693952 values does not fit in 8 bytes");
	assert_err(huge_sample(PERF_SAMPLE_STACK_USER, UINT64_MAX, 16, &err), -PREC_ETRUNC, &err,
		   "SAMPLE record: user stack of 18446744073709551615 bytes does not fit in 16 bytes");
	assert_err(huge_sample(PERF_SAMPLE_AUX, 1ULL << 63, 8, &err), -PREC_ETRUNC, &err, NULL);
	assert_err(huge_sample(PERF_SAMPLE_RAW, 0xffffffff, 4, &err), -PREC_ETRUNC, &err,
		   "SAMPLE record: raw data of 4294967295 bytes does not fit in 4 bytes");
	/* stack data present but its dyn_size missing */
	assert_err(huge_sample(PERF_SAMPLE_STACK_USER, 8, 8, &err), -PREC_ETRUNC, &err,
		   "SAMPLE record: ends inside the user stack dyn_size field (0 bytes left)");
}

static void test_namespaces_huge(void **state)
{
	struct record_layouts *ls = layouts_of(&rec_layouts[0], 1, 0);
	struct record rec;
	struct err err;
	struct rb r = { .len = 0 };

	(void)state;
	begin(&r, PERF_RECORD_NAMESPACES, 0);
	p32(&r, 1); p32(&r, 1); p64(&r, 1ULL << 60);
	p64(&r, 0); p64(&r, 0);
	end(&r);
	assert_err(decode(ls, &r, &rec, &err), -PREC_ETRUNC, &err,
		   "NAMESPACES record: 1152921504606846976 namespaces do not fit in 16 bytes");
	record_layouts_free(ls);
}

static void test_sample_fixed_truncated(void **state)
{
	struct err err;

	(void)state;
	/* period is read as the "count": 4 bytes short */
	assert_err(huge_sample(PERF_SAMPLE_PERIOD | PERF_SAMPLE_CPU, 0, 4, &err), -PREC_ETRUNC,
		   &err, "SAMPLE record: ends inside the period field (4 bytes left)");
	assert_err(huge_sample(PERF_SAMPLE_IP, 1, 3, &err), -PREC_ECORRUPT, &err,
		   "SAMPLE record: 3 bytes left over after its fields");
}

static void test_unknown_layout_bits(void **state)
{
	struct err err;

	(void)state;
	assert_err(huge_sample(PERF_SAMPLE_IP | (1ULL << 40), 1, 0, &err), -PREC_EUNKNOWN,
		   &err, "SAMPLE record: sample_type has unknown bits 0x10000000000");
	{
		struct event_layout l = rich;
		struct record_layouts *ls;
		struct record rec;
		struct rb r = { .len = 0 };

		l.sample_type = PERF_SAMPLE_READ;
		l.read_format = 1u << 5;
		ls = layouts_of(&l, 1, 0);
		begin(&r, PERF_RECORD_SAMPLE, 0);
		p64(&r, 1);
		end(&r);
		assert_err(decode(ls, &r, &rec, &err), -PREC_EUNKNOWN, &err,
			   "SAMPLE record: read_format has unknown bits 0x20");
		record_layouts_free(ls);
	}
}

/* ---- attribution ------------------------------------------------------- */

/* Two events with IDENTIFIER and different layouts: ids 100, 101 -> 0 and
 * 200 -> 1. Samples are told apart by their first u64, other records by
 * their last. */
static const struct event_layout ident_events[] = {
	{ .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID,
	  .sample_id_all = true },
	{ .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
		PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN,
	  .read_format = PERF_FORMAT_ID, .sample_id_all = true },
};

static struct record_layouts *ident_layouts(void)
{
	static const uint64_t ids0[] = { 101, 100 }, ids1[] = { 200 };
	struct record_layouts *ls = record_layouts_new();
	struct err err;

	assert_int_equal(record_layouts_add(ls, &ident_events[0], ids0, 2, &err), 0);
	assert_int_equal(record_layouts_add(ls, &ident_events[1], ids1, 1, &err), 1);
	return ls;
}

static void test_attribute_identifier(void **state)
{
	struct record_layouts *ls = ident_layouts();
	struct record rec;
	struct err err;
	struct rb r = { .len = 0 };

	(void)state;
	for (int ev = 0; ev < 2; ev++) {
		uint64_t id = ev ? 200 : 101;

		r.len = 0;
		put_sample(&r, &ident_events[ev], id);
		assert_int_equal(decode(ls, &r, &rec, &err), 0);
		assert_int_equal(rec.event, ev);
		check_sample(&rec, &ident_events[ev], id);

		build_case(&r, &rec_cases[0], &ident_events[ev]);
		r.len -= 8;     /* put the right id last */
		p64(&r, id);
		end(&r);
		assert_int_equal(decode(ls, &r, &rec, &err), 0);
		assert_int_equal(rec.event, ev);
		c_mmap(&rec);
		check_sid(&rec, &ident_events[ev], id);
	}
	r.len = 0;
	put_sample(&r, &ident_events[0], 1234);
	assert_err(decode(ls, &r, &rec, &err), -PREC_ECORRUPT, &err,
		   "SAMPLE record: unknown event id 1234");
	build_case(&r, &rec_cases[3], &ident_events[0]);
	r.len -= 8;
	p64(&r, 1234);
	end(&r);
	assert_err(decode(ls, &r, &rec, &err), -PREC_ECORRUPT, &err,
		   "LOST record: unknown event id 1234");
	/* too short to hold the id at all */
	r.len = 0;
	begin(&r, PERF_RECORD_SAMPLE, 0);
	end(&r);
	assert_err(decode(ls, &r, &rec, &err), -PREC_ETRUNC, &err,
		   "SAMPLE record: 8 bytes are too few to hold its event id");
	r.len = 0;
	begin(&r, PERF_RECORD_SWITCH, 0);
	end(&r);
	assert_err(decode(ls, &r, &rec, &err), -PREC_ETRUNC, &err,
		   "SWITCH record: 8 bytes are too few to hold its sample_id trailer");
	record_layouts_free(ls);
}

/* Same sample_type with ID, no IDENTIFIER: the id at its computed place. */
static void test_attribute_id_position(void **state)
{
	struct event_layout ev[2] = { {
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
		.sample_id_all = true } };
	struct record_layouts *ls;
	struct record rec;
	struct err err;
	struct rb r = { .len = 0 };

	(void)state;
	ev[1] = ev[0];
	ls = layouts_of(ev, 2, 7);
	put_sample(&r, &ev[1], 8);
	assert_int_equal(decode(ls, &r, &rec, &err), 0);
	assert_int_equal(rec.event, 1);
	check_sample(&rec, &ev[1], 8);
	build_case(&r, &rec_cases[4], &ev[0]);  /* COMM, trailer id 42 */
	assert_err(decode(ls, &r, &rec, &err), -PREC_ECORRUPT, &err,
		   "COMM record: unknown event id 42");
	memcpy(r.b + r.len - 16, &(uint64_t){ 7 }, 8);  /* TID, TIME, [ID], CPU */
	assert_int_equal(decode(ls, &r, &rec, &err), 0);
	assert_int_equal(rec.event, 0);
	c_comm(&rec);
	assert_int_equal(rec.sid.id, 7);
	r.len = 0;
	begin(&r, PERF_RECORD_COMM, 0);
	p64(&r, 7);
	end(&r);
	assert_err(decode(ls, &r, &rec, &err), -PREC_ETRUNC, &err,
		   "COMM record: 16 bytes are too few to hold its sample_id trailer");
	/* a sample that ends before its id */
	r.len = 0;
	begin(&r, PERF_RECORD_SAMPLE, 0);
	p64(&r, 1); p64(&r, 2); p64(&r, 3); p64(&r, 4);
	end(&r);
	assert_err(decode(ls, &r, &rec, &err), -PREC_ETRUNC, &err,
		   "SAMPLE record: 40 bytes are too few to hold its event id");
	record_layouts_free(ls);
}

/* Several events with nothing to tell them apart. */
static void test_attribute_impossible(void **state)
{
	struct event_layout ev[2] = {
		{ .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ID, .sample_id_all = true },
		{ .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_ID,
		  .sample_id_all = true },
	};
	struct record_layouts *ls = layouts_of(ev, 2, 1);
	struct record rec;
	struct err err;
	struct rb r = { .len = 0 };

	(void)state;
	put_sample(&r, &ev[0], 1);
	assert_err(decode(ls, &r, &rec, &err), -PREC_ECORRUPT, &err, NULL);
	assert_prefix(&err, "SAMPLE record: cannot tell which of 2 events it belongs to");
	build_case(&r, &rec_cases[0], &ev[0]);
	assert_err(decode(ls, &r, &rec, &err), -PREC_ECORRUPT, &err, NULL);
	assert_prefix(&err, "MMAP record: cannot tell which of 2 events");
	record_layouts_free(ls);
}

/* Several events without sample_id_all: other records decode unattributed;
 * READ needs a read_format all events share. */
static void test_attribute_no_trailer(void **state)
{
	struct event_layout ev[2] = { rec_layouts[0], rec_layouts[0] };
	struct record_layouts *ls;
	struct record rec;
	struct err err;
	struct rb r;

	(void)state;
	ev[1].sample_type |= PERF_SAMPLE_TIME;
	ls = layouts_of(ev, 2, 1);
	for (size_t i = 0; i < NR_REC_CASES; i++) {
		build_case(&r, &rec_cases[i], &ev[0]);
		assert_int_equal(decode(ls, &r, &rec, &err), 0);
		assert_int_equal(rec.event, -1);
		rec_cases[i].check(&rec);
	}
	record_layouts_free(ls);
	ev[1].read_format = 0;
	ls = layouts_of(ev, 2, 1);
	build_case(&r, &rec_cases[9], &ev[0]);
	assert_err(decode(ls, &r, &rec, &err), -PREC_ECORRUPT, &err,
		   "READ record: cannot tell which event's read_format it has");
	record_layouts_free(ls);
}

/* No events: other records decode without trailer, samples cannot. */
static void test_attribute_no_events(void **state)
{
	struct record_layouts *empty = record_layouts_new();
	struct record rec;
	struct err err;
	struct rb r;

	(void)state;
	build_case(&r, &rec_cases[0], &rec_layouts[0]);
	assert_int_equal(decode(NULL, &r, &rec, &err), 0);
	assert_int_equal(rec.event, -1);
	c_mmap(&rec);
	assert_int_equal(decode(empty, &r, &rec, &err), 0);
	r.len = 0;
	put_sample(&r, &rec_layouts[0], 0);
	assert_err(decode(empty, &r, &rec, &err), -PREC_ECORRUPT, &err,
		   "SAMPLE record: no event layout to decode it with");
	assert_err(decode(NULL, &r, &rec, &err), -PREC_ECORRUPT, &err, NULL);
	build_case(&r, &rec_cases[9], &rec_layouts[0]);
	assert_err(decode(NULL, &r, &rec, &err), -PREC_ECORRUPT, &err, NULL);
	record_layouts_free(empty);
}

/* One event: its records need no id, even with IDENTIFIER. */
static void test_attribute_single(void **state)
{
	struct event_layout l = ident_events[1];
	struct record_layouts *ls = layouts_of(&l, 1, 5);
	struct record rec;
	struct err err;
	struct rb r = { .len = 0 };

	(void)state;
	put_sample(&r, &l, 999);
	assert_int_equal(decode(ls, &r, &rec, &err), 0);
	assert_int_equal(rec.event, 0);
	check_sample(&rec, &l, 999);
	record_layouts_free(ls);
}

/* ---- record_next ------------------------------------------------------- */

static void test_record_next(void **state)
{
	struct rb r = { .len = 0 };
	size_t off = 0, n, seen = 0;
	struct err err;
	uint8_t *buf;

	(void)state;
	b_lost(&r); end(&r);
	b_comm(&r); end(&r);
	b_switch(&r); end(&r);
	buf = malloc(r.len);
	memcpy(buf, r.b, r.len);
	while (record_next(buf, r.len, off, &n, &err) == 1) {
		off += n;
		seen++;
	}
	assert_int_equal(seen, 3);
	assert_int_equal(off, r.len);
	assert_int_equal(record_next(buf, r.len, r.len, &n, &err), 0);
	assert_err(record_next(buf, 47, 24, &n, &err), -PREC_ETRUNC, &err,
		   "COMM record at offset 24: size 24 runs past the end (23 bytes left)");
	assert_err(record_next(buf, 52, 48, &n, &err), -PREC_ETRUNC, &err,
		   "record at offset 48: 4 bytes left, a header needs 8");
	assert_err(record_next(buf, 3, 0, &n, &err), -PREC_ETRUNC, &err,
		   "record at offset 0: 3 bytes left, a header needs 8");
	assert_int_equal(record_next(buf, r.len, r.len + 1, &n, &err), -EINVAL);
	buf[48 + 6] = 7;        /* SWITCH's size */
	assert_err(record_next(buf, r.len, 48, &n, &err), -PREC_ECORRUPT, &err,
		   "SWITCH record at offset 48: size 7 is smaller than its header");
	buf[48] = 200;
	assert_err(record_next(buf, r.len, 48, &n, &err), -PREC_ECORRUPT, &err,
		   "type 200 record at offset 48: size 7 is smaller than its header");
	free(buf);
}

/* ---- layouts ----------------------------------------------------------- */

static void test_layout_from_attr(void **state)
{
	struct perf_event_attr a;
	struct event_layout l;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK;
	a.read_format = PERF_FORMAT_GROUP;
	a.sample_id_all = 1;
	a.disabled = 1;
	a.precise_ip = 3;
	a.mmap_data = 1;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX;
	a.sample_regs_user = 0xff;
	a.sample_regs_intr = 0xf0f;
	event_layout_from_attr(&l, &a, sizeof(a));
	assert_int_equal(l.sample_type, a.sample_type);
	assert_int_equal(l.read_format, a.read_format);
	assert_true(l.sample_id_all);
	assert_int_equal(l.branch_sample_type, PERF_SAMPLE_BRANCH_HW_INDEX);
	assert_int_equal(l.sample_regs_user, 0xff);
	assert_int_equal(l.sample_regs_intr, 0xf0f);
	/* an old, short attr: later fields read as zero */
	event_layout_from_attr(&l, &a, PERF_ATTR_SIZE_VER0);
	assert_int_equal(l.sample_type, a.sample_type);
	assert_true(l.sample_id_all);
	assert_int_equal(l.branch_sample_type, 0);
	assert_int_equal(l.sample_regs_user, 0);
	event_layout_from_attr(&l, &a, PERF_ATTR_SIZE_VER3);
	assert_int_equal(l.sample_regs_user, 0xff);
	assert_int_equal(l.sample_regs_intr, 0);
	event_layout_from_attr(&l, NULL, 0);
	assert_int_equal(l.sample_type, 0);
	/* the neighbours of sample_id_all do not set it */
	a.sample_id_all = 0;
	a.exclude_host = 1;
	event_layout_from_attr(&l, &a, sizeof(a));
	assert_false(l.sample_id_all);
}

static void test_layouts_ids(void **state)
{
	enum { NR_EV = 8, PER = 1024 };
	struct record_layouts *ls = record_layouts_new();
	struct event_layout l = rec_layouts[1];
	static uint64_t ids[NR_EV][PER];
	struct err err;

	(void)state;
	assert_int_equal(record_layouts_count(ls), 0);
	assert_null(record_layouts_get(ls, 0));
	/* interleaved ids, as one per CPU per thread gives */
	for (int e = 0; e < NR_EV; e++) {
		for (int i = 0; i < PER; i++)
			ids[e][i] = (uint64_t)(PER - i) * NR_EV + (uint64_t)e;
		l.sample_regs_user = (uint64_t)e;
		assert_int_equal(record_layouts_add(ls, &l, ids[e], PER, &err), e);
	}
	assert_int_equal(record_layouts_count(ls), NR_EV);
	assert_int_equal(record_layouts_get(ls, 5)->sample_regs_user, 5);
	for (int e = 0; e < NR_EV; e++)
		for (int i = 0; i < PER; i++)
			assert_int_equal(record_layouts_find(ls, ids[e][i]), e);
	assert_int_equal(record_layouts_find(ls, 0), -1);
	assert_int_equal(record_layouts_find(ls, UINT64_MAX), -1);
	assert_err(record_layouts_add(ls, &l, &ids[3][7], 1, &err), -PREC_ECORRUPT, &err, NULL);
	assert_prefix(&err, "event 8: id ");
	assert_err(record_layouts_add(ls, &l, (uint64_t[]){ 1, 1 }, 2, &err), -PREC_ECORRUPT,
		   &err, "event 8: id 1 is given twice");
	assert_int_equal(record_layouts_count(ls), NR_EV);      /* nothing added */
	assert_int_equal(record_layouts_find(ls, 1), -1);
	l.sample_id_all = false;
	assert_err(record_layouts_add(ls, &l, NULL, 0, &err), -PREC_ECORRUPT, &err,
		   "event 8: sample_id_all differs from event 0");
	assert_int_equal(record_layouts_add(ls, &rec_layouts[1], NULL, 0, &err), NR_EV);
	assert_int_equal(record_layouts_add(ls, NULL, NULL, 0, &err), -EINVAL);
	record_layouts_free(ls);
	record_layouts_free(NULL);
	assert_int_equal(record_layouts_find(NULL, 1), -1);
}

static void test_read_record_formats(void **state)
{
	struct event_layout l = rec_layouts[1];
	struct record rec;
	struct err err;
	struct rb r = { .len = 0 };

	(void)state;
	for (uint64_t fmt = 0; fmt < (1u << 5); fmt++) {
		struct record_layouts *ls;

		l.read_format = fmt;
		ls = layouts_of(&l, 1, SID_ID);
		r.len = 0;
		begin(&r, PERF_RECORD_READ, 0);
		p32(&r, 30); p32(&r, 31);
		put_read(&r, fmt);
		put_sid(&r, &l, SID_ID);
		end(&r);
		assert_int_equal(decode(ls, &r, &rec, &err), 0);
		check_read(&rec.u.read.values, fmt);
		check_sid(&rec, &l, SID_ID);
		/* one u64 short: the trailer steals it from the values */
		r.len -= 8;
		end(&r);
		assert_err(decode(ls, &r, &rec, &err), -PREC_ETRUNC, &err, NULL);
		record_layouts_free(ls);
	}
}

/* ---- the list ---------------------------------------------------------- */

static const char *const bit_names[25] = {
	"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD",
	"STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT",
	"DATA_SRC", "IDENTIFIER", "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX",
	"CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT",
};

static const struct CMUnitTest fixed_tests[] = {
	cmocka_unit_test(test_sample_read_formats),
	cmocka_unit_test(test_sample_branch_hw_index),
	cmocka_unit_test(test_sample_regs_abi_none),
	cmocka_unit_test(test_sample_stack_empty),
	cmocka_unit_test(test_sample_huge_counts),
	cmocka_unit_test(test_sample_fixed_truncated),
	cmocka_unit_test(test_unknown_layout_bits),
	cmocka_unit_test(test_unknown_types),
	cmocka_unit_test(test_record_header_mismatch),
	cmocka_unit_test(test_strings_without_nul),
	cmocka_unit_test(test_mmap2_build_id_too_long),
	cmocka_unit_test(test_text_poke_lengths),
	cmocka_unit_test(test_namespaces_huge),
	cmocka_unit_test(test_read_record_formats),
	cmocka_unit_test(test_attribute_identifier),
	cmocka_unit_test(test_attribute_id_position),
	cmocka_unit_test(test_attribute_impossible),
	cmocka_unit_test(test_attribute_no_trailer),
	cmocka_unit_test(test_attribute_no_events),
	cmocka_unit_test(test_attribute_single),
	cmocka_unit_test(test_record_next),
	cmocka_unit_test(test_layout_from_attr),
	cmocka_unit_test(test_layouts_ids),
};

#define NR_FIXED (sizeof(fixed_tests) / sizeof(fixed_tests[0]))
#define NR_TESTS (NR_FIXED + 26 + 3 * NR_REC_CASES)

static char names[NR_TESTS][64];

static void add(struct CMUnitTest *t, size_t *n, CMUnitTestFunction fn,
		void *state, const char *fmt, const char *arg)
{
	snprintf(names[*n], sizeof(names[*n]), fmt, arg);
	t[*n] = (struct CMUnitTest){ names[*n], fn, NULL, NULL, state };
	(*n)++;
}

/* One test per sample bit and per record type and size check, so that the
 * TAP output names what failed. */
int main(void)
{
	static struct CMUnitTest tests[NR_TESTS];
	size_t n = 0;

	memcpy(tests, fixed_tests, sizeof(fixed_tests));
	n = NR_FIXED;
	for (uintptr_t bit = 0; bit < 25; bit++)
		add(tests, &n, test_sample_bit, (void *)bit, "sample bit %s", bit_names[bit]);
	add(tests, &n, test_sample_bit, (void *)(uintptr_t)64, "sample %s bits", "all");
	for (size_t i = 0; i < NR_REC_CASES; i++) {
		void *c = (void *)&rec_cases[i];

		add(tests, &n, test_record_type, c, "decode %s", rec_cases[i].label);
		add(tests, &n, test_record_too_small, c, "too small %s", rec_cases[i].label);
		add(tests, &n, test_record_too_large, c, "too large %s", rec_cases[i].label);
	}
	return _cmocka_run_group_tests("record", tests, n, NULL, teardown_all);
}
