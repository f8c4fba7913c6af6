/* SPDX-License-Identifier: MIT */
/*
 * ELF side of the symbolizer: opening files with libelf, build-id notes,
 * .gnu_debuglink, program headers, and the function symbols of a dso from
 * .symtab (binary or debug file), .dynsym, .gnu_debugdata (the xz-packed
 * mini symbol table of stripped Fedora-style binaries) and synthesized
 * name@plt entries.
 */
#include "symbols_elf.h"

#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"

#define DEBUGDATA_MAX ((size_t)512 << 20)     /* bound on the unpacked mini ELF */

Elf *elf_open_path(const char *path, int *fdp)
{
	struct stat st;
	GElf_Ehdr eh;
	Elf *e;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*fdp = -1;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		elf_end(e);
		close(fd);
		return NULL;
	}
	*fdp = fd;
	return e;
}

void elf_close(Elf *e, int fd)
{
	elf_end(e);
	if (fd >= 0)
		close(fd);
}

static size_t note_build_id(Elf_Data *data, uint8_t out[SYM_BUILD_ID_MAX])
{
	size_t off = 0, name_off, desc_off, next;
	GElf_Nhdr nh;

	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((const char *)data->d_buf + name_off, "GNU", 4) &&
		    nh.n_descsz > 0 && nh.n_descsz <= SYM_BUILD_ID_MAX) {
			memcpy(out, (const char *)data->d_buf + desc_off, nh.n_descsz);
			return nh.n_descsz;
		}
		off = next;
	}
	return 0;
}

size_t elf_build_id(Elf *e, uint8_t out[SYM_BUILD_ID_MAX])
{
	Elf_Scn *scn = NULL;
	size_t n, nph = 0;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && data->d_buf && (n = note_build_id(data, out)))
			return n;
	}
	/* no section headers (or none with the note): the PT_NOTE segments */
	if (elf_getphdrnum(e, &nph))
		return 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		Elf_Data *data;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz,
					    ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (data && data->d_buf && (n = note_build_id(data, out)))
			return n;
	}
	return 0;
}

Elf_Scn *elf_section(Elf *e, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(e, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

bool elf_has_section(Elf *e, const char *name, bool with_bits)
{
	GElf_Shdr sh;

	if (!elf_section(e, name, &sh))
		return false;
	return !with_bits || (sh.sh_type != SHT_NOBITS && sh.sh_size > 0);
}

char *elf_debuglink(Elf *e, uint32_t *crc)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_section(e, ".gnu_debuglink", &sh);
	Elf_Data *data = scn && sh.sh_type != SHT_NOBITS ? elf_getdata(scn, NULL) : NULL;
	const char *p;
	size_t len, crc_off;
	GElf_Ehdr eh;
	uint8_t b[4];

	if (!data || !data->d_buf || !gelf_getehdr(e, &eh))
		return NULL;
	p = data->d_buf;
	len = strnlen(p, data->d_size);
	crc_off = (len + 4) & ~(size_t)3;
	if (!len || crc_off + 4 > data->d_size || memchr(p, '/', len))
		return NULL;
	memcpy(b, p + crc_off, 4);
	if (eh.e_ident[EI_DATA] == ELFDATA2MSB)
		*crc = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	else
		*crc = (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
	return strndup(p, len);
}

int elf_load_segs(Elf *e, struct load_seg **segs, size_t *n)
{
	size_t nph = 0, k = 0;
	struct load_seg *v;

	*segs = NULL;
	*n = 0;
	if (elf_getphdrnum(e, &nph) || !nph)
		return 0;
	v = calloc(nph, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		v[k].offset = ph.p_offset;
		v[k].vaddr = ph.p_vaddr;
		v[k].filesz = ph.p_filesz;
		v[k].memsz = ph.p_memsz;
		v[k].flags = ph.p_flags;
		k++;
	}
	if (!k) {
		free(v);
		return 0;
	}
	*segs = v;
	*n = k;
	return 0;
}

/* ---- symbol tables ---------------------------------------------------- */

struct sec_info {
	uint64_t addr, end;
	bool exec;
};

/* The address range and exec flag of every section, indexed like the file. */
static struct sec_info *read_sections(Elf *e, size_t *n)
{
	struct sec_info *v;
	Elf_Scn *scn = NULL;

	if (elf_getshdrnum(e, n) || !*n)
		return NULL;
	v = calloc(*n, sizeof(*v));
	if (!v)
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		size_t i = elf_ndxscn(scn);
		GElf_Shdr sh;

		if (i >= *n || !gelf_getshdr(scn, &sh))
			continue;
		v[i].addr = sh.sh_addr;
		v[i].end = sh.sh_addr + sh.sh_size;
		v[i].exec = sh.sh_flags & SHF_EXECINSTR;
	}
	return v;
}

/* Whether an ELF symbol names code: STT_FUNC / STT_GNU_IFUNC defined in a
 * section, or (as perf does) an STT_NOTYPE label in an executable section,
 * except local labels and ARM/AArch64 mapping symbols ($x, $d, ...). */
static bool sym_is_code(const GElf_Sym *sym, const char *name, const struct sec_info *secs,
			size_t nsecs)
{
	int type = GELF_ST_TYPE(sym->st_info);

	if (!name || !*name || sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return true;
	if (type != STT_NOTYPE || name[0] == '$' || !strncmp(name, ".L", 2))
		return false;
	return sym->st_shndx < nsecs && secs[sym->st_shndx].exec;
}

/* Add the code symbols of every section of type sh_type (SHT_SYMTAB or
 * SHT_DYNSYM) to r; *found says whether such a table had any. */
static int add_symbols(struct arena *names, Elf *e, uint32_t sh_type, struct rawsyms *r,
		       bool *found)
{
	Elf_Scn *scn = NULL;
	struct sec_info *secs;
	size_t nsecs = 0;
	GElf_Ehdr eh;
	int ret = 0;

	if (!gelf_getehdr(e, &eh))
		return 0;
	secs = read_sections(e, &nsecs);
	if (!secs)
		return 0;
	while (!ret && (scn = elf_nextscn(e, scn))) {
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
			GElf_Sym sym;
			const char *name;
			struct rawsym rs;

			if (!gelf_getsym(data, (int)i, &sym))
				break;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!sym_is_code(&sym, name, secs, nsecs))
				continue;
			rs.start = sym.st_value;
			if (eh.e_machine == EM_ARM)
				rs.start &= ~(uint64_t)1;       /* the Thumb bit */
			rs.size = sym.st_size;
			rs.limit = sym.st_shndx < nsecs ? secs[sym.st_shndx].end : 0;
			rs.bind = GELF_ST_BIND(sym.st_info);
			rs.type = GELF_ST_TYPE(sym.st_info);
			rs.aux = NULL;
			rs.name = arena_strdup(names, name);
			if (!rs.name || rawsyms_push(r, &rs)) {
				ret = -ENOMEM;
				break;
			}
			*found = true;
		}
	}
	free(secs);
	return ret;
}

/* Unpack .gnu_debugdata (an xz stream holding a small ELF file); NULL when
 * absent or damaged. */
static uint8_t *unpack_debugdata(Elf *e, size_t *out_len)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_section(e, ".gnu_debugdata", &sh);
	Elf_Data *data = scn && sh.sh_type == SHT_PROGBITS ? elf_getdata(scn, NULL) : NULL;
	lzma_stream strm = LZMA_STREAM_INIT;
	uint8_t *buf = NULL;
	size_t cap = 0;
	lzma_ret lr;

	if (!data || !data->d_buf || !data->d_size)
		return NULL;
	if (lzma_stream_decoder(&strm, 256u << 20, LZMA_CONCATENATED) != LZMA_OK)
		return NULL;
	strm.next_in = data->d_buf;
	strm.avail_in = data->d_size;
	do {
		if (!strm.avail_out) {
			size_t ncap = cap ? cap * 2 : data->d_size * 4 + 4096;
			uint8_t *nb;

			if (ncap > DEBUGDATA_MAX || !(nb = array_realloc(buf, ncap, 1)))
				goto fail;
			buf = nb;
			strm.next_out = buf + strm.total_out;
			strm.avail_out = ncap - strm.total_out;
			cap = ncap;
		}
		lr = lzma_code(&strm, LZMA_FINISH);
	} while (lr == LZMA_OK);
	if (lr != LZMA_STREAM_END)
		goto fail;
	*out_len = strm.total_out;
	lzma_end(&strm);
	return buf;
fail:
	lzma_end(&strm);
	free(buf);
	return NULL;
}

static int add_debugdata(struct arena *names, Elf *e, struct rawsyms *r, bool *found)
{
	size_t len = 0;
	uint8_t *buf = unpack_debugdata(e, &len);
	Elf *mini;
	int ret = 0;

	if (!buf)
		return 0;
	mini = elf_memory((char *)buf, len);
	if (mini && elf_kind(mini) == ELF_K_ELF)
		ret = add_symbols(names, mini, SHT_SYMTAB, r, found);
	elf_end(mini);
	free(buf);
	return ret;
}

/* ---- PLT entries ------------------------------------------------------ */

struct got_name {
	uint64_t got;           /* the GOT slot a PLT entry jumps through */
	const char *name;       /* in the dynamic string table (the Elf stays open) */
};

struct plt_ctx {
	struct got_name *rel;   /* .rela.plt in order (index fallback) */
	size_t nrel;
	struct got_name *sorted; /* .rela.plt and GLOB_DAT relocations by slot */
	size_t nsorted;
};

static int got_cmp(const void *pa, const void *pb)
{
	const struct got_name *a = pa, *b = pb;

	return a->got < b->got ? -1 : a->got > b->got;
}

/* Collect (slot, name) pairs of the relocation section called name; glob_dat:
 * only the GLOB_DAT relocations of x86 (the slots .plt.got jumps through). */
static int read_relocs(Elf *e, const char *name, bool glob_dat, struct got_name **v, size_t *n)
{
	GElf_Shdr sh, symsh;
	Elf_Scn *scn = elf_section(e, name, &sh), *symscn;
	Elf_Data *data, *syms;
	struct got_name *nv;
	size_t cnt;

	if (!scn || (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL) || !sh.sh_entsize)
		return 0;
	symscn = elf_getscn(e, sh.sh_link);
	data = elf_getdata(scn, NULL);
	if (!symscn || !gelf_getshdr(symscn, &symsh) || !data || !data->d_buf)
		return 0;
	syms = elf_getdata(symscn, NULL);
	if (!syms || !syms->d_buf)
		return 0;
	cnt = data->d_size / sh.sh_entsize;
	if (!cnt)
		return 0;
	if (cnt > SIZE_MAX / sizeof(**v) - *n)
		return -ENOMEM;
	nv = array_realloc(*v, *n + cnt, sizeof(**v));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	for (size_t i = 0; i < cnt; i++) {
		uint64_t off, info;
		GElf_Sym sym;
		const char *sname;

		if (sh.sh_type == SHT_RELA) {
			GElf_Rela ra;

			if (!gelf_getrela(data, (int)i, &ra))
				break;
			off = ra.r_offset;
			info = ra.r_info;
		} else {
			GElf_Rel rl;

			if (!gelf_getrel(data, (int)i, &rl))
				break;
			off = rl.r_offset;
			info = rl.r_info;
		}
		/* R_X86_64_GLOB_DAT and R_386_GLOB_DAT are both 6 */
		if (glob_dat && GELF_R_TYPE(info) != 6)
			continue;
		sname = NULL;
		if (GELF_R_SYM(info) && gelf_getsym(syms, (int)GELF_R_SYM(info), &sym))
			sname = elf_strptr(e, symsh.sh_link, sym.st_name);
		if (glob_dat && (!sname || !*sname))
			continue;
		nv[*n].got = off;
		nv[*n].name = sname && *sname ? sname : NULL;
		(*n)++;
	}
	return 0;
}

/* x86-64: the GOT slot of "jmp *disp32(%rip)" (ff 25, maybe after endbr64
 * and a bnd prefix) in a PLT entry at addr; 0 when there is none. */
static uint64_t x86_64_plt_slot(const uint8_t *p, size_t len, uint64_t addr)
{
	for (size_t k = 0; k + 6 <= len; k++) {
		if (p[k] == 0xff && p[k + 1] == 0x25) {
			int32_t disp = (int32_t)((uint32_t)p[k + 2] | (uint32_t)p[k + 3] << 8 |
						 (uint32_t)p[k + 4] << 16 | (uint32_t)p[k + 5] << 24);

			return addr + k + 6 + (uint64_t)(int64_t)disp;
		}
	}
	return 0;
}

static const char *slot_name(const struct plt_ctx *c, uint64_t slot)
{
	struct got_name key = { .got = slot };
	const struct got_name *g;

	if (!slot || !c->nsorted)
		return NULL;
	g = bsearch(&key, c->sorted, c->nsorted, sizeof(key), got_cmp);
	return g ? g->name : NULL;
}

static int push_plt(struct arena *names, struct rawsyms *r, const char *name, uint64_t addr,
		    uint64_t size, uint64_t limit)
{
	size_t len = strlen(name);
	char *n = arena_alloc(names, len + 5);
	struct rawsym rs = {
		.start = addr, .size = size, .limit = limit, .name = n,
		.bind = STB_GLOBAL, .type = STT_FUNC,
	};

	if (!n)
		return -ENOMEM;
	memcpy(n, name, len);
	memcpy(n + len, "@plt", 5);
	return rawsyms_push(r, &rs);
}

/* Name the entries of one PLT section: by the GOT slot each one jumps
 * through on x86-64, else (first_index >= 0) by the order of .rela.plt. */
static int plt_section(struct arena *names, Elf *e, const char *secname, uint64_t header,
		       uint64_t entsize, long first_index, bool x86_64, const struct plt_ctx *c,
		       struct rawsyms *r)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_section(e, secname, &sh);
	Elf_Data *data = scn && sh.sh_type == SHT_PROGBITS ? elf_getdata(scn, NULL) : NULL;
	const uint8_t *p;
	size_t len;
	int ret = 0;

	if (!data || !data->d_buf || !entsize)
		return 0;
	p = data->d_buf;
	len = data->d_size < sh.sh_size ? data->d_size : sh.sh_size;
	for (uint64_t off = header, i = 0; !ret && off + entsize <= len; off += entsize, i++) {
		const char *name = NULL;

		if (x86_64)
			name = slot_name(c, x86_64_plt_slot(p + off, entsize, sh.sh_addr + off));
		/* perf 6.1 names an entry whose relocation has no symbol
		 * (libc's IRELATIVE slots of ifuncs) "@plt" */
		if (!name && first_index >= 0 && first_index + i < c->nrel)
			name = c->rel[first_index + i].name ? c->rel[first_index + i].name : "";
		if (name)
			ret = push_plt(names, r, name, sh.sh_addr + off, entsize, sh.sh_addr + len);
	}
	return ret;
}

/* perf's naming: a ".plt" symbol for the PLT header (the whole .plt when
 * .plt.sec holds the entries), "name@plt" for each entry of .plt, .plt.sec
 * and (x86) .plt.got. */
static int add_plt(struct arena *names, Elf *e, struct rawsyms *r)
{
	struct plt_ctx c = { 0 };
	GElf_Shdr plt, sec;
	GElf_Ehdr eh;
	uint64_t header, entsize;
	bool x86 = false, x86_64 = false, has_sec;
	struct rawsym hdr;
	int ret;

	if (!gelf_getehdr(e, &eh) || !elf_section(e, ".plt", &plt) || plt.sh_type != SHT_PROGBITS)
		return 0;
	x86_64 = eh.e_machine == EM_X86_64;
	x86 = x86_64 || eh.e_machine == EM_386;
	header = eh.e_machine == EM_AARCH64 ? 32 : 16;
	entsize = x86 || eh.e_machine == EM_AARCH64 ? 16 : plt.sh_entsize;
	if (!entsize || entsize > 64 || plt.sh_size < header)
		return 0;
	has_sec = x86 && elf_section(e, ".plt.sec", &sec) && sec.sh_type == SHT_PROGBITS;

	ret = read_relocs(e, ".rela.plt", false, &c.rel, &c.nrel);
	if (!ret && !c.nrel)
		ret = read_relocs(e, ".rel.plt", false, &c.rel, &c.nrel);
	if (!ret && c.nrel) {
		c.sorted = malloc(c.nrel * sizeof(*c.sorted));
		if (!c.sorted)
			ret = -ENOMEM;
		else
			memcpy(c.sorted, c.rel, c.nrel * sizeof(*c.sorted));
		c.nsorted = c.nrel;
	}
	if (!ret && x86) {
		ret = read_relocs(e, ".rela.dyn", true, &c.sorted, &c.nsorted);
		if (!ret)
			ret = read_relocs(e, ".rel.dyn", true, &c.sorted, &c.nsorted);
	}
	if (ret)
		goto out;
	if (c.nsorted)
		qsort(c.sorted, c.nsorted, sizeof(*c.sorted), got_cmp);

	hdr = (struct rawsym){
		.start = plt.sh_addr, .size = has_sec ? plt.sh_size : header,
		.limit = plt.sh_addr + plt.sh_size, .name = ".plt",
		.bind = STB_GLOBAL, .type = STT_FUNC,
	};
	ret = rawsyms_push(r, &hdr);
	if (!ret && has_sec)
		ret = plt_section(names, e, ".plt.sec", 0, 16, 0, x86_64, &c, r);
	else if (!ret)
		ret = plt_section(names, e, ".plt", header, entsize, 0, x86_64, &c, r);
	if (!ret && x86_64) {
		GElf_Shdr got;
		uint64_t gsize = 8;

		if (elf_section(e, ".plt.got", &got) && (got.sh_entsize == 8 || got.sh_entsize == 16))
			gsize = got.sh_entsize;
		ret = plt_section(names, e, ".plt.got", 0, gsize, -1, true, &c, r);
	}
out:
	free(c.rel);
	free(c.sorted);
	return ret;
}

/* ---- a binary's table ------------------------------------------------ */

int elf_read_tables(const char *bin_path, const char *debug_path, struct arena *names,
		    elf_table_fn add, elf_extra_fn extra, struct symtab *out)
{
	struct rawsyms r = { 0 };
	int bfd = -1, dfd = -1, ret = 0;
	Elf *bin = bin_path ? elf_open_path(bin_path, &bfd) : NULL;
	Elf *dbg = debug_path ? elf_open_path(debug_path, &dfd) : NULL;
	bool symtab = false, dyn = false;

	out->v = NULL;
	out->n = 0;
	if (dbg)
		ret = add(names, dbg, SHT_SYMTAB, &r, &symtab);
	if (!ret && bin && !symtab)
		ret = add(names, bin, SHT_SYMTAB, &r, &symtab);
	if (!ret && bin)
		ret = add(names, bin, SHT_DYNSYM, &r, &dyn);
	if (!ret && bin && extra)
		ret = extra(names, bin, &r, symtab);
	elf_close(bin, bfd);
	elf_close(dbg, dfd);
	if (ret) {
		free(r.v);
		return ret;
	}
	return rawsyms_finish(&r, out, NULL);
}

/* What only function tables have: .gnu_debugdata without a .symtab, and
 * the PLT entries. */
static int add_function_extras(struct arena *names, Elf *bin, struct rawsyms *r, bool symtab)
{
	int ret = 0;

	if (!symtab)
		ret = add_debugdata(names, bin, r, &symtab);
	return ret ? ret : add_plt(names, bin, r);
}

int elf_read_symbols(const char *bin_path, const char *debug_path, struct arena *names,
		     struct symtab *out)
{
	return elf_read_tables(bin_path, debug_path, names, add_symbols, add_function_extras, out);
}
