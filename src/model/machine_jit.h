/* The JIT side of the machine model (model/machine_jit.c): per-process JIT symbol source state.
 * machine.c records what MMAP records say; resolve/jit.c reads the sources and resolves
 * addresses through them. */
#ifndef LPERF_MODEL_MACHINE_JIT_H
#define LPERF_MODEL_MACHINE_JIT_H

#include <time.h>

#include "model/machine.h"

/* A jitdump code's DSO, and the map that stands for it where no mapping was recorded. */
struct code_ref {
	struct dso *dso;
	struct map map;
};

struct jit_proc {
	pid_t pid;
	struct dso *pm;          /* its perf map DSO; NULL until a mapping or the data needs it */
	bool probed;             /* looked for a perf map file for addresses outside any mapping */
	char *jd_path;           /* from the marker mapping */
	uint8_t *jd_data;        /* supplied by the recording, until parsed */
	size_t jd_len;
	bool jd_supplied, jd_tried;
	struct jitdump *jd;
	struct notes jd_notes;   /* what reading the dump met (resolve/jit.c): the latest only */
	struct timespec jd_checked;
	struct code_ref *codes;  /* per jitdump code, made on first hit */
	size_t ncodes;
	struct map stand_in;     /* the map of perf map hits outside any recorded mapping */
	bool pm_used, jd_used;
	bool pm_supplied;
};

struct machine_jit {
	struct hashmap procs;    /* pid -> struct jit_proc, in order of first use */
	struct jit_source *list; /* machine_jit_sources */
};

/* The process's state, or NULL (find) / a new one (proc). */
struct jit_proc *machine_jit_find(struct machine *m, pid_t pid);
struct jit_proc *machine_jit_proc(struct machine *m, pid_t pid);
/* The process's perf map DSO, made on first use. */
struct dso *machine_jit_proc_map_dso(struct machine *m, struct jit_proc *p);
/* A marker mapping (jit-N.dump) of process pid: its jitdump is at filename. */
void machine_jit_marker(struct machine *m, pid_t pid, const char *filename);
/* The DSO for an executable anonymous mapping of process pid: its perf map DSO. */
struct dso *machine_jit_map_dso(struct machine *m, pid_t pid);
void machine_jit_free(struct machine *m);

#endif
