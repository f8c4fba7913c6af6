/* SPDX-License-Identifier: MIT */
#include "opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int opt_name(const struct opt *o, char *buf, size_t len)
{
	if (o->long_name)
		return snprintf(buf, len, "--%s", o->long_name);
	return snprintf(buf, len, "-%c", o->short_name);
}

static int set_value(const struct opt *o, const char *arg, bool negated, struct err *err)
{
	char name[64];
	char *end;
	long v;

	opt_name(o, name, sizeof(name));
	switch (o->type) {
	case OPT_FLAG:
		*(bool *)o->dest = !negated;
		return 0;
	case OPT_COUNT:
		(*(int *)o->dest)++;
		return 0;
	case OPT_INT:
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || end == arg || *end)
			return err_set(err, -EINVAL, "option %s: '%s' is not a number", name, arg);
		if (v < o->min || v > o->max)
			return err_set(err, -EINVAL, "option %s: %ld is not in %ld..%ld", name, v,
				       o->min, o->max);
		*(long *)o->dest = v;
		return 0;
	case OPT_STRING:
		*(const char **)o->dest = arg;
		return 0;
	case OPT_LIST:
		return o->cb(o, arg, err);
	case OPT_END:
		break;
	}
	return err_set(err, -EINVAL, "option %s: bad option table", name);
}

/* An optional value may also come as the next argument when it is plainly
 * one: a number within the option's range (`-z 0` as well as `-z0`). */
static bool next_is_value(const struct opt *o, int argc, char **argv, int i)
{
	char *end;
	long v;

	if (i + 1 >= argc || !argv[i + 1][0])
		return false;
	/* a callback's optional value: anything that is not an option */
	if (o->type == OPT_LIST)
		return argv[i + 1][0] != '-';
	v = strtol(argv[i + 1], &end, 10);
	return !*end && v >= o->min && v <= o->max;
}

static bool takes_arg(const struct opt *o)
{
	return o->type == OPT_INT || o->type == OPT_STRING || o->type == OPT_LIST;
}

static const struct opt *find_long(const struct opt *t, const char *name, size_t len)
{
	for (; t->type != OPT_END; t++)
		if (t->long_name && strlen(t->long_name) == len && !strncmp(t->long_name, name, len))
			return t;
	return NULL;
}

static const struct opt *find_negated(const struct opt *t, const char *name, size_t len)
{
	if (len <= 3 || strncmp(name, "no-", 3))
		return NULL;
	for (; t->type != OPT_END; t++)
		if (t->long_name && (t->flags & OPT_NEGATABLE) && strlen(t->long_name) == len - 3 &&
		    !strncmp(t->long_name, name + 3, len - 3))
			return t;
	return NULL;
}

static int parse_long(const struct opt *table, int argc, char **argv, int *i, struct err *err)
{
	const char *name = argv[*i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	bool negated = false;
	const struct opt *o = find_long(table, name, len);

	if (!o) {
		o = find_negated(table, name, len);
		negated = o != NULL;
	}
	if (!o)
		return err_set(err, -EINVAL, "unknown option '--%.*s'", (int)len, name);
	if (!takes_arg(o)) {
		if (eq)
			return err_set(err, -EINVAL, "option '--%s' takes no value", o->long_name);
		return set_value(o, NULL, negated, err);
	}
	if (eq)
		return set_value(o, eq + 1, false, err);
	if ((o->flags & OPT_OPTARG) && !next_is_value(o, argc, argv, *i)) {
		if (o->type == OPT_LIST)
			return o->cb(o, NULL, err);
		*(long *)o->dest = o->def;
		return 0;
	}
	if (*i + 1 >= argc)
		return err_set(err, -EINVAL, "option '--%s' needs a value (%s)", o->long_name,
			       o->argname ? o->argname : "VALUE");
	return set_value(o, argv[++*i], false, err);
}

static int parse_short(const struct opt *table, int argc, char **argv, int *i, struct err *err)
{
	for (const char *p = argv[*i] + 1; *p; p++) {
		const struct opt *o = table;
		int ret;

		while (o->type != OPT_END && o->short_name != *p)
			o++;
		if (o->type == OPT_END)
			return err_set(err, -EINVAL, "unknown option '-%c'", *p);
		if (!takes_arg(o)) {
			ret = set_value(o, NULL, false, err);
			if (ret)
				return ret;
			continue;
		}
		if (p[1])
			return set_value(o, p + 1, false, err);
		if ((o->flags & OPT_OPTARG) && !next_is_value(o, argc, argv, *i)) {
			if (o->type == OPT_LIST)
				return o->cb(o, NULL, err);
			*(long *)o->dest = o->def;
			return 0;
		}
		if (*i + 1 >= argc)
			return err_set(err, -EINVAL, "option '-%c' needs a value (%s)", *p,
				       o->argname ? o->argname : "VALUE");
		return set_value(o, argv[++*i], false, err);
	}
	return 0;
}

int opts_parse(const struct opt *table, int argc, char **argv, struct err *err)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int ret;

		if (!strcmp(a, "--"))
			return i + 1;
		if (a[0] != '-' || !a[1])
			return i;
		ret = a[1] == '-' ? parse_long(table, argc, argv, &i, err)
				  : parse_short(table, argc, argv, &i, err);
		if (ret)
			return ret;
	}
	return i;
}

void opts_usage(FILE *f, const char *usage_line, const struct opt *table)
{
	fprintf(f, "usage: %s\n\n", usage_line);
	for (const struct opt *o = table; o->type != OPT_END; o++) {
		char left[80];
		int n = 0;

		n += snprintf(left + n, sizeof(left) - (size_t)n, "    ");
		if (o->short_name)
			n += snprintf(left + n, sizeof(left) - (size_t)n, "-%c%s", o->short_name,
				      o->long_name ? ", " : "");
		else
			n += snprintf(left + n, sizeof(left) - (size_t)n, "    ");
		if (o->long_name)
			n += snprintf(left + n, sizeof(left) - (size_t)n, "--%s%s",
				      (o->flags & OPT_NEGATABLE) ? "[no-]" : "", o->long_name);
		if (takes_arg(o) && o->argname && n < (int)sizeof(left))
			snprintf(left + n, sizeof(left) - (size_t)n,
				 (o->flags & OPT_OPTARG) ? "[=<%s>]" : " <%s>", o->argname);
		fprintf(f, "%-32s %s\n", left, o->help);
	}
}

int opts_parse_command(const struct opt *table, int argc, char **argv, const char *prog,
		       const char *usage_line, const bool *help)
{
	struct err err = { 0 };
	int first = opts_parse(table, argc, argv, &err);

	if (first < 0) {
		fprintf(stderr, "%s: %s\n", prog, err.msg);
		opts_usage(stderr, usage_line, table);
		return 129;
	}
	if (*help) {
		opts_usage(stdout, usage_line, table);
		return 0;
	}
	if (first < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[first]);
		return 129;
	}
	return -1;
}
