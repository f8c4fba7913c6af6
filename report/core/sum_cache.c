/* SPDX-License-Identifier: MIT */
/* The kept results of readings by sums; see sum_cache.h. */
#include "sum_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/hash.h"
#include "format/header.h"

#define MAGIC "prepsum1"
/* Raised whenever what a walk hands on for a file could change. */
#define VERSION 1
/* Kept files not written for this long are removed when another is. */
#define PRUNE_AGE_S (30 * 24 * 3600)

struct hdr {
	char magic[8];
	uint32_t version, tag;
	uint64_t dev, ino, size, mtime_ns, ctime_ns;
	uint64_t samples, tmin, tmax;
	uint64_t nr, body_len;
	uint32_t body_crc, pad;
};

/* An item of the body: then its len bytes, padded to 8. */
struct item {
	uint32_t len, sum;
	uint64_t count, period;
};

#define PAD8(n) (((n) + 7) & ~(size_t)7)

static void path_of(const char *dir, const struct sum_cache_key *k, char *buf, size_t n)
{
	uint64_t h = hash_u64(k->dev ^ hash_u64(k->ino ^ hash_u64(k->tag)));

	snprintf(buf, n, "%s/sums-%016llx.bin", dir, (unsigned long long)h);
}

static bool same_key(const struct hdr *h, const struct sum_cache_key *k)
{
	return h->tag == k->tag && h->dev == k->dev && h->ino == k->ino && h->size == k->size &&
	       h->mtime_ns == k->mtime_ns && h->ctime_ns == k->ctime_ns;
}

/* The items of a body that checked its CRC: 0, or -1 when they do not
 * fill it exactly. */
static int parse(struct sum_cached *c, const uint8_t *p, size_t len, uint64_t nr)
{
	size_t off = 0;

	if (nr > len / sizeof(struct item))
		return -1;
	c->v = calloc(nr + 1, sizeof(*c->v));
	if (!c->v)
		return -1;
	for (c->n = 0; c->n < nr; c->n++) {
		struct item it;

		if (len - off < sizeof(it))
			return -1;
		memcpy(&it, p + off, sizeof(it));
		off += sizeof(it);
		if (it.len < 8 || it.len > len - off || PAD8(it.len) > len - off || it.sum > 1)
			return -1;
		c->v[c->n] = (struct sum_out){ p + off, it.len, it.sum, it.count, it.period };
		off += PAD8(it.len);
	}
	return off == len ? 0 : -1;
}

int sum_cache_decode(uint8_t *file, size_t len, const struct sum_cache_key *k,
		     struct sum_cached *c)
{
	struct hdr h;

	_Static_assert(sizeof(h) == SUM_CACHE_HEADER_SIZE, "the kept file's header");
	memset(c, 0, sizeof(*c));
	c->data = file;
	if (len < sizeof(h))
		goto bad;
	memcpy(&h, file, sizeof(h));
	if (memcmp(h.magic, MAGIC, 8) || h.version != VERSION || !same_key(&h, k) ||
	    h.body_len != len - sizeof(h) || crc32_of(file + sizeof(h), h.body_len) != h.body_crc ||
	    parse(c, file + sizeof(h), h.body_len, h.nr))
		goto bad;
	c->samples = h.samples;
	c->tmin = h.tmin;
	c->tmax = h.tmax;
	return 0;
bad:
	sum_cached_free(c);
	return -1;
}

int sum_cache_load(const char *dir, const struct sum_cache_key *k, struct sum_cached *c)
{
	char path[4096];
	struct stat st;
	uint8_t *file = NULL;
	int fd;

	memset(c, 0, sizeof(*c));
	path_of(dir, k, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < SUM_CACHE_HEADER_SIZE ||
	    (uint64_t)st.st_size > SUM_CACHE_MAX || !(file = malloc((size_t)st.st_size)) ||
	    pread(fd, file, (size_t)st.st_size, 0) != (ssize_t)st.st_size) {
		close(fd);
		free(file);
		return -1;
	}
	close(fd);
	return sum_cache_decode(file, (size_t)st.st_size, k, c);
}

void sum_cached_free(struct sum_cached *c)
{
	free(c->data);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

/* Kept files of other perf.data files not written for PRUNE_AGE_S. */
static void prune(const char *dir, const char *mine)
{
	DIR *dh = opendir(dir);
	struct dirent *de;
	time_t now = time(NULL);

	if (!dh)
		return;
	while ((de = readdir(dh))) {
		struct stat st;

		if (strncmp(de->d_name, "sums-", 5) || strcmp(de->d_name + strlen(de->d_name) - 4, ".bin") ||
		    !strcmp(de->d_name, mine) || fstatat(dirfd(dh), de->d_name, &st, 0))
			continue;
		if (now - st.st_mtime > PRUNE_AGE_S)
			unlinkat(dirfd(dh), de->d_name, 0);
	}
	closedir(dh);
}

void sum_cache_store(const char *dir, const struct sum_cache_key *k, uint64_t samples,
		     uint64_t tmin, uint64_t tmax, const struct sum_out *v, size_t n)
{
	struct hdr h = { .version = VERSION, .tag = k->tag, .dev = k->dev, .ino = k->ino,
			 .size = k->size, .mtime_ns = k->mtime_ns, .ctime_ns = k->ctime_ns,
			 .samples = samples, .tmin = tmin, .tmax = tmax, .nr = n };
	static const uint8_t zeros[8];
	struct buf body = BUF_INIT;
	char path[4096], tmp[4200];
	const char *base;
	int fd, ret = 0;
	bool ok;

	for (size_t i = 0; !ret && i < n; i++) {
		struct item it = { v[i].len, v[i].sum, v[i].count, v[i].period };

		ret = buf_append(&body, &it, sizeof(it)) || buf_append(&body, v[i].p, v[i].len) ||
		      buf_append(&body, zeros, PAD8(v[i].len) - v[i].len);
		if (body.len > SUM_CACHE_MAX)
			ret = -1;
	}
	if (ret || (mkdir(dir, 0700) && errno != EEXIST))
		goto out;
	memcpy(h.magic, MAGIC, 8);
	h.body_len = body.len;
	h.body_crc = crc32_of(body.data, body.len);
	path_of(dir, k, path, sizeof(path));
	base = strrchr(path, '/') + 1;
	prune(dir, base);
	/* by thread: two readings (prep diff's) may write it at once */
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)gettid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		goto out;
	ok = fd_write_all(fd, &h, sizeof(h)) && fd_write_all(fd, body.data, body.len);
	if (close(fd) || !ok || rename(tmp, path))
		unlink(tmp);
out:
	buf_free(&body);
}
