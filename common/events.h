/* SPDX-License-Identifier: MIT */
/*
 * The event-list parser: what a user types after -e, in perf's syntax
 * (perf-list(1), perf-record(1)), turned into perf_event_attr values.
 *
 *   list   := item { ',' item }            whitespace around items is ignored
 *   item   := event | '{' event { ',' event } '}' [ ':' mods ]
 *   event  := name [ ':' mods ]            software, hardware, hw-cache names
 *           | 'r' HEX{1,16} [ ':' mods ]   raw config
 *           | pmu '/' [ term { ',' term } ] '/' [ [':'] mods ]
 *           | sys ':' event [ ':' mods ]   tracepoint
 *           | 'mem:' addr [ '/' len ] [ ':' rwx ] [ ':' mods ]   breakpoint
 *           | 'mem:' symbol [ '/' len ] [ ':' rwx ] [ ':' mods ] on a variable
 *           | ('u' | 'ur') ':' path ':' symbol [ '+' off ] [ ':' mods ]
 *                                      uprobe (ur: return probe)
 *           | ('k' | 'kr') ':' symbol [ '+' off ] [ ':' mods ]   kprobe
 *   term   := config|config1|config2|period|freq '=' num | name '=' text
 *           | format-term [ '=' num ]      bits from <pmu>/format/<term>
 *           | event-alias                  terms from <pmu>/events/<alias>
 *   mods   := { u k h G H p S }            p up to three times
 *
 * A name before ':' that is a builtin event (cycles, cs, L1-dcache-loads,
 * r1a2b...) means modifiers follow; otherwise the text is a tracepoint.
 * Builtin names are case-sensitive except hw-cache ones, as in perf.
 *
 * Modifiers follow perf: u, k and h keep only the levels named (u: exclude
 * kernel and hv; uk: exclude hv only); G and H keep only guest or host; each
 * p raises precise_ip. Unlike perf, u and p do not also set exclude_guest.
 * S (leader sampling) sets sample_read: on a group, the recorder samples
 * only the leader and reads every member's count into each sample
 * (PERF_SAMPLE_READ); S is not added to the members' names.
 * Modifiers after a group's '}' are applied on top of each member's own
 * (so {cycles:k}:u counts both levels), and are added to the member's name
 * ("cycles:ku") unless name= gave one.
 *
 * Probes (events_probe.c) use the uprobe and kprobe PMUs of sysfs, not
 * tracefs: the type comes from <pmu>/type, the return-probe bit from
 * <pmu>/format/retprobe. The parser only checks the spelling and finds the
 * PMU; the path stays in name (probe_at says where) and the symbol is
 * resolved to a file offset (config2), and mem:SYMBOL to an address, by
 * the recorder (record/probes.c), which sets config1 to the path or symbol
 * text just for each perf_event_open. A path holds no ':' or ','.
 *
 * Ownership: struct event_list owns the array ev (malloc'ed); the caller owns
 * the struct itself, starts it zeroed ({ 0, NULL }) and releases it with
 * event_list_free(), which accepts NULL and leaves an empty list. Nothing in
 * an event_spec points anywhere: specs can be copied by value. env and text
 * are only read during the call.
 *
 * Nothing here prints or exits. Builtin names are resolved without touching
 * the file system; PMU and tracepoint names read small files under env.
 */
#ifndef PREC_COMMON_EVENTS_H
#define PREC_COMMON_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

#include "text.h"
#include "err.h"

#define EVENT_NAME_MAX   255    /* longest event spelling, without NUL */
#define EVENT_LIST_MAX   4096   /* most events in one event_list */

/* Where to look things up; NULL fields mean the system defaults. */
struct event_env {
	const char *pmu_root;   /* default "/sys/bus/event_source/devices" */
	const char *tracefs;    /* default "/sys/kernel/tracing", then
				 * "/sys/kernel/debug/tracing" */
};

/* What kind of probe an event_spec is, where name is not enough. */
enum event_probe {
	EVENT_PROBE_NONE,
	EVENT_PROBE_U,          /* u:PATH:SYM[+OFF] */
	EVENT_PROBE_UR,         /* ur:PATH:SYM[+OFF] */
	EVENT_PROBE_K,          /* k:SYM[+OFF] */
	EVENT_PROBE_KR,         /* kr:SYM[+OFF] */
	EVENT_PROBE_MEM_SYM,    /* mem:SYM: bp_addr set once resolved */
};

/* Where a probe's parts are in event_spec.name (offsets and lengths), and
 * the +OFF; path_len is 0 for kprobes and mem:SYM. */
struct event_probe_at {
	uint16_t path, path_len, sym, sym_len;
	uint64_t off;
	bool len_given;         /* mem:SYM/LEN */
	bool resolved;          /* config2 or bp_addr filled in by the recorder */
	bool at_exec;           /* mem:SYM of a PIE command: bp_addr is the
				 * link-time address until the command's exec */
	uint64_t load_vaddr;    /* then: the link-time address of its first page */
};

struct event_spec {
	/*
	 * type, config, config1, config2, exclude_user/kernel/hv/guest/host,
	 * precise_ip and size = sizeof(attr); sample_period or sample_freq
	 * and freq only when explicit_period; bp_type for breakpoints.
	 * Everything else zero: the recorder fills the sampling fields.
	 */
	struct perf_event_attr attr;
	char name[EVENT_NAME_MAX + 1];  /* as spelled, e.g. "cycles:u", or name= */
	int group;              /* -1 outside {...}; else the group's number */
	bool group_leader;      /* first member of its group */
	bool is_hardware;       /* HARDWARE, HW_CACHE, RAW or a core PMU: may
				 * be missing on a VM without a PMU */
	bool explicit_period;   /* period=/freq= given (always for breakpoints,
				 * which sample every hit as in perf) */
	uint8_t probe;          /* enum event_probe */
	struct event_probe_at probe_at;
	bool sample_read;       /* S modifier: leader sampling, PERF_SAMPLE_READ */
};

struct event_list {
	size_t nr;
	struct event_spec *ev;  /* nr entries, owned by the list */
};

/*
 * Parse text and append its events to out, so that -e can be repeated;
 * group numbers continue after the highest already in out. env may be NULL.
 * Returns 0, or a negative code with a one-line message in err: -EINVAL
 * (syntax, bad value), -PREC_EUNKNOWN (unknown name, term or modifier),
 * -ENOENT (no such PMU or tracepoint), -PREC_ELIMIT (name over
 * EVENT_NAME_MAX, list over EVENT_LIST_MAX), -ENOMEM or another -errno
 * from reading sysfs. On failure out is left as it was on entry.
 */
int events_parse(const char *text, const struct event_env *env,
		 struct event_list *out, struct err *err);

void event_list_free(struct event_list *l);

/* "hardware", "software", "tracepoint", "hw-cache", "raw", "breakpoint", or
 * NULL for dynamic PMU types. The string is static. */
const char *event_type_name(uint32_t type);

/* ---- what the parser knows, for listings (prec list) ------------------ */

/* One builtin event, as perf lists it. */
struct event_name {
	uint32_t type;          /* PERF_TYPE_HARDWARE, _SOFTWARE or _HW_CACHE */
	uint64_t config;
	char name[48];          /* "cpu-cycles", "L1-dcache-load-misses" */
	const char *alias;      /* the other name ("cycles"), or NULL; static */
};

/*
 * The builtin events of one type (PERF_TYPE_HARDWARE, _SOFTWARE or
 * _HW_CACHE), one per call, in the parser's table order: start with
 * *pos = 0; false past the last one (at once for any other type). Hardware
 * and software events come under their first name, with their alias;
 * hw-cache events under perf's names for every cache and op pair the
 * parser takes, refs ("L1-dcache-loads") then misses
 * ("L1-dcache-load-misses"). Every name and alias parses with
 * events_parse() to this type and config.
 */
bool events_builtin_next(uint32_t type, size_t *pos, struct event_name *out);

/*
 * The tracefs events folder, "<tracefs>/events", into buf: with
 * env->tracefs set, that one as it is. Otherwise the first of
 * /sys/kernel/tracing and /sys/kernel/debug/tracing that has one; when
 * neither has, tracefs is mounted at /sys/kernel/tracing first, as perf
 * does, and left mounted (this needs root). Returns 0, or -ENOENT (not
 * mounted, and mounting failed: the message says how to mount it), -EACCES
 * (mounted but not readable by this user), -ENAMETOOLONG, with the reason
 * in err.
 */
int events_tracefs(const struct event_env *env, char *buf, size_t size, struct err *err);

/* One thing an events_for_each() walk found. */
struct event_item {
	const char *group;      /* the PMU, or the tracepoint's system */
	const char *name;       /* the alias, the format term, or the tracepoint */
	const char *value;      /* the alias's terms ("event=0x04") or the
				 * format ("config:0-63"); NULL for tracepoints */
};

enum event_walk {
	EVENT_WALK_PMU_ALIASES, /* <pmu_root>/<pmu>/events/<alias>, but .scale,
				 * .unit, .per-pkg and .snapshot files */
	EVENT_WALK_PMU_FORMATS, /* <pmu_root>/<pmu>/format/<term> */
	EVENT_WALK_TRACEPOINTS, /* <tracefs>/events/<sys>/<event> with a
				 * readable id, as perf lists them */
};

/* Called once per item; a non-zero return stops the walk and is returned.
 * The strings are valid during the call only. */
typedef int (*event_item_fn)(const struct event_item *item, void *ctx);

/*
 * Walk what -e can name through the file system, sorted by group then name
 * (strcmp order), each item one that events_parse() takes ("pmu/alias/",
 * "sys:event"). Tracepoints find tracefs as events_tracefs() does (and may
 * mount it). Returns 0, fn's non-zero value, or a negative code with the
 * reason in err (-ENOENT: no such folder; -EACCES; -ENOMEM).
 */
int events_for_each(const struct event_env *env, enum event_walk what, event_item_fn fn,
		    void *ctx, struct err *err);

#ifdef EVENTS_INTERNAL
/*
 * Internal to common/events.c (lists, groups, builtin names, modifiers,
 * breakpoints) and common/events_pmu.c (PMUs and tracepoints, which read
 * sysfs and tracefs). Not API: callers never define EVENTS_INTERNAL.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

/* A piece of the input text, not NUL-terminated. */
struct span {
	const char *p;
	size_t n;
};

#define SPAN(s)		(int)(s).n, (s).p	/* for "%.*s" */

/* One event being parsed. */
struct item {
	struct span text;	/* the event as spelled, trimmed */
	struct span mods;	/* the letters after ':' (or after a PMU's '/') */
	bool has_mods;
	bool named;		/* name= was given */
	struct event_spec ev;
};

/* pmu/terms/[[:]mods]; name_len is the length of the PMU name in it->text. */
int events__pmu(const struct event_env *env, struct item *it, size_t name_len,
		struct err *err);
/* events_probe.c: u:, ur:, k:, kr: (head is one of those; rest follows
 * its ':'), and the symbol of mem:SYMBOL. */
bool events__is_probe(struct span head);
int events__probe(const struct event_env *env, struct item *it, struct span head,
		  struct span rest, struct err *err);
int events__bp_symbol(struct item *it, struct span sym, struct err *err);
/* sys:event[:mods]; sys is it->text before the first ':', rest what follows. */
int events__tracepoint(const struct event_env *env, struct item *it,
		       struct span sys, struct span rest, struct err *err);

static inline struct span span_trim(const char *p, size_t n)
{
	while (n && isspace((unsigned char)*p)) {
		p++;
		n--;
	}
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	return (struct span){ p, n };
}

static inline bool span_eq(struct span s, const char *lit)
{
	return strlen(lit) == s.n && !memcmp(s.p, lit, s.n);
}

/* The characters of PMU, term and tracepoint names. */
static inline bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/* The whole span in base 2..16: 0, -EINVAL, or -ERANGE past 64 bits. */
static inline int parse_digits(struct span s, unsigned base, uint64_t *v)
{
	uint64_t x = 0;

	if (!s.n)
		return -EINVAL;
	for (size_t i = 0; i < s.n; i++) {
		int d = hex_digit(s.p[i]);

		if (d < 0 || (unsigned)d >= base)
			return -EINVAL;
		if (__builtin_mul_overflow(x, base, &x) ||
		    __builtin_add_overflow(x, (uint64_t)d, &x))
			return -ERANGE;
	}
	*v = x;
	return 0;
}

/* The whole span as decimal or 0x hex. */
static inline int parse_u64(struct span s, uint64_t *v)
{
	if (s.n > 2 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X'))
		return parse_digits((struct span){ s.p + 2, s.n - 2 }, 16, v);
	return parse_digits(s, 10, v);
}
#endif /* EVENTS_INTERNAL */

#endif
