/* Where CPython keeps its thread states, frames and code objects, per version: the offsets an
 * outside reader (process_vm_readv, or the BPF program) needs to walk a thread's Python stack
 * without the interpreter's help. 2.7 and 3.6 to 3.12 come from a table (learned from each version's
 * headers and checked against the debug info of pyenv's builds by tests/unit/test_pylayout.c);
 * 3.13 publishes them itself in _Py_DebugOffsets at the start of _PyRuntime, which is read from
 * the process. Only 64-bit little-endian builds (x86-64, aarch64) are described. */
#ifndef LPERF_PYTHON_PYLAYOUT_H
#define LPERF_PYTHON_PYLAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* How a frame's instruction position is stored and how its line table is encoded. */
enum py_frame_kind {
	PY_FRAME_OBJECT = 1,  /* 2.7, 3.6-3.10: PyFrameObject, f_lasti an int */
	PY_FRAME_INTERP = 2,  /* 3.11+: _PyInterpreterFrame, an instruction pointer */
};
enum py_linetable {
	PY_LNOTAB = 1,        /* 3.6-3.9: (byte delta, signed line delta) pairs */
	PY_LINETABLE310 = 2,  /* 3.10: (byte delta, signed line delta; -128 none) pairs */
	PY_LOCATIONS = 3,     /* 3.11+: the location table (PEP 657) */
	PY_LNOTAB27 = 4,      /* 2.7: (byte delta, unsigned line delta) pairs */
};

/* Every offset is in bytes from the start of its structure; -1 where the version has no such
 * field. */
struct py_layout {
	int major, minor;
	enum py_frame_kind frame_kind;
	enum py_linetable linetable;
	const char *runtime_sym;      /* the symbol the reader starts from: _PyRuntime, or (2.7,
				       * 3.6) pystate.c's static interp_head, in .symtab only */
	bool str_bytes;               /* 2.7: names are byte strings (PyStringObject), not str */
	int32_t tstate_interp;        /* 2.7, 3.6: PyThreadState.interp, to find interp_head in a
				       * build without .symtab (0: not needed) */
	int32_t runtime_interp_head;  /* _PyRuntimeState.interpreters.head; 0 for interp_head */
	int32_t interp_tstate_head;   /* PyInterpreterState.tstate_head / threads.head */
	int32_t tstate_next;
	int32_t tstate_thread_id;     /* pthread_t: on x86-64 glibc the thread's fs base */
	int32_t tstate_native_tid;    /* 3.11+: the kernel tid */
	int32_t tstate_frame;         /* ->frame (<=3.10), ->cframe (3.11, 3.12), ->current_frame */
	int32_t cframe_current;       /* _PyCFrame.current_frame (3.11, 3.12) */
	int32_t frame_back;           /* f_back / previous */
	int32_t frame_code;           /* f_code / f_executable */
	int32_t frame_lasti;          /* f_lasti (int) / prev_instr / instr_ptr (pointers) */
	int32_t frame_owner;          /* 3.11+: char owner (3 = owned by the C stack: a shim) */
	int32_t frame_is_entry;       /* 3.11: bool is_entry */
	int32_t code_name, code_qualname, code_filename, code_firstlineno, code_linetable;
	int32_t code_adaptive;        /* 3.11+: co_code_adaptive (the bytecode, inline) */
	int32_t unicode_state, unicode_length, ascii_size, compact_size;
	int32_t bytes_size, bytes_sval;  /* PyBytesObject (2.7: PyStringObject) */
	/* Which thread holds the GIL: a struct _gil_runtime_state, at _PyRuntime + runtime_gil
	 * (3.7-3.11: ceval.gil) or where PyInterpreterState's pointer at interp_gil points (3.12+:
	 * ceval.gil); in it gil_locked (an int, 1 while held) and gil_holder (last_holder, the thread
	 * state). 2.7 and 3.6 keep the holder's thread state in the global gil_sym
	 * (_PyThreadState_Current, NULL while nobody holds it): gil_locked -1, gil_holder 0. */
	int32_t runtime_gil, interp_gil, gil_locked, gil_holder;
	const char *gil_sym;
};

/* The table's entry for 2.7 or 3.minor (6 to 12), or NULL. */
const struct py_layout *pylayout_table(int major, int minor);
/* Fills out from a 3.13 _Py_DebugOffsets image (the first bytes of _PyRuntime; len at least
 * PYLAYOUT_DEBUG_OFFSETS_SIZE). -1 with err_set() when the cookie or version is wrong or an
 * offset is implausible. */
#define PYLAYOUT_DEBUG_OFFSETS_SIZE 584
int pylayout_from_debug_offsets(const uint8_t *img, size_t len, struct py_layout *out);

/* A running CPython: where its _PyRuntime is and which layout applies. */
struct py_proc {
	pid_t pid;
	char lib[256];         /* the file defining _PyRuntime (libpython or the executable) */
	uint64_t runtime;      /* _PyRuntime's (2.7, 3.6: interp_head's) address in the process */
	uint64_t gil;          /* the GIL's state (3.7-3.11) or gil_sym's (2.7, 3.6) address; 0 for
				* 3.12+ (read through the interpreter) */
	bool gil_known;        /* the GIL holder can be read (python/pygil.h) */
	struct py_layout layout;
};
/* Finds _PyRuntime (2.7, 3.6: interp_head; in a build stripped of .symtab, the word of
 * libpython's .bss that points to an interpreter whose first thread state points back to it) in
 * pid's mappings (libpythonX.Y.so or a pythonX.Y executable, via the ELF symbol table) and its
 * layout (the table, or _Py_DebugOffsets read from
 * the process for 3.13). 0; 1 when pid runs no CPython this reader knows (yet: before libpython
 * is mapped); -1 with err_set() when it is one that cannot be read (version outside 2.7 and
 * 3.6-3.13, unreadable memory). */
int pylayout_find(pid_t pid, struct py_proc *out);
/* The version of the CPython in a file named like libpython3.11.so.1.0 or python3.11 (from the
 * name), 0 with major/minor set, -1 when the name says nothing. */
int pylayout_version_from_name(const char *path, int *major, int *minor);
/* The address of a symbol in an ELF file (st_value, for ET_DYN relative to the load base), from
 * .symtab or .dynsym. 0 when absent. */
uint64_t pylayout_elf_symbol(const char *path, const char *name);

#endif
