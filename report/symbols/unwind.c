/* SPDX-License-Identifier: MIT */
/*
 * DWARF unwinding of sampled user stacks with libunwind's remote interface;
 * see unwind.h. libunwind asks, through the accessors below, for registers
 * (from the sample), memory (the copied stack, or the binary's bytes for its
 * unwind tables) and the unwind table covering an address (found from the
 * binary's .eh_frame_hdr, which dwarf_search_unwind_table then searches;
 * for code that .eh_frame does not cover, from its .debug_frame, rewritten
 * into the same form by unwind_debug_frame.c).
 */
#include "unwind.h"
#include "unwind_debug_frame.h"

#include <asm/perf_regs.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <libunwind.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/embed.h"

/* libunwind exports it without declaring it */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					     unw_dyn_info_t *di, unw_proc_info_t *pi,
					     int need_unwind_info, void *arg);

#define MAX_SEGS 16

/*
 * libunwind 1.6 as Debian builds it guards its cache of parsed unwind info
 * with a global lock even under UNW_CACHE_PER_THREAD, and masks every signal
 * around that lock: two rt_sigprocmask system calls per frame, a fifth of
 * the time of a --call-graph dwarf report. While a thread is inside
 * unwind_user the masking protects nothing (nothing here handles a signal),
 * so this definition, which libunwind's calls reach before libc's, skips it
 * then. Every other call (prec handles signals) goes to the kernel as usual.
 */
static __thread bool unwinding;

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int ret;

	if (unwinding) {
		if (old)
			sigemptyset(old);
		return 0;
	}
	ret = pthread_sigmask(how, set, old);
	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

/* What is known of one binary: its loadable segments and its table. */
struct ubin {
	struct dso *dso;
	int fd;                         /* -1: no file (unusable unless embedded) */
	const struct embed_dso *embed;  /* from the recording: read from there only */
	const uint8_t *map;             /* the file, mapped: table reads are memcpy */
	size_t map_len;
	size_t nsegs;
	struct { uint64_t vaddr, offset, filesz; } seg[MAX_SEGS];
	uint64_t text_lo, text_hi;      /* executable vaddr range */
	uint64_t hdr_vaddr;             /* .eh_frame_hdr */
	uint64_t table_vaddr, fde_count;
	struct dframe *dframe;          /* .debug_frame, for what .eh_frame lacks */
};

/* libunwind caches what it parsed per address in an address space; an
 * address names the same (binary, offset) only within one process whose
 * maps have not changed since. So: an address space per process, its cache
 * flushed whenever that process's maps change. */
struct space {
	const struct proc *proc;
	uint64_t gen;
	unw_addr_space_t as;
};

#define MAX_SPACES 64

/* What an unwinding read of the sample, for the memo of unwindings (below). */
#define MEMO_READS 32
#define READ_REG (1ull << 63)   /* a register (its perf number), else a stack offset */

struct uread {
	uint64_t at, v;
};

struct unwinder {
	struct machine *m;
	char *symfs;
	unw_addr_space_t as;
	struct ubin *bins;
	size_t nbins, cap;
	struct unwind_stats st;
	struct space *spaces;
	size_t nr_spaces;
	struct embed_list embeds;
	unwind_trace_fn trace;
	void *trace_ctx;
	struct umemo *memo;             /* the memo of unwindings, or NULL */
};

/* The sample being unwound: what the accessors read. */
struct uctx {
	struct unwinder *u;
	const struct thread *t;
	const struct sample *s;
	size_t last;                    /* the binary of the last table lookup, in u->bins
					 * (an index: bin_of may move the array), or NONE */
	uint64_t last_bias;
	struct uread *reads;            /* what was read of the sample, for the memo */
	size_t nreads;                  /* ... MEMO_READS + 1: too much */
};

static void note_read(struct uctx *c, uint64_t at, uint64_t v)
{
	if (c->nreads < MEMO_READS)
		c->reads[c->nreads] = (struct uread){ at, v };
	c->nreads += c->nreads <= MEMO_READS;
}

#define NONE SIZE_MAX

static bool read_exact(int fd, void *p, size_t n, uint64_t off)
{
	return pread(fd, p, n, (off_t)off) == (ssize_t)n;
}

/* The binary as the recording embedded it: segments and table position
 * from there; the table's bytes come from its ranges. */
static void bin_load_embedded(struct ubin *b, const struct embed_dso *e)
{
	b->embed = e;
	b->text_lo = UINT64_MAX;
	for (uint32_t i = 0; i < e->nr_segs && b->nsegs < MAX_SEGS; i++) {
		const struct embed_seg *g = &e->segs[i];

		b->seg[b->nsegs].vaddr = g->vaddr;
		b->seg[b->nsegs].offset = g->offset;
		b->seg[b->nsegs].filesz = g->filesz;
		b->nsegs++;
		if (g->flags & PF_X) {
			if (g->vaddr < b->text_lo)
				b->text_lo = g->vaddr;
			if (g->vaddr + g->memsz > b->text_hi)
				b->text_hi = g->vaddr + g->memsz;
		}
	}
	if (e->eh_frame_hdr && e->nr_ranges) {
		b->hdr_vaddr = e->eh_frame_hdr;
		b->table_vaddr = e->eh_frame_hdr + 12;
		b->fde_count = e->fde_count;
	}
}

static bool bin_usable(const struct ubin *b)
{
	return (b->fd >= 0 || b->embed) && (b->fde_count || b->dframe) && b->text_lo < b->text_hi;
}

static void bin_load(struct unwinder *u, struct ubin *b)
{
	char path[4096];
	Elf *e;
	GElf_Ehdr eh;
	size_t phnum = 0, shstr = 0;
	Elf_Scn *scn = NULL;

	b->fd = -1;
	/* embedded tables first; a binary embedded without them (recorded
	 * with -g, or unwound from .debug_frame, which is not embedded) is
	 * read from its file */
	/* by build id; by path while the dso has none yet (a kernel that does
	 * not put build ids in MMAP2 records: they come from the BUILD_IDS
	 * block at the end of the file, after the samples are unwound) */
	b->embed = embed_list_find(&u->embeds, b->dso->build_id, b->dso->build_id_size,
				   b->dso->path);
	if (b->embed && b->embed->eh_frame_hdr && b->embed->nr_ranges) {
		bin_load_embedded(b, b->embed);
		return;
	}
	b->embed = NULL;
	snprintf(path, sizeof(path), "%s%s", u->symfs ? u->symfs : "", b->dso->path);
	b->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (b->fd < 0)
		return;
	e = elf_begin(b->fd, ELF_C_READ_MMAP, NULL);
	if (!e || !gelf_getehdr(e, &eh) || elf_getphdrnum(e, &phnum) || elf_getshdrstrndx(e, &shstr))
		goto bad;
	b->text_lo = UINT64_MAX;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || b->nsegs == MAX_SEGS)
			continue;
		b->seg[b->nsegs].vaddr = ph.p_vaddr;
		b->seg[b->nsegs].offset = ph.p_offset;
		b->seg[b->nsegs].filesz = ph.p_filesz;
		b->nsegs++;
		if (ph.p_flags & PF_X) {
			if (ph.p_vaddr < b->text_lo)
				b->text_lo = ph.p_vaddr;
			if (ph.p_vaddr + ph.p_memsz > b->text_hi)
				b->text_hi = ph.p_vaddr + ph.p_memsz;
		}
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstr, sh.sh_name)))
			continue;
		if (!strcmp(name, ".eh_frame_hdr") && sh.sh_size >= 12) {
			uint8_t h[12];
			uint32_t count;

			/* version 1, eh_frame_ptr pcrel|sdata4, fde_count udata4,
			 * table datarel|sdata4: what every linker writes */
			if (!read_exact(b->fd, h, sizeof(h), sh.sh_offset) || h[0] != 1 ||
			    h[2] != 0x03 || h[3] != 0x3b)
				break;
			memcpy(&count, h + 8, 4);
			b->hdr_vaddr = sh.sh_addr;
			b->table_vaddr = sh.sh_addr + 12;
			b->fde_count = count;
		}
	}
	if (b->text_lo < b->text_hi)
		dframe_from_elf(e, b->text_lo, b->text_hi, &b->dframe);
	elf_end(e);
	if ((b->fde_count || b->dframe) && b->text_lo < b->text_hi) {
		struct stat st;
		void *m;

		if (!fstat(b->fd, &st) && st.st_size > 0 &&
		    (m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, b->fd, 0)) != MAP_FAILED) {
			b->map = m;
			b->map_len = (size_t)st.st_size;
		}
		return;
	}
	goto out;
bad:
	elf_end(e);
out:
	close(b->fd);
	b->fd = -1;
}

static const struct ubin *bin_of(struct unwinder *u, struct dso *d)
{
	struct ubin *b;

	for (size_t i = 0; i < u->nbins; i++)
		if (u->bins[i].dso == d)
			return &u->bins[i];
	if (u->nbins == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 16;
		struct ubin *n = array_realloc(u->bins, cap, sizeof(*n));

		if (!n)
			return NULL;
		u->bins = n;
		u->cap = cap;
	}
	b = &u->bins[u->nbins++];
	memset(b, 0, sizeof(*b));
	b->dso = d;
	bin_load(u, b);
	return b;
}

/* The load bias of a binary mapped by m: runtime address = bias + vaddr. */
static bool bias_of(const struct ubin *b, const struct map *m, uint64_t *bias)
{
	for (size_t i = 0; i < b->nsegs; i++)
		if (m->pgoff >= b->seg[i].offset && m->pgoff < b->seg[i].offset + b->seg[i].filesz + 4096) {
			*bias = m->start - (m->pgoff - b->seg[i].offset + b->seg[i].vaddr);
			return true;
		}
	return false;
}

/* Read a word of the binary at runtime address addr (bias known). */
static bool bin_read(const struct unwinder *u, const struct ubin *b, uint64_t bias,
		     uint64_t addr, unw_word_t *v)
{
	uint64_t va = addr - bias;

	if (b->embed) {
		const uint8_t *p = embed_find_bytes(b->embed, va, sizeof(*v));

		if (p)
			memcpy(v, p, sizeof(*v));
		return p != NULL;
	}
	for (size_t i = 0; i < b->nsegs; i++)
		if (va >= b->seg[i].vaddr && va + sizeof(*v) <= b->seg[i].vaddr + b->seg[i].filesz) {
			uint64_t off = va - b->seg[i].vaddr + b->seg[i].offset;

			if (b->map) {
				if (off + sizeof(*v) > b->map_len)
					return false;
				memcpy(v, b->map + off, sizeof(*v));
			} else if (!read_exact(b->fd, v, sizeof(*v), off)) {
				return false;
			}
			if (u->trace)
				u->trace(u->trace_ctx, b->dso, va, v, sizeof(*v));
			return true;
		}
	return false;
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			  int need_unwind_info, void *arg)
{
	struct uctx *c = arg;
	const struct map *m = machine_find_map(c->u->m, c->t, ip, false);
	const struct ubin *b;
	unw_dyn_info_t di;
	uint64_t bias;
	int ret;

	if (!m || !m->dso || m->dso->anon || !(b = bin_of(c->u, m->dso)) || !bin_usable(b) ||
	    !bias_of(b, m, &bias))
		return -UNW_ENOINFO;
	c->last = (size_t)(b - c->u->bins);
	c->last_bias = bias;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = bias + b->text_lo;
	di.end_ip = bias + b->text_hi;
	di.u.rti.segbase = bias + b->hdr_vaddr;
	di.u.rti.table_data = bias + b->table_vaddr;
	di.u.rti.table_len = b->fde_count * 8 / sizeof(unw_word_t);
	ret = UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);
	/* not in .eh_frame: .debug_frame, rewritten (unwind_debug_frame.h) */
	if (ret == -UNW_ENOINFO && dframe_dyn_info(b->dframe, bias, ip, &di)) {
		ret = UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);
		c->u->st.debug_frame += !ret;
	}
	return ret;
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	(void)as;
	(void)pi;
	(void)arg;
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	(void)as;
	(void)addr;
	(void)arg;
	return -UNW_ENOINFO;
}

/* perf's register of a libunwind x86-64 register number, or -1. */
static int perf_reg(int regnum)
{
	static const int map[] = {
		[UNW_X86_64_RAX] = PERF_REG_X86_AX, [UNW_X86_64_RDX] = PERF_REG_X86_DX,
		[UNW_X86_64_RCX] = PERF_REG_X86_CX, [UNW_X86_64_RBX] = PERF_REG_X86_BX,
		[UNW_X86_64_RSI] = PERF_REG_X86_SI, [UNW_X86_64_RDI] = PERF_REG_X86_DI,
		[UNW_X86_64_RBP] = PERF_REG_X86_BP, [UNW_X86_64_RSP] = PERF_REG_X86_SP,
		[UNW_X86_64_R8] = PERF_REG_X86_R8, [UNW_X86_64_R9] = PERF_REG_X86_R9,
		[UNW_X86_64_R10] = PERF_REG_X86_R10, [UNW_X86_64_R11] = PERF_REG_X86_R11,
		[UNW_X86_64_R12] = PERF_REG_X86_R12, [UNW_X86_64_R13] = PERF_REG_X86_R13,
		[UNW_X86_64_R14] = PERF_REG_X86_R14, [UNW_X86_64_R15] = PERF_REG_X86_R15,
		[UNW_X86_64_RIP] = PERF_REG_X86_IP,
	};

	return regnum >= 0 && regnum < (int)(sizeof(map) / sizeof(map[0])) ? map[regnum] : -1;
}

/* The value of perf register r in the sample (regs come in mask bit order). */
static bool sample_reg(const struct sample *s, int r, uint64_t *v)
{
	unsigned idx;

	if (r < 0 || !(s->regs_user.mask & (1ull << r)) || !s->regs_user.nr)
		return false;
	idx = (unsigned)__builtin_popcountll(s->regs_user.mask & ((1ull << r) - 1));
	if (idx >= s->regs_user.nr)
		return false;
	memcpy(v, s->regs_user.regs + 8 * idx, 8);
	return true;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t regnum, unw_word_t *valp, int write,
		      void *arg)
{
	struct uctx *c = arg;
	uint64_t v;

	(void)as;
	if (write || !sample_reg(c->s, perf_reg(regnum), &v))
		return -UNW_EBADREG;
	note_read(c, READ_REG | (uint64_t)perf_reg(regnum), v);
	*valp = v;
	return 0;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write,
		      void *arg)
{
	struct uctx *c = arg;
	uint64_t sp;
	const struct map *m;
	const struct ubin *b;
	uint64_t bias;

	(void)as;
	if (write)
		return -UNW_EINVAL;
	/* the copied stack: [sp, sp + dyn_size) */
	if (sample_reg(c->s, PERF_REG_X86_SP, &sp) && addr >= sp &&
	    addr + sizeof(*valp) <= sp + c->s->stack_dyn_size &&
	    addr - sp + sizeof(*valp) <= c->s->stack_size) {
		memcpy(valp, c->s->stack_data + (addr - sp), sizeof(*valp));
		note_read(c, addr - sp, *valp);
		return 0;
	}
	/* the unwind tables: bytes of the binary found last, or of the map */
	if (c->last != NONE && bin_read(c->u, &c->u->bins[c->last], c->last_bias, addr, valp))
		return 0;
	if (c->last != NONE && dframe_read(c->u->bins[c->last].dframe, c->last_bias, addr, valp))
		return 0;
	m = machine_find_map(c->u->m, c->t, addr, false);
	if (m && m->dso && !m->dso->anon && (b = bin_of(c->u, m->dso)) && bin_usable(b) &&
	    bias_of(b, m, &bias) && bin_read(c->u, b, bias, addr, valp))
		return 0;
	return -UNW_EINVAL;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t num, unw_fpreg_t *val, int write,
			void *arg)
{
	(void)as;
	(void)num;
	(void)val;
	(void)write;
	(void)arg;
	return -UNW_EINVAL;
}

static int resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
	(void)as;
	(void)cu;
	(void)arg;
	return -UNW_EINVAL;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
			 unw_word_t *offp, void *arg)
{
	(void)as;
	(void)addr;
	(void)buf;
	(void)len;
	(void)offp;
	(void)arg;
	return -UNW_EINVAL;
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

struct unwinder *unwinder_new(struct machine *m, const char *symfs)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->m = m;
	u->symfs = symfs && *symfs ? strdup(symfs) : NULL;
	u->spaces = calloc(MAX_SPACES, sizeof(*u->spaces));
	if (!u->spaces || (symfs && *symfs && !u->symfs)) {
		unwinder_free(u);
		return NULL;
	}
	elf_version(EV_CURRENT);
	return u;
}

/* The address space of the thread's process, its cache still valid. */
static unw_addr_space_t space_of(struct unwinder *u, const struct thread *t)
{
	struct space *sp = NULL;

	for (size_t i = 0; i < u->nr_spaces && !sp; i++)
		if (u->spaces[i].proc == t->proc)
			sp = &u->spaces[i];
	if (!sp) {
		if (u->nr_spaces == MAX_SPACES) {    /* many processes: reuse the oldest */
			unw_destroy_addr_space(u->spaces[0].as);
			memmove(u->spaces, u->spaces + 1, (MAX_SPACES - 1) * sizeof(*u->spaces));
			u->nr_spaces--;
		}
		sp = &u->spaces[u->nr_spaces];
		sp->as = unw_create_addr_space(&accessors, 0);
		if (!sp->as)
			return NULL;
		/* the same binaries are asked for again and again: let libunwind
		 * cache (per thread: its global cache masks signals around every
		 * lookup) */
		unw_set_caching_policy(sp->as, UNW_CACHE_PER_THREAD);
		sp->proc = t->proc;
		sp->gen = t->proc ? t->proc->gen : 0;
		u->nr_spaces++;
	}
	if (t->proc && sp->gen != t->proc->gen) {
		unw_flush_cache(sp->as, 0, 0);
		sp->gen = t->proc->gen;
	}
	return sp->as;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nbins; i++) {
		if (u->bins[i].map)
			munmap((void *)u->bins[i].map, u->bins[i].map_len);
		if (u->bins[i].fd >= 0)
			close(u->bins[i].fd);
		dframe_free(u->bins[i].dframe);
	}
	free(u->bins);
	embed_list_free(&u->embeds);
	for (size_t i = 0; i < u->nr_spaces; i++)
		unw_destroy_addr_space(u->spaces[i].as);
	free(u->spaces);
	free(u->memo);
	free(u->symfs);
	free(u);
}

/*
 * The memo of unwindings. An unwinding's outcome is a function of what the
 * accessors gave libunwind: the sample's registers and stack words it read,
 * the binaries' bytes and tables (the same while the process's maps are,
 * as for libunwind's own cache), and where the stack copy lies (its stack
 * pointer and sizes). So a sample of the same process (maps unchanged),
 * first address, stack pointer and sizes, whose registers and stack words
 * at each place the kept unwinding read hold what they held then, has the
 * kept outcome: its frames are copied, libunwind is not asked. A sampled
 * loop reads the same few return addresses and saved registers sample
 * after sample. Direct-mapped; an unwinding that read too much, or gave
 * too many frames, is not kept.
 */
#define MEMO_SLOTS 1024
#define MEMO_IPS 64

struct umemo {
	const struct proc *proc;
	uint64_t gen, ip, sp, dyn, size, mask;
	size_t max;
	uint16_t nreads, nips;
	bool used, stopped;
	struct uread reads[MEMO_READS];
	uint64_t ips[MEMO_IPS];
};

/* The memo's slot for the sample, its key filled in: NULL when it has none. */
static struct umemo *memo_slot(struct unwinder *u, const struct thread *t, const struct sample *s,
			       size_t max, struct umemo *key)
{
	uint64_t h;

	if (!u->memo && !(u->memo = calloc(MEMO_SLOTS, sizeof(*u->memo))))
		return NULL;
	if (!sample_reg(s, PERF_REG_X86_IP, &key->ip) || !sample_reg(s, PERF_REG_X86_SP, &key->sp))
		return NULL;
	key->proc = t->proc;
	key->gen = t->proc ? t->proc->gen : 0;
	key->dyn = s->stack_dyn_size;
	key->size = s->stack_size;
	key->mask = s->regs_user.mask;
	key->max = max;
	h = (key->ip ^ (key->sp << 17) ^ (uint64_t)(uintptr_t)key->proc) * 0x9E3779B97F4A7C15ull;
	return &u->memo[h >> 54];       /* MEMO_SLOTS = 2^10 */
}

/* The kept unwinding of e applies to s (whose key is k). */
static bool memo_hit(const struct umemo *e, const struct umemo *k, const struct sample *s)
{
	if (!e->used || e->proc != k->proc || e->gen != k->gen || e->ip != k->ip ||
	    e->sp != k->sp || e->dyn != k->dyn || e->size != k->size || e->mask != k->mask ||
	    e->max != k->max)
		return false;
	for (uint16_t i = 0; i < e->nreads; i++) {
		uint64_t v;

		if (e->reads[i].at & READ_REG) {
			if (!sample_reg(s, (int)(e->reads[i].at & ~READ_REG), &v))
				return false;
		} else {
			memcpy(&v, s->stack_data + e->reads[i].at, sizeof(v));
		}
		if (v != e->reads[i].v)
			return false;
	}
	return true;
}

size_t unwind_user(struct unwinder *u, const struct thread *t, const struct sample *s,
		   uint64_t *ips, size_t max)
{
	struct uread reads[MEMO_READS];
	struct uctx c = { u, t, s, NONE, 0, reads, 0 };
	struct umemo key, *e;
	unw_addr_space_t as;
	unw_cursor_t cur;
	size_t n = 0;
	int step = 1;

	if (!(s->type & PERF_SAMPLE_REGS_USER) || s->regs_user.abi == PERF_SAMPLE_REGS_ABI_NONE ||
	    !(s->type & PERF_SAMPLE_STACK_USER) || !s->stack_size)
		return 0;
	u->st.samples++;
	as = space_of(u, t);
	if (!as)
		return 0;
	e = memo_slot(u, t, s, max, &key);
	if (e && memo_hit(e, &key, s)) {
		memcpy(ips, e->ips, e->nips * sizeof(*ips));
		u->st.stopped += e->stopped;
		u->st.frames += e->nips;
		return e->nips;
	}
	unwinding = true;
	if (unw_init_remote(&cur, as, &c)) {
		unwinding = false;
		return 0;
	}
	while (n < max && step > 0) {
		unw_word_t ip;

		if (unw_get_reg(&cur, UNW_REG_IP, &ip) || !ip)
			break;
		/* return addresses point after the call: keep them as they are,
		 * as perf does (the symbolizer finds the calling function) */
		ips[n++] = ip;
		step = unw_step(&cur);
	}
	unwinding = false;
	if (step < 0)
		u->st.stopped++;
	u->st.frames += n;
	if (e && c.nreads <= MEMO_READS && n <= MEMO_IPS) {
		*e = key;
		e->used = true;
		e->stopped = step < 0;
		e->nreads = (uint16_t)c.nreads;
		e->nips = (uint16_t)n;
		memcpy(e->reads, reads, c.nreads * sizeof(*reads));
		memcpy(e->ips, ips, n * sizeof(*ips));
	}
	return n;
}

void unwinder_get_stats(const struct unwinder *u, struct unwind_stats *st)
{
	*st = u->st;
}

int unwinder_add_embedded(struct unwinder *u, struct embed_dso *const *v, size_t n)
{
	if (u->memo)            /* what the binaries give may change */
		memset(u->memo, 0, MEMO_SLOTS * sizeof(*u->memo));
	return embed_list_add(&u->embeds, v, n);
}

void unwinder_set_trace(struct unwinder *u, unwind_trace_fn fn, void *ctx)
{
	u->trace = fn;
	u->trace_ctx = ctx;
}

bool unwinder_tables(struct unwinder *u, struct dso *d, uint64_t *hdr_vaddr,
		     uint64_t *fde_count)
{
	const struct ubin *b = bin_of(u, d);

	/* the rewritten .debug_frame is not embedded: such a binary's samples
	 * unwind only where its file is */
	if (!b || !bin_usable(b) || b->dframe)
		return false;
	*hdr_vaddr = b->hdr_vaddr;
	*fde_count = b->fde_count;
	return true;
}
