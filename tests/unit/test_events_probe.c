/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the probe and mem:SYMBOL syntax of the -e parser
 * (common/events_probe.c), against a fake sysfs with a uprobe PMU and a
 * kprobe PMU, and one without a kprobe PMU.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <linux/hw_breakpoint.h>

#include "common/events.h"

static char tmpdir[] = "/tmp/test_events_probe.XXXXXX";
static char with_kprobe[256], without_kprobe[256];
static struct event_env env;

static void put(const char *root, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	*strrchr(path, '/') = '\0';
	mkdir(path, 0755);
	*strrchr(path, '/') = '\0';
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(with_kprobe, sizeof(with_kprobe), "%s/a", tmpdir);
	snprintf(without_kprobe, sizeof(without_kprobe), "%s/b", tmpdir);
	mkdir(with_kprobe, 0755);
	mkdir(without_kprobe, 0755);
	put(with_kprobe, "uprobe/type", "7\n");
	put(with_kprobe, "uprobe/format/retprobe", "config:0\n");
	put(with_kprobe, "kprobe/type", "6\n");
	put(with_kprobe, "kprobe/format/retprobe", "config:3\n");
	put(without_kprobe, "uprobe/type", "8\n");
	put(without_kprobe, "uprobe/format/retprobe", "config:0\n");
	env.pmu_root = with_kprobe;
	return 0;
}

static int teardown(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd);
}

static struct event_spec one(const char *text)
{
	struct event_list l = { 0, NULL };
	struct err e = { 0, "" };
	struct event_spec ev;
	int ret = events_parse(text, &env, &l, &e);

	if (ret)
		print_error("'%s': %s\n", text, e.msg);
	assert_int_equal(ret, 0);
	assert_int_equal(l.nr, 1);
	ev = l.ev[0];
	event_list_free(&l);
	return ev;
}

static void expect_err(const char *text, int code, const char *msg)
{
	struct event_list l = { 0, NULL };
	struct err e = { 0, "" };
	int ret = events_parse(text, &env, &l, &e);

	if (ret != code || strcmp(e.msg, msg))
		print_error("'%s': got %d (%s), want %d (%s)\n", text, ret, e.msg, code, msg);
	assert_int_equal(ret, code);
	assert_string_equal(e.msg, msg);
	assert_int_equal(l.nr, 0);
}

/* The part of name that at says. */
static void part_is(const struct event_spec *ev, uint16_t off, uint16_t n, const char *want)
{
	assert_int_equal(n, strlen(want));
	assert_memory_equal(ev->name + off, want, n);
}

static void test_uprobes(void **state)
{
	struct event_spec ev;

	(void)state;
	ev = one("u:/bin/prog:main");
	assert_int_equal(ev.probe, EVENT_PROBE_U);
	assert_int_equal(ev.attr.type, 7);
	assert_int_equal(ev.attr.config, 0);
	assert_int_equal(ev.attr.config1, 0);
	assert_int_equal(ev.attr.sample_period, 0);     /* the recorder's: every hit */
	assert_false(ev.explicit_period);
	assert_false(ev.probe_at.resolved);
	part_is(&ev, ev.probe_at.path, ev.probe_at.path_len, "/bin/prog");
	part_is(&ev, ev.probe_at.sym, ev.probe_at.sym_len, "main");
	assert_string_equal(ev.name, "u:/bin/prog:main");

	ev = one("ur:./prog:f+0x10:u");
	assert_int_equal(ev.probe, EVENT_PROBE_UR);
	assert_int_equal(ev.attr.config, 1);
	assert_int_equal(ev.probe_at.off, 16);
	assert_true(ev.attr.exclude_kernel);
	part_is(&ev, ev.probe_at.path, ev.probe_at.path_len, "./prog");
	part_is(&ev, ev.probe_at.sym, ev.probe_at.sym_len, "f");

	/* in a list, and in a group with modifiers after '}' */
	{
		struct event_list l = { 0, NULL };
		struct err e = { 0, "" };

		assert_int_equal(events_parse("{u:p:a,ur:p:a}:u,cpu-clock", &env, &l, &e), 0);
		assert_int_equal(l.nr, 3);
		part_is(&l.ev[1], l.ev[1].probe_at.path, l.ev[1].probe_at.path_len, "p");
		part_is(&l.ev[1], l.ev[1].probe_at.sym, l.ev[1].probe_at.sym_len, "a");
		assert_int_equal(l.ev[2].probe, EVENT_PROBE_NONE);
		event_list_free(&l);
	}
	expect_err("u:prog", -EINVAL, "event 'u:prog': expected u:PATH:SYMBOL[+OFF]");
	expect_err("ur::f", -EINVAL, "event 'ur::f': expected ur:PATH:SYMBOL[+OFF]");
	expect_err("u:prog:", -EINVAL, "event 'u:prog:': bad or missing symbol");
	expect_err("u:prog:f+zz", -EINVAL, "event 'u:prog:f+zz': bad offset after '+'");
	expect_err("u:prog:f:q", -PREC_EUNKNOWN, "event 'u:prog:f:q': unknown modifier 'q'");
}

static void test_kprobes(void **state)
{
	char msg[512];
	struct event_spec ev;

	(void)state;
	ev = one("k:vfs_read+4");
	assert_int_equal(ev.probe, EVENT_PROBE_K);
	assert_int_equal(ev.attr.type, 6);
	assert_int_equal(ev.attr.config2, 4);
	assert_true(ev.probe_at.resolved);
	part_is(&ev, ev.probe_at.sym, ev.probe_at.sym_len, "vfs_read");
	ev = one("kr:vfs_read");
	assert_int_equal(ev.probe, EVENT_PROBE_KR);
	assert_int_equal(ev.attr.config, 1ULL << 3);

	env.pmu_root = without_kprobe;
	snprintf(msg, sizeof(msg), "k:vfs_read: this kernel has no kprobe PMU (%s/kprobe)",
		 without_kprobe);
	expect_err("k:vfs_read", -ENOENT, msg);
	ev = one("u:p:f");
	assert_int_equal(ev.attr.type, 8);
	env.pmu_root = with_kprobe;
}

static void test_mem_symbol(void **state)
{
	struct event_spec ev;

	(void)state;
	ev = one("mem:counter:w");
	assert_int_equal(ev.probe, EVENT_PROBE_MEM_SYM);
	assert_int_equal(ev.attr.type, PERF_TYPE_BREAKPOINT);
	assert_int_equal(ev.attr.bp_type, HW_BREAKPOINT_W);
	assert_int_equal(ev.attr.bp_addr, 0);
	assert_int_equal(ev.attr.bp_len, 0);     /* the variable's size, once resolved */
	assert_false(ev.probe_at.len_given);
	part_is(&ev, ev.probe_at.sym, ev.probe_at.sym_len, "counter");

	ev = one("mem:_x.1/2:rw:u");
	assert_int_equal(ev.attr.bp_len, 2);
	assert_true(ev.probe_at.len_given);
	assert_true(ev.attr.exclude_kernel);
	part_is(&ev, ev.probe_at.sym, ev.probe_at.sym_len, "_x.1");

	ev = one("mem:0x1000");
	assert_int_equal(ev.probe, EVENT_PROBE_NONE);
	expect_err("mem:a-b", -EINVAL, "event 'mem:a-b': bad address or symbol");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uprobes),
		cmocka_unit_test(test_kprobes),
		cmocka_unit_test(test_mem_symbol),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
