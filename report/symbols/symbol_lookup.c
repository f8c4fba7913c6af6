/* SPDX-License-Identifier: MIT */
/*
 * Looking one symbol up by name with libelf (symbol_lookup.h): the probes
 * of prec need a function's file offset, its breakpoints a variable's
 * address.
 */
#include "report/symbols/symbol_lookup.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/symbols/symbols_elf.h"

static bool type_fits(unsigned type, bool func)
{
	if (func)
		return type == STT_FUNC || type == STT_GNU_IFUNC;
	return type == STT_OBJECT || type == STT_COMMON;
}

/* name in the symbol table of section type (SHT_SYMTAB or SHT_DYNSYM). */
static bool find_in(Elf *e, unsigned sh_type, const char *name, bool func, GElf_Sym *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != sh_type || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		n = d ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym s;
			const char *sn;

			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
			    !type_fits(GELF_ST_TYPE(s.st_info), func))
				continue;
			sn = elf_strptr(e, sh.sh_link, s.st_name);
			if (sn && !strcmp(sn, name)) {
				*out = s;
				return true;
			}
		}
	}
	return false;
}

/* The file offset of vaddr through the PT_LOAD segment holding it. */
static bool file_offset(Elf *e, uint64_t vaddr, uint64_t *off, uint64_t *first)
{
	size_t n = 0;
	bool found = false;

	if (elf_getphdrnum(e, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (!ph.p_offset)
			*first = ph.p_vaddr & ~(uint64_t)0xfff;
		if (!found && vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			found = true;
		}
	}
	return found;
}

int symbol_lookup(const char *path, const char *name, bool func, struct symbol_hit *out,
		  struct err *err)
{
	GElf_Ehdr eh;
	GElf_Sym s;
	Elf *e;
	int fd;

	elf_version(EV_CURRENT);
	if (access(path, R_OK))
		return err_set(err, -errno, "%s: %s", path, strerror(errno));
	e = elf_open_path(path, &fd);
	if (!e || !gelf_getehdr(e, &eh)) {
		elf_close(e, fd);
		return err_set(err, -ENOEXEC, "%s: not an ELF file", path);
	}
	if (!find_in(e, SHT_SYMTAB, name, func, &s) && !find_in(e, SHT_DYNSYM, name, func, &s)) {
		elf_close(e, fd);
		return err_set(err, -ENOENT, "%s: no %s symbol '%s' in it", path,
			       func ? "function" : "variable", name);
	}
	memset(out, 0, sizeof(*out));
	out->vaddr = s.st_value;
	out->size = s.st_size;
	out->pie = eh.e_type == ET_DYN;
	out->in_file = file_offset(e, s.st_value, &out->file_off, &out->load_vaddr);
	elf_close(e, fd);
	return 0;
}
