/* SPDX-License-Identifier: MIT */
/*
 * Kernel symbols for the symbolizer: the function symbols (t T w W) of a
 * /proc/kallsyms text, from the recording's copy or from this machine,
 * each one extending to the next higher symbol address.
 */
#include "symbols_int.h"
#include "../format/blocks.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The last symbol has no next one: give it a page. */
#define KSYM_LAST_SIZE 4096

struct kload {
	struct symbolizer *s;
	struct rawsyms r;
	size_t nonzero;
	const char *last_module;        /* interned: consecutive lines share it */
};

static int kload_one(void *ctx, const struct kallsym *k)
{
	struct kload *kl = ctx;
	struct arena *a = &kl->s->arena;
	struct rawsym rs = { 0 };
	char t = k->type;

	if (k->addr)
		kl->nonzero++;
	if (t != 't' && t != 'T' && t != 'w' && t != 'W')
		return 0;
	rs.start = k->addr;
	rs.bind = t == 'T' ? STB_GLOBAL : t == 't' ? STB_LOCAL : STB_WEAK;
	rs.type = STT_FUNC;
	rs.name = arena_strndup(a, k->name, k->name_len);
	if (k->module_len) {
		if (!kl->last_module || strncmp(kl->last_module, k->module, k->module_len) ||
		    kl->last_module[k->module_len])
			kl->last_module = arena_strndup(a, k->module, k->module_len);
		rs.aux = kl->last_module;
		if (!rs.aux)
			return -ENOMEM;
	}
	if (!rs.name)
		return -ENOMEM;
	return rawsyms_push(&kl->r, &rs);
}

static int kernel_load(struct symbolizer *s, const uint8_t *text, size_t len, bool warn,
		       struct err *err)
{
	struct kload kl = { .s = s };
	struct ksyms *k = &s->kernel;
	size_t nr;
	int ret;

	free(k->tab.v);
	free(k->module);
	memset(k, 0, sizeof(*k));
	ret = kallsyms_walk(text, len, kload_one, &kl, &nr, err);
	if (ret) {
		free(kl.r.v);
		k->state = -1;
		return ret == -ENOMEM ? err_set(err, ret, "kallsyms: out of memory") : ret;
	}
	if (!kl.nonzero) {
		free(kl.r.v);
		k->state = -1;
		if (warn)
			sym_warn(s, "kernel symbol addresses are hidden (all zero, see "
				 "/proc/sys/kernel/kptr_restrict): kernel addresses stay unresolved");
		return 0;
	}
	/* sizes: up to the next symbol (rawsyms_finish); the last one gets a page */
	ret = rawsyms_finish(&kl.r, &k->tab, &k->module);
	if (ret) {
		k->state = 0;
		return err_set(err, ret, "kallsyms: out of memory");
	}
	if (k->tab.n && !k->tab.v[k->tab.n - 1].size)
		k->tab.v[k->tab.n - 1].size = KSYM_LAST_SIZE;
	k->state = 1;
	return 0;
}

int symbolizer_load_kallsyms(struct symbolizer *s, const uint8_t *text, size_t len,
			     struct err *err)
{
	kernel_prefetch_drop(s);        /* the recording's copy wins */
	return kernel_load(s, text, len, true, err);
}

/* Read a /proc file (size 0 in stat) to its end. */
static uint8_t *read_all(const char *path, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	uint8_t *buf = malloc(cap), *nb;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf)
		goto fail;
	for (;;) {
		ssize_t r;

		if (n == cap) {
			if (cap > ((size_t)1 << 30) || !(nb = realloc(buf, cap * 2)))
				goto fail;
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

static void *prefetch_main(void *arg)
{
	struct symbolizer *s = arg;

	s->kernel.pf_text = read_all(s->kallsyms_path, &s->kernel.pf_len);
	return NULL;
}

int symbolizer_prefetch_kallsyms(struct symbolizer *s)
{
	if (s->kernel.state || s->kernel.prefetching)
		return 0;
	if (pthread_create(&s->kernel.prefetch, NULL, prefetch_main, s))
		return 0;       /* read later, when needed */
	s->kernel.prefetching = true;
	return 0;
}

/* Wait for the prefetch; its text (or NULL) and length. */
static uint8_t *prefetch_join(struct symbolizer *s, size_t *len)
{
	uint8_t *text;

	if (!s->kernel.prefetching)
		return NULL;
	pthread_join(s->kernel.prefetch, NULL);
	s->kernel.prefetching = false;
	text = s->kernel.pf_text;
	*len = s->kernel.pf_len;
	s->kernel.pf_text = NULL;
	return text;
}

void kernel_prefetch_drop(struct symbolizer *s)
{
	size_t len;

	free(prefetch_join(s, &len));
}

static int kernel_ensure(struct symbolizer *s)
{
	struct err err = { 0 };
	uint8_t *text;
	size_t len = 0;
	int ret;

	if (s->kernel.state)
		return 0;
	if (s->kernel.prefetching)
		text = prefetch_join(s, &len);
	else
		text = read_all(s->kallsyms_path, &len);
	if (!text) {
		s->kernel.state = -1;
		sym_warn(s, "cannot read %s: kernel addresses stay unresolved", s->kallsyms_path);
		return 0;
	}
	ret = kernel_load(s, text, len, true, &err);
	free(text);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		s->kernel.state = -1;
		sym_warn(s, "%s: %s: kernel addresses stay unresolved", s->kallsyms_path, err.msg);
	}
	return 0;
}

int symbolizer_kernel_lookup(struct symbolizer *s, uint64_t addr, struct sym_info *out,
			     const char **module)
{
	const struct sym *sym = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	out->addr = addr;
	if (module)
		*module = NULL;
	ret = kernel_ensure(s);
	if (ret)
		return ret;
	s->stats.lookups++;
	if (s->kernel.state == 1)
		sym = symtab_find(&s->kernel.tab, addr);
	if (!sym) {
		s->stats.unresolved++;
		return 0;
	}
	out->name = sym->name;
	out->start = sym->start;
	out->size = sym->size;
	if (module)
		*module = s->kernel.module[sym - s->kernel.tab.v];
	return 0;
}
