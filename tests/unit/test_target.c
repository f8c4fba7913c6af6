/* SPDX-License-Identifier: MIT */
/*
 * What prec and prec stat measure (record/target.c): CPU lists, the -p/-t
 * id lists read one id at a time, and the threads of a process from /proc
 * (this test's own, with a second thread started for it).
 *
 * The file is included directly, its API renamed, as test_synth.c does:
 * the unit-test build does not link record/.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define parse_cpu_list		test_copy_parse_cpu_list
#define target_cpus		test_copy_target_cpus
#define id_list_next		test_copy_id_list_next
#define tids_add		test_copy_tids_add
#define tids_add_process	test_copy_tids_add_process
#include "record/target.c"

static void test_cpu_list(void **state)
{
	struct err err = { 0 };
	int *cpus = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(parse_cpu_list("0-2,5", &cpus, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[2], 2);
	assert_int_equal(cpus[3], 5);
	free(cpus);
	assert_int_equal(parse_cpu_list("3-1", &cpus, &n, &err), -EINVAL);
	assert_string_equal(err.msg, "-C '3-1': not a CPU list like 0-3,6");
	assert_int_equal(parse_cpu_list("", &cpus, &n, &err), -EINVAL);
	assert_int_equal(parse_cpu_list("1,x", &cpus, &n, &err), -EINVAL);
	assert_int_equal(target_cpus("4095", &cpus, &n, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "CPU 4095 does not exist"));
	assert_int_equal(target_cpus(NULL, &cpus, &n, &err), 0);
	assert_true(n >= 1);
	free(cpus);
}

static void test_id_list(void **state)
{
	const char *p = "12,34";
	long id = 0;

	(void)state;
	assert_int_equal(id_list_next(&p, LONG_MAX, &id), 1);
	assert_int_equal(id, 12);
	assert_int_equal(id_list_next(&p, LONG_MAX, &id), 1);
	assert_int_equal(id, 34);
	assert_int_equal(id_list_next(&p, LONG_MAX, &id), 0);
	p = "7,";       /* a trailing comma ends the list */
	assert_int_equal(id_list_next(&p, LONG_MAX, &id), 1);
	assert_int_equal(id_list_next(&p, LONG_MAX, &id), 0);
	p = "1,,2";
	assert_int_equal(id_list_next(&p, LONG_MAX, &id), 1);
	assert_int_equal(id_list_next(&p, LONG_MAX, &id), -EINVAL);
	p = "0";
	assert_int_equal(id_list_next(&p, LONG_MAX, &id), -EINVAL);
	p = "5x";
	assert_int_equal(id_list_next(&p, LONG_MAX, &id), -EINVAL);
	p = "1073741824";       /* above prec's bound, not prec stat's */
	assert_int_equal(id_list_next(&p, 0x3fffffff, &id), -EINVAL);
	p = "1073741824";
	assert_int_equal(id_list_next(&p, LONG_MAX, &id), 1);
}

static void *idle_thread(void *arg)
{
	pthread_barrier_t *b = arg;

	pthread_barrier_wait(b);        /* started */
	pthread_barrier_wait(b);        /* counted: may end */
	return NULL;
}

static void test_process_threads(void **state)
{
	pthread_barrier_t b;
	pthread_t th;
	pid_t *tids = NULL;
	size_t n = 0, cap = 0;
	bool self = false;

	(void)state;
	pthread_barrier_init(&b, NULL, 2);
	assert_int_equal(pthread_create(&th, NULL, idle_thread, &b), 0);
	pthread_barrier_wait(&b);
	assert_int_equal(tids_add_process(&tids, &n, &cap, getpid()), 0);
	pthread_barrier_wait(&b);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&b);
	assert_int_equal(n, 2);
	for (size_t k = 0; k < n; k++)
		self |= tids[k] == getpid();
	assert_true(self);
	assert_int_equal(tids_add_process(&tids, &n, &cap, 0x3fffffff), -ESRCH);
	assert_int_equal(tids_add(&tids, &n, &cap, 42), 0);
	assert_int_equal(n, 3);
	assert_int_equal(tids[2], 42);
	free(tids);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_list),
		cmocka_unit_test(test_id_list),
		cmocka_unit_test(test_process_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
