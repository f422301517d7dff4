#include "python/pynative.h"

#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/xalloc.h"

struct pynative {
	Dwfl *dwfl;
	pid_t pid;
};

static char *debuginfo_path;

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

struct pynative *pynative_open(pid_t pid)
{
	Dwfl *dwfl = dwfl_begin(&callbacks);
	if (!dwfl) {
		err_set("pid %d: libdwfl: %s", (int)pid, dwfl_errmsg(-1));
		return NULL;
	}
	int rc = dwfl_linux_proc_report(dwfl, pid);
	if (rc != 0 || dwfl_report_end(dwfl, NULL, NULL) != 0 || dwfl_linux_proc_attach(dwfl, pid, true) != 0) {
		err_set("pid %d: cannot unwind its native stacks (libdwfl: %s)", (int)pid,
			rc > 0 ? strerror(rc) : dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return NULL;
	}
	struct pynative *n = xcalloc(1, sizeof(*n));
	n->dwfl = dwfl;
	n->pid = pid;
	return n;
}

struct walk {
	struct pynative_frame *out;
	size_t n, max;
	Dwfl *dwfl;
};

static bool is_eval(const char *name)
{
	static const char *const eval[] = { "_PyEval_EvalFrameDefault", "PyEval_EvalFrameEx" };
	for (size_t i = 0; i < sizeof(eval) / sizeof(eval[0]); i++) {
		size_t len = strlen(eval[i]);
		/* also a compiler's split-off part, _PyEval_EvalFrameDefault.cold */
		if (!strncmp(name, eval[i], len) && (!name[len] || name[len] == '.'))
			return true;
	}
	return false;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool activation;
	if (w->n >= w->max || !dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	/* a return address names the call before it */
	Dwarf_Addr at = activation || !pc ? pc : pc - 1;
	struct pynative_frame *f = &w->out[w->n++];
	memset(f, 0, sizeof(*f));
	f->pc = pc;
	Dwfl_Module *mod = dwfl_addrmodule(w->dwfl, at);
	if (mod) {
		const char *file = NULL;
		const char *mname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &file, NULL);
		if (mname)
			f->module = xstrdup(mname);
		const char *sym = dwfl_module_addrname(mod, at);
		if (sym) {
			f->func = xstrdup(sym);
			f->eval = is_eval(sym);
		}
	}
	return DWARF_CB_OK;
}

size_t pynative_stack(struct pynative *n, pid_t tid, struct pynative_frame *out, size_t max)
{
	struct walk w = { out, 0, max, n->dwfl };
	/* an error ends the walk where it stands: the frames so far are kept */
	dwfl_getthread_frames(n->dwfl, tid, frame_cb, &w);
	return w.n;
}

void pynative_frames_free(struct pynative_frame *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].func);
		free(f[i].module);
	}
}

void pynative_close(struct pynative *n)
{
	if (!n)
		return;
	dwfl_end(n->dwfl);
	free(n);
}
