// SPDX-License-Identifier: MIT
/*
 * prep annotate's disassembler: capstone in process (no objdump child),
 * each instruction spelled as objdump spells it ("mnemonic operands", the
 * mnemonic padded to 6), a direct jump or call with its target's address
 * and name ("jmp 4005d0 <loop+0x20>", "call 401000 <f>").
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "annotate_int.h"
#include "common/buf.h"

/* The direct target of a jump or call, if the instruction has one. */
static bool direct_target(csh h, const cs_insn *in, uint64_t *target)
{
	const cs_x86 *x;

	if (!in->detail || !(cs_insn_group(h, in, CS_GRP_JUMP) || cs_insn_group(h, in, CS_GRP_CALL)))
		return false;
	x = &in->detail->x86;
	if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return false;
	*target = (uint64_t)x->operands[0].imm;
	return true;
}

static void insn_text(csh h, const cs_insn *in, annot_name_fn name, void *ctx,
		      struct annot_insn *o)
{
	uint64_t target, start = 0;
	const char *sym;

	if (!direct_target(h, in, &target)) {
		if (in->op_str[0])
			snprintf(o->text, sizeof(o->text), "%-6s %s", in->mnemonic, in->op_str);
		else
			snprintf(o->text, sizeof(o->text), "%s", in->mnemonic);
		return;
	}
	sym = name ? name(ctx, target, &start) : NULL;
	if (!sym)
		snprintf(o->text, sizeof(o->text), "%-6s %" PRIx64, in->mnemonic, target);
	else if (target == start)
		snprintf(o->text, sizeof(o->text), "%-6s %" PRIx64 " <%s>", in->mnemonic, target, sym);
	else
		snprintf(o->text, sizeof(o->text), "%-6s %" PRIx64 " <%s+0x%" PRIx64 ">",
			 in->mnemonic, target, sym, target - start);
}

int annot_disasm(const uint8_t *code, size_t len, uint64_t addr, bool intel, annot_name_fn name,
		 void *ctx, struct annot_insn **out, size_t *n, struct err *err)
{
	struct annot_insn *v = NULL;
	size_t nr = 0, cap = 0;
	cs_insn *in = NULL;
	csh h;

	*out = NULL;
	*n = 0;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return err_set(err, -EINVAL, "capstone cannot disassemble x86-64");
	cs_option(h, CS_OPT_SYNTAX, intel ? CS_OPT_SYNTAX_INTEL : CS_OPT_SYNTAX_ATT);
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	in = cs_malloc(h);
	if (!in)
		goto nomem;
	while (len) {
		const uint8_t *p = code;
		size_t left = len;
		uint64_t a = addr;
		struct annot_insn *o;

		if (array_grow((void **)&v, &cap, nr + 1, sizeof(*v)))
			goto nomem;
		o = &v[nr++];
		memset(o, 0, sizeof(*o));
		o->addr = addr;
		if (cs_disasm_iter(h, &p, &left, &a, in)) {
			o->size = (uint8_t)in->size;
			insn_text(h, in, name, ctx, o);
		} else {
			o->size = 1;
			snprintf(o->text, sizeof(o->text), "(bad)");
		}
		memcpy(o->bytes, code, o->size);
		code += o->size;
		len -= o->size;
		addr += o->size;
	}
	cs_free(in, 1);
	cs_close(&h);
	*out = v;
	*n = nr;
	return 0;
nomem:
	if (in)
		cs_free(in, 1);
	cs_close(&h);
	free(v);
	return err_set(err, -ENOMEM, "out of memory");
}
