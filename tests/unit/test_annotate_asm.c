/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of prep annotate's disassembler (report/views/annotate_asm.c):
 * instruction boundaries and addresses, objdump's mnemonic padding, a
 * direct jump with its target inside the function (<f+0x..>), a call with
 * the callee's name, a target nothing names (the address alone), bytes
 * that do not decode ("(bad)", one byte each) and Intel spelling; the
 * decoding shared by two threads gives what one gives.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "report/views/annotate_int.h"

/* f at 0x1000 (16 bytes), g at 0x2000 */
static const char *namer(void *ctx, uint64_t addr, uint64_t *start)
{
	(void)ctx;
	if (addr >= 0x1000 && addr < 0x1010) {
		*start = 0x1000;
		return "f";
	}
	if (addr == 0x2000) {
		*start = 0x2000;
		return "g";
	}
	return NULL;
}

static void test_att(void **state)
{
	/* push %rbp; call 0x2000; jmp 0x1000; ret; (bad) byte 0x06 */
	static const uint8_t code[] = { 0x55, 0xe8, 0xfa, 0x0f, 0x00, 0x00, 0xeb, 0xf8, 0xc3, 0x06 };
	struct annot_insn *v;
	size_t n;

	(void)state;
	assert_int_equal(annot_disasm(code, sizeof(code), 0x1000, false, namer, NULL, &v, &n, NULL), 0);
	assert_int_equal(n, 5);
	assert_int_equal(v[0].addr, 0x1000);
	assert_int_equal(v[0].size, 1);
	assert_string_equal(v[0].text, "pushq  %rbp");
	assert_int_equal(v[1].addr, 0x1001);
	assert_int_equal(v[1].size, 5);
	assert_true(strstr(v[1].text, "call") == v[1].text);
	assert_non_null(strstr(v[1].text, " 2000 <g>"));
	assert_int_equal(v[2].addr, 0x1006);
	assert_string_equal(v[2].text, "jmp    1000 <f>");
	assert_int_equal(v[2].bytes[0], 0xeb);
	assert_true(strstr(v[3].text, "ret") == v[3].text);
	assert_int_equal(v[4].addr, 0x1009);
	assert_string_equal(v[4].text, "(bad)");
	free(v);
}

static void test_offsets_and_unnamed(void **state)
{
	/* at 0x1002: jne 0x1008 (inside f); at 0x1004: jmp 0x3000 (no name) */
	static const uint8_t code[] = { 0x75, 0x04, 0xe9, 0xf7, 0x1f, 0x00, 0x00 };
	struct annot_insn *v;
	size_t n;

	(void)state;
	assert_int_equal(annot_disasm(code, sizeof(code), 0x1002, false, namer, NULL, &v, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].text, "jne    1008 <f+0x8>");
	assert_string_equal(v[1].text, "jmp    3000");
	free(v);
}

static void test_intel(void **state)
{
	/* imul %r8,%rdi; add %rcx,%rdi */
	static const uint8_t code[] = { 0x49, 0x0f, 0xaf, 0xf8, 0x48, 0x01, 0xcf };
	struct annot_insn *v;
	size_t n;

	(void)state;
	assert_int_equal(annot_disasm(code, sizeof(code), 0x11e0, true, NULL, NULL, &v, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].text, "imul   rdi, r8");
	assert_string_equal(v[1].text, "add    rdi, rcx");
	free(v);
}

/* The caller's share of the decoding (annot_disasm_with): what it does
 * meanwhile takes a while, then it decodes part of what the thread has
 * left; the result is the same as one thread's. */
static void pause_a_little(void *ctx)
{
	(void)ctx;
	usleep(2000);
}

static void test_two_threads(void **state)
{
	size_t len = 256 * 1024, n1, n2;
	uint8_t *code = malloc(len);
	struct annot_insn *v1, *v2;
	uint64_t x = 88172645463325252ull;

	(void)state;
	assert_non_null(code);
	for (size_t i = 0; i < len; i++) {     /* bytes of all kinds: "(bad)" too */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		code[i] = (uint8_t)x;
	}
	assert_int_equal(annot_disasm(code, len, 0x400000, false, namer, NULL, &v1, &n1, NULL), 0);
	for (int round = 0; round < 3; round++) {
		assert_int_equal(annot_disasm_with(code, len, 0x400000, false, namer, NULL,
						   pause_a_little, &v2, &n2, NULL), 0);
		assert_int_equal(n1, n2);
		for (size_t i = 0; i < n1; i++) {
			assert_int_equal(v1[i].addr, v2[i].addr);
			assert_int_equal(v1[i].size, v2[i].size);
			assert_memory_equal(v1[i].bytes, v2[i].bytes, sizeof(v1[i].bytes));
			assert_string_equal(v1[i].text, v2[i].text);
		}
		free(v2);
	}
	free(v1);
	free(code);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_att),
		cmocka_unit_test(test_offsets_and_unnamed),
		cmocka_unit_test(test_intel),
		cmocka_unit_test(test_two_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
