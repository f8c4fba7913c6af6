/* SPDX-License-Identifier: MIT */
/* Off-CPU time from context switches; see offcpu.h. */
#include "offcpu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "format/blocks.h"
#include "load.h"
#include "session.h"

/* ---- the pairing ------------------------------------------------------------- */

struct offcpu_thread {
	uint32_t pid, tid;
	uint64_t out;           /* time of the switch-out, 0: on CPU (or unknown) */
	uint32_t cpu;           /* of the switch-out */
	bool preempted;
	uint64_t stack_time;    /* the stack held since the last switch-in, 0: none */
	uint64_t cgroup;
	uint64_t *addrs;
	bool *kernel;
	size_t nr, cap;
};

struct tid_key {
	const struct offcpu_pairs *p;
	uint32_t tid;
};

static bool tid_eq(void *ctx, uint32_t idx)
{
	const struct tid_key *k = ctx;

	return k->p->t[idx].tid == k->tid;
}

static struct offcpu_thread *find(const struct offcpu_pairs *p, uint32_t tid)
{
	struct tid_key k = { p, tid };
	uint32_t idx;

	return hmap_find(&p->idx, hash_u64(tid), tid_eq, &k, &idx) ? &p->t[idx] : NULL;
}

static struct offcpu_thread *get(struct offcpu_pairs *p, uint32_t pid, uint32_t tid)
{
	struct offcpu_thread *t = find(p, tid);

	if (!t) {
		if (array_grow((void **)&p->t, &p->cap, p->nr + 1, sizeof(*p->t)) ||
		    hmap_insert(&p->idx, hash_u64(tid), (uint32_t)p->nr))
			return NULL;
		t = &p->t[p->nr++];
		memset(t, 0, sizeof(*t));
		t->tid = tid;
	}
	t->pid = pid;
	return t;
}

static void note_time(struct offcpu_pairs *p, uint64_t time)
{
	if (time > p->newest)
		p->newest = time;
}

int offcpu_pairs_out(struct offcpu_pairs *p, uint32_t pid, uint32_t tid, uint64_t time,
		     uint32_t cpu, bool preempted)
{
	struct offcpu_thread *t = get(p, pid, tid);

	if (!t)
		return -ENOMEM;
	note_time(p, time);
	if (t->out)
		p->unpaired++;  /* its switch-in was lost */
	t->out = time;
	t->cpu = cpu;
	t->preempted = preempted;
	return 0;
}

int offcpu_pairs_stack(struct offcpu_pairs *p, uint32_t pid, uint32_t tid, uint64_t time,
		       const uint64_t *addrs, const bool *kernel, size_t nr, uint64_t cgroup)
{
	struct offcpu_thread *t = get(p, pid, tid);

	if (!t)
		return -ENOMEM;
	note_time(p, time);
	if (nr > t->cap) {
		uint64_t *a = array_realloc(t->addrs, nr, sizeof(*a));
		bool *k;

		if (!a)
			return -ENOMEM;
		t->addrs = a;
		k = array_realloc(t->kernel, nr, sizeof(*k));
		if (!k)
			return -ENOMEM;
		t->kernel = k;
		t->cap = nr;
	}
	memcpy(t->addrs, addrs, nr * sizeof(*addrs));
	memcpy(t->kernel, kernel, nr * sizeof(*kernel));
	t->nr = nr;
	t->stack_time = time ? time : 1;
	t->cgroup = cgroup;
	return 0;
}

/* The thread's wait, ending at end, to fn; the thread is on CPU again. */
static int close_wait(struct offcpu_thread *t, uint64_t end, uint32_t cpu, bool open,
		      offcpu_wait_fn fn, void *ctx)
{
	struct offcpu_wait w = { .pid = t->pid, .tid = t->tid, .end = end, .cpu = cpu,
				 .preempted = t->preempted, .open = open };
	int ret = 0;

	/* a lost switch-out record: the stack's sample was just before it */
	w.start = t->out ? t->out : t->stack_time;
	if (t->stack_time) {
		w.addrs = t->addrs;
		w.kernel = t->kernel;
		w.nr = t->nr;
		w.cgroup = t->cgroup;
	}
	if (w.start && end >= w.start)
		ret = fn(ctx, &w);
	t->out = 0;
	t->stack_time = 0;
	t->preempted = false;
	return ret;
}

int offcpu_pairs_in(struct offcpu_pairs *p, uint32_t tid, uint64_t time, uint32_t cpu,
		    offcpu_wait_fn fn, void *ctx)
{
	struct offcpu_thread *t = find(p, tid);

	note_time(p, time);
	if (!t || (!t->out && !t->stack_time))
		return 0;       /* on CPU since before the recording */
	return close_wait(t, time, cpu, false, fn, ctx);
}

void offcpu_pairs_exit(struct offcpu_pairs *p, uint32_t tid)
{
	struct offcpu_thread *t = find(p, tid);

	if (t) {
		t->out = 0;
		t->stack_time = 0;
	}
}

int offcpu_pairs_end(struct offcpu_pairs *p, uint64_t end, offcpu_wait_fn fn, void *ctx)
{
	int ret = 0;

	if (p->newest > end)
		end = p->newest;
	for (size_t i = 0; i < p->nr && !ret; i++) {
		struct offcpu_thread *t = &p->t[i];

		if (t->out || t->stack_time)
			ret = close_wait(t, end, t->cpu, true, fn, ctx);
	}
	offcpu_pairs_free(p);
	return ret;
}

void offcpu_pairs_free(struct offcpu_pairs *p)
{
	for (size_t i = 0; i < p->nr; i++) {
		free(p->t[i].addrs);
		free(p->t[i].kernel);
	}
	free(p->t);
	hmap_free(&p->idx);
	memset(p, 0, sizeof(*p));
}

/* ---- the loader's part ------------------------------------------------------- */

struct offcpu {
	bool wall;
	bool seen;
	int file_ev;            /* the file's offcpu-time event, -1: none */
	int ev;                 /* its index in the reading */
	unsigned ktab;          /* the file's kernel symbols */
	struct offcpu_pairs pairs;
	struct thread **marked; /* copies of threads under the command with the mark */
	size_t nr_marked;
	/* during offcpu_record and offcpu_file_end */
	struct machine *m;
	offcpu_deliver_fn fn;
	void *ctx;
};

struct offcpu *offcpu_new(bool wall)
{
	struct offcpu *o = calloc(1, sizeof(*o));

	if (o) {
		o->wall = wall;
		o->file_ev = -1;
	}
	return o;
}

void offcpu_free(struct offcpu *o)
{
	if (!o)
		return;
	offcpu_pairs_free(&o->pairs);
	for (size_t i = 0; i < o->nr_marked; i++)
		free(o->marked[i]);
	free(o->marked);
	free(o);
}

bool offcpu_event_attr(const char *name, const struct perf_event_attr *a)
{
	return name && !strcmp(name, OFFCPU_EVENT) && a->type == PERF_TYPE_SOFTWARE &&
	       a->config == PERF_COUNT_SW_CONTEXT_SWITCHES;
}

static bool is_offcpu_event(const struct session *s, size_t i, const char *name)
{
	return offcpu_event_attr(name, &s->events[i].attr);
}

static bool is_clock_event(const struct session *s, size_t i)
{
	const struct perf_event_attr *a = &s->events[i].attr;

	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

bool offcpu_weighted_event(const char *name)
{
	return !strcmp(name, OFFCPU_EVENT) || !strcmp(name, OFFCPU_WALL_NAME);
}

bool offcpu_event_stackless(const struct session *s, size_t i)
{
	return is_offcpu_event(s, i, session_event_name(s, (int)i)) &&
	       s->events[i].attr.exclude_kernel;
}

const char *offcpu_event_name(const struct offcpu *o, const struct session *s, size_t i,
			      const char *name)
{
	if (o->wall && (is_clock_event(s, i) || is_offcpu_event(s, i, name)))
		return OFFCPU_WALL_NAME;
	return name;
}

void offcpu_file_begin(struct offcpu *o, const struct session *s, size_t file,
		       const int *event_map)
{
	o->file_ev = -1;
	o->ktab = (unsigned)file + 1;
	for (size_t i = 0; i < s->nr_events && i < LOAD_MAX_EVENTS; i++)
		if (is_offcpu_event(s, i, session_event_name(s, (int)i))) {
			o->file_ev = (int)i;
			o->ev = event_map[i];
			o->seen = true;
		}
}

bool offcpu_holds(const struct offcpu *o, int ev)
{
	return o->file_ev >= 0 && ev == o->file_ev;
}

bool offcpu_seen(const struct offcpu *o)
{
	return o->seen;
}

uint64_t offcpu_span_end(const struct session *s, uint64_t last)
{
	uint64_t end;

	for (size_t i = 0; i < s->nr_events; i++)
		if (is_offcpu_event(s, i, session_event_name(s, (int)i)))
			return metadata_get_u64(&s->meta, META_END_CLOCK_NS, &end) && end > last ?
			       end : last;
	return last;
}

int offcpu_stack(struct offcpu *o, const struct record *rec, const struct thread *t,
		 const uint64_t *addrs, const bool *kernel, size_t nr)
{
	const struct sample *smp = &rec->u.sample;

	if (t->exited)
		return 0;       /* its last switch, after its EXIT (-a): it never comes back */
	return offcpu_pairs_stack(&o->pairs, smp->pid, smp->tid, smp->time, addrs, kernel, nr,
				  (smp->type & PERF_SAMPLE_CGROUP) ? smp->cgroup : 0);
}

/* The thread as shown for a wait still open at the end: a copy, under its
 * command with the mark. NULL on ENOMEM. */
static struct thread *marked_thread(struct offcpu *o, struct thread *t)
{
	char comm[256];
	struct thread *c, **grown;

	for (size_t i = 0; i < o->nr_marked; i++)
		if (o->marked[i]->tid == t->tid && o->marked[i]->proc == t->proc)
			return o->marked[i];
	snprintf(comm, sizeof(comm), "%s%s", t->comm, OFFCPU_OPEN_MARK);
	c = malloc(sizeof(*c));
	grown = c ? array_realloc(o->marked, o->nr_marked + 1, sizeof(*grown)) : NULL;
	if (!grown) {
		free(c);
		return NULL;
	}
	o->marked = grown;
	*c = *t;
	c->comm = machine_intern(o->m, comm);
	if (!c->comm) {
		free(c);
		return NULL;
	}
	o->marked[o->nr_marked++] = c;
	return c;
}

/* A wait as an offcpu-time sample: timed at its end, weighted by its length. */
static int deliver_wait(void *ctx, const struct offcpu_wait *w)
{
	struct offcpu *o = ctx;
	struct record rec = { .type = PERF_RECORD_SAMPLE, .known = true, .event = o->file_ev };
	struct sample *smp = &rec.u.sample;
	struct load_sample ls = { .event = o->ev, .count = 1, .rec = &rec, .kernel_table = o->ktab };
	const uint64_t none = 0;
	const bool user = false;

	if (w->preempted && !o->wall)
		return 0;
	smp->type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | (w->nr ? PERF_SAMPLE_CALLCHAIN : 0) |
		    (w->cgroup ? PERF_SAMPLE_CGROUP : 0);
	smp->ip = w->nr ? w->addrs[0] : 0;
	smp->pid = w->pid;
	smp->tid = w->tid;
	smp->time = w->end;
	smp->cpu = w->cpu;
	smp->period = w->end > w->start ? w->end - w->start : 1;
	smp->callchain_nr = w->nr;
	smp->cgroup = w->cgroup;
	rec.misc = w->nr && w->kernel[0] ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	ls.period = smp->period;
	ls.thread = machine_thread(o->m, w->pid, w->tid);
	if (ls.thread && w->open)
		ls.thread = marked_thread(o, ls.thread);
	if (!ls.thread)
		return -ENOMEM;
	ls.addrs = w->nr ? w->addrs : &none;
	ls.kernel = w->nr ? w->kernel : &user;
	ls.nr = w->nr ? w->nr : 1;
	return o->fn(o->ctx, &ls);
}

int offcpu_record(struct offcpu *o, struct machine *m, const struct record *rec,
		  offcpu_deliver_fn fn, void *ctx)
{
	const struct sample_id *sid = &rec->sid;
	const struct thread *t;

	if (o->file_ev < 0)
		return 0;
	if (rec->type == PERF_RECORD_EXIT) {
		offcpu_pairs_exit(&o->pairs, rec->u.task.tid);
		return 0;
	}
	if ((rec->type != PERF_RECORD_SWITCH && rec->type != PERF_RECORD_SWITCH_CPU_WIDE) ||
	    !(sid->fields & PERF_SAMPLE_TID) || !(sid->fields & PERF_SAMPLE_TIME) || !sid->tid)
		return 0;       /* the idle task (-a) is never off CPU */
	o->m = m;
	o->fn = fn;
	o->ctx = ctx;
	if (!(rec->misc & PERF_RECORD_MISC_SWITCH_OUT))
		return offcpu_pairs_in(&o->pairs, sid->tid, sid->time, sid->cpu, deliver_wait, o);
	t = machine_thread(m, sid->pid, sid->tid);
	if (!t)
		return -ENOMEM;
	if (t->exited)
		return 0;       /* its last switch, as for its stack */
	return offcpu_pairs_out(&o->pairs, sid->pid, sid->tid, sid->time, sid->cpu,
				!!(rec->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT));
}

int offcpu_file_end(struct offcpu *o, struct machine *m, const struct session *s,
		    offcpu_deliver_fn fn, void *ctx)
{
	uint64_t end = 0;
	int ret;

	if (o->file_ev < 0)
		return 0;
	o->m = m;
	o->fn = fn;
	o->ctx = ctx;
	/* prec's end clock, else the newest sample (the pairing takes the
	 * newest switch it met, if later) */
	if (!metadata_get_u64(&s->meta, META_END_CLOCK_NS, &end) || end < s->last_time)
		end = s->last_time;
	ret = offcpu_pairs_end(&o->pairs, end, deliver_wait, o);
	o->file_ev = -1;
	return ret;
}
