/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the symbolizer (report/symbols*.c), on this test binary
 * itself (its functions, an inlined copy, its PLT), on libc, on stripped
 * copies made with objcopy (debug file by build id, by .gnu_debuglink,
 * .gnu_debugdata), on build-id mismatches, missing and truncated files, on
 * perf's build-id cache and an unreachable debuginfod, and on kallsyms text.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <gelf.h>
#include <limits.h>
#include <link.h>
#include <lzma.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "report/symbols/symbols.h"

/* ---- code to look up ------------------------------------------------------ */

static volatile unsigned sink_v;
static volatile unsigned inl_call_line;

__attribute__((noinline)) unsigned sym_test_target(unsigned x);
enum { TARGET_FIRST = __LINE__ };
__attribute__((noinline)) unsigned sym_test_target(unsigned x)
{
	for (unsigned i = 0; i < x; i++)
		sink_v += i ^ (sink_v << 1);
	return sink_v;
}
enum { TARGET_LAST = __LINE__ };

__attribute__((noinline)) static unsigned sym_test_static(unsigned x)
{
	for (unsigned i = 0; i < x; i++)
		sink_v ^= i * 7 + (sink_v >> 2);
	return sink_v;
}

enum { INL_FIRST = __LINE__ + 1 };
static inline __attribute__((always_inline)) unsigned inl_mix(unsigned x)
{
	for (unsigned i = 0; i < x; i++)
		sink_v += (i * x) ^ (sink_v >> 3);
	return sink_v * 3;
}
enum { INL_LAST = __LINE__ };

__attribute__((noinline)) static unsigned inl_caller(unsigned x)
{
	unsigned r = sink_v;

	sink_v = r + 1;
	r += inl_mix(x); inl_call_line = __LINE__;
	return r + sink_v;
}

/* ---- helpers -------------------------------------------------------------- */

struct warns {
	unsigned n;
	char last[512];
};

static void warn_cb(void *ctx, const char *msg)
{
	struct warns *w = ctx;

	w->n++;
	snprintf(w->last, sizeof(w->last), "%s", msg);
}

static struct symbolizer *new_sym(struct warns *w, const char *debug_root)
{
	struct symbolizer_opts o = {
		.debug_root = debug_root, .warn = warn_cb, .warn_ctx = w,
	};
	struct symbolizer *s = symbolizer_new(&o);

	assert_non_null(s);
	return s;
}

/* The mapping of /proc/self/maps holding addr: its file and file offset. */
static uint64_t file_offset_of(const void *addr, char *path, size_t path_size)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128];
	uintptr_t a = (uintptr_t)addr;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, pgoff;
		int pos = 0;

		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %n", &lo, &hi, &pgoff, &pos) < 3 || !pos)
			continue;
		if (a < lo || a >= hi)
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(path, path_size, "%s", line + pos);
		fclose(f);
		return a - lo + pgoff;
	}
	fclose(f);
	fail_msg("%p not in /proc/self/maps", addr);
	return 0;
}

static int build_id_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	uint8_t *out = data;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		size_t off = 0;

		if (ph->p_type != PT_NOTE)
			continue;
		while (off + 12 <= ph->p_memsz) {
			uint32_t namesz, descsz, type;

			memcpy(&namesz, p + off, 4);
			memcpy(&descsz, p + off + 4, 4);
			memcpy(&type, p + off + 8, 4);
			off += 12;
			if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + off, "GNU", 4)) {
				out[0] = (uint8_t)descsz;
				memcpy(out + 1, p + off + 4, descsz);
				return 1;
			}
			off += ((namesz + 3) & ~3u) + ((descsz + 3) & ~3u);
		}
	}
	return 1;       /* the first object is the main program */
}

/* This binary's build id: bid[0] = its size. */
static void self_build_id(uint8_t bid[65])
{
	bid[0] = 0;
	dl_iterate_phdr(build_id_cb, bid);
	assert_true(bid[0] >= 4);
}

static char tmpdir[PATH_MAX];

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static int setup_tmp(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_symbols.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_tmp(void **state)
{
	(void)state;
	return nftw(tmpdir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static int run(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static bool have_objcopy(void)
{
	return run("objcopy --version >/dev/null 2>&1") == 0;
}

static void self_path(char *p, size_t n)
{
	ssize_t r = readlink("/proc/self/exe", p, n - 1);

	assert_true(r > 0);
	p[r] = 0;
}

static void expect_name(struct symbolizer *s, struct sym_dso *d, uint64_t off, const char *name)
{
	struct sym_info si;

	assert_int_equal(sym_dso_lookup(s, d, off, &si), 0);
	if (!name) {
		assert_null(si.name);
		return;
	}
	assert_non_null(si.name);
	assert_string_equal(si.name, name);
}

/* ---- tests ---------------------------------------------------------------- */

static void test_self_lookup(void **state)
{
	char path[PATH_MAX], exe[PATH_MAX];
	uint64_t off = file_offset_of((void *)sym_test_target, path, sizeof(path));
	uint64_t soff = file_offset_of((void *)sym_test_static, path, sizeof(path));
	struct symbolizer *s = new_sym(NULL, NULL);
	struct symbolizer_stats st;
	struct sym_dso *d;
	struct sym_info si, si2;

	(void)state;
	self_path(exe, sizeof(exe));
	assert_string_equal(path, exe);
	sink_v = sym_test_target(3) + sym_test_static(3);
	d = symbolizer_dso(s, path, NULL, 0);
	assert_non_null(d);
	assert_ptr_equal(d, symbolizer_dso(s, path, NULL, 0));
	assert_true(sym_dso_usable(s, d));

	assert_int_equal(sym_dso_lookup(s, d, off, &si), 0);
	assert_non_null(si.name);
	assert_string_equal(si.name, "sym_test_target");
	assert_int_equal(si.addr, si.start);
	assert_true(si.size > 4);
	assert_int_equal(sym_dso_lookup(s, d, off + 3, &si2), 0);
	assert_string_equal(si2.name, "sym_test_target");
	assert_int_equal(si2.start, si.start);
	assert_int_equal(si2.addr, si.start + 3);
	assert_int_equal(sym_dso_lookup(s, d, off + si.size - 1, &si2), 0);
	assert_string_equal(si2.name, "sym_test_target");

	/* a static function: only in .symtab */
	expect_name(s, d, soff + 1, "sym_test_static");

	symbolizer_get_stats(s, &st);
	assert_int_equal(st.dsos, 1);
	assert_int_equal(st.lookups, 4);
	assert_int_equal(st.unresolved, 0);
	assert_int_equal(st.dwarf_dsos, 0);
	symbolizer_free(s);
}

/* A debug file with compressed sections: with a cache folder, a copy with
 * the sections inflated is kept (once) and gives the same source lines. */
static void test_debug_compressed_kept(void **state)
{
	char exe[PATH_MAX], root[PATH_MAX + 16], dbg[PATH_MAX + 320], strip[PATH_MAX + 16];
	char cache[PATH_MAX + 16], kept[PATH_MAX + 400], hex[131];
	struct symbolizer_opts o = { 0 };
	uint8_t bid[65];
	uint64_t off;
	const struct sym_frame *f;
	size_t n;
	struct stat st;

	(void)state;
	if (!have_objcopy())
		skip();
	self_path(exe, sizeof(exe));
	off = file_offset_of((void *)sym_test_target, exe, sizeof(exe));
	self_build_id(bid);
	for (int i = 0; i < bid[0]; i++)
		sprintf(hex + 2 * i, "%02x", bid[1 + i]);
	snprintf(root, sizeof(root), "%s/zdebug", tmpdir);
	snprintf(dbg, sizeof(dbg), "%s/.build-id/%.2s", root, hex);
	assert_int_equal(run("mkdir -p '%s'", dbg), 0);
	snprintf(dbg, sizeof(dbg), "%s/.build-id/%.2s/%s.debug", root, hex, hex + 2);
	snprintf(strip, sizeof(strip), "%s/zstripped", tmpdir);
	snprintf(cache, sizeof(cache), "%s/zcache", tmpdir);
	snprintf(kept, sizeof(kept), "%s/debug/%s.debug", cache, hex);
	if (run("objcopy --only-keep-debug --compress-debug-sections=zlib '%s' '%s'", exe, dbg))
		skip();
	assert_int_equal(run("objcopy --strip-all '%s' '%s'", exe, strip), 0);
	o.debug_root = root;
	o.cache_dir = cache;
	o.kallsyms_path = "/nonexistent";
	for (int round = 0; round < 2; round++) {
		struct symbolizer *s = symbolizer_new(&o);
		struct sym_dso *d = symbolizer_dso(s, strip, bid + 1, bid[0]);

		assert_int_equal(sym_dso_srcline(s, d, off, &f, &n), 0);
		assert_true(n >= 1);
		assert_string_equal(f[n - 1].function, "sym_test_target");
		assert_non_null(strstr(f[0].file, "tests/unit/test_symbols.c"));
		assert_true(f[0].line >= TARGET_FIRST && f[0].line <= TARGET_LAST);
		symbolizer_free(s);
		/* the kept copy exists, its sections stored plain */
		assert_int_equal(stat(kept, &st), 0);
		assert_int_equal(run("readelf -S -W '%s' 2>/dev/null | grep ' .debug_info' | grep -qv ' C '", kept), 0);
	}
}

static void test_srcline_plain(void **state)
{
	char path[PATH_MAX];
	uint64_t off = file_offset_of((void *)sym_test_target, path, sizeof(path));
	struct symbolizer *s = new_sym(NULL, NULL);
	struct sym_dso *d = symbolizer_dso(s, path, NULL, 0);
	const struct sym_frame *f, *f2;
	struct symbolizer_stats st;
	size_t n, n2;

	(void)state;
	assert_int_equal(sym_dso_srcline(s, d, off, &f, &n), 0);
	assert_true(n >= 1);
	assert_non_null(f[n - 1].function);
	assert_string_equal(f[n - 1].function, "sym_test_target");
	assert_non_null(f[0].file);
	assert_true(f[0].file[0] == '/');
	assert_non_null(strstr(f[0].file, "tests/unit/test_symbols.c"));
	assert_true(f[0].line >= TARGET_FIRST && f[0].line <= TARGET_LAST);
	/* cached: the same array */
	assert_int_equal(sym_dso_srcline(s, d, off, &f2, &n2), 0);
	assert_ptr_equal(f, f2);
	assert_int_equal(n, n2);
	symbolizer_get_stats(s, &st);
	assert_int_equal(st.dwarf_dsos, 1);
	symbolizer_free(s);
}

static void test_inline_chain(void **state)
{
	char path[PATH_MAX];
	uint64_t off = file_offset_of((void *)inl_caller, path, sizeof(path));
	struct symbolizer *s = new_sym(NULL, NULL);
	struct sym_dso *d = symbolizer_dso(s, path, NULL, 0);
	struct sym_info si;
	unsigned found = 0;

	(void)state;
	sink_v = inl_caller(5);
	assert_true(inl_call_line > 0);
	assert_int_equal(sym_dso_lookup(s, d, off, &si), 0);
	assert_non_null(si.name);
	assert_string_equal(si.name, "inl_caller");
	for (uint64_t k = 0; k < si.size; k++) {
		const struct sym_frame *f;
		size_t n;

		assert_int_equal(sym_dso_srcline(s, d, off + k, &f, &n), 0);
		if (n < 2 || !f[0].function || strcmp(f[0].function, "inl_mix"))
			continue;
		found++;
		assert_true(f[0].line >= INL_FIRST && f[0].line <= INL_LAST);
		assert_non_null(strstr(f[0].file, "test_symbols.c"));
		assert_non_null(f[1].function);
		assert_string_equal(f[1].function, "inl_caller");
		assert_int_equal(f[1].line, inl_call_line);
		assert_non_null(strstr(f[1].file, "test_symbols.c"));
		assert_int_equal(n, 2);
	}
	assert_true(found > 0);
	symbolizer_free(s);
}

/* The PLT of this binary: every entry is name@plt, getpid's among them,
 * and (x86-64) its GOT slot holds what the loader bound getpid to. */
static void test_plt(void **state)
{
	char path[PATH_MAX];
	struct symbolizer *s = new_sym(NULL, NULL);
	struct sym_dso *d;
	Elf_Scn *scn = NULL, *plt = NULL, *sec = NULL;
	GElf_Shdr sh, plt_sh = { 0 }, sec_sh = { 0 };
	size_t shstrndx;
	bool seen_getpid = false;
	uint64_t bias;
	int fd;
	Elf *e;

	(void)state;
	assert_true(getpid() > 0);
	file_offset_of((void *)sym_test_target, path, sizeof(path));
	d = symbolizer_dso(s, path, NULL, 0);
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
	while ((scn = elf_nextscn(e, scn))) {
		const char *name;

		gelf_getshdr(scn, &sh);
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!strcmp(name, ".plt")) {
			plt = scn;
			plt_sh = sh;
		} else if (!strcmp(name, ".plt.sec")) {
			sec = scn;
			sec_sh = sh;
		}
	}
	assert_non_null(plt);
	{
		struct sym_info si;
		uint64_t toff = file_offset_of((void *)sym_test_target, path, sizeof(path));

		assert_int_equal(sym_dso_lookup(s, d, toff, &si), 0);
		bias = (uintptr_t)sym_test_target - si.start;
	}
	expect_name(s, d, plt_sh.sh_offset, ".plt");
	{
		GElf_Shdr *esh = sec ? &sec_sh : &plt_sh;
		uint64_t first = sec ? 0 : 16;
		Elf_Data *data = elf_getdata(sec ? sec : plt, NULL);

		assert_non_null(data);
		for (uint64_t o = first; o + 16 <= esh->sh_size; o += 16) {
			struct sym_info si;
			size_t len;

			assert_int_equal(sym_dso_lookup(s, d, esh->sh_offset + o + 2, &si), 0);
			assert_non_null(si.name);
			len = strlen(si.name);
			assert_true(len > 4 && !strcmp(si.name + len - 4, "@plt"));
			assert_int_equal(si.start, esh->sh_addr + o);
			if (strcmp(si.name, "getpid@plt"))
				continue;
			seen_getpid = true;
#ifdef __x86_64__
			{
				/* the GOT slot the entry jumps through holds, once the
				 * loader bound it, what dlsym says getpid is */
				const uint8_t *code = (const uint8_t *)data->d_buf + o;
				void *sym = dlsym(RTLD_DEFAULT, "getpid");
				uint64_t slot = 0;

				for (int k = 0; k + 6 <= 16; k++) {
					if (code[k] == 0xff && code[k + 1] == 0x25) {
						int32_t disp;

						memcpy(&disp, code + k + 2, 4);
						slot = esh->sh_addr + o + (uint64_t)k + 6 +
							(uint64_t)(int64_t)disp;
						break;
					}
				}
				assert_true(slot != 0);
				assert_non_null(sym);
				assert_ptr_equal(*(void **)(uintptr_t)(bias + slot), sym);
			}
#endif
		}
	}
	assert_true(seen_getpid);
	elf_end(e);
	close(fd);
	symbolizer_free(s);
}

/* libc's .plt: every entry has a name; those whose relocation has no
 * symbol (glibc's IRELATIVE slots of its ifuncs, on x86-64) are "@plt", as
 * perf 6.1 names them. */
static void test_plt_unnamed_slots(void **state)
{
	struct symbolizer *s = new_sym(NULL, NULL);
	unsigned named = 0, unnamed = 0;
	struct sym_dso *d;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, plt_sh = { 0 };
	size_t shstrndx;
	Dl_info info;
	int fd;
	Elf *e;

	(void)state;
	assert_true(dladdr((void *)(uintptr_t)printf, &info) && info.dli_fname);
	d = symbolizer_dso(s, info.dli_fname, NULL, 0);
	fd = open(info.dli_fname, O_RDONLY);
	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && !strcmp(elf_strptr(e, shstrndx, sh.sh_name), ".plt"))
			plt_sh = sh;
	if (!plt_sh.sh_size) {
		elf_end(e);
		close(fd);
		symbolizer_free(s);
		skip();
	}
	for (uint64_t o = 16; o + 16 <= plt_sh.sh_size; o += 16) {
		struct sym_info si;
		size_t len;

		assert_int_equal(sym_dso_lookup(s, d, plt_sh.sh_offset + o + 2, &si), 0);
		assert_non_null(si.name);
		len = strlen(si.name);
		assert_true(len >= 4 && !strcmp(si.name + len - 4, "@plt"));
		if (len == 4)
			unnamed++;
		else
			named++;
	}
	/* a libc without IRELATIVE slots in its .plt proves nothing here */
	print_message("libc .plt: %u named entries, %u unnamed (@plt)\n", named, unnamed);
	elf_end(e);
	close(fd);
	symbolizer_free(s);
}

/* Every PLT entry objdump names (its own synthetic X@plt symbols) gets
 * the same name from the symbolizer; returns how many were compared. */
static unsigned plt_like_objdump(const char *bin)
{
	char cmd[PATH_MAX + 128], line[512];
	struct symbolizer *s = new_sym(NULL, tmpdir);
	struct sym_dso *d = symbolizer_dso(s, bin, NULL, 0);
	unsigned n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null",
		 bin);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long vaddr;
		char name[256];
		struct sym_info si;

		size_t len;

		if (sscanf(line, "%llx <%255[^>]>:", &vaddr, name) != 2)
			continue;
		len = strlen(name);
		if (len < 5 || strcmp(name + len - 4, "@plt"))
			continue;       /* also objdump's "x@plt-0x10" for the header */
		/* small PIEs map their text at offset == vaddr; si.addr checks it */
		assert_int_equal(sym_dso_lookup(s, d, vaddr + 1, &si), 0);
		assert_int_equal(si.addr, vaddr + 1);
		assert_non_null(si.name);
		assert_string_equal(si.name, name);
		assert_int_equal(si.start, vaddr);
		n++;
	}
	pclose(p);
	symbolizer_free(s);
	return n;
}

/* A binary built with IBT PLTs (.plt.sec, as -fcf-protection distributions
 * build them) and -z now, compiled here when a compiler is at hand. */
static void test_plt_sec(void **state)
{
	char src[PATH_MAX + 16], bin[PATH_MAX + 16], cmd[3 * PATH_MAX];
	FILE *f;

	(void)state;
	if (run("objdump --version >/dev/null 2>&1"))
		skip();
	snprintf(src, sizeof(src), "%s/ibt.c", tmpdir);
	snprintf(bin, sizeof(bin), "%s/ibt", tmpdir);
	f = fopen(src, "w");
	assert_non_null(f);
	fputs("#include <stdio.h>\n#include <unistd.h>\n"
	      "int main(void) { printf(\"%d\\n\", getpid()); puts(\"x\"); return 0; }\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -O2 -fcf-protection=full -Wl,-z,ibtplt -Wl,-z,now "
		 "-o '%s' '%s' 2>/dev/null", bin, src);
	if (run("%s", cmd) || run("readelf -SW '%s' | grep -q '\\.plt\\.sec'", bin))
		skip();
	assert_true(plt_like_objdump(bin) >= 3);
}

static void test_plt_self(void **state)
{
	char exe[PATH_MAX];

	(void)state;
	if (run("objdump --version >/dev/null 2>&1"))
		skip();
	self_path(exe, sizeof(exe));
	assert_true(plt_like_objdump(exe) >= 3);
}

static void test_libc(void **state)
{
	char path[PATH_MAX];
	void *fn = dlsym(RTLD_DEFAULT, "getpid");
	uint64_t off;
	struct symbolizer *s = new_sym(NULL, NULL);
	struct sym_dso *d;
	struct sym_info si;

	(void)state;
	assert_non_null(fn);
	off = file_offset_of(fn, path, sizeof(path));
	d = symbolizer_dso(s, path, NULL, 0);
	assert_int_equal(sym_dso_lookup(s, d, off, &si), 0);
	assert_non_null(si.name);
	/* getpid is a weak alias of __getpid: perf prefers the non-weak one */
	assert_true(!strcmp(si.name, "__getpid") || !strcmp(si.name, "getpid"));
	assert_int_equal(si.addr, si.start);
	symbolizer_free(s);
}

static void test_missing(void **state)
{
	struct warns w = { 0 };
	struct symbolizer *s = new_sym(&w, tmpdir);
	struct sym_dso *d = symbolizer_dso(s, "/nonexistent/dir/libnothing.so", NULL, 0);
	const struct sym_frame *f;
	struct symbolizer_stats st;
	struct sym_info si;
	size_t n = 9;

	(void)state;
	assert_int_equal(sym_dso_lookup(s, d, 0x1234, &si), 0);
	assert_null(si.name);
	assert_int_equal(si.addr, 0x1234);
	assert_int_equal(sym_dso_srcline(s, d, 0x1234, &f, &n), 0);
	assert_int_equal(n, 0);
	assert_false(sym_dso_usable(s, d));
	symbolizer_get_stats(s, &st);
	assert_int_equal(st.dsos_missing, 1);
	assert_int_equal(st.unresolved, 1);
	symbolizer_free(s);
}

/* A copy of this test binary in tmpdir named name (its path in copy), and
 * sym_test_target's file offset in it. */
static uint64_t self_copy(const char *name, char *copy, size_t size)
{
	char exe[PATH_MAX];
	uint64_t off;

	self_path(exe, sizeof(exe));
	off = file_offset_of((void *)sym_test_target, exe, sizeof(exe));
	snprintf(copy, size, "%s/%s", tmpdir, name);
	assert_int_equal(run("cp '%s' '%s'", exe, copy), 0);
	return off;
}

static void test_build_id_mismatch(void **state)
{
	char copy[PATH_MAX + 16];
	uint8_t bad[20];
	uint64_t off;
	struct warns w = { 0 };
	struct symbolizer *s = new_sym(&w, tmpdir);
	struct symbolizer_stats st;
	struct sym_dso *d;
	struct sym_info si;

	(void)state;
	off = self_copy("copy", copy, sizeof(copy));
	memset(bad, 0xab, sizeof(bad));
	d = symbolizer_dso(s, copy, bad, sizeof(bad));
	assert_ptr_not_equal(d, symbolizer_dso(s, copy, NULL, 0));
	assert_int_equal(sym_dso_lookup(s, d, off, &si), 0);
	assert_null(si.name);
	assert_int_equal(sym_dso_lookup(s, d, off + 1, &si), 0);
	assert_null(si.name);
	assert_false(sym_dso_usable(s, d));
	assert_int_equal(w.n, 1);
	assert_non_null(strstr(w.last, "build id abababab"));
	assert_non_null(strstr(w.last, "but the file on disk has "));
	assert_non_null(strstr(w.last, "its addresses stay unresolved"));
	symbolizer_get_stats(s, &st);
	assert_int_equal(st.dsos_mismatch, 1);
	assert_int_equal(st.unresolved, 2);

	/* the right build id: fine */
	{
		uint8_t bid[65];

		self_build_id(bid);
		d = symbolizer_dso(s, copy, bid + 1, bid[0]);
		expect_name(s, d, off, "sym_test_target");
	}
	symbolizer_free(s);
}

/* Symbols read ahead on a thread (symbolizer_prefetch_symbols): the same
 * names, states, counts and warnings as read when asked, for a binary, a
 * missing one and one whose build id is another's; the warning said once,
 * on the caller's thread when the reading ahead ends. */
static void test_prefetch_symbols(void **state)
{
	char exe[PATH_MAX], copy[PATH_MAX + 16];
	uint8_t bad[20];
	uint64_t off;
	struct warns w = { 0 };
	struct symbolizer *s = new_sym(&w, tmpdir);
	struct symbolizer_stats st;
	struct sym_dso *v[3];
	struct sym_info si;

	(void)state;
	off = self_copy("copy_pf", copy, sizeof(copy));
	self_path(exe, sizeof(exe));
	memset(bad, 0xcd, sizeof(bad));
	v[0] = symbolizer_dso(s, exe, NULL, 0);
	v[1] = symbolizer_dso(s, "/nonexistent/dir/libprefetched.so", NULL, 0);
	v[2] = symbolizer_dso(s, copy, bad, sizeof(bad));
	assert_int_equal(symbolizer_prefetch_symbols(s, v, 3), 0);
	/* once only */
	assert_int_equal(symbolizer_prefetch_symbols(s, v, 3), 0);
	assert_int_equal(w.n, 0);
	symbolizer_prefetch_wait(s);
	assert_int_equal(w.n, 1);
	expect_name(s, v[0], off, "sym_test_target");
	assert_non_null(strstr(w.last, "build id cdcdcdcd"));
	assert_int_equal(sym_dso_lookup(s, v[1], 0x1234, &si), 0);
	assert_null(si.name);
	assert_int_equal(sym_dso_lookup(s, v[2], off, &si), 0);
	assert_null(si.name);
	assert_false(sym_dso_usable(s, v[1]));
	assert_false(sym_dso_usable(s, v[2]));
	assert_int_equal(w.n, 1);
	symbolizer_get_stats(s, &st);
	assert_int_equal(st.dsos_missing, 1);
	assert_int_equal(st.dsos_mismatch, 1);
	assert_int_equal(st.unresolved, 2);
	symbolizer_free(s);

	/* the first use while it runs waits for it: the second dso's warning
	 * said then, once */
	s = new_sym(&w, tmpdir);
	v[0] = symbolizer_dso(s, exe, NULL, 0);
	v[1] = symbolizer_dso(s, copy, bad, sizeof(bad));
	assert_int_equal(symbolizer_prefetch_symbols(s, v, 2), 0);
	expect_name(s, v[0], off, "sym_test_target");
	assert_int_equal(w.n, 2);
	assert_int_equal(sym_dso_lookup(s, v[1], off, &si), 0);
	assert_null(si.name);
	assert_int_equal(w.n, 2);
	symbolizer_get_stats(s, &st);
	assert_int_equal(st.dsos_mismatch, 1);
	symbolizer_free(s);

	/* freed while it may still run: nothing leaks */
	s = new_sym(&w, tmpdir);
	v[0] = symbolizer_dso(s, exe, NULL, 0);
	assert_int_equal(symbolizer_prefetch_symbols(s, v, 1), 0);
	symbolizer_free(s);
}

/* A stripped copy with its debug file under <root>/.build-id/. */
static void test_debug_by_build_id(void **state)
{
	char exe[PATH_MAX], root[PATH_MAX + 16], dbg[PATH_MAX + 320], strip[PATH_MAX + 16];
	char hex[131];
	uint8_t bid[65];
	uint64_t off, soff;
	struct symbolizer *s;
	struct sym_dso *d;
	const struct sym_frame *f;
	size_t n;
	struct warns w = { 0 };

	(void)state;
	if (!have_objcopy())
		skip();
	self_path(exe, sizeof(exe));
	off = file_offset_of((void *)sym_test_target, exe, sizeof(exe));
	soff = file_offset_of((void *)sym_test_static, exe, sizeof(exe));
	self_build_id(bid);
	for (int i = 0; i < bid[0]; i++)
		sprintf(hex + 2 * i, "%02x", bid[1 + i]);
	snprintf(root, sizeof(root), "%s/debug", tmpdir);
	snprintf(dbg, sizeof(dbg), "%s/.build-id/%.2s", root, hex);
	assert_int_equal(run("mkdir -p '%s'", dbg), 0);
	snprintf(dbg, sizeof(dbg), "%s/.build-id/%.2s/%s.debug", root, hex, hex + 2);
	snprintf(strip, sizeof(strip), "%s/stripped", tmpdir);
	assert_int_equal(run("objcopy --only-keep-debug '%s' '%s'", exe, dbg), 0);
	assert_int_equal(run("objcopy --strip-all '%s' '%s'", exe, strip), 0);

	/* without the debug root: .dynsym only, the static function is unknown */
	s = new_sym(&w, tmpdir);
	d = symbolizer_dso(s, strip, bid + 1, bid[0]);
	expect_name(s, d, soff, NULL);
	symbolizer_free(s);

	s = new_sym(&w, root);
	d = symbolizer_dso(s, strip, bid + 1, bid[0]);
	expect_name(s, d, soff, "sym_test_static");
	expect_name(s, d, off + 2, "sym_test_target");
	assert_int_equal(sym_dso_srcline(s, d, off, &f, &n), 0);
	assert_true(n >= 1);
	assert_string_equal(f[n - 1].function, "sym_test_target");

	/* the binary missing, or a different one on disk: the debug file serves */
	d = symbolizer_dso(s, "/nonexistent/stripped", bid + 1, bid[0]);
	expect_name(s, d, soff, "sym_test_static");
	d = symbolizer_dso(s, "/bin/sh", bid + 1, bid[0]);
	expect_name(s, d, soff, "sym_test_static");
	assert_int_equal(w.n, 0);
	symbolizer_free(s);
}

static void test_debuglink(void **state)
{
	char exe[PATH_MAX], dir[PATH_MAX + 16], bin[PATH_MAX + 32];
	uint64_t soff;
	struct symbolizer *s;
	struct sym_dso *d;
	struct warns w = { 0 };

	(void)state;
	if (!have_objcopy())
		skip();
	self_path(exe, sizeof(exe));
	soff = file_offset_of((void *)sym_test_static, exe, sizeof(exe));
	snprintf(dir, sizeof(dir), "%s/dl", tmpdir);
	/* no build ids at all, so that the CRC decides */
	assert_int_equal(run("mkdir -p '%s/.debug' && cd '%s' && "
			     "objcopy --only-keep-debug -R .note.gnu.build-id '%s' .debug/x.debug && "
			     "objcopy --strip-all -R .note.gnu.build-id "
			     "--add-gnu-debuglink=.debug/x.debug '%s' bin", dir, dir, exe, exe), 0);
	s = new_sym(&w, tmpdir);
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	d = symbolizer_dso(s, bin, NULL, 0);
	expect_name(s, d, soff, "sym_test_static");
	symbolizer_free(s);

	/* a debug file whose CRC differs is not used */
	assert_int_equal(run("printf x >> '%s/.debug/x.debug'", dir), 0);
	s = new_sym(&w, tmpdir);
	d = symbolizer_dso(s, bin, NULL, 0);
	expect_name(s, d, soff, NULL);
	symbolizer_free(s);
}

static void test_gnu_debugdata(void **state)
{
	char exe[PATH_MAX], dir[PATH_MAX + 16], mini[PATH_MAX + 32], bin[PATH_MAX + 32];
	uint64_t soff, off;
	struct symbolizer *s;
	struct sym_dso *d;
	uint8_t *in, *out;
	size_t in_len, out_len = 0;
	FILE *f;
	long sz;

	(void)state;
	if (!have_objcopy())
		skip();
	self_path(exe, sizeof(exe));
	soff = file_offset_of((void *)sym_test_static, exe, sizeof(exe));
	off = file_offset_of((void *)sym_test_target, exe, sizeof(exe));
	snprintf(dir, sizeof(dir), "%s/dd", tmpdir);
	assert_int_equal(run("mkdir -p '%s' && cd '%s' && objcopy --only-keep-debug '%s' full && "
			     "objcopy --strip-debug full mini", dir, dir, exe), 0);
	snprintf(mini, sizeof(mini), "%s/mini", dir);
	f = fopen(mini, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	in_len = (size_t)sz;
	in = malloc(in_len);
	out = malloc(in_len + 65536);
	assert_int_equal(fread(in, 1, in_len, f), in_len);
	fclose(f);
	assert_int_equal(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, in, in_len, out,
						 &out_len, in_len + 65536), LZMA_OK);
	snprintf(mini, sizeof(mini), "%s/mini.xz", dir);
	f = fopen(mini, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(out, 1, out_len, f), out_len);
	fclose(f);
	free(in);
	free(out);
	assert_int_equal(run("cd '%s' && objcopy --strip-all --add-section .gnu_debugdata=mini.xz "
			     "'%s' bin", dir, exe), 0);
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	s = new_sym(NULL, tmpdir);
	d = symbolizer_dso(s, bin, NULL, 0);
	expect_name(s, d, soff, "sym_test_static");
	expect_name(s, d, off, "sym_test_target");
	symbolizer_free(s);
}

static void test_truncated(void **state)
{
	char exe[PATH_MAX], bad[PATH_MAX + 16];
	static const size_t sizes[] = { 0, 3, 52, 64, 200, 4096, 20000, 100000 };
	struct stat st;

	(void)state;
	self_path(exe, sizeof(exe));
	assert_int_equal(stat(exe, &st), 0);
	snprintf(bad, sizeof(bad), "%s/trunc", tmpdir);
	for (size_t i = 0; i <= sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t len = i < sizeof(sizes) / sizeof(sizes[0]) ? sizes[i] :
			(size_t)st.st_size / 2;
		struct symbolizer *s = new_sym(NULL, tmpdir);
		struct warns w = { 0 };
		struct sym_dso *d;
		const struct sym_frame *f;
		struct sym_info si;
		size_t n;

		assert_int_equal(run("head -c %zu '%s' > '%s'", len, exe, bad), 0);
		symbolizer_free(s);
		s = new_sym(&w, tmpdir);
		d = symbolizer_dso(s, bad, NULL, 0);
		for (uint64_t off = 0; off < 0x40000; off += 0x777) {
			assert_int_equal(sym_dso_lookup(s, d, off, &si), 0);
			assert_int_equal(sym_dso_srcline(s, d, off, &f, &n), 0);
		}
		symbolizer_free(s);
	}
}

/* ---- where files are found: perf's build-id cache, debuginfod ------------ */

static struct symbolizer *new_sym_cache(struct warns *w, const char *buildid_dir)
{
	struct symbolizer_opts o = {
		.debug_root = tmpdir, .buildid_dir = buildid_dir, .warn = warn_cb, .warn_ctx = w,
	};
	struct symbolizer *s = symbolizer_new(&o);

	assert_non_null(s);
	return s;
}

static void bid_hex(const uint8_t *bid, size_t n, char *hex)
{
	for (size_t i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", bid[i]);
}

/* Puts file at <cache>/.build-id/xx/rest/<leaf> (made by cmd, "%s" = the
 * destination) for the build id. */
static void cache_put_file(const char *cache, const uint8_t *bid, size_t n, const char *leaf,
			   const char *cmd)
{
	char hex[131], dir[PATH_MAX + 200], dst[PATH_MAX + 256];

	bid_hex(bid, n, hex);
	snprintf(dir, sizeof(dir), "%s/.build-id/%.2s/%s", cache, hex, hex + 2);
	assert_int_equal(run("mkdir -p '%s'", dir), 0);
	snprintf(dst, sizeof(dst), "%s/%s", dir, leaf);
	assert_int_equal(run(cmd, dst), 0);
}

/* $HOME/.debug/.build-id/xx/rest/elf (perf's cache) serves a binary whose
 * recorded path is gone or holds another one; the "debug" file beside it
 * serves a stripped binary. Wrong build ids there are not used. */
static void test_buildid_cache(void **state)
{
	char exe[PATH_MAX], cache[PATH_MAX + 32], cmd[2 * PATH_MAX + 64], strip[PATH_MAX + 16];
	char home[PATH_MAX + 16], old_home[PATH_MAX];
	const char *h = getenv("HOME");
	uint8_t bid[65], fake[20];
	uint64_t off, soff;
	struct symbolizer *s;
	struct symbolizer_stats st;
	struct sym_dso *d;
	const struct sym_frame *f;
	size_t n;
	struct warns w = { 0 };

	(void)state;
	snprintf(old_home, sizeof(old_home), "%s", h ? h : "");
	self_path(exe, sizeof(exe));
	off = file_offset_of((void *)sym_test_target, exe, sizeof(exe));
	soff = file_offset_of((void *)sym_test_static, exe, sizeof(exe));
	self_build_id(bid);
	snprintf(home, sizeof(home), "%s/home", tmpdir);
	snprintf(cache, sizeof(cache), "%s/.debug", home);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%%s'", exe);
	cache_put_file(cache, bid + 1, bid[0], "elf", cmd);
	/* a file that is not what its place in the cache says */
	memset(fake, 0xcd, sizeof(fake));
	cache_put_file(cache, fake, sizeof(fake), "elf", cmd);
	cache_put_file(cache, fake, sizeof(fake), "debug", cmd);

	s = new_sym_cache(&w, cache);
	d = symbolizer_dso(s, "/nonexistent/prog", bid + 1, bid[0]);
	expect_name(s, d, off, "sym_test_target");
	expect_name(s, d, soff, "sym_test_static");
	assert_int_equal(sym_dso_srcline(s, d, off, &f, &n), 0);
	assert_true(n >= 1);
	assert_string_equal(f[n - 1].function, "sym_test_target");
	/* another binary at the recorded path: the cache's one, silently */
	d = symbolizer_dso(s, "/bin/sh", bid + 1, bid[0]);
	expect_name(s, d, soff, "sym_test_static");
	/* the wrong build id in the cache: nothing */
	d = symbolizer_dso(s, "/nonexistent/other", fake, sizeof(fake));
	expect_name(s, d, off, NULL);
	symbolizer_get_stats(s, &st);
	assert_int_equal(st.dsos_missing, 1);
	assert_int_equal(st.dsos_mismatch, 0);
	assert_int_equal(w.n, 0);
	symbolizer_free(s);

	/* "": no cache */
	s = new_sym_cache(&w, "");
	d = symbolizer_dso(s, "/nonexistent/prog", bid + 1, bid[0]);
	expect_name(s, d, off, NULL);
	symbolizer_free(s);

	/* NULL: $PERF_BUILDID_DIR, else $HOME/.debug */
	unsetenv("PERF_BUILDID_DIR");
	setenv("HOME", home, 1);
	s = new_sym_cache(&w, NULL);
	d = symbolizer_dso(s, "/nonexistent/prog", bid + 1, bid[0]);
	expect_name(s, d, off, "sym_test_target");
	symbolizer_free(s);
	setenv("PERF_BUILDID_DIR", tmpdir, 1);
	s = new_sym_cache(&w, NULL);
	d = symbolizer_dso(s, "/nonexistent/prog", bid + 1, bid[0]);
	expect_name(s, d, off, NULL);
	symbolizer_free(s);
	setenv("PERF_BUILDID_DIR", cache, 1);
	s = new_sym_cache(&w, NULL);
	d = symbolizer_dso(s, "/nonexistent/prog", bid + 1, bid[0]);
	expect_name(s, d, off, "sym_test_target");
	symbolizer_free(s);
	unsetenv("PERF_BUILDID_DIR");
	if (h)
		setenv("HOME", old_home, 1);
	else
		unsetenv("HOME");

	/* a stripped binary and its debug file in the cache */
	if (!have_objcopy())
		return;
	snprintf(cache, sizeof(cache), "%s/cache2", tmpdir);
	snprintf(cmd, sizeof(cmd), "objcopy --only-keep-debug '%s' '%%s'", exe);
	cache_put_file(cache, bid + 1, bid[0], "debug", cmd);
	snprintf(strip, sizeof(strip), "%s/cstripped", tmpdir);
	assert_int_equal(run("objcopy --strip-all '%s' '%s'", exe, strip), 0);
	s = new_sym_cache(&w, cache);
	d = symbolizer_dso(s, strip, bid + 1, bid[0]);
	expect_name(s, d, soff, "sym_test_static");
	assert_int_equal(sym_dso_srcline(s, d, off, &f, &n), 0);
	assert_true(n >= 1);
	symbolizer_free(s);
	assert_int_equal(w.n, 0);
}

/* debuginfod is asked only for what nothing local gives, and a server that
 * does not answer costs one warning in all, names unresolved. */
static void test_debuginfod_unreachable(void **state)
{
	char exe[PATH_MAX], strip[PATH_MAX + 16], dcache[PATH_MAX + 16];
	uint8_t bid[65], fake[20];
	uint64_t off, soff;
	struct symbolizer *s;
	struct symbolizer_stats st;
	struct sym_dso *d;
	struct warns w = { 0 };

	(void)state;
	if (!have_objcopy())
		skip();
	self_path(exe, sizeof(exe));
	off = file_offset_of((void *)sym_test_target, exe, sizeof(exe));
	soff = file_offset_of((void *)sym_test_static, exe, sizeof(exe));
	self_build_id(bid);
	snprintf(strip, sizeof(strip), "%s/dstripped", tmpdir);
	assert_int_equal(run("objcopy --strip-all '%s' '%s'", exe, strip), 0);
	snprintf(dcache, sizeof(dcache), "%s/dcache", tmpdir);
	/* port 1 of this host: refused at once */
	setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1", 1);
	setenv("DEBUGINFOD_CACHE_PATH", dcache, 1);
	setenv("DEBUGINFOD_TIMEOUT", "5", 1);

	s = new_sym_cache(&w, "");
	/* the binary has its symbols: not asked */
	d = symbolizer_dso(s, exe, bid + 1, bid[0]);
	expect_name(s, d, soff, "sym_test_static");
	assert_int_equal(w.n, 0);
	/* stripped, no debug file: asked, fails, .dynsym is what is left */
	d = symbolizer_dso(s, strip, bid + 1, bid[0]);
	expect_name(s, d, soff, NULL);
	assert_true(sym_dso_usable(s, d));
	assert_int_equal(w.n, 1);
	assert_non_null(strstr(w.last, "debuginfod: no debuginfo for "));
	assert_non_null(strstr(w.last, "further failures are not reported"));
	symbolizer_get_stats(s, &st);
	assert_int_equal(st.debuginfod_asked, 1);
	/* missing binaries: asked for both files, said no more; a build id
	 * already asked about is not asked again */
	memset(fake, 0xcd, sizeof(fake));
	d = symbolizer_dso(s, "/nonexistent/a", fake, sizeof(fake));
	expect_name(s, d, off, NULL);
	memset(fake, 0x5a, sizeof(fake));
	d = symbolizer_dso(s, "/nonexistent/b", fake, sizeof(fake));
	expect_name(s, d, off, NULL);
	assert_false(sym_dso_usable(s, d));
	d = symbolizer_dso(s, "/nonexistent/c", fake, sizeof(fake));
	expect_name(s, d, off, NULL);
	d = symbolizer_dso(s, "/nonexistent/stripped", bid + 1, bid[0]);
	expect_name(s, d, soff, NULL);
	assert_int_equal(w.n, 1);
	symbolizer_get_stats(s, &st);
	assert_int_equal(st.debuginfod_asked, 6);
	assert_int_equal(st.debuginfod_files, 0);
	symbolizer_free(s);

	/* an empty DEBUGINFOD_URLS: not used at all */
	setenv("DEBUGINFOD_URLS", "", 1);
	s = new_sym_cache(&w, "");
	d = symbolizer_dso(s, strip, bid + 1, bid[0]);
	expect_name(s, d, soff, NULL);
	symbolizer_free(s);
	assert_int_equal(w.n, 1);
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_CACHE_PATH");
	unsetenv("DEBUGINFOD_TIMEOUT");
}

static const char ktext[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000100 t __local_alias\n"
	"ffffffff81000100 T do_thing\n"
	"ffffffff81000100 W weak_thing\n"
	"ffffffff81000180 D some_data\n"
	"ffffffff81000200 t helper\n"
	"ffffffff81000300 T _etext\n"
	"ffffffffc0001000 t mod_fn\t[mymod]\n"
	"ffffffffc0001040 T mod_fn2\t[mymod]\n"
	"ffffffffc0002000 t other_fn\t[other]\n";

static void expect_k(struct symbolizer *s, uint64_t addr, const char *name, uint64_t start,
		     uint64_t size, const char *module)
{
	struct sym_info si;
	const char *mod = "x";

	assert_int_equal(symbolizer_kernel_lookup(s, addr, &si, &mod), 0);
	assert_int_equal(si.addr, addr);
	if (!name) {
		assert_null(si.name);
		return;
	}
	assert_non_null(si.name);
	assert_string_equal(si.name, name);
	assert_int_equal(si.start, start);
	assert_int_equal(si.size, size);
	if (module) {
		assert_non_null(mod);
		assert_string_equal(mod, module);
	} else {
		assert_null(mod);
	}
}

static void test_kallsyms(void **state)
{
	struct warns w = { 0 };
	struct symbolizer *s = new_sym(&w, tmpdir);
	struct symbolizer_stats st;
	struct err err = { 0 };

	(void)state;
	assert_int_equal(symbolizer_load_kallsyms(s, (const uint8_t *)ktext, strlen(ktext), &err),
			 0);
	expect_k(s, 0xffffffff80000000, NULL, 0, 0, NULL);
	/* _text and startup_64: same kind, fewer underscores wins */
	expect_k(s, 0xffffffff81000010, "startup_64", 0xffffffff81000000, 0x100, NULL);
	/* several names at one address: the last one listed, as perf keeps it
	 * (it sizes kallsyms symbols up to the next one before it drops
	 * aliases, and prefers the one with a size: __x64_sys_vfork over
	 * __ia32_sys_vfork, __pi_memcpy over memcpy); data symbols do not count */
	expect_k(s, 0xffffffff810001f0, "weak_thing", 0xffffffff81000100, 0x100, NULL);
	expect_k(s, 0xffffffff81000200, "helper", 0xffffffff81000200, 0x100, NULL);
	expect_k(s, 0xffffffffc0001000, "mod_fn", 0xffffffffc0001000, 0x40, "mymod");
	expect_k(s, 0xffffffffc0001100, "mod_fn2", 0xffffffffc0001040, 0xfc0, "mymod");
	expect_k(s, 0xffffffffc0002010, "other_fn", 0xffffffffc0002000, 4096, "other");
	expect_k(s, 0xffffffffc0003000, NULL, 0, 0, NULL);
	assert_int_equal(w.n, 0);
	symbolizer_get_stats(s, &st);
	assert_int_equal(st.lookups, 8);
	assert_int_equal(st.unresolved, 2);

	/* damaged text is refused with a message */
	assert_int_equal(symbolizer_load_kallsyms(s, (const uint8_t *)"zz T x\n", 7, &err),
			 -PREC_ECORRUPT);
	assert_true(err.msg[0] != 0);
	symbolizer_free(s);
}

/* The name at addr in a kernel table (NULL: unresolved). */
static const char *ktab_name(struct symbolizer *s, unsigned table, uint64_t addr)
{
	struct sym_info si;

	assert_int_equal(symbolizer_kernel_lookup_table(s, table, addr, &si, NULL), 0);
	return si.name;
}

/* Several recordings' kernel symbols: each table names its own addresses;
 * the same text as another table shares its names; a table never loaded is
 * table 0. */
static void test_kallsyms_tables(void **state)
{
	static const char k1[] = "ffffffff81000000 T one_a\nffffffff81000100 T one_b\n",
			  k2[] = "ffffffff81000000 T two_a\nffffffff81000200 T two_b\n";
	struct warns w = { 0 };
	struct symbolizer *s = new_sym(&w, tmpdir);
	struct err err = { 0 };

	(void)state;
	assert_int_equal(symbolizer_load_kallsyms(s, (const uint8_t *)ktext, strlen(ktext), &err),
			 0);
	assert_int_equal(symbolizer_load_kallsyms_table(s, 1, (const uint8_t *)k1, strlen(k1),
							&err), 0);
	assert_int_equal(symbolizer_load_kallsyms_table(s, 3, (const uint8_t *)k2, strlen(k2),
							&err), 0);
	assert_int_equal(symbolizer_load_kallsyms_table(s, 4, (const uint8_t *)k1, strlen(k1),
							&err), 0);
	assert_string_equal(ktab_name(s, 0, 0xffffffff81000210), "helper");
	assert_string_equal(ktab_name(s, 1, 0xffffffff81000110), "one_b");
	assert_string_equal(ktab_name(s, 3, 0xffffffff81000110), "two_a");
	assert_string_equal(ktab_name(s, 3, 0xffffffff81000210), "two_b");
	assert_ptr_equal(ktab_name(s, 4, 0xffffffff81000110), ktab_name(s, 1, 0xffffffff81000110));
	assert_string_equal(ktab_name(s, 2, 0xffffffff81000210), "helper");
	assert_string_equal(ktab_name(s, 9, 0xffffffff81000210), "helper");
	assert_int_equal(symbolizer_load_kallsyms_table(s, 2, (const uint8_t *)"zz T x\n", 7,
							&err), -PREC_ECORRUPT);
	assert_null(ktab_name(s, 2, 0xffffffff81000210));
	assert_int_equal(w.n, 0);
	symbolizer_free(s);
}

/* The kernel symbol index kept between runs: made by the first symbolizer,
 * mapped by the next with the same answers; a changed file or a damaged
 * index is never trusted. */
static void test_kallsyms_cache(void **state)
{
	char path[PATH_MAX + 16], cache[PATH_MAX + 16], cmd[3 * PATH_MAX];
	struct warns w = { 0 };
	struct symbolizer_opts o = { .warn = warn_cb, .warn_ctx = &w, .kallsyms_path = path,
				     .cache_dir = cache };
	struct symbolizer_stats st;
	struct symbolizer *s;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/kallsyms_c", tmpdir);
	snprintf(cache, sizeof(cache), "%s/kcache", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(ktext, f);
	fclose(f);
	for (int round = 0; round < 2; round++) {
		s = symbolizer_new(&o);
		expect_k(s, 0xffffffff810001f0, "weak_thing", 0xffffffff81000100, 0x100, NULL);
		expect_k(s, 0xffffffffc0001100, "mod_fn2", 0xffffffffc0001040, 0xfc0, "mymod");
		expect_k(s, 0xffffffff80000000, NULL, 0, 0, NULL);
		symbolizer_get_stats(s, &st);
		assert_int_equal(st.kallsyms_cached, round);
		symbolizer_free(s);
	}
	/* the file changes: the index is made again from it */
	f = fopen(path, "w");
	fputs("ffffffff81000000 T only_one\n", f);
	fclose(f);
	s = symbolizer_new(&o);
	expect_k(s, 0xffffffff81000010, "only_one", 0xffffffff81000000, 4096, NULL);
	symbolizer_get_stats(s, &st);
	assert_int_equal(st.kallsyms_cached, 0);
	symbolizer_free(s);
	/* a damaged index (the first name past its end: 96-byte header, one
	 * top-level slot, then the entries): unresolved, warned, no crash */
	snprintf(cmd, sizeof(cmd), "for f in %s/kallsyms-*.idx; do "
		 "printf '\\377\\377\\377\\177' | dd of=$f bs=1 seek=112 conv=notrunc 2>/dev/null; done",
		 cache);
	assert_int_equal(system(cmd), 0);
	w.n = 0;
	s = symbolizer_new(&o);
	expect_k(s, 0xffffffff81000010, NULL, 0, 0, NULL);
	assert_int_equal(w.n, 1);
	symbolizer_free(s);
}

static void test_kallsyms_file(void **state)
{
	char path[PATH_MAX + 16];
	struct warns w = { 0 };
	struct symbolizer_opts o = { .warn = warn_cb, .warn_ctx = &w, .kallsyms_path = path };
	struct symbolizer *s;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/kallsyms", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(ktext, f);
	fclose(f);
	s = symbolizer_new(&o);
	expect_k(s, 0xffffffff81000210, "helper", 0xffffffff81000200, 0x100, NULL);
	symbolizer_free(s);

	/* kptr_restrict: all zero, unresolved and warned once */
	f = fopen(path, "w");
	fputs("0000000000000000 T _text\n0000000000000000 t foo\t[m]\n", f);
	fclose(f);
	s = symbolizer_new(&o);
	expect_k(s, 0xffffffff81000210, NULL, 0, 0, NULL);
	expect_k(s, 0, NULL, 0, 0, NULL);
	assert_int_equal(w.n, 1);
	assert_non_null(strstr(w.last, "kptr_restrict"));
	symbolizer_free(s);

	/* unreadable: warned once */
	snprintf(path, sizeof(path), "%s/nonexistent", tmpdir);
	w.n = 0;
	s = symbolizer_new(&o);
	expect_k(s, 1, NULL, 0, 0, NULL);
	expect_k(s, 2, NULL, 0, 0, NULL);
	assert_int_equal(w.n, 1);
	symbolizer_free(s);
}

int main(void)
{
	/* no server of the environment is asked, except where a test sets one */
	unsetenv("DEBUGINFOD_URLS");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_lookup),
		cmocka_unit_test(test_srcline_plain),
		cmocka_unit_test(test_inline_chain),
		cmocka_unit_test(test_plt),
		cmocka_unit_test(test_plt_unnamed_slots),
		cmocka_unit_test(test_plt_self),
		cmocka_unit_test(test_plt_sec),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_build_id_mismatch),
		cmocka_unit_test(test_debug_by_build_id),
		cmocka_unit_test(test_debug_compressed_kept),
		cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_gnu_debugdata),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_buildid_cache),
		cmocka_unit_test(test_debuginfod_unreachable),
		cmocka_unit_test(test_prefetch_symbols),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_kallsyms_tables),
		cmocka_unit_test(test_kallsyms_file),
		cmocka_unit_test(test_kallsyms_cache),
	};

	return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
