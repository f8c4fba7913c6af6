/* SPDX-License-Identifier: MIT */
/*
 * prec's flight recorder (record/flight.c): the size and time values of
 * --max-size and --switch-output, the timestamped names of switched files,
 * and the walk of a backward ring buffer, on a ring written here the way the
 * kernel writes one with write_backward (each record below the previous one,
 * data_head going down, wrapping).
 *
 * The file is included directly, as test_target.c does: the unit-test
 * build does not link record/. Its one call into record/synth.c goes to a
 * test double below that finds no process.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record/flight.c"

int synth_process(pid_t pid, const struct synth_params *p, struct err *err)
{
	(void)pid;
	(void)p;
	(void)err;
	return -ESRCH;
}

static void test_sizes(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(flight_parse_size("512", &v), 0);
	assert_int_equal(v, 512);
	assert_int_equal(flight_parse_size("100K", &v), 0);
	assert_int_equal(v, 100 << 10);
	assert_int_equal(flight_parse_size("2m", &v), 0);
	assert_int_equal(v, 2 << 20);
	assert_int_equal(flight_parse_size("1G", &v), 0);
	assert_int_equal(v, 1ull << 30);
	assert_int_equal(flight_parse_size("12Q", &v), -EINVAL);
	assert_int_equal(flight_parse_size("0", &v), -EINVAL);
	assert_int_equal(flight_parse_size("-1K", &v), -EINVAL);
	assert_int_equal(flight_parse_size("1KB", &v), -EINVAL);
	assert_int_equal(flight_parse_size("", &v), -EINVAL);
	assert_int_equal(flight_parse_size("99999999999999999999", &v), -EINVAL);
}

static void test_switch_values(void **state)
{
	struct record_opts o;
	struct err err = { 0 };

	(void)state;
	memset(&o, 0, sizeof(o));
	assert_int_equal(flight_parse_switch(&o, NULL, &err), 0);
	assert_true(o.switch_output);
	assert_int_equal(o.switch_size, 0);
	memset(&o, 0, sizeof(o));
	assert_int_equal(flight_parse_switch(&o, "signal", &err), 0);
	assert_true(o.switch_output && !o.switch_size && o.switch_time == 0);
	assert_int_equal(flight_parse_switch(&o, "100M", &err), 0);
	assert_int_equal(o.switch_size, 100ull << 20);
	memset(&o, 0, sizeof(o));
	assert_int_equal(flight_parse_switch(&o, "30s", &err), 0);
	assert_true(o.switch_time == 30);
	assert_int_equal(flight_parse_switch(&o, "5m", &err), 0);       /* minutes, not MiB */
	assert_true(o.switch_time == 300);
	assert_int_equal(o.switch_size, 0);
	assert_int_equal(flight_parse_switch(&o, "0.5s", &err), 0);
	assert_true(o.switch_time == 0.5);
	assert_int_equal(flight_parse_switch(&o, "abc", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "--switch-output=abc"));
	assert_int_equal(flight_parse_switch(&o, "100", &err), -EINVAL);
	assert_int_equal(flight_parse_switch(&o, "0s", &err), -EINVAL);
	assert_int_equal(flight_parse_switch(&o, "1x", &err), -EINVAL);
}

static void test_timestamp_name(void **state)
{
	char name[64];
	size_t n;

	(void)state;
	flight_timestamp_name("prec.data", name, sizeof(name));
	n = strlen(name);
	assert_int_equal(n, strlen("prec.data.") + 16);
	assert_memory_equal(name, "prec.data.20", 12);
	for (size_t i = strlen("prec.data."); i < n; i++)
		assert_true(name[i] >= '0' && name[i] <= '9');
}

#define RING 256        /* data bytes of the test ring */

/* Write a record of size bytes (a multiple of 8) holding seq below head,
 * as the kernel does for a write_backward ring. */
static uint64_t put_backward(uint8_t *data, uint64_t head, uint16_t size, uint32_t seq)
{
	uint8_t rec[64] = { 0 };
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = size };

	memcpy(rec, &h, sizeof(h));
	memcpy(rec + 8, &seq, sizeof(seq));
	head -= size;
	for (uint16_t i = 0; i < size; i++)
		data[(head + i) & (RING - 1)] = rec[i];
	return head;
}

/* Walk the ring as ring_dump does: the seqs of the records, oldest first. */
static size_t walk(uint8_t *data, uint64_t head, uint64_t prev, uint32_t *seqs)
{
	struct ring r = { .data_size = RING };
	struct buf offs = BUF_INIT;
	uint64_t limit = prev - head < RING ? prev - head : RING;
	size_t nr = 0;

	assert_int_equal(walk_backward(&r, data, head, limit, &offs, &nr), 0);
	for (size_t k = 0; k < nr; k++) {
		uint64_t off;

		memcpy(&off, offs.data + (nr - 1 - k) * sizeof(off), sizeof(off));
		copy_out(data, RING - 1, head + off + 8, &seqs[k], sizeof(seqs[k]));
	}
	buf_free(&offs);
	return nr;
}

static void test_backward_walk(void **state)
{
	static const uint16_t sizes[] = { 24, 32, 40, 16 };
	uint8_t data[RING] = { 0 };
	uint32_t seqs[64];
	uint64_t head = 0, prev;
	size_t n;

	(void)state;
	/* not yet full: every record, from the zero header on */
	for (uint32_t s = 1; s <= 3; s++)
		head = put_backward(data, head, sizes[s % 4], s);
	n = walk(data, head, 0, seqs);
	assert_int_equal(n, 3);
	assert_int_equal(seqs[0], 1);
	assert_int_equal(seqs[2], 3);
	/* wrapped many times: the newest records that fit whole, oldest first */
	for (uint32_t s = 4; s <= 100; s++)
		head = put_backward(data, head, sizes[s % 4], s);
	n = walk(data, head, 0, seqs);
	assert_true(n >= 8 && n <= RING / 16);
	assert_int_equal(seqs[n - 1], 100);
	for (size_t k = 1; k < n; k++)
		assert_int_equal(seqs[k], seqs[k - 1] + 1);
	{
		size_t bytes = 0;

		for (size_t k = 0; k < n; k++)
			bytes += sizes[seqs[k] % 4];
		assert_true(bytes <= RING);
		assert_true(bytes + sizes[(seqs[0] - 1) % 4] > RING);    /* no older one fits */
	}
	/* a later dump reads only what came since the previous one */
	prev = head;
	for (uint32_t s = 101; s <= 103; s++)
		head = put_backward(data, head, sizes[s % 4], s);
	n = walk(data, head, prev, seqs);
	assert_int_equal(n, 3);
	assert_int_equal(seqs[0], 101);
	assert_int_equal(seqs[2], 103);
	/* nothing new: nothing */
	assert_int_equal(walk(data, head, head, seqs), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_switch_values),
		cmocka_unit_test(test_timestamp_name),
		cmocka_unit_test(test_backward_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
