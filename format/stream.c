/* SPDX-License-Identifier: MIT */
/*
 * The stream form of a container (FORMAT.md 7), made from a file that is
 * being written: the file stays the writer's (it is read with pread only),
 * and each block is copied to the output once the file holds all of it.
 * The output is written forward only (write, sendfile): a pipe, a terminal
 * or a socket will do.
 *
 * The file may be appended to by container_writer_append() while blocks are
 * forwarded: its INDEX block, which is never forwarded, is then cut off and
 * the file grows again from there. Blocks before an INDEX never change, so a
 * block is forwarded only after its header has been read and then the file
 * size (read after the header) shows the whole block; a header that does
 * not check yet is read again on the next call.
 */
#include "container.h"
#include "header.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

struct container_stream {
	int file_fd, out_fd;
	uint64_t pos;           /* file offset of the next block to forward */
	uint64_t out_bytes;     /* bytes written to out_fd */
	uint32_t next_seq;      /* seq of the block after the last forwarded */
	bool header_sent;
	bool no_sendfile;
};

static int wait_writable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	return poll(&p, 1, -1) < 0 && errno != EINTR ? -errno : 0;
}

/* A write or sendfile to the output failed: 0 to try again (interrupted,
 * or a non-blocking output that is writable again), else the error. */
static int out_failed(struct container_stream *cs, struct err *err)
{
	int e = errno;

	if (e == EINTR || (e == EAGAIN && !(e = -wait_writable(cs->out_fd))))
		return 0;
	return err_set(err, -e, "cannot write the stream: %s", err_str(-e));
}

static int out_write(struct container_stream *cs, const uint8_t *p, size_t n, struct err *err)
{
	while (n) {
		ssize_t done = write(cs->out_fd, p, n);
		int ret;

		if (done < 0) {
			if ((ret = out_failed(cs, err)))
				return ret;
			continue;
		}
		p += done;
		n -= (size_t)done;
		cs->out_bytes += (uint64_t)done;
	}
	return 0;
}

/* Copy file bytes [off, off + n) to the output: sendfile where the kernel
 * can, else through a buffer. */
static int out_copy(struct container_stream *cs, uint64_t off, uint64_t n, struct err *err)
{
	uint8_t tmp[64 << 10];

	while (n && !cs->no_sendfile) {
		off_t o = (off_t)off;
		ssize_t done = sendfile(cs->out_fd, cs->file_fd, &o, n);

		if (done < 0 && (errno == EINVAL || errno == ENOSYS)) {
			cs->no_sendfile = true;
			break;
		}
		if (done < 0) {
			int ret = out_failed(cs, err);

			if (ret)
				return ret;
			continue;
		}
		if (done == 0)
			return err_set(err, -PREC_ETRUNC, "the file ended while it was streamed");
		off += (uint64_t)done;
		n -= (uint64_t)done;
		cs->out_bytes += (uint64_t)done;
	}
	while (n) {
		size_t want = n < sizeof(tmp) ? (size_t)n : sizeof(tmp);
		ssize_t got = pread(cs->file_fd, tmp, want, (off_t)off);
		int ret;

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return err_set(err, got ? -errno : -PREC_ETRUNC, "cannot read the file to stream: %s",
				       got ? err_str(-errno) : "it ended early");
		ret = out_write(cs, tmp, (size_t)got, err);
		if (ret)
			return ret;
		off += (uint64_t)got;
		n -= (uint64_t)got;
	}
	return 0;
}

static int file_size(const struct container_stream *cs, uint64_t *size, struct err *err)
{
	struct stat st;

	if (fstat(cs->file_fd, &st) < 0)
		return err_set(err, -errno, "cannot stat the file to stream: %s", err_str(-errno));
	*size = (uint64_t)st.st_size;
	return 0;
}

/* The file's header, marked as a stream's: 1 once sent, 0 if the file does
 * not hold it yet. */
static int send_header(struct container_stream *cs, struct err *err)
{
	uint8_t hdr[CONTAINER_HEADER_SIZE];
	struct container_header h;
	int ret;

	if (pread(cs->file_fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr))
		return 0;
	ret = container_header_decode(hdr, sizeof(hdr), &h, err);
	if (ret) {
		err_prefix(err, "the file to stream");
		return ret;
	}
	h.flags |= CONTAINER_FLAG_STREAM;
	h.index_offset = 0;
	container_header_encode(&h, hdr);
	ret = out_write(cs, hdr, sizeof(hdr), err);
	if (ret)
		return ret;
	cs->header_sent = true;
	cs->pos = CONTAINER_HEADER_SIZE;
	return 1;
}

/* Forward the block at cs->pos: 1 if done, 0 if there is none, it is not
 * whole yet or it is an INDEX (whose place later blocks may take), negative
 * on failure. With `last` (the file is complete), a block that is not whole
 * is a failure. */
static int forward_one(struct container_stream *cs, bool last, struct err *err)
{
	uint8_t hdr[CONTAINER_BLOCK_HEADER_SIZE];
	struct block_header bh;
	uint64_t size = 0, end;
	ssize_t got = pread(cs->file_fd, hdr, sizeof(hdr), (off_t)cs->pos);
	int ret;

	if (got == 0)
		return 0;                       /* nothing more yet */
	if (got != (ssize_t)sizeof(hdr) || block_header_decode(hdr, &bh, true))
		goto not_yet;
	if (bh.type == BLOCK_INDEX)
		return 0;
	ret = file_size(cs, &size, err);        /* after the header: see the top */
	if (ret)
		return ret;
	end = cs->pos + CONTAINER_BLOCK_HEADER_SIZE + bh.stored_len;
	if (size < end)
		goto not_yet;
	ret = out_copy(cs, cs->pos, end - cs->pos, err);
	if (ret)
		return ret;
	cs->pos = end;
	cs->next_seq = bh.seq + 1;
	return 1;
not_yet:
	if (!last)
		return 0;
	return err_set(err, -PREC_ECORRUPT, "the file to stream has no whole block at offset %llu",
		       (unsigned long long)cs->pos);
}

int container_stream_new(struct container_stream **out, int file_fd, int out_fd,
			 struct err *err)
{
	struct container_stream *cs = calloc(1, sizeof(*cs));

	*out = cs;
	if (!cs)
		return err_set(err, -ENOMEM, "out of memory");
	cs->file_fd = file_fd;
	cs->out_fd = out_fd;
	return 0;
}

static int pump(struct container_stream *cs, bool last, struct err *err)
{
	int ret = cs->header_sent ? 1 : send_header(cs, err);

	while (ret == 1)
		ret = forward_one(cs, last, err);
	return ret;
}

int container_stream_pump(struct container_stream *cs, struct err *err)
{
	return pump(cs, false, err);
}

int container_stream_end(struct container_stream *cs, struct err *err)
{
	struct block_header bh = { .type = BLOCK_END, .codec = CODEC_STORED,
				   .raw_crc = crc32_of("", 0) };
	uint8_t hdr[CONTAINER_BLOCK_HEADER_SIZE];
	int ret = pump(cs, true, err);

	if (!ret && !cs->header_sent)
		ret = err_set(err, -PREC_ETRUNC, "the file to stream has no header");
	if (ret)
		return ret;
	/* the file is whole: what is left at cs->pos is nothing or its INDEX */
	bh.seq = cs->next_seq;
	block_header_encode(&bh, hdr);
	return out_write(cs, hdr, sizeof(hdr), err);
}

uint64_t container_stream_bytes(const struct container_stream *cs)
{
	return cs->out_bytes;
}

void container_stream_free(struct container_stream *cs)
{
	free(cs);
}
