/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the exports' writers on hand-made stacks: JSON strings
 * (report/export/json.c), the collapsed lines of --folded (report/export/folded.c), the
 * speedscope file (report/export/speedscope.c) and the flame graph tree in the
 * page's data (report/export/flame.c). The end-to-end tests (prep_exports.sh,
 * prep_flamegraph.sh) run them on real recordings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/export/flame.h"
#include "report/export/folded.h"
#include "report/export/json.h"
#include "report/export/speedscope.h"
#include "report/aggregate/stacks.h"
/* the reading's insides: test_speedscope names its events by hand */
#include "report/core/load_int.h"

/* the text a writer produced */
struct capture {
	char *text;
	size_t len;
	FILE *f;
};

static FILE *capture_open(struct capture *c)
{
	memset(c, 0, sizeof(*c));
	c->f = open_memstream(&c->text, &c->len);
	assert_non_null(c->f);
	return c->f;
}

static const char *capture_text(struct capture *c)
{
	fclose(c->f);
	return c->text;
}

static void test_json_string(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "plain", "\"plain\"" },
		{ "a\"b\\c", "\"a\\\"b\\\\c\"" },
		{ "t\tn\n\x01", "\"t\\tn\\n\\u0001\"" },
		{ "</script>&", "\"\\u003c/script\\u003e\\u0026\"" },
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },              /* UTF-8 kept */
		{ "x\xffy", "\"x\\ufffdy\"" },                      /* not UTF-8 */
		{ "\xc0\x80", "\"\\ufffd\\ufffd\"" },               /* overlong */
		{ "end\xe2\x82", "\"end\\ufffd\\ufffd\"" },         /* cut short */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },    /* a surrogate */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct capture c;

		json_string(capture_open(&c), cases[i].in);
		assert_string_equal(capture_text(&c), cases[i].out);
		free(c.text);
	}
}

static void test_folded_parse(void **state)
{
	struct folded_opts o = { 0 };
	struct err err = { 0 };

	(void)state;
	assert_int_equal(folded_parse(NULL, &o, &err), 0);
	assert_int_equal(folded_parse("period,tid,kernel,inline", &o, &err), 0);
	assert_true(o.period && o.tid && o.kernel_mark && o.inline_mark && !o.pid && !o.no_comm);
	assert_int_equal(folded_parse("count,no-comm", &o, &err), 0);
	assert_true(!o.period && o.no_comm);
	assert_true(folded_parse("period,flat", &o, &err) < 0);
	assert_non_null(strstr(err.msg, "'flat'"));
}

/* ---- hand-made stacks ---------------------------------------------------------- */

static struct thread t1 = { .pid = 10, .tid = 10, .comm = "my app" };
static struct thread t2 = { .pid = 10, .tid = 11, .comm = "my app" };
static struct dso exe = { .path = (char *)"/bin/app", .short_name = "app" };
static struct dso kern = { .path = (char *)"[kernel.kallsyms]_text", .short_name = "[kernel.kallsyms]",
			   .kernel = true };
static struct sframe frames[] = {
	{ .name = "main", .dso = &exe, .kind = SF_USER, .file = "app.c", .line = 3 },
	{ .name = "f;g", .dso = &exe, .kind = SF_USER },
	{ .name = "k", .dso = &kern, .kind = SF_KERNEL },
	{ .name = "i", .dso = &exe, .kind = SF_INLINE },
};
static uint32_t ids[] = { 0, 1,   0, 2,   0, 1,   0, 1, 3,   0 };
static struct sstack sstacks[] = {
	{ .thread = &t1, .comm = "my app", .first = 0, .nr = 2, .count = 2, .period = 20 },
	{ .thread = &t1, .comm = "my app", .first = 2, .nr = 2, .count = 1, .period = 10 },
	{ .thread = &t2, .comm = "my app", .first = 4, .nr = 2, .count = 1, .period = 10 },
	{ .thread = &t2, .comm = "my app", .first = 6, .nr = 3, .count = 3, .period = 30 },
	{ .thread = &t2, .comm = "my app", .first = 9, .nr = 1, .count = 1, .period = 10 },
};

static void hand_made(struct stacks *s)
{
	memset(s, 0, sizeof(*s));
	s->frames = frames;
	s->nr_frames = sizeof(frames) / sizeof(frames[0]);
	s->ids = ids;
	s->nr_ids = sizeof(ids) / sizeof(ids[0]);
	s->stacks = sstacks;
	s->nr_stacks = sizeof(sstacks) / sizeof(sstacks[0]);
	s->total_count = 8;
	s->total_period = 80;
}

static const char *folded(const struct folded_opts *o)
{
	static char out[1024];
	struct stacks s;
	struct capture c;

	hand_made(&s);
	assert_int_equal(folded_write(capture_open(&c), &s, o), 0);
	snprintf(out, sizeof(out), "%s", capture_text(&c));
	free(c.text);
	return out;
}

static void test_folded_write(void **state)
{
	struct folded_opts o = { 0 };

	(void)state;
	/* one line per text (the two threads' main;f;g merge), sorted, ';' in
	 * a name made ':', spaces in the comm '_' */
	assert_string_equal(folded(&o), "my_app;main 1\n"
					"my_app;main;f:g 3\n"
					"my_app;main;f:g;i 3\n"
					"my_app;main;k 1\n");
	o.period = o.kernel_mark = o.inline_mark = o.tid = true;
	assert_string_equal(folded(&o), "my_app-10/10;main;f:g 20\n"
					"my_app-10/10;main;k_[k] 10\n"
					"my_app-10/11;main 10\n"
					"my_app-10/11;main;f:g 10\n"
					"my_app-10/11;main;f:g;i_[i] 30\n");
	memset(&o, 0, sizeof(o));
	o.no_comm = true;
	assert_string_equal(folded(&o), "main 1\nmain;f:g 3\nmain;f:g;i 3\nmain;k 1\n");
}

static void test_speedscope(void **state)
{
	static struct load l;
	struct stacks s;
	struct capture c;
	const char *t;

	(void)state;
	l.events[0] = "cpu-clock";
	l.nr_events = 1;
	hand_made(&s);
	assert_int_equal(speedscope_write(capture_open(&c), &l, &s, "in.data", "prep"), 0);
	t = capture_text(&c);
	/* tid 11 weighs 50, tid 10 weighs 30: tid 11 first */
	assert_non_null(strstr(t, "{\"type\":\"sampled\",\"name\":\"my app 10/11 cpu-clock\","
				  "\"unit\":\"nanoseconds\",\"startValue\":0,\"endValue\":50,\n"
				  "\"samples\":[[0,1],[0,1,3],[0]],\n\"weights\":[10,30,10]}"));
	assert_non_null(strstr(t, "\"name\":\"my app 10/10 cpu-clock\""));
	assert_true(strstr(t, "10/11") < strstr(t, "10/10"));
	assert_non_null(strstr(t, "{\"name\":\"main\",\"file\":\"app.c\",\"line\":3}"));
	assert_non_null(strstr(t, "{\"name\":\"k\",\"file\":\"[kernel.kallsyms]\"}"));
	assert_non_null(strstr(t, "{\"name\":\"f;g\",\"file\":\"/bin/app\"}"));
	free(c.text);
	l.events[0] = "page-faults";
	assert_int_equal(speedscope_write(capture_open(&c), &l, &s, "in.data", "prep"), 0);
	assert_non_null(strstr(capture_text(&c), "\"unit\":\"none\""));
	free(c.text);
	/* a thread sampled before it named itself: the profile has its last name */
	sstacks[2].comm = "app-early";
	assert_int_equal(speedscope_write(capture_open(&c), &l, &s, "in.data", "prep"), 0);
	sstacks[2].comm = "my app";
	t = capture_text(&c);
	assert_non_null(strstr(t, "\"name\":\"my app 10/11 page-faults\""));
	assert_null(strstr(t, "app-early"));
	free(c.text);
}

static void test_flame_tree(void **state)
{
	struct flame_opts o = { .no_comm = true, .title = "T<1>" };
	struct stacks s;
	struct capture c;
	const char *t;

	(void)state;
	hand_made(&s);
	assert_int_equal(flame_write_html(capture_open(&c), &s, &o), 0);
	t = capture_text(&c);
	/* all(8) > main(8) > f;g(6) > i(3), k(1): preorder, kids by name */
	assert_non_null(strstr(t, "\"names\":[\"main\",\"f;g\",\"k\",\"i\",\"all\"]"));
	assert_non_null(strstr(t, "\"label\":[4,0,1,3,2]"));
	assert_non_null(strstr(t, "\"value\":[8,8,6,3,1]"));
	assert_non_null(strstr(t, "\"depth\":[0,1,2,3,2]"));
	assert_non_null(strstr(t, "\"title\":\"T\\u003c1\\u003e\""));
	assert_null(strstr(t, "<!--PREC-DATA-->"));
	assert_non_null(strstr(t, "</html>"));
	free(c.text);
	o.no_comm = false;
	assert_int_equal(flame_write_svg(capture_open(&c), &s, &o), 0);
	t = capture_text(&c);
	assert_non_null(strstr(t, "<title>my app (8 samples, 100.00%)</title>"));
	assert_non_null(strstr(t, "<title>i (3 samples, 37.50%)</title>"));
	assert_non_null(strstr(t, ">T&lt;1&gt;</text>"));
	free(c.text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_string),
		cmocka_unit_test(test_folded_parse),
		cmocka_unit_test(test_folded_write),
		cmocka_unit_test(test_speedscope),
		cmocka_unit_test(test_flame_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
