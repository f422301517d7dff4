/* Shared by the fuzz harnesses (tests/fuzz/fuzz_*.c). Each harness defines
 * LLVMFuzzerTestOneInput (and optionally LLVMFuzzerInitialize); it is linked either with
 * libFuzzer (clang -fsanitize=fuzzer: `make fuzz`) or with replay.c, a plain main() that runs
 * every file of the directories it is given through the same entry point (gcc + ASan/UBSan:
 * `make check` replays tests/fuzz/corpus/<harness>/ so each crash found stays a regression test).
 * A harness must be deterministic for one input and must not leak between inputs. */
#ifndef LPERF_TESTS_FUZZ_H
#define LPERF_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A NUL-terminated copy of data (free() it). */
char *fuzz_strndup(const uint8_t *data, size_t size);
/* A private scratch directory for this process (created once, removed at exit). */
const char *fuzz_tmpdir(void);
/* Writes size bytes to path (replacing it); aborts on failure (the harness cannot go on). */
void fuzz_write(const char *path, const void *data, size_t size);
/* Removes a directory tree below fuzz_tmpdir(). */
void fuzz_rmtree(const char *path);

/* Points LPERF_SYSFS_ROOT at one of the fixture trees (choice % 3: AMD x86, Arm PMUv3 with
 * DSU/DMC/SPE, a VM without a hardware PMU), by absolute path from the repository root, where
 * the harnesses run. */
void fuzz_use_sysfs_fixture(uint8_t choice);

struct machine;
/* Maps the ELF file at path into process pid of m at base + its PT_LOAD addresses (page-aligned,
 * as the dynamic loader places them; at most 8 segments of at most 64 MiB). A file without
 * usable program headers is mapped whole at base. Returns the number of maps made. */
int fuzz_map_elf(struct machine *m, int pid, uint64_t base, const char *path);

struct dso;
struct dso_cache;
/* Initialises c and loads the file at path as a DSO of it, as a report loads a binary a sample
 * hit (no build-id from a recording); dso_cache_free(c) frees it. */
struct dso *fuzz_load_dso(struct dso_cache *c, const char *path);

#endif
