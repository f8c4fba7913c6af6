/* SPDX-License-Identifier: MIT */
/*
 * The sort keys of prep report (--sort, -F): one table, one entry per key.
 * An entry names the key, says how it fills a histogram entry's key from a
 * sample (fill), orders entries of equal periods (cmp), writes its cell
 * (text) and sizes its column (title, widths), and what the histogram must
 * do for it (source lines, the --parent match, perf's function entries).
 *
 * A new key is an enum value, its entry in sortkey.c and its functions; one
 * that needs a value struct hkey does not hold yet adds a field there.
 */
#ifndef PREC_REPORT_SORTKEY_H
#define PREC_REPORT_SORTKEY_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

/* the table's order: --help and messages list the names in it */
enum sort_key_id {
	SORT_COMM, SORT_PID, SORT_TID, SORT_DSO, SORT_SYM, SORT_SRCLINE, SORT_SRCFILE,
	SORT_CPU, SORT_SYMOFF, SORT_PERIOD, SORT_PARENT, SORT_SYM_DADDR, SORT_DSO_DADDR,
	SORT_CGROUP, SORT_PARALLELISM, SORT_NR
};

struct hist;
struct hentry;
struct hkey;
struct stack;
struct frame;

/* What a key's fill reads: one sample's stack, the frame the entry is for
 * (its source lines are read lazily, hence not const), and the stack's
 * --parent match, found once per stack. */
struct key_src {
	const struct stack *stack;
	struct frame *frame;
	const char *parent;     /* "[other]" when no caller matches; NULL unless asked */
};

/* sort_key.flags */
#define SK_RIGHT        0x1     /* the column is right-aligned */
#define SK_SYMBOL_LIKE  0x2     /* as the last column, not padded (perf's symbol columns) */
#define SK_SRC          0x4     /* its values come from DWARF source lines */
#define SK_PARENT       0x8     /* fill reads key_src.parent */
/* perf's sym key: in children mode, callers without a symbol are keyed by
 * their address as sampled, and inlined functions are entries of their own */
#define SK_FUNCTION     0x10
/* its values come from the samples' data addresses (prec -d) */
#define SK_DATA         0x20
/* its values come from the samples' parallelism (parallel.h) */
#define SK_PARALLEL     0x40

struct sort_key {
	const char *name;       /* for --sort and -F */
	const char *title;      /* the column's title */
	int min_width;          /* the column's least width; 0: its title's */
	/* an entry without a symbol widens the column to this, unless a --dso
	 * list chose the objects (perf's unresolved_col_width); 0: never */
	int unresolved_width;
	unsigned flags;         /* SK_* */
	/* the key's fields of k from one sample; NULL: a column only, that
	 * splits no entry (perf's period) */
	void (*fill)(struct hist *h, const struct key_src *src, struct hkey *k);
	/* entries of equal periods, in this key's order (perf's) */
	int (*cmp)(const struct hist *h, const struct hentry *a, const struct hentry *b);
	/* the entry's cell, cut to n bytes */
	void (*text)(const struct hist *h, const struct hentry *e, char *buf, size_t n);
	/* the width the entry needs, given its text; NULL: the text's length */
	size_t (*width)(const struct hentry *e, const char *text);
};

/* The entry of a key; valid for the program's life. */
const struct sort_key *sort_key_get(enum sort_key_id id);
/* The key named by len bytes of name: 0 with *id set, or -ENOENT. */
int sort_key_find(const char *name, size_t len, enum sort_key_id *id);
/* The names in table order, ", " between them, cut to n bytes as snprintf
 * does; returns the length of the whole list. */
size_t sort_key_names(char *buf, size_t n);
/* A comma-separated list of key names (--sort, -F) onto keys[*nr..max)
 * (names past max are checked and dropped); names that skip(ctx, name,
 * len) claims (the value fields of -F) are not keys. 0, or -EINVAL with
 * the message in err, without the option's name: "unknown sort key 'x'
 * (known: ...)", "'LIST': no sort key", "list too long". */
typedef bool (*sort_key_skip_fn)(void *ctx, const char *name, size_t len);
int sort_keys_parse(const char *list, enum sort_key_id *keys, size_t *nr, size_t max,
		    sort_key_skip_fn skip, void *ctx, struct err *err);
/* Does one of the n keys have every flag in flags? */
bool sort_keys_have(const enum sort_key_id *keys, size_t n, unsigned flags);

#endif
