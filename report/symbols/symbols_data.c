/* SPDX-License-Identifier: MIT */
/*
 * The data symbols of a binary (STT_OBJECT, STT_COMMON: global and static
 * variables), for the data addresses of samples (prec -d, prep --sort
 * symbol_daddr). A table of their own, loaded only when a data address is
 * looked up, so that function lookup neither slows down nor changes.
 */
#include "symbols_data.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool sym_is_data(const GElf_Sym *sym, const char *name)
{
	int type = GELF_ST_TYPE(sym->st_info);

	if (!name || !*name || sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE)
		return false;
	return type == STT_OBJECT || type == STT_COMMON;
}

/* A zero-size symbol (_DYNAMIC, linker labels) covers what follows it up
 * to the next symbol, within its section, as perf names such addresses. */
static uint64_t section_end(Elf *e, size_t shndx)
{
	Elf_Scn *scn = elf_getscn(e, shndx);
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh))
		return 0;
	return sh.sh_addr + sh.sh_size;
}

/* The data symbols of every table of type sh_type into r. */
static int add_data_symbols(struct arena *names, Elf *e, uint32_t sh_type, struct rawsyms *r,
			    bool *found)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t nsyms;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != sh_type || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			continue;
		nsyms = data->d_size / sh.sh_entsize;
		for (size_t i = 1; i < nsyms; i++) {
			struct rawsym rs = { 0 };
			const char *name;
			GElf_Sym sym;

			if (!gelf_getsym(data, (int)i, &sym))
				break;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!sym_is_data(&sym, name))
				continue;
			rs.start = sym.st_value;
			rs.size = sym.st_size;
			rs.limit = section_end(e, sym.st_shndx);
			rs.bind = GELF_ST_BIND(sym.st_info);
			rs.type = GELF_ST_TYPE(sym.st_info);
			rs.name = arena_strdup(names, name);
			if (!rs.name || rawsyms_push(r, &rs))
				return -ENOMEM;
			*found = true;
		}
	}
	return 0;
}

int elf_read_data_symbols(const char *bin_path, const char *debug_path, struct arena *names,
			  struct symtab *out)
{
	return elf_read_tables(bin_path, debug_path, names, add_data_symbols, NULL, out);
}

uint64_t segs_data_vaddr(const struct load_seg *segs, size_t n, uint64_t off, bool *inside)
{
	/* the bytes of the file first, then what the segments add in memory
	 * (.bss, which an anonymous mapping holds beyond the file's pages) */
	for (size_t i = 0; i < n; i++) {
		if (off >= segs[i].offset && off - segs[i].offset < segs[i].filesz) {
			*inside = true;
			return off - segs[i].offset + segs[i].vaddr;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (off >= segs[i].offset && off - segs[i].offset < segs[i].memsz) {
			*inside = true;
			return off - segs[i].offset + segs[i].vaddr;
		}
	}
	*inside = false;
	return off;
}
