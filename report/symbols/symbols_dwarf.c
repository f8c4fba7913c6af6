/* SPDX-License-Identifier: MIT */
/*
 * Source lines and inline chains from DWARF (libdw), for sym_dso_srcline;
 * see symbols_dwarf.h. A binary's DWARF (from its debug file, else from the
 * binary) is opened the first time a source line of it is asked for and
 * stays open, so that the names and paths libdw hands out stay valid; every
 * answer is cached per address in an open-addressing table.
 */
#include "symbols_dwarf.h"
#include "embed_code.h"
#include "symbols_elf.h"
#include "symbols_plain.h"

#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"

static void cu_index_free(struct cu_index *c);

void srclines_init(struct srclines *d)
{
	memset(d, 0, sizeof(*d));
	d->fd = -1;
}

void srclines_free(struct srclines *d)
{
	if (d->dw)
		dwarf_end(d->dw);
	elf_close(d->elf, d->fd);
	d->dw = NULL;
	d->elf = NULL;
	d->fd = -1;
	free(d->lines);
	d->lines = NULL;
	d->lines_cap = d->lines_n = 0;
	free(d->paths);
	d->paths = NULL;
	d->paths_cap = d->paths_n = 0;
	for (size_t i = 0; i < d->ncus; i++)
		cu_index_free(d->cus[i]);
	free(d->cus);
	d->cus = NULL;
	d->ncus = d->cus_cap = 0;
	memset(d->joins, 0, sizeof(d->joins));
	d->last_lo = d->last_hi = 0;
}

int srclines_open(struct srclines *d, const char *debug_path, const char *bin_path,
		  const char *cache_dir)
{
	const char *cand[2] = { debug_path, bin_path };

	for (int i = 0; i < 2; i++) {
		int fd;
		Elf *e;
		Dwarf *dw;
		char *plain;

		if (!cand[i] || !(e = elf_open_path(cand[i], &fd)))
			continue;
		if ((plain = debug_plain_copy(cache_dir, e))) {
			int pfd;
			Elf *pe = elf_open_path(plain, &pfd);

			free(plain);
			if (pe) {
				elf_close(e, fd);
				e = pe;
				fd = pfd;
			}
		}
		if (!elf_has_section(e, ".debug_info", true) &&
		    !elf_has_section(e, ".zdebug_info", true)) {
			elf_close(e, fd);
			continue;
		}
		dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
		if (!dw) {
			elf_close(e, fd);
			continue;
		}
		d->dw = dw;
		d->elf = e;
		d->fd = fd;
		return 1;
	}
	return -1;
}

/* ---- the address cache ------------------------------------------------ */

struct srcline_slot {
	uint64_t addr;
	const struct sym_frame *frames;
	uint32_t n;
	uint32_t used;
};

static size_t addr_hash(uint64_t addr, size_t cap)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static struct srcline_slot *cache_find(struct srclines *d, uint64_t addr)
{
	if (!d->lines_cap)
		return NULL;
	for (size_t i = addr_hash(addr, d->lines_cap);; i = (i + 1) & (d->lines_cap - 1)) {
		struct srcline_slot *sl = &d->lines[i];

		if (!sl->used)
			return NULL;
		if (sl->addr == addr)
			return sl;
	}
}

static int cache_put(struct srclines *d, uint64_t addr, const struct sym_frame *f, size_t n)
{
	struct srcline_slot *sl;
	size_t i;

	if ((d->lines_n + 1) * 2 > d->lines_cap) {
		size_t cap = d->lines_cap ? d->lines_cap * 2 : 1024;
		struct srcline_slot *old = d->lines, *nv = calloc(cap, sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		for (size_t k = 0; k < d->lines_cap; k++) {
			if (!old[k].used)
				continue;
			for (i = addr_hash(old[k].addr, cap); nv[i].used; i = (i + 1) & (cap - 1))
				;
			nv[i] = old[k];
		}
		free(old);
		d->lines = nv;
		d->lines_cap = cap;
	}
	for (i = addr_hash(addr, d->lines_cap); d->lines[i].used; i = (i + 1) & (d->lines_cap - 1))
		;
	sl = &d->lines[i];
	sl->addr = addr;
	sl->frames = f;
	sl->n = (uint32_t)n;
	sl->used = 1;
	d->lines_n++;
	return 0;
}

/* ---- file names --------------------------------------------------------- */

static uint64_t fnv_str(uint64_t h, const char *p)
{
	for (; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	return h;
}

/* The hash of dir + "/" + file, equal to the hash of the joined string. */
static uint64_t join_hash(const char *dir, const char *file)
{
	uint64_t h = fnv_str(0xcbf29ce484222325ull, dir);

	return fnv_str((h ^ '/') * 0x100000001b3ull, file);
}

static bool joined_is(const char *p, const char *dir, const char *file)
{
	size_t n = strlen(dir);

	return !strncmp(p, dir, n) && p[n] == '/' && !strcmp(p + n + 1, file);
}

static int paths_grow(struct srclines *d)
{
	size_t cap = d->paths_cap ? d->paths_cap * 2 : 64, i;
	const char **nv = calloc(cap, sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	for (size_t k = 0; k < d->paths_cap; k++) {
		const char *q = d->paths[k];

		if (!q)
			continue;
		for (i = addr_hash(fnv_str(0xcbf29ce484222325ull, q), cap); nv[i];
		     i = (i + 1) & (cap - 1))
			;
		nv[i] = q;
	}
	free(d->paths);
	d->paths = nv;
	d->paths_cap = cap;
	return 0;
}

/* dir/file, kept once per dso; NULL on ENOMEM. */
static const char *join_path(struct srclines *d, struct arena *names, const char *dir,
			     const char *file)
{
	uint64_t h = join_hash(dir, file);
	size_t i, ld, lf;
	char *p;

	if ((d->paths_n + 1) * 2 > d->paths_cap && paths_grow(d))
		return NULL;
	for (i = addr_hash(h, d->paths_cap); d->paths[i]; i = (i + 1) & (d->paths_cap - 1))
		if (joined_is(d->paths[i], dir, file))
			return d->paths[i];
	ld = strlen(dir);
	lf = strlen(file);
	p = arena_alloc(names, ld + lf + 2);
	if (!p)
		return NULL;
	memcpy(p, dir, ld);
	p[ld] = '/';
	memcpy(p + ld + 1, file, lf + 1);
	d->paths[i] = p;
	d->paths_n++;
	return p;
}

/* A file name as DWARF gives it, made absolute with comp_dir when relative.
 * *file is set to NULL only on ENOMEM. */
static int full_path(struct srclines *d, struct arena *names, const char *comp_dir,
		     const char **file)
{
	size_t k;

	if (!*file || (*file)[0] == '/' || !comp_dir || !*comp_dir)
		return 0;
	/* libdw's strings stay where they are: the same two pointers, the
	 * same join (the set below hashes the whole strings) */
	k = (((uintptr_t)*file >> 3) ^ ((uintptr_t)comp_dir >> 5)) % 64;
	if (d->joins[k].file == *file && d->joins[k].dir == comp_dir) {
		*file = d->joins[k].path;
		return 0;
	}
	d->joins[k].dir = comp_dir;
	d->joins[k].file = *file;
	*file = d->joins[k].path = join_path(d, names, comp_dir, *file);
	if (!*file)
		d->joins[k].file = NULL;
	return *file ? 0 : -ENOMEM;
}

/* ---- scopes ------------------------------------------------------------- */

/* ---- per-CU index of function ranges ----------------------------------- */

/*
 * Asking libdw for the scopes of every address (dwarf_getscopes) walks the
 * CU's whole DIE tree each time; instead each CU is walked once, the first
 * time one of its addresses is asked for, into a table of the address
 * ranges of its functions and inlined copies. Those ranges nest (an inlined
 * copy lies inside its caller), so the innermost one holding an address is
 * the last range starting at or below it, or one of that range's
 * ancestors.
 */
struct fn_node {
	const char *name;
	const char *call_file;  /* for inlined copies: where the caller called */
	unsigned call_line;
	bool inlined;
	int parent;             /* the enclosing function node, -1 for none */
	uint32_t first, nranges; /* into cu_index.ranges */
};

struct fn_range {
	uint64_t lo, hi;
	uint32_t node;
	uint32_t depth;
};

struct cu_index {
	uint64_t cu_off;
	struct fn_node *nodes;
	size_t nnodes, nodes_cap;
	struct fn_range *ranges;        /* per node, in DIE order */
	struct fn_range *sorted;        /* by lo, then depth */
	size_t nranges, ranges_cap;
	Dwarf_Files *files;
	size_t nfiles;
	const char *comp_dir;           /* the CU's DW_AT_comp_dir, or NULL */
};

#define MAX_DIE_DEPTH 256
#define MAX_INLINE_DEPTH 64

static void cu_index_free(struct cu_index *c)
{
	if (!c)
		return;
	free(c->nodes);
	free(c->ranges);
	free(c->sorted);
	free(c);
}

static bool is_function_scope(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

static int grow(void **v, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *nv;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	if (!(nv = array_realloc(*v, ncap, elem)))
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

/* Add die as a node (when it has code ranges); *me = its index, or parent. */
static int index_function(struct cu_index *c, Dwarf_Die *die, int parent, unsigned depth,
			  int *me)
{
	struct fn_node *nd;
	Dwarf_Addr base, lo, hi;
	Dwarf_Attribute at;
	Dwarf_Word w;
	ptrdiff_t off = 0;
	size_t first = c->nranges;

	*me = parent;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		if (grow((void **)&c->ranges, &c->ranges_cap, c->nranges, sizeof(*c->ranges)))
			return -ENOMEM;
		c->ranges[c->nranges++] = (struct fn_range){
			.lo = lo, .hi = hi, .node = (uint32_t)c->nnodes, .depth = depth,
		};
	}
	if (c->nranges == first)
		return 0;
	if (grow((void **)&c->nodes, &c->nodes_cap, c->nnodes, sizeof(*c->nodes)))
		return -ENOMEM;
	nd = &c->nodes[c->nnodes];
	memset(nd, 0, sizeof(*nd));
	nd->name = dwarf_diename(die);
	nd->parent = parent;
	nd->first = (uint32_t)first;
	nd->nranges = (uint32_t)(c->nranges - first);
	nd->inlined = dwarf_tag(die) == DW_TAG_inlined_subroutine;
	if (nd->inlined) {
		if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &at), &w) == 0)
			nd->call_line = (unsigned)w;
		if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &at), &w) == 0 &&
		    c->files && w < c->nfiles)
			nd->call_file = dwarf_filesrc(c->files, w, NULL, NULL);
	}
	*me = (int)c->nnodes++;
	return 0;
}

/* May a DIE of this tag hold function scopes with code? Not a type (the
 * code of a member function is a subprogram outside its class, naming its
 * declaration), a variable, a parameter or a call site: their children,
 * the bulk of a CU (struct members, enumerators), are not walked. */
static bool may_hold_code(int tag)
{
	switch (tag) {
	case DW_TAG_array_type:
	case DW_TAG_base_type:
	case DW_TAG_class_type:
	case DW_TAG_const_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_formal_parameter:
	case DW_TAG_member:
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_structure_type:
	case DW_TAG_subroutine_type:
	case DW_TAG_typedef:
	case DW_TAG_union_type:
	case DW_TAG_variable:
	case DW_TAG_volatile_type:
	case DW_TAG_GNU_call_site:
	case DW_TAG_call_site:
		return false;
	}
	return true;
}

static int index_children(struct cu_index *c, Dwarf_Die *die, int parent, unsigned depth)
{
	Dwarf_Die child;
	int ret = 0;

	if (depth > MAX_DIE_DEPTH || dwarf_child(die, &child) != 0)
		return 0;
	do {
		int me = parent, tag = dwarf_tag(&child);

		if (is_function_scope(tag))
			ret = index_function(c, &child, parent, depth, &me);
		if (!ret && may_hold_code(tag) && dwarf_haschildren(&child) > 0)
			ret = index_children(c, &child, me, depth + 1);
	} while (!ret && dwarf_siblingof(&child, &child) == 0);
	return ret;
}

static int range_cmp(const void *pa, const void *pb)
{
	const struct fn_range *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->depth < b->depth ? -1 : a->depth > b->depth;
}

static int cu_index_build(Dwarf_Die *cu, struct cu_index **out)
{
	struct cu_index *c = calloc(1, sizeof(*c));
	int ret;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->cu_off = dwarf_dieoffset(cu);
	{
		Dwarf_Attribute at;

		c->comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at));
	}
	if (dwarf_getsrcfiles(cu, &c->files, &c->nfiles) != 0) {
		c->files = NULL;
		c->nfiles = 0;
	}
	ret = index_children(c, cu, -1, 0);
	if (!ret && c->nranges) {
		c->sorted = malloc(c->nranges * sizeof(*c->sorted));
		if (!c->sorted)
			ret = -ENOMEM;
		else
			memcpy(c->sorted, c->ranges, c->nranges * sizeof(*c->sorted));
	}
	if (ret) {
		cu_index_free(c);
		return ret;
	}
	if (c->nranges)         /* qsort of NULL is undefined, even of 0 items */
		qsort(c->sorted, c->nranges, sizeof(*c->sorted), range_cmp);
	*out = c;
	return 0;
}

/* The index of the CU (built when first asked for); sorted by offset. */
static int cu_index_get(struct srclines *d, Dwarf_Die *cu, struct cu_index **out)
{
	uint64_t off = dwarf_dieoffset(cu);
	size_t lo = 0, hi = d->ncus;
	struct cu_index *c;
	int ret;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->cus[mid]->cu_off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < d->ncus && d->cus[lo]->cu_off == off) {
		*out = d->cus[lo];
		return 0;
	}
	if (grow((void **)&d->cus, &d->cus_cap, d->ncus, sizeof(*d->cus)))
		return -ENOMEM;
	ret = cu_index_build(cu, &c);
	if (ret)
		return ret;
	memmove(d->cus + lo + 1, d->cus + lo, (d->ncus - lo) * sizeof(*d->cus));
	d->cus[lo] = c;
	d->ncus++;
	*out = c;
	return 0;
}

static bool node_has(const struct cu_index *c, int node, uint64_t addr)
{
	const struct fn_node *nd = &c->nodes[node];

	for (uint32_t i = 0; i < nd->nranges; i++)
		if (addr >= c->ranges[nd->first + i].lo && addr < c->ranges[nd->first + i].hi)
			return true;
	return false;
}

/* The innermost function node holding addr, or -1. */
static int cu_index_find(const struct cu_index *c, uint64_t addr)
{
	size_t lo = 0, hi = c->nranges;
	int node, n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->sorted[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	node = (int)c->sorted[lo - 1].node;
	for (n = node; n >= 0; n = c->nodes[n].parent)
		if (node_has(c, n, addr))
			return n;
	/* ranges that do not nest (damaged DWARF): a few earlier ones */
	for (size_t k = 2; k <= 8 && k <= lo; k++)
		if (addr < c->sorted[lo - k].hi)
			return (int)c->sorted[lo - k].node;
	return -1;
}

/* The CU holding addr, as dwarf_addrdie finds it (its arange, then the CU
 * at that offset), the last one kept: the instructions of a function are
 * asked for one after the other. */
static bool addr_cu(struct srclines *d, uint64_t addr, Dwarf_Die *cu)
{
	Dwarf_Aranges *ar;
	Dwarf_Addr start;
	Dwarf_Word len;
	Dwarf_Off off;
	size_t n;

	if (addr >= d->last_lo && addr < d->last_hi) {
		*cu = d->last_cu;
		return true;
	}
	if (dwarf_getaranges(d->dw, &ar, &n) != 0 ||
	    dwarf_getarangeinfo(dwarf_getarange_addr(ar, addr), &start, &len, &off) != 0 ||
	    !dwarf_offdie(d->dw, off, cu))
		return false;
	d->last_cu = *cu;
	d->last_lo = start;
	d->last_hi = start + len > start ? start + len : 0;
	return true;
}

/* Compute the frames of addr: *n = 0 when DWARF has no line for it. */
static int srcline_compute(struct srclines *d, struct arena *names, uint64_t addr,
			   struct sym_frame **out, size_t *n)
{
	struct sym_frame tmp[MAX_INLINE_DEPTH];
	struct cu_index *c;
	Dwarf_Die cu;
	Dwarf_Line *line;
	const char *file, *comp_dir;
	unsigned lineno;
	int ln = 0, node, ret;
	size_t k = 0;

	*out = NULL;
	*n = 0;
	if (!addr_cu(d, addr, &cu) || !(line = dwarf_getsrc_die(&cu, addr)))
		return 0;
	ret = cu_index_get(d, &cu, &c);
	if (ret)
		return ret;
	file = dwarf_linesrc(line, NULL, NULL);
	dwarf_lineno(line, &ln);
	lineno = ln > 0 ? (unsigned)ln : 0;
	comp_dir = c->comp_dir;

	node = cu_index_find(c, addr);
	do {
		if ((ret = full_path(d, names, comp_dir, &file)))
			return ret;
		tmp[k].function = node >= 0 ? c->nodes[node].name : NULL;
		tmp[k].file = file;
		tmp[k].line = lineno;
		k++;
		if (node < 0 || !c->nodes[node].inlined)
			break;
		file = c->nodes[node].call_file;
		lineno = c->nodes[node].call_line;
		node = c->nodes[node].parent;
	} while (k < MAX_INLINE_DEPTH);

	*out = arena_alloc(names, k * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	memcpy(*out, tmp, k * sizeof(**out));
	*n = k;
	return 0;
}

int srclines_find(struct srclines *d, struct arena *names, uint64_t addr,
		  const struct sym_frame **frames, size_t *n)
{
	const struct srcline_slot *sl = cache_find(d, addr);
	struct sym_frame *f;
	size_t nf;
	int ret;

	*frames = NULL;
	*n = 0;
	if (sl) {
		*frames = sl->frames;
		*n = sl->n;
		return 0;
	}
	if (!d->dw)
		return 0;
	ret = srcline_compute(d, names, addr, &f, &nf);
	if (!ret)
		ret = cache_put(d, addr, f, nf);
	if (ret)
		return ret;
	*frames = f;
	*n = nf;
	return 0;
}

int srclines_embedded(struct srclines *d, struct arena *names, const struct embed_dso *e,
		      uint64_t addr, const struct sym_frame **frames, size_t *n)
{
	const struct srcline_slot *sl = cache_find(d, addr);
	const struct embed_addr *a;
	struct sym_frame *f;

	*frames = NULL;
	*n = 0;
	if (sl) {
		*frames = sl->frames;
		*n = sl->n;
		return 0;
	}
	a = embed_code_addr(e, addr);
	if (!a || !a->nr)
		return 0;
	f = arena_alloc(names, a->nr * sizeof(*f));
	if (!f)
		return -ENOMEM;
	for (uint32_t i = 0; i < a->nr; i++) {
		const struct embed_frame *ef = &e->frames[a->first + i];

		f[i].function = embed_str(e, ef->function);
		f[i].file = embed_str(e, ef->file);
		f[i].line = ef->line;
	}
	if (cache_put(d, addr, f, a->nr))
		return -ENOMEM;
	*frames = f;
	*n = a->nr;
	return 0;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

int srclines_rows(struct srclines *d, uint64_t lo, uint64_t hi, uint64_t **out, size_t *n)
{
	Dwarf_Lines *lines;
	Dwarf_Die cu;
	size_t nl = 0, cap = 0, k = 0;

	*out = NULL;
	*n = 0;
	if (!d->dw || !dwarf_addrdie(d->dw, lo, &cu) || dwarf_getsrclines(&cu, &lines, &nl))
		return 0;
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;

		if (!l || dwarf_lineaddr(l, &a) || a < lo || a >= hi)
			continue;
		if (array_grow((void **)out, &cap, *n + 1, sizeof(**out))) {
			free(*out);
			*out = NULL;
			*n = 0;
			return -ENOMEM;
		}
		(*out)[(*n)++] = a;
	}
	if (*n > 1)
		qsort(*out, *n, sizeof(**out), cmp_u64);
	for (size_t i = 0; i < *n; i++)
		if (!k || (*out)[i] != (*out)[k - 1])
			(*out)[k++] = (*out)[i];
	*n = k;
	return 0;
}
