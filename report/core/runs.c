/* SPDX-License-Identifier: MIT */
/* The sides of a comparison; see runs.h. */
#include "runs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool exists(const char *path)
{
	return !access(path, F_OK);
}

int run_list_parse(struct run_list *r, const char *what, const char *arg, struct err *err)
{
	char *save = NULL;

	memset(r, 0, sizeof(*r));
	r->label = arg;
	if (exists(arg) || !strchr(arg, ',')) {
		if (!*arg)
			return err_set(err, -EINVAL, "%s '': an empty file name", what);
		r->path[r->nr++] = arg;
		return 0;
	}
	if (strstr(arg, ",,") || arg[0] == ',' || arg[strlen(arg) - 1] == ',')
		return err_set(err, -EINVAL, "%s '%s': an empty file name in the list", what, arg);
	r->copy = strdup(arg);
	if (!r->copy)
		return err_set(err, -ENOMEM, "out of memory");
	for (char *t = strtok_r(r->copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (r->nr == RUNS_MAX)
			return err_set(err, -EINVAL, "%s '%s': more than %d runs", what, arg, RUNS_MAX);
		r->path[r->nr++] = t;
	}
	return 0;
}

void run_list_free(struct run_list *r)
{
	if (!r)
		return;
	free(r->copy);
	memset(r, 0, sizeof(*r));
}

bool runs_defaults(bool old_given, bool new_given, const char **old, const char **new_)
{
	bool perfs = !old_given && !exists("prec.data.old") && exists("perf.data.old") &&
		     (new_given || exists("perf.data"));

	if (!old_given)
		*old = perfs ? "perf.data.old" : "prec.data.old";
	if (!new_given)
		*new_ = perfs ? "perf.data" : "prec.data";
	return perfs;
}
