/* SPDX-License-Identifier: MIT */
/*
 * Draining the ring buffers: copy the bytes between our tail and the
 * kernel's head into the container writer (at most two spans when the data
 * wraps), then publish the new tail. A pass takes the rings in turn, a
 * DRAIN_CHUNK of whole records from each, so that a drain kept from the CPU
 * in the middle of a pass (a loaded machine) has given every ring some room
 * back already. Only record sizes are read here; with
 * --off-cpu-thresh a pass goes through offcpu.c, which looks at its switch
 * records and switch-out samples before writing it (offcpu.h).
 */
#include "record.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "control.h"

/* The kernel publishes data_head with a release store after writing the
 * records (perf_output_put_handle); this acquire load pairs with it, so the
 * record bytes below head are visible once head is. */
static inline uint64_t ring_read_head(struct perf_event_mmap_page *pc)
{
	return __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
}

/* The kernel reads data_tail before it overwrites (perf_output_begin, with a
 * full barrier); the release store keeps our copy of the bytes before the
 * tail moves past them. */
static inline void ring_write_tail(struct perf_event_mmap_page *pc, uint64_t tail)
{
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
}

#define DRAIN_CHUNK (256u << 10)

/* Where the next piece of ring r ends: whole records from its tail, up to
 * DRAIN_CHUNK bytes (one record at least), before head. The kernel keeps
 * records 8-byte aligned, so a header never wraps; one that does, or that
 * makes no sense, ends the piece at head: the writer then says what is
 * wrong. */
static uint64_t chunk_end(const struct ring *r, const uint8_t *data, uint64_t head)
{
	uint64_t at = r->tail;

	if (head - at <= DRAIN_CHUNK)
		return head;
	while (at < head) {
		size_t off = (size_t)(at & (r->data_size - 1));
		struct perf_event_header h;

		if (r->data_size - off < sizeof(h))
			return head;
		memcpy(&h, data + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - at)
			return head;
		if (at > r->tail && at + h.size - r->tail > DRAIN_CHUNK)
			break;
		at += h.size;
	}
	return at;
}

/* Copy the next piece of ring i (up to its pass_head) and publish the new
 * tail: the bytes copied, 0 when the ring is done for this pass. */
static long ring_drain(struct session *s, size_t i, struct err *err)
{
	struct ring *r = &s->rings[i];
	struct perf_event_mmap_page *pc = r->base;
	const uint8_t *data = (const uint8_t *)r->base + (size_t)sysconf(_SC_PAGESIZE);
	uint64_t head = r->pass_head, size = head - r->tail;
	size_t start, n1;
	int ret;

	if (!size)
		return 0;
	if (size > r->data_size)
		return err_set(err, -EIO, "ring buffer of CPU %d: head %llu is %llu bytes past our tail",
			       r->cpu, (unsigned long long)head, (unsigned long long)size);
	head = chunk_end(r, data, head);
	size = head - r->tail;
	start = (size_t)(r->tail & (r->data_size - 1));
	n1 = r->data_size - start < size ? r->data_size - start : (size_t)size;
	/* --off-cpu-thresh: the pass decides what of it is written (offcpu.h) */
	if (offcpu_pass_active(s))
		ret = offcpu_pass_take(s, i, data + start, n1, data, (size_t)size - n1, err);
	else
		ret = s->writer ? container_write_records(s->writer, (uint32_t)r->cpu, data + start,
							  n1, data, (size_t)size - n1, err) : 0;
	if (!ret && s->sink)
		ret = s->sink->records(s->sink->ctx, (uint32_t)r->cpu, data + start, n1, data,
				       (size_t)size - n1, err);
	if (ret)
		return ret;
	ring_write_tail(pc, head);
	r->tail = head;
	return (long)size;
}

long session_drain(struct session *s, struct err *err)
{
	long total = 0, round;

	for (size_t i = 0; i < s->nr_rings; i++)
		if (!s->rings[i].backward)
			s->rings[i].pass_head = ring_read_head(s->rings[i].base);
	do {
		round = 0;
		for (size_t i = 0; i < s->nr_rings; i++) {
			long n = s->rings[i].backward ? 0 : ring_drain(s, i, err);

			if (n < 0)
				return n;
			round += n;
		}
		total += round;
	} while (round);
	if (total && offcpu_pass_active(s)) {
		int ret = offcpu_pass_write(s, s->writer, err);

		if (ret)
			return ret;
	}
	/* --overwrite: the samples come at the dump, older than the tracking
	 * records drained meanwhile; without round marks the reader sorts
	 * them all together (flight.c) */
	if (total && !s->opts->overwrite) {
		int ret = s->writer ? container_write_round(s->writer, err) : 0;

		if (!ret && s->sink)
			ret = s->sink->round(s->sink->ctx, err);
		if (ret)
			return ret;
	}
	s->bytes_drained += (uint64_t)total;
	return total;
}

int session_poll(struct session *s, int timeout_ms)
{
	struct pollfd pfd[258];
	size_t n = 0;
	int ret;

	/* backward rings (--overwrite) are read at a dump, not as they fill */
	for (size_t i = 0; i < s->nr_rings && n < 256; i++) {
		if (s->rings[i].backward)
			continue;
		pfd[n].fd = s->rings[i].fd;
		pfd[n].events = POLLIN;
		pfd[n].revents = 0;
		n++;
	}
	/* --control's commands end the wait too (control_record.c reads them),
	 * and prec top's keys */
	pfd[n] = (struct pollfd){ .fd = control_fd(s->control), .events = POLLIN };
	pfd[n + 1] = (struct pollfd){ .fd = s->poll_stdin ? STDIN_FILENO : -1, .events = POLLIN };
	ret = poll(pfd, n + 2, timeout_ms);
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	s->stdin_ready = s->poll_stdin && (pfd[n + 1].revents & (POLLIN | POLLHUP));
	if (ret > 0) {
		size_t hung = 0;

		s->wakeups++;
		for (size_t i = 0; i < n; i++)
			hung += !!(pfd[i].revents & POLLHUP);
		if (hung == n)
			return 1;   /* every task we followed is gone */
	}
	return 0;
}
