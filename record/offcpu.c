/* SPDX-License-Identifier: MIT */
/*
 * prec --off-cpu and --off-cpu-thresh: the event, its attributes, the note
 * where the kernel refuses it, the threshold's drain pass and the end
 * clock (offcpu.h says what and why).
 */
#include "record.h"
#include "offcpu.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/cursor.h"
#include "format/blocks.h"
#include "format/record.h"

/* A switch-in seen in the current pass. */
struct sw_in {
	uint32_t tid;
	uint64_t time;
};

/* What a pass has taken of one ring buffer. */
struct pass_ring {
	struct buf b;
	uint32_t cpu;
};

struct offcpu_rec {
	struct pass_ring *rings;        /* s->nr_rings, with a threshold */
	size_t nr_rings;
	struct sw_in *ins;
	size_t nr_ins, cap_ins;
	uint64_t kept, dropped;         /* switch-out samples, by the threshold */
};

/* ---- options and the event -------------------------------------------------- */

int offcpu_check(struct record_opts *o, struct err *err)
{
	struct offcpu_opts *oo = &o->off;
	struct event_spec *ev;
	int ret;

	if (oo->thresh_arg) {
		char *end;
		double ms = strtod(oo->thresh_arg, &end);

		if (end == oo->thresh_arg || *end || !(ms >= 0) || !isfinite(ms) || ms > 1e9)
			return err_set(err, -EINVAL, "--off-cpu-thresh %s: expected milliseconds, "
				       "e.g. 10 or 0.5", oo->thresh_arg);
		oo->thresh_ns = (uint64_t)llround(ms * 1e6);
		oo->on = true;
	}
	if (!oo->on)
		return 0;
	if (oo->thresh_ns && o->overwrite)
		return err_set(err, -EINVAL, "--off-cpu-thresh cannot be used with --overwrite "
			       "(samples are read at a dump, not as they come)");
	ret = events_parse("context-switches", NULL, &o->events, err);
	if (ret)
		return ret;
	ev = &o->events.ev[o->events.nr - 1];
	ev->attr.freq = 0;
	ev->attr.sample_period = 1;
	ev->explicit_period = true;
	snprintf(ev->name, sizeof(ev->name), "%s", OFFCPU_EVENT_NAME);
	oo->event = o->events.nr - 1;
	return 0;
}

static bool is_offcpu(const struct session *s, size_t i)
{
	return s->opts->off.on && i == s->opts->off.event;
}

void offcpu_attr(const struct session *s, size_t i, struct perf_event_attr *a)
{
	if (!is_offcpu(s, i))
		return;
	a->freq = 0;
	a->sample_period = 1;
	a->sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
	/* the stack where the thread blocked: fp chains unless -g or
	 * --call-graph chose (dwarf adds the user stack to the kernel chain) */
	a->sample_type |= PERF_SAMPLE_CALLCHAIN;
}

int offcpu_session_open(struct session *s, struct err *err)
{
	if (!s->opts->off.on)
		return 0;
	s->offcpu = calloc(1, sizeof(*s->offcpu));
	return s->offcpu ? 0 : err_set(err, -ENOMEM, "out of memory");
}

void offcpu_session_free(struct session *s)
{
	struct offcpu_rec *r = s->offcpu;

	if (!r)
		return;
	for (size_t i = 0; i < r->nr_rings; i++)
		buf_free(&r->rings[i].b);
	free(r->rings);
	free(r->ins);
	free(r);
	s->offcpu = NULL;
}

/*
 * At perf_event_paranoid 2 the user-only fallback (advice.c) opened the
 * event as context-switches:u, which never fires: a switch-out happens in
 * kernel mode. It stays open (the kernel accepted it, and the EVENT block
 * says so with its exclude_kernel bit), named offcpu-time as asked, and the
 * report takes each thread's off-CPU time from the switch records alone.
 */
bool offcpu_note(struct session *s, FILE *out)
{
	const struct offcpu_opts *oo = &s->opts->off;
	struct event_spec *ev;

	if (!oo->on || !s->attrs || !s->attrs[oo->event].exclude_kernel)
		return false;
	ev = &s->events[oo->event];
	snprintf(ev->name, sizeof(ev->name), "%s", OFFCPU_EVENT_NAME);
	if (!out)
		return true;
	if (oo->event && s->attrs[0].exclude_kernel)
		fprintf(out, "prec: perf_event_paranoid is %d: measuring user space only (%s), and "
			"off-CPU time per thread without stacks (a context switch happens in the "
			"kernel); for the kernel and the stacks, lower it to 1 or give prec "
			"CAP_PERFMON (setcap cap_perfmon+ep prec)\n", perf_paranoid(),
			s->events[0].name);
	else
		fprintf(out, "prec: perf_event_paranoid is %d: off-CPU time per thread without "
			"stacks (a context switch happens in the kernel); for the stacks, lower it "
			"to 1 or give prec CAP_PERFMON (setcap cap_perfmon+ep prec)\n",
			perf_paranoid());
	return true;
}

/* ---- the threshold's pass --------------------------------------------------- */

bool offcpu_pass_active(const struct session *s)
{
	return s->offcpu && s->opts->off.thresh_ns;
}

int offcpu_pass_take(struct session *s, size_t r, const void *a, size_t na, const void *b,
		     size_t nb, struct err *err)
{
	struct offcpu_rec *o = s->offcpu;

	if (!o->rings) {
		o->rings = calloc(s->nr_rings, sizeof(*o->rings));
		if (!o->rings)
			return err_set(err, -ENOMEM, "out of memory");
		o->nr_rings = s->nr_rings;
	}
	if (r >= o->nr_rings)
		return err_set(err, -EINVAL, "ring %zu past the %zu rings", r, o->nr_rings);
	o->rings[r].cpu = (uint32_t)s->rings[r].cpu;
	if (buf_append(&o->rings[r].b, a, na) || buf_append(&o->rings[r].b, b, nb))
		return err_set(err, -ENOMEM, "out of memory");
	return 0;
}

static bool is_switch_in(const struct record *rec)
{
	return (rec->type == PERF_RECORD_SWITCH || rec->type == PERF_RECORD_SWITCH_CPU_WIDE) &&
	       !(rec->misc & PERF_RECORD_MISC_SWITCH_OUT) && (rec->sid.fields & PERF_SAMPLE_TIME);
}

static int ins_cmp(const void *pa, const void *pb)
{
	const struct sw_in *a = pa, *b = pb;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->time < b->time ? -1 : a->time > b->time;
}

/* Every switch-in of the pass, sorted by thread and time. */
static int collect_ins(struct session *s, struct offcpu_rec *o, struct err *err)
{
	o->nr_ins = 0;
	for (size_t r = 0; r < o->nr_rings; r++) {
		const struct buf *b = &o->rings[r].b;
		size_t off = 0, len;
		int ret;

		while ((ret = record_next(b->data, b->len, off, &len, err)) > 0) {
			const uint8_t *p = b->data + off;
			struct record rec;

			off += len;
			if ((p[0] != PERF_RECORD_SWITCH && p[0] != PERF_RECORD_SWITCH_CPU_WIDE) ||
			    record_decode(s->layouts, p, len, &rec, NULL) || !is_switch_in(&rec))
				continue;
			if (array_grow((void **)&o->ins, &o->cap_ins, o->nr_ins + 1, sizeof(*o->ins)))
				return err_set(err, -ENOMEM, "out of memory");
			o->ins[o->nr_ins++] = (struct sw_in){ rec.sid.tid, rec.sid.time };
		}
		if (ret < 0)
			return ret;
	}
	qsort(o->ins, o->nr_ins, sizeof(*o->ins), ins_cmp);
	return 0;
}

/* The thread's first switch-in at or after t in this pass, or NULL. */
static const struct sw_in *next_in(const struct offcpu_rec *o, uint32_t tid, uint64_t t)
{
	size_t lo = 0, hi = o->nr_ins;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct sw_in *x = &o->ins[mid];

		if (x->tid < tid || (x->tid == tid && x->time < t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < o->nr_ins && o->ins[lo].tid == tid ? &o->ins[lo] : NULL;
}

/* A switch-out sample whose wait ended, in this pass, under the threshold. */
static bool short_wait(const struct session *s, const struct offcpu_rec *o, const uint8_t *p,
		       size_t len)
{
	const struct sw_in *in;
	struct record rec;

	if (p[0] != PERF_RECORD_SAMPLE || len < 16 ||
	    record_layouts_find(s->layouts, u64_at(p + 8, 0)) != (int)s->opts->off.event ||
	    record_decode(s->layouts, p, len, &rec, NULL) ||
	    !(rec.u.sample.type & PERF_SAMPLE_TIME))
		return false;
	in = next_in(o, rec.u.sample.tid, rec.u.sample.time);
	return in && in->time - rec.u.sample.time < s->opts->off.thresh_ns;
}

/* Keep what the threshold keeps, in place. */
static int compact_ring(struct session *s, struct offcpu_rec *o, struct buf *b, struct err *err)
{
	size_t off = 0, out = 0, len;
	int ret;

	while ((ret = record_next(b->data, b->len, off, &len, err)) > 0) {
		const uint8_t *p = b->data + off;

		if (p[0] == PERF_RECORD_SAMPLE &&
		    record_layouts_find(s->layouts, u64_at(p + 8, 0)) == (int)s->opts->off.event) {
			if (short_wait(s, o, p, len)) {
				o->dropped++;
				off += len;
				continue;
			}
			o->kept++;
		}
		if (out != off)
			memmove(b->data + out, p, len);
		out += len;
		off += len;
	}
	b->len = out;
	return ret;
}

int offcpu_pass_write(struct session *s, struct container_writer *w, struct err *err)
{
	struct offcpu_rec *o = s->offcpu;
	int ret = collect_ins(s, o, err);

	for (size_t r = 0; !ret && r < o->nr_rings; r++) {
		struct buf *b = &o->rings[r].b;

		if (!b->len)
			continue;
		ret = compact_ring(s, o, b, err);
		if (!ret && b->len)
			ret = container_write_records(w, o->rings[r].cpu, b->data, b->len, NULL, 0, err);
		buf_reset(b);
	}
	return ret;
}

void offcpu_print_stats(const struct session *s, FILE *out)
{
	if (offcpu_pass_active(s))
		fprintf(out, "prec: --off-cpu-thresh: kept %llu switch-out stacks, left out %llu "
			"of shorter waits\n", (unsigned long long)s->offcpu->kept,
			(unsigned long long)s->offcpu->dropped);
}

/* ---- the end clock ---------------------------------------------------------- */

/*
 * The record clock now, as the kernel reads it: a dummy event on prec
 * itself, with a one-page ring, gets a COMM record when prec sets its own
 * name again (prctl PR_SET_NAME), and that record's sample_id carries the
 * time. (The control page's TSC conversion, cap_user_time_zero, would do
 * without an event, but virtual machines with a paravirtual sched_clock do
 * not offer it.) False where the kernel refuses the event.
 */
static bool clock_probe(const struct record_opts *o, uint64_t *now)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .config = PERF_COUNT_SW_DUMMY, .sample_type = PERF_SAMPLE_TIME,
				     .sample_id_all = 1, .comm = 1, .exclude_kernel = 1,
				     .exclude_hv = 1 };
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char name[32] = "";
	bool ok = false;
	void *base;
	int fd;

	a.use_clockid = o->sample.use_clockid;
	a.clockid = o->sample.use_clockid ? o->sample.clockid : 0;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	base = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base != MAP_FAILED) {
		struct perf_event_mmap_page *pc = base;
		const uint8_t *data = (const uint8_t *)base + page;
		uint64_t head;

		prctl(PR_GET_NAME, name);
		prctl(PR_SET_NAME, name);
		/* pairs with the kernel's release store of data_head (drain.c) */
		head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
		for (uint64_t off = 0; off + 16 <= head && off + 16 <= page;) {
			struct perf_event_header h;

			memcpy(&h, data + off, sizeof(h));
			if (h.size < 16 || off + h.size > page)
				break;
			if (h.type == PERF_RECORD_COMM) {
				memcpy(now, data + off + h.size - 8, 8);  /* the trailer: TIME */
				ok = true;
				break;
			}
			off += h.size;
		}
		munmap(base, 2 * page);
	}
	close(fd);
	return ok;
}

int offcpu_write_end_clock(struct session *s, struct container_writer *w, struct err *err)
{
	struct metadata m = { 0 };
	struct buf b = BUF_INIT;
	uint64_t now = 0;
	int ret;

	if (!s->opts->off.on || !clock_probe(s->opts, &now))
		return 0;
	ret = metadata_set_u64(&m, META_END_CLOCK_NS, now) || metadata_encode(&m, &b) ?
	      err_set(err, -ENOMEM, "out of memory") :
	      container_write_block(w, BLOCK_METADATA, b.data, b.len, err);
	metadata_free(&m);
	buf_free(&b);
	return ret;
}
