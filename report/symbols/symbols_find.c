/* SPDX-License-Identifier: MIT */
/*
 * Where the files of a dso are found and whether they are trusted: the
 * binary and a separate debug file, by build id on this machine (the debug
 * root, perf's build-id cache, .gnu_debuglink), from debuginfod, or at the
 * recorded path (the order is in symbols.h); and the program headers that
 * turn file offsets into addresses.
 */
#include "symbols_int.h"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static void hex_str(const uint8_t *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = 0;
}

/* ---- debug files on this machine ----------------------------------------- */

/* Whether the ELF file at path can serve as debug file for the build id
 * bid (when given: its own build id, if any, must be the same) and has a
 * symbol table or DWARF. */
static bool debug_file_ok(const char *path, const uint8_t *bid, size_t bid_n)
{
	uint8_t own[SYM_BUILD_ID_MAX];
	size_t own_n;
	bool ok;
	int fd;
	Elf *e = elf_open_path(path, &fd);

	if (!e)
		return false;
	own_n = elf_build_id(e, own);
	ok = !bid_n || !own_n || (own_n == bid_n && !memcmp(own, bid, bid_n));
	ok = ok && (elf_has_section(e, ".symtab", false) || elf_has_section(e, ".debug_info", true));
	elf_close(e, fd);
	return ok;
}

/* <debug_root>/.build-id/xx/yyyy.debug; NULL when absent, or for want of memory. */
static char *find_by_build_id(struct symbolizer *s, const uint8_t *bid, size_t n)
{
	char hex[2 * SYM_BUILD_ID_MAX + 1], *path;

	if (n < 2)
		return NULL;
	hex_str(bid, n, hex);
	if (asprintf(&path, "%s/.build-id/%.2s/%s.debug", s->debug_root, hex, hex + 2) < 0)
		return NULL;
	if (debug_file_ok(path, bid, n))
		return path;
	free(path);
	return NULL;
}

static bool file_crc_is(const char *path, uint32_t want)
{
	struct stat st;
	uLong crc = crc32(0L, Z_NULL, 0);
	const uint8_t *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		close(fd);
		return false;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return false;
	for (size_t off = 0, len = (size_t)st.st_size; off < len;) {
		size_t k = len - off > (1u << 30) ? (1u << 30) : len - off;

		crc = crc32(crc, p + off, (uInt)k);
		off += k;
	}
	munmap((void *)p, (size_t)st.st_size);
	return (uint32_t)crc == want;
}

/* .gnu_debuglink: the named file in the binary's directory, in its .debug/
 * subdirectory and under <debug_root>/<dir>/. A candidate is accepted when
 * both it and the binary have build ids and they are equal, otherwise when
 * the CRC-32 of the whole file is the one the link records. */
static char *find_by_debuglink(struct symbolizer *s, const char *bin, Elf *e,
			       const uint8_t *bid, size_t bid_n)
{
	const char *slash = strrchr(bin, '/');
	int dir_len = slash ? (int)(slash - bin) : 1;
	const char *dir = slash ? bin : ".";
	char *name, *path = NULL;
	uint32_t crc;

	name = elf_debuglink(e, &crc);
	if (!name)
		return NULL;
	for (int i = 0; i < 3; i++) {
		uint8_t own[SYM_BUILD_ID_MAX];
		size_t own_n = 0;
		bool ok;
		int fd, r;
		Elf *de;

		if (i == 0)
			r = asprintf(&path, "%.*s/%s", dir_len, dir, name);
		else if (i == 1)
			r = asprintf(&path, "%.*s/.debug/%s", dir_len, dir, name);
		else
			r = asprintf(&path, "%s%.*s/%s", s->debug_root, dir_len, dir, name);
		if (r < 0) {
			path = NULL;
			break;
		}
		if (!strcmp(path, bin) || !(de = elf_open_path(path, &fd))) {
			free(path);
			path = NULL;
			continue;
		}
		own_n = elf_build_id(de, own);
		elf_close(de, fd);
		if (bid_n && own_n)
			ok = own_n == bid_n && !memcmp(own, bid, bid_n);
		else
			ok = file_crc_is(path, crc);
		if (ok && debug_file_ok(path, NULL, 0))
			break;
		free(path);
		path = NULL;
	}
	free(name);
	return path;
}

/* ---- settings ---------------------------------------------------------- */

int find_init(struct symbolizer *s, const struct symbolizer_opts *o)
{
	const char *dir = o ? o->buildid_dir : NULL, *home;

	if (!dir) {
		dir = getenv("PERF_BUILDID_DIR");
		if (!dir || !*dir) {
			home = getenv("HOME");
			if (!home || !*home)
				return 0;
			return asprintf(&s->buildid_dir, "%s/.debug", home) < 0 ? -ENOMEM : 0;
		}
	}
	if (!*dir)
		return 0;
	s->buildid_dir = strdup(dir);
	return s->buildid_dir ? 0 : -ENOMEM;
}

/* ---- perf's build-id cache --------------------------------------------- */

/* Whether the ELF file at path has the build id bid (and has one). */
static bool file_build_id_is(const char *path, const uint8_t *bid, size_t bid_n)
{
	uint8_t own[SYM_BUILD_ID_MAX];
	size_t own_n;
	int fd;
	Elf *e = elf_open_path(path, &fd);

	if (!e)
		return false;
	own_n = elf_build_id(e, own);
	elf_close(e, fd);
	return bid_n && own_n == bid_n && !memcmp(own, bid, bid_n);
}

/*
 * <buildid_dir>/.build-id/xx/rest/<leaf>, where perf keeps the binary it
 * recorded ("elf") and a debug file ("debug"), when it has that build id
 * (and, for a debug file, symbols or DWARF). NULL when absent, or for want
 * of memory.
 */
static char *find_in_buildid_cache(struct symbolizer *s, const uint8_t *bid, size_t n,
				   const char *leaf)
{
	char hex[2 * SYM_BUILD_ID_MAX + 1], *path;
	bool debug = !strcmp(leaf, "debug");

	if (!s->buildid_dir || n < 2)
		return NULL;
	hex_str(bid, n, hex);
	if (asprintf(&path, "%s/.build-id/%.2s/%s/%s", s->buildid_dir, hex, hex + 2, leaf) < 0)
		return NULL;
	if (file_build_id_is(path, bid, n) && (!debug || debug_file_ok(path, bid, n)))
		return path;
	free(path);
	return NULL;
}

/* ---- debuginfod ---------------------------------------------------------- */

enum { DBGD_EXECUTABLE, DBGD_DEBUGINFO };

/*
 * libdebuginfod is not linked but loaded with dlopen the first time a
 * lookup wants it (DEBUGINFOD_URLS set): it brings libcurl and some thirty
 * more shared libraries, about 9 ms at every start of a program that links
 * the symbolizer, mostly for nothing. Loaded once per process and never
 * unloaded; <elfutils/debuginfod.h> still gives the types. When it cannot
 * be loaded, all four pointers stay NULL and dbgd_lib_err says why.
 */
static struct {
	typeof(debuginfod_begin) *begin;
	typeof(debuginfod_find_executable) *find_executable;
	typeof(debuginfod_find_debuginfo) *find_debuginfo;
	typeof(debuginfod_end) *end;
} dbgd_lib;
static char dbgd_lib_err[256];
static pthread_once_t dbgd_lib_once = PTHREAD_ONCE_INIT;

static void dbgd_lib_load(void)
{
	void *h = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	const char *e;

	if (!h) {
		e = dlerror();
		snprintf(dbgd_lib_err, sizeof(dbgd_lib_err), "%s",
			 e ? e : "cannot load " DEBUGINFOD_SONAME);
		return;
	}
	dbgd_lib.begin = (typeof(dbgd_lib.begin))dlsym(h, "debuginfod_begin");
	dbgd_lib.find_executable =
		(typeof(dbgd_lib.find_executable))dlsym(h, "debuginfod_find_executable");
	dbgd_lib.find_debuginfo =
		(typeof(dbgd_lib.find_debuginfo))dlsym(h, "debuginfod_find_debuginfo");
	dbgd_lib.end = (typeof(dbgd_lib.end))dlsym(h, "debuginfod_end");
	if (!dbgd_lib.begin || !dbgd_lib.find_executable || !dbgd_lib.find_debuginfo ||
	    !dbgd_lib.end) {
		snprintf(dbgd_lib_err, sizeof(dbgd_lib_err), "%s lacks a debuginfod_ function",
			 DEBUGINFOD_SONAME);
		memset(&dbgd_lib, 0, sizeof(dbgd_lib));
		dlclose(h);
	}
}

/* What was asked for one build id, and the trusted answer. */
struct dbgd_ask {
	uint8_t bid[SYM_BUILD_ID_MAX];
	size_t bid_n;
	bool asked[2];
	char *path[2];
};

struct dbgd {
	debuginfod_client *client;      /* NULL: could not be started */
	bool warned;                    /* a failure was said; the others are not */
	struct dbgd_ask *v;
	size_t n, cap;
};

void find_free(struct symbolizer *s)
{
	struct dbgd *g = s->dbgd;

	free(s->buildid_dir);
	s->buildid_dir = NULL;
	if (!g)
		return;
	if (g->client)
		dbgd_lib.end(g->client);
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].path[0]);
		free(g->v[i].path[1]);
	}
	free(g->v);
	free(g);
	s->dbgd = NULL;
}

static void dbgd_warn(struct symbolizer *s, const char *what, const char *path,
		      const uint8_t *bid, size_t n, const char *why)
{
	char hex[2 * SYM_BUILD_ID_MAX + 1];

	if (s->dbgd->warned)
		return;
	s->dbgd->warned = true;
	hex_str(bid, n, hex);
	sym_warn(s, "debuginfod: no %s for %s (build id %s): %s; further failures "
		 "are not reported", what, path, hex, why);
}

/* The record of the questions about bid, added when new; NULL when
 * debuginfod is not configured, or for want of memory. The client is made
 * on first use. */
static struct dbgd_ask *dbgd_ask_for(struct symbolizer *s, const uint8_t *bid, size_t n)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct dbgd *g = s->dbgd;
	struct dbgd_ask *a;

	if (!urls || !*urls || n < 2)
		return NULL;
	if (!g) {
		if (!(g = s->dbgd = calloc(1, sizeof(*g))))
			return NULL;
		pthread_once(&dbgd_lib_once, dbgd_lib_load);
		if (!dbgd_lib.begin) {
			g->warned = true;
			sym_warn(s, "debuginfod: DEBUGINFOD_URLS is set, but %s: not used",
				 dbgd_lib_err);
		} else if (!(g->client = dbgd_lib.begin())) {
			g->warned = true;
			sym_warn(s, "debuginfod: cannot start a client: not used");
		}
	}
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i].bid_n == n && !memcmp(g->v[i].bid, bid, n))
			return &g->v[i];
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 16;

		if (!(a = array_realloc(g->v, cap, sizeof(*a))))
			return NULL;
		g->v = a;
		g->cap = cap;
	}
	a = &g->v[g->n++];
	memset(a, 0, sizeof(*a));
	memcpy(a->bid, bid, n);
	a->bid_n = n;
	return a;
}

/*
 * The executable or debuginfo file of build id bid from debuginfod (its
 * client cache), when DEBUGINFOD_URLS is set: malloc'd path, or NULL. Each
 * build id is asked for each kind once; an answer is kept only when it has
 * that build id (and, for debuginfo, symbols or DWARF). path is the
 * recorded one, for the warning.
 */
static char *dbgd_find(struct symbolizer *s, const uint8_t *bid, size_t n, int kind,
		       const char *path)
{
	static const char *const what[2] = { "executable", "debuginfo" };
	struct dbgd_ask *a = dbgd_ask_for(s, bid, n);
	char *got = NULL;
	int fd;

	if (!a)
		return NULL;
	if (!a->asked[kind] && s->dbgd->client) {
		a->asked[kind] = true;
		s->stats.debuginfod_asked++;
		if (kind == DBGD_EXECUTABLE)
			fd = dbgd_lib.find_executable(s->dbgd->client, bid, (int)n, &got);
		else
			fd = dbgd_lib.find_debuginfo(s->dbgd->client, bid, (int)n, &got);
		if (fd < 0) {
			dbgd_warn(s, what[kind], path, bid, n, fd == -ENOENT ?
				  "no server has it" : strerror(-fd));
			return NULL;
		}
		close(fd);
		if (!file_build_id_is(got, bid, n) ||
		    (kind == DBGD_DEBUGINFO && !debug_file_ok(got, bid, n))) {
			dbgd_warn(s, what[kind], path, bid, n, kind == DBGD_DEBUGINFO ?
				  "the file served has another build id, or no symbols" :
				  "the file served has another build id");
			free(got);
			return NULL;
		}
		a->path[kind] = got;
		s->stats.debuginfod_files++;
	}
	return a->path[kind] ? strdup(a->path[kind]) : NULL;
}

/* ---- deciding ------------------------------------------------------------ */

/*
 * The program headers of a debug file made by objcopy --only-keep-debug or
 * eu-strip keep p_vaddr and p_memsz but not p_offset and p_filesz (its
 * sections hold no bytes). When the binary itself cannot be used, the
 * offsets are rebuilt the way GNU ld and lld lay segments out: each one at
 * the lowest offset past the previous one that is congruent to its vaddr
 * modulo the 4 KiB page. Right for the text of both linkers' layouts.
 */
static void segs_guess_offsets(struct load_seg *g, size_t n)
{
	uint64_t off = 0;

	for (size_t i = 0; i < n; i++) {
		if (i)
			off += g[i - 1].memsz;
		off += (g[i].vaddr - off) & 0xfff;
		g[i].offset = off;
		g[i].filesz = g[i].memsz;
	}
}

/* Whether a binary has what names its functions fully: a .symtab or DWARF. */
static bool elf_has_full_symbols(Elf *e)
{
	return elf_has_section(e, ".symtab", false) || elf_has_section(e, ".debug_info", true);
}

static void mismatch_warn(struct symbolizer *s, struct sym_dso *d, const uint8_t *fbid,
			  size_t fbid_n)
{
	char want[2 * SYM_BUILD_ID_MAX + 1], have[2 * SYM_BUILD_ID_MAX + 1];

	hex_str(d->build_id, d->build_id_size, want);
	hex_str(fbid, fbid_n, have);
	sym_warn(s, "%s: build id %s recorded, but the file on disk has %s: "
		 "its addresses stay unresolved", d->path, want, fbid_n ? have : "none");
}

/*
 * Decide which files the dso uses and read its program headers. -ENOMEM
 * leaves the dso unopened; everything else ends in a state.
 *
 * The binary: the recorded path when its build id is the recorded one (or
 * none was recorded), else perf's build-id cache, else debuginfod's
 * executable. A file with the recorded build id is the same binary
 * wherever it lies, so taking the recorded path first only saves looking.
 * The debug file: by build id under the debug root, then in perf's cache,
 * then by the binary's .gnu_debuglink, then debuginfod's debuginfo when
 * there is no binary or the one found has neither .symtab nor .debug_info.
 */
static int dso_open(struct symbolizer *s, struct sym_dso *d)
{
	uint8_t fbid[SYM_BUILD_ID_MAX];
	size_t fbid_n = 0;
	const uint8_t *bid = d->build_id;
	size_t bid_n = d->build_id_size;
	bool have_file, local_bin, want_debug;
	char *bin = NULL, *dbg = NULL;
	int fd = -1, bfd = -1, ret = 0;
	Elf *e = elf_open_path(d->path, &fd), *be = NULL;

	have_file = e != NULL;
	if (e) {
		fbid_n = elf_build_id(e, fbid);
		if (!bid_n || (fbid_n == bid_n && !memcmp(fbid, bid, bid_n))) {
			if (!(bin = strdup(d->path))) {
				ret = -ENOMEM;
				goto out;
			}
			be = e;
		}
	}
	if (!bid_n && bin) {
		bid = fbid;
		bid_n = fbid_n;
	}
	/* 1. by build id on this machine (and the debuglink of the binary) */
	if (!bin && ((bin = find_in_buildid_cache(s, bid, bid_n, "elf")) ||
		     (bin = find_in_buildid_cache(s, bid, bid_n, "vdso"))))
		be = elf_open_path(bin, &bfd);
	dbg = find_by_build_id(s, bid, bid_n);
	if (!dbg)
		dbg = find_in_buildid_cache(s, bid, bid_n, "debug");
	if (!dbg && be)
		dbg = find_by_debuglink(s, d->path, be, bid, bid_n);
	/* 2. debuginfod, for what is still missing */
	local_bin = be != NULL;
	if (!bin && (bin = dbgd_find(s, bid, bid_n, DBGD_EXECUTABLE, d->path)))
		be = elf_open_path(bin, &bfd);
	want_debug = !dbg && !(be && elf_has_section(be, ".debug_info", true)) &&
		     !(local_bin && elf_has_full_symbols(be));
	if (want_debug)
		dbg = dbgd_find(s, bid, bid_n, DBGD_DEBUGINFO, d->path);

	if (be) {
		ret = elf_load_segs(be, &d->segs, &d->nsegs);
	} else if (dbg) {
		int dfd;
		Elf *de = elf_open_path(dbg, &dfd);

		ret = de ? elf_load_segs(de, &d->segs, &d->nsegs) : 0;
		elf_close(de, dfd);
		segs_guess_offsets(d->segs, d->nsegs);
	}
out:
	if (be && be != e)
		elf_close(be, bfd);
	elf_close(e, fd);
	if (ret) {
		free(bin);
		free(dbg);
		free(d->segs);
		d->segs = NULL;
		d->nsegs = 0;
		return ret;
	}
	if (bin && !be) {       /* unreadable after all */
		free(bin);
		bin = NULL;
	}
	d->bin_path = bin;
	d->debug_path = dbg;
	if (bin || (dbg && d->nsegs)) {
		d->state = DSO_OK;
	} else if (have_file) {
		d->state = DSO_MISMATCH;
		s->stats.dsos_mismatch++;
		mismatch_warn(s, d, fbid, fbid_n);
	} else {
		d->state = DSO_MISSING;
		s->stats.dsos_missing++;
	}
	return 0;
}

int dso_ensure(struct symbolizer *s, struct sym_dso *d)
{
	int ret;

	if (d->state != DSO_NEW)
		return 0;
	/* what the recording embedded comes before any file */
	ret = dso_use_embedded(s, d);
	return ret ? (ret < 0 ? ret : 0) : dso_open(s, d);
}

bool sym_dso_usable(struct symbolizer *s, struct sym_dso *d)
{
	return !dso_ensure(s, d) && d->state == DSO_OK;
}
