/* SPDX-License-Identifier: MIT */
/*
 * Synthesized COMM / FORK / MMAP2 / MMAP records from /proc (see synth.h).
 *
 * Everything is opened relative to a descriptor of the proc directory, so
 * the paths built here are short and bounded ("%d/task/%d/comm"). Lines come
 * from getline() (no fixed-size line buffer) and are parsed with explicit
 * lengths through a small scanner; a line that does not parse is skipped.
 *
 * Internally a task that has gone away (ENOENT or ESRCH from /proc) is
 * reported as GONE, a positive code that the API functions turn into 0 or
 * into a skip; it is never returned to a caller.
 */
#include "common/scan.h"
#include "common/text.h"
#include "synth.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/buf.h"

#define GONE		1               /* the task exited while being read */
#define STOP		2               /* a line callback found what it wanted */
#define COMM_MAX	255             /* longer comms are cut */
#define STATUS_MAX	(64 * 1024)     /* bytes of /proc/PID/status read */
#define MODNAME_MAX	255             /* longer module names are skipped */
#define REC_MAX		UINT16_MAX      /* header.size is a u16 */
#define KERNEL_PID	((uint32_t)-1)

struct walk {
	const struct synth_params *p;
	const char *proc;
	struct err *err;
	int procfd;
	bool lenient;           /* synth_all: unreadable maps are not an error */
	bool emit_failed;       /* the error being returned came from p->emit */
	struct buf rec;         /* the record being built */
	int rec_ret;            /* first failure while building it (sticky) */
	struct buf file;        /* small files (comm, status), module names */
	char *line;             /* getline() buffer */
	size_t line_cap;
};

static bool is_gone(int e)
{
	return e == ENOENT || e == ESRCH;
}

/* ---- building records -------------------------------------------------- */

static void put(struct walk *w, const void *p, size_t n)
{
	if (!w->rec_ret)
		w->rec_ret = buf_append(&w->rec, p, n);
}

/* host byte order, as the kernel writes records */
static void put32(struct walk *w, uint32_t v)
{
	put(w, &v, sizeof(v));
}

static void put64(struct walk *w, uint64_t v)
{
	put(w, &v, sizeof(v));
}

/* n bytes of s, then 1 to 8 NULs up to the next multiple of 8 */
static void put_str(struct walk *w, const char *s, size_t n)
{
	static const char zeros[8];

	put(w, s, n);
	put(w, zeros, 8 - n % 8);
}

static void rec_begin(struct walk *w, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = 0 };

	buf_reset(&w->rec);
	w->rec_ret = 0;
	put(w, &h, sizeof(h));
}

/* The sample_id_all trailer, in the kernel's order (perf_event_open(2)). */
static void put_trailer(struct walk *w, uint32_t pid, uint32_t tid)
{
	uint64_t st = w->p->sample_type, id = w->p->id;

	if (st & PERF_SAMPLE_TID) {
		put32(w, pid);
		put32(w, tid);
	}
	if (st & PERF_SAMPLE_TIME)
		put64(w, 0);
	if (st & PERF_SAMPLE_ID)
		put64(w, id);
	if (st & PERF_SAMPLE_STREAM_ID)
		put64(w, id);
	if (st & PERF_SAMPLE_CPU) {
		put32(w, (uint32_t)-1);
		put32(w, 0);
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		put64(w, id);
}

static const char *rec_name(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_COMM: return "COMM";
	case PERF_RECORD_FORK: return "FORK";
	case PERF_RECORD_MMAP: return "MMAP";
	case PERF_RECORD_MMAP2: return "MMAP2";
	case PERF_RECORD_CGROUP: return "CGROUP";
	default: return "unknown";
	}
}

/* Append the trailer, set header.size and hand the record to p->emit. */
static int rec_emit(struct walk *w, uint32_t pid, uint32_t tid)
{
	struct perf_event_header h;
	int ret;

	put_trailer(w, pid, tid);
	memcpy(&h, w->rec.data, sizeof(h));
	if (w->rec_ret)
		return err_set(w->err, w->rec_ret, "cannot build synthesized %s record: %s",
			       rec_name(h.type), err_str(w->rec_ret));
	if (w->rec.len > REC_MAX)
		return err_set(w->err, -PREC_ELIMIT,
			       "synthesized %s record of %zu bytes is over 65535",
			       rec_name(h.type), w->rec.len);
	h.size = (uint16_t)w->rec.len;
	memcpy(w->rec.data, &h, sizeof(h));
	ret = w->p->emit(w->p->ctx, w->rec.data, w->rec.len);
	if (ret >= 0)
		return 0;
	w->emit_failed = true;
	if (pid == KERNEL_PID)
		return err_set(w->err, ret, "cannot write synthesized %s record of the kernel: %s",
			       rec_name(h.type), err_str(ret));
	return err_set(w->err, ret, "cannot write synthesized %s record of task %u: %s",
		       rec_name(h.type), tid, err_str(ret));
}

/* ---- reading /proc ----------------------------------------------------- */

static int read_error(struct walk *w, const char *what, const char *rel, int code)
{
	return err_set(w->err, code, "cannot %s %s/%s: %s", what, w->proc, rel,
		       err_str(code));
}

/* Up to max bytes of <proc>/rel into w->file. 0, GONE or -errno (no message). */
static int read_small(struct walk *w, const char *rel, size_t max)
{
	int fd, ret;

	buf_reset(&w->file);
	ret = buf_reserve(&w->file, max);
	if (ret)
		return ret;
	fd = openat(w->procfd, rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return is_gone(errno) ? GONE : -errno;
	while (w->file.len < max) {
		ssize_t n = read(fd, w->file.data + w->file.len, max - w->file.len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ret = is_gone(errno) ? GONE : -errno;
		if (n <= 0)
			break;
		w->file.len += (size_t)n;
	}
	close(fd);
	return ret;
}

/* <proc>/rel as a stdio stream, or NULL with errno set */
static FILE *open_stream(struct walk *w, const char *rel)
{
	int fd = openat(w->procfd, rel, O_RDONLY | O_CLOEXEC);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (!f) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
}

/* Call fn on every line of <proc>/rel until it returns non-zero (which is
 * returned; STOP ends the walk without an error). ENOENT or
 * ESRCH while opening or reading: GONE. Lines keep their '\n'. */
static int each_line(struct walk *w, const char *rel, void *arg,
		     int (*fn)(struct walk *w, const char *line, size_t len, void *arg))
{
	FILE *f = open_stream(w, rel);
	ssize_t n;
	int ret = 0, e;

	if (!f)
		return is_gone(errno) ? GONE : read_error(w, "open", rel, -errno);
	while (!ret && (n = getline(&w->line, &w->line_cap, f)) > 0)
		ret = fn(w, w->line, (size_t)n, arg);
	e = errno;
	if (!ret && ferror(f))
		ret = is_gone(e) ? GONE : read_error(w, "read", rel, e ? -e : -EIO);
	fclose(f);
	return ret;
}

/* A decimal pid, 1 to INT_MAX, and nothing else. */
static bool parse_pid(const char *str, pid_t *pid)
{
	struct scan s = { str, str + strlen(str) };
	uint64_t v;

	if (!scan_dec(&s, &v) || s.p != s.end || v == 0 || v > INT_MAX)
		return false;
	*pid = (pid_t)v;
	return true;
}

/* ---- tasks: tgid, thread list, comm ------------------------------------ */

/* The tgid of pid from its status; -ESRCH with a message when pid does
 * not exist. */
static int find_tgid(struct walk *w, pid_t pid, pid_t *tgid)
{
	char rel[32];
	struct scan s, line;
	uint64_t v;
	int ret;

	if (pid <= 0)
		return err_set(w->err, -ESRCH, "process %d does not exist", (int)pid);
	snprintf(rel, sizeof(rel), "%d/status", (int)pid);
	ret = read_small(w, rel, STATUS_MAX);
	if (ret == GONE)
		return err_set(w->err, -ESRCH, "process %d does not exist", (int)pid);
	if (ret)
		return read_error(w, "read", rel, ret);
	s = (struct scan){ (const char *)w->file.data, (const char *)w->file.data + w->file.len };
	while (s.p < s.end) {
		const char *nl = memchr(s.p, '\n', scan_left(&s));

		line = (struct scan){ s.p, nl ? nl : s.end };
		s.p = nl ? nl + 1 : s.end;
		if (scan_left(&line) < 5 || memcmp(line.p, "Tgid:", 5))
			continue;
		line.p += 5;
		scan_skip(&line, " \t");
		if (scan_dec(&line, &v) && v > 0 && v <= INT_MAX) {
			*tgid = (pid_t)v;
			return 0;
		}
		break;
	}
	return err_set(w->err, -PREC_ECORRUPT, "%s/%s has no valid Tgid line", w->proc, rel);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static int read_tids(struct walk *w, DIR *d, struct buf *tids)
{
	struct dirent *de;
	pid_t tid;
	int ret;

	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de)
			return errno ? -errno : 0;
		if (!parse_pid(de->d_name, &tid))
			continue;
		ret = buf_append(tids, &tid, sizeof(tid));
		if (ret)
			return err_set(w->err, ret, "cannot list threads: out of memory");
	}
}

/* The thread ids of tgid, sorted, into tids (an array of pid_t). */
static int list_tasks(struct walk *w, pid_t tgid, struct buf *tids)
{
	char rel[32];
	DIR *d;
	int fd, ret;

	snprintf(rel, sizeof(rel), "%d/task", (int)tgid);
	fd = openat(w->procfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return is_gone(errno) ? GONE : read_error(w, "open", rel, -errno);
	d = fdopendir(fd);
	if (!d) {
		ret = -errno;
		close(fd);
		return read_error(w, "open", rel, ret);
	}
	ret = read_tids(w, d, tids);
	closedir(d);
	if (ret < 0 && ret != -ENOMEM)
		return is_gone(-ret) ? GONE : read_error(w, "list", rel, ret);
	qsort(tids->data, tids->len / sizeof(pid_t), sizeof(pid_t), cmp_pid);
	return ret;
}

/* The comm of tid into w->file, without its '\n', cut at COMM_MAX bytes. */
static int read_comm(struct walk *w, pid_t tgid, pid_t tid, size_t *len)
{
	char rel[48];
	size_t n;
	int ret;

	snprintf(rel, sizeof(rel), "%d/task/%d/comm", (int)tgid, (int)tid);
	ret = read_small(w, rel, COMM_MAX + 1);
	if (ret < 0)
		return read_error(w, "read", rel, ret);
	if (ret)
		return ret;
	n = w->file.len;
	if (n && w->file.data[n - 1] == '\n')
		n--;
	n = strnlen((const char *)w->file.data, n);
	*len = n < COMM_MAX ? n : COMM_MAX;
	return 0;
}

/* COMM from the comm that read_comm() left in w->file */
static int emit_comm(struct walk *w, pid_t tgid, pid_t tid, size_t len)
{
	rec_begin(w, PERF_RECORD_COMM, PERF_RECORD_MISC_USER);
	put32(w, (uint32_t)tgid);
	put32(w, (uint32_t)tid);
	put_str(w, (const char *)w->file.data, len);
	return rec_emit(w, (uint32_t)tgid, (uint32_t)tid);
}

/* FORK from the leader, as perf synthesizes threads: ppid = ptid = tgid */
static int emit_fork(struct walk *w, pid_t tgid, pid_t tid)
{
	rec_begin(w, PERF_RECORD_FORK, PERF_RECORD_MISC_USER);
	put32(w, (uint32_t)tgid);
	put32(w, (uint32_t)tgid);
	put32(w, (uint32_t)tid);
	put32(w, (uint32_t)tgid);
	put64(w, 0);
	return rec_emit(w, (uint32_t)tgid, (uint32_t)tid);
}

/* FORK then COMM of a thread; one that has exited meanwhile is skipped */
static int emit_thread(struct walk *w, pid_t tgid, pid_t tid)
{
	size_t len;
	int ret = read_comm(w, tgid, tid, &len);

	if (ret)
		return ret == GONE ? 0 : ret;
	ret = emit_fork(w, tgid, tid);
	return ret ? ret : emit_comm(w, tgid, tid, len);
}

/* ---- mappings ---------------------------------------------------------- */

struct map_line {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min, prot, flags;
	bool exec;
	const char *name;
	size_t name_len;
};

/* "rwxp": each letter or '-', then 'p' or 's' */
static bool parse_perms(struct scan *s, struct map_line *m)
{
	const char *p = s->p;

	if (scan_left(s) < 4 || (p[0] != 'r' && p[0] != '-') ||
	    (p[1] != 'w' && p[1] != '-') || (p[2] != 'x' && p[2] != '-') ||
	    (p[3] != 'p' && p[3] != 's'))
		return false;
	m->prot = (p[0] == 'r' ? PROT_READ : 0) | (p[1] == 'w' ? PROT_WRITE : 0) |
		  (p[2] == 'x' ? PROT_EXEC : 0);
	m->flags = p[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	m->exec = p[2] == 'x';
	s->p += 4;
	return true;
}

/* "start-end perms offset maj:min inode   name", name possibly empty or
 * with spaces; the name runs to the end of the line. */
static bool parse_maps_line(const char *line, size_t len, struct map_line *m)
{
	struct scan s = scan_line(line, len);
	uint64_t maj, min;

	if (!scan_hex(&s, 16, &m->start) || !scan_char(&s, '-') ||
	    !scan_hex(&s, 16, &m->end) || !scan_char(&s, ' ') ||
	    !parse_perms(&s, m) || !scan_char(&s, ' ') ||
	    !scan_hex(&s, 16, &m->pgoff) || !scan_char(&s, ' ') ||
	    !scan_hex(&s, 8, &maj) || !scan_char(&s, ':') ||
	    !scan_hex(&s, 8, &min) || !scan_char(&s, ' ') ||
	    !scan_dec(&s, &m->ino) || m->end <= m->start)
		return false;
	if (s.p < s.end && *s.p != ' ')
		return false;
	while (s.p < s.end && *s.p == ' ')
		s.p++;
	m->maj = (uint32_t)maj;
	m->min = (uint32_t)min;
	m->name = s.p;
	m->name_len = scan_left(&s);
	return !memchr(m->name, 0, m->name_len);
}

/* The kernel names anonymous mappings "//anon", named ones included */
static void map_name(struct map_line *m)
{
	if (m->name_len == 0 || (m->name_len >= 6 && !memcmp(m->name, "[anon:", 6))) {
		m->name = "//anon";
		m->name_len = 6;
	}
}

struct maps_owner {
	pid_t pid, tid;
};

static int maps_line(struct walk *w, const char *line, size_t len, void *arg)
{
	const struct maps_owner *o = arg;
	struct map_line m;

	if (!parse_maps_line(line, len, &m) || m.name_len >= PATH_MAX ||
	    (!m.exec && (!w->p->data || !(m.prot & PROT_READ))))
		return 0;
	map_name(&m);
	rec_begin(w, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER |
		  (m.exec ? 0 : PERF_RECORD_MISC_MMAP_DATA));
	put32(w, (uint32_t)o->pid);
	put32(w, (uint32_t)o->tid);
	put64(w, m.start);
	put64(w, m.end - m.start);
	put64(w, m.pgoff);
	put32(w, m.maj);
	put32(w, m.min);
	put64(w, m.ino);
	put64(w, 0);            /* ino_generation */
	put32(w, m.prot);
	put32(w, m.flags);
	put_str(w, m.name, m.name_len);
	return rec_emit(w, (uint32_t)o->pid, (uint32_t)o->tid);
}

/* MMAP2 of every executable mapping of tgid (and data ones for -d), as pid/tid. */
static int emit_maps(struct walk *w, pid_t tgid, pid_t tid)
{
	struct maps_owner o = { tgid, tid };
	char rel[32];
	int ret;

	snprintf(rel, sizeof(rel), "%d/maps", (int)tgid);
	ret = each_line(w, rel, &o, maps_line);
	if (w->lenient && !w->emit_failed && (ret == -EACCES || ret == -EPERM))
		return 0;
	return ret;
}

/* ---- processes --------------------------------------------------------- */

/* COMM of the leader, its maps, then FORK and COMM of every other thread.
 * GONE when the process exited before it was complete. */
static int do_process(struct walk *w, pid_t tgid)
{
	struct buf tids = BUF_INIT;
	size_t i, len;
	pid_t tid;
	int ret;

	ret = list_tasks(w, tgid, &tids);
	if (!ret)
		ret = read_comm(w, tgid, tgid, &len);
	if (!ret)
		ret = emit_comm(w, tgid, tgid, len);
	if (!ret)
		ret = emit_maps(w, tgid, tgid);
	for (i = 0; !ret && i < tids.len / sizeof(pid_t); i++) {
		memcpy(&tid, tids.data + i * sizeof(pid_t), sizeof(tid));
		if (tid != tgid)
			ret = emit_thread(w, tgid, tid);
	}
	buf_free(&tids);
	return ret;
}

static int walk_init(struct walk *w, const struct synth_params *p, struct err *err)
{
	memset(w, 0, sizeof(*w));
	w->p = p;
	w->err = err;
	w->procfd = -1;
	if (!p || !p->emit)
		return err_set(err, -EINVAL, "synthesizing records: no emit callback");
	w->proc = p->proc ? p->proc : "/proc";
	w->procfd = open(w->proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->procfd < 0)
		return err_set(err, -errno, "cannot open %s: %s", w->proc, strerror(errno));
	return 0;
}

static void walk_fini(struct walk *w)
{
	if (w->procfd >= 0)
		close(w->procfd);
	buf_free(&w->rec);
	buf_free(&w->file);
	free(w->line);
}

int synth_process(pid_t pid, const struct synth_params *p, struct err *err)
{
	struct walk w;
	pid_t tgid;
	int ret;

	ret = walk_init(&w, p, err);
	if (!ret)
		ret = find_tgid(&w, pid, &tgid);
	if (!ret)
		ret = do_process(&w, tgid);
	walk_fini(&w);
	return ret == GONE ? 0 : ret;
}

int synth_thread(pid_t tid, const struct synth_params *p, struct err *err)
{
	struct walk w;
	pid_t tgid;
	size_t len;
	int ret;

	ret = walk_init(&w, p, err);
	if (!ret)
		ret = find_tgid(&w, tid, &tgid);
	if (!ret)
		ret = read_comm(&w, tgid, tid, &len);
	if (!ret)
		ret = emit_comm(&w, tgid, tid, len);
	if (!ret)
		ret = emit_maps(&w, tgid, tid);
	walk_fini(&w);
	return ret == GONE ? 0 : ret;
}

/* Only a failing emit or lack of memory stops synth_all; anything else
 * is a process that could not be read, which is skipped. */
static bool fatal(const struct walk *w, int ret)
{
	return ret < 0 && (w->emit_failed || ret == -ENOMEM);
}

static int all_processes(struct walk *w, DIR *d, struct err *err)
{
	struct dirent *de;
	int ret, count = 0;
	pid_t pid;

	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de)
			break;
		if (!parse_pid(de->d_name, &pid))
			continue;
		ret = do_process(w, pid);
		if (fatal(w, ret)) {
			*err = *w->err;
			return ret;
		}
		if (ret == 0 && count < INT_MAX)
			count++;
	}
	if (errno)
		return err_set(err, -errno, "cannot list %s: %s", w->proc, strerror(errno));
	return count;
}

int synth_all(const struct synth_params *p, struct err *err)
{
	struct err local = { 0 }, dummy;
	struct walk w;
	DIR *d = NULL;
	int ret, fd;

	ret = walk_init(&w, p, err);
	if (ret)
		goto out;
	w.err = &local;
	w.lenient = true;
	fd = openat(w.procfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		ret = err_set(err, -errno, "cannot list %s: %s", w.proc, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	ret = all_processes(&w, d, err ? err : &dummy);
	closedir(d);
out:
	walk_fini(&w);
	return ret;
}

/* ---- the kernel -------------------------------------------------------- */

struct ksyms {
	uint64_t text, stext;
	bool have_text, have_stext;
};

/* "address type name[\t[module]]": only _text and _stext of the kernel
 * itself (module symbols have a tab and a module after the name). */
static int kallsyms_line(struct walk *w, const char *line, size_t len, void *arg)
{
	struct ksyms *k = arg;
	struct scan s = scan_line(line, len);
	uint64_t addr;

	(void)w;
	if (!scan_hex(&s, 16, &addr) || !scan_char(&s, ' ') || s.p >= s.end)
		return 0;
	s.p++;
	if (!scan_char(&s, ' '))
		return 0;
	if (scan_left(&s) == 5 && !memcmp(s.p, "_text", 5)) {
		k->text = addr;
		k->have_text = true;
		return STOP;
	}
	if (scan_left(&s) == 6 && !memcmp(s.p, "_stext", 6) && !k->have_stext) {
		k->stext = addr;
		k->have_stext = true;
	}
	return 0;
}

static int emit_kernel_mmap(struct walk *w, uint64_t start, uint64_t len,
			    uint64_t pgoff, const char *name, size_t name_len)
{
	rec_begin(w, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	put32(w, KERNEL_PID);
	put32(w, 0);
	put64(w, start);
	put64(w, len);
	put64(w, pgoff);
	put_str(w, name, name_len);
	return rec_emit(w, KERNEL_PID, 0);
}

/* "name size refcount deps state address [taints]"; the address is the
 * first "0x" token after the size. */
static int modules_line(struct walk *w, const char *line, size_t len, void *arg)
{
	struct scan s = scan_line(line, len), name, tok, num;
	uint64_t size, addr = 0;

	(void)arg;
	if (!scan_token(&s, &name) || !scan_token(&s, &num) ||
	    !scan_dec(&num, &size) || num.p != num.end)
		return 0;
	while (scan_token(&s, &tok)) {
		if (scan_left(&tok) > 2 && !memcmp(tok.p, "0x", 2)) {
			tok.p += 2;
			if (!scan_hex(&tok, 16, &addr) || tok.p != tok.end)
				return 0;
			break;
		}
	}
	if (!addr || !size || scan_left(&name) > MODNAME_MAX)
		return 0;
	buf_reset(&w->file);
	if (buf_append(&w->file, "[", 1) || buf_append(&w->file, name.p, scan_left(&name)) ||
	    buf_append(&w->file, "]", 1))
		return err_set(w->err, -ENOMEM, "cannot synthesize module records: out of memory");
	return emit_kernel_mmap(w, addr, size, 0, (const char *)w->file.data, w->file.len);
}

static int kernel(struct walk *w, bool *restricted)
{
	static const char name[] = "[kernel.kallsyms]_text";
	struct ksyms k = { 0 };
	uint64_t start;
	int ret;

	ret = each_line(w, "kallsyms", &k, kallsyms_line);
	if (ret < 0)
		return ret;
	if (ret == GONE)
		return err_set(w->err, -ENOENT, "%s/kallsyms does not exist", w->proc);
	if (!k.have_text && !k.have_stext)
		return err_set(w->err, -ENOENT, "%s/kallsyms has neither _text nor _stext",
			       w->proc);
	start = k.have_text ? k.text : k.stext;
	if (start == 0) {
		*restricted = true;
		return 0;
	}
	ret = emit_kernel_mmap(w, start, ~0ULL - start, start, name, sizeof(name) - 1);
	if (ret)
		return ret;
	ret = each_line(w, "modules", NULL, modules_line);
	return ret == GONE ? 0 : ret;   /* no /proc/modules: no modules */
}

int synth_kernel(const struct synth_params *p, bool *restricted, struct err *err)
{
	struct walk w;
	bool dummy;
	int ret;

	if (!restricted)
		restricted = &dummy;
	*restricted = false;
	ret = walk_init(&w, p, err);
	if (!ret)
		ret = kernel(&w, restricted);
	walk_fini(&w);
	return ret;
}

int synth_record(const struct synth_params *p, uint32_t type, const void *body, size_t len,
		 struct err *err)
{
	struct walk w = { .p = p, .err = err, .procfd = -1 };
	int ret;

	rec_begin(&w, type, 0);
	put(&w, body, len);
	ret = rec_emit(&w, 0, 0);
	walk_fini(&w);
	return ret;
}
