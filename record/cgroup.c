/* SPDX-License-Identifier: MIT */
/*
 * Cgroups for prec and prec stat: -G/--cgroup NAME lists (which event is
 * counted in which cgroup, perf's assignment rules), finding the cgroup
 * file system perf events work on (a cgroup v1 hierarchy with the
 * perf_event controller, else cgroup v2), opening a cgroup's directory for
 * perf_event_open(PERF_FLAG_PID_CGROUP), and the PERF_RECORD_CGROUP records
 * of --all-cgroups for the cgroups that exist when the recording starts.
 */
#include "cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "common/buf.h"

#define CGROUP_WALK_DEPTH 64    /* deeper cgroups are not synthesized */

int cgroup_list_assign(const char *opt, const char *list, size_t nr_events, const char **names,
		       size_t *nr_given, struct err *err)
{
	const char *p = list;
	size_t first = *nr_given;

	if (!nr_events)
		return err_set(err, -EINVAL, "%s %s: give the events (-e) before the cgroups", opt,
			       list);
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (*nr_given >= nr_events)
			return err_set(err, -EINVAL, "%s %s: more cgroups than events (%zu): one "
				       "cgroup per event, in the order of the events", opt, list,
				       nr_events);
		if (len) {      /* an empty name leaves its event out of cgroup mode */
			char *name = strndup(p, len);

			if (!name)
				return err_set(err, -ENOMEM, "out of memory");
			names[*nr_given] = name;
		}
		(*nr_given)++;
		if (!comma)
			break;
		p = comma + 1;
	}
	/* a single cgroup in all: every event so far is counted in it */
	if (first == 0 && *nr_given == 1)
		for (size_t i = 1; i < nr_events; i++)
			names[i] = names[0];
	return 0;
}

void cgroup_names_free(const char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++) {
		bool seen = false;

		for (size_t j = 0; names[i] && j < i && !seen; j++)
			seen = names[j] == names[i];
		if (!seen)
			free((char *)names[i]);
	}
}

/* The options of a mount entry contain the word w. */
static bool has_option(const char *opts, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = opts; (p = strstr(p, w)); p += n)
		if ((p == opts || p[-1] == ',') && (!p[n] || p[n] == ','))
			return true;
	return false;
}

int cgroup_mountpoint(char *buf, size_t n)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	char v2[PATH_MAX] = "";
	struct mntent *m;
	bool v1 = false;

	if (!f)
		return -errno;
	while ((m = getmntent(f))) {
		if (!strcmp(m->mnt_type, "cgroup") && has_option(m->mnt_opts, "perf_event")) {
			snprintf(buf, n, "%s", m->mnt_dir);
			v1 = true;
			break;
		}
		if (!strcmp(m->mnt_type, "cgroup2") && !v2[0])
			snprintf(v2, sizeof(v2), "%s", m->mnt_dir);
	}
	endmntent(f);
	if (v1)
		return 0;
	if (!v2[0])
		return -ENOENT;
	snprintf(buf, n, "%s", v2);
	return 0;
}

int cgroup_open(const char *opt, const char *name, struct err *err)
{
	char mnt[PATH_MAX], path[PATH_MAX + 256];
	int fd, ret = cgroup_mountpoint(mnt, sizeof(mnt));

	if (ret)
		return err_set(err, ret, "%s %s: no cgroup file system for perf events is mounted "
			       "(neither a cgroup v1 perf_event hierarchy nor cgroup2)", opt, name);
	snprintf(path, sizeof(path), "%s/%s", mnt, name[0] == '/' ? name + 1 : name);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, -errno, "%s %s: no access to cgroup %s: %s", opt, name, path,
			       strerror(errno));
	return fd;
}

int cgroup_open_all(const char *opt, const char *const *names, size_t nr, int **fds,
		    struct err *err)
{
	int *v = calloc(nr ? nr : 1, sizeof(*v));

	if (!v)
		return err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < nr; i++) {
		v[i] = -1;
		if (!names[i])
			continue;
		for (size_t j = 0; j < i; j++)          /* the same cgroup: one fd */
			if (names[j] && !strcmp(names[j], names[i]))
				v[i] = v[j];
		if (v[i] < 0)
			v[i] = cgroup_open(opt, names[i], err);
		if (v[i] < 0) {
			int ret = v[i];

			v[i] = -1;
			cgroup_close_all(v, nr);
			return ret;
		}
	}
	*fds = v;
	return 0;
}

void cgroup_close_all(int *fds, size_t nr)
{
	if (!fds)
		return;
	for (size_t i = 0; i < nr; i++) {
		bool shared = false;

		for (size_t j = 0; j < i && fds[i] >= 0; j++)
			shared |= fds[j] == fds[i];
		if (fds[i] >= 0 && !shared)
			close(fds[i]);
	}
	free(fds);
}

int cgroup_id(int dirfd, const char *name, uint64_t *id)
{
	union {
		struct file_handle fh;
		char space[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} h;
	int mount_id;

	h.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(dirfd, name, &h.fh, &mount_id, 0) < 0)
		return -errno;
	if (h.fh.handle_bytes < sizeof(*id))
		return -EINVAL;
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}

/* One CGROUP record: u64 id, the path NUL-padded to 8 bytes. */
static int emit_cgroup(const struct synth_params *p, uint64_t id, const char *path,
		       struct err *err)
{
	struct buf b = BUF_INIT;
	static const char zeros[8];
	size_t len = strlen(path);
	int ret = buf_append(&b, &id, sizeof(id));

	if (!ret)
		ret = buf_append(&b, path, len);
	if (!ret)
		ret = buf_append(&b, zeros, 8 - len % 8);
	if (ret)
		ret = err_set(err, -ENOMEM, "out of memory");
	else
		ret = synth_record(p, PERF_RECORD_CGROUP, b.data, b.len, err);
	buf_free(&b);
	return ret;
}

/* The cgroup open as dirfd (its path rel, "/" for the root) and those below. */
static int walk(const struct synth_params *p, int dirfd, char *rel, size_t cap, int depth,
		struct err *err)
{
	size_t len = strlen(rel);
	uint64_t id;
	struct dirent *de;
	DIR *d;
	int ret = 0;

	if (!cgroup_id(dirfd, ".", &id) && (ret = emit_cgroup(p, id, rel, err)))
		return ret;
	if (depth >= CGROUP_WALK_DEPTH)
		return 0;
	d = fdopendir(dup(dirfd));
	if (!d)
		return 0;               /* gone or unreadable: what was emitted stays */
	while (!ret && (de = readdir(d))) {
		int fd;

		if (de->d_type != DT_DIR || de->d_name[0] == '.' ||
		    len + strlen(de->d_name) + 2 >= cap)
			continue;
		fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		snprintf(rel + len, cap - len, "%s%s", len > 1 ? "/" : "", de->d_name);
		ret = walk(p, fd, rel, cap, depth + 1, err);
		rel[len] = 0;
		close(fd);
	}
	closedir(d);
	return ret;
}

int cgroup_synth(const struct synth_params *p, struct err *err)
{
	char mnt[PATH_MAX], rel[PATH_MAX] = "/";
	int fd, ret;

	if (cgroup_mountpoint(mnt, sizeof(mnt)))
		return 0;               /* no cgroups: samples will carry ids only */
	fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ret = walk(p, fd, rel, sizeof(rel), 0, err);
	close(fd);
	return ret;
}
