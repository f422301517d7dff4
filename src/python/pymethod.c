#include "python/pymethod.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "python/pybpf.h"
#include "python/pylayout.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/notes.h"
#include "util/xalloc.h"

static int bpf_state; /* 0 untried, 1 loads, -1 does not */
static char *bpf_why;

static bool bpf_loads(void)
{
	if (!bpf_state) {
		struct pybpf *b = getenv("LPERF_NO_BPF") ? NULL : pybpf_open();
		bpf_state = b ? 1 : -1;
		if (!b)
			bpf_why = xstrdup(getenv("LPERF_NO_BPF") ? "LPERF_NO_BPF is set" : err_msg());
		pybpf_close(b);
	}
	return bpf_state > 0;
}

/* Whether lperf may pause a process it starts (python/pysampler.h): Yama's ptrace_scope 0 or 1
 * (a descendant), 2 with CAP_SYS_PTRACE (taken as root here), never at 3; x86-64 only. */
static bool pause_allowed(void)
{
#if defined(__x86_64__)
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	int scope = 0;
	if (f) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = 0;
		fclose(f);
	}
	return scope <= 1 || (scope == 2 && geteuid() == 0);
#else
	return false;
#endif
}

bool pymethod_frames_known(const struct pyinfo *py)
{
	bool cpython = py->implementation && !strcmp(py->implementation, "CPython");
	return cpython && (pylayout_table(py->major, py->minor) || (py->major == 3 && py->minor == 13));
}

void pymethod_choose(const struct pyinfo *py, bool want_frames, bool exact_frames, struct pymethod_choice *c)
{
	*c = (struct pymethod_choice){ PYMETHOD_NONE, py->frame_pointers, NULL };
	/* Frames read at each sample (BPF, or with the threads paused) are exact, whole to 1,024
	 * frames and carry lines: they win over CPython's own support, whose Python frames are
	 * only those the native unwinding reaches in the sample's stack copy (about 30), with
	 * lines only where the reads around the sample agree. Where they would be read without
	 * pausing (--nonblocking, other events), -X perf's exact (if shallower) chains win. */
	if (want_frames || (pymethod_frames_known(py) && (!py->perf_trampoline || exact_frames))) {
		/* No flag: DWARF unwinding gives the native frames around them in builds without
		 * frame pointers. */
		c->method = PYMETHOD_FRAMES;
	} else if (py->perf_jit) {
		/* 3.13+: the jitdump carries unwinding information; DWARF unwinding goes through it. */
		c->method = PYMETHOD_PERF_JIT;
		c->frame_pointers = false;
		c->env = "PYTHON_PERF_JIT_SUPPORT";
	} else if (py->perf_trampoline) {
		/* 3.12: frame pointers walk through the trampolines only when libpython was built
		 * with them. */
		c->method = PYMETHOD_TRAMPOLINE;
		c->env = "PYTHONPERFSUPPORT";
	}
}

const char *pymethod_describe(const struct pyinfo *py, char *buf, size_t size)
{
	struct pymethod_choice c;
	bool known = pymethod_frames_known(py);
	/* (--python's own recording, one cpu-clock event with DWARF unwinding, pauses them) */
	pymethod_choose(py, false, known && (bpf_loads() || pause_allowed()), &c);
	const char *walk = NULL;
	char frames[512];
	if (known) {
		if (bpf_loads()) {
			walk = "BPF frame walk at each sample";
		} else if (pause_allowed()) {
			snprintf(frames, sizeof(frames), "frame reads with the threads paused at each sample "
				 "(ptrace), exact (no BPF: %s)", bpf_why ? bpf_why : "?");
			walk = frames;
		} else {
			snprintf(frames, sizeof(frames), "process_vm_readv frame reads, approximate (no BPF: %s)",
				 bpf_why ? bpf_why : "?");
			walk = frames;
		}
	}
	if (c.method == PYMETHOD_PERF_JIT)
		snprintf(buf, size, "-X perf_jit (jitdump)%s%s%s", walk ? "; without flags: " : "",
			 walk ? walk : "", walk ? " (--python-frames)" : "");
	else if (c.method == PYMETHOD_TRAMPOLINE)
		snprintf(buf, size, "-X perf (perf map)%s%s%s", walk ? "; without flags: " : "",
			 walk ? walk : "", walk ? " (--python-frames)" : "");
	else if (c.method == PYMETHOD_FRAMES && py->perf_trampoline && !bpf_loads())
		/* paused: --nonblocking or other events take CPython's own support */
		snprintf(buf, size, "%s; -X %s with --nonblocking or other events", walk,
			 py->perf_jit ? "perf_jit (jitdump)" : "perf (perf map)");
	else if (c.method == PYMETHOD_FRAMES)
		snprintf(buf, size, "%s", walk);
	else
		snprintf(buf, size, "none: native frames only (Python frames need CPython 2.7 or 3.6 to 3.13)");
	return buf;
}

/* Whether buf (len bytes of NUL-separated strings, /proc/PID/environ or cmdline) holds one of
 * the strings of v (NULL-ended), or, after_x, that string right after the string "-X". */
static bool has_str(const char *buf, size_t len, const char *const *v, bool after_x)
{
	const char *prev = "";
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1) {
		for (const char *const *s = v; *s; s++)
			if (!strcmp(buf + i, *s) && (!after_x || !strcmp(prev, "-X")))
				return true;
		prev = buf + i;
	}
	return false;
}

/* The process names its Python frames itself (CPython 3.12+'s -X perf or -X perf_jit, by the
 * option or the environment): the stacks read here then only extend the frames it names
 * (python/pymerge.h). */
bool pymethod_names_its_frames(pid_t pid)
{
	char path[64];
	size_t len;
	bool own = false;
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	char *b = file_read(path, 1 << 20, &len);
	static const char *const env[] = { "PYTHONPERFSUPPORT=1", "PYTHON_PERF_JIT_SUPPORT=1", NULL };
	static const char *const joined[] = { "-Xperf", "-Xperf_jit", NULL }, *const opt[] = { "perf", "perf_jit", NULL };
	if (b) {
		own = has_str(b, len, env, false);
		free(b);
	}
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	b = own ? NULL : file_read(path, 1 << 20, &len);
	if (b) {
		own = has_str(b, len, joined, false) || has_str(b, len, opt, true);
		free(b);
	}
	err_clear();
	return own;
}

bool pymethod_asks_own(char *const *argv)
{
	static const char *const vars[] = { "PYTHONPERFSUPPORT", "PYTHON_PERF_JIT_SUPPORT" };
	for (size_t i = 0; i < 2; i++) {
		const char *v = getenv(vars[i]);
		if (v && !strcmp(v, "1"))
			return true;
	}
	/* the interpreter's options, up to the script, -c or -m */
	for (size_t i = 1; argv[0] && argv[i] && argv[i][0] == '-'; i++) {
		const char *a = argv[i], *x = NULL;
		if (!strcmp(a, "-c") || !strcmp(a, "-m") || !strcmp(a, "-") || !strcmp(a, "--"))
			break;
		bool apart = !strcmp(a, "-X") || !strcmp(a, "-W"); /* the value is the next argument */
		if (apart && !(x = argv[++i]))
			break;
		if (!apart && !strncmp(a, "-X", 2))
			x = a + 2;
		if (a[1] == 'X' && (!strcmp(x, "perf") || !strcmp(x, "perf_jit")))
			return true;
	}
	return false;
}

static int setup(const char *cmd0, struct pymethod_setup *s, struct notes *said, int depth);

/* cmd0 is no Python (a shell, a launcher): the frames of every Python it starts, found as it
 * execs, as --python-frames does. */
static int setup_launcher(const char *cmd0, struct pymethod_setup *s, struct notes *said)
{
	if (!s->frames)
		notes_add_level(said, NOTES_NOTE, "--python: %s is not a Python interpreter: reading the frames of "
				"the Pythons it starts (CPython 2.7, 3.6-3.13)", cmd0);
	s->frames = true;
	/* the Pythons it starts are found as they exec */
	if (s->unwind == PYMETHOD_UNWIND_NONE) {
		s->unwind = PYMETHOD_UNWIND_DWARF;
		s->stack_size = 16384;
	}
	return 0;
}

int pymethod_setup(const char *cmd0, struct pymethod_setup *s, struct notes *said)
{
	return setup(cmd0, s, said, 0);
}

static int setup(const char *cmd0, struct pymethod_setup *s, struct notes *said, int depth)
{
	/* A file named by its path that may not be run (no x bit, not there) is said as such
	 * before its "#!" line is looked at: the kernel would refuse it too. */
	if (depth == 0 && strchr(cmd0, '/') && access(cmd0, X_OK) < 0)
		return err_set("--python: cannot run '%s': %s", cmd0, strerror(errno));
	/* A "#!" script (pip3, pytest, manage.py, a shell wrapper) is not run to be probed: its
	 * interpreter is (the kernel runs it in the script's place). */
	char *interp = depth < 4 ? pyinfo_shebang(cmd0) : NULL;
	if (interp) {
		notes_add_level(said, NOTES_NOTE, "--python: %s is a script run by %s", cmd0, interp);
		int r = setup(interp, s, said, depth + 1);
		free(interp);
		return r;
	}
	struct pyinfo py;
	if (pyinfo_probe(cmd0, &py) < 0) {
		/* A file that cannot be run at all (no permission, not there) is said as such. */
		bool unrunnable = py.error && !strncmp(py.error, "cannot run: ", 12);
		char *why = unrunnable ? xstrdup(py.error + 12) : NULL;
		pyinfo_free(&py);
		if (why) {
			err_set("--python: cannot run '%s': %s", cmd0, why);
			free(why);
			return -1;
		}
		return setup_launcher(cmd0, s, said);
	}
	struct pymethod_choice c;
	/* BPF is tried (once) only where it decides: a 3.12+ with its own perf support. Without
	 * it the threads are paused at each sample where the recording allows (s->pausable) and
	 * Yama lets lperf trace its child. */
	bool open = !s->frames && !s->own && py.perf_trampoline && pymethod_frames_known(&py);
	bool bpf = open && bpf_loads();
	bool paused = open && !bpf && s->pausable && pause_allowed();
	bool exact = bpf || paused;
	pymethod_choose(&py, s->frames, exact, &c);
	/* CPython's own support asked for by the command is kept as asked (-X perf on 3.13 stays
	 * the perf map; 3.13's choice is DWARF unwinding, which goes through both) */
	bool asked = s->own && py.perf_trampoline && !s->frames;
	if (asked)
		c.env = NULL;
	/* the paused threads give their registers and stack, which DWARF unwinds: a build with
	 * frame pointers is unwound so too where the threads would be paused */
	if (c.method == PYMETHOD_FRAMES && c.frame_pointers && s->pausable && pause_allowed() && !bpf_loads())
		c.frame_pointers = false;
	if (c.env)
		setenv(c.env, "1", 1);
	if (c.method != PYMETHOD_NONE && s->unwind == PYMETHOD_UNWIND_NONE) {
		s->unwind = c.frame_pointers ? PYMETHOD_UNWIND_FP : PYMETHOD_UNWIND_DWARF;
		s->stack_size = 16384;
	}
	const char *unwind = s->unwind == PYMETHOD_UNWIND_FP ? "frame-pointer" : "DWARF";
	switch (c.method) {
	case PYMETHOD_FRAMES:
		s->frames = true;
		if (bpf)
			notes_add_level(said, NOTES_NOTE, "--python: Python %s: reading its frames at each sample "
					"(BPF; whole stacks with lines, in place of -X perf), %s unwinding", py.version, unwind);
		else if (paused)
			notes_add_level(said, NOTES_NOTE, "--python: Python %s: reading its frames at each sample "
					"with the threads paused (no BPF: %s; whole stacks with lines, in place of "
					"-X perf), %s unwinding", py.version, bpf_why ? bpf_why : "?", unwind);
		else
			notes_add_level(said, NOTES_NOTE, "--python: Python %s without -X perf: reading its frames, %s "
					"unwinding", py.version, unwind);
		break;
	case PYMETHOD_PERF_JIT:
	case PYMETHOD_TRAMPOLINE:
		/* Its frames are read too, at each batch: stacks deeper than the stack copy are
		 * completed from them (python/pymerge.h). */
		s->frames = pymethod_frames_known(&py);
		notes_add_level(said, NOTES_NOTE, "--python: Python %s with %s, %s unwinding%s%s", py.version,
				asked ? "its own perf support, as the command asks" :
				c.method == PYMETHOD_PERF_JIT ? "perf_jit (jitdump)" : "the perf trampoline (perf map)",
				unwind, c.method == PYMETHOD_TRAMPOLINE && !py.frame_pointers ?
				" (this build has no frame pointers)" : "",
				s->frames ? "; frames beyond the stack copy read from the interpreter" : "");
		break;
	case PYMETHOD_NONE:
		notes_add(said, "--python: %s is Python %s, whose frames lperf cannot read (it reads CPython "
			  "2.7 and 3.6 to 3.13); recording native frames only",
			  cmd0, py.version ? py.version : "of an unknown version");
		break;
	}
	pyinfo_free(&py);
	return 0;
}
