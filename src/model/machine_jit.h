/* Private to src/model: the JIT side of the machine, as machine.c calls it. */
#ifndef LPERF_MODEL_MACHINE_JIT_H
#define LPERF_MODEL_MACHINE_JIT_H

#include "model/machine.h"

/* A marker mapping (jit-N.dump) of process pid: its jitdump is at filename. */
void machine_jit_marker(struct machine *m, pid_t pid, const char *filename);
/* The DSO for an executable anonymous mapping of process pid: its perf map DSO. */
struct dso *machine_jit_map_dso(struct machine *m, pid_t pid);
/* Resolves a user address of thread t that lies in mp (a mapping whose DSO is a perf map) or in
 * no mapping (mp NULL) through the JIT sources. True when a symbol was found (out filled). */
bool machine_jit_resolve(struct machine *m, struct thread *t, const struct map *mp, uint64_t ip, uint64_t time,
			 struct addr_loc *out);
void machine_jit_free(struct machine *m);

#endif
