# prec / prep — build, test, fuzz.
#
#   make            build ./prep (and the library under build/)
#   make deps       install missing Debian packages (apt-get as root; prints the command otherwise)
#   make test       deps + build + every test; ends with "N passed, N failed"
#   make asan       the same tests, built with AddressSanitizer and UBSan
#   make fuzz       libFuzzer targets (clang), each run for FUZZ_SECONDS
#   make demo       deps + build + record the demo program and print its report
#   make install PREFIX=/usr/local   (the binaries, and the man pages of docs/man)

CC      ?= gcc
BUILD   ?= build
PREFIX  ?= /usr/local
# libdebuginfod is not linked: report/symbols/symbols_find.c loads it with dlopen
# when first needed (its header comes from libdebuginfod-dev, see deps.sh).
# Nor is capstone: report/views/annotate_asm.c loads it when it first
# disassembles (its relocations cost every start of prep ~2.5 ms otherwise).
PKGS    := zlib libdeflate libzstd libelf libdw liblzma libunwind-generic ncursesw
FUZZ_SECONDS ?= 60

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) capstone 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lz -ldeflate -lzstd -lelf -ldw -llzma -lunwind-generic -lunwind -lncursesw -ltinfo) -lpthread
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 $(WARN) -D_GNU_SOURCE -I. $(PKG_CFLAGS) $(EXTRA_CFLAGS)
LDFLAGS += $(EXTRA_LDFLAGS)

LIB_SRC  := $(wildcard common/*.c) $(wildcard format/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/libprec.a

# report/ without its main is a library too, so unit tests can link the
# symbolizer, machine model and histograms.
PREP_SRC := $(wildcard report/*/*.c)
PREP_OBJ := $(PREP_SRC:%.c=$(BUILD)/%.o)
PREP_LIB := $(BUILD)/libprep.a
PREP_MAIN := $(BUILD)/report/main.o
PREC_SRC := $(wildcard record/*.c)
# prec uses three public interfaces of report/, nothing else: the stat
# printer (report/stat/stat.h, its live output), the embedding step
# (report/symbols/embed.h: what the report needs of the binaries hit) and
# prec top's view (report/views/top.h: the live histogram, its table and its
# browser). It links libprep.a, from which the linker takes only the objects
# those need (the reading core, symbolizer, unwinder, histograms, prec top's
# view and the browser).
PREC_OBJ := $(PREC_SRC:%.c=$(BUILD)/%.o)

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
REPLAY_BIN := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=$(BUILD)/tests/replay_%)
TOOL_SRC := $(wildcard tools/*.c)
TOOL_BIN := $(TOOL_SRC:tools/%.c=$(BUILD)/tools/%)

BINS := prec prep

.PHONY: all deps test check-build asan fuzz install clean tests-build demo
all: $(BINS)

deps:
	@sh tools/deps.sh

# Production objects (common/ format/ record/ report/) are compiled with the
# banned functions made errors (common/banned.h); tests and tools are not.
BANNED := -include common/banned.h

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(BANNED) -MMD -MP -c $< -o $@

# the flame graph page is assembled into flame.o (.incbin)
$(BUILD)/report/export/flame.o: report/export/flamegraph.html

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(PREP_LIB): $(PREP_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# ./prec and ./prep at the top for the normal build; under $(BUILD) otherwise.
ifeq ($(BUILD),build)
prep: $(PREP_MAIN) $(PREP_LIB) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(PREP_MAIN) $(PREP_LIB) $(LIB) $(PKG_LIBS) -lm
prec: $(PREC_OBJ) $(PREP_LIB) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(PREC_OBJ) $(PREP_LIB) $(LIB) $(PKG_LIBS) -lm
else
prep: $(BUILD)/prep
prec: $(BUILD)/prec
endif

$(BUILD)/prep: $(PREP_MAIN) $(PREP_LIB) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(PREP_MAIN) $(PREP_LIB) $(LIB) $(PKG_LIBS) -lm
$(BUILD)/prec: $(PREC_OBJ) $(PREP_LIB) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(PREC_OBJ) $(PREP_LIB) $(LIB) $(PKG_LIBS) -lm

$(BUILD)/tests/test_%: tests/unit/test_%.c $(PREP_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP $(LDFLAGS) -o $@ $< $(PREP_LIB) $(LIB) $(CMOCKA_LIBS) $(PKG_LIBS) -lm

$(BUILD)/tests/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(PREP_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP $(LDFLAGS) -o $@ tests/fuzz/fuzz_$*.c tests/fuzz/replay.c $(PREP_LIB) $(LIB) $(PKG_LIBS) -lm

# the browser with a refresh hook, as prec top drives it (prep_browser.sh)
$(BUILD)/tests/fake_top: tests/tui/fake_top.c $(PREP_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP $(LDFLAGS) -o $@ $< $(PREP_LIB) $(LIB) $(PKG_LIBS) -lm

$(BUILD)/tests/minireader: tests/minireader/minireader.c tests/minireader/columns.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lz

$(BUILD)/tests/canondump: tests/canon/canondump.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP $(LDFLAGS) -o $@ $< $(LIB) $(PKG_LIBS)

$(BUILD)/tests/gen_files: tests/canon/gen_files.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP $(LDFLAGS) -o $@ $< $(LIB) $(PKG_LIBS)

$(BUILD)/tests/recode: tests/canon/recode.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP $(LDFLAGS) -o $@ $< $(LIB) $(PKG_LIBS)

# Test programs with known profiles: frame pointers, debug info.
PROG_CFLAGS := -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall -Wextra -Werror
PROGS := $(BUILD)/tests/programs/spin $(BUILD)/tests/programs/forker \
	 $(BUILD)/tests/programs/libspinlib.so \
	 $(BUILD)/tests/programs/tree $(BUILD)/tests/programs/inl \
	 $(BUILD)/tests/programs/threads \
	 $(BUILD)/tests/programs/tree_nofp $(BUILD)/tests/programs/threads_nofp \
	 $(BUILD)/tests/programs/twocall_nofp \
	 $(BUILD)/tests/programs/tree_dframe $(BUILD)/tests/programs/libspinlib_dframe.so \
	 $(BUILD)/tests/programs/swev $(BUILD)/tests/programs/phases \
	 $(BUILD)/tests/programs/probed $(BUILD)/tests/programs/probed_nopie \
	 $(BUILD)/tests/programs/grpwork $(BUILD)/tests/programs/twophase
$(BUILD)/tests/programs/twophase: tests/programs/twophase.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $<
$(BUILD)/tests/programs/phases: tests/programs/phases.c tests/programs/work.h
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $<
$(BUILD)/tests/programs/probed: tests/programs/probed.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -fPIE -pie -o $@ $<
$(BUILD)/tests/programs/probed_nopie: tests/programs/probed.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -fno-PIE -no-pie -o $@ $<
$(BUILD)/tests/programs/grpwork: tests/programs/grpwork.c tests/programs/work.h
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $< -lpthread
PROGS += $(BUILD)/tests/programs/dataw $(BUILD)/tests/programs/annot
PROGS += $(BUILD)/tests/programs/parphase $(BUILD)/tests/programs/pingpong
$(BUILD)/tests/programs/parphase: tests/programs/parphase.c tests/programs/work.h
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $< -lpthread
$(BUILD)/tests/programs/pingpong: tests/programs/pingpong.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $< -lpthread
# off-CPU time (issue 19): sleeps and lock waits of known lengths, switches at a known rate
PROGS += $(BUILD)/tests/programs/sleeper $(BUILD)/tests/programs/lockwait \
	 $(BUILD)/tests/programs/futexhop
$(BUILD)/tests/programs/futexhop: tests/programs/futexhop.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $< -lpthread
$(BUILD)/tests/programs/sleeper: tests/programs/sleeper.c tests/programs/work.h
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $<
$(BUILD)/tests/programs/lockwait: tests/programs/lockwait.c tests/programs/work.h
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $< -lpthread
# one program in two versions (differential profiles): the same basename in two folders
PROGS += $(BUILD)/tests/programs/v1/moved $(BUILD)/tests/programs/v2/moved
$(BUILD)/tests/programs/v%/moved: tests/programs/moved.c tests/programs/work.h
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -DVERSION=$* -o $@ $<
# prep diff's two versions of one program: same name, two folders
PROGS += $(BUILD)/tests/programs/diff1/diffprog $(BUILD)/tests/programs/diff2/diffprog
$(BUILD)/tests/programs/diff%/diffprog: tests/programs/diffprog.c tests/programs/work.h
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -DVERSION=$* -o $@ $<
$(BUILD)/tests/programs/annot: tests/programs/annot.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $<
$(BUILD)/tests/programs/swev: tests/programs/swev.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $<
$(BUILD)/tests/programs/dataw: tests/programs/dataw.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $<
$(BUILD)/tests/programs/spin: tests/programs/spin.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $< -lpthread
$(BUILD)/tests/programs/forker: tests/programs/forker.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $< -ldl
$(BUILD)/tests/programs/libspinlib.so: tests/programs/libspinlib.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -shared -fPIC -o $@ $<
$(BUILD)/tests/programs/tree: tests/programs/tree.c tests/programs/work.h
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $<
$(BUILD)/tests/programs/inl: tests/programs/inl.c tests/programs/work.h
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $<
$(BUILD)/tests/programs/threads: tests/programs/threads.c tests/programs/work.h
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $< -lpthread
# the same programs without frame pointers, for --call-graph dwarf
NOFP_CFLAGS := -O2 -g -fomit-frame-pointer -DNO_FRAME_POINTER -Wall -Wextra -Werror
$(BUILD)/tests/programs/tree_nofp: tests/programs/tree.c tests/programs/work.h
	@mkdir -p $(dir $@)
	$(CC) $(NOFP_CFLAGS) -o $@ $<
$(BUILD)/tests/programs/threads_nofp: tests/programs/threads.c tests/programs/work.h
	@mkdir -p $(dir $@)
	$(CC) $(NOFP_CFLAGS) -o $@ $< -lpthread
$(BUILD)/tests/programs/twocall_nofp: tests/programs/twocall.c tests/programs/work.h
	@mkdir -p $(dir $@)
	$(CC) $(NOFP_CFLAGS) -o $@ $<
# and without unwind tables: only .debug_frame describes their own functions
# (crt files and libc still bring .eh_frame for theirs)
DFRAME_CFLAGS := $(NOFP_CFLAGS) -fno-asynchronous-unwind-tables -fno-unwind-tables
$(BUILD)/tests/programs/tree_dframe: tests/programs/tree.c tests/programs/work.h
	@mkdir -p $(dir $@)
	$(CC) $(DFRAME_CFLAGS) -o $@ $<
$(BUILD)/tests/programs/libspinlib_dframe.so: tests/programs/libspinlib.c
	@mkdir -p $(dir $@)
	$(CC) $(DFRAME_CFLAGS) -shared -fPIC -o $@ $<

$(BUILD)/tools/%: tools/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP $(LDFLAGS) -o $@ $< $(LIB) $(PKG_LIBS) -lzstd

tests-build: $(BINS) $(UNIT_BIN) $(REPLAY_BIN) $(BUILD)/tests/fake_top $(BUILD)/tests/minireader $(BUILD)/tests/canondump $(BUILD)/tests/gen_files $(BUILD)/tests/recode $(TOOL_BIN) $(PROGS)

test: deps
	@$(MAKE) --no-print-directory tests-build
	@BUILD=$(BUILD) sh tests/run.sh

# Sanitizer build: separate object folder, same tests.
asan: deps
	@$(MAKE) --no-print-directory BUILD=build/asan CC=$(CC) \
		EXTRA_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		EXTRA_LDFLAGS="-fsanitize=address,undefined" tests-build
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		BUILD=build/asan sh tests/run.sh

# libFuzzer targets: clang, separate objects, each target run FUZZ_SECONDS on a
# scratch copy of its committed corpus (new inputs land in build/fuzz/, not in git).
FUZZ_CFLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
fuzz: deps
	@$(MAKE) --no-print-directory BUILD=build/fuzz CC=clang \
		EXTRA_CFLAGS="$(FUZZ_CFLAGS)" build/fuzz/libprec.a build/fuzz/libprep.a
	@set -e; for src in $(FUZZ_SRC); do \
		name=$$(basename $$src .c | sed 's/^fuzz_//'); \
		clang -std=gnu11 -D_GNU_SOURCE -I. -g -O1 -fsanitize=fuzzer,address,undefined \
			-o build/fuzz/fuzz_$$name $$src build/fuzz/libprep.a build/fuzz/libprec.a $(PKG_LIBS) -lm; \
		mkdir -p build/fuzz/corpus_$$name; \
		cp tests/fuzz/corpus/$$name/* build/fuzz/corpus_$$name/ 2>/dev/null || true; \
		echo "fuzz_$$name: $(FUZZ_SECONDS) s"; \
		build/fuzz/fuzz_$$name -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
			-artifact_prefix=build/fuzz/crash_$$name- build/fuzz/corpus_$$name \
			2>build/fuzz/fuzz_$$name.log || { tail -40 build/fuzz/fuzz_$$name.log; exit 1; }; \
		tail -1 build/fuzz/fuzz_$$name.log; \
	done

# The whole job on a fresh machine: dependencies, build, a recording of the
# demo program (tests/programs/tree: a known call tree) and its report.
demo: deps
	@$(MAKE) --no-print-directory prec prep $(BUILD)/tests/programs/tree
	./prec -F 999 -g -o $(BUILD)/demo.data -- $(BUILD)/tests/programs/tree 1000
	./prep -i $(BUILD)/demo.data --sort sym

MANPAGES := $(wildcard docs/man/*.1)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(MANPAGES) $(DESTDIR)$(PREFIX)/share/man/man1/

clean:
	rm -rf build $(BINS)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
