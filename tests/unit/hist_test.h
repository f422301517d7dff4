/* Hand-built resolved samples for the histogram, filter, profile and report-text tests: a few
 * DSOs and symbols, and stacks named leaf first ("c,b,main"). */
#ifndef LPERF_TESTS_HIST_TEST_H
#define LPERF_TESTS_HIST_TEST_H

#include <string.h>

#include "resolve/resolve.h"
#include "symbols/dso.h"

struct hworld {
	struct dso prog, libc, kernel;
	struct symbol syms[8];   /* main, a, b, c, rec, memcpy, schedule, (spare) */
	struct thread threads[3];
	struct evsel ev[2];
	struct evsel_set evsels;
	struct perf_sample s;
	struct frame f[16];
	struct resolved_sample rs;
};

static void hworld_init(struct hworld *w)
{
	memset(w, 0, sizeof(*w));
	w->prog = (struct dso){ .kind = DSO_ELF, .path = "/usr/bin/prog", .short_name = "prog" };
	w->libc = (struct dso){ .kind = DSO_ELF, .path = "/usr/lib/libc.so.6", .short_name = "libc.so.6" };
	w->kernel = (struct dso){ .kind = DSO_KERNEL, .path = "[kernel.kallsyms]",
				  .short_name = "[kernel.kallsyms]" };
	static const char *const names[] = { "main", "a", "b", "c", "rec", "memcpy", "schedule", "spare" };
	for (size_t i = 0; i < 8; i++)
		w->syms[i] = (struct symbol){ .start = 0x1000 * (i + 1), .size = 0x100, .name = (char *)names[i] };
	static const char *const comms[] = { "prog", "worker", "other" };
	for (int i = 0; i < 3; i++)
		w->threads[i] = (struct thread){ .pid = 100, .tid = 100 + i, .comm = (char *)comms[i] };
	w->ev[0] = (struct evsel){ .name = "cpu-clock", .idx = 0 };
	w->ev[1] = (struct evsel){ .name = "page-faults", .idx = 1 };
	w->evsels = (struct evsel_set){ .v = w->ev, .n = 2 };
}

/* The symbol of a name ("main", "memcpy", ...), or NULL; "0x..." frames are unresolved. */
static const struct symbol *hworld_sym(struct hworld *w, const char *name)
{
	for (size_t i = 0; i < 8; i++)
		if (!strcmp(w->syms[i].name, name))
			return &w->syms[i];
	return NULL;
}

/* Fills w->rs: thread `thr`, event `ev`, period, and the frames named in `stack` (leaf first,
 * comma-separated). memcpy lives in libc, schedule in the kernel, the rest in prog; a name
 * "0xADDR" is an address of prog without a symbol. */
static const struct resolved_sample *hworld_sample(struct hworld *w, int thr, int ev, uint64_t period,
						   const char *stack)
{
	memset(&w->s, 0, sizeof(w->s));
	memset(w->f, 0, sizeof(w->f));
	w->s.evsel = &w->ev[ev];
	w->s.pid = (uint32_t)w->threads[thr].pid;
	w->s.tid = (uint32_t)w->threads[thr].tid;
	w->s.cpu = (uint32_t)thr;
	w->s.period = period;
	size_t n = 0;
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", stack);
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t && n < 16; t = strtok_r(NULL, ",", &save), n++) {
		struct frame *f = &w->f[n];
		const struct symbol *sym = hworld_sym(w, t);
		f->loc.sym = sym;
		f->loc.dso = !strcmp(t, "memcpy") ? &w->libc : !strcmp(t, "schedule") ? &w->kernel : &w->prog;
		f->loc.kernel = f->loc.dso == &w->kernel;
		f->ip = sym ? sym->start + 0x10 : strtoull(t, NULL, 16);
		f->loc.addr = f->ip;
		f->loc.sym_off = sym ? 0x10 : 0;
	}
	w->s.ip = n ? w->f[0].ip : 0;
	w->rs = (struct resolved_sample){ .s = &w->s, .thread = &w->threads[thr], .frames = w->f, .nframes = n };
	return &w->rs;
}

#endif
