/* SPDX-License-Identifier: MIT */
/*
 * Debug files kept with their sections inflated; see symbols_plain.h.
 */
#include "symbols_plain.h"
#include "symbols_elf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"

/* Distributions ship debug files with compressed sections (libc6-dbg here:
 * 4 MB that inflate to 10); libdw inflates every one of them into memory at
 * each open. A copy with the sections stored plain, kept in the cache folder
 * by build id, is mapped instead: only the pages a lookup reads are loaded. */
#define DEBUG_KEEP_MAX 64

static bool has_compressed_debug(Elf *e)
{
	GElf_Shdr sh;

	return elf_section(e, ".debug_info", &sh) && (sh.sh_flags & SHF_COMPRESSED);
}

/* Write src with its compressed sections inflated to path (atomically). */
static int write_plain(Elf *src, const char *path)
{
	char tmp[4200];
	GElf_Ehdr eh;
	size_t phnum = 0;
	Elf_Scn *scn = NULL;
	Elf *dst = NULL;
	int fd, ret = -1;

	/* by thread: two readings of one process (prep diff) may write it at once */
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)gettid());
	fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (!gelf_getehdr(src, &eh) || elf_getphdrnum(src, &phnum) ||
	    !(dst = elf_begin(fd, ELF_C_WRITE, NULL)) || !gelf_newehdr(dst, gelf_getclass(src)))
		goto out;
	if (phnum) {
		if (!gelf_newphdr(dst, phnum))
			goto out;
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(src, (int)i, &ph) || !gelf_update_phdr(dst, (int)i, &ph))
				goto out;
		}
	}
	while ((scn = elf_nextscn(src, scn))) {
		GElf_Shdr sh;
		Elf_Scn *ns;
		Elf_Data *sd, *nd;

		if (!gelf_getshdr(scn, &sh))
			goto out;
		if ((sh.sh_flags & SHF_COMPRESSED) &&
		    (elf_compress(scn, 0, 0) < 0 || !gelf_getshdr(scn, &sh)))
			goto out;
		if (!(ns = elf_newscn(dst)))
			goto out;
		sd = elf_getdata(scn, NULL);
		if (sd) {
			if (!(nd = elf_newdata(ns)))
				goto out;
			nd->d_buf = sd->d_buf;
			nd->d_type = sd->d_type;
			nd->d_size = sd->d_size;
			nd->d_align = sd->d_align;
			nd->d_version = sd->d_version;
			nd->d_off = 0;
		}
		if (!gelf_update_shdr(ns, &sh))
			goto out;
	}
	if (!gelf_update_ehdr(dst, &eh) || elf_update(dst, ELF_C_WRITE) < 0)
		goto out;
	ret = 0;
out:
	elf_end(dst);
	if (close(fd))
		ret = -1;
	if (!ret && rename(tmp, path))
		ret = -1;
	if (ret)
		unlink(tmp);
	return ret;
}

/* At most DEBUG_KEEP_MAX kept copies: the oldest go. */
static void trim_kept(const char *dir)
{
	char oldest[512] = "";
	time_t oldest_t = 0;
	size_t n = 0;
	struct dirent *de;
	DIR *dh = opendir(dir);

	if (!dh)
		return;
	while ((de = readdir(dh))) {
		struct stat st;

		if (de->d_name[0] == '.' || fstatat(dirfd(dh), de->d_name, &st, 0))
			continue;
		n++;
		if (!oldest[0] || st.st_mtime < oldest_t) {
			snprintf(oldest, sizeof(oldest), "%s", de->d_name);
			oldest_t = st.st_mtime;
		}
	}
	if (n > DEBUG_KEEP_MAX && oldest[0])
		unlinkat(dirfd(dh), oldest, 0);
	closedir(dh);
}

char *debug_plain_copy(const char *cache_dir, Elf *e)
{
	uint8_t id[SYM_BUILD_ID_MAX];
	size_t n = elf_build_id(e, id);
	char dir[4096], hex[2 * SYM_BUILD_ID_MAX + 1], *path;
	int fd;
	Elf *k;

	if (!cache_dir || !n || !has_compressed_debug(e))
		return NULL;
	snprintf(dir, sizeof(dir), "%s/debug", cache_dir);
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	if (asprintf(&path, "%s/%s.debug", dir, hex) < 0)
		return NULL;
	/* a kept copy must carry the same build id */
	if ((k = elf_open_path(path, &fd))) {
		uint8_t kid[SYM_BUILD_ID_MAX];
		bool same = elf_build_id(k, kid) == n && !memcmp(kid, id, n);

		elf_close(k, fd);
		if (same)
			return path;
	}
	if ((mkdir(cache_dir, 0700) && errno != EEXIST) || (mkdir(dir, 0700) && errno != EEXIST) ||
	    write_plain(e, path)) {
		free(path);
		return NULL;
	}
	trim_kept(dir);
	return path;
}
