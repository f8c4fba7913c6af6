/* SPDX-License-Identifier: MIT */
/* The sort-key table and each key's functions; see sortkey.h. */
#include "sortkey.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hist.h"

static int cmp_str(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a || !b)
		return a ? -1 : 1;
	return strcmp(a, b);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* perf's _sort__addr_cmp(): the sign of the difference as a signed number */
static int cmp_addr(uint64_t a, uint64_t b)
{
	int64_t d = (int64_t)(a - b);

	return d < 0 ? -1 : d > 0;
}

/* The name of an entry's thread, as perf labels its pid column: the
 * thread's last comm (of the entry's first sample's thread). */
static const char *thread_comm(const struct hentry *e)
{
	return e->thread && e->thread->comm ? e->thread->comm : "";
}

/* ---- comm, pid, tid, cpu ------------------------------------------------ */

static void comm_fill(struct hist *h, const struct key_src *src, struct hkey *k)
{
	(void)h;
	k->comm = src->stack->comm;
}

static int comm_cmp(const struct hist *h, const struct hentry *a, const struct hentry *b)
{
	(void)h;
	return cmp_str(a->key.comm, b->key.comm);
}

static void comm_text(const struct hist *h, const struct hentry *e, char *buf, size_t n)
{
	(void)h;
	snprintf(buf, n, "%s", e->key.comm);
}

/* perf's pid is the thread: its id, named by its last comm */
static void pid_fill(struct hist *h, const struct key_src *src, struct hkey *k)
{
	(void)h;
	k->pid = src->stack->thread->tid;
}

static int pid_cmp(const struct hist *h, const struct hentry *a, const struct hentry *b)
{
	(void)h;
	return cmp_u64(a->key.pid, b->key.pid);
}

static void pid_text(const struct hist *h, const struct hentry *e, char *buf, size_t n)
{
	(void)h;
	snprintf(buf, n, "%7u:%s", e->key.pid, thread_comm(e));
}

/* "%7u:comm" whole, though the text was cut: perf pads the name to the width */
static size_t thread_width(const struct hentry *e, const char *text)
{
	size_t w = 8 + strlen(thread_comm(e));

	return w > strlen(text) ? w : strlen(text);
}

static void tid_fill(struct hist *h, const struct key_src *src, struct hkey *k)
{
	(void)h;
	k->tid = src->stack->thread->tid;
}

static int tid_cmp(const struct hist *h, const struct hentry *a, const struct hentry *b)
{
	(void)h;
	return cmp_u64(a->key.tid, b->key.tid);
}

static void tid_text(const struct hist *h, const struct hentry *e, char *buf, size_t n)
{
	(void)h;
	snprintf(buf, n, "%7u:%s", e->key.tid, thread_comm(e));
}

static void cpu_fill(struct hist *h, const struct key_src *src, struct hkey *k)
{
	(void)h;
	k->cpu = src->stack->cpu;
}

static int cpu_cmp(const struct hist *h, const struct hentry *a, const struct hentry *b)
{
	(void)h;
	return cmp_u64(a->key.cpu, b->key.cpu);
}

static void cpu_text(const struct hist *h, const struct hentry *e, char *buf, size_t n)
{
	(void)h;
	snprintf(buf, n, "%03u", e->key.cpu);
}

/* ---- cgroup ------------------------------------------------------------ */

static void cgroup_fill(struct hist *h, const struct key_src *src, struct hkey *k)
{
	(void)h;
	k->cgroup = src->stack->cgroup;
}

/* perf's order: the larger id first */
static int cgroup_cmp(const struct hist *h, const struct hentry *a, const struct hentry *b)
{
	(void)h;
	return cmp_u64(b->key.cgroup, a->key.cgroup);
}

/* The path the CGROUP records gave the id; as perf: "N/A" for samples
 * without a cgroup, "unknown" for an id no record named. */
static void cgroup_text(const struct hist *h, const struct hentry *e, char *buf, size_t n)
{
	const char *path = e->key.cgroup ? machine_cgroup_path(h->machine, e->key.cgroup) : "N/A";

	snprintf(buf, n, "%s", path ? path : "unknown");
}

/* ---- dso, sym, symoff ------------------------------------------------- */

static void dso_fill(struct hist *h, const struct key_src *src, struct hkey *k)
{
	(void)h;
	k->dso = src->frame->dso;
}

static int dso_cmp(const struct hist *h, const struct hentry *a, const struct hentry *b)
{
	(void)h;
	return cmp_str(a->key.dso ? a->key.dso->short_name : NULL,
		       b->key.dso ? b->key.dso->short_name : NULL);
}

static void dso_text(const struct hist *h, const struct hentry *e, char *buf, size_t n)
{
	const struct frame *f = &h->frames[e->frame];

	snprintf(buf, n, "%s", f->dso ? f->dso->short_name : "[unknown]");
}

static void sym_fill(struct hist *h, const struct key_src *src, struct hkey *k)
{
	(void)h;
	k->sym = src->frame->sym_id + 1;
}

/* names ascending, resolved symbols before bare addresses, those by address */
static int sym_cmp(const struct hist *h, const struct hentry *a, const struct hentry *b)
{
	const struct frame *fa = &h->frames[a->frame], *fb = &h->frames[b->frame];
	const char *na = a->key.inl ? a->key.inl : fa->sym;
	const char *nb = b->key.inl ? b->key.inl : fb->sym;

	if (na && nb)
		return strcmp(na, nb);
	if (na || nb)
		return na ? -1 : 1;
	return cmp_addr(a->key.ip ? a->key.ip : fa->addr, b->key.ip ? b->key.ip : fb->addr);
}

static void sym_cell(const struct hist *h, const struct hentry *e, bool with_off, char *buf,
		     size_t n)
{
	const struct frame *f = &h->frames[e->frame];
	char mark = e->level ? e->level : f->kernel ? 'k' : '.';

	if (e->key.inl)         /* a function inlined into f->sym */
		snprintf(buf, n, "[%c] %s", mark, e->key.inl);
	else if (e->key.ip)     /* children mode: an unresolved caller, as sampled */
		snprintf(buf, n, "[%c] %#.16llx", mark, (unsigned long long)e->key.ip);
	else if (f->sym && with_off)
		snprintf(buf, n, "[%c] %s+%#llx", mark, f->sym, (unsigned long long)(f->vaddr - f->sym_start));
	else if (f->sym)
		snprintf(buf, n, "[%c] %s", mark, f->sym);
	else
		/* perf shows the offset in the file (the address in maps
		 * without a file) */
		snprintf(buf, n, "[%c] %#.16llx", mark, (unsigned long long)f->addr);
}

static void sym_text(const struct hist *h, const struct hentry *e, char *buf, size_t n)
{
	sym_cell(h, e, false, buf, n);
}

static void symoff_fill(struct hist *h, const struct key_src *src, struct hkey *k)
{
	(void)h;
	k->sym = src->frame->sym_id + 1;
	k->symoff = src->frame->vaddr;
}

static int symoff_cmp(const struct hist *h, const struct hentry *a, const struct hentry *b)
{
	int c = sym_cmp(h, a, b);

	return c ? c : cmp_u64(a->key.symoff, b->key.symoff);
}

static void symoff_text(const struct hist *h, const struct hentry *e, char *buf, size_t n)
{
	sym_cell(h, e, true, buf, n);
}

/* ---- srcline, srcfile ------------------------------------------------- */

static void srcline_fill(struct hist *h, const struct key_src *src, struct hkey *k)
{
	k->srcline = hist_srcline(h, src->frame, true);
}

static int srcline_cmp(const struct hist *h, const struct hentry *a, const struct hentry *b)
{
	(void)h;
	return cmp_str(a->key.srcline, b->key.srcline);
}

static void srcline_text(const struct hist *h, const struct hentry *e, char *buf, size_t n)
{
	(void)h;
	snprintf(buf, n, "%s", e->key.srcline);
}

/* the file's name without its folder; "" without a line */
static void srcfile_fill(struct hist *h, const struct key_src *src, struct hkey *k)
{
	struct frame *f = src->frame;
	const char *slash;

	hist_frame_src(h, f);
	if (!f->nr_inl || !f->inl[0].file) {
		k->srcfile = "";
		return;
	}
	slash = strrchr(f->inl[0].file, '/');
	k->srcfile = machine_intern(h->machine, slash ? slash + 1 : f->inl[0].file);
}

static int srcfile_cmp(const struct hist *h, const struct hentry *a, const struct hentry *b)
{
	(void)h;
	return cmp_str(a->key.srcfile, b->key.srcfile);
}

static void srcfile_text(const struct hist *h, const struct hentry *e, char *buf, size_t n)
{
	(void)h;
	snprintf(buf, n, "%s", e->key.srcfile && *e->key.srcfile ? e->key.srcfile : "[unknown]");
}

/* ---- period, parent --------------------------------------------------- */

/* perf's period field: the entry's events, not a key of its own (no fill) */
static int period_cmp(const struct hist *h, const struct hentry *a, const struct hentry *b)
{
	(void)h;
	return cmp_u64(a->self_period, b->self_period);
}

static void period_text(const struct hist *h, const struct hentry *e, char *buf, size_t n)
{
	(void)h;
	snprintf(buf, n, "%" PRIu64, e->self_period);
}

static void parent_fill(struct hist *h, const struct key_src *src, struct hkey *k)
{
	(void)h;
	k->parent = src->parent;
}

static int parent_cmp(const struct hist *h, const struct hentry *a, const struct hentry *b)
{
	(void)h;
	return cmp_str(a->key.parent, b->key.parent);
}

static void parent_text(const struct hist *h, const struct hentry *e, char *buf, size_t n)
{
	(void)h;
	snprintf(buf, n, "%s", e->key.parent);
}

/* ---- symbol_daddr, dso_daddr (prec -d) ------------------------------- */

/* One entry per data symbol (perf makes one per address), and per address
 * where none names it; marked by the sample's mode as perf does. */
static void daddr_fill(struct hist *h, const struct key_src *src, struct hkey *k)
{
	(void)h;
	k->dsym = src->stack->data.sym;
	k->daddr = src->stack->data.addr;
	k->dmark = src->frame->kernel ? 'k' : '.';
}

static int daddr_cmp(const struct hist *h, const struct hentry *a, const struct hentry *b)
{
	(void)h;
	if (a->key.dsym && b->key.dsym)
		return strcmp(a->key.dsym, b->key.dsym);
	if (a->key.dsym || b->key.dsym)
		return a->key.dsym ? -1 : 1;
	return cmp_addr(a->key.daddr, b->key.daddr);
}

static void daddr_text(const struct hist *h, const struct hentry *e, char *buf, size_t n)
{
	(void)h;
	if (e->key.dsym)
		snprintf(buf, n, "[%c] %s", e->key.dmark, e->key.dsym);
	else
		snprintf(buf, n, "[%c] 0x%016llx", e->key.dmark, (unsigned long long)e->key.daddr);
}

static void ddso_fill(struct hist *h, const struct key_src *src, struct hkey *k)
{
	(void)h;
	k->ddso = src->stack->data.dso;
}

static int ddso_cmp(const struct hist *h, const struct hentry *a, const struct hentry *b)
{
	(void)h;
	return cmp_str(a->key.ddso ? a->key.ddso->short_name : NULL,
		       b->key.ddso ? b->key.ddso->short_name : NULL);
}

static void ddso_text(const struct hist *h, const struct hentry *e, char *buf, size_t n)
{
	(void)h;
	snprintf(buf, n, "%s", e->key.ddso ? e->key.ddso->short_name : "[unknown]");
}

/* ---- parallelism (prep --latency) -------------------------------------- */

/* the threads running at the sample (parallel.h); perf's order: the lower first */
static void par_fill(struct hist *h, const struct key_src *src, struct hkey *k)
{
	(void)h;
	k->par = src->stack->par;
}

static int par_cmp(const struct hist *h, const struct hentry *a, const struct hentry *b)
{
	(void)h;
	return cmp_u64(a->key.par, b->key.par);
}

static void par_text(const struct hist *h, const struct hentry *e, char *buf, size_t n)
{
	(void)h;
	snprintf(buf, n, "%u", e->key.par);
}

/* ---- the table -------------------------------------------------------- */

static const struct sort_key sort_keys[SORT_NR] = {
	[SORT_COMM] = {
		.name = "comm", .title = "Command",
		.fill = comm_fill, .cmp = comm_cmp, .text = comm_text,
	},
	[SORT_PID] = {
		.name = "pid", .title = "    Pid:Command",
		.fill = pid_fill, .cmp = pid_cmp, .text = pid_text, .width = thread_width,
	},
	[SORT_TID] = {
		.name = "tid", .title = "    Tid:Command",
		.fill = tid_fill, .cmp = tid_cmp, .text = tid_text, .width = thread_width,
	},
	[SORT_DSO] = {
		.name = "dso", .title = "Shared Object", .unresolved_width = 16,
		.fill = dso_fill, .cmp = dso_cmp, .text = dso_text,
	},
	[SORT_SYM] = {
		.name = "sym", .title = "Symbol", .flags = SK_SYMBOL_LIKE | SK_FUNCTION,
		.fill = sym_fill, .cmp = sym_cmp, .text = sym_text,
	},
	[SORT_SRCLINE] = {
		.name = "srcline", .title = "Source:Line", .flags = SK_SYMBOL_LIKE | SK_SRC,
		.fill = srcline_fill, .cmp = srcline_cmp, .text = srcline_text,
	},
	[SORT_SRCFILE] = {
		.name = "srcfile", .title = "Source File", .flags = SK_SYMBOL_LIKE | SK_SRC,
		.fill = srcfile_fill, .cmp = srcfile_cmp, .text = srcfile_text,
	},
	[SORT_CPU] = {
		.name = "cpu", .title = "CPU", .flags = SK_RIGHT,
		.fill = cpu_fill, .cmp = cpu_cmp, .text = cpu_text,
	},
	[SORT_SYMOFF] = {
		.name = "symoff", .title = "Symbol Offset", .flags = SK_SYMBOL_LIKE,
		.fill = symoff_fill, .cmp = symoff_cmp, .text = symoff_text,
	},
	/* perf's period column is at least 12 wide */
	[SORT_PERIOD] = {
		.name = "period", .title = "Period", .min_width = 12, .flags = SK_RIGHT,
		.cmp = period_cmp, .text = period_text,
	},
	[SORT_PARENT] = {
		.name = "parent", .title = "Parent symbol", .flags = SK_SYMBOL_LIKE | SK_PARENT,
		.fill = parent_fill, .cmp = parent_cmp, .text = parent_text,
	},
	[SORT_SYM_DADDR] = {
		.name = "symbol_daddr", .title = "Data Symbol", .flags = SK_SYMBOL_LIKE | SK_DATA,
		.fill = daddr_fill, .cmp = daddr_cmp, .text = daddr_text,
	},
	[SORT_DSO_DADDR] = {
		.name = "dso_daddr", .title = "Data Object", .flags = SK_DATA,
		.fill = ddso_fill, .cmp = ddso_cmp, .text = ddso_text,
	},
	[SORT_CGROUP] = {
		.name = "cgroup", .title = "Cgroup", .flags = SK_SYMBOL_LIKE,
		.fill = cgroup_fill, .cmp = cgroup_cmp, .text = cgroup_text,
	},
	/* perf's column is 11 wide, the numbers right-aligned */
	[SORT_PARALLELISM] = {
		.name = "parallelism", .title = "Parallelism", .min_width = 11,
		.flags = SK_RIGHT | SK_PARALLEL,
		.fill = par_fill, .cmp = par_cmp, .text = par_text,
	},
};

const struct sort_key *sort_key_get(enum sort_key_id id)
{
	return &sort_keys[id];
}

int sort_key_find(const char *name, size_t len, enum sort_key_id *id)
{
	for (size_t i = 0; i < SORT_NR; i++) {
		if (strlen(sort_keys[i].name) == len && !memcmp(sort_keys[i].name, name, len)) {
			*id = (enum sort_key_id)i;
			return 0;
		}
	}
	return -ENOENT;
}

size_t sort_key_names(char *buf, size_t n)
{
	size_t len = 0;

	if (n)
		buf[0] = 0;
	for (size_t i = 0; i < SORT_NR; i++) {
		/* past the end: only counted */
		int w = snprintf(len < n ? buf + len : NULL, len < n ? n - len : 0, "%s%s",
				 i ? ", " : "", sort_keys[i].name);

		len += w > 0 ? (size_t)w : 0;
	}
	return len;
}

bool sort_keys_have(const enum sort_key_id *keys, size_t n, unsigned flags)
{
	for (size_t i = 0; i < n; i++)
		if ((sort_keys[keys[i]].flags & flags) == flags)
			return true;
	return false;
}

int sort_keys_parse(const char *list, enum sort_key_id *keys, size_t *nr, size_t max,
		    sort_key_skip_fn skip, void *ctx, struct err *err)
{
	char known[256];
	enum sort_key_id id;
	size_t len, had = *nr;

	if (strlen(list) >= 512)
		return err_set(err, -EINVAL, "list too long");
	for (const char *k = list; *k; k += len + (k[len] == ',')) {
		len = strcspn(k, ",");
		if (!len || (skip && skip(ctx, k, len)))
			continue;
		if (sort_key_find(k, len, &id)) {
			sort_key_names(known, sizeof(known));
			return err_set(err, -EINVAL, "unknown sort key '%.*s' (known: %s)", (int)len,
				       k, known);
		}
		if (*nr < max)
			keys[(*nr)++] = id;
	}
	if (*nr == had)
		return err_set(err, -EINVAL, "'%s': no sort key", list);
	return 0;
}
