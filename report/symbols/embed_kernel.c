/* SPDX-License-Identifier: MIT */
/* The kernel symbols a recording hit, as KALLSYMS text; see embed_kernel.h. */
#include "embed_kernel.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* One kallsyms line for the kernel symbol at addr (nothing when none). */
static int ksym_line(struct symbolizer *sz, struct buf *out, uint64_t addr, uint64_t *end)
{
	const char *module = NULL;
	struct sym_info si;
	char line[512];
	int n, ret = symbolizer_kernel_lookup(sz, addr, &si, &module);

	*end = 0;
	if (ret || !si.name)
		return ret;
	n = snprintf(line, sizeof(line), module ? "%" PRIx64 " t %s\t[%s]\n" : "%" PRIx64 " t %s\n",
		     si.start, si.name, module);
	if (n <= 0 || (size_t)n >= sizeof(line) || strchr(si.name, ' '))
		return 0;
	*end = si.start + si.size;
	return buf_append(out, line, (size_t)n);
}

int embed_kernel_hit(const struct hist *h, struct symbolizer *sz, struct buf *out)
{
	uint64_t *starts = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;

	for (size_t i = 0; !ret && i < h->nr_frames; i++) {
		const struct frame *f = &h->frames[i];
		struct sym_info si;

		if (!f->kernel)
			continue;
		ret = symbolizer_kernel_lookup(sz, f->addr, &si, NULL);
		if (ret || !si.name)
			continue;
		if (array_grow((void **)&starts, &cap, n + 1, sizeof(*starts)))
			ret = -ENOMEM;
		else
			starts[n++] = si.start;
	}
	if (n > 1)
		qsort(starts, n, sizeof(*starts), cmp_u64);
	for (size_t i = 0; !ret && i < n; i++) {
		uint64_t end, end2;

		if (i && starts[i] == starts[i - 1])
			continue;
		ret = ksym_line(sz, out, starts[i], &end);
		if (!ret && end && (i + 1 == n || starts[i + 1] != end))
			ret = ksym_line(sz, out, end, &end2);
	}
	free(starts);
	return ret;
}
