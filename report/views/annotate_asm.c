// SPDX-License-Identifier: MIT
/*
 * prep annotate's disassembler: capstone in process (no objdump child),
 * each instruction spelled as objdump spells it ("mnemonic operands", the
 * mnemonic padded to 6), a direct jump or call with its target's address
 * and name ("jmp 4005d0 <loop+0x20>", "call 401000 <f>").
 *
 * Capstone decodes on a thread of its own (it shares nothing with the
 * caller) while the caller does what it will need next (annot_disasm_with's
 * meanwhile: reading the binary's line tables); the names of the targets
 * are asked for afterwards, on the caller's thread.
 *
 * libcapstone is not linked but loaded with dlopen the first time
 * something is disassembled (on that thread): its tables of every
 * architecture take ~2.5 ms of relocations, at every start of prep
 * otherwise, most of which never disassemble. Loaded once per process and
 * never unloaded; <capstone/capstone.h> still gives the types.
 */
#include <capstone/capstone.h>
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "annotate_int.h"
#include "common/buf.h"
#include "common/thread.h"

#define CS_STR_(x) #x
#define CS_STR(x) CS_STR_(x)
#define CS_SONAME "libcapstone.so." CS_STR(CS_API_MAJOR)

static struct {
	typeof(cs_open) *open;
	typeof(cs_option) *option;
	typeof(cs_malloc) *malloc;
	typeof(cs_disasm_iter) *disasm_iter;
	typeof(cs_free) *free;
	typeof(cs_close) *close;
} cs_lib;
static pthread_once_t cs_lib_once = PTHREAD_ONCE_INIT;

static void cs_lib_load(void)
{
	void *h = dlopen(CS_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		h = dlopen("libcapstone.so", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return;
	cs_lib.open = (typeof(cs_lib.open))dlsym(h, "cs_open");
	cs_lib.option = (typeof(cs_lib.option))dlsym(h, "cs_option");
	cs_lib.malloc = (typeof(cs_lib.malloc))dlsym(h, "cs_malloc");
	cs_lib.disasm_iter = (typeof(cs_lib.disasm_iter))dlsym(h, "cs_disasm_iter");
	cs_lib.free = (typeof(cs_lib.free))dlsym(h, "cs_free");
	cs_lib.close = (typeof(cs_lib.close))dlsym(h, "cs_close");
	if (!cs_lib.open || !cs_lib.option || !cs_lib.malloc || !cs_lib.disasm_iter ||
	    !cs_lib.free || !cs_lib.close) {
		memset(&cs_lib, 0, sizeof(cs_lib));
		dlclose(h);
	}
}

/* An instruction as capstone spelled it, before its target is named: its
 * operands' text in its part's strs (an instruction is small: a large
 * function's thousands are all in memory at once). */
struct raw {
	char mnemonic[CS_MNEMONIC_SIZE];
	uint32_t op;            /* where its operands' text starts in strs */
	bool decoded;           /* false: "(bad)" */
	bool direct;            /* a jump or call to target */
	uint64_t target;
};

/* The instructions decoded from one offset of the code on. */
struct part {
	size_t from;
	struct annot_insn *v;
	struct raw *raw;
	size_t nr, cap, cap_raw;
	struct buf strs;        /* the operands' texts, each ending in a 0 */
	int ret;                /* 0, -ENOMEM, -ENOENT (no libcapstone), -EINVAL
				   (capstone would not start) */
};

/*
 * Part a runs from the start on its own thread. When the caller is done
 * with what it does meanwhile and a has much left, the caller decodes part
 * b, from halfway through what is left: a goes on until it stands at an
 * instruction b decoded (the decoding from an address being the same
 * whoever does it, the rest is b's), or to the end. b publishes the offset
 * of each instruction (b_off, b_nr, release); a says how far it is (a_at)
 * and whether it reached the end alone (a_done: b stops then).
 */
struct job {
	const uint8_t *code;
	size_t len;
	uint64_t addr;
	bool intel;
	struct part a, b;
	size_t *b_off;          /* len - b.from entries at most */
	atomic_size_t b_nr, a_at;
	atomic_bool b_on, b_done, a_done;
	size_t sync;            /* a stopped at b's instruction sync; SIZE_MAX: a has all */
};

/* The jumps and calls (capstone 4's groups JUMP and CALL, loops not among
 * them): decoded without capstone's details, which cost a third of its
 * time, their direct target is the one operand its text spells as a number
 * ("0x4005d0", or below 10 in decimal). Checked against the details on
 * every instruction of libc, libpython and random bytes, both syntaxes. */
static bool branch(unsigned id)
{
	switch (id) {
	case X86_INS_JAE: case X86_INS_JA: case X86_INS_JBE: case X86_INS_JB:
	case X86_INS_JCXZ: case X86_INS_JECXZ: case X86_INS_JE: case X86_INS_JGE:
	case X86_INS_JG: case X86_INS_JLE: case X86_INS_JL: case X86_INS_JMP:
	case X86_INS_JNE: case X86_INS_JNO: case X86_INS_JNP: case X86_INS_JNS:
	case X86_INS_JO: case X86_INS_JP: case X86_INS_JRCXZ: case X86_INS_JS:
	case X86_INS_LJMP: case X86_INS_CALL: case X86_INS_LCALL: case X86_INS_XBEGIN:
		return true;
	}
	return false;
}

static bool direct_target(const cs_insn *in, uint64_t *target)
{
	const char *op = in->op_str;
	bool hex = op[0] == '0' && op[1] == 'x';
	char *end;

	if (!branch(in->id) || !(hex ? isxdigit((unsigned char)op[2]) : isdigit((unsigned char)op[0])))
		return false;
	*target = strtoull(hex ? op + 2 : op, &end, hex ? 16 : 10);
	return !*end;
}

static int keep(struct part *p, struct raw *r, const cs_insn *in)
{
	r->decoded = true;
	memcpy(r->mnemonic, in->mnemonic, sizeof(r->mnemonic));
	r->mnemonic[sizeof(r->mnemonic) - 1] = 0;
	r->op = (uint32_t)p->strs.len;
	r->direct = direct_target(in, &r->target);
	return buf_append(&p->strs, in->op_str, strnlen(in->op_str, sizeof(in->op_str) - 1) + 1);
}

/* One instruction at *off into part p: 0 or -ENOMEM. */
static int decode_one(struct job *j, struct part *p, csh h, cs_insn *in, size_t *off)
{
	const uint8_t *code = j->code + *off;
	size_t left = j->len - *off;
	uint64_t a = j->addr + *off;
	struct annot_insn *o;

	if (array_grow((void **)&p->v, &p->cap, p->nr + 1, sizeof(*p->v)) ||
	    array_grow((void **)&p->raw, &p->cap_raw, p->nr + 1, sizeof(*p->raw)))
		return -ENOMEM;
	o = &p->v[p->nr];
	/* not the whole of *o (its text is written later): a memset of it is a
	 * `rep stos` per instruction */
	memset(o->bytes, 0, sizeof(o->bytes));
	o->text = NULL;
	p->raw[p->nr].decoded = false;
	o->addr = j->addr + *off;
	o->size = 1;
	if (cs_lib.disasm_iter(h, &code, &left, &a, in)) {
		o->size = (uint8_t)in->size;
		if (keep(p, &p->raw[p->nr], in))
			return -ENOMEM;
	}
	memcpy(o->bytes, j->code + *off, o->size);
	p->nr++;
	*off += o->size;
	return 0;
}

/* For part a at off, past b's start: true when off is where one of b's
 * instructions starts (a stops), false when a goes on; waits for b to get
 * that far. */
static bool meets_b(struct job *j, size_t off)
{
	for (;;) {
		size_t n = atomic_load_explicit(&j->b_nr, memory_order_acquire), lo = 0, hi = n;

		if (n && j->b_off[n - 1] >= off) {
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (j->b_off[mid] < off)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (j->b_off[lo] != off)
				return false;
			j->sync = lo;
			return true;
		}
		if (atomic_load_explicit(&j->b_done, memory_order_acquire) &&
		    n == atomic_load_explicit(&j->b_nr, memory_order_acquire))
			return false;
		sched_yield();
	}
}

/* Part a (is_a) or b: the instructions from p->from to the end, or to
 * where the other part takes over. */
static void decode(struct job *j, struct part *p, bool is_a)
{
	size_t off = p->from;
	cs_insn *in;
	csh h;

	pthread_once(&cs_lib_once, cs_lib_load);
	if (!cs_lib.open) {
		p->ret = -ENOENT;
		goto out;
	}
	if (cs_lib.open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK) {
		p->ret = -EINVAL;
		goto out;
	}
	cs_lib.option(h, CS_OPT_SYNTAX, j->intel ? CS_OPT_SYNTAX_INTEL : CS_OPT_SYNTAX_ATT);
	in = cs_lib.malloc(h);
	p->ret = in ? 0 : -ENOMEM;
	while (!p->ret && off < j->len) {
		if (is_a && atomic_load_explicit(&j->b_on, memory_order_acquire) &&
		    off >= j->b.from && meets_b(j, off))
			break;
		if (!is_a && atomic_load_explicit(&j->a_done, memory_order_acquire))
			break;
		if (!is_a)
			j->b_off[p->nr] = off;
		p->ret = decode_one(j, p, h, in, &off);
		if (!p->ret && !is_a)
			atomic_store_explicit(&j->b_nr, p->nr, memory_order_release);
		if (is_a)
			atomic_store_explicit(&j->a_at, off, memory_order_relaxed);
	}
	if (in)
		cs_lib.free(in, 1);
	cs_lib.close(&h);
out:
	if (is_a && (p->ret || off >= j->len))
		atomic_store_explicit(&j->a_done, true, memory_order_release);
	if (!is_a)
		atomic_store_explicit(&j->b_done, true, memory_order_release);
}

static void *decode_main(void *arg)
{
	struct job *j = arg;

	decode(j, &j->a, true);
	return NULL;
}

/* After meanwhile, with a on its thread: take half of what a has left
 * when that is worth it. */
static void help(struct job *j)
{
	size_t at = atomic_load_explicit(&j->a_at, memory_order_relaxed);

	if (atomic_load_explicit(&j->a_done, memory_order_acquire) || j->len - at < 4096)
		return;
	j->b.from = at + (j->len - at) / 2;
	j->b_off = malloc((j->len - j->b.from + 1) * sizeof(*j->b_off));
	if (!j->b_off)
		return;
	atomic_store_explicit(&j->b_on, true, memory_order_release);
	decode(j, &j->b, false);
}

/* The instructions in one array (into j->a): a's, then b's from sync on.
 * 0 or -ENOMEM. */
static int join(struct job *j)
{
	size_t nb = j->b.nr - j->sync;

	if (j->sync == SIZE_MAX || !nb)
		return 0;
	if (array_grow((void **)&j->a.v, &j->a.cap, j->a.nr + nb, sizeof(*j->a.v)) ||
	    array_grow((void **)&j->a.raw, &j->a.cap_raw, j->a.nr + nb, sizeof(*j->a.raw)))
		return -ENOMEM;
	memcpy(j->a.v + j->a.nr, j->b.v + j->sync, nb * sizeof(*j->a.v));
	memcpy(j->a.raw + j->a.nr, j->b.raw + j->sync, nb * sizeof(*j->a.raw));
	for (size_t i = j->a.nr; i < j->a.nr + nb; i++)
		j->a.raw[i].op += (uint32_t)j->a.strs.len;
	j->a.nr += nb;
	return buf_append(&j->a.strs, j->b.strs.data, j->b.strs.len);
}

/* An instruction's text, with its 0, onto t (its operands' in strs): 0 or
 * -ENOMEM. */
static int insn_text(const struct raw *r, const char *strs, annot_name_fn name, void *ctx,
		     struct buf *t)
{
	uint64_t start = 0;
	const char *sym, *op;
	size_t m, n;
	int ret;

	if (!r->decoded)
		return buf_append(t, "(bad)", 6);
	if (!r->direct) {
		/* "%-6s %s", or the mnemonic alone */
		op = strs + r->op;
		m = strlen(r->mnemonic);
		n = strlen(op);
		if (buf_append(t, r->mnemonic, m) ||
		    (n && (buf_append(t, "       ", m < 6 ? 7 - m : 1) || buf_append(t, op, n))))
			return -ENOMEM;
		return buf_append(t, "", 1);
	}
	sym = name ? name(ctx, r->target, &start) : NULL;
	if (!sym)
		ret = buf_printf(t, "%-6s %" PRIx64, r->mnemonic, r->target);
	else if (r->target == start)
		ret = buf_printf(t, "%-6s %" PRIx64 " <%s>", r->mnemonic, r->target, sym);
	else
		ret = buf_printf(t, "%-6s %" PRIx64 " <%s+0x%" PRIx64 ">", r->mnemonic, r->target,
				 sym, r->target - start);
	return ret ? ret : buf_append(t, "", 1);
}

/* Every instruction of a named, its texts after them in the one block
 * a->v (reallocated): 0 or -ENOMEM. */
static int name_all(struct part *a, annot_name_fn name, void *ctx)
{
	struct buf t = { 0 };
	size_t *at = malloc((a->nr + 1) * sizeof(*at)), head = a->nr * sizeof(*a->v);
	struct annot_insn *v;
	int ret = at ? 0 : -ENOMEM;

	for (size_t i = 0; !ret && i < a->nr; i++) {
		at[i] = t.len;
		ret = insn_text(&a->raw[i], (const char *)a->strs.data, name, ctx, &t);
	}
	v = ret || !a->nr ? NULL : array_realloc(a->v, head + t.len, 1);
	if (v) {
		memcpy((char *)v + head, t.data, t.len);
		for (size_t i = 0; i < a->nr; i++)
			v[i].text = (char *)v + head + at[i];
		a->v = v;
	} else if (a->nr) {
		ret = -ENOMEM;
	}
	free(at);
	buf_free(&t);
	return ret;
}

int annot_disasm_with(const uint8_t *code, size_t len, uint64_t addr, bool intel,
		      annot_name_fn name, void *ctx, void (*meanwhile)(void *ctx),
		      struct annot_insn **out, size_t *n, struct err *err)
{
	struct job j = { .code = code, .len = len, .addr = addr, .intel = intel,
			 .sync = SIZE_MAX };
	pthread_t t;
	bool threaded;
	int ret;

	atomic_init(&j.b_nr, 0);
	atomic_init(&j.a_at, 0);
	atomic_init(&j.b_on, false);
	atomic_init(&j.b_done, false);
	atomic_init(&j.a_done, false);
	threaded = meanwhile && !thread_create(&t, decode_main, &j);
	*out = NULL;
	*n = 0;
	if (meanwhile)
		meanwhile(ctx);
	if (threaded) {
		help(&j);
		pthread_join(t, NULL);
	} else {
		decode(&j, &j.a, true);
	}
	ret = j.a.ret ? j.a.ret : j.sync != SIZE_MAX ? j.b.ret : 0;
	if (!ret)
		ret = join(&j);
	if (!ret)
		ret = name_all(&j.a, name, ctx);
	free(j.a.raw);
	free(j.b.raw);
	free(j.b.v);
	free(j.b_off);
	buf_free(&j.a.strs);
	buf_free(&j.b.strs);
	if (ret) {
		free(j.a.v);
		return ret == -ENOMEM ? err_set(err, -ENOMEM, "out of memory") :
		       ret == -ENOENT ? err_set(err, -EINVAL, "cannot load %s (the capstone "
						"disassembler)", CS_SONAME) :
		       err_set(err, ret, "capstone cannot disassemble x86-64");
	}
	*out = j.a.v;
	*n = j.a.nr;
	return 0;
}

int annot_disasm(const uint8_t *code, size_t len, uint64_t addr, bool intel, annot_name_fn name,
		 void *ctx, struct annot_insn **out, size_t *n, struct err *err)
{
	return annot_disasm_with(code, len, addr, intel, name, ctx, NULL, out, n, err);
}
