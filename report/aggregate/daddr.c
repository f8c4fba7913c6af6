/* SPDX-License-Identifier: MIT */
/* Naming data addresses: see daddr.h. */
#include "daddr.h"

#include <errno.h>
#include <string.h>

#include "hist.h"

/* How many maps below a data address may be tried for the binary whose
 * segments (.bss) reach it: its own map, then the anonymous one of .bss
 * lies between, and a read-only one of the same file. */
#define MAPS_BACK 4

/* The index of the last map starting at or below addr, or -1. */
static long map_at_or_below(const struct maps *ms, uint64_t addr)
{
	long lo = 0, hi = (long)ms->nr - 1, found = -1;

	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;

		if (ms->m[mid].start <= addr) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

int daddr_resolve(struct machine *m, struct symbolizer *sy, const char *symfs,
		  const struct thread *t, uint64_t addr, struct daddr *out)
{
	const struct maps *ms = t && t->proc ? &t->proc->maps : NULL;
	long i = ms ? map_at_or_below(ms, addr) : -1;

	(void)m;
	memset(out, 0, sizeof(*out));
	out->vaddr = addr;
	for (long k = 0; i >= 0 && k < MAPS_BACK; i--, k++) {
		const struct map *mp = &ms->m[i];
		struct sym_info si;
		struct sym_dso *sd;
		int ret;

		if (!mp->dso || mp->dso->anon || mp->dso->identity || mp->dso->kernel)
			continue;
		sd = dso_sym(sy, symfs, mp->dso);
		if (!sd)
			return -ENOMEM;
		ret = sym_dso_lookup_data(sy, sd, addr - mp->start + mp->pgoff, &si);
		if (ret < 0)
			return ret;
		if (!ret && addr < mp->end)
			break;          /* a file of its own holds it, not a binary */
		if (!ret)
			continue;
		out->dso = mp->dso;
		out->vaddr = si.addr;
		out->sym = si.name;
		out->sym_start = si.start;
		return 0;
	}
	return 0;
}
