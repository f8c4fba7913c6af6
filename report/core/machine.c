/* SPDX-License-Identifier: MIT */
/* The report's machine model; see machine.h. */
#include "machine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

#define KERNEL_PID 0xffffffffu

void machine_init(struct machine *m)
{
	memset(m, 0, sizeof(*m));
}

void machine_free(struct machine *m)
{
	for (size_t i = 0; i < m->nr_threads; i++)
		free(m->threads[i]);
	for (size_t i = 0; i < m->nr_procs; i++) {
		free(m->procs[i]->maps.m);
		free(m->procs[i]);
	}
	for (size_t i = 0; i < m->nr_dsos; i++) {
		free(m->dsos[i]->path);
		free(m->dsos[i]);
	}
	for (size_t i = 0; i < m->nr_strs; i++)
		free(m->strs[i]);
	free(m->threads);
	free(m->procs);
	free(m->dsos);
	free(m->strs);
	free(m->cgroups);
	free(m->kernel.m);
	hmap_free(&m->thread_idx);
	hmap_free(&m->proc_idx);
	hmap_free(&m->dso_idx);
	hmap_free(&m->str_idx);
	memset(m, 0, sizeof(*m));
}

struct str_key {
	struct machine *m;
	const char *s;
};

static bool str_eq(void *ctx, uint32_t idx)
{
	struct str_key *k = ctx;

	return !strcmp(k->m->strs[idx], k->s);
}

const char *machine_intern(struct machine *m, const char *s)
{
	struct str_key k = { m, s };
	uint64_t h = hash_bytes(s, strlen(s), 1);
	uint32_t idx;
	char *copy;

	if (hmap_find(&m->str_idx, h, str_eq, &k, &idx))
		return m->strs[idx];
	if (array_grow((void **)&m->strs, &m->cap_strs, m->nr_strs + 1, sizeof(char *)))
		return NULL;
	copy = strdup(s);
	if (!copy || hmap_insert(&m->str_idx, h, (uint32_t)m->nr_strs)) {
		free(copy);
		return NULL;
	}
	m->strs[m->nr_strs++] = copy;
	return copy;
}

static bool dso_eq(void *ctx, uint32_t idx)
{
	struct str_key *k = ctx;

	return !strcmp(k->m->dsos[idx]->path, k->s);
}

struct dso *machine_dso(struct machine *m, const char *path)
{
	struct str_key k = { m, path };
	uint64_t h = hash_bytes(path, strlen(path), 2);
	struct dso *d;
	uint32_t idx;
	unsigned jit_pid;
	const char *slash;

	if (hmap_find(&m->dso_idx, h, dso_eq, &k, &idx))
		return m->dsos[idx];
	if (array_grow((void **)&m->dsos, &m->cap_dsos, m->nr_dsos + 1, sizeof(*m->dsos)))
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->path = strdup(path)) || hmap_insert(&m->dso_idx, h, (uint32_t)m->nr_dsos)) {
		if (d)
			free(d->path);
		free(d);
		return NULL;
	}
	slash = strrchr(d->path, '/');
	d->short_name = slash && d->path[0] == '/' ? slash + 1 : d->path;
	d->kernel = d->path[0] == '[' && (!strncmp(d->path, "[kernel.kallsyms]", 17) ||
					  !strchr(d->path, '/'));
	if (!strcmp(d->path, "[heap]") || !strcmp(d->path, "[stack]") || !strcmp(d->path, "[vdso]") ||
	    !strcmp(d->path, "[vsyscall]") || !strcmp(d->path, "[vvar]") ||
	    !strncmp(d->path, "//anon", 6) || !strncmp(d->path, "/dev/zero", 9) ||
	    !strncmp(d->path, "/memfd:", 7) || !strncmp(d->path, "[anon", 5))
		d->anon = true, d->kernel = false;
	if (sscanf(d->path, "/tmp/perf-%u.map", &jit_pid) == 1) {
		snprintf(d->name_buf, sizeof(d->name_buf), "[JIT] tid %u", jit_pid);
		d->short_name = d->name_buf;
		d->anon = d->identity = true;
	}
	d->identity |= !strcmp(d->path, "//anon") || !strncmp(d->path, "/dev/zero", 9) ||
		      !strncmp(d->path, "/anon_hugepage", 14) || !strncmp(d->path, "[stack", 6) ||
		      !strncmp(d->path, "/SYSV", 5) || !strcmp(d->path, "[heap]");
	if (!strncmp(d->path, "[kernel.kallsyms]", 17)) {
		d->short_name = "[kernel.kallsyms]";
		m->kernel_dso = m->kernel_dso ? m->kernel_dso : d;
	}
	d->idx = (uint32_t)m->nr_dsos;
	m->dsos[m->nr_dsos++] = d;
	return d;
}

void machine_dso_build_id(struct dso *d, const uint8_t *id, size_t n)
{
	if (!n || n > sizeof(d->build_id) || d->build_id_size)
		return;
	memcpy(d->build_id, id, n);
	d->build_id_size = (uint8_t)n;
	/* found by its build id (perf's cache keeps the vdso) */
	if (!strcmp(d->path, "[vdso]"))
		d->anon = false;
}

/* A pid or tid looked up in its table. */
struct id_key {
	const struct machine *m;
	uint32_t id;
};

static bool proc_eq(void *ctx, uint32_t idx)
{
	const struct id_key *k = ctx;

	return k->m->procs[idx]->pid == k->id;
}

static struct proc *find_proc(struct machine *m, uint32_t pid, bool create)
{
	struct id_key k = { m, pid };
	uint32_t idx;
	struct proc *p;

	if (hmap_find(&m->proc_idx, hash_u64(pid), proc_eq, &k, &idx))
		return m->procs[idx];
	if (!create || array_grow((void **)&m->procs, &m->cap_procs, m->nr_procs + 1, sizeof(*m->procs)))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p || hmap_insert(&m->proc_idx, hash_u64(pid), (uint32_t)m->nr_procs)) {
		free(p);
		return NULL;
	}
	p->pid = pid;
	m->procs[m->nr_procs++] = p;
	return p;
}

static bool thread_eq(void *ctx, uint32_t idx)
{
	const struct id_key *k = ctx;

	return k->m->threads[idx]->tid == k->id;
}

static struct thread *find_thread(struct machine *m, uint32_t tid)
{
	struct id_key k = { m, tid };
	uint32_t idx;

	if (hmap_find(&m->thread_idx, hash_u64(tid), thread_eq, &k, &idx))
		return m->threads[idx];
	return NULL;
}

/* A new thread record for tid (replacing, for lookups, an older one with the
 * same tid: tids are reused). */
static struct thread *new_thread(struct machine *m, uint32_t pid, uint32_t tid, const char *comm)
{
	struct id_key k = { m, tid };
	struct thread *t;
	uint32_t idx;

	if (array_grow((void **)&m->threads, &m->cap_threads, m->nr_threads + 1, sizeof(*m->threads)))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = pid;
	t->tid = tid;
	t->comm = comm;
	t->proc = find_proc(m, pid, true);
	if (!t->proc) {
		free(t);
		return NULL;
	}
	if (hmap_find(&m->thread_idx, hash_u64(tid), thread_eq, &k, &idx)) {
		/* reuse the slot for lookups; keep the old one alive for pointers */
		m->threads[m->nr_threads++] = m->threads[idx];
		m->threads[idx] = t;
		return t;
	}
	if (hmap_insert(&m->thread_idx, hash_u64(tid), (uint32_t)m->nr_threads)) {
		free(t);
		return NULL;
	}
	m->threads[m->nr_threads++] = t;
	return t;
}

struct thread *machine_thread(struct machine *m, uint32_t pid, uint32_t tid)
{
	struct thread *t = find_thread(m, tid);
	char name[32];
	const char *comm;

	if (t && (t->pid == pid || pid == KERNEL_PID))
		return t;
	/* perf's idle thread is "swapper" */
	if (tid)
		snprintf(name, sizeof(name), ":%u", tid);
	else
		snprintf(name, sizeof(name), "swapper");
	comm = machine_intern(m, name);
	if (!comm)
		return NULL;
	/* A thread of a known process takes the process's command name. */
	if (pid != tid) {
		struct thread *leader = find_thread(m, pid);

		if (leader && leader->pid == pid)
			comm = leader->comm;
	}
	m->unknown_threads++;
	return new_thread(m, pid, tid, comm);
}

static int maps_insert(struct maps *ms, uint64_t start, uint64_t end, uint64_t pgoff,
		       struct dso *dso)
{
	size_t i = 0, lo = 0, hi = ms->nr;

	if (end <= start)
		return 0;
	/* Cut what the new map covers out of the existing ones. */
	for (i = 0; i < ms->nr; i++) {
		struct map *o = &ms->m[i];

		if (o->end <= start || o->start >= end)
			continue;
		if (o->start < start && o->end > end) {
			/* the new one punches a hole: split */
			struct map tail = *o;

			if (array_grow((void **)&ms->m, &ms->cap, ms->nr + 1, sizeof(*ms->m)))
				return -ENOMEM;
			o = &ms->m[i];
			tail.pgoff += end - o->start;
			tail.start = end;
			o->end = start;
			memmove(&ms->m[i + 2], &ms->m[i + 1], (ms->nr - i - 1) * sizeof(*ms->m));
			ms->m[i + 1] = tail;
			ms->nr++;
			break;
		}
		if (o->start < start) {
			o->end = start;
		} else if (o->end > end) {
			o->pgoff += end - o->start;
			o->start = end;
		} else {
			memmove(&ms->m[i], &ms->m[i + 1], (ms->nr - i - 1) * sizeof(*ms->m));
			ms->nr--;
			i--;
		}
	}
	if (array_grow((void **)&ms->m, &ms->cap, ms->nr + 1, sizeof(*ms->m)))
		return -ENOMEM;
	hi = ms->nr;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ms->m[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&ms->m[lo + 1], &ms->m[lo], (ms->nr - lo) * sizeof(*ms->m));
	ms->m[lo] = (struct map){ start, end, pgoff, dso };
	ms->nr++;
	return 0;
}

static const struct map *maps_find(const struct maps *ms, uint64_t addr)
{
	size_t lo = 0, hi = ms->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ms->m[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ms->nr && ms->m[lo].start <= addr && addr < ms->m[lo].end)
		return &ms->m[lo];
	return NULL;
}

const struct map *machine_find_map(struct machine *m, const struct thread *t, uint64_t addr,
				   bool kernel)
{
	const struct map *mp;

	if (kernel) {
		mp = maps_find(&m->kernel, addr);
		return mp;
	}
	return t && t->proc ? maps_find(&t->proc->maps, addr) : NULL;
}

static int do_mmap(struct machine *m, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		   const char *filename, const uint8_t *bid, uint8_t bid_size, bool kernel_mode)
{
	struct dso *d;
	struct proc *p;
	char jit[64];

	/* perf gives a process's anonymous executable memory the JIT symbol
	 * file of that process (/tmp/perf-PID.map), shown as "[JIT] tid PID" */
	if (!strcmp(filename, "//anon") || !strncmp(filename, "/anon_hugepage", 14)) {
		snprintf(jit, sizeof(jit), "/tmp/perf-%u.map", pid);
		filename = jit;
	}
	d = machine_dso(m, filename);
	if (!d)
		return -ENOMEM;
	m->maps_gen++;
	machine_dso_build_id(d, bid, bid_size);
	if (pid == KERNEL_PID || kernel_mode) {
		/* The kernel map as prec and perf synthesize it: [kernel.kallsyms]_text
		 * from _text, with len running to the end of the address space. */
		if (!strncmp(filename, "[kernel.kallsyms]", 17))
			d->kernel = true;
		return maps_insert(&m->kernel, start, start + len < start ? UINT64_MAX : start + len,
				   pgoff, d);
	}
	p = find_proc(m, pid, true);
	if (!p)
		return -ENOMEM;
	p->gen = m->maps_gen;
	return maps_insert(&p->maps, start, start + len, pgoff, d);
}

const char *machine_cgroup_path(const struct machine *m, uint64_t id)
{
	for (size_t i = m->nr_cgroups; i-- > 0;)
		if (m->cgroups[i].id == id)
			return m->cgroups[i].path;
	return NULL;
}

static int add_cgroup(struct machine *m, uint64_t id, const char *path)
{
	const char *p = machine_intern(m, path);

	for (size_t i = 0; p && i < m->nr_cgroups; i++)
		if (m->cgroups[i].id == id) {
			m->cgroups[i].path = p;
			return 0;
		}
	if (!p || array_grow((void **)&m->cgroups, &m->cap_cgroups, m->nr_cgroups + 1,
			     sizeof(*m->cgroups)))
		return -ENOMEM;
	m->cgroups[m->nr_cgroups++] = (struct cgroup_name){ id, p };
	return 0;
}

enum machine_scope machine_record_scope(const struct record *rec, uint32_t *pid)
{
	bool kmode = (rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;

	switch (rec->type) {
	case PERF_RECORD_COMM:
		*pid = rec->u.comm.pid;
		return MACHINE_SCOPE_PROCESS;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		*pid = rec->u.task.pid;
		return MACHINE_SCOPE_PROCESS;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		/* the same pid for both layouts (do_mmap's) */
		*pid = rec->type == PERF_RECORD_MMAP ? rec->u.mmap.pid : rec->u.mmap2.pid;
		return *pid == KERNEL_PID || kmode ? MACHINE_SCOPE_ALL : MACHINE_SCOPE_PROCESS;
	case PERF_RECORD_CGROUP:
		return MACHINE_SCOPE_ALL;
	}
	return MACHINE_SCOPE_NONE;
}

int machine_process(struct machine *m, const struct record *rec)
{
	bool kmode = (rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;

	switch (rec->type) {
	case PERF_RECORD_COMM: {
		struct thread *t = find_thread(m, rec->u.comm.tid);
		const char *comm = machine_intern(m, rec->u.comm.comm);

		if (!comm)
			return -ENOMEM;
		if (!t || t->pid != rec->u.comm.pid)
			t = new_thread(m, rec->u.comm.pid, rec->u.comm.tid, comm);
		if (!t)
			return -ENOMEM;
		t->comm = comm;
		/* A new image: its maps follow and replace what they overlap. The
		 * old ones stay, as in perf: samples taken inside execve (after
		 * this record, before the new image runs) still have the old
		 * image's user stack. */
		if (rec->misc & PERF_RECORD_MISC_COMM_EXEC)
			t->proc->gen = ++m->maps_gen;
		return 0;
	}
	case PERF_RECORD_FORK: {
		const struct thread *parent = find_thread(m, rec->u.task.ptid);
		struct thread *t;
		struct proc *pp, *np;

		if (parent && parent->pid != rec->u.task.ppid)
			parent = NULL;
		t = new_thread(m, rec->u.task.pid, rec->u.task.tid,
			       parent ? parent->comm : NULL);
		if (!t)
			return -ENOMEM;
		t->ppid = rec->u.task.ppid;
		if (!t->comm) {
			char name[32];

			snprintf(name, sizeof(name), ":%u", rec->u.task.tid);
			t->comm = machine_intern(m, name);
			if (!t->comm)
				return -ENOMEM;
		}
		np = t->proc;
		pp = find_proc(m, rec->u.task.ppid, false);
		/* A new process starts with a copy of its parent's address space. */
		if (rec->u.task.pid != rec->u.task.ppid && pp && pp != np && !np->maps.nr &&
		    pp->maps.nr) {
			if (array_grow((void **)&np->maps.m, &np->maps.cap, pp->maps.nr, sizeof(struct map)))
				return -ENOMEM;
			memcpy(np->maps.m, pp->maps.m, pp->maps.nr * sizeof(struct map));
			np->maps.nr = pp->maps.nr;
			np->gen = ++m->maps_gen;
		}
		return 0;
	}
	case PERF_RECORD_EXIT: {
		struct thread *t = find_thread(m, rec->u.task.tid);

		if (t)
			t->exited = true;
		return 0;
	}
	case PERF_RECORD_MMAP:
		return do_mmap(m, rec->u.mmap.pid, rec->u.mmap.addr, rec->u.mmap.len,
			       rec->u.mmap.pgoff, rec->u.mmap.filename, NULL, 0, kmode);
	case PERF_RECORD_MMAP2:
		return do_mmap(m, rec->u.mmap2.pid, rec->u.mmap2.addr, rec->u.mmap2.len,
			       rec->u.mmap2.pgoff, rec->u.mmap2.filename,
			       rec->u.mmap2.has_build_id ? rec->u.mmap2.build_id : NULL,
			       rec->u.mmap2.has_build_id ? rec->u.mmap2.build_id_size : 0, kmode);
	case PERF_RECORD_CGROUP:
		return add_cgroup(m, rec->u.cgroup.id, rec->u.cgroup.path);
	}
	return 0;
}
