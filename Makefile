# lperf build. `make` builds build/lperf; `make check` runs every test; `make demo` profiles
# the bundled workload. Dependencies come from Debian packages (scripts/install-deps.sh).

CC      ?= cc
BUILD   ?= build
VERSION := 0.1.0
GITREV  := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)

PKGS     := libelf libdw capstone zlib libzstd libdeflate libtraceevent json-c ncursesw
# libcapstone and libpfm4 are not linked into lperf but loaded on first use (src/util/dynlib.h):
# compiled against their headers, loaded by the soname of the library found here. The unit
# tests that call them directly link them (DL_LIBS).
LINK_PKGS  := $(filter-out capstone,$(PKGS))
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(LINK_PKGS) 2>/dev/null)
DL_LIBS    := $(shell pkg-config --libs capstone 2>/dev/null) -lpfm
CAPSTONE_SO = $(shell $(CC) -print-file-name=libcapstone.so)
PFM_SO      = $(shell $(CC) -print-file-name=libpfm.so)
# make ARCH=arm64: cross build into build/arm64 (scripts/arm64.mk, docs/arm64.md).
ifeq ($(ARCH),arm64)
include scripts/arm64.mk
endif

# CFLAGS is the user's (optimisation, sanitizers); LPERF_CFLAGS always applies.
CFLAGS  ?= -O2 -g
LPERF_CFLAGS := -std=gnu11 -D_GNU_SOURCE -pthread -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -Wno-missing-field-initializers \
           -Isrc $(PKG_CFLAGS) -MMD -MP
LDLIBS  += $(PKG_LIBS) -liberty -lm -pthread -ldl
soname   = $(shell readelf -d $(1) 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')

SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

LIB_SRC  := $(sort $(wildcard src/*/*.c))
LIB_SRC  := $(filter-out src/cmd/%,$(LIB_SRC))
CMD_SRC  := src/lperf.c $(sort $(wildcard src/cmd/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CMD_OBJ  := $(CMD_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
HELPERS  := $(patsubst tests/helpers/%.c,$(BUILD)/tests/helpers/%,$(wildcard tests/helpers/*.c))

# The recursive builds below use every core (CI machines have 2).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps check check-arm64 check-wperf test unit e2e asan tsan demo bench clean install arm-data
all: $(BUILD)/lperf $(BUILD)/wperf arm-data

# The manual pages lperf(1) and lperf-COMMAND(1), written by the binary from the option tables
# its parser uses (docs/man.md); not in the sanitizer and cross builds, which cannot run here.
ifeq ($(BUILD)$(ARCH),build)
all: $(BUILD)/man/lperf.1
endif
$(BUILD)/man/lperf.1: $(BUILD)/lperf scripts/man-pages.sh
	@scripts/man-pages.sh $(BUILD)/lperf $(BUILD)/man

# Arm's per-CPU PMU data for `wperf man` (sysinfo/armdata.c), extracted from Debian's
# linux-source-6.12 into build/arm-data (a no-op when current; a note when the package is absent).
ARMDATA_DIR := $(abspath build/arm-data)
arm-data:
	@scripts/arm-data.sh $(ARMDATA_DIR)
$(BUILD)/src/sysinfo/armdata.o: LPERF_CFLAGS += -DLPERF_ARMDATA_DIR='"$(ARMDATA_DIR)"'

# The BPF Python stack walker (src/python/bpf): clang's BPF target, bpftool's skeleton, libbpf.
# Without them lperf builds without it and --python falls back to reading with process_vm_readv.
BPFTOOL  ?= $(shell command -v bpftool 2>/dev/null || ls /usr/sbin/bpftool 2>/dev/null)
# Not in the arm64 cross build: its sysroot has no libbpf (the fallback reader serves there).
ifneq ($(ARCH),arm64)
HAVE_BPF := $(shell pkg-config --exists libbpf && [ -n "$(BPFTOOL)" ] && command -v clang >/dev/null && echo 1)
endif
ifeq ($(HAVE_BPF),1)
LPERF_CFLAGS += -DLPERF_HAVE_BPF -I$(BUILD)/bpf
LDLIBS   += $(shell pkg-config --libs libbpf)
$(BUILD)/src/python/pybpf.o: $(BUILD)/bpf/pystack.skel.h
$(BUILD)/src/kernel/offcpu.o: $(BUILD)/bpf/offcpu.skel.h
$(BUILD)/src/kernel/lockcon.o: $(BUILD)/bpf/lockcon.skel.h
endif
$(BUILD)/bpf/pystack.bpf.o: src/python/bpf/pystack.bpf.c src/python/bpf/pystack.h
	@mkdir -p $(dir $@)
	clang -O2 -g -target bpf -D__TARGET_ARCH_x86 -I/usr/include/$(shell gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu) -c $< -o $@
$(BUILD)/bpf/pystack.skel.h: $(BUILD)/bpf/pystack.bpf.o
	$(BPFTOOL) gen skeleton $< name pystack > $@.tmp && mv $@.tmp $@
# record --off-cpu's program (src/kernel/bpf), built the same way.
$(BUILD)/bpf/offcpu.bpf.o: src/kernel/bpf/offcpu.bpf.c src/kernel/bpf/offcpu_maps.h src/kernel/bpf/follow.bpf.h
	@mkdir -p $(dir $@)
	clang -O2 -g -target bpf -D__TARGET_ARCH_x86 -I/usr/include/$(shell gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu) -c $< -o $@
$(BUILD)/bpf/offcpu.skel.h: $(BUILD)/bpf/offcpu.bpf.o
	$(BPFTOOL) gen skeleton $< name offcpu > $@.tmp && mv $@.tmp $@
# lock contention -b's program (src/kernel/bpf), built the same way.
$(BUILD)/bpf/lockcon.bpf.o: src/kernel/bpf/lockcon.bpf.c src/kernel/bpf/lockcon_maps.h src/kernel/bpf/follow.bpf.h
	@mkdir -p $(dir $@)
	clang -O2 -g -target bpf -D__TARGET_ARCH_x86 -I/usr/include/$(shell gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu) -c $< -o $@
$(BUILD)/bpf/lockcon.skel.h: $(BUILD)/bpf/lockcon.bpf.o
	$(BPFTOOL) gen skeleton $< name lockcon > $@.tmp && mv $@.tmp $@

# Prometheus remote write (stat --remote-write): the request's protobuf compiled from
# src/output/prom_rw.proto by protoc-c into $(BUILD)/proto, Debian's libprotobuf-c, libsnappy (one
# snappy block per request) and libcurl (the POST). Not in the arm64 cross build, whose sysroot
# has none of them: there --remote-write says lperf was built without it.
ifneq ($(ARCH),arm64)
LPERF_CFLAGS += -DLPERF_HAVE_RW -I$(BUILD)/proto
# libcurl and libsnappy are opened with dlopen when --remote-write is used (util/httpc.c,
# output/prom_rw.c): linked, they would load ~35 libraries into every command's start-up.
LDLIBS   += $(shell pkg-config --libs libprotobuf-c)
$(BUILD)/tests/test_prom_out: LDLIBS += -lsnappy
LIB_OBJ  += $(BUILD)/proto/prom_rw.pb-c.o
$(BUILD)/src/output/prom_rw.o: $(BUILD)/proto/prom_rw.pb-c.h
endif
$(BUILD)/proto/prom_rw.pb-c.c $(BUILD)/proto/prom_rw.pb-c.h &: src/output/prom_rw.proto
	@mkdir -p $(BUILD)/proto
	protoc-c --c_out=$(BUILD)/proto --proto_path=src/output $<
$(BUILD)/proto/prom_rw.pb-c.o: $(BUILD)/proto/prom_rw.pb-c.c
	$(CC) $(CFLAGS) -std=gnu11 -I$(BUILD)/proto -c -o $@ $<

# The version and git revision reach one object (sysinfo_version/sysinfo_gitrev); it is rebuilt
# when HEAD moves.
GITREV_STAMP := $(BUILD)/gitrev.$(GITREV)
$(GITREV_STAMP):
	@mkdir -p $(BUILD) && rm -f $(BUILD)/gitrev.* && touch $@
$(BUILD)/src/sysinfo/buildinfo.o: $(GITREV_STAMP)
# perf's leafloop workload keeps its three frames (leaf <- parent <- leafloop) with frame records,
# as perf builds it, so frame-pointer unwinding tests can see parent.
$(BUILD)/src/workload/leafloop.o: LPERF_CFLAGS += -O0 -fno-inline -fno-omit-frame-pointer -U_FORTIFY_SOURCE
# perf bench sched messaging's workers keep frame records, so their off-CPU stacks (record
# --off-cpu) reach the workers' functions.
$(BUILD)/src/workload/messaging.o: LPERF_CFLAGS += -fno-omit-frame-pointer
$(BUILD)/src/sysinfo/buildinfo.o: LPERF_CFLAGS += -DLPERF_VERSION='"$(VERSION)"' -DLPERF_GITREV='"$(GITREV)"'
$(BUILD)/src/util/dynlib.o: LPERF_CFLAGS += -DLPERF_CAPSTONE_SONAME='"$(call soname,$(CAPSTONE_SO))"' \
	-DLPERF_PFM_SONAME='"$(call soname,$(PFM_SO))"'


deps:
	@scripts/install-deps.sh

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LPERF_CFLAGS) -c -o $@ $<

$(BUILD)/liblperf.a: $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/lperf: $(CMD_OBJ) $(BUILD)/liblperf.a
	$(CC) $(CFLAGS) $(LPERF_CFLAGS) -o $@ $(CMD_OBJ) $(BUILD)/liblperf.a $(LDFLAGS) $(LDLIBS)

# WindowsPerf's personality: lperf invoked as wperf (src/wperf).
$(BUILD)/wperf: $(BUILD)/lperf
	ln -sf lperf $@

$(BUILD)/tests/test_%: tests/unit/test_%.c $(BUILD)/liblperf.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LPERF_CFLAGS) -Itests/unit -o $@ $< $(BUILD)/liblperf.a $(LDFLAGS) $(LDLIBS) $(DL_LIBS) -lcmocka

$(BUILD)/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -o $@ $< -lpthread

unit: $(UNIT_BIN) $(HELPERS)
# all: the manual pages (make install, t41) and the Arm PMU data (wperf man) are tested too.
test: all unit

# The sanitizer build lives beside the normal one so both can be current at once.
asan:
	@$(MAKE) --no-print-directory -j$(JOBS) BUILD=build/asan CFLAGS="$(SAN_FLAGS)" LDFLAGS="-fsanitize=address,undefined" test

# ThreadSanitizer over report --threads (not part of check): the worker pool's unit test and t112,
# a race ends the run with an error.
tsan:
	@$(MAKE) --no-print-directory -j$(JOBS) BUILD=build/tsan CFLAGS="-O1 -g -fsanitize=thread" \
		LDFLAGS="-fsanitize=thread" build/tsan/lperf build/tsan/tests/test_session_batch
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" build/tsan/tests/test_session_batch
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" LPERF=build/tsan/lperf sh tests/e2e/t112-report-threads.sh

check: deps
	@$(MAKE) --no-print-directory -j$(JOBS) test
	@$(MAKE) --no-print-directory asan
	@LPERF_ARM64=1 WPERF_TESTS="$(WPERF_TESTS)" tests/run.sh build build/asan

# WindowsPerf's own test suite against build/wperf, given a checkout: make check-wperf
# WPERF_TESTS=DIR (docs/wperf.md, "WindowsPerf's test suite"); make check runs it when set.
check-wperf: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@WPERF_TESTS="$(WPERF_TESTS)" tests/wperf-suite/run.sh

# The Arm suite alone, in an emulated Arm64 machine (docs/arm64.md); `make check` runs it too.
check-arm64: deps
	@tests/arm64/check.sh

demo: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@examples/demo.sh build/lperf

bench: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@bench/run.sh build/lperf

install: all
	install -D -m 755 $(BUILD)/lperf $(DESTDIR)/usr/local/bin/lperf
	ln -sf lperf $(DESTDIR)/usr/local/bin/wperf
	mkdir -p $(DESTDIR)/usr/local/share/man/man1
	install -m 644 $(BUILD)/man/*.1 $(DESTDIR)/usr/local/share/man/man1/
	if [ -f build/arm-data/mapfile.csv ]; then rm -rf $(DESTDIR)/usr/local/share/lperf/arm-data && \
		mkdir -p $(DESTDIR)/usr/local/share/lperf && cp -R build/arm-data $(DESTDIR)/usr/local/share/lperf/; fi

clean:
	rm -rf build

include tests/fuzz/fuzz.mk

-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d) $(UNIT_BIN:=.d)
