/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the growth helpers (common/buf.c): sizes that cannot be
 * represented fail with -ENOMEM (or NULL) before any allocation is tried,
 * and what was held is kept; ordinary growth keeps the content.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/buf.h"

static void test_size_ops(void **state)
{
	size_t out = 7;

	(void)state;
	assert_int_equal(size_mul(3, 5, &out), 0);
	assert_int_equal(out, 15);
	assert_int_equal(size_mul(SIZE_MAX / 2 + 1, 2, &out), -ENOMEM);
	assert_int_equal(size_mul(SIZE_MAX, 0, &out), 0);
	assert_int_equal(out, 0);
	assert_int_equal(size_add(SIZE_MAX - 1, 1, &out), 0);
	assert_int_equal(out, SIZE_MAX);
	assert_int_equal(size_add(SIZE_MAX, 1, &out), -ENOMEM);
}

static void test_array_grow(void **state)
{
	uint64_t *v = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(array_grow((void **)&v, &cap, 1, sizeof(*v)), 0);
	assert_non_null(v);
	assert_true(cap >= 1);
	for (size_t i = 0; i < 1000; i++) {
		assert_int_equal(array_grow((void **)&v, &cap, i + 1, sizeof(*v)), 0);
		assert_true(cap >= i + 1);
		v[i] = i * 3;
	}
	for (size_t i = 0; i < 1000; i++)
		assert_int_equal(v[i], i * 3);
	/* no growth needed: nothing moves */
	{
		uint64_t *before = v;
		size_t cap_before = cap;

		assert_int_equal(array_grow((void **)&v, &cap, cap, sizeof(*v)), 0);
		assert_ptr_equal(v, before);
		assert_int_equal(cap, cap_before);
	}
	free(v);
}

static void test_array_grow_overflow(void **state)
{
	uint64_t *v = NULL, *held;
	size_t cap = 0, cap_held;

	(void)state;
	assert_int_equal(array_grow((void **)&v, &cap, 4, sizeof(*v)), 0);
	held = v;
	cap_held = cap;
	/* a count whose doubling wraps */
	assert_int_equal(array_grow((void **)&v, &cap, SIZE_MAX, sizeof(*v)), -ENOMEM);
	assert_ptr_equal(v, held);
	assert_int_equal(cap, cap_held);
	/* a count that fits, but not in bytes */
	assert_int_equal(array_grow((void **)&v, &cap, SIZE_MAX / 4, sizeof(*v)), -ENOMEM);
	assert_int_equal(array_grow((void **)&v, &cap, cap + 1, SIZE_MAX / 8), -ENOMEM);
	assert_ptr_equal(v, held);
	assert_int_equal(cap, cap_held);
	free(v);
}

static void test_array_realloc(void **state)
{
	uint32_t *v, *w;

	(void)state;
	v = array_realloc(NULL, 3, sizeof(*v));
	assert_non_null(v);
	v[0] = 1, v[1] = 2, v[2] = 3;
	w = array_realloc(v, 100, sizeof(*v));
	assert_non_null(w);
	v = w;
	assert_int_equal(v[2], 3);
	/* n * size wraps: NULL, and the array is still the caller's */
	assert_null(array_realloc(v, SIZE_MAX / 2, sizeof(*v)));
	assert_null(array_realloc(v, 2, SIZE_MAX));
	assert_int_equal(v[0], 1);
	assert_int_equal(v[2], 3);
	/* no elements is still an array, so NULL only ever means failure */
	w = array_realloc(v, 0, sizeof(*v));
	assert_non_null(w);
	free(w);
}

static void test_buf_overflow(void **state)
{
	struct buf b = BUF_INIT;
	uint8_t *held;
	size_t cap_held;

	(void)state;
	assert_int_equal(buf_append(&b, "abc", 3), 0);
	held = b.data;
	cap_held = b.cap;
	/* len + more wraps */
	assert_int_equal(buf_reserve(&b, SIZE_MAX), -ENOMEM);
	/* len + more fits, the doubled capacity does not */
	assert_int_equal(buf_reserve(&b, SIZE_MAX / 2 + 8), -ENOMEM);
	assert_int_equal(buf_append_zero(&b, SIZE_MAX - 1), -ENOMEM);
	assert_ptr_equal(b.data, held);
	assert_int_equal(b.cap, cap_held);
	assert_int_equal(b.len, 3);
	assert_memory_equal(b.data, "abc", 3);
	assert_int_equal(buf_put_u32(&b, 0x04030201), 0);
	assert_int_equal(b.len, 7);
	assert_memory_equal(b.data, "abc\1\2\3\4", 7);
	buf_free(&b);
	assert_null(b.data);
	assert_int_equal(b.cap, 0);
	buf_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_ops),
		cmocka_unit_test(test_array_grow),
		cmocka_unit_test(test_array_grow_overflow),
		cmocka_unit_test(test_array_realloc),
		cmocka_unit_test(test_buf_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
