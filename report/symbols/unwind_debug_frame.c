/* SPDX-License-Identifier: MIT */
/*
 * .debug_frame rewritten into .eh_frame form for libunwind's remote
 * interface; see unwind_debug_frame.h.
 *
 * The image of one binary, built once when the binary is first met:
 *
 *   CIE ...   each .debug_frame CIE libunwind can take: id 0, version 1 kept,
 *             3 and 4 written as 3 (4's address and segment sizes dropped),
 *             augmentation "zR" with FDE pointers DW_EH_PE_pcrel|sdata8,
 *             alignment factors, return column and instructions as they were
 *   FDE ...   each FDE inside the executable range: CIE pointer relative to
 *             itself, start address pc-relative (8 bytes), length (8 bytes),
 *             an empty augmentation, instructions as they were
 *   table     one { s32 start - lo, s32 FDE offset in the image } per FDE,
 *             sorted by start: UNW_INFO_FORMAT_IP_OFFSET's search table
 *             (starts relative to di->start_ip, FDEs to di->u.rti.segbase)
 *
 * Where the image lives. A binary loaded with bias b has its image at
 * b + SPACE (SPACE = 2^62). Pc-relative start addresses then come out right
 * for every bias, so one image serves every process that maps the binary,
 * and the image cannot be confused with anything real: x86-64 user
 * addresses are canonical, below 2^47 (4-level paging) or 2^56 (5-level),
 * and |b| is below 2^56 too, so b + SPACE lies in the non-canonical hole
 * under either paging mode. No stack, mapping or kernel address is there;
 * access_mem can tell image reads apart by range alone.
 */
#include "unwind_debug_frame.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/cursor.h"

#define SPACE 0x4000000000000000ull
#define PE_PCREL_SDATA8 0x1c            /* DW_EH_PE_pcrel | DW_EH_PE_sdata8 */
#define DEBUG_CIE_ID 0xffffffffu
#define ENTRY_MAX 0xfffffff0u           /* a 32-bit DWARF length */

struct dframe {
	struct buf img;                 /* entries, then the table */
	size_t table_off;
	size_t nfde;
	uint64_t lo, hi;                /* link-time range of the FDEs */
};

struct cie_ref {
	uint64_t src;                   /* offset in .debug_frame */
	uint32_t dst;                   /* offset in the image */
};

struct fde_ref {
	uint64_t start, end;            /* link-time */
	uint32_t dst;
};

struct conv {
	struct dframe *d;
	struct cie_ref *cies;
	size_t ncies, cies_cap;
	struct fde_ref *fdes;
	size_t nfdes, fdes_cap;
	uint64_t lo, hi;                /* the executable range asked for */
};

static bool skip_leb(struct cursor *c)
{
	const uint8_t *p;

	do {
		if (!(p = cur_take(c, 1)))
			return false;
	} while (*p & 0x80);
	return true;
}

/* The next entry: its section offset, whether it is 64-bit DWARF, and its
 * body after the length field. False at the end or on a length that runs
 * past the section. */
static bool next_entry(struct cursor *c, uint64_t *off, bool *dwarf64, struct cursor *body)
{
	uint32_t len32;
	uint64_t len;

	*off = c->off;
	if (!cur_le32(c, &len32))
		return false;
	*dwarf64 = len32 == 0xffffffffu;
	len = len32;
	if (*dwarf64 && !cur_le64(c, &len))
		return false;
	if (len > cur_left(c))
		return false;
	*body = cur_make(c->p + c->off, (size_t)len);
	c->off += (size_t)len;
	return true;
}

/* One CIE (body after its id): appended in .eh_frame form and remembered,
 * or left out when libunwind could not read it. 0 or -ENOMEM. */
static int put_cie(struct conv *v, uint64_t src, struct cursor *b)
{
	struct buf *img = &v->d->img;
	uint8_t ver, asz, ssz;
	const uint8_t *aug, *fields;
	size_t start, nfields, ninstr, len;
	uint32_t dst;
	int err;

	if (!cur_le8(b, &ver) || (ver != 1 && ver != 3 && ver != 4))
		return 0;
	if (!(aug = cur_take(b, 1)) || *aug)    /* augmented: not from a compiler we know */
		return 0;
	if (ver == 4 && (!cur_le8(b, &asz) || !cur_le8(b, &ssz) || asz != 8 || ssz))
		return 0;
	start = b->off;
	if (!skip_leb(b) || !skip_leb(b) || !(ver == 1 ? cur_skip(b, 1) : skip_leb(b)))
		return 0;
	fields = b->p + start;
	nfields = b->off - start;
	ninstr = cur_left(b);
	len = 4 + 1 + 3 + nfields + 2 + ninstr;
	if (len > ENTRY_MAX || img->len > INT32_MAX)
		return 0;
	dst = (uint32_t)img->len;
	if ((err = buf_put_u32(img, (uint32_t)len)) || (err = buf_put_u32(img, 0)) ||
	    (err = buf_put_u8(img, ver == 1 ? 1 : 3)) || (err = buf_append(img, "zR", 3)) ||
	    (err = buf_append(img, fields, nfields)) || (err = buf_put_u8(img, 1)) ||
	    (err = buf_put_u8(img, PE_PCREL_SDATA8)) ||
	    (err = buf_append(img, b->p + b->off, ninstr)))
		return err;
	if (array_grow((void **)&v->cies, &v->cies_cap, v->ncies + 1, sizeof(*v->cies)))
		return -ENOMEM;
	v->cies[v->ncies++] = (struct cie_ref){ src, dst };
	return 0;
}

static const struct cie_ref *cie_find(const struct conv *v, uint64_t src)
{
	size_t lo = 0, hi = v->ncies;

	while (lo < hi) {       /* remembered in section order */
		size_t mid = lo + (hi - lo) / 2;

		if (v->cies[mid].src == src)
			return &v->cies[mid];
		if (v->cies[mid].src < src)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* One FDE (body after its CIE pointer), appended when its CIE was taken
 * and it lies inside the executable range. 0 or -ENOMEM. */
static int put_fde(struct conv *v, uint64_t cie_src, struct cursor *b)
{
	struct buf *img = &v->d->img;
	const struct cie_ref *cie = cie_find(v, cie_src);
	uint64_t start, range;
	size_t ninstr, len;
	uint32_t dst;
	int err;

	if (!cie || !cur_le64(b, &start) || !cur_le64(b, &range))
		return 0;
	/* discarded functions keep FDEs at 0 (or ~0) that the range drops */
	if (!range || start < v->lo || start >= v->hi || range > v->hi - start)
		return 0;
	ninstr = cur_left(b);
	len = 4 + 8 + 8 + 1 + ninstr;
	if (len > ENTRY_MAX || img->len > INT32_MAX)
		return 0;
	dst = (uint32_t)img->len;
	if ((err = buf_put_u32(img, (uint32_t)len)) ||
	    (err = buf_put_u32(img, dst + 4 - cie->dst)) ||
	    /* pc-relative to the field, at SPACE + dst + 8 past the bias */
	    (err = buf_put_u64(img, start - (SPACE + dst + 8))) ||
	    (err = buf_put_u64(img, range)) || (err = buf_put_u8(img, 0)) ||
	    (err = buf_append(img, b->p + b->off, ninstr)))
		return err;
	if (array_grow((void **)&v->fdes, &v->fdes_cap, v->nfdes + 1, sizeof(*v->fdes)))
		return -ENOMEM;
	v->fdes[v->nfdes++] = (struct fde_ref){ start, start + range, dst };
	return 0;
}

/* Walk the section for CIEs (fdes false) or FDEs (true). 0 or -ENOMEM. */
static int convert_pass(struct conv *v, const void *sec, size_t len, bool fdes)
{
	struct cursor c = cur_make(sec, len), b;
	uint64_t off;
	bool dwarf64;
	uint32_t id;
	int err = 0;

	while (!err && next_entry(&c, &off, &dwarf64, &b)) {
		if (dwarf64 || !cur_le32(&b, &id))     /* 64-bit DWARF or padding */
			continue;
		if (id == DEBUG_CIE_ID && !fdes)
			err = put_cie(v, off, &b);
		else if (id != DEBUG_CIE_ID && fdes)
			err = put_fde(v, id, &b);
	}
	return err;
}

static int fde_cmp(const void *a, const void *b)
{
	const struct fde_ref *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The search table after the entries. 0, -ENOMEM, or -E2BIG when the
 * offsets do not fit its 32-bit fields. */
static int put_table(struct conv *v)
{
	struct dframe *d = v->d;
	int err;

	qsort(v->fdes, v->nfdes, sizeof(*v->fdes), fde_cmp);
	d->lo = v->fdes[0].start;
	for (size_t i = 0; i < v->nfdes; i++)
		if (v->fdes[i].end > d->hi)
			d->hi = v->fdes[i].end;
	if (d->hi - d->lo > INT32_MAX || d->img.len > INT32_MAX)
		return -E2BIG;
	if ((err = buf_append_zero(&d->img, (4 - d->img.len % 4) % 4)))
		return err;
	d->table_off = d->img.len;
	for (size_t i = 0; i < v->nfdes; i++)
		if ((err = buf_put_u32(&d->img, (uint32_t)(v->fdes[i].start - d->lo))) ||
		    (err = buf_put_u32(&d->img, v->fdes[i].dst)))
			return err;
	d->nfde = v->nfdes;
	return 0;
}

int dframe_new(const void *sec, size_t len, uint64_t lo, uint64_t hi, struct dframe **out)
{
	struct conv v = { .lo = lo, .hi = hi };
	int err;

	*out = NULL;
	if (!(v.d = calloc(1, sizeof(*v.d))))
		return -ENOMEM;
	if ((err = convert_pass(&v, sec, len, false)) || (err = convert_pass(&v, sec, len, true)))
		goto out;
	if (!v.nfdes)
		goto out;
	if ((err = put_table(&v)))
		goto out;
	*out = v.d;
	v.d = NULL;
out:
	dframe_free(v.d);
	free(v.cies);
	free(v.fdes);
	return err;
}

int dframe_from_elf(Elf *e, uint64_t lo, uint64_t hi, struct dframe **out)
{
	GElf_Ehdr eh;
	size_t shstr;
	Elf_Scn *scn = NULL;

	*out = NULL;
	if (!gelf_getehdr(e, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || elf_getshdrstrndx(e, &shstr))
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(name = elf_strptr(e, shstr, sh.sh_name)) || strcmp(name, ".debug_frame"))
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			return 0;
		if (!(data = elf_getdata(scn, NULL)) || !data->d_buf)
			return 0;
		return dframe_new(data->d_buf, data->d_size, lo, hi, out);
	}
	return 0;
}

void dframe_free(struct dframe *d)
{
	if (!d)
		return;
	buf_free(&d->img);
	free(d);
}

bool dframe_dyn_info(const struct dframe *d, uint64_t bias, uint64_t ip, unw_dyn_info_t *di)
{
	uint64_t va = ip - bias;

	if (!d || va < d->lo || va >= d->hi)
		return false;
	memset(di, 0, sizeof(*di));
	di->format = UNW_INFO_FORMAT_IP_OFFSET;
	di->start_ip = bias + d->lo;
	di->end_ip = bias + d->hi;
	di->u.rti.segbase = bias + SPACE;
	di->u.rti.table_data = bias + SPACE + d->table_off;
	di->u.rti.table_len = d->nfde * 8 / sizeof(unw_word_t);
	return true;
}

bool dframe_read(const struct dframe *d, uint64_t bias, uint64_t addr, uint64_t *v)
{
	uint64_t off = addr - (bias + SPACE);
	size_t n;

	if (!d || off >= d->img.len)
		return false;
	n = d->img.len - (size_t)off < 8 ? d->img.len - (size_t)off : 8;
	*v = 0;
	memcpy(v, d->img.data + off, n);
	return true;
}

size_t dframe_fdes(const struct dframe *d)
{
	return d ? d->nfde : 0;
}

void dframe_range(const struct dframe *d, uint64_t *lo, uint64_t *hi)
{
	*lo = d ? d->lo : 0;
	*hi = d ? d->hi : 0;
}
