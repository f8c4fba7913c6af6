/* SPDX-License-Identifier: MIT */
/*
 * prec as a flight recorder: --overwrite (backward ring buffers that the
 * kernel overwrites, read only at a dump), --switch-output (a new complete
 * file on SIGUSR2, every SIZE bytes or every TIME), --switch-max-files
 * (keep only the newest N of them) and --max-size (their option values).
 *
 * A backward ring (attr.write_backward, mapped read-only) is written by the
 * kernel from the end towards the start: data_head goes down, and the
 * newest record starts at head. From there each header.size leads to the
 * next older record, up to the size of the ring, the head of the previous
 * dump, or a zero header where the ring was never written. Output is paused
 * (PERF_EVENT_IOC_PAUSE_OUTPUT) while we read, and the records go to the
 * file oldest first, as a forward ring would have given them.
 *
 * The tasks and mappings are tracked on a forward ring of their own (a
 * dummy software event per CPU, drained as usual), so that the kernel
 * never overwrites the MMAP2 and COMM records the kept samples need.
 */
#include "record.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "common/buf.h"
#include "synth.h"

/* ---- option values ---------------------------------------------------- */

static int unit_shift(char c)
{
	switch (c) {
	case 'b': case 'B': return 0;
	case 'k': case 'K': return 10;
	case 'm': case 'M': return 20;
	case 'g': case 'G': return 30;
	default: return -1;
	}
}

int flight_parse_size(const char *arg, uint64_t *bytes)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	if (!arg || *arg < '0' || *arg > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg)
		return -EINVAL;
	if (*end) {
		shift = unit_shift(*end);
		if (shift < 0 || end[1])
			return -EINVAL;
	}
	if (!v || v > (~0ULL >> shift))
		return -EINVAL;
	*bytes = (uint64_t)v << shift;
	return 0;
}

/* "30s", "5m", "1h", "1d" (perf's units; fractions too: "0.5s"). */
static int parse_time(const char *arg, double *secs)
{
	static const struct { char c; double s; } units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 },
	};
	char *end;
	double v;

	if (*arg < '0' || *arg > '9')
		return -EINVAL;
	v = strtod(arg, &end);
	if (end == arg || !end[0] || end[1] || !(v > 0) || !isfinite(v))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (*end == units[i].c) {
			*secs = v * units[i].s;
			return 0;
		}
	return -EINVAL;
}

int flight_parse_switch(struct record_opts *o, const char *arg, struct err *err)
{
	o->switch_output = true;
	if (!arg || !strcmp(arg, "signal"))
		return 0;
	/* as perf: sizes in capitals (B K M G), times in small letters (s m h d) */
	if (*arg && strchr("BKMG", arg[strlen(arg) - 1]) && !flight_parse_size(arg, &o->switch_size))
		return 0;
	o->switch_size = 0;
	if (!parse_time(arg, &o->switch_time))
		return 0;
	return err_set(err, -EINVAL, "--switch-output=%s: expected 'signal', a size (e.g. 100K, 2M, "
		       "1G) or a time (e.g. 30s, 5m, 1h)", arg);
}

/* ---- the tracking event of --overwrite --------------------------------- */

int flight_add_tracking_event(struct record_opts *o, struct err *err)
{
	int ret = events_parse("dummy", NULL, &o->events, err);

	return ret < 0 ? ret : 0;
}

/* The forward ring of --overwrite's tracking event: -m sizes the flight
 * window of samples and may be small (-m 4), but tasks and mappings must
 * not be lost while prec is busy at a switch (embedding, /proc), so that
 * ring gets at least 64 pages (256 KiB), within a user's locked-memory
 * allowance (perf_event_mlock_kb, 516 KiB per CPU) beside a -m 32 ring. */
size_t flight_tracking_pages(size_t pages)
{
	return pages < 64 ? 64 : pages;
}

size_t flight_tracking_event(const struct session *s)
{
	return s->opts->overwrite && s->nr_events > 1 ? s->nr_events - 1 : 0;
}

/* ---- reading backward rings --------------------------------------------- */

static void copy_out(const uint8_t *data, size_t mask, uint64_t pos, void *dst, size_t n)
{
	size_t start = (size_t)(pos & mask), n1 = mask + 1 - start < n ? mask + 1 - start : n;

	memcpy(dst, data + start, n1);
	if (n > n1)
		memcpy((uint8_t *)dst + n1, data, n - n1);
}

/* The records between head and the end of what is new (at most the ring's
 * size), newest first: their offsets from head into *offs. */
static int walk_backward(const struct ring *r, const uint8_t *data, uint64_t head,
			 uint64_t limit, struct buf *offs, size_t *nr)
{
	size_t mask = r->data_size - 1;
	uint64_t off = 0;

	*nr = 0;
	buf_reset(offs);
	while (off + sizeof(struct perf_event_header) <= limit) {
		struct perf_event_header h;

		copy_out(data, mask, head + off, &h, sizeof(h));
		if (!h.size || (h.size & 7) || off + h.size > limit)
			break;
		if (buf_append(offs, &off, sizeof(off)))
			return -ENOMEM;
		(*nr)++;
		off += h.size;
	}
	return 0;
}

static long ring_dump(struct ring *r, struct container_writer *w, struct buf *offs,
		      struct buf *out, struct err *err)
{
	struct perf_event_mmap_page *pc = r->base;
	const uint8_t *data = (const uint8_t *)r->base + (size_t)sysconf(_SC_PAGESIZE);
	uint64_t head, limit;
	size_t nr;
	int ret;

	ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1);
	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	limit = r->tail - head;         /* head goes down; tail is head at the last dump */
	if (limit > r->data_size)
		limit = r->data_size;
	ret = walk_backward(r, data, head, limit, offs, &nr);
	buf_reset(out);
	for (size_t k = nr; k-- > 0 && !ret;) {
		uint64_t off;
		struct perf_event_header h;

		memcpy(&off, offs->data + k * sizeof(off), sizeof(off));
		copy_out(data, r->data_size - 1, head + off, &h, sizeof(h));
		ret = buf_reserve(out, h.size);
		if (!ret) {
			copy_out(data, r->data_size - 1, head + off, out->data + out->len, h.size);
			out->len += h.size;
		}
	}
	r->tail = head;
	ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0);
	if (ret)
		return err_set(err, -ENOMEM, "out of memory");
	if (!out->len)
		return 0;
	ret = container_write_records(w, (uint32_t)r->cpu, out->data, out->len, NULL, 0, err);
	return ret ? ret : (long)out->len;
}

long session_dump_backward(struct session *s, struct err *err)
{
	struct buf offs = BUF_INIT, out = BUF_INIT;
	long total = 0;

	for (size_t i = 0; i < s->nr_rings; i++) {
		long n;

		if (!s->rings[i].backward)
			continue;
		n = ring_dump(&s->rings[i], s->writer, &offs, &out, err);
		if (n < 0) {
			total = n;
			break;
		}
		total += n;
	}
	buf_free(&offs);
	buf_free(&out);
	/* no round mark: see session_drain */
	if (total > 0)
		s->bytes_drained += (uint64_t)total;
	return total;
}

/*
 * The report takes deltas of the values read into samples (PERF_SAMPLE_READ)
 * per id and thread, from 0 in each file; the counters go on, so without a
 * reset a switched file's first sample would carry all the earlier files'
 * counts. The events whose counts are read are held off from before the old
 * file's last drain to the reset, so that no sample taken in between reaches
 * the new file with the old totals (the switch goes unsampled meanwhile).
 */
static bool counts_read(const struct session *s, size_t i)
{
	const struct perf_event_attr *a = &s->attrs[s->evfds[i].event];

	return (a->sample_type & PERF_SAMPLE_READ) || a->inherit_stat;
}

void flight_hold_read_counts(struct session *s)
{
	for (size_t i = 0; i < s->nr_evfds; i++)
		if (counts_read(s, i))
			ioctl(s->evfds[i].fd, PERF_EVENT_IOC_DISABLE, 0);
}

void flight_reset_read_counts(struct session *s)
{
	for (size_t i = 0; i < s->nr_evfds; i++) {
		if (!counts_read(s, i))
			continue;
		ioctl(s->evfds[i].fd, PERF_EVENT_IOC_RESET, 0);
		if (!s->disabled)       /* -D / --control may hold them off */
			ioctl(s->evfds[i].fd, PERF_EVENT_IOC_ENABLE, 0);
	}
}

/* ---- switched files --------------------------------------------------- */

void flight_timestamp_name(const char *path, char *out, size_t len)
{
	struct timeval tv;
	struct tm tm;
	char stamp[32];

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	snprintf(out, len, "%s.%s%02ld", path, stamp, (long)(tv.tv_usec / 10000));
}

struct flight_files {
	char **names;           /* oldest first */
	size_t nr;
};

int flight_files_rotate(struct flight_files **ff, const char *path, long max_files, char *out,
			size_t len, struct err *err)
{
	struct flight_files *f = *ff;
	char **names;
	int ret;

	if (!f && !(f = *ff = calloc(1, sizeof(*f))))
		return err_set(err, -ENOMEM, "out of memory");
	flight_timestamp_name(path, out, len);
	/* two switches in one hundredth of a second: the later one waits */
	while (!access(out, F_OK)) {
		usleep(10000);
		flight_timestamp_name(path, out, len);
	}
	if (rename(path, out)) {
		ret = -errno;
		return err_set(err, ret, "cannot rename '%s' to '%s': %s", path, out, err_str(ret));
	}
	names = array_realloc(f->names, f->nr + 1, sizeof(*names));
	if (!names)
		return err_set(err, -ENOMEM, "out of memory");
	f->names = names;
	if (!(f->names[f->nr] = strdup(out)))
		return err_set(err, -ENOMEM, "out of memory");
	f->nr++;
	if (max_files > 0 && f->nr > (size_t)max_files) {
		unlink(f->names[0]);
		free(f->names[0]);
		memmove(f->names, f->names + 1, (f->nr - 1) * sizeof(*f->names));
		f->nr--;
	}
	return 0;
}

void flight_files_free(struct flight_files *ff)
{
	if (!ff)
		return;
	for (size_t i = 0; i < ff->nr; i++)
		free(ff->names[i]);
	free(ff->names);
	free(ff);
}

static int synth_tree(pid_t pid, const struct synth_params *p, int depth, struct err *err);

/* The child processes of every thread of pid, from /proc/PID/task/TID/children. */
static int synth_children(pid_t pid, const struct synth_params *p, int depth, struct err *err)
{
	char path[64];
	DIR *dir;
	struct dirent *de;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!ret && (de = readdir(dir))) {
		char cpath[320];
		FILE *f;
		long child;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(cpath, sizeof(cpath), "/proc/%d/task/%s/children", (int)pid, de->d_name);
		f = fopen(cpath, "re");
		if (!f)
			continue;
		while (!ret && fscanf(f, "%ld", &child) == 1)
			ret = synth_tree((pid_t)child, p, depth + 1, err);
		fclose(f);
	}
	closedir(dir);
	return ret;
}

static int synth_tree(pid_t pid, const struct synth_params *p, int depth, struct err *err)
{
	int ret = synth_process(pid, p, err);

	if (ret == -ESRCH)
		return 0;       /* it ended meanwhile */
	if (ret < 0)
		return ret;
	return depth < 16 ? synth_children(pid, p, depth, err) : 0;
}

int flight_synth_workload(pid_t pid, const struct synth_params *p, struct err *err)
{
	return synth_tree(pid, p, 0, err);
}
