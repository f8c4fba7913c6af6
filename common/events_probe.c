/* SPDX-License-Identifier: MIT */
/*
 * Probe events without tracefs (events.h has the grammar): u:PATH:SYM[+OFF]
 * and ur: through the uprobe PMU, k:SYM[+OFF] and kr: through the kprobe
 * PMU, both found in sysfs; and the symbol form of mem: breakpoints. Only
 * the spelling is checked here and the PMU's type read: symbols are
 * resolved by the recorder (record/probes.c), which has the ELF readers.
 */
#define EVENTS_INTERNAL
#include "events.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define PMU_ROOT	"/sys/bus/event_source/devices"

bool events__is_probe(struct span head)
{
	return span_eq(head, "u") || span_eq(head, "ur") || span_eq(head, "k") ||
	       span_eq(head, "kr");
}

/* A symbol: no blank, no ':', ',' '/' or '+', not empty. */
static bool valid_symbol(struct span s)
{
	if (!s.n)
		return false;
	for (size_t i = 0; i < s.n; i++) {
		unsigned char c = (unsigned char)s.p[i];

		if (!isgraph(c) || c == ':' || c == ',' || c == '/' || c == '+')
			return false;
	}
	return true;
}

/* <root>/<pmu>/type, and the bit of <root>/<pmu>/format/retprobe
 * ("config:N"); -ENOENT when there is no such PMU. */
static int probe_pmu(const struct event_env *env, const char *pmu, uint32_t *type,
		     unsigned *retbit)
{
	const char *root = env && env->pmu_root ? env->pmu_root : PMU_ROOT;
	char path[PATH_MAX];
	unsigned long long t = 0;
	unsigned bit = 0;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/%s/type", root, pmu);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT || errno == ENOTDIR ? -ENOENT : -errno;
	n = fscanf(f, "%llu", &t);
	fclose(f);
	if (n != 1 || t > UINT32_MAX)
		return -EINVAL;
	*type = (uint32_t)t;
	*retbit = 0;
	snprintf(path, sizeof(path), "%s/%s/format/retprobe", root, pmu);
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "config:%u", &bit) == 1 && bit < 64)
			*retbit = bit;
		fclose(f);
	}
	return 0;
}

/* SYM[+OFF] into it->ev.probe_at; the text's offsets are from it->text. */
static int probe_symbol(struct item *it, struct span s, struct err *err)
{
	const char *plus = memchr(s.p, '+', s.n);
	struct span sym = { s.p, plus ? (size_t)(plus - s.p) : s.n };
	struct event_probe_at *at = &it->ev.probe_at;

	if (!valid_symbol(sym))
		return err_set(err, -EINVAL, "event '%.*s': bad or missing symbol",
			       SPAN(it->text));
	if (plus && parse_u64((struct span){ plus + 1, s.n - sym.n - 1 }, &at->off))
		return err_set(err, -EINVAL, "event '%.*s': bad offset after '+'",
			       SPAN(it->text));
	at->sym = (uint16_t)(sym.p - it->text.p);
	at->sym_len = (uint16_t)sym.n;
	return 0;
}

/* u:PATH:SYM[+OFF][:mods], ur:..., k:SYM[+OFF][:mods], kr:... */
int events__probe(const struct event_env *env, struct item *it, struct span head,
		  struct span rest, struct err *err)
{
	bool user = head.p[0] == 'u', ret_probe = head.n == 2;
	const char *pmu = user ? "uprobe" : "kprobe";
	struct perf_event_attr *a = &it->ev.attr;
	const char *colon;
	unsigned retbit;
	int ret;

	if (user) {
		colon = memchr(rest.p, ':', rest.n);
		if (!colon || colon == rest.p)
			return err_set(err, -EINVAL, "event '%.*s': expected %.*s:PATH:SYMBOL[+OFF]",
				       SPAN(it->text), SPAN(head));
		it->ev.probe_at.path = (uint16_t)(rest.p - it->text.p);
		it->ev.probe_at.path_len = (uint16_t)(colon - rest.p);
		rest = (struct span){ colon + 1, rest.n - it->ev.probe_at.path_len - 1 };
	}
	colon = memchr(rest.p, ':', rest.n);
	ret = probe_symbol(it, (struct span){ rest.p, colon ? (size_t)(colon - rest.p) : rest.n },
			   err);
	if (ret)
		return ret;
	if (colon) {
		it->has_mods = true;
		it->mods = (struct span){ colon + 1, rest.n - (size_t)(colon + 1 - rest.p) };
	}
	ret = probe_pmu(env, pmu, &a->type, &retbit);
	if (ret == -ENOENT)
		return err_set(err, -ENOENT, "%.*s: this kernel has no %s PMU (%s/%s)",
			       SPAN(it->text), pmu,
			       env && env->pmu_root ? env->pmu_root : PMU_ROOT, pmu);
	if (ret)
		return err_set(err, ret, "event '%.*s': cannot read the %s PMU's type: %s",
			       SPAN(it->text), pmu, strerror(-ret));
	if (ret_probe)
		a->config |= 1ULL << retbit;
	if (!user)
		a->config2 = it->ev.probe_at.off;      /* kprobe_addr: the offset */
	it->ev.probe = user ? (ret_probe ? EVENT_PROBE_UR : EVENT_PROBE_U) :
		       (ret_probe ? EVENT_PROBE_KR : EVENT_PROBE_K);
	it->ev.probe_at.resolved = !user;
	return 0;       /* the recorder samples every hit unless -c/-F, as tracepoints */
}

/* mem:SYM: a C identifier (a number was tried first). */
int events__bp_symbol(struct item *it, struct span sym, struct err *err)
{
	if (!sym.n || isdigit((unsigned char)sym.p[0]))
		return err_set(err, -EINVAL, "event '%.*s': bad address", SPAN(it->text));
	for (size_t i = 0; i < sym.n; i++) {
		if (!isalnum((unsigned char)sym.p[i]) && sym.p[i] != '_' && sym.p[i] != '.')
			return err_set(err, -EINVAL, "event '%.*s': bad address or symbol",
				       SPAN(it->text));
	}
	it->ev.probe = EVENT_PROBE_MEM_SYM;
	it->ev.probe_at.sym = (uint16_t)(sym.p - it->text.p);
	it->ev.probe_at.sym_len = (uint16_t)sym.n;
	return 0;
}
