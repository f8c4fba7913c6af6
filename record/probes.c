/* SPDX-License-Identifier: MIT */
/*
 * What the event parser leaves to the recorder for probes and mem:SYMBOL
 * breakpoints (common/events.h): the symbol of a u:/ur: probe turned into
 * a file offset of its binary (attr.config2), the variable of mem:SYMBOL
 * into an address of the workload (attr.bp_addr), and, just before each
 * perf_event_open, attr.config1 pointed at the binary's path or the kprobe's
 * symbol. Symbols are read through report/symbols/symbol_lookup.h.
 *
 * mem:SYMBOL takes the variable from the command's executable (found in
 * $PATH as execvp does) or, with -p, from /proc/PID/exe, whose load address
 * /proc/PID/maps gives. A position-independent command is loaded at a base
 * known only once it has exec'd: its breakpoints are opened at the
 * link-time address, the command is started traced (PTRACE_TRACEME), and
 * at its exec stop they are moved to the real address with
 * PERF_EVENT_IOC_MODIFY_ATTRIBUTES before it runs an instruction; then it
 * is let go (PTRACE_DETACH).
 */
#include "record.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include <linux/hw_breakpoint.h>

#include "report/symbols/symbol_lookup.h"

/* The n bytes of name at off, NUL-terminated, into buf. */
static void name_part(const struct event_spec *ev, uint16_t off, uint16_t n, char *buf,
		      size_t size)
{
	snprintf(buf, size, "%.*s", (int)n, ev->name + off);
}

bool event_is_probe(const struct event_spec *ev)
{
	return ev->probe && ev->probe != EVENT_PROBE_MEM_SYM;
}

void probe_attr_for_open(const struct event_spec *ev, struct perf_event_attr *a, char *buf,
			 size_t size)
{
	const struct event_probe_at *at = &ev->probe_at;

	if (!event_is_probe(ev))
		return;
	if (at->path_len)
		name_part(ev, at->path, at->path_len, buf, size);
	else
		name_part(ev, at->sym, at->sym_len, buf, size);
	a->config1 = (uint64_t)(uintptr_t)buf;
}

/* u:PATH:SYM[+OFF]: config2 = the file offset of SYM + OFF in PATH. */
static int resolve_uprobe(struct event_spec *ev, struct err *err)
{
	const struct event_probe_at *at = &ev->probe_at;
	char path[EVENT_NAME_MAX + 1], sym[EVENT_NAME_MAX + 1];
	struct symbol_hit hit;
	int ret;

	name_part(ev, at->path, at->path_len, path, sizeof(path));
	name_part(ev, at->sym, at->sym_len, sym, sizeof(sym));
	ret = symbol_lookup(path, sym, true, &hit, err);
	if (ret) {
		err_prefix(err, "event '%s'", ev->name);
		return ret;
	}
	if (at->off && at->off >= hit.size)
		return err_set(err, -EINVAL, "event '%s': offset %" PRIu64 " is beyond %s, which "
			       "is %" PRIu64 " bytes long", ev->name, at->off, sym, hit.size);
	if (!hit.in_file)
		return err_set(err, -EINVAL, "event '%s': %s has no code in %s's file",
			       ev->name, sym, path);
	ev->attr.config2 = hit.file_off + at->off;
	return 0;
}

/* The command as execvp would find it: with a '/', itself; else the first
 * executable of that name in $PATH. */
static int find_command(const char *cmd, char *buf, size_t size)
{
	const char *p = getenv("PATH");

	if (strchr(cmd, '/')) {
		snprintf(buf, size, "%s", cmd);
		return 0;
	}
	if (!p || !*p)
		p = "/usr/local/bin:/usr/bin:/bin";
	while (*p) {
		const char *end = strchrnul(p, ':');
		int n = (int)(end - p);

		snprintf(buf, size, "%.*s%s%s", n, p, n ? "/" : "", cmd);
		if (!access(buf, X_OK))
			return 0;
		p = *end ? end + 1 : end;
	}
	return -ENOENT;
}

/* The start of the first mapping of pid's executable (file offset 0). */
static int exe_base(long pid, uint64_t *base)
{
	char path[64], exe[PATH_MAX], line[PATH_MAX + 128];
	ssize_t n;
	FILE *f;
	int ret = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%ld/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0)
		return -errno;
	exe[n] = '\0';
	snprintf(path, sizeof(path), "/proc/%ld/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		unsigned long long start, off;
		int pos = 0;

		if (sscanf(line, "%llx-%*x %*s %llx %*s %*u %n", &start, &off, &pos) == 2 && pos &&
		    !off && !strncmp(line + pos, exe, (size_t)n) && line[pos + n] == '\n') {
			*base = start;
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

/* The breakpoint's length: /LEN as given (aligned?), else the variable's
 * size when 1, 2, 4 or 8, else the widest of those the address allows. */
static int bp_length(struct event_spec *ev, const struct symbol_hit *hit, uint64_t addr,
		     struct err *err)
{
	uint64_t len = ev->attr.bp_len;

	if (ev->probe_at.len_given) {
		if (addr % len)
			return err_set(err, -EINVAL, "event '%s': address 0x%" PRIx64 " is not "
				       "aligned to the length %" PRIu64, ev->name, addr, len);
		return 0;
	}
	if (hit->size == 1 || hit->size == 2 || hit->size == 4 || hit->size == 8)
		len = hit->size;
	else
		for (len = 8; addr % len; len /= 2)
			;
	if (addr % len)
		return err_set(err, -EINVAL, "event '%s': address 0x%" PRIx64 " is not aligned "
			       "to the variable's size %" PRIu64 ": give mem:ADDR/LEN", ev->name,
			       addr, len);
	ev->attr.bp_len = len;
	return 0;
}

/* mem:SYMBOL: the variable's address in the command (argv0) or process. */
static int resolve_bp(struct event_spec *ev, const char *argv0, long pid, struct err *err)
{
	char bin[PATH_MAX], sym[EVENT_NAME_MAX + 1];
	struct symbol_hit hit;
	uint64_t base = 0;
	int ret;

	name_part(ev, ev->probe_at.sym, ev->probe_at.sym_len, sym, sizeof(sym));
	if (pid > 0)
		snprintf(bin, sizeof(bin), "/proc/%ld/exe", pid);
	else if (!argv0)
		return err_set(err, -EINVAL, "event '%s': a variable needs a command, -p PID or -t TID "
			       "to take it from (or give mem:ADDR)", ev->name);
	else if (find_command(argv0, bin, sizeof(bin)))
		return err_set(err, -ENOENT, "event '%s': command '%s' not found", ev->name,
			       argv0);
	ret = symbol_lookup(bin, sym, false, &hit, err);
	if (ret) {
		err_prefix(err, "event '%s'", ev->name);
		return ret;
	}
	if (hit.pie && pid > 0 && exe_base(pid, &base))
		return err_set(err, -ESRCH, "event '%s': cannot find where process %ld's "
			       "executable is loaded (/proc/%ld/maps)", ev->name, pid, pid);
	if (hit.pie && pid > 0)
		base -= hit.load_vaddr;
	/* a PIE command: moved at its exec; bases are page-aligned, so the
	 * link-time address has the alignment the real one will have */
	ev->probe_at.at_exec = hit.pie && pid <= 0;
	ev->probe_at.load_vaddr = hit.load_vaddr;
	ret = bp_length(ev, &hit, hit.vaddr + base, err);
	if (ret)
		return ret;
	ev->attr.bp_addr = hit.vaddr + base;
	return 0;
}

int probes_resolve(struct event_list *l, char *const *argv, const char *pids, struct err *err)
{
	long pid = pids ? strtol(pids, NULL, 10) : 0;

	for (size_t i = 0; i < l->nr; i++) {
		struct event_spec *ev = &l->ev[i];
		int ret = 0;

		if (ev->probe_at.resolved || !ev->probe)
			continue;
		if (ev->probe == EVENT_PROBE_U || ev->probe == EVENT_PROBE_UR)
			ret = resolve_uprobe(ev, err);
		else if (ev->probe == EVENT_PROBE_MEM_SYM)
			ret = resolve_bp(ev, argv ? argv[0] : NULL, pid, err);
		if (ret)
			return ret;
		ev->probe_at.resolved = true;
	}
	return 0;
}

bool probes_need_exec_stop(const struct event_list *l)
{
	for (size_t i = 0; i < l->nr; i++)
		if (l->ev[i].probe == EVENT_PROBE_MEM_SYM && l->ev[i].probe_at.at_exec)
			return true;
	return false;
}

int probes_exec_stopped(pid_t pid, uint64_t *base, struct err *err)
{
	siginfo_t si = { 0 };
	int st;

	/* look first (WNOWAIT): an exit is the caller's to collect */
	while (waitid(P_PID, (id_t)pid, &si, WSTOPPED | WEXITED | WNOWAIT) < 0)
		if (errno != EINTR)
			return err_set(err, -errno, "waiting for the command's exec: %s",
				       strerror(errno));
	if (si.si_code != CLD_TRAPPED && si.si_code != CLD_STOPPED)
		return err_set(err, -ESRCH, "the command ended before its breakpoints could be set");
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (exe_base(pid, base)) {
		probes_exec_release(pid, false);
		return err_set(err, -ESRCH, "cannot find where the command was loaded "
			       "(/proc/%d/maps)", (int)pid);
	}
	return 0;
}

int probe_bp_move(int fd, const struct event_spec *ev, const struct perf_event_attr *opened,
		  uint64_t base, bool enable, struct err *err)
{
	struct perf_event_attr a = *opened;

	if (ev->probe != EVENT_PROBE_MEM_SYM || !ev->probe_at.at_exec)
		return 0;
	a.bp_addr = opened->bp_addr + base - ev->probe_at.load_vaddr;
	a.disabled = !enable;   /* the kernel disables it to move it */
	a.enable_on_exec = 0;   /* as the exec left it: the kernel compares the rest */
	if (ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) < 0)
		return err_set(err, -errno, "event '%s': cannot move the breakpoint to 0x%" PRIx64
			       " where the command was loaded: %s", ev->name, (uint64_t)a.bp_addr,
			       strerror(errno));
	return 0;
}

void probes_exec_release(pid_t pid, bool ok)
{
	if (!ok)        /* its breakpoints are not where they should be */
		kill(pid, SIGKILL);
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
}

int session_probes_at_exec(struct session *s, pid_t pid, struct err *err)
{
	uint64_t base;
	int ret = probes_exec_stopped(pid, &base, err);

	for (size_t k = 0; !ret && k < s->nr_evfds; k++) {
		const struct evfd *e = &s->evfds[k];

		ret = probe_bp_move(e->fd, &s->events[e->event], &s->attrs[e->event], base, true,
				    err);
	}
	probes_exec_release(pid, !ret);
	return ret;
}
