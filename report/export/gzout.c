/* SPDX-License-Identifier: MIT */
/* A gzip file writer; see gzout.h. */
#include "gzout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

struct gzout {
	FILE *f;
	const char *path;
	z_stream z;
	bool started;           /* deflateInit2 done */
	bool regular;           /* a regular file: removed when writing fails */
	uint64_t bytes;
	uint8_t out[1 << 16];
};

int gzout_open(struct gzout **out, const char *path, int level, struct err *err)
{
	struct gzout *g = calloc(1, sizeof(*g));
	int ret = 0;

	*out = NULL;
	if (!g)
		return err_set(err, -ENOMEM, "out of memory");
	g->path = path;
	if (!strcmp(path, "-")) {
		if (isatty(STDOUT_FILENO)) {
			ret = err_set(err, -EINVAL, "not writing gzip data to a terminal: "
				      "redirect the output or give -o FILE");
			goto fail;
		}
		g->f = stdout;
		g->path = "the standard output";
	} else {
		struct stat st;

		if (!(g->f = fopen(path, "wb"))) {
			ret = err_set(err, -errno, "cannot open '%s': %s", path, strerror(errno));
			goto fail;
		}
		g->regular = !fstat(fileno(g->f), &st) && S_ISREG(st.st_mode);
	}
	/* windowBits 15 + 16: a gzip header and trailer around the deflate data */
	if (deflateInit2(&g->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		ret = err_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	g->started = true;
	*out = g;
	return 0;
fail:
	return gzout_close(g, ret, NULL, err);
}

int gzout_write(struct gzout *g, const void *data, size_t n, bool finish, struct err *err)
{
	const uint8_t *p = data;
	int zr;

	do {
		size_t chunk = n > (1u << 30) ? (1u << 30) : n;
		int flush = finish && chunk == n ? Z_FINISH : Z_NO_FLUSH;

		g->z.next_in = (Bytef *)p;
		g->z.avail_in = (uInt)chunk;
		do {
			size_t have;

			g->z.next_out = g->out;
			g->z.avail_out = sizeof(g->out);
			zr = deflate(&g->z, flush);
			if (zr == Z_STREAM_ERROR)
				return err_set(err, -EIO, "%s: compression failed", g->path);
			have = sizeof(g->out) - g->z.avail_out;
			if (have && fwrite(g->out, 1, have, g->f) != have)
				return err_set(err, -EIO, "cannot write '%s': %s", g->path, strerror(errno));
			g->bytes += have;
		} while (g->z.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
		p += chunk;
		n -= chunk;
	} while (n);
	return 0;
}

int gzout_close(struct gzout *g, int ret, uint64_t *bytes, struct err *err)
{
	if (!g)
		return ret;
	if (g->started)
		deflateEnd(&g->z);
	if (g->f == stdout) {
		if (fflush(stdout) && !ret)
			ret = err_set(err, -EIO, "cannot write the standard output: %s", strerror(errno));
	} else if (g->f) {
		if (fclose(g->f) && !ret)
			ret = err_set(err, -EIO, "cannot write '%s': %s", g->path, strerror(errno));
		if (ret && g->regular)
			unlink(g->path);
	}
	if (bytes)
		*bytes = g->bytes;
	free(g);
	return ret;
}
