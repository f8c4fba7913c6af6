/* SPDX-License-Identifier: MIT */
/*
 * The -e event-list parser; events.h has the grammar.
 *
 * The text is cut into events at commas that are neither inside a
 * pmu/.../ pair nor between '{' and '}'. Each event is resolved in a fixed
 * order: PMU syntax (a name directly followed by '/'), the builtin tables
 * (hardware, software, hw-cache, raw), u:/ur:/k:/kr: probes
 * (events_probe.c), 'mem:' breakpoints, and last
 * sys:event tracepoints. Only PMUs and tracepoints read files; they live in
 * events_pmu.c.
 *
 * Events are collected in a private vector and appended to the caller's
 * list only once the whole text has parsed, so a failure leaves it as it was.
 */
#define EVENTS_INTERNAL
#include "events.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/hw_breakpoint.h>

#include "buf.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define PRECISE_MAX	3

/* ---- builtin names: one table per family ------------------------------ */

struct sym {
	const char *name;
	uint64_t config;
};

static const struct sym hw_syms[] = {
	{ "cpu-cycles",			PERF_COUNT_HW_CPU_CYCLES },
	{ "cycles",			PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions",		PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references",		PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses",		PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions",	PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches",			PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses",		PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles",			PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend",	PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend",	PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend",	PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend",	PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles",			PERF_COUNT_HW_REF_CPU_CYCLES },
};

static const struct sym sw_syms[] = {
	{ "cpu-clock",			PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock",			PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults",		PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults",			PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults",		PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults",		PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches",		PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs",				PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations",		PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations",			PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults",		PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults",		PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy",			PERF_COUNT_SW_DUMMY },
	{ "bpf-output",			PERF_COUNT_SW_BPF_OUTPUT },
	{ "cgroup-switches",		PERF_COUNT_SW_CGROUP_SWITCHES },
};

static const struct family {
	uint32_t type;
	const struct sym *syms;
	size_t nr;
} families[] = {
	{ PERF_TYPE_HARDWARE, hw_syms, ARRAY_SIZE(hw_syms) },
	{ PERF_TYPE_SOFTWARE, sw_syms, ARRAY_SIZE(sw_syms) },
};

/* hw-cache: <cache>[-<op>][-<result>], spelled as perf spells them; the
 * first name of each row is the canonical one. Matched without case. */
#define ALIASES 6

static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX][ALIASES] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data" },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction" },
	{ "LLC", "L2" },
	{ "dTLB", "d-tlb", "Data-TLB" },
	{ "iTLB", "i-tlb", "Instruction-TLB" },
	{ "branch", "branches", "bpu", "btb", "bpc" },
	{ "node" },
};

static const char *const cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][ALIASES] = {
	{ "load", "loads", "read" },
	{ "store", "stores", "write" },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load" },
};

static const char *const cache_results[PERF_COUNT_HW_CACHE_RESULT_MAX][ALIASES] = {
	{ "refs", "Reference", "ops", "access", "accesses" },
	{ "misses", "miss" },
};

/* Which ops each cache has, as perf's evsel__is_cache_op_valid() says. */
#define OP(x)	(1u << PERF_COUNT_HW_CACHE_OP_##x)
static const unsigned cache_has_ops[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D]	= OP(READ) | OP(WRITE) | OP(PREFETCH),
	[PERF_COUNT_HW_CACHE_L1I]	= OP(READ) | OP(PREFETCH),
	[PERF_COUNT_HW_CACHE_LL]	= OP(READ) | OP(WRITE) | OP(PREFETCH),
	[PERF_COUNT_HW_CACHE_DTLB]	= OP(READ) | OP(WRITE) | OP(PREFETCH),
	[PERF_COUNT_HW_CACHE_ITLB]	= OP(READ),
	[PERF_COUNT_HW_CACHE_BPU]	= OP(READ),
	[PERF_COUNT_HW_CACHE_NODE]	= OP(READ) | OP(WRITE) | OP(PREFETCH),
};
#undef OP

/* ---- parser state -------------------------------------------------------- */

struct parser {
	const struct event_env *env;
	struct err *err;
	struct event_spec *ev;	/* events parsed so far, not yet in the list */
	size_t nr, cap;
	size_t base;		/* events already in the caller's list */
	int next_group;
};

struct group {
	struct span text;	/* "{...}:mods", for messages */
	struct span mods;
	bool has_mods;
	int id;
	bool first;
};

/* ---- small helpers --------------------------------------------------------- */

static const char *skip_ws(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* ---- builtin lookups ------------------------------------------------------- */

static bool sym_lookup(struct span name, struct perf_event_attr *a)
{
	for (size_t f = 0; f < ARRAY_SIZE(families); f++) {
		for (size_t i = 0; i < families[f].nr; i++) {
			if (span_eq(name, families[f].syms[i].name)) {
				a->type = families[f].type;
				a->config = families[f].syms[i].config;
				return true;
			}
		}
	}
	return false;
}

/* The row whose longest alias starts s and ends at '-' or the end of s. */
static int alias_match(struct span s, const char *const tab[][ALIASES],
		       size_t rows, size_t *len)
{
	int row = -1;

	*len = 0;
	for (size_t i = 0; i < rows; i++) {
		for (size_t j = 0; j < ALIASES && tab[i][j]; j++) {
			size_t l = strlen(tab[i][j]);

			if (l > *len && l <= s.n && !strncasecmp(s.p, tab[i][j], l) &&
			    (l == s.n || s.p[l] == '-')) {
				row = (int)i;
				*len = l;
			}
		}
	}
	return row;
}

/*
 * <cache>[-<op>][-<result>], and <cache>-<result>-<op> which perf also
 * takes. 1 when found, 0 when not a cache name, -EINVAL for an op the
 * cache lacks (with *cache and *op set).
 */
static int cache_lookup(struct span s, struct perf_event_attr *a, int *cache, int *op)
{
	int res = -1, i;
	size_t l;

	*op = -1;
	*cache = alias_match(s, cache_names, ARRAY_SIZE(cache_names), &l);
	if (*cache < 0)
		return 0;
	for (int k = 0; k < 2 && l < s.n; k++) {
		s.p += l + 1;
		s.n -= l + 1;
		if (*op < 0 && (i = alias_match(s, cache_ops, ARRAY_SIZE(cache_ops), &l)) >= 0)
			*op = i;
		else if (res < 0 && (i = alias_match(s, cache_results,
						      ARRAY_SIZE(cache_results), &l)) >= 0)
			res = i;
		else
			return 0;
	}
	if (l < s.n)
		return 0;
	if (*op < 0)
		*op = PERF_COUNT_HW_CACHE_OP_READ;
	if (res < 0)
		res = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	if (!(cache_has_ops[*cache] & (1u << *op)))
		return -EINVAL;
	a->type = PERF_TYPE_HW_CACHE;
	a->config = (uint64_t)*cache | (uint64_t)*op << 8 | (uint64_t)res << 16;
	return 1;
}

/* r<hex>: 1 when raw, 0 when not, -PREC_ELIMIT for over 16 digits. */
static int raw_lookup(struct span s, struct perf_event_attr *a)
{
	uint64_t v;

	if (s.n < 2 || s.p[0] != 'r')
		return 0;
	for (size_t i = 1; i < s.n; i++) {
		if (hex_digit(s.p[i]) < 0)
			return 0;
	}
	if (s.n - 1 > 16)
		return -PREC_ELIMIT;
	if (parse_digits((struct span){ s.p + 1, s.n - 1 }, 16, &v))
		return 0;
	a->type = PERF_TYPE_RAW;
	a->config = v;
	return 1;
}

static int builtin_lookup(struct parser *ps, struct item *it, struct span name)
{
	struct perf_event_attr *a = &it->ev.attr;
	int ret, cache, op;

	if (sym_lookup(name, a))
		return 1;
	ret = cache_lookup(name, a, &cache, &op);
	if (ret < 0)
		return err_set(ps->err, ret, "event '%.*s': %s has no %s events",
			       SPAN(it->text), cache_names[cache][0], cache_ops[op][0]);
	if (ret)
		return 1;
	ret = raw_lookup(name, a);
	if (ret < 0)
		return err_set(ps->err, ret, "event '%.*s': raw config longer than 16 hex digits",
			       SPAN(it->text));
	return ret;
}

/* r, w, x in any order, each at most once; 0 when s is not an access. */
static uint32_t bp_access(struct span s)
{
	uint32_t type = 0, bit;

	for (size_t i = 0; i < s.n; i++) {
		switch (s.p[i]) {
		case 'r': bit = HW_BREAKPOINT_R; break;
		case 'w': bit = HW_BREAKPOINT_W; break;
		case 'x': bit = HW_BREAKPOINT_X; break;
		default: return 0;
		}
		if (type & bit)
			return 0;
		type |= bit;
	}
	return type;
}

/* mem:<addr>[/<len>][:<rwx>][:<mods>]; the defaults are perf's. */
static int parse_bp(struct parser *ps, struct item *it, struct span rest)
{
	struct perf_event_attr *a = &it->ev.attr;
	const char *colon = memchr(rest.p, ':', rest.n);
	struct span loc = { rest.p, colon ? (size_t)(colon - rest.p) : rest.n };
	const char *slash = memchr(loc.p, '/', loc.n);
	struct span addr = { loc.p, slash ? (size_t)(slash - loc.p) : loc.n };
	uint64_t len = 0, at;

	if (parse_u64(addr, &at)) {
		int ret = events__bp_symbol(it, addr, ps->err);	/* mem:SYMBOL */

		if (ret)
			return ret;
		at = 0;
		it->ev.probe_at.len_given = slash != NULL;
	}
	a->bp_addr = at;
	if (slash && (parse_u64((struct span){ slash + 1, loc.n - addr.n - 1 }, &len) ||
		      (len != 1 && len != 2 && len != 4 && len != 8)))
		return err_set(ps->err, -EINVAL, "event '%.*s': length must be 1, 2, 4 or 8",
			       SPAN(it->text));
	if (colon) {
		struct span m = { colon + 1, rest.n - loc.n - 1 };
		const char *c2 = memchr(m.p, ':', m.n);
		struct span acc = { m.p, c2 ? (size_t)(c2 - m.p) : m.n };

		a->bp_type = bp_access(acc);
		if (a->bp_type && c2)
			m = (struct span){ c2 + 1, m.n - acc.n - 1 };
		it->has_mods = !a->bp_type || c2;
		it->mods = m;
	}
	if (!a->bp_type)
		a->bp_type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
	if (!len && it->ev.probe != EVENT_PROBE_MEM_SYM)	/* else the symbol's size */
		len = a->bp_type == HW_BREAKPOINT_X ? sizeof(long) : HW_BREAKPOINT_LEN_4;
	a->bp_len = len;
	a->type = PERF_TYPE_BREAKPOINT;
	a->sample_period = 1;
	it->ev.explicit_period = true;
	return 0;
}

/* Length of the PMU name when text is pmu/.../, else 0. */
static size_t pmu_prefix(struct span t)
{
	size_t i = 0;

	while (i < t.n && is_name_char(t.p[i]))
		i++;
	return i && i < t.n && t.p[i] == '/' ? i : 0;
}

/* ---- modifiers ------------------------------------------------------------- */

/* The modifier state perf keeps per event (see parse-events.c). */
struct mods {
	bool eu, ek, eh, eG, eH;
	bool exclude;		/* one of u/k/h was seen */
	bool exclude_gh;	/* one of G/H was seen */
	unsigned precise;
	bool sample_read;	/* S: leader sampling (PERF_SAMPLE_READ) */
};

static void mods_levels(struct mods *m)
{
	if (!m->exclude)
		m->exclude = m->eu = m->ek = m->eh = true;
}

static void mods_gh(struct mods *m)
{
	if (!m->exclude_gh)
		m->exclude_gh = m->eG = m->eH = true;
}

/* Apply the letters of s: 0, or the first unknown letter. */
static char mods_apply(struct mods *m, struct span s)
{
	for (size_t i = 0; i < s.n; i++) {
		switch (s.p[i]) {
		case 'u': mods_levels(m); m->eu = false; break;
		case 'k': mods_levels(m); m->ek = false; break;
		case 'h': mods_levels(m); m->eh = false; break;
		case 'G': mods_gh(m); m->eG = false; break;
		case 'H': mods_gh(m); m->eH = false; break;
		case 'p': m->precise++; break;
		case 'S': m->sample_read = true; break;
		default: return s.p[i];
		}
	}
	return 0;
}

static int check_mods(struct parser *ps, struct span text, struct span mods)
{
	struct mods m = { 0 };
	char bad;

	if (!mods.n)
		return err_set(ps->err, -EINVAL, "event '%.*s': empty modifier", SPAN(text));
	bad = mods_apply(&m, mods);
	if (bad)
		return err_set(ps->err, -PREC_EUNKNOWN, "event '%.*s': unknown modifier '%c'",
			       SPAN(text), bad);
	return 0;
}

/* Members keep their own spelling, with the group's letters added but S
 * (perf names {a,b}:S's members a and b). */
static int name_add_mods(struct parser *ps, struct item *it, const struct group *g)
{
	size_t len = strlen(it->ev.name), sep = !it->has_mods, n = 0;
	char add[EVENT_NAME_MAX + 1];

	for (size_t i = 0; i < g->mods.n; i++)
		if (g->mods.p[i] != 'S')
			add[n++] = g->mods.p[i];
	if (it->named || !n)
		return 0;
	if (len + sep + n > EVENT_NAME_MAX)
		return err_set(ps->err, -PREC_ELIMIT,
			       "event '%.*s': name longer than %d characters",
			       SPAN(it->text), EVENT_NAME_MAX);
	if (sep)
		it->ev.name[len++] = ':';
	memcpy(it->ev.name + len, add, n);
	it->ev.name[len + n] = '\0';
	return 0;
}

static int finish_mods(struct parser *ps, struct item *it, const struct group *g)
{
	struct perf_event_attr *a = &it->ev.attr;
	struct mods m = { 0 };
	int ret;

	if (it->has_mods) {
		ret = check_mods(ps, it->text, it->mods);
		if (ret)
			return ret;
		mods_apply(&m, it->mods);
	}
	if (g && g->has_mods) {
		mods_apply(&m, g->mods);	/* checked by parse_group */
		ret = name_add_mods(ps, it, g);
		if (ret)
			return ret;
	}
	if (m.precise > PRECISE_MAX)
		return err_set(ps->err, -EINVAL, "event '%.*s': precise level above %d",
			       SPAN(g && g->has_mods ? g->text : it->text), PRECISE_MAX);
	a->exclude_user = m.eu;
	a->exclude_kernel = m.ek;
	a->exclude_hv = m.eh;
	a->exclude_guest = m.eG;
	a->exclude_host = m.eH;
	a->precise_ip = m.precise & 3;
	it->ev.sample_read = m.sample_read;
	return 0;
}

/* ---- events, groups, lists ----------------------------------------------- */

static int parse_kind(struct parser *ps, struct item *it)
{
	struct span t = it->text;
	size_t pmu_len = pmu_prefix(t);
	const char *colon = memchr(t.p, ':', t.n);
	struct span head = { t.p, colon ? (size_t)(colon - t.p) : t.n };
	struct span rest = { t.p + t.n, 0 };
	int ret;

	if (colon)
		rest = (struct span){ colon + 1, t.n - head.n - 1 };
	if (pmu_len)
		return events__pmu(ps->env, it, pmu_len, ps->err);
	ret = builtin_lookup(ps, it, head);
	if (ret < 0)
		return ret;
	if (ret) {
		it->has_mods = colon != NULL;
		it->mods = rest;
		it->ev.is_hardware = it->ev.attr.type != PERF_TYPE_SOFTWARE;
		return 0;
	}
	if (colon && events__is_probe(head))
		return events__probe(ps->env, it, head, rest, ps->err);
	if (colon && span_eq(head, "mem"))
		return parse_bp(ps, it, rest);
	if (colon)
		return events__tracepoint(ps->env, it, head, rest, ps->err);
	return err_set(ps->err, -PREC_EUNKNOWN, "event '%.*s': unknown event name", SPAN(t));
}

static int push(struct parser *ps, const struct event_spec *ev)
{
	if (ps->base + ps->nr >= EVENT_LIST_MAX)
		return err_set(ps->err, -PREC_ELIMIT, "more than %d events", EVENT_LIST_MAX);
	if (ps->nr == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 8;
		struct event_spec *p = array_realloc(ps->ev, cap, sizeof(*p));

		if (!p)
			return err_set(ps->err, -ENOMEM, "out of memory");
		ps->ev = p;
		ps->cap = cap;
	}
	ps->ev[ps->nr++] = *ev;
	return 0;
}

static int parse_event(struct parser *ps, struct span text, const struct group *g)
{
	struct item it;
	int ret;

	if (text.n > EVENT_NAME_MAX)
		return err_set(ps->err, -PREC_ELIMIT, "event '%.32s...': longer than %d characters",
			       text.p, EVENT_NAME_MAX);
	memset(&it, 0, sizeof(it));
	it.text = text;
	it.ev.attr.size = sizeof(it.ev.attr);
	memcpy(it.ev.name, text.p, text.n);
	it.ev.group = g ? g->id : -1;
	it.ev.group_leader = g && g->first;
	ret = parse_kind(ps, &it);
	if (!ret)
		ret = finish_mods(ps, &it, g);
	if (!ret)
		ret = push(ps, &it.ev);
	return ret;
}

/*
 * Length of the event at s (which is not blank): up to the first ',', '{',
 * '}' or NUL outside a pmu/.../ pair. *open says s ended inside one.
 */
static size_t event_len(const char *s, bool *open)
{
	bool slash = false, pmu = true;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (slash) {
			slash = s[i] != '/';
			continue;
		}
		if (s[i] == '/' && pmu && i) {
			slash = true;
			pmu = false;
			continue;
		}
		if (s[i] == ',' || s[i] == '{' || s[i] == '}')
			break;
		pmu = pmu && is_name_char(s[i]);
	}
	*open = slash;
	return i;
}

/* Cut the next event at *sp; on success *sp is left at its terminator. */
static int next_event(struct parser *ps, const char **sp, struct span *ev)
{
	const char *s = skip_ws(*sp);
	bool open;
	size_t n = event_len(s, &open);

	*ev = span_trim(s, n);
	if (open)
		return err_set(ps->err, -EINVAL, "event '%.*s': missing closing '/'", SPAN(*ev));
	if (s[n] == '{' && ev->n)
		return err_set(ps->err, -EINVAL, "event '%.*s{': unexpected '{'", SPAN(*ev));
	*sp = s + n;
	return 0;
}

/* Pass one over {a,b,...}: find the '}' and check the group's modifiers. */
static int group_scan(struct parser *ps, const char *start, struct group *g,
		      const char **close)
{
	const char *s = start + 1;
	struct span ev, tail;
	int ret;

	for (;;) {
		ret = next_event(ps, &s, &ev);
		if (ret)
			return ret;
		if (*s == '{')
			return err_set(ps->err, -EINVAL, "group '%s': nested '{'", start);
		if (!*s)
			return err_set(ps->err, -EINVAL, "group '%s': missing '}'", start);
		if (!ev.n)
			return err_set(ps->err, -EINVAL, "group '%s': empty event", start);
		if (*s++ == '}')
			break;
	}
	*close = s - 1;
	ret = next_event(ps, &s, &tail);
	g->text = span_trim(start, (size_t)(s - start));
	if (!ret && (*s == '{' || *s == '}' || (tail.n && tail.p[0] != ':')))
		ret = err_set(ps->err, -EINVAL, "group '%.*s%.1s': unexpected text after '}'",
			      SPAN(g->text), s);
	if (ret || !tail.n)
		return ret;
	g->has_mods = true;
	g->mods = (struct span){ tail.p + 1, tail.n - 1 };
	return check_mods(ps, g->text, g->mods);
}

static int parse_group(struct parser *ps, const char **sp)
{
	struct group g = { .id = ps->next_group, .first = true };
	const char *s = *sp + 1, *close = NULL;
	struct span ev;
	int ret;

	ret = group_scan(ps, *sp, &g, &close);
	if (ret)
		return ret;
	ps->next_group++;
	for (;;) {
		next_event(ps, &s, &ev);	/* cannot fail: scanned */
		ret = parse_event(ps, ev, &g);
		if (ret)
			return ret;
		g.first = false;
		if (s++ == close)
			break;
	}
	*sp = g.text.p + g.text.n;
	return 0;
}

static int parse_list(struct parser *ps, const char *text)
{
	const char *s = skip_ws(text);
	struct span ev;
	int ret;

	if (!*s)
		return err_set(ps->err, -EINVAL, "empty event list");
	for (;;) {
		s = skip_ws(s);
		if (*s == '{') {
			ret = parse_group(ps, &s);
			s = skip_ws(s);
		} else {
			ret = next_event(ps, &s, &ev);
			if (!ret && *s == '}')
				ret = err_set(ps->err, -EINVAL, "event '%.*s}': unbalanced '}'",
					      SPAN(ev));
			else if (!ret && !ev.n)
				ret = err_set(ps->err, -EINVAL, "event list '%s': empty event",
					      text);
			if (!ret)
				ret = parse_event(ps, ev, NULL);
		}
		if (ret || !*s++)
			return ret;
	}
}

/* Messages quote the user's text: keep them to one printable line. */
static void msg_clean(struct err *err)
{
	if (!err)
		return;
	for (char *p = err->msg; *p; p++) {
		if (!isprint((unsigned char)*p))
			*p = '?';
	}
}

static int list_append(struct event_list *out, struct parser *ps)
{
	struct event_spec *p;

	if (!ps->nr)
		return 0;
	p = array_realloc(out->ev, out->nr + ps->nr, sizeof(*p));
	if (!p)
		return err_set(ps->err, -ENOMEM, "out of memory");
	memcpy(p + out->nr, ps->ev, ps->nr * sizeof(*p));
	out->ev = p;
	out->nr += ps->nr;
	return 0;
}

int events_parse(const char *text, const struct event_env *env,
		 struct event_list *out, struct err *err)
{
	struct parser ps = { .env = env, .err = err };
	int ret;

	if (!text || !out)
		return err_set(err, -EINVAL, "no event list");
	ps.base = out->nr;
	for (size_t i = 0; i < out->nr; i++) {
		if (out->ev[i].group >= ps.next_group)
			ps.next_group = out->ev[i].group + 1;
	}
	ret = parse_list(&ps, text);
	if (!ret)
		ret = list_append(out, &ps);
	free(ps.ev);
	if (ret)
		msg_clean(err);
	return ret;
}

void event_list_free(struct event_list *l)
{
	if (!l)
		return;
	free(l->ev);
	l->ev = NULL;
	l->nr = 0;
}

/* ---- listing the builtin names -------------------------------------------- */

static bool sym_next(const struct family *f, size_t *pos, struct event_name *out)
{
	size_t i = *pos;

	/* a row with its predecessor's config is that event's alias */
	while (i < f->nr && i && f->syms[i].config == f->syms[i - 1].config)
		i++;
	if (i >= f->nr)
		return false;
	out->type = f->type;
	out->config = f->syms[i].config;
	snprintf(out->name, sizeof(out->name), "%s", f->syms[i].name);
	out->alias = NULL;
	if (i + 1 < f->nr && f->syms[i + 1].config == out->config)
		out->alias = f->syms[i + 1].name;
	*pos = i + 1;
	return true;
}

/* perf's spelling (__evsel__hw_cache_type_op_res_name): the refs of an op
 * by its plural ("L1-dcache-loads"), misses as "L1-dcache-load-misses". */
static bool cache_next(size_t *pos, struct event_name *out)
{
	const size_t per_cache = PERF_COUNT_HW_CACHE_OP_MAX * PERF_COUNT_HW_CACHE_RESULT_MAX;

	for (size_t i = *pos; i < PERF_COUNT_HW_CACHE_MAX * per_cache; i++) {
		size_t cache = i / per_cache;
		size_t op = i % per_cache / PERF_COUNT_HW_CACHE_RESULT_MAX;
		size_t res = i % PERF_COUNT_HW_CACHE_RESULT_MAX;

		if (!(cache_has_ops[cache] & (1u << op)))
			continue;
		out->type = PERF_TYPE_HW_CACHE;
		out->config = cache | op << 8 | res << 16;
		out->alias = NULL;
		if (res == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
			snprintf(out->name, sizeof(out->name), "%s-%s", cache_names[cache][0],
				 cache_ops[op][1]);
		else
			snprintf(out->name, sizeof(out->name), "%s-%s-%s", cache_names[cache][0],
				 cache_ops[op][0], cache_results[res][0]);
		*pos = i + 1;
		return true;
	}
	return false;
}

bool events_builtin_next(uint32_t type, size_t *pos, struct event_name *out)
{
	if (type == PERF_TYPE_HW_CACHE)
		return cache_next(pos, out);
	for (size_t f = 0; f < ARRAY_SIZE(families); f++) {
		if (families[f].type == type)
			return sym_next(&families[f], pos, out);
	}
	return false;
}

const char *event_type_name(uint32_t type)
{
	static const char *const names[] = {
		[PERF_TYPE_HARDWARE] = "hardware",
		[PERF_TYPE_SOFTWARE] = "software",
		[PERF_TYPE_TRACEPOINT] = "tracepoint",
		[PERF_TYPE_HW_CACHE] = "hw-cache",
		[PERF_TYPE_RAW] = "raw",
		[PERF_TYPE_BREAKPOINT] = "breakpoint",
	};

	return type < ARRAY_SIZE(names) ? names[type] : NULL;
}
