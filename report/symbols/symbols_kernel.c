/* SPDX-License-Identifier: MIT */
/*
 * Kernel symbols for the symbolizer: the function symbols (t T w W) of a
 * /proc/kallsyms text, from the recording's copy or from this machine, each
 * one extending to the next higher symbol address.
 *
 * A report needs only the few hundred kernel functions its samples hit, out
 * of 100k and more: the text is kept as read and indexed by address (24
 * bytes a symbol), and a name is copied out only when a lookup lands on it.
 * Reading /proc/kallsyms is slow (the kernel formats every line), so it can
 * be read and indexed on a thread while the report reads its file.
 */
#include "symbols_kernel.h"
#include "format/blocks.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/thread.h"

/* One function symbol of a kallsyms text, by position in that text. */
struct kent {
	uint64_t start;
	uint32_t name_off, module_off;  /* module_off 0: core kernel */
	uint16_t name_len, module_len;
	char type;
};

/* Kernel symbols: the kallsyms text kept as it is, plus an index of its
 * function symbols sorted by address; names are copied out only for the
 * symbols a lookup lands on. */
struct kindex {
	uint8_t *text;                  /* names are at text + name_off */
	size_t len;
	struct kent *v;
	size_t n;
	/* or, from a kept index: read with pread as needed (mapping it would
	 * make the kernel map whole large page-cache folios) */
	int fd;                         /* -1 unless from a kept index */
	uint64_t *top;                  /* start of every KBLOCK-th entry */
	size_t ntop;
	uint64_t entries_off, strings_off;
	size_t nonzero;                 /* entries with a non-zero address */
	int err;                        /* 0, -ENOMEM or -PREC_ECORRUPT */
	char msg[ERR_MSG_MAX];
};

struct ksyms {
	int state;                      /* 0 not loaded, 1 loaded, -1 unavailable */
	bool prefetching;               /* a thread is reading and indexing kallsyms_path */
	pthread_t prefetch;
	bool pf_read;                   /* the prefetch could read the file */
	struct kindex pf;               /* its result */
	struct kindex ix;
	const char **names;             /* per index entry, filled on first use */
	const char **modules;
	unsigned same_as;               /* a table of ktabs: the same text as table same_as */
};

/* Kernel symbol tables: table 0 (kernel) and tables 1.. (ktabs). */
struct kernel_syms {
	char *kallsyms_path;
	char *cache_dir;
	struct sym_warner warn;
	struct arena arena;             /* names copied out of the texts */
	struct ksyms kernel;            /* table 0 */
	struct ksyms *ktabs;            /* tables 1.. (kernel_syms_load) */
	size_t nr_ktabs;
	struct kernel_syms_stats stats;
};

static uint8_t *read_all(const char *path, size_t *len);
static void kindex_build(struct kindex *k);

/* The last symbol has no next one: give it a page. */
#define KSYM_LAST_SIZE 4096

static void kindex_free(struct kindex *k)
{
	if (k->top) {
		close(k->fd);
		free(k->top);
	} else {
		free(k->text);
		free(k->v);
	}
	memset(k, 0, sizeof(*k));
}

/* ---- the index kept between runs ---------------------------------------- */

#define KCACHE_MAGIC "PREPKSY2"
#define KBLOCK 64               /* entries per top-level slot */
#define KWINDOW 16              /* entries read on each side of a block */

/* header | top (u64 per KBLOCK entries) | entries | strings */
struct kcache_hdr {
	char magic[8];
	uint64_t key;
	uint64_t n, nonzero;
	uint64_t strings_off, strings_len;
	uint64_t total_len;
	uint64_t entry_size;
	uint64_t top_off, ntop, entries_off, reserved;
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t fnv_file(uint64_t h, const char *path)
{
	char buf[8192];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return fnv(h, "-", 1);
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		h = fnv(h, buf, (size_t)r);
	close(fd);
	return h;
}

/* What the kernel symbols depend on: this boot, the loaded modules (with
 * their addresses), and for a plain file its size and change time. */
static uint64_t kcache_key(const char *path)
{
	uint64_t h = fnv(0xcbf29ce484222325ull, path, strlen(path) + 1);
	struct stat st;

	h = fnv_file(h, "/proc/sys/kernel/random/boot_id");
	h = fnv_file(h, "/proc/modules");
	if (strncmp(path, "/proc/", 6) && !stat(path, &st)) {
		h = fnv(h, &st.st_size, sizeof(st.st_size));
		h = fnv(h, &st.st_mtim, sizeof(st.st_mtim));
		h = fnv(h, &st.st_ino, sizeof(st.st_ino));
	}
	return h;
}

static void kcache_path(const char *dir, uint64_t key, char *out, size_t n)
{
	snprintf(out, n, "%s/kallsyms-%016llx.idx", dir, (unsigned long long)key);
}

/* Map a kept index; 0 when there is a valid one. */
static int kcache_load(const char *dir, uint64_t key, struct kindex *k)
{
	char path[4096];
	struct kcache_hdr h;
	struct stat st;
	uint64_t *top;
	int fd;

	kcache_path(dir, key, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || (size_t)st.st_size < sizeof(h) || pread(fd, &h, sizeof(h), 0) !=
	    (ssize_t)sizeof(h) || memcmp(h.magic, KCACHE_MAGIC, 8) || h.key != key ||
	    h.total_len != (uint64_t)st.st_size || h.entry_size != sizeof(struct kent) ||
	    h.n > (h.total_len - sizeof(h)) / sizeof(struct kent) || !h.n ||
	    h.ntop != (h.n + KBLOCK - 1) / KBLOCK || h.top_off != sizeof(h) ||
	    h.entries_off != h.top_off + 8 * h.ntop ||
	    h.strings_off != h.entries_off + h.n * sizeof(struct kent) ||
	    h.strings_len != h.total_len - h.strings_off || h.strings_len > UINT32_MAX ||
	    !(top = malloc(8 * h.ntop))) {
		close(fd);
		return -1;
	}
	if (pread(fd, top, 8 * h.ntop, (off_t)h.top_off) != (ssize_t)(8 * h.ntop)) {
		free(top);
		close(fd);
		return -1;
	}
	k->fd = fd;
	k->top = top;
	k->ntop = h.ntop;
	k->entries_off = h.entries_off;
	k->strings_off = h.strings_off;
	k->n = h.n;
	k->nonzero = h.nonzero;
	k->len = h.strings_len;
	return 0;
}

/* Keep k (built from text) for the next runs: the entries, then only the
 * names and modules they use. Old indexes of other boots go. Failures only
 * mean no index is kept. */
static void kcache_store(const char *dir, uint64_t key, const struct kindex *k)
{
	struct kcache_hdr h = { .key = key, .n = k->n, .nonzero = k->nonzero,
				.entry_size = sizeof(struct kent) };
	uint64_t *top = malloc(((k->n + KBLOCK - 1) / KBLOCK + 1) * 8);
	char path[4096], tmp[4200];
	struct kent *v = malloc((k->n ? k->n : 1) * sizeof(*v));
	uint8_t *str = malloc(k->len ? k->len : 1);
	size_t slen = 0, last_mod = 0, last_mod_src = 0;
	DIR *dh;
	int fd = -1;

	if (!v || !str || !top || !k->nonzero || !k->n)
		goto out;
	h.ntop = (k->n + KBLOCK - 1) / KBLOCK;
	for (size_t i = 0; i < h.ntop; i++)
		top[i] = k->v[i * KBLOCK].start;
	for (size_t i = 0; i < k->n; i++) {
		v[i] = k->v[i];
		v[i].name_off = (uint32_t)slen;
		memcpy(str + slen, k->text + k->v[i].name_off, k->v[i].name_len);
		slen += k->v[i].name_len;
		if (k->v[i].module_len) {
			if (!last_mod || memcmp(k->text + last_mod_src, k->text + k->v[i].module_off,
						k->v[i].module_len)) {
				last_mod = slen;
				last_mod_src = k->v[i].module_off;
				memcpy(str + slen, k->text + k->v[i].module_off, k->v[i].module_len);
				slen += k->v[i].module_len;
			}
			v[i].module_off = (uint32_t)last_mod;
		}
	}
	memcpy(h.magic, KCACHE_MAGIC, 8);
	h.top_off = sizeof(h);
	h.entries_off = h.top_off + 8 * h.ntop;
	h.strings_off = h.entries_off + k->n * sizeof(*v);
	h.strings_len = slen;
	h.total_len = h.strings_off + slen;
	if (mkdir(dir, 0700) && errno != EEXIST)
		goto out;
	dh = opendir(dir);
	if (dh) {
		struct dirent *de;
		char mine[64];

		snprintf(mine, sizeof(mine), "kallsyms-%016llx.idx", (unsigned long long)key);
		while ((de = readdir(dh)))
			if (!strncmp(de->d_name, "kallsyms-", 9) && strcmp(de->d_name, mine) &&
			    strlen(de->d_name) == strlen(mine))
				unlinkat(dirfd(dh), de->d_name, 0);
		closedir(dh);
	}
	kcache_path(dir, key, path, sizeof(path));
	/* by thread: two readings of one process (prep diff) may write it at once */
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)gettid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		goto out;
	if (!fd_write_all(fd, &h, sizeof(h)) || !fd_write_all(fd, top, 8 * h.ntop) ||
	    !fd_write_all(fd, v, k->n * sizeof(*v)) ||
	    !fd_write_all(fd, str, slen) || close(fd) || rename(tmp, path))
		unlink(tmp);
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	free(v);
	free(str);
	free(top);
}

/* Kernel symbols from kallsyms_path: a kept index when there is a valid
 * one, else read, index (and keep) them. false when the file is unreadable. */
static bool kindex_from_path(const struct kernel_syms *s, struct kindex *k)
{
	uint64_t key = 0;

	if (s->cache_dir) {
		key = kcache_key(s->kallsyms_path);
		if (!kcache_load(s->cache_dir, key, k))
			return true;
	}
	k->text = read_all(s->kallsyms_path, &k->len);
	if (!k->text)
		return false;
	kindex_build(k);
	if (s->cache_dir && !k->err)
		kcache_store(s->cache_dir, key, k);
	return true;
}

struct kbuild {
	struct kindex *k;
	size_t cap;
};

static int kindex_one(void *ctx, const struct kallsym *ks)
{
	struct kbuild *b = ctx;
	struct kindex *k = b->k;
	char t = ks->type;
	struct kent *e;

	if (ks->addr)
		k->nonzero++;
	if (t != 't' && t != 'T' && t != 'w' && t != 'W')
		return 0;
	if (k->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		struct kent *v = array_realloc(k->v, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		k->v = v;
		b->cap = cap;
	}
	e = &k->v[k->n++];
	e->start = ks->addr;
	e->type = t;
	e->name_off = (uint32_t)((const uint8_t *)ks->name - k->text);
	e->name_len = (uint16_t)(ks->name_len > UINT16_MAX ? UINT16_MAX : ks->name_len);
	e->module_off = ks->module_len ? (uint32_t)((const uint8_t *)ks->module - k->text) : 0;
	e->module_len = (uint16_t)(ks->module_len > UINT16_MAX ? UINT16_MAX : ks->module_len);
	return 0;
}

static int kent_cmp(const void *pa, const void *pb)
{
	const struct kent *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->name_off < b->name_off ? -1 : a->name_off > b->name_off;
}

/* Index k->text (taking it over). Sets k->err (and k->msg) on failure. */
static void kindex_build(struct kindex *k)
{
	struct kbuild b = { k, 0 };
	struct err err = { 0 };
	size_t nr;
	bool sorted = true;
	int ret;

	if (k->len > UINT32_MAX) {
		k->err = -PREC_ECORRUPT;
		snprintf(k->msg, sizeof(k->msg), "kallsyms: text of %zu bytes is too large", k->len);
		return;
	}
	ret = kallsyms_walk(k->text, k->len, kindex_one, &b, &nr, &err);
	if (ret) {
		k->err = ret == -ENOMEM ? -ENOMEM : -PREC_ECORRUPT;
		snprintf(k->msg, sizeof(k->msg), "%s", ret == -ENOMEM ? "kallsyms: out of memory" : err.msg);
		return;
	}
	for (size_t i = 1; i < k->n && sorted; i++)
		sorted = kent_cmp(&k->v[i - 1], &k->v[i]) <= 0;
	if (!sorted)
		qsort(k->v, k->n, sizeof(*k->v), kent_cmp);
}

/* Read a /proc file (size 0 in stat) to its end. */
static uint8_t *read_all(const char *path, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	uint8_t *buf = malloc(cap), *nb;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf)
		goto fail;
	for (;;) {
		ssize_t r;

		if (n == cap) {
			if (cap > ((size_t)1 << 30) || !(nb = array_realloc(buf, cap * 2, 1)))
				goto fail;
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/* Make an index the kernel symbols of table ks (or mark them unavailable). */
static int kernel_take(struct kernel_syms *s, struct ksyms *ks, struct kindex *k, bool warn,
		       struct err *err)
{
	free(ks->names);
	free(ks->modules);
	ks->names = ks->modules = NULL;
	kindex_free(&ks->ix);
	if (k->err) {
		int ret = k->err;

		ks->state = -1;
		if (err)
			err_set(err, ret, "%s", k->msg);
		kindex_free(k);
		return ret;
	}
	ks->ix = *k;
	memset(k, 0, sizeof(*k));
	if (ks == &s->kernel)
		s->stats.cached = ks->ix.top != NULL;
	if (!ks->ix.nonzero) {
		ks->state = -1;
		if (warn)
			sym_warn(&s->warn, "kernel symbol addresses are hidden (all zero, "
				 "see /proc/sys/kernel/kptr_restrict): kernel addresses stay "
				 "unresolved");
		return 0;
	}
	ks->names = calloc(ks->ix.n ? ks->ix.n : 1, sizeof(*ks->names));
	ks->modules = calloc(ks->ix.n ? ks->ix.n : 1, sizeof(*ks->modules));
	if (!ks->names || !ks->modules) {
		ks->state = 0;
		return err ? err_set(err, -ENOMEM, "kallsyms: out of memory") : -ENOMEM;
	}
	ks->state = 1;
	return 0;
}

static void *prefetch_main(void *arg)
{
	struct kernel_syms *s = arg;
	struct kindex *k = &s->kernel.pf;

	s->kernel.pf_read = kindex_from_path(s, k);
	return NULL;
}

int kernel_syms_prefetch(struct kernel_syms *s)
{
	if (s->kernel.state || s->kernel.prefetching)
		return 0;
	if (thread_create(&s->kernel.prefetch, prefetch_main, s))
		return 0;       /* read later, when needed */
	s->kernel.prefetching = true;
	return 0;
}

static void prefetch_join(struct kernel_syms *s)
{
	if (!s->kernel.prefetching)
		return;
	pthread_join(s->kernel.prefetch, NULL);
	s->kernel.prefetching = false;
}

static void prefetch_drop(struct kernel_syms *s)
{
	prefetch_join(s);
	kindex_free(&s->kernel.pf);
}

static void ksyms_free(struct ksyms *ks)
{
	kindex_free(&ks->ix);
	free(ks->names);
	free(ks->modules);
	ks->names = ks->modules = NULL;
}

struct kernel_syms *kernel_syms_new(const char *kallsyms_path, const char *cache_dir,
				    struct sym_warner warn)
{
	struct kernel_syms *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->kallsyms_path = strdup(kallsyms_path);
	s->cache_dir = cache_dir ? strdup(cache_dir) : NULL;
	s->warn = warn;
	if (!s->kallsyms_path || (cache_dir && !s->cache_dir)) {
		kernel_syms_free(s);
		return NULL;
	}
	return s;
}

void kernel_syms_free(struct kernel_syms *s)
{
	if (!s)
		return;
	prefetch_drop(s);
	ksyms_free(&s->kernel);
	for (size_t i = 0; i < s->nr_ktabs; i++)
		ksyms_free(&s->ktabs[i]);
	free(s->ktabs);
	arena_free(&s->arena);
	free(s->kallsyms_path);
	free(s->cache_dir);
	free(s);
}

void kernel_syms_get_stats(const struct kernel_syms *s, struct kernel_syms_stats *st)
{
	*st = s->stats;
}

static int ksyms_load(struct kernel_syms *s, struct ksyms *ks, const uint8_t *text, size_t len,
		      struct err *err)
{
	struct kindex k = { 0 };

	k.text = malloc(len ? len : 1);
	if (!k.text)
		return err_set(err, -ENOMEM, "kallsyms: out of memory");
	memcpy(k.text, text, len);
	k.len = len;
	kindex_build(&k);
	return kernel_take(s, ks, &k, true, err);
}


/* Table n (from 1) of ktabs; NULL when never loaded. */
static struct ksyms *ktab(struct kernel_syms *s, unsigned n)
{
	struct ksyms *ks;

	if (!n || n > s->nr_ktabs)
		return NULL;
	ks = &s->ktabs[n - 1];
	if (ks->same_as)
		ks = &s->ktabs[ks->same_as - 1];
	return ks->state ? ks : NULL;
}

int kernel_syms_load(struct kernel_syms *s, unsigned table, const uint8_t *text, size_t len,
		     struct err *err)
{
	struct ksyms *grown;

	if (!table) {
		prefetch_drop(s);       /* the recording's copy wins */
		return ksyms_load(s, &s->kernel, text, len, err);
	}
	if (table > s->nr_ktabs) {
		grown = array_realloc(s->ktabs, table, sizeof(*grown));
		if (!grown)
			return err_set(err, -ENOMEM, "kallsyms: out of memory");
		memset(grown + s->nr_ktabs, 0, (table - s->nr_ktabs) * sizeof(*grown));
		s->ktabs = grown;
		s->nr_ktabs = table;
	}
	ksyms_free(&s->ktabs[table - 1]);
	memset(&s->ktabs[table - 1], 0, sizeof(*grown));
	/* recordings of one boot: one table, whose names are shared */
	for (unsigned i = 1; i <= s->nr_ktabs; i++) {
		const struct ksyms *o = ktab(s, i);

		if (i != table && o && o->ix.text && o->ix.len == len &&
		    !memcmp(o->ix.text, text, len)) {
			s->ktabs[table - 1].same_as = (unsigned)(o - s->ktabs) + 1;
			return 0;
		}
	}
	return ksyms_load(s, &s->ktabs[table - 1], text, len, err);
}

static int kernel_ensure(struct kernel_syms *s)
{
	struct kindex k = { 0 };
	struct err err = { 0 };
	bool read;
	int ret;

	if (s->kernel.state)
		return 0;
	if (s->kernel.prefetching) {
		prefetch_join(s);
		k = s->kernel.pf;
		memset(&s->kernel.pf, 0, sizeof(s->kernel.pf));
		read = s->kernel.pf_read;
	} else {
		read = kindex_from_path(s, &k);
	}
	if (!read) {
		s->kernel.state = -1;
		sym_warn(&s->warn, "cannot read %s: kernel addresses stay unresolved",
			 s->kallsyms_path);
		return 0;
	}
	ret = kernel_take(s, &s->kernel, &k, true, &err);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		s->kernel.state = -1;
		sym_warn(&s->warn, "%s: %s: kernel addresses stay unresolved", s->kallsyms_path,
			 err.msg);
	}
	return 0;
}

/* Bytes of the strings of a kept index, read into the arena. */
static char *kstr_read(struct kernel_syms *s, const struct ksyms *ks, uint32_t off, uint16_t len)
{
	char *p = arena_alloc(&s->arena, (size_t)len + 1);

	if (!p || pread(ks->ix.fd, p, len, (off_t)(ks->ix.strings_off + off)) != len)
		return NULL;
	p[len] = 0;
	return p;
}

/* The name (and module) of index entry i (e), copied out on first use. */
static int kent_strings(struct kernel_syms *s, struct ksyms *ks, size_t i, const struct kent *e)
{
	if (ks->names[i])
		return 0;
	/* a kept index is a file: check before reading names out of it */
	if ((uint64_t)e->name_off + e->name_len > ks->ix.len ||
	    (e->module_len && (uint64_t)e->module_off + e->module_len > ks->ix.len))
		return -PREC_ECORRUPT;
	if (ks->ix.top) {
		ks->names[i] = kstr_read(s, ks, e->name_off, e->name_len);
		if (e->module_len)
			ks->modules[i] = kstr_read(s, ks, e->module_off, e->module_len);
		if (!ks->names[i] || (e->module_len && !ks->modules[i]))
			return -PREC_ECORRUPT;
		return 0;
	}
	ks->names[i] = arena_strndup(&s->arena, (const char *)ks->ix.text + e->name_off, e->name_len);
	if (e->module_len)
		ks->modules[i] = arena_strndup(&s->arena, (const char *)ks->ix.text + e->module_off,
					       e->module_len);
	if (!ks->names[i] || (e->module_len && !ks->modules[i]))
		return -ENOMEM;
	return 0;
}

/* The entries around addr: all of them in memory, or from a kept index the
 * block whose top-level start is the last at or below addr, with KWINDOW
 * entries on each side. *base is the index of v[0]; false: none at or below. */
static bool kwindow(struct ksyms *ks, uint64_t addr, struct kent *buf, const struct kent **v,
		    size_t *base, size_t *n)
{
	size_t lo = 0, hi, from, to;
	ssize_t want;

	if (!ks->ix.top) {
		*v = ks->ix.v;
		*base = 0;
		*n = ks->ix.n;
		return true;
	}
	hi = ks->ix.ntop;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->ix.top[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	from = (lo - 1) * KBLOCK;
	from = from > KWINDOW ? from - KWINDOW : 0;
	to = lo * KBLOCK + KWINDOW;
	if (to > ks->ix.n)
		to = ks->ix.n;
	want = (ssize_t)((to - from) * sizeof(*buf));
	if (pread(ks->ix.fd, buf, (size_t)want, (off_t)(ks->ix.entries_off + from * sizeof(*buf))) !=
	    want)
		return false;
	*v = buf;
	*base = from;
	*n = to - from;
	return true;
}

int kernel_syms_lookup(struct kernel_syms *s, unsigned table, uint64_t addr, struct sym *out,
		       const char **module)
{
	struct ksyms *ks = ktab(s, table);
	struct kent buf[KBLOCK + 2 * KWINDOW];
	const struct kent *v;
	size_t lo = 0, hi, best, next, base, n;
	uint64_t start, size;
	int ret;

	memset(out, 0, sizeof(*out));
	if (module)
		*module = NULL;
	if (!ks) {
		ks = &s->kernel;
		ret = kernel_ensure(s);
		if (ret)
			return ret;
	}
	s->stats.lookups++;
	if (ks->state != 1 || !ks->ix.n || !kwindow(ks, addr, buf, &v, &base, &n))
		goto unresolved;
	hi = n;
	while (lo < hi) {               /* the first entry after addr */
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		goto unresolved;
	next = lo;
	start = v[lo - 1].start;
	size = next < n ? v[next].start - start : KSYM_LAST_SIZE;
	if (addr - start >= size)
		goto unresolved;
	/* several names at one address: perf's choice, the last one listed
	 * (perf gives each symbol the size up to the next one before it drops
	 * aliases, and prefers the one with a size) */
	best = next - 1;
	if ((ret = kent_strings(s, ks, base + best, &v[best])))
		goto failed;
	out->name = ks->names[base + best];
	out->start = start;
	out->size = size;
	if (module)
		*module = ks->modules[base + best];
	return 0;
failed:
	if (ret == -ENOMEM)
		return ret;
	/* a damaged kept index: its names cannot be trusted */
	ks->state = -1;
	sym_warn(&s->warn, "kernel symbol index damaged: kernel addresses stay unresolved");
unresolved:
	s->stats.unresolved++;
	return 0;
}
