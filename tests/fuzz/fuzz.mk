# Fuzz harnesses (included by the Makefile). Each tests/fuzz/fuzz_NAME.c is built two ways:
#   $(BUILD)/tests/fuzz/replay_NAME   with the build's compiler and flags (gcc; ASan+UBSan in
#                                     build/asan) and tests/fuzz/replay.c as main(): `make check`
#                                     runs it over tests/fuzz/corpus/NAME/ (tests/run.sh)
#   build/fuzz/fuzz_NAME              with clang -fsanitize=fuzzer,address,undefined: `make fuzz`
#                                     runs each for FUZZ_SECONDS (tests/fuzz/run.sh)
FUZZ_NAMES  := $(patsubst tests/fuzz/fuzz_%.c,%,$(filter-out tests/fuzz/fuzz_util.c,$(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_REPLAY := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/replay_%)
FUZZ_SECONDS ?= 60
FUZZ_CC     ?= clang
FUZZ_SAN    := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all

$(BUILD)/tests/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz_util.c tests/fuzz/fuzz.h $(BUILD)/liblperf.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LPERF_CFLAGS) -Itests/fuzz -o $@ $< tests/fuzz/replay.c tests/fuzz/fuzz_util.c \
		$(BUILD)/liblperf.a $(LDFLAGS) $(LDLIBS)

unit: $(FUZZ_REPLAY)

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_util.c tests/fuzz/fuzz.h build/fuzz/liblperf.a
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer $(LPERF_CFLAGS) -Itests/fuzz -o $@ $< tests/fuzz/fuzz_util.c \
		build/fuzz/liblperf.a $(LDLIBS)

.PHONY: fuzz fuzz-build fuzz-deps
ifneq ($(BUILD),build/fuzz)
build/fuzz/liblperf.a: FORCE_FUZZLIB
	@$(MAKE) --no-print-directory -j$(JOBS) BUILD=build/fuzz CC=$(FUZZ_CC) \
		CFLAGS="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" build/fuzz/liblperf.a
.PHONY: FORCE_FUZZLIB
FORCE_FUZZLIB:
endif

fuzz-deps:
	@scripts/install-deps.sh fuzz

fuzz-build: fuzz-deps $(FUZZ_NAMES:%=build/fuzz/fuzz_%)

fuzz: fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh $(FUZZ_NAMES)
