/* SPDX-License-Identifier: MIT */
/*
 * What prec writes once the recording is over: the build ids of the binaries
 * that were mapped (from the MMAP2 records themselves where the kernel put
 * them there, else read with libelf; never by a second pass over the data)
 * and the metadata of the recording.
 */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "format/blocks.h"

struct dso_entry {
	char *path;
	uint8_t id_size;
	uint8_t id[BUILD_ID_MAX];
};

struct dso_list {
	size_t nr, cap;
	struct dso_entry *e;
	size_t dropped;         /* binaries not noted for want of memory */
};

struct dso_list *dso_list_new(void)
{
	return calloc(1, sizeof(struct dso_list));
}

void dso_list_free(struct dso_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nr; i++)
		free(l->e[i].path);
	free(l->e);
	free(l);
}

static void dso_add(struct dso_list *l, const char *path, const uint8_t *id, uint8_t id_size)
{
	struct dso_entry *e;

	for (size_t i = 0; i < l->nr; i++) {
		if (strcmp(l->e[i].path, path))
			continue;
		if (id_size && !l->e[i].id_size) {
			memcpy(l->e[i].id, id, id_size);
			l->e[i].id_size = id_size;
		}
		return;
	}
	if (l->nr == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 32;
		struct dso_entry *n = array_realloc(l->e, cap, sizeof(*n));

		if (!n) {
			l->dropped++;   /* not worth failing the recording: counted, said */
			return;
		}
		l->e = n;
		l->cap = cap;
	}
	e = &l->e[l->nr];
	e->path = strdup(path);
	if (!e->path) {
		l->dropped++;
		return;
	}
	e->id_size = id_size;
	if (id_size)
		memcpy(e->id, id, id_size);
	l->nr++;
}

/* Called for every side-band record as it is copied (writer hook): keep the
 * paths of file-backed mappings, and the build id the kernel attached. */
void dso_list_note(struct dso_list *l, const void *rec, size_t len)
{
	const uint8_t *p = rec;
	struct perf_event_header h;
	size_t name_off;
	uint8_t id_size = 0;
	const uint8_t *id = NULL;

	memcpy(&h, p, sizeof(h));
	if (h.type == PERF_RECORD_MMAP2) {
		name_off = 8 + 4 * 2 + 8 * 3 + 24 + 8;   /* pid tid addr len pgoff, union, prot flags */
		if (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			id_size = p[40] <= 20 ? p[40] : 0;
			id = p + 44;
		}
	} else if (h.type == PERF_RECORD_MMAP) {
		name_off = 8 + 4 * 2 + 8 * 3;
	} else {
		return;
	}
	if (len <= name_off || !memchr(p + name_off, 0, len - name_off))
		return;
	if (p[name_off] != '/' && strncmp((const char *)p + name_off, "[kernel.kallsyms]", 17))
		return;   /* anonymous memory, [vdso], [stack]... */
	dso_add(l, (const char *)p + name_off, id, id_size);
}

/* The GNU build id note of an ELF file, through libelf. */
static int elf_build_id(const char *path, uint8_t *id)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0;
	Elf_Scn *scn = NULL;
	Elf *elf;

	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (elf && !n && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + name_off, "GNU", 4) &&
			    nh.n_descsz && nh.n_descsz <= BUILD_ID_MAX) {
				memcpy(id, (char *)d->d_buf + desc_off, nh.n_descsz);
				n = (int)nh.n_descsz;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return n;
}

/* The running kernel's build id, from the notes it exports. */
static int kernel_build_id(uint8_t *id)
{
	uint8_t notes[4096];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	ssize_t len;
	size_t off = 0;

	if (fd < 0)
		return 0;
	len = read(fd, notes, sizeof(notes));
	close(fd);
	while (len > 0 && off + 12 <= (size_t)len) {
		uint32_t namesz, descsz, type;
		size_t name_at = off + 12, desc_at;

		memcpy(&namesz, notes + off, 4);
		memcpy(&descsz, notes + off + 4, 4);
		memcpy(&type, notes + off + 8, 4);
		desc_at = name_at + ((namesz + 3) & ~3u);
		if (desc_at + descsz > (size_t)len)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(notes + name_at, "GNU", 4) &&
		    descsz && descsz <= BUILD_ID_MAX) {
			memcpy(id, notes + desc_at, descsz);
			return (int)descsz;
		}
		off = desc_at + ((descsz + 3) & ~3u);
	}
	return 0;
}

int write_build_ids(struct container_writer *w, struct dso_list *l, struct err *err)
{
	struct build_id_entry *e = calloc(l->nr + 1, sizeof(*e));
	struct buf b = BUF_INIT;
	size_t n = 0;
	int ret;

	if (!e)
		return err_set(err, -ENOMEM, "out of memory");
	elf_version(EV_CURRENT);
	for (size_t i = 0; i < l->nr; i++) {
		struct dso_entry *d = &l->e[i];
		bool kernel = !strncmp(d->path, "[kernel.kallsyms]", 17);
		int size = d->id_size;

		memcpy(e[n].id, d->id, size);
		if (!size)
			size = kernel ? kernel_build_id(e[n].id) : elf_build_id(d->path, e[n].id);
		if (!size)
			continue;   /* no build id: the report falls back to the path */
		e[n].size = (uint8_t)size;
		e[n].flags = kernel ? BUILD_ID_FLAG_KERNEL : 0;
		e[n].path = d->path;
		n++;
	}
	if (l->dropped)
		fprintf(stderr, "prec: warning: out of memory: the build ids of %zu mapped "
			"binaries are missing from the file\n", l->dropped);
	ret = n ? build_ids_encode(e, n, &b) : 0;
	if (!ret && n)
		ret = container_write_block(w, BLOCK_BUILD_IDS, b.data, b.len, err);
	else if (ret)
		err_set(err, ret, "cannot encode build ids");
	buf_free(&b);
	free(e);
	return ret;
}

/* Keep the function symbols of a /proc/kallsyms text (types t, T, w, W), in
 * place; returns the new length. All-zero addresses mean kptr_restrict hides
 * them: nothing is kept then. */
static size_t kallsyms_filter(char *p, size_t len)
{
	size_t out = 0, off = 0;
	bool any_addr = false;

	while (off < len) {
		char *nl = memchr(p + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (p + off)) + 1 : len - off;
		char *sp = memchr(p + off, ' ', n);

		if (nl && sp && sp + 2 < p + off + n && strchr("tTwW", sp[1]) && sp[2] == ' ') {
			for (char *c = p + off; c < sp && !any_addr; c++)
				any_addr = *c != '0';
			memmove(p + out, p + off, n);
			out += n;
		}
		off += n;
	}
	return any_addr ? out : 0;
}

int write_kallsyms(struct container_writer *w, int verbose, struct err *err)
{
	struct buf b = BUF_INIT;
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	ssize_t got = 1;
	int ret = 0;

	if (fd < 0) {
		if (verbose)
			fprintf(stderr, "prec: no copy of /proc/kallsyms in the file: %s\n", strerror(errno));
		return 0;
	}
	while (got > 0) {
		if (buf_reserve(&b, 1 << 20)) {
			ret = err_set(err, -ENOMEM, "out of memory reading /proc/kallsyms");
			break;
		}
		got = read(fd, b.data + b.len, b.cap - b.len);
		if (got > 0)
			b.len += (size_t)got;
	}
	close(fd);
	if (!ret && got < 0 && verbose)
		fprintf(stderr, "prec: cannot read /proc/kallsyms: %s\n", strerror(errno));
	if (!ret && got == 0) {
		b.len = kallsyms_filter((char *)b.data, b.len);
		if (b.len)
			ret = container_write_block(w, BLOCK_KALLSYMS, b.data, b.len, err);
		else if (verbose)
			fprintf(stderr, "prec: /proc/kallsyms hides addresses (kptr_restrict): "
				"no copy in the file\n");
	}
	buf_free(&b);
	return ret;
}

static void read_first_match(const char *path, const char *key, char *out, size_t len)
{
	char line[512];
	FILE *f = fopen(path, "r");

	out[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon;

		if (strncmp(line, key, strlen(key)) || !(colon = strchr(line, ':')))
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = 0;
		snprintf(out, len, "%s", colon);
		break;
	}
	fclose(f);
}

static int put_metadata(struct container_writer *w, struct metadata *m, struct err *err)
{
	struct buf b = BUF_INIT;
	int ret = metadata_encode(m, &b);

	if (ret)
		err_set(err, ret, "out of memory");
	else
		ret = container_write_block(w, BLOCK_METADATA, b.data, b.len, err);
	metadata_free(m);
	buf_free(&b);
	return ret;
}

/* What is known before recording: written first, so that even a recording
 * killed half-way says where it was made. */
/* -e '{a,b}': the EVENT block leading each event's group, u32
 * little-endian per event, 0xffffffff outside any (FORMAT.md, event_groups).
 * Members follow their leader, so the last leader seen leads them. */
static int put_event_groups(struct metadata *m, const struct event_list *events)
{
	struct buf b = BUF_INIT;
	uint32_t leader = 0;
	bool any = false;
	int ret = 0;

	for (size_t i = 0; i < events->nr && !ret; i++) {
		const struct event_spec *ev = &events->ev[i];

		if (ev->group_leader)
			leader = (uint32_t)i;
		any |= ev->group >= 0;
		ret = buf_put_u32(&b, ev->group >= 0 ? leader : 0xffffffffu);
	}
	if (!ret && any)
		ret = metadata_set_bytes(m, META_EVENT_GROUPS, META_BYTES, b.data, b.len);
	buf_free(&b);
	return ret;
}

int write_metadata(struct container_writer *w, const struct record_opts *o, uint64_t start_ns,
		   struct err *err)
{
	struct metadata m = { 0 };
	struct utsname u;
	char text[512];

	if (!uname(&u)) {
		metadata_set_str(&m, META_HOSTNAME, u.nodename);
		metadata_set_str(&m, META_OS_RELEASE, u.release);
		metadata_set_str(&m, META_ARCH, u.machine);
		metadata_set_str(&m, META_OS_VERSION, u.version);
	}
	metadata_set_u64(&m, META_NR_CPUS_ONLINE, (uint64_t)sysconf(_SC_NPROCESSORS_ONLN));
	metadata_set_u64(&m, META_NR_CPUS_AVAIL, (uint64_t)sysconf(_SC_NPROCESSORS_CONF));
	read_first_match("/proc/cpuinfo", "model name", text, sizeof(text));
	if (text[0])
		metadata_set_str(&m, META_CPU_DESC, text);
	read_first_match("/proc/meminfo", "MemTotal", text, sizeof(text));
	if (text[0])
		metadata_set_u64(&m, META_TOTAL_MEM_KB, strtoull(text, NULL, 10));
	metadata_set_u64(&m, META_PERF_EVENT_PARANOID, (uint64_t)(int64_t)perf_paranoid());
	metadata_set_strlist(&m, META_CMDLINE, o->record_argc, o->record_argv);
	metadata_set_u64(&m, META_CLOCK_ID, o->sample.use_clockid ? (uint64_t)o->sample.clockid :
			 0xFFFFFFFFu);    /* --clockid, else the perf clock */
	metadata_set_u64(&m, META_START_TIME_NS, start_ns);
	metadata_set_u64(&m, META_PAGE_SIZE, (uint64_t)sysconf(_SC_PAGESIZE));
	metadata_set_str(&m, META_WRITER, "prec " PREC_VERSION);
	if (put_event_groups(&m, &o->events)) {
		metadata_free(&m);
		return err_set(err, -ENOMEM, "out of memory");
	}
	return put_metadata(w, &m, err);
}

/* What is known at the end: counts, losses, the end time, the exit status. */
int write_final_metadata(struct container_writer *w, const struct container_writer_stats *st,
			 int workload_status, uint64_t end_ns, struct err *err)
{
	struct metadata m = { 0 };

	metadata_set_u64(&m, META_END_TIME_NS, end_ns);
	metadata_set_u64(&m, META_NR_SAMPLES, st->by_type[PERF_RECORD_SAMPLE]);
	metadata_set_u64(&m, META_NR_LOST_SAMPLES, st->lost_samples);
	metadata_set_u64(&m, META_NR_LOST_RECORDS,
			 st->by_type[PERF_RECORD_LOST] + st->by_type[PERF_RECORD_LOST_SAMPLES]);
	if (workload_status >= 0)
		metadata_set_u64(&m, META_WORKLOAD_EXIT, (uint64_t)workload_status);
	return put_metadata(w, &m, err);
}
