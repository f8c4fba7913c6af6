/* SPDX-License-Identifier: MIT */
/*
 * The layouts that attr.sample_type and attr.read_format select: the body of
 * PERF_RECORD_SAMPLE, struct read_format, and the sample_id trailer of the
 * other records. record.c frames a record and picks its event; this file
 * reads the fields.
 *
 * Each sample field is one row of sample_fields[], in the order the kernel's
 * perf_output_sample() writes them (perf's evsel__parse_sample reads the same
 * order; the uapi comment omits CGROUP). Counts read from the record (call
 * chain length, raw size, stack size...) are compared with the bytes left
 * before anything is multiplied, so no size arithmetic can wrap.
 */
#include "record_int.h"

#include <inttypes.h>
#include <string.h>

#include "common/cursor.h"

/* Every sample_type bit up to WEIGHT_STRUCT: the ones whose layout we know.
 * Spelled out rather than PERF_SAMPLE_MAX - 1 so that a newer system header
 * does not make us claim bits this file does not decode. */
#define SAMPLE_KNOWN_BITS	((1ULL << 25) - 1)
#define FORMAT_KNOWN_BITS	((1ULL << 5) - 1)
#define FORMAT_TIMES		(PERF_FORMAT_TOTAL_TIME_ENABLED | \
				 PERF_FORMAT_TOTAL_TIME_RUNNING)

struct sdec {
	struct cursor *c;
	struct sample *s;
	const struct event_layout *l;
	struct err *err;
};

struct sample_field {
	uint64_t bit;
	const char *name;
	int (*read)(struct sdec *d, const struct sample_field *f);
	size_t off, off2;       /* where fixed fields go in struct sample */
};

static int too_short(struct sdec *d, const char *what)
{
	return err_set(d->err, -PREC_ETRUNC,
		       "SAMPLE record: ends inside the %s field (%zu bytes left)",
		       what, cur_left(d->c));
}

static int rd_u64(struct sdec *d, const struct sample_field *f)
{
	uint64_t v;

	if (!cur_h64(d->c, &v))
		return too_short(d, f->name);
	memcpy((char *)d->s + f->off, &v, sizeof(v));
	return 0;
}

/* {pid, tid} and {cpu, res}: two u32 that land in two struct fields */
static int rd_u32x2(struct sdec *d, const struct sample_field *f)
{
	uint32_t a, b;

	if (!cur_h32(d->c, &a) || !cur_h32(d->c, &b))
		return too_short(d, f->name);
	memcpy((char *)d->s + f->off, &a, sizeof(a));
	memcpy((char *)d->s + f->off2, &b, sizeof(b));
	return 0;
}

static int rd_read(struct sdec *d, const struct sample_field *f)
{
	(void)f;
	return record__read_values(d->c, d->l->read_format, "SAMPLE",
				   &d->s->read, d->err);
}

/* A u64 count followed by count * `unit` bytes: check before taking. */
static const uint8_t *take_counted(struct sdec *d, uint64_t n, size_t unit)
{
	if (n > cur_left(d->c) / unit) {
		d->c->bad = true;
		return NULL;
	}
	return cur_take(d->c, (size_t)n * unit);
}

static int rd_callchain(struct sdec *d, const struct sample_field *f)
{
	struct sample *s = d->s;

	if (!cur_h64(d->c, &s->callchain_nr))
		return too_short(d, f->name);
	s->callchain = take_counted(d, s->callchain_nr, 8);
	if (!s->callchain)
		return err_set(d->err, -PREC_ETRUNC,
			       "SAMPLE record: callchain of %" PRIu64 " entries does not fit in %zu bytes",
			       s->callchain_nr, cur_left(d->c));
	return 0;
}

/* The kernel already counts its padding in size (u32 + data is 8-aligned). */
static int rd_raw(struct sdec *d, const struct sample_field *f)
{
	struct sample *s = d->s;

	if (!cur_h32(d->c, &s->raw_size))
		return too_short(d, f->name);
	s->raw = cur_take(d->c, s->raw_size);
	if (!s->raw)
		return err_set(d->err, -PREC_ETRUNC,
			       "SAMPLE record: raw data of %" PRIu32 " bytes does not fit in %zu bytes",
			       s->raw_size, cur_left(d->c));
	return 0;
}

static int rd_branch(struct sdec *d, const struct sample_field *f)
{
	struct sample *s = d->s;

	if (!cur_h64(d->c, &s->branch_nr))
		return too_short(d, f->name);
	s->branch_has_hw_idx = d->l->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX;
	if (s->branch_has_hw_idx && !cur_h64(d->c, &s->branch_hw_idx))
		return too_short(d, "branch hw_idx");
	s->branch_entries = take_counted(d, s->branch_nr, 24);
	if (!s->branch_entries)
		return err_set(d->err, -PREC_ETRUNC,
			       "SAMPLE record: branch stack of %" PRIu64 " entries does not fit in %zu bytes",
			       s->branch_nr, cur_left(d->c));
	return 0;
}

static int rd_regs(struct sdec *d, const char *what, uint64_t mask,
		   struct sample_regs *r)
{
	r->mask = mask;
	if (!cur_h64(d->c, &r->abi))
		return too_short(d, what);
	if (r->abi == PERF_SAMPLE_REGS_ABI_NONE)
		return 0;
	r->nr = (unsigned)__builtin_popcountll(mask);
	r->regs = cur_h64_array(d->c, r->nr);
	if (!r->regs)
		return err_set(d->err, -PREC_ETRUNC,
			       "SAMPLE record: %u %s do not fit in %zu bytes",
			       r->nr, what, cur_left(d->c));
	return 0;
}

static int rd_regs_user(struct sdec *d, const struct sample_field *f)
{
	return rd_regs(d, f->name, d->l->sample_regs_user, &d->s->regs_user);
}

static int rd_regs_intr(struct sdec *d, const struct sample_field *f)
{
	return rd_regs(d, f->name, d->l->sample_regs_intr, &d->s->regs_intr);
}

/* size, data[size], and dyn_size only when size != 0 (an empty copy, as
 * when the task has no user stack, has no dyn_size either). */
static int rd_stack(struct sdec *d, const struct sample_field *f)
{
	struct sample *s = d->s;

	if (!cur_h64(d->c, &s->stack_size))
		return too_short(d, f->name);
	if (s->stack_size == 0)
		return 0;
	s->stack_data = take_counted(d, s->stack_size, 1);
	if (!s->stack_data)
		return err_set(d->err, -PREC_ETRUNC,
			       "SAMPLE record: user stack of %" PRIu64 " bytes does not fit in %zu bytes",
			       s->stack_size, cur_left(d->c));
	if (!cur_h64(d->c, &s->stack_dyn_size))
		return too_short(d, "user stack dyn_size");
	return 0;
}

/* One u64 either way; WEIGHT_STRUCT names its parts. As a u64 value the
 * split is the same on both byte orders (the kernel's union flips the
 * struct on big-endian). */
static int rd_weight(struct sdec *d, const struct sample_field *f)
{
	struct sample *s = d->s;

	if (!cur_h64(d->c, &s->weight))
		return too_short(d, f->name);
	if (d->l->sample_type & PERF_SAMPLE_WEIGHT_STRUCT) {
		s->weight_var1_dw = (uint32_t)s->weight;
		s->weight_var2_w = (uint16_t)(s->weight >> 32);
		s->weight_var3_w = (uint16_t)(s->weight >> 48);
	}
	return 0;
}

static int rd_aux(struct sdec *d, const struct sample_field *f)
{
	struct sample *s = d->s;

	if (!cur_h64(d->c, &s->aux_size))
		return too_short(d, f->name);
	s->aux = take_counted(d, s->aux_size, 1);
	if (!s->aux)
		return err_set(d->err, -PREC_ETRUNC,
			       "SAMPLE record: aux data of %" PRIu64 " bytes does not fit in %zu bytes",
			       s->aux_size, cur_left(d->c));
	return 0;
}

#define U64(bit, name, field) \
	{ bit, name, rd_u64, offsetof(struct sample, field), 0 }
#define U32X2(bit, name, a, b) \
	{ bit, name, rd_u32x2, offsetof(struct sample, a), offsetof(struct sample, b) }
#define VAR(bit, name, fn) \
	{ bit, name, fn, 0, 0 }

static const struct sample_field sample_fields[] = {
	U64(PERF_SAMPLE_IDENTIFIER, "identifier", identifier),
	U64(PERF_SAMPLE_IP, "ip", ip),
	U32X2(PERF_SAMPLE_TID, "pid/tid", pid, tid),
	U64(PERF_SAMPLE_TIME, "time", time),
	U64(PERF_SAMPLE_ADDR, "addr", addr),
	U64(PERF_SAMPLE_ID, "id", id),
	U64(PERF_SAMPLE_STREAM_ID, "stream_id", stream_id),
	U32X2(PERF_SAMPLE_CPU, "cpu", cpu, cpu_res),
	U64(PERF_SAMPLE_PERIOD, "period", period),
	VAR(PERF_SAMPLE_READ, "read", rd_read),
	VAR(PERF_SAMPLE_CALLCHAIN, "callchain", rd_callchain),
	VAR(PERF_SAMPLE_RAW, "raw size", rd_raw),
	VAR(PERF_SAMPLE_BRANCH_STACK, "branch stack", rd_branch),
	VAR(PERF_SAMPLE_REGS_USER, "user regs", rd_regs_user),
	VAR(PERF_SAMPLE_STACK_USER, "user stack size", rd_stack),
	VAR(PERF_SAMPLE_WEIGHT_TYPE, "weight", rd_weight),
	U64(PERF_SAMPLE_DATA_SRC, "data_src", data_src),
	U64(PERF_SAMPLE_TRANSACTION, "transaction", transaction),
	VAR(PERF_SAMPLE_REGS_INTR, "intr regs", rd_regs_intr),
	U64(PERF_SAMPLE_PHYS_ADDR, "phys_addr", phys_addr),
	U64(PERF_SAMPLE_CGROUP, "cgroup", cgroup),
	U64(PERF_SAMPLE_DATA_PAGE_SIZE, "data_page_size", data_page_size),
	U64(PERF_SAMPLE_CODE_PAGE_SIZE, "code_page_size", code_page_size),
	VAR(PERF_SAMPLE_AUX, "aux size", rd_aux),
};

/* The sample's copy of the sample_id fields, so that callers find pid, time
 * and cpu in rec->sid whatever the record type. */
static void sample_to_sid(const struct sample *s, struct sample_id *sid)
{
	sid->fields = s->type & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				 PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
				 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
	sid->pid = s->pid;
	sid->tid = s->tid;
	sid->time = s->time;
	sid->id = s->id;
	sid->stream_id = s->stream_id;
	sid->cpu = s->cpu;
	sid->cpu_res = s->cpu_res;
	sid->identifier = s->identifier;
}

_Static_assert(offsetof(struct sample, tid) == offsetof(struct sample, pid) + 4 &&
	       offsetof(struct sample, cpu_res) == offsetof(struct sample, cpu) + 4,
	       "a plan copies pid/tid and cpu/res as one 8-byte field each");

#define NR_SAMPLE_FIELDS (sizeof(sample_fields) / sizeof(sample_fields[0]))
_Static_assert(NR_SAMPLE_FIELDS <= SAMPLE_PLAN_PREFIX_MAX + SAMPLE_PLAN_REST_MAX,
	       "a plan has room for every row");

/* Where record_sample_head finds the fields of a head (plan->hp). */
static void head_plan(uint64_t st, struct sample_plan *plan)
{
	struct sample_head_plan *hp = &plan->hp;

	hp->type = st;
	hp->fixed = 8 + 8u * plan->nr_prefix;
	hp->chain = plan->head == HEAD_CHAIN;
	hp->time_off = plan->time_off;
	hp->period_off = plan->period_off;
	if (st & PERF_SAMPLE_IP)
		hp->ip_off = (uint16_t)(8 + 8 * !!(st & PERF_SAMPLE_IDENTIFIER));
	if (st & PERF_SAMPLE_TID)
		hp->tid_off = (uint16_t)(8 + 8 * __builtin_popcountll(
			st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP)));
	if (st & PERF_SAMPLE_CPU)
		hp->cpu_off = (uint16_t)(8 + 8 * __builtin_popcountll(
			st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			      PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
			      PERF_SAMPLE_STREAM_ID)));
	hp->ip_mask = hp->ip_off ? UINT64_MAX : 0;
	hp->time_mask = hp->time_off ? UINT64_MAX : 0;
	hp->period_mask = hp->period_off ? UINT64_MAX : 0;
	hp->ids_mask = hp->tid_off ? UINT64_MAX : 0;
	hp->cpu_mask = hp->cpu_off ? UINT32_MAX : 0;
}

void record__sample_plan(const struct event_layout *l, struct sample_plan *plan)
{
	size_t i;

	memset(plan, 0, sizeof(*plan));
	for (i = 0; i < NR_SAMPLE_FIELDS && (sample_fields[i].read == rd_u64 ||
					     sample_fields[i].read == rd_u32x2); i++)
		if (l->sample_type & sample_fields[i].bit)
			plan->prefix_off[plan->nr_prefix++] = (uint16_t)sample_fields[i].off;
	for (; i < NR_SAMPLE_FIELDS; i++)
		if (l->sample_type & sample_fields[i].bit)
			plan->rest[plan->nr_rest++] = (uint8_t)i;
	if (!(l->sample_type & ~SAMPLE_KNOWN_BITS))
		plan->head = !plan->nr_rest ? HEAD_FIXED
			     : plan->nr_rest == 1 && sample_fields[plan->rest[0]].read == rd_callchain
			     ? HEAD_CHAIN : HEAD_NO;
	if (l->sample_type & PERF_SAMPLE_PERIOD)
		plan->period_off = (uint16_t)(8 + 8 * (plan->nr_prefix - 1));
	if (l->sample_type & PERF_SAMPLE_TIME) {
		uint64_t before = l->sample_type & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
						    PERF_SAMPLE_TID);

		plan->time_off = (uint16_t)(8 + 8 * __builtin_popcountll(before));
		plan->sid_time_back = (uint16_t)(record__sample_id_size(l->sample_type) -
						 8 * !!(l->sample_type & PERF_SAMPLE_TID));
	}
	head_plan(l->sample_type, plan);
}

/* The fields of sample_fields[] from row i on, one by one. */
static int read_rows(struct sdec *d, size_t i)
{
	for (; i < NR_SAMPLE_FIELDS; i++) {
		const struct sample_field *f = &sample_fields[i];
		int ret;

		if (!(d->l->sample_type & f->bit))
			continue;
		ret = f->read(d, f);
		if (ret)
			return ret;
	}
	return 0;
}

int record__sample(const struct event_layout *l, const struct sample_plan *plan,
		   struct cursor *c, struct sample *s, struct sample_id *sid, struct err *err)
{
	struct sdec d = { c, s, l, err };
	uint64_t unknown = l->sample_type & ~SAMPLE_KNOWN_BITS;
	int ret = 0;

	if (unknown)
		return err_set(err, -PREC_EUNKNOWN,
			       "SAMPLE record: sample_type has unknown bits 0x%" PRIx64,
			       unknown);
	s->type = l->sample_type;
	/* the fixed fields at once when they fit (else one by one, for the
	 * message that says which one does not) */
	if (plan && cur_left(c) >= 8u * plan->nr_prefix) {
		const uint8_t *p = cur_take(c, 8u * plan->nr_prefix);

		for (unsigned k = 0; k < plan->nr_prefix; k++)
			memcpy((char *)s + plan->prefix_off[k], p + 8 * k, 8);
		for (unsigned k = 0; k < plan->nr_rest && !ret; k++)
			ret = sample_fields[plan->rest[k]].read(&d, &sample_fields[plan->rest[k]]);
	} else {
		ret = read_rows(&d, 0);
	}
	if (ret)
		return ret;
	if (cur_left(c))
		return err_set(err, -PREC_ECORRUPT,
			       "SAMPLE record: %zu bytes left over after its fields",
			       cur_left(c));
	sample_to_sid(s, sid);
	return 0;
}

/*
 * struct read_format. Non-group: value, [enabled], [running], [id], [lost].
 * Group: nr, [enabled], [running], nr x {value, [id], [lost]}.
 */
int record__read_values(struct cursor *c, uint64_t format, const char *rname,
			struct read_values *rv, struct err *err)
{
	uint64_t unknown = format & ~FORMAT_KNOWN_BITS;
	bool group = format & PERF_FORMAT_GROUP;

	if (unknown)
		return err_set(err, -PREC_EUNKNOWN,
			       "%s record: read_format has unknown bits 0x%" PRIx64,
			       rname, unknown);
	rv->format = format;
	rv->stride = 1 + !!(format & PERF_FORMAT_ID) + !!(format & PERF_FORMAT_LOST);
	rv->nr = 1;
	if (group && !cur_h64(c, &rv->nr))
		goto truncated;
	if (!group && !(rv->entries = cur_take(c, 8)))
		goto truncated;
	if ((format & PERF_FORMAT_TOTAL_TIME_ENABLED) && !cur_h64(c, &rv->time_enabled))
		goto truncated;
	if ((format & PERF_FORMAT_TOTAL_TIME_RUNNING) && !cur_h64(c, &rv->time_running))
		goto truncated;
	if (!group) {
		/* id and lost follow the times; the accessors know where */
		if (!cur_skip(c, 8 * (size_t)(rv->stride - 1)))
			goto truncated;
		return 0;
	}
	if (rv->nr > cur_left(c) / 8 / rv->stride)
		return err_set(err, -PREC_ETRUNC,
			       "%s record: read group of %" PRIu64 " values does not fit in %zu bytes",
			       rname, rv->nr, cur_left(c));
	rv->entries = cur_take(c, (size_t)rv->nr * rv->stride * 8);
	return 0;
truncated:
	rv->entries = NULL;
	return err_set(err, -PREC_ETRUNC, "%s record: ends inside its read values",
		       rname);
}

/* Position of one u64 of entry i in rv->entries; false when absent. */
static bool rv_slot(const struct read_values *rv, size_t i, uint64_t what,
		    size_t *slot)
{
	size_t k = 0;

	if (!rv->entries || i >= rv->nr)
		return false;
	if (what != 0) {
		if (!(rv->format & what))
			return false;
		k = 1;
		if (what == PERF_FORMAT_LOST && (rv->format & PERF_FORMAT_ID))
			k++;
		if (!(rv->format & PERF_FORMAT_GROUP))
			k += (size_t)__builtin_popcountll(rv->format & FORMAT_TIMES);
	}
	*slot = (rv->format & PERF_FORMAT_GROUP) ? i * rv->stride + k : k;
	return true;
}

static uint64_t rv_get(const struct read_values *rv, size_t i, uint64_t what)
{
	size_t slot;

	return rv_slot(rv, i, what, &slot) ? u64_at(rv->entries, slot) : 0;
}

uint64_t read_values_value(const struct read_values *rv, size_t i)
{
	return rv_get(rv, i, 0);
}

uint64_t read_values_id(const struct read_values *rv, size_t i)
{
	return rv_get(rv, i, PERF_FORMAT_ID);
}

uint64_t read_values_lost(const struct read_values *rv, size_t i)
{
	return rv_get(rv, i, PERF_FORMAT_LOST);
}

/* The trailer: the sample_id fields in sample order, IDENTIFIER last so
 * that it sits at a fixed place from the end of the record. */
static const struct {
	uint64_t bit;
	size_t off, off2;       /* off2 != 0: two u32 */
} sid_fields[] = {
	{ PERF_SAMPLE_TID, offsetof(struct sample_id, pid), offsetof(struct sample_id, tid) },
	{ PERF_SAMPLE_TIME, offsetof(struct sample_id, time), 0 },
	{ PERF_SAMPLE_ID, offsetof(struct sample_id, id), 0 },
	{ PERF_SAMPLE_STREAM_ID, offsetof(struct sample_id, stream_id), 0 },
	{ PERF_SAMPLE_CPU, offsetof(struct sample_id, cpu), offsetof(struct sample_id, cpu_res) },
	{ PERF_SAMPLE_IDENTIFIER, offsetof(struct sample_id, identifier), 0 },
};

#define NR_SID_FIELDS (sizeof(sid_fields) / sizeof(sid_fields[0]))

size_t record__sample_id_size(uint64_t sample_type)
{
	size_t i, n = 0;

	for (i = 0; i < NR_SID_FIELDS; i++)
		n += (sample_type & sid_fields[i].bit) ? 8 : 0;
	return n;
}

/* Read the trailer's fields; -PREC_ETRUNC if c is too short (record.c sizes
 * the cursor from record__sample_id_size(), so that would be a bug there). */
int record__sample_id(struct cursor *c, uint64_t sample_type, struct sample_id *sid)
{
	size_t i;

	for (i = 0; i < NR_SID_FIELDS; i++) {
		char *base = (char *)sid;
		uint64_t v;
		uint32_t a, b;

		if (!(sample_type & sid_fields[i].bit))
			continue;
		sid->fields |= sid_fields[i].bit;
		if (sid_fields[i].off2) {
			if (!cur_h32(c, &a) || !cur_h32(c, &b))
				return -PREC_ETRUNC;
			memcpy(base + sid_fields[i].off, &a, sizeof(a));
			memcpy(base + sid_fields[i].off2, &b, sizeof(b));
		} else {
			if (!cur_h64(c, &v))
				return -PREC_ETRUNC;
			memcpy(base + sid_fields[i].off, &v, sizeof(v));
		}
	}
	return 0;
}
