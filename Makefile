# ks-nvcc: plain Makefile. `make`, `make test`, `make install PREFIX=...`,
# `make deps`, `make demo`, `make bench-wrapper`. DEVELOPER=1 adds -Werror;
# SANITIZE=address,undefined builds everything with those sanitizers; V=1
# shows the commands.

PREFIX ?= /usr/local
CC ?= cc
CFLAGS ?= -O2 -g
BUILD ?= build

WARNINGS = -Wall -Wextra -Wpedantic -Wshadow -Wmissing-prototypes \
	-Wstrict-prototypes -Wvla -Wwrite-strings -Wformat=2
ifeq ($(DEVELOPER),1)
WARNINGS += -Werror
endif
ALL_CFLAGS = -std=c11 $(WARNINGS) $(CFLAGS) -D_GNU_SOURCE -MMD -MP
ALL_LDFLAGS = $(LDFLAGS)
ifneq ($(SANITIZE),)
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
ALL_LDFLAGS += -fsanitize=$(SANITIZE)
endif

ifeq ($(V),1)
Q =
else
Q = @
endif

# Engine areas linked into ks (docs/ARCHITECTURE.md: analysis, evidence,
# review, memory, policy, agents, llm, transforms, report); the libc-only layers
# below them (nvcc, cache, core) are linked into ks-nvcc too; programs of
# their own (ks-replay, libks-capture.so) are built by their own rules.
ENGINE_DIRS = analysis review memory agents llm transforms report evidence policy
CORE_SRC := $(wildcard src/core/*.c)
# nvcc/*_read.c read JSON with cJSON: ks only, never ks-nvcc.
NVCC_READ_SRC := $(wildcard src/nvcc/*_read.c)
NVCC_SRC := $(filter-out $(NVCC_READ_SRC),$(wildcard src/nvcc/*.c))
CACHE_SRC := $(wildcard src/cache/*.c)
WRAPPER_SRC := $(filter-out wrapper/main.c,$(wildcard wrapper/*.c))
KS_SRC := $(filter-out src/cli/main.c,$(wildcard src/cli/*.c)) \
	$(foreach d,$(ENGINE_DIRS),$(wildcard src/$(d)/*.c)) $(NVCC_READ_SRC)
UNIT_SRC := $(wildcard tests/unit/*.c)

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))
CORE_OBJ := $(call obj,$(CORE_SRC))
NVCC_OBJ := $(call obj,$(NVCC_SRC))
CACHE_OBJ := $(call obj,$(CACHE_SRC))
WRAPPER_OBJ := $(call obj,$(WRAPPER_SRC))
KS_OBJ := $(call obj,$(KS_SRC))
UNIT_OBJ := $(call obj,$(UNIT_SRC))
# The layers both programs link, top to bottom.
LIB_OBJ := $(CACHE_OBJ) $(NVCC_OBJ) $(CORE_OBJ)

# ks-nvcc links only libc (xxHash is compiled in, header-only).
KSNVCC_LIBS =
KS_LIBS = -lcjson -ldl
# The skill files and the policy table are YAML (src/memory/yaml.c): only ks
# and the unit tests link libyaml.
KS_LIBS += -lyaml
# The LLM client (src/llm) is the one user of libcurl.
KS_LIBS += -lcurl

# --- analysis: libclang headers (src/analysis) -------------------------------
# ks dlopens libclang (src/analysis/libclang.c) and never links it; only
# src/analysis objects include <clang-c/Index.h>, for its types. The newest
# /usr/lib/llvm-N/include wins (`make deps` installs 19); without one the
# compiler's own search path (CPATH) must provide clang-c/.
LLVM_INCLUDE ?= $(firstword $(wildcard /usr/lib/llvm-19/include \
	/usr/lib/llvm-18/include /usr/lib/llvm-17/include /usr/lib/llvm-16/include))
$(BUILD)/src/analysis/%.o: ALL_CFLAGS += $(if $(LLVM_INCLUDE),-I$(LLVM_INCLUDE))
# --- end analysis -------------------------------------------------------------

PROGRAMS = ks-nvcc ks

all: $(PROGRAMS)

$(BUILD)/ks-nvcc: $(BUILD)/wrapper/main.o $(WRAPPER_OBJ) $(LIB_OBJ)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(ALL_LDFLAGS) $(KSNVCC_LIBS)

$(BUILD)/ks: $(BUILD)/src/cli/main.o $(KS_OBJ) $(LIB_OBJ)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(ALL_LDFLAGS) $(KS_LIBS)

# The programs are linked inside BUILD and copied to the top whenever they
# differ, so that switching BUILD (a sanitizer build, say) never leaves the
# top-level programs of another build in place.
$(PROGRAMS): %: $(BUILD)/% FORCE
	$(Q)cmp -s $< $@ || cp $< $@

# Every "void ks_suite_NAME(void)" defined in tests/unit/*.c is run: the list
# is generated, so adding a test file needs no edit elsewhere.
$(BUILD)/tests/unit/suites.h: $(filter-out tests/unit/main.c,$(UNIT_SRC))
	@mkdir -p $(dir $@)
	$(Q)sed -n 's/^ks_suite_\([a-z0-9_]*\)(void)$$/SUITE(\1)/p' $^ | sort >$@.tmp
	$(Q)cmp -s $@.tmp $@ 2>/dev/null && rm -f $@.tmp || mv $@.tmp $@

$(BUILD)/tests/unit/main.o: $(BUILD)/tests/unit/suites.h
$(BUILD)/tests/unit/main.o: ALL_CFLAGS += -I$(BUILD)/tests/unit

$(BUILD)/tests/unit/run: $(UNIT_OBJ) $(KS_OBJ) $(WRAPPER_OBJ) $(LIB_OBJ)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(ALL_LDFLAGS) $(KS_LIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# The test command of the README. Unit tests, then the shell suites, then the
# benchmark programs' CPU references; ends with "N passed, N failed".
test: all $(BUILD)/tests/unit/run
	$(Q)KS_BUILD=$(BUILD) bash tests/run

unit: $(BUILD)/tests/unit/run
	$(Q)LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0:use_tls=0 \
		$(BUILD)/tests/unit/run

# Debian/Ubuntu packages the build and the tests need (the CUDA toolkit is
# not among them: install it from NVIDIA). Idempotent: installs only what is
# missing, with sudo when not root.
DEB_PACKAGES = gcc make cmake binutils python3 libcurl4-openssl-dev \
	libcjson-dev libxxhash-dev libclang-19-dev libyaml-dev
# clang with libFuzzer: `make fuzz`, and the short fuzz run of `make test`.
DEB_PACKAGES += clang-19 libclang-rt-19-dev
# ccache: the compiler-cache stacking suite (tests/suites/ccache.sh).
DEB_PACKAGES += ccache
# chromium: the report suite renders ks report's HTML headless (tests/suites/report.sh).
DEB_PACKAGES += chromium
deps:
	$(Q)missing=""; for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || \
			missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all installed"; exit 0; fi; \
	sudo=""; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	echo "deps: installing$$missing"; \
	$$sudo apt-get update -q && \
	DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -q $$missing

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/ks-nvcc/bin \
		$(DESTDIR)$(PREFIX)/share/ks-nvcc/cmake \
		$(DESTDIR)$(PREFIX)/share/ks-nvcc/make \
		$(DESTDIR)$(PREFIX)/share/ks-nvcc/skills
	install -m 755 ks-nvcc ks $(DESTDIR)$(PREFIX)/bin/
	ln -sf ../../../bin/ks-nvcc $(DESTDIR)$(PREFIX)/lib/ks-nvcc/bin/nvcc
	install -m 644 integration/cmake/ks-nvcc.cmake \
		$(DESTDIR)$(PREFIX)/share/ks-nvcc/cmake/
	install -m 644 integration/make/ks-nvcc.mk \
		$(DESTDIR)$(PREFIX)/share/ks-nvcc/make/
	cp -R skills/. $(DESTDIR)$(PREFIX)/share/ks-nvcc/skills/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ks-nvcc $(DESTDIR)$(PREFIX)/bin/ks \
		$(DESTDIR)$(PREFIX)/lib/ks-nvcc/bin/nvcc
	rm -rf $(DESTDIR)$(PREFIX)/share/ks-nvcc
	-rmdir $(DESTDIR)$(PREFIX)/lib/ks-nvcc/bin $(DESTDIR)$(PREFIX)/lib/ks-nvcc

# The main job of the README: set up, build, build the sample through
# ks-nvcc, run it when a GPU is present.
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)bash integration/demo.sh

bench-wrapper: all
	$(Q)python3 bench/wrapper-overhead.py

# The whole product over bench/ on a GPU machine (bench/tools/run.sh; results
# in bench/results/<date>-<gpu>.json, `ks report` shows them). PROGS="p1 p2"
# a subset, BUDGET=S seconds per call (resumable: run again), LLM=URL,
# ROUNDS=N, TASK_BUDGET=GPU-MIN, JOBS=N, ABLATE=1 the two ablations,
# OPTIMIZE_ARGS for ks optimize, BENCH_ARGS for run.sh's other options.
bench: all
	$(Q)bash bench/tools/run.sh $(if $(PROGS),--only "$(PROGS)") \
		$(if $(BUDGET),--budget $(BUDGET)) $(if $(LLM),--llm "$(LLM)") \
		$(if $(ROUNDS),--rounds $(ROUNDS)) $(if $(TASK_BUDGET),--task-budget $(TASK_BUDGET)) \
		$(if $(JOBS),--jobs $(JOBS)) $(if $(filter 1,$(ABLATE)),--ablate) \
		$(if $(OPTIMIZE_ARGS),--optimize-args "$(OPTIMIZE_ARGS)") $(BENCH_ARGS)

clean:
	rm -rf $(BUILD) $(PROGRAMS)

FORCE:

.PHONY: all test unit deps install uninstall demo bench-wrapper bench clean FORCE

# --- capture and replay (src/capture, src/review; docs/CAPTURE.md) -----------
# The capture format (pure writer, cJSON reader) is linked into ks and the
# unit tests; src/review is an engine area and comes in through KS_SRC.
# libks-capture.so (the CUPTI injection library) and ks-replay (the
# Reviewer's GPU side) need the CUDA toolkit with CUPTI: without
# $(CUDA_HOME)/include/cupti.h they are skipped with one line, and the rest
# of the build is unaffected.
# The toolkit of the nvcc on PATH, else /usr/local/cuda.
CUDA_HOME ?= $(firstword $(patsubst %/bin/nvcc,%,$(realpath \
	$(shell command -v nvcc 2>/dev/null))) /usr/local/cuda)
CAPTURE_KS_SRC = src/capture/capture.c src/capture/dtype.c \
	src/capture/capture_read.c
CAPTURE_KS_OBJ := $(call obj,$(CAPTURE_KS_SRC))
$(BUILD)/ks: $(CAPTURE_KS_OBJ)
$(BUILD)/tests/unit/run: $(CAPTURE_KS_OBJ)

HAVE_CUPTI := $(wildcard $(CUDA_HOME)/include/cupti.h)
CUPTI_LIBDIR := $(firstword $(wildcard $(CUDA_HOME)/lib64/libcupti.so \
	$(CUDA_HOME)/extras/CUPTI/lib64/libcupti.so))
CUPTI_LIBDIR := $(patsubst %/,%,$(dir $(CUPTI_LIBDIR)))
# The CUDA headers are system headers (-isystem): their pedantic warnings
# are not ours. libcuda is linked against the toolkit's stub and found at
# run time from the driver; cudart and CUPTI through an rpath.
CUDA_CFLAGS = -isystem $(CUDA_HOME)/include
CUDA_LDFLAGS = -L$(CUDA_HOME)/lib64 -L$(CUDA_HOME)/lib64/stubs \
	$(addprefix -L,$(CUPTI_LIBDIR)) $(addprefix -Wl$(CAPTURE_COMMA)-rpath$(CAPTURE_COMMA),\
	$(sort $(CUDA_HOME)/lib64 $(CUPTI_LIBDIR)))
CAPTURE_COMMA := ,

# libks-capture.so: position-independent objects of its own, everything
# hidden but InitializeInjection.
CAPTURE_LIB_SRC = src/capture/inject.c src/capture/capture.c \
	src/capture/dtype.c src/core/buf.c src/core/fs.c src/core/grow.c \
	src/core/hash.c src/core/strv.c src/core/util.c
CAPTURE_LIB_OBJ := $(patsubst %.c,$(BUILD)/pic/%.o,$(CAPTURE_LIB_SRC))
$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $< (pic)"
	$(Q)$(CC) $(ALL_CFLAGS) $(CUDA_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(BUILD)/libks-capture.so: $(CAPTURE_LIB_OBJ)
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -shared -o $@ $^ $(ALL_LDFLAGS) $(CUDA_LDFLAGS) \
		-lcupti -lcuda -ldl -lpthread

# ks-replay: the capture reader, the review rules and the CUDA side.
REPLAY_SRC = src/review/replay/main.c src/review/replay/replay.c \
	src/review/replay/metrics.c $(CAPTURE_KS_SRC) src/review/tolerance.c \
	src/review/timing.c src/review/metricset.c src/review/occupancy.c \
	src/core/buf.c src/core/fs.c src/core/hash.c src/core/strv.c \
	src/core/util.c
REPLAY_SRC += src/review/globals.c src/review/diagnose.c src/core/grow.c \
	src/review/gpulock.c
REPLAY_SRC += src/review/fresh.c
$(BUILD)/src/capture/%.o: ALL_CFLAGS += $(CUDA_CFLAGS)
$(BUILD)/src/review/replay/%.o: ALL_CFLAGS += $(CUDA_CFLAGS)
$(BUILD)/src/review/replay/metrics.o: ALL_CFLAGS += -Isrc/review/replay/compat
$(BUILD)/ks-replay: $(call obj,$(REPLAY_SRC))
	@echo "  LD      $@"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(ALL_LDFLAGS) $(CUDA_LDFLAGS) \
		-lcjson -lcudart -lcupti -lcuda -ldl -lm -lpthread

# tolerance.c uses libm.
KS_LIBS += -lm

# Linked inside BUILD and copied up, as ks and ks-nvcc are.
CAPTURE_PROGRAMS = libks-capture.so ks-replay
ifneq ($(HAVE_CUPTI),)
all: $(CAPTURE_PROGRAMS)
$(CAPTURE_PROGRAMS): %: $(BUILD)/% FORCE
	$(Q)cmp -s $< $@ || cp $< $@
else
all: capture-skipped
capture-skipped:
	@echo "  SKIP    libks-capture.so ks-replay: no CUDA toolkit with CUPTI" \
		"at $(CUDA_HOME) (set CUDA_HOME)"
.PHONY: capture-skipped
endif

clean: clean-capture
clean-capture:
	rm -f $(CAPTURE_PROGRAMS)

# Installed beside ks, where ks looks for them; nothing when not built.
install: install-capture
install-capture:
	$(Q)[ ! -f ks-replay ] || install -D -m 755 ks-replay $(DESTDIR)$(PREFIX)/bin/ks-replay
	$(Q)[ ! -f libks-capture.so ] || install -D -m 755 libks-capture.so \
		$(DESTDIR)$(PREFIX)/lib/ks-nvcc/libks-capture.so
uninstall: uninstall-capture
uninstall-capture:
	rm -f $(DESTDIR)$(PREFIX)/bin/ks-replay \
		$(DESTDIR)$(PREFIX)/lib/ks-nvcc/libks-capture.so
.PHONY: install-capture uninstall-capture

# Capture and replay on a GPU (integration/gpu/run.sh); skipped, with the
# reason, without a GPU or without the programs above.
gpu-test: all
	$(Q)bash integration/gpu/run.sh
.PHONY: clean-capture gpu-test
# --- end capture and replay ---------------------------------------------------

# --- fuzzing (tests/fuzz; docs/MANUAL.md, "Fuzzing") ---------------------------
# libFuzzer harnesses for every reader of outside data, built with clang
# (-fsanitize=fuzzer,address,undefined) into BUILD/fuzz/. `make fuzz` runs
# each for FUZZ_SECONDS (FUZZ_TARGETS picks some), keeping its corpus in
# BUILD/fuzz/corpus/<name> (seeded from tests/fuzz/seeds/<name>) and any
# crash as BUILD/fuzz/crash-<name>-*; it fails when one is found.
# tests/suites/fuzz.sh runs each for a second inside `make test`.
FUZZ_CC ?= $(firstword $(foreach c,clang-19 clang-18 clang-17 clang,$(shell command -v $(c) 2>/dev/null)))
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= argv conf stats manifest capture record optfile nvccver walk sample rewrite
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS = -std=c11 $(filter-out -Werror,$(WARNINGS)) -g -O1 -D_GNU_SOURCE \
	-Wno-format-nonliteral -fno-omit-frame-pointer $(FUZZ_SAN) -MMD -MP
FUZZ_LIB_SRC := $(CORE_SRC) $(NVCC_SRC) $(NVCC_READ_SRC) $(CACHE_SRC) $(WRAPPER_SRC) \
	$(CAPTURE_KS_SRC) tests/fuzz/memfile.c
FUZZ_LIB_OBJ := $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(FUZZ_LIB_SRC))
FUZZ_BINS := $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_TARGETS))

$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $< (fuzz)"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB_OBJ)
	@echo "  LD      $@"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJ) -lcjson

# The walk harness links the analysis (libclang's headers; dlopen).
FUZZ_WALK_OBJ := $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(wildcard src/analysis/*.c))
$(BUILD)/fuzz/obj/src/analysis/%.o: FUZZ_CFLAGS += $(if $(LLVM_INCLUDE),-I$(LLVM_INCLUDE))
$(BUILD)/fuzz/fuzz_walk: tests/fuzz/fuzz_walk.c $(FUZZ_LIB_OBJ) $(FUZZ_WALK_OBJ)
	@echo "  LD      $@"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJ) \
		$(FUZZ_WALK_OBJ) -lcjson -ldl

# The sample harness links racecheck's block sample alone of src/review.
$(BUILD)/fuzz/fuzz_sample: tests/fuzz/fuzz_sample.c $(FUZZ_LIB_OBJ) $(BUILD)/fuzz/obj/src/review/sample.o
	@echo "  LD      $@"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJ) \
		$(BUILD)/fuzz/obj/src/review/sample.o -lcjson

$(BUILD)/fuzz/argv-recorder: tests/fuzz/argv_recorder.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=c11 -O1 -D_GNU_SOURCE -o $@ $<

# Says why the fuzzers cannot be built here, or nothing.
fuzz-probe:
	$(Q)if [ -z "$(FUZZ_CC)" ]; then echo "no clang (apt-get install clang-19)"; \
	elif ! printf 'int LLVMFuzzerTestOneInput(const char *d, long n) { (void)d; return (int)n * 0; }\n' | \
		$(FUZZ_CC) -fsanitize=fuzzer -x c -o /dev/null - 2>/dev/null; then \
		echo "$(FUZZ_CC) has no libFuzzer (-fsanitize=fuzzer)"; fi

fuzz-build:
	$(Q)reason=$$($(MAKE) -s --no-print-directory fuzz-probe); \
		[ -z "$$reason" ] || { echo "fuzz: $$reason"; exit 1; }
	$(Q)$(MAKE) --no-print-directory fuzz-programs
fuzz-programs: $(FUZZ_LIB_OBJ) $(FUZZ_BINS) $(BUILD)/fuzz/argv-recorder $(BUILD)/ks-nvcc
	@:

fuzz: fuzz-build
	$(Q)failed=""; for t in $(FUZZ_TARGETS); do \
		mkdir -p $(BUILD)/fuzz/corpus/$$t $(BUILD)/fuzz/work; \
		echo "  FUZZ    $$t ($(FUZZ_SECONDS) s)"; \
		KS_FUZZ_KSNVCC=$(abspath $(BUILD)/ks-nvcc) \
		KS_FUZZ_RECORDER=$(abspath $(BUILD)/fuzz/argv-recorder) \
		KS_FUZZ_WORK=$(abspath $(BUILD)/fuzz/work) \
		$(BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
			-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix=$(BUILD)/fuzz/crash-$$t- \
			$(BUILD)/fuzz/corpus/$$t tests/fuzz/seeds/$$t \
			>$(BUILD)/fuzz/$$t.log 2>&1 || failed="$$failed $$t"; \
		grep -E '^stat::number_of_executed_units' $(BUILD)/fuzz/$$t.log | \
			sed 's/^/          /'; \
		rm -rf $(BUILD)/fuzz/work; \
	done; \
	if [ -n "$$failed" ]; then \
		for t in $$failed; do echo "fuzz: $$t found a crash (see $(BUILD)/fuzz/$$t.log):"; \
			grep -E 'ERROR|invariant failed|SUMMARY|Test unit written' $(BUILD)/fuzz/$$t.log | head -n 5; done; \
		exit 1; fi

.PHONY: fuzz fuzz-build fuzz-probe fuzz-programs
# --- end fuzzing --------------------------------------------------------------
