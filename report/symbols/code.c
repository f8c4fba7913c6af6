// SPDX-License-Identifier: MIT
/*
 * code_read(): a function's bytes from the binary of its dso, through the
 * binary's PT_LOAD program headers (vaddr to file offset).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "code.h"

/* The file offset of vaddr and how many file bytes follow it in its
 * segment; 0, or -ERANGE when no PT_LOAD holds it. */
static int seg_offset(Elf *e, uint64_t addr, uint64_t *off, uint64_t *avail)
{
	size_t n = 0;

	if (elf_getphdrnum(e, &n))
		return -ERANGE;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr < ph.p_vaddr || addr >= ph.p_vaddr + ph.p_filesz)
			continue;
		*off = ph.p_offset + (addr - ph.p_vaddr);
		*avail = ph.p_vaddr + ph.p_filesz - addr;
		return 0;
	}
	return -ERANGE;
}

int code_read(struct symbolizer *sz, struct sym_dso *dso, uint64_t addr, size_t len,
	      uint8_t *out, size_t *got, struct err *err)
{
	const char *path;
	uint64_t off = 0, avail = 0;
	size_t id_size = 0, emb = 0;
	const uint8_t *id = sym_dso_build_id(dso, &id_size), *p = NULL;
	Elf *e = NULL;
	ssize_t r;
	int fd, ret;

	*got = 0;
	/* what the recording embedded first (embed_code.h): the bytes it ran */
	if (id_size)
		emb = symbolizer_embedded_code(sz, id, id_size, addr, len, &p);
	if (emb == len) {
		memcpy(out, p, emb);
		*got = emb;
		return 0;
	}
	path = sym_dso_bin_path(sz, dso);
	if (!path && emb) {
		memcpy(out, p, emb);    /* a part embedded, no binary here */
		*got = emb;
		return 0;
	}
	if (!path)
		return err_set(err, -ENOENT, "no binary of %s on this machine, and the recording "
			       "did not embed its code", sym_dso_path(dso));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, -errno, "cannot open '%s': %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ret = e ? seg_offset(e, addr, &off, &avail) : -ERANGE;
	if (ret) {
		err_set(err, ret, "no code at %#llx in '%s'", (unsigned long long)addr, path);
		goto out;
	}
	if (len > avail)
		len = (size_t)avail;
	r = pread(fd, out, len, (off_t)off);
	if (r < 0) {
		ret = err_set(err, -errno, "cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	*got = (size_t)r;
out:
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}
