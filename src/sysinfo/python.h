/* Finding the Pythons a user could profile (on PATH and in pyenv) and what each supports:
 * CPython's perf trampoline (-X perf, 3.12+), perf_jit (-X perf_jit, 3.13+) and whether it was
 * built with frame pointers (without them, frame-pointer call graphs through Python break). */
#ifndef LPERF_SYSINFO_PYTHON_H
#define LPERF_SYSINFO_PYTHON_H

#include <stdbool.h>
#include <stddef.h>

struct pyinfo {
	char *path;             /* as found: "/usr/bin/python3", ".../versions/3.12.1/bin/python3" */
	char *realpath;         /* the file it resolves to; Pythons are deduplicated by it */
	const char *source;     /* "PATH" or "pyenv" */
	char *error;            /* why the facts below are missing (no answer, exit status), or NULL */

	/* Facts the interpreter reports about itself. */
	char *version;          /* "3.12.1" */
	int major, minor;       /* -1 when the version does not parse */
	char *implementation;   /* "CPython", "PyPy" */
	char *machine;          /* "x86_64", "aarch64" */
	char *system;           /* "Linux" */
	bool config_trampoline; /* sysconfig PY_HAVE_PERF_TRAMPOLINE == 1 */
	bool has_activate;      /* sys.activate_stack_trampoline exists */
	bool fno_omit_fp;       /* -fno-omit-frame-pointer in CFLAGS/CONFIG_ARGS/PY_CFLAGS... */
	bool mno_omit_leaf_fp;  /* -mno-omit-leaf-frame-pointer in the same */

	/* Derived by pyinfo_parse_facts(). */
	bool perf_trampoline;   /* `-X perf` works: CPython >= 3.12, Linux x86-64/aarch64, config */
	bool perf_jit;          /* `-X perf_jit` works: the above and >= 3.13 */
	bool frame_pointers;    /* built with -fno-omit-frame-pointer */
};

/* The script each Python runs (python -E -S -c SCRIPT); it prints one "key=value" per line and
 * runs on Python 2.7 as well as 3.x. */
extern const char pyinfo_probe_script[];

/* Finds every Python on PATH (python, python2, python3, python3.N, skipping pyenv's shims) and
 * in pyenv (<root>/versions/<v>/bin/python3), deduplicated by realpath, and runs each once (all
 * at once, with a time limit). Returns how many were found; *out is owned by the caller. */
size_t pyinfo_find(struct pyinfo **out);
/* Probes one interpreter (a path, or a name searched on PATH); 0, or -1 with err_set() when it
 * does not answer like a Python. py is filled either way and freed with pyinfo_free(). */
int pyinfo_probe(const char *path, struct pyinfo *py);
void pyinfo_free_all(struct pyinfo *py, size_t n);
void pyinfo_free(struct pyinfo *py);

/* Parses the probe's output into py and derives perf_trampoline, perf_jit and frame_pointers.
 * Unknown keys are ignored; 0, or -1 with err_set() when the output holds no version. */
int pyinfo_parse_facts(const char *text, struct pyinfo *py);

/* The pyenv root: $PYENV_ROOT, else `pyenv root` when pyenv is on PATH, else ~/.pyenv; NULL
 * when that directory does not exist. The caller frees it. */
char *pyinfo_pyenv_root(void);
/* The interpreter of a "#!" script (cmd, or the first cmd in PATH when it has no '/'): the
 * path on its first line, or for "#!/usr/bin/env [-S] NAME" the first NAME in PATH. NULL when
 * cmd is no such script or the interpreter cannot be found. The caller frees it. */
char *pyinfo_shebang(const char *cmd);

#endif
