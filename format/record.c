/* SPDX-License-Identifier: MIT */
/*
 * Decoding of perf ring-buffer records: framing (header, event attribution,
 * sample_id trailer) and one decoder per record family, picked by a table on
 * header.type. The sample_type-driven layouts live in sample.c.
 *
 * A non-sample record is split in three spans before its decoder runs:
 *
 *	header (8) | body | trailer (record__sample_id_size(sample_type))
 *
 * The trailer size is known from the event alone, so the body span is exact:
 * a decoder must consume all of it (strings run to its end and must hold a
 * NUL), and whatever is left over or missing is reported here, once.
 */
#include "record_int.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/cursor.h"

/* ---- per-family decoders ----------------------------------------------- */

struct rdec {
	const struct record_layouts *ls;
	const struct event_layout *l;   /* NULL when not attributable */
	struct record *rec;
	const char *name;
	struct err *err;
};

/* The rest of the body is a NUL-padded string. Fixed fields before it that
 * did not fit leave the cursor bad; decode_known() reports that. */
static int take_string(struct rdec *d, struct cursor *c, const char *what,
		       const char **out)
{
	size_t n = cur_left(c);
	const uint8_t *p;

	if (c->bad)
		return 0;
	p = cur_take(c, n);
	if (!n || !memchr(p, 0, n))
		return err_set(d->err, -PREC_ECORRUPT,
			       "%s record: %s is not NUL-terminated within its %zu bytes",
			       d->name, what, n);
	*out = (const char *)p;
	return 0;
}

/*
 * The decoders read fixed fields without checking each one: a read that
 * does not fit marks the cursor bad and decode_known() reports the record
 * as truncated. They check only what needs a count or a limit.
 */
static int dec_mmap(struct rdec *d, struct cursor *c)
{
	typeof(d->rec->u.mmap) *m = &d->rec->u.mmap;

	cur_h32(c, &m->pid);
	cur_h32(c, &m->tid);
	cur_h64(c, &m->addr);
	cur_h64(c, &m->len);
	cur_h64(c, &m->pgoff);
	return take_string(d, c, "file name", &m->filename);
}

/* The build-id form of the union: u8 size, u8 + u16 reserved, u8 id[20]. */
static int mmap2_build_id(struct rdec *d, struct cursor *c)
{
	typeof(d->rec->u.mmap2) *m = &d->rec->u.mmap2;
	const uint8_t *id;

	m->has_build_id = true;
	cur_le8(c, &m->build_id_size);
	cur_skip(c, 3);
	id = cur_take(c, sizeof(m->build_id));
	if (!id)
		return 0;
	if (m->build_id_size > sizeof(m->build_id))
		return err_set(d->err, -PREC_ECORRUPT,
			       "MMAP2 record: build id of %u bytes is longer than 20",
			       m->build_id_size);
	memcpy(m->build_id, id, sizeof(m->build_id));
	return 0;
}

static int dec_mmap2(struct rdec *d, struct cursor *c)
{
	typeof(d->rec->u.mmap2) *m = &d->rec->u.mmap2;
	int ret;

	cur_h32(c, &m->pid);
	cur_h32(c, &m->tid);
	cur_h64(c, &m->addr);
	cur_h64(c, &m->len);
	cur_h64(c, &m->pgoff);
	if (d->rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		ret = mmap2_build_id(d, c);
		if (ret)
			return ret;
	} else {
		cur_h32(c, &m->maj);
		cur_h32(c, &m->min);
		cur_h64(c, &m->ino);
		cur_h64(c, &m->ino_generation);
	}
	cur_h32(c, &m->prot);
	cur_h32(c, &m->flags);
	return take_string(d, c, "file name", &m->filename);
}

static int dec_lost(struct rdec *d, struct cursor *c)
{
	cur_h64(c, &d->rec->u.lost.id);
	cur_h64(c, &d->rec->u.lost.lost);
	return 0;
}

/* PERF_RECORD_MISC_COMM_EXEC stays in rec->misc */
static int dec_comm(struct rdec *d, struct cursor *c)
{
	cur_h32(c, &d->rec->u.comm.pid);
	cur_h32(c, &d->rec->u.comm.tid);
	return take_string(d, c, "comm", &d->rec->u.comm.comm);
}

static int dec_task(struct rdec *d, struct cursor *c)
{
	typeof(d->rec->u.task) *t = &d->rec->u.task;

	cur_h32(c, &t->pid);
	cur_h32(c, &t->ppid);
	cur_h32(c, &t->tid);
	cur_h32(c, &t->ptid);
	cur_h64(c, &t->time);
	return 0;
}

static int dec_throttle(struct rdec *d, struct cursor *c)
{
	typeof(d->rec->u.throttle) *t = &d->rec->u.throttle;

	cur_h64(c, &t->time);
	cur_h64(c, &t->id);
	cur_h64(c, &t->stream_id);
	return 0;
}

/* Without an event (several events, no trailer) the read_format is only
 * known when every event has the same one. */
static int dec_read(struct rdec *d, struct cursor *c)
{
	uint64_t format;

	if (d->l)
		format = d->l->read_format;
	else if (d->ls && d->ls->nr && d->ls->same_read_format)
		format = d->ls->ev[0].read_format;
	else
		return err_set(d->err, -PREC_ECORRUPT,
			       "READ record: cannot tell which event's read_format it has");
	cur_h32(c, &d->rec->u.read.pid);
	cur_h32(c, &d->rec->u.read.tid);
	if (c->bad)
		return 0;
	return record__read_values(c, format, d->name, &d->rec->u.read.values, d->err);
}

static int dec_sample(struct rdec *d, struct cursor *c)
{
	const struct sample_plan *plan = d->ls->plans ? &d->ls->plans[d->l - d->ls->ev] : NULL;

	return record__sample(d->l, plan, c, &d->rec->u.sample, &d->rec->sid, d->err);
}

static int dec_aux(struct rdec *d, struct cursor *c)
{
	cur_h64(c, &d->rec->u.aux.aux_offset);
	cur_h64(c, &d->rec->u.aux.aux_size);
	cur_h64(c, &d->rec->u.aux.flags);
	return 0;
}

static int dec_itrace_start(struct rdec *d, struct cursor *c)
{
	cur_h32(c, &d->rec->u.itrace_start.pid);
	cur_h32(c, &d->rec->u.itrace_start.tid);
	return 0;
}

static int dec_lost_samples(struct rdec *d, struct cursor *c)
{
	cur_h64(c, &d->rec->u.lost_samples.lost);
	return 0;
}

/* SWITCH has no body; PERF_RECORD_MISC_SWITCH_OUT* say which way */
static int dec_switch(struct rdec *d, struct cursor *c)
{
	(void)d;
	(void)c;
	return 0;
}

static int dec_switch_cpu_wide(struct rdec *d, struct cursor *c)
{
	cur_h32(c, &d->rec->u.switch_cpu_wide.next_prev_pid);
	cur_h32(c, &d->rec->u.switch_cpu_wide.next_prev_tid);
	return 0;
}

static int dec_namespaces(struct rdec *d, struct cursor *c)
{
	typeof(d->rec->u.namespaces) *n = &d->rec->u.namespaces;

	cur_h32(c, &n->pid);
	cur_h32(c, &n->tid);
	if (!cur_h64(c, &n->nr) || c->bad)
		return 0;
	if (n->nr > cur_left(c) / 16)
		return err_set(d->err, -PREC_ETRUNC,
			       "NAMESPACES record: %" PRIu64 " namespaces do not fit in %zu bytes",
			       n->nr, cur_left(c));
	n->entries = cur_take(c, (size_t)n->nr * 16);
	return 0;
}

static int dec_ksymbol(struct rdec *d, struct cursor *c)
{
	typeof(d->rec->u.ksymbol) *k = &d->rec->u.ksymbol;

	cur_h64(c, &k->addr);
	cur_h32(c, &k->len);
	cur_h16(c, &k->ksym_type);
	cur_h16(c, &k->flags);
	return take_string(d, c, "symbol name", &k->name);
}

static int dec_bpf_event(struct rdec *d, struct cursor *c)
{
	typeof(d->rec->u.bpf_event) *b = &d->rec->u.bpf_event;
	const uint8_t *tag;

	cur_h16(c, &b->type);
	cur_h16(c, &b->flags);
	cur_h32(c, &b->id);
	tag = cur_take(c, sizeof(b->tag));
	if (tag)
		memcpy(b->tag, tag, sizeof(b->tag));
	return 0;
}

static int dec_cgroup(struct rdec *d, struct cursor *c)
{
	cur_h64(c, &d->rec->u.cgroup.id);
	return take_string(d, c, "cgroup path", &d->rec->u.cgroup.path);
}

/* old bytes then new bytes, then the kernel's padding to 8 bytes */
static int dec_text_poke(struct rdec *d, struct cursor *c)
{
	typeof(d->rec->u.text_poke) *t = &d->rec->u.text_poke;

	cur_h64(c, &t->addr);
	cur_h16(c, &t->old_len);
	if (!cur_h16(c, &t->new_len) || c->bad)
		return 0;
	t->bytes = cur_take(c, (size_t)t->old_len + t->new_len);
	if (!t->bytes)
		return err_set(d->err, -PREC_ETRUNC,
			       "TEXT_POKE record: %u + %u bytes of text do not fit in %zu bytes",
			       t->old_len, t->new_len, cur_left(c));
	if (cur_left(c) >= 8)
		return err_set(d->err, -PREC_ECORRUPT,
			       "TEXT_POKE record: %zu bytes after the text, more than padding",
			       cur_left(c));
	cur_skip(c, cur_left(c));
	return 0;
}

static int dec_aux_output_hw_id(struct rdec *d, struct cursor *c)
{
	cur_h64(c, &d->rec->u.aux_output_hw_id.hw_id);
	return 0;
}

struct rec_family {
	const char *name;
	int (*decode)(struct rdec *d, struct cursor *body);
};

static const struct rec_family families[PERF_RECORD_MAX] = {
	[PERF_RECORD_MMAP] = { "MMAP", dec_mmap },
	[PERF_RECORD_LOST] = { "LOST", dec_lost },
	[PERF_RECORD_COMM] = { "COMM", dec_comm },
	[PERF_RECORD_EXIT] = { "EXIT", dec_task },
	[PERF_RECORD_THROTTLE] = { "THROTTLE", dec_throttle },
	[PERF_RECORD_UNTHROTTLE] = { "UNTHROTTLE", dec_throttle },
	[PERF_RECORD_FORK] = { "FORK", dec_task },
	[PERF_RECORD_READ] = { "READ", dec_read },
	[PERF_RECORD_SAMPLE] = { "SAMPLE", dec_sample },
	[PERF_RECORD_MMAP2] = { "MMAP2", dec_mmap2 },
	[PERF_RECORD_AUX] = { "AUX", dec_aux },
	[PERF_RECORD_ITRACE_START] = { "ITRACE_START", dec_itrace_start },
	[PERF_RECORD_LOST_SAMPLES] = { "LOST_SAMPLES", dec_lost_samples },
	[PERF_RECORD_SWITCH] = { "SWITCH", dec_switch },
	[PERF_RECORD_SWITCH_CPU_WIDE] = { "SWITCH_CPU_WIDE", dec_switch_cpu_wide },
	[PERF_RECORD_NAMESPACES] = { "NAMESPACES", dec_namespaces },
	[PERF_RECORD_KSYMBOL] = { "KSYMBOL", dec_ksymbol },
	[PERF_RECORD_BPF_EVENT] = { "BPF_EVENT", dec_bpf_event },
	[PERF_RECORD_CGROUP] = { "CGROUP", dec_cgroup },
	[PERF_RECORD_TEXT_POKE] = { "TEXT_POKE", dec_text_poke },
	[PERF_RECORD_AUX_OUTPUT_HW_ID] = { "AUX_OUTPUT_HW_ID", dec_aux_output_hw_id },
};

static const struct rec_family *family(uint32_t type)
{
	if (type >= PERF_RECORD_MAX || !families[type].decode)
		return NULL;
	return &families[type];
}

const char *record_type_name(uint32_t type)
{
	const struct rec_family *f = family(type);

	return f ? f->name : NULL;
}

/* "MMAP2", or "type 70" for types without a name, for messages */
static const char *type_label(uint32_t type, char buf[24])
{
	const char *name = record_type_name(type);

	if (name)
		return name;
	snprintf(buf, 24, "type %" PRIu32, type);
	return buf;
}

/* ---- attribution and framing ------------------------------------------- */

/* The u64 at byte `off` of the record, read through a cursor. */
static bool rec_u64(const struct record *rec, size_t off, uint64_t *v)
{
	struct cursor c = cur_make(rec->bytes, rec->size);

	return cur_skip(&c, off) && cur_h64(&c, v);
}

static int find_event(struct rdec *d, size_t off)
{
	uint64_t id;
	int ev;

	if (!rec_u64(d->rec, off, &id))
		return err_set(d->err, -PREC_ETRUNC,
			       "%s record: %u bytes are too few to hold its event id",
			       d->name, d->rec->size);
	ev = record_layouts_find(d->ls, id);
	/* perf writes the records it synthesizes (the kernel map, the
	 * workload's first COMM) with id 0 and reads them as the first
	 * event's */
	if (ev < 0 && id == 0)
		ev = 0;
	if (ev < 0)
		return err_set(d->err, -PREC_ECORRUPT, "%s record: unknown event id %" PRIu64,
			       d->name, id);
	d->rec->event = ev;
	d->l = &d->ls->ev[ev];
	return 0;
}

static int cannot_attribute(struct rdec *d)
{
	return err_set(d->err, -PREC_ECORRUPT,
		       "%s record: cannot tell which of %zu events it belongs to "
		       "(they share neither PERF_SAMPLE_IDENTIFIER nor a sample_type with PERF_SAMPLE_ID)",
		       d->name, d->ls->nr);
}

/* A sample of one of several events: its id is where the shared sample
 * layout puts it, or first with PERF_SAMPLE_IDENTIFIER. */
static int attribute_sample(struct rdec *d)
{
	const uint64_t before_id = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR;
	size_t nr = record_layouts_count(d->ls);

	if (nr == 0)
		return err_set(d->err, -PREC_ECORRUPT,
			       "SAMPLE record: no event layout to decode it with");
	if (nr == 1) {
		d->rec->event = 0;
		d->l = &d->ls->ev[0];
		return 0;
	}
	switch (d->ls->how) {
	case BY_IDENTIFIER:
		return find_event(d, 8);
	case BY_ID_POS:
		return find_event(d, 8 + 8 * (size_t)__builtin_popcountll(
				  d->ls->ev[0].sample_type & before_id));
	default:
		return cannot_attribute(d);
	}
}

/* Other records: the id is in the trailer, if the events write one. With
 * several events and no trailer the record decodes unattributed. */
static int attribute_other(struct rdec *d)
{
	uint64_t st;

	if (record_layouts_count(d->ls) == 0)
		return 0;
	if (d->ls->nr == 1) {
		d->rec->event = 0;
		d->l = &d->ls->ev[0];
		return 0;
	}
	if (!d->ls->ev[0].sample_id_all)
		return 0;
	st = d->ls->ev[0].sample_type;
	switch (d->ls->how) {
	case BY_IDENTIFIER:
		if (d->rec->size < 16)
			break;
		return find_event(d, d->rec->size - 8u);
	case BY_ID_POS:
		if (d->rec->size < 8 + record__sample_id_size(st))
			break;
		return find_event(d, d->rec->size - record__sample_id_size(st) +
				  8 * (size_t)__builtin_popcountll(
					  st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME)));
	default:
		return cannot_attribute(d);
	}
	return err_set(d->err, -PREC_ETRUNC,
		       "%s record: %u bytes are too few to hold its sample_id trailer",
		       d->name, d->rec->size);
}

/* Split off the trailer; *body gets the span between header and trailer. */
static int frame_other(struct rdec *d, struct cursor *body)
{
	size_t tsize = 0;
	struct cursor tc;
	int ret = attribute_other(d);

	if (ret)
		return ret;
	if (d->l && d->l->sample_id_all)
		tsize = record__sample_id_size(d->l->sample_type);
	if (d->rec->size - 8u < tsize)
		return err_set(d->err, -PREC_ETRUNC,
			       "%s record: %u bytes cannot hold its %zu-byte sample_id trailer",
			       d->name, d->rec->size, tsize);
	tc = cur_make(d->rec->bytes + d->rec->size - tsize, tsize);
	if (tsize && record__sample_id(&tc, d->l->sample_type, &d->rec->sid))
		return err_set(d->err, -PREC_ETRUNC, "%s record: short trailer", d->name);
	*body = cur_make(d->rec->bytes + 8, d->rec->size - 8u - tsize);
	return 0;
}

static int decode_known(const struct record_layouts *ls, const struct rec_family *f,
			struct record *rec, struct err *err)
{
	struct rdec d = { ls, NULL, rec, f->name, err };
	struct cursor body;
	int ret;

	if (rec->type == PERF_RECORD_SAMPLE) {
		ret = attribute_sample(&d);
		body = cur_make(rec->bytes + 8, rec->size - 8u);
	} else {
		ret = frame_other(&d, &body);
	}
	if (!ret)
		ret = f->decode(&d, &body);
	if (ret)
		return ret;
	if (body.bad)
		return err_set(err, -PREC_ETRUNC,
			       "%s record: %zu-byte body is too short for its fields",
			       f->name, body.len);
	if (cur_left(&body))
		return err_set(err, -PREC_ECORRUPT,
			       "%s record: %zu bytes left over after its fields",
			       f->name, cur_left(&body));
	return 0;
}

/* Zeroing through the C library's memset: gcc inlines a memset of
 * struct record's constant size as `rep stos`, which costs several times
 * as much on the CPUs here (a tenth of a report's reading). noipa: no
 * clone for the constant size either (gcc's; clang, which has no such
 * attribute, builds the fuzz targets). */
#if defined(__clang__)
#define NO_IPA __attribute__((noinline))
#else
#define NO_IPA __attribute__((noipa))
#endif
NO_IPA static void zero(void *p, size_t n)
{
	memset(p, 0, n);
}

int record_decode(const struct record_layouts *ls, const void *bytes, size_t len,
		  struct record *rec, struct err *err)
{
	struct cursor c = cur_make(bytes, len);
	const struct rec_family *f;
	char label[24];

	zero(rec, sizeof(*rec));
	rec->event = -1;
	rec->bytes = bytes;
	if (!cur_h32(&c, &rec->type) || !cur_h16(&c, &rec->misc) || !cur_h16(&c, &rec->size))
		return err_set(err, -PREC_ETRUNC,
			       "record of %zu bytes is shorter than its 8-byte header", len);
	f = family(rec->type);
	if (rec->size != len)
		return err_set(err, -PREC_ECORRUPT,
			       "%s record: header gives %u bytes, %zu were given",
			       type_label(rec->type, label), rec->size, len);
	if (!f)
		return 0;
	rec->known = true;
	return decode_known(ls, f, rec, err);
}

/* ---- the time alone ----------------------------------------------------- */

/* The event of a record whose id is at id_off, or -1. */
static int peek_event(const struct record_layouts *ls, const uint8_t *p, size_t len,
		      size_t id_off)
{
	uint64_t id;
	int ev;

	if (ls->nr == 1)
		return 0;
	if (id_off + 8 > len)
		return -1;
	memcpy(&id, p + id_off, 8);
	ev = record_layouts_find(ls, id);
	if (ev < 0 && id == 0)
		ev = 0;         /* as record_decode does */
	return ev;
}

uint64_t record_peek_time(const struct record_layouts *ls, const void *bytes, size_t len)
{
	const uint64_t before_id = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR;
	const uint8_t *p = bytes;
	const struct sample_plan *pl;
	uint32_t type;
	uint64_t st, t;
	size_t off;
	int ev;

	if (len < 8 || !ls->nr)
		return 0;
	memcpy(&type, p, 4);
	if (type == PERF_RECORD_SAMPLE) {
		st = ls->ev[0].sample_type;
		if (ls->nr == 1 || ls->how == BY_IDENTIFIER)
			ev = peek_event(ls, p, len, 8);
		else if (ls->how == BY_ID_POS)
			ev = peek_event(ls, p, len, 8 + 8 * (size_t)__builtin_popcountll(st & before_id));
		else
			return 0;
		if (ev < 0 || !(pl = &ls->plans[ev])->time_off)
			return 0;
		off = pl->time_off;
	} else {
		if (!family(type) || !ls->ev[0].sample_id_all)
			return 0;
		st = ls->ev[0].sample_type;
		if (ls->nr == 1 || ls->how == BY_IDENTIFIER)
			ev = peek_event(ls, p, len, len - 8);
		else if (ls->how == BY_ID_POS && len >= 8 + record__sample_id_size(st))
			ev = peek_event(ls, p, len, len - record__sample_id_size(st) +
					8 * (size_t)__builtin_popcountll(st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME)));
		else
			return 0;
		if (ev < 0 || !(pl = &ls->plans[ev])->time_off)
			return 0;
		if (len < 8 + record__sample_id_size(ls->ev[ev].sample_type))
			return 0;
		off = len - pl->sid_time_back;
	}
	if (off + 8 > len)
		return 0;
	memcpy(&t, p + off, 8);
	return t;
}

int record_sample_event(const struct record_layouts *ls, const void *bytes, size_t len)
{
	const uint64_t before_id = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR;
	uint32_t type;

	if (len < 8 || !ls->nr)
		return -1;
	memcpy(&type, bytes, 4);
	if (type != PERF_RECORD_SAMPLE)
		return -1;
	if (ls->nr == 1 || ls->how == BY_IDENTIFIER)
		return peek_event(ls, bytes, len, 8);
	if (ls->how == BY_ID_POS)
		return peek_event(ls, bytes, len, 8 + 8 * (size_t)__builtin_popcountll(
					  ls->ev[0].sample_type & before_id));
	return -1;
}

void record_sample_offsets(const struct record_layouts *ls, int ev, struct sample_offsets *o)
{
	o->time = ls->plans[ev].time_off;
	o->period = ls->plans[ev].period_off;
}

int record_sample_head(const struct record_layouts *ls, const void *bytes, size_t len,
		       struct sample_head *h)
{
	uint32_t type = 0;
	int ev;

	if (len >= 8)
		memcpy(&type, bytes, 4);
	ev = ls->nr == 1 && type == PERF_RECORD_SAMPLE ? 0 : record_sample_event(ls, bytes, len);
	if (ev < 0 || !ls->plans[ev].head)
		return -1;
	return sample_head_read(&ls->plans[ev].hp, ev, bytes, len, h);
}

int record_sample_head_plan(const struct record_layouts *ls, struct sample_head_plan *hp)
{
	if (ls->nr != 1 || !ls->plans[0].head)
		return -1;
	*hp = ls->plans[0].hp;
	return 0;
}

void record_sample_head_of(const struct record *rec, struct sample_head *h)
{
	const struct sample *smp = &rec->u.sample;

	*h = (struct sample_head){ rec->event, smp->type, smp->ip, smp->time, smp->period,
				   smp->pid, smp->tid, smp->cpu, smp->callchain_nr, smp->callchain,
				   (smp->type & PERF_SAMPLE_STACK_USER) && smp->stack_size };
}

/* ---- walking a buffer -------------------------------------------------- */

int record_next(const void *buf, size_t len, size_t off, size_t *rec_len, struct err *err)
{
	struct cursor c = cur_make(buf, len);
	char label[24];
	uint32_t type;
	uint16_t misc, size;

	if (off == len)
		return 0;
	if (!cur_skip(&c, off))
		return err_set(err, -EINVAL, "record offset %zu is past the %zu-byte buffer",
			       off, len);
	if (!cur_h32(&c, &type) || !cur_h16(&c, &misc) || !cur_h16(&c, &size))
		return err_set(err, -PREC_ETRUNC,
			       "record at offset %zu: %zu bytes left, a header needs 8",
			       off, len - off);
	if (size < 8)
		return err_set(err, -PREC_ECORRUPT,
			       "%s record at offset %zu: size %u is smaller than its header",
			       type_label(type, label), off, size);
	if (size > len - off)
		return err_set(err, -PREC_ETRUNC,
			       "%s record at offset %zu: size %u runs past the end (%zu bytes left)",
			       type_label(type, label), off, size, len - off);
	*rec_len = size;
	return 1;
}
