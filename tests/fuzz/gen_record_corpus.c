/* SPDX-License-Identifier: MIT */
/*
 * Writes the committed seed corpus of fuzz_record (tests/fuzz/corpus/record)
 * in the input format that tests/fuzz/fuzz_record.c documents: a few event
 * descriptions, then records built field by field in kernel order. Each file
 * covers one record type or one group of sample_type bits, plus a few
 * several-event streams and some damaged ones.
 *
 *	cc -std=gnu11 -o /tmp/gen_record_corpus tests/fuzz/gen_record_corpus.c
 *	/tmp/gen_record_corpus tests/fuzz/corpus/record
 *
 * Stand-alone on purpose (no library code): the corpus must not depend on
 * the decoder it feeds.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

struct ev {
	uint64_t sample_type, read_format, regs_user, regs_intr, branch_type;
	bool sample_id_all;
	uint64_t id;
};

struct out {
	uint8_t b[4096];
	size_t len, start;
	const struct ev *ev;    /* whose trailer and sample layout to write */
};

static void put(struct out *o, const void *p, size_t n)
{
	if (o->len + n > sizeof(o->b)) {
		fprintf(stderr, "gen_record_corpus: corpus file over 4 KiB\n");
		exit(1);
	}
	memcpy(o->b + o->len, p, n);
	o->len += n;
}

static void p16(struct out *o, uint16_t v) { put(o, &v, 2); }
static void p32(struct out *o, uint32_t v) { put(o, &v, 4); }
static void p64(struct out *o, uint64_t v) { put(o, &v, 8); }

static void pstr(struct out *o, const char *s)
{
	size_t n = strlen(s) + 1;

	put(o, s, n);
	while (n++ % 8)
		put(o, "", 1);
}

static void events(struct out *o, const struct ev *ev, unsigned nr)
{
	uint8_t n = (uint8_t)(nr - 1);

	o->len = 0;
	put(o, &n, 1);
	for (unsigned i = 0; i < nr; i++) {
		uint8_t flags = ev[i].sample_id_all | 2;        /* two ids */

		p64(o, ev[i].sample_type);
		p64(o, ev[i].read_format);
		p64(o, ev[i].regs_user);
		p64(o, ev[i].regs_intr);
		p64(o, ev[i].branch_type);
		put(o, &flags, 1);
		p64(o, ev[i].id);
		p64(o, ev[i].id + 0x10000);
	}
	o->ev = &ev[0];
}

static void begin(struct out *o, uint32_t type, uint16_t misc)
{
	o->start = o->len;
	p32(o, type);
	p16(o, misc);
	p16(o, 0);
}

/* the sample_id trailer of o->ev, then header.size */
static void end(struct out *o)
{
	const struct ev *e = o->ev;
	uint16_t size;

	if (e->sample_id_all) {
		if (e->sample_type & PERF_SAMPLE_TID) { p32(o, 10); p32(o, 11); }
		if (e->sample_type & PERF_SAMPLE_TIME) p64(o, 1000);
		if (e->sample_type & PERF_SAMPLE_ID) p64(o, e->id);
		if (e->sample_type & PERF_SAMPLE_STREAM_ID) p64(o, 43);
		if (e->sample_type & PERF_SAMPLE_CPU) { p32(o, 2); p32(o, 0); }
		if (e->sample_type & PERF_SAMPLE_IDENTIFIER) p64(o, e->id);
	}
	size = (uint16_t)(o->len - o->start);
	memcpy(o->b + o->start + 6, &size, 2);
}

static void put_read(struct out *o, uint64_t fmt)
{
	unsigned n = (fmt & PERF_FORMAT_GROUP) ? 2 : 1;

	p64(o, (fmt & PERF_FORMAT_GROUP) ? n : 1000);
	if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) p64(o, 900);
	if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING) p64(o, 800);
	for (unsigned i = 0; i < n; i++) {
		if (fmt & PERF_FORMAT_GROUP) p64(o, 1000 + i);
		if (fmt & PERF_FORMAT_ID) p64(o, 500 + i);
		if (fmt & PERF_FORMAT_LOST) p64(o, 3 + i);
	}
}

static void put_regs(struct out *o, uint64_t mask)
{
	p64(o, mask ? PERF_SAMPLE_REGS_ABI_64 : PERF_SAMPLE_REGS_ABI_NONE);
	for (int i = 0; mask && i < __builtin_popcountll(mask); i++)
		p64(o, 0x100 + (uint64_t)i);
}

/* the fields after PERIOD, in perf_output_sample() order */
static void sample_tail(struct out *o, const struct ev *e)
{
	uint64_t st = e->sample_type;

	if (st & PERF_SAMPLE_READ) put_read(o, e->read_format);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		p64(o, 4); p64(o, PERF_CONTEXT_KERNEL); p64(o, 0xffffffff81000000ULL);
		p64(o, PERF_CONTEXT_USER); p64(o, 0x401000);
	}
	if (st & PERF_SAMPLE_RAW) { p32(o, 12); put(o, "raw-payload", 12); }
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		p64(o, 2);
		if (e->branch_type & PERF_SAMPLE_BRANCH_HW_INDEX) p64(o, 1);
		for (uint64_t i = 0; i < 6; i++) p64(o, 0x401000 + i);
	}
	if (st & PERF_SAMPLE_REGS_USER) put_regs(o, e->regs_user);
	if (st & PERF_SAMPLE_STACK_USER) {
		p64(o, e->regs_user ? 16 : 0);
		if (e->regs_user) { put(o, "stack-bytes-16!!", 16); p64(o, 16); }
	}
	if (st & PERF_SAMPLE_WEIGHT_TYPE) p64(o, 0x0004000300000002ULL);
	if (st & PERF_SAMPLE_DATA_SRC) p64(o, 0x55);
	if (st & PERF_SAMPLE_TRANSACTION) p64(o, 0x66);
	if (st & PERF_SAMPLE_REGS_INTR) put_regs(o, e->regs_intr);
	if (st & PERF_SAMPLE_PHYS_ADDR) p64(o, 0x77000);
	if (st & PERF_SAMPLE_CGROUP) p64(o, 0x88);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE) p64(o, 4096);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE) p64(o, 4096);
	if (st & PERF_SAMPLE_AUX) { p64(o, 8); put(o, "aux-data", 8); }
}

static void sample(struct out *o, const struct ev *e)
{
	uint64_t st = e->sample_type;
	uint16_t size;

	begin(o, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	if (st & PERF_SAMPLE_IDENTIFIER) p64(o, e->id);
	if (st & PERF_SAMPLE_IP) p64(o, 0x401000);
	if (st & PERF_SAMPLE_TID) { p32(o, 100); p32(o, 101); }
	if (st & PERF_SAMPLE_TIME) p64(o, 123456789);
	if (st & PERF_SAMPLE_ADDR) p64(o, 0xdead0000);
	if (st & PERF_SAMPLE_ID) p64(o, e->id);
	if (st & PERF_SAMPLE_STREAM_ID) p64(o, 78);
	if (st & PERF_SAMPLE_CPU) { p32(o, 3); p32(o, 0); }
	if (st & PERF_SAMPLE_PERIOD) p64(o, 4000);
	sample_tail(o, e);
	size = (uint16_t)(o->len - o->start);     /* no trailer on samples */
	memcpy(o->b + o->start + 6, &size, 2);
}

static const char *dir;

static void save(const struct out *o, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(o->b, 1, o->len, f) != o->len || fclose(f)) {
		fprintf(stderr, "gen_record_corpus: cannot write %s\n", path);
		exit(1);
	}
}

#define TRAILER (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
		 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

static const struct ev base = {
	.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		PERF_SAMPLE_PERIOD | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CPU,
	.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED,
	.regs_user = 0xff, .regs_intr = 0x3,
	.branch_type = PERF_SAMPLE_BRANCH_ANY,
	.sample_id_all = true, .id = 42,
};

/* one sample file per group of sample_type bits */
static void samples(void)
{
	static const struct { const char *name; uint64_t bits, rf, bt, ru; } s[] = {
		{ "sample_fixed", PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		  PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
		  PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD, 0, 0, 0 },
		{ "sample_read_group", PERF_SAMPLE_READ, 0x1f, 0, 0 },
		{ "sample_read_single", PERF_SAMPLE_READ, 0x17, 0, 0 },
		{ "sample_callchain", PERF_SAMPLE_CALLCHAIN, 0, 0, 0 },
		{ "sample_raw", PERF_SAMPLE_RAW, 0, 0, 0 },
		{ "sample_branch", PERF_SAMPLE_BRANCH_STACK, 0, 0, 0 },
		{ "sample_branch_hw_idx", PERF_SAMPLE_BRANCH_STACK, 0,
		  PERF_SAMPLE_BRANCH_HW_INDEX, 0 },
		{ "sample_regs", PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR, 0, 0, 0xff },
		{ "sample_regs_abi_none", PERF_SAMPLE_REGS_USER, 0, 0, 0 },
		{ "sample_stack", PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, 0, 0, 0xf },
		{ "sample_stack_empty", PERF_SAMPLE_STACK_USER, 0, 0, 0 },
		{ "sample_weight", PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC, 0, 0, 0 },
		{ "sample_weight_struct", PERF_SAMPLE_WEIGHT_STRUCT, 0, 0, 0 },
		{ "sample_mem", PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |
		  PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_DATA_PAGE_SIZE |
		  PERF_SAMPLE_CODE_PAGE_SIZE, 0, 0, 0 },
		{ "sample_cgroup_aux", PERF_SAMPLE_CGROUP | PERF_SAMPLE_AUX, 0, 0, 0 },
		{ "sample_all_bits", (1ULL << 25) - 1, 0x1f, PERF_SAMPLE_BRANCH_HW_INDEX, 0x7 },
	};
	struct out o;

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		struct ev e = base;

		e.sample_type = s[i].bits | PERF_SAMPLE_IDENTIFIER;
		e.read_format = s[i].rf;
		e.branch_type = s[i].bt;
		e.regs_user = s[i].ru;
		events(&o, &e, 1);
		sample(&o, &e);
		sample(&o, &e);
		save(&o, s[i].name);
	}
}

static void r_mmap(struct out *o)
{
	begin(o, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	p32(o, 1); p32(o, 2); p64(o, 0x400000); p64(o, 0x1000); p64(o, 0);
	pstr(o, "/bin/true");
	end(o);
}

static void r_mmap2(struct out *o, bool build_id)
{
	begin(o, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER |
	      (build_id ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));
	p32(o, 3); p32(o, 4); p64(o, 0x7f0000); p64(o, 0x2000); p64(o, 0x1000);
	if (build_id) {
		put(o, "\x14\0\0\0", 4);
		put(o, "0123456789abcdefghij", 20);
	} else {
		p32(o, 8); p32(o, 1); p64(o, 1234); p64(o, 5);
	}
	p32(o, 5); p32(o, 2);
	pstr(o, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	end(o);
}

static void r_comm(struct out *o)
{
	begin(o, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	p32(o, 5); p32(o, 6);
	pstr(o, "bash");
	end(o);
}

static void r_task(struct out *o, uint32_t type)
{
	begin(o, type, 0);
	p32(o, 20); p32(o, 1); p32(o, 21); p32(o, 1); p64(o, 555);
	end(o);
}

static void r_u64s(struct out *o, uint32_t type, uint16_t misc, unsigned n)
{
	begin(o, type, misc);
	for (unsigned i = 0; i < n; i++)
		p64(o, 0x100 + i);
	end(o);
}

static void r_read(struct out *o)
{
	begin(o, PERF_RECORD_READ, 0);
	p32(o, 30); p32(o, 31);
	put_read(o, o->ev->read_format);
	end(o);
}

static void r_namespaces(struct out *o)
{
	begin(o, PERF_RECORD_NAMESPACES, 0);
	p32(o, 60); p32(o, 61); p64(o, 2);
	p64(o, 4); p64(o, 0xf0000001); p64(o, 4); p64(o, 0xf0000002);
	end(o);
}

static void r_ksymbol(struct out *o)
{
	begin(o, PERF_RECORD_KSYMBOL, 0);
	p64(o, 0xffffffffc0000000ULL); p32(o, 256);
	p16(o, PERF_RECORD_KSYMBOL_TYPE_BPF); p16(o, 0);
	pstr(o, "bpf_prog_6deef7357e7b4530");
	end(o);
}

static void r_bpf_event(struct out *o)
{
	begin(o, PERF_RECORD_BPF_EVENT, 0);
	p16(o, PERF_BPF_EVENT_PROG_LOAD); p16(o, 0); p32(o, 17);
	put(o, "TAG-8byt", 8);
	end(o);
}

static void r_cgroup(struct out *o)
{
	begin(o, PERF_RECORD_CGROUP, 0);
	p64(o, 0x1234);
	pstr(o, "/user.slice/session-2.scope");
	end(o);
}

static void r_text_poke(struct out *o)
{
	begin(o, PERF_RECORD_TEXT_POKE, 0);
	p64(o, 0xffffffff81000000ULL); p16(o, 5); p16(o, 5);
	put(o, "\x0f\x1f\x44\x00\x00\xe8\x10\x20\x30\x40\0\0", 12);
	end(o);
}

/* one file per record type, each record with base's trailer */
static void record_types(void)
{
	struct out o;

#define ONE(name, call) do { events(&o, &base, 1); call; save(&o, name); } while (0)
	ONE("mmap", r_mmap(&o));
	ONE("mmap2_inode", r_mmap2(&o, false));
	ONE("mmap2_buildid", r_mmap2(&o, true));
	ONE("comm_exec", r_comm(&o));
	ONE("fork_exit", (r_task(&o, PERF_RECORD_FORK), r_task(&o, PERF_RECORD_EXIT)));
	ONE("lost", r_u64s(&o, PERF_RECORD_LOST, 0, 2));
	ONE("lost_samples", r_u64s(&o, PERF_RECORD_LOST_SAMPLES, 0, 1));
	ONE("throttle", (r_u64s(&o, PERF_RECORD_THROTTLE, 0, 3),
			 r_u64s(&o, PERF_RECORD_UNTHROTTLE, 0, 3)));
	ONE("read", r_read(&o));
	ONE("aux", r_u64s(&o, PERF_RECORD_AUX, 0, 3));
	ONE("itrace_start", r_u64s(&o, PERF_RECORD_ITRACE_START, 0, 1));
	ONE("switch", (r_u64s(&o, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT, 0),
		       r_u64s(&o, PERF_RECORD_SWITCH, 0, 0)));
	ONE("switch_cpu_wide", r_u64s(&o, PERF_RECORD_SWITCH_CPU_WIDE, 0, 1));
	ONE("namespaces", r_namespaces(&o));
	ONE("ksymbol", r_ksymbol(&o));
	ONE("bpf_event", r_bpf_event(&o));
	ONE("cgroup", r_cgroup(&o));
	ONE("text_poke", r_text_poke(&o));
	ONE("aux_output_hw_id", r_u64s(&o, PERF_RECORD_AUX_OUTPUT_HW_ID, 0, 1));
	ONE("unknown_types", (r_u64s(&o, 0, 0, 1), r_u64s(&o, PERF_RECORD_MAX, 0, 2),
			      r_u64s(&o, 68, 0, 3)));
#undef ONE
}

/* every record type once, written for event `e` of the set */
static void all_records(struct out *o, const struct ev *e)
{
	o->ev = e;
	r_mmap(o);
	r_mmap2(o, false);
	r_mmap2(o, true);
	r_comm(o);
	r_task(o, PERF_RECORD_FORK);
	r_read(o);
	sample(o, e);
	r_u64s(o, PERF_RECORD_LOST, 0, 2);
	r_namespaces(o);
	r_ksymbol(o);
	r_cgroup(o);
	r_text_poke(o);
	r_u64s(o, PERF_RECORD_SWITCH_CPU_WIDE, 0, 1);
	r_task(o, PERF_RECORD_EXIT);
}

/* streams of several events: by IDENTIFIER, by ID position, without
 * trailers, and with nothing to tell the events apart */
static void several_events(void)
{
	struct ev ev[3] = { base, base, base };
	struct out o;

	ev[1].sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_READ | PERF_SAMPLE_STREAM_ID;
	ev[1].id = 43;
	ev[2].sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_TID;
	ev[2].branch_type = PERF_SAMPLE_BRANCH_HW_INDEX;
	ev[2].id = 44;
	events(&o, ev, 3);
	for (int i = 0; i < 3; i++)
		all_records(&o, &ev[i]);
	save(&o, "multi_identifier");

	for (int i = 0; i < 3; i++) {
		ev[i] = base;
		ev[i].sample_type = TRAILER & ~PERF_SAMPLE_IDENTIFIER;
		ev[i].sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD;
		ev[i].id = 100 + (uint64_t)i;
	}
	events(&o, ev, 3);
	for (int i = 2; i >= 0; i--)
		all_records(&o, &ev[i]);
	save(&o, "multi_id_position");

	ev[0].sample_id_all = ev[1].sample_id_all = false;
	ev[1].sample_type |= PERF_SAMPLE_RAW;
	events(&o, ev, 2);
	all_records(&o, &ev[0]);
	save(&o, "multi_no_trailer");

	ev[0] = ev[1] = base;
	ev[0].sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	ev[1].id = 7;
	events(&o, ev, 2);
	all_records(&o, &ev[1]);
	save(&o, "multi_unattributable");
}

/* damaged streams: the decoder must refuse them without reading past */
static void damaged(void)
{
	struct ev two[2] = { base, base };
	struct ev e = base;
	struct out o;
	uint64_t big = 5000;

	events(&o, &base, 1);
	r_mmap(&o);
	r_comm(&o);
	o.len -= 5;
	save(&o, "truncated_stream");

	events(&o, &base, 1);
	r_mmap(&o);
	memset(o.b + o.start + 40, 'x', 16);    /* file name without NUL */
	save(&o, "mmap_no_nul");

	events(&o, &base, 1);
	r_mmap2(&o, true);
	o.b[o.start + 40] = 21;
	save(&o, "mmap2_buildid_too_long");

	e.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CALLCHAIN;
	events(&o, &e, 1);
	sample(&o, &e);
	memcpy(o.b + o.start + 16, &big, 8);
	save(&o, "sample_callchain_too_long");

	events(&o, &base, 1);
	r_u64s(&o, PERF_RECORD_LOST, 0, 3);     /* one u64 too many */
	r_u64s(&o, PERF_RECORD_LOST, 0, 1);     /* one too few */
	save(&o, "lost_wrong_sizes");

	two[1].id = 43;
	events(&o, two, 2);
	sample(&o, &base);
	memcpy(o.b + o.start + 8, &big, 8);     /* an id no event has */
	save(&o, "unknown_id");

	events(&o, &base, 1);
	begin(&o, PERF_RECORD_SWITCH, 0);
	o.b[o.start + 6] = 4;   /* size 4, below the header */
	p64(&o, 0);
	save(&o, "size_below_header");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_record_corpus DIR\n");
		return 2;
	}
	dir = argv[1];
	samples();
	record_types();
	several_events();
	damaged();
	return 0;
}
