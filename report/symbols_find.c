/* SPDX-License-Identifier: MIT */
/*
 * Where the files of a dso are found and whether they are trusted: the
 * binary (by its recorded path and build id), separate debug files (by
 * build id under the debug root, by .gnu_debuglink), and the program
 * headers that turn file offsets into addresses.
 */
#include "symbols_int.h"

#include <errno.h>
#include <fcntl.h>
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

/* Decide which files the dso uses and read its program headers. -ENOMEM
 * leaves the dso unopened; everything else ends in a state. */
static int dso_open(struct symbolizer *s, struct sym_dso *d)
{
	uint8_t fbid[SYM_BUILD_ID_MAX];
	size_t fbid_n = 0;
	const uint8_t *bid = d->build_id;
	size_t bid_n = d->build_id_size;
	bool bin_ok = false, have_file;
	char *dbg = NULL;
	int fd = -1, ret = 0;
	Elf *e = elf_open_path(d->path, &fd);

	have_file = e != NULL;
	if (e) {
		fbid_n = elf_build_id(e, fbid);
		bin_ok = !bid_n || (fbid_n == bid_n && !memcmp(fbid, bid, bid_n));
	}
	if (!bid_n && bin_ok) {
		bid = fbid;
		bid_n = fbid_n;
	}
	dbg = find_by_build_id(s, bid, bid_n);
	if (!dbg && bin_ok)
		dbg = find_by_debuglink(s, d->path, e, fbid, fbid_n);

	if (bin_ok) {
		if (!(d->bin_path = strdup(d->path)))
			ret = -ENOMEM;
		else
			ret = elf_load_segs(e, &d->segs, &d->nsegs);
	} else if (dbg) {
		int dfd;
		Elf *de = elf_open_path(dbg, &dfd);

		ret = de ? elf_load_segs(de, &d->segs, &d->nsegs) : 0;
		elf_close(de, dfd);
		segs_guess_offsets(d->segs, d->nsegs);
	}
	elf_close(e, fd);
	if (ret) {
		free(dbg);
		free(d->bin_path);
		d->bin_path = NULL;
		return ret;
	}
	d->debug_path = dbg;
	if (bin_ok || (dbg && d->nsegs)) {
		d->state = DSO_OK;
	} else if (have_file) {
		char want[2 * SYM_BUILD_ID_MAX + 1], have[2 * SYM_BUILD_ID_MAX + 1];

		hex_str(d->build_id, d->build_id_size, want);
		hex_str(fbid, fbid_n, have);
		d->state = DSO_MISMATCH;
		s->stats.dsos_mismatch++;
		sym_warn(s, "%s: build id %s recorded, but the file on disk has %s: "
			 "its addresses stay unresolved", d->path, want, fbid_n ? have : "none");
	} else {
		d->state = DSO_MISSING;
		s->stats.dsos_missing++;
	}
	return 0;
}

int dso_ensure(struct symbolizer *s, struct sym_dso *d)
{
	return d->state == DSO_NEW ? dso_open(s, d) : 0;
}

bool sym_dso_usable(struct symbolizer *s, struct sym_dso *d)
{
	return !dso_ensure(s, d) && d->state == DSO_OK;
}
