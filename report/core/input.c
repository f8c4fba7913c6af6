/* SPDX-License-Identifier: MIT */
/* The standard input as an input file; see input.h. */
#include "input.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "format/container.h"
#include "format/perfdata.h"

#define READ_CHUNK (1u << 20)

/* stdin is one per process: so is what was read of it */
static struct {
	bool done;
	int ret;
	struct err err;
	const void *data;
	size_t len;
	struct buf b;
} in;

bool input_is_stdin(const char *path)
{
	return path && !strcmp(path, "-");
}

/* A regular file on stdin, from where it stands: 1 if mapped, 0 if not. */
static int map_regular(void)
{
	struct stat st;
	off_t at = lseek(STDIN_FILENO, 0, SEEK_CUR);
	void *map;

	if (fstat(STDIN_FILENO, &st) || !S_ISREG(st.st_mode) || at < 0 || at >= st.st_size)
		return 0;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, STDIN_FILENO, 0);
	if (map == MAP_FAILED)
		return 0;
	in.data = (const uint8_t *)map + at;
	in.len = (size_t)(st.st_size - at);
	return 1;
}

static int read_all(struct err *err)
{
	for (;;) {
		ssize_t got;

		if (buf_reserve(&in.b, READ_CHUNK))
			return err_set(err, -ENOMEM, "out of memory reading the standard input");
		got = read(STDIN_FILENO, in.b.data + in.b.len, READ_CHUNK);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return err_set(err, -errno, "cannot read the standard input: %s",
				       err_str(-errno));
		if (!got)
			break;
		in.b.len += (size_t)got;
	}
	in.data = in.b.data;
	in.len = in.b.len;
	return 0;
}

static int gather(struct err *err)
{
	int ret;

	if (isatty(STDIN_FILENO))
		return err_set(err, -EINVAL, "-i -: the standard input is a terminal: pipe a "
			       "recording into it (prec -o - -- cmd | prep -i -)");
	if (map_regular())
		return 0;
	ret = read_all(err);
	if (!ret && !in.len)
		ret = err_set(err, -PREC_EFORMAT, "-i -: the standard input is empty (no recording "
			      "came through the pipe)");
	return ret;
}

/* Either magic number, so that one message covers every command. */
static int check_magic(struct err *err)
{
	if (perfdata_magic(in.data, in.len) ||
	    (in.len >= 8 && !memcmp(in.data, CONTAINER_MAGIC, 8)))
		return 0;
	return err_set(err, -PREC_EFORMAT, "-i -: the standard input is not a perf.data stream, "
		       "nor a prec.data one (no magic number)");
}

int input_stdin(const void **data, size_t *len, struct err *err)
{
	if (!in.done) {
		in.ret = gather(&in.err);
		if (!in.ret)
			in.ret = check_magic(&in.err);
		in.done = true;
	}
	if (in.ret) {
		if (err)
			*err = in.err;
		return in.ret;
	}
	*data = in.data;
	*len = in.len;
	return 0;
}
