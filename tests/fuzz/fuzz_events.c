/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the -e event-list parser. The input is the text after -e.
 *
 * It is parsed against a small fake sysfs and tracefs, made once under a
 * mkdtemp directory (a "cpu" PMU with format terms and an event alias, a
 * "msr" PMU, one tracepoint) and removed at exit, so that runs do not depend
 * on the machine. Each input is parsed twice into the same list, as a
 * repeated -e would be, and the results are checked: names bounded, group
 * numbers increasing, a failed parse leaving the list as it was and a
 * one-line printable message.
 */
#include <ctype.h>
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[] = "/tmp/fuzz_events.XXXXXX";
static char pmu_root[64], tracefs[64];
static struct event_env env;

static const char *const files[][2] = {
	{ "pmu/cpu/type", "4\n" },
	{ "pmu/cpu/format/event", "config:0-7\n" },
	{ "pmu/cpu/format/umask", "config:8-15\n" },
	{ "pmu/cpu/format/inv", "config:23\n" },
	{ "pmu/cpu/format/split", "config1:0-3,32-35\n" },
	{ "pmu/cpu/events/instructions", "event=0xc0,umask=0x00\n" },
	{ "pmu/cpu/events/loop", "loop\n" },
	{ "pmu/msr/type", "9\n" },
	{ "pmu/msr/format/event", "config:0-63\n" },
	{ "pmu/msr/events/tsc", "event=0x00\n" },
	{ "trace/events/sched/sched_switch/id", "316\n" },
};

static void put(const char *rel, const char *text)
{
	char path[256], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = strchr(path + sizeof(root), '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void cleanup(void)
{
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void init_once(void)
{
	if (env.pmu_root)
		return;
	if (!mkdtemp(root))
		abort();
	atexit(cleanup);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		put(files[i][0], files[i][1]);
	snprintf(pmu_root, sizeof(pmu_root), "%s/pmu", root);
	snprintf(tracefs, sizeof(tracefs), "%s/trace", root);
	env.pmu_root = pmu_root;
	env.tracefs = tracefs;
}

static void check(const struct event_list *l, size_t before, int ret, const struct err *e)
{
	int group = -1;

	if (ret) {
		if (ret > 0 || l->nr != before || !e->msg[0])
			abort();
		for (const char *p = e->msg; *p; p++) {
			if (!isprint((unsigned char)*p))
				abort();
		}
		return;
	}
	if (l->nr <= before || l->nr > EVENT_LIST_MAX)
		abort();
	for (size_t i = 0; i < l->nr; i++) {
		const struct event_spec *ev = &l->ev[i];

		if (strnlen(ev->name, sizeof(ev->name)) > EVENT_NAME_MAX ||
		    ev->attr.size != sizeof(ev->attr))
			abort();
		if (ev->group >= 0 && ev->group_leader != (ev->group > group))
			abort();
		if (ev->group < -1 || (ev->group >= 0 && ev->group < group))
			abort();
		if (ev->group >= 0)
			group = ev->group;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct event_list l = { 0, NULL };
	struct err e = { 0, "" };
	char *text = malloc(size + 1);
	size_t before;
	int ret;

	if (!text)
		return 0;
	init_once();
	memcpy(text, data, size);
	text[size] = '\0';
	for (int i = 0; i < 2; i++) {
		before = l.nr;
		e.msg[0] = '\0';
		ret = events_parse(text, &env, &l, &e);
		check(&l, before, ret, &e);
	}
	event_list_free(&l);
	free(text);
	return 0;
}
