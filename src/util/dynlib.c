/* Libraries loaded on first use (see dynlib.h). */
#include "util/dynlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "util/error.h"

#ifndef LPERF_CAPSTONE_SONAME
#define LPERF_CAPSTONE_SONAME "libcapstone.so.4"
#endif
#ifndef LPERF_PFM_SONAME
#define LPERF_PFM_SONAME "libpfm.so.4"
#endif

struct lib {
	const char *soname, *package;
	const char *const *names;  /* the functions, in the order of the table's pointers */
	void **fns;
	size_t n;
	pthread_once_t once;
	bool ok;
	char why[256];
};

static struct dynlib_cs cs;
static const char *const cs_names[] = { "cs_open", "cs_option", "cs_close", "cs_malloc", "cs_free",
					"cs_disasm_iter", "cs_insn_group", "cs_version" };
static struct dynlib_pfm pfm;
static const char *const pfm_names[] = { "pfm_initialize", "pfm_strerror", "pfm_get_version",
					 "pfm_get_os_event_encoding", "pfm_get_pmu_info", "pfm_get_event_next",
					 "pfm_get_event_info", "pfm_get_event_attr_info" };

_Static_assert(sizeof(cs) == sizeof(cs_names) / sizeof(cs_names[0]) * sizeof(void *), "capstone table");
_Static_assert(sizeof(pfm) == sizeof(pfm_names) / sizeof(pfm_names[0]) * sizeof(void *), "libpfm table");

static struct lib cs_lib = { LPERF_CAPSTONE_SONAME, "libcapstone4", cs_names, (void **)&cs,
			     sizeof(cs_names) / sizeof(cs_names[0]), PTHREAD_ONCE_INIT, false, "" };
static struct lib pfm_lib = { LPERF_PFM_SONAME, "libpfm4", pfm_names, (void **)&pfm,
			      sizeof(pfm_names) / sizeof(pfm_names[0]), PTHREAD_ONCE_INIT, false, "" };

static void load(struct lib *l)
{
	/* RTLD_LOCAL: the library's symbols stay out of the global namespace, as they were
	 * never meant to resolve anything else; RTLD_NOW: a missing function shows here. */
	void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(l->why, sizeof(l->why), "cannot load %s (Debian package %s): %s", l->soname, l->package,
			 e ? e : "unknown error");
		return;
	}
	for (size_t i = 0; i < l->n; i++) {
		void *f = dlsym(h, l->names[i]);
		if (!f) {
			snprintf(l->why, sizeof(l->why), "%s has no function %s", l->soname, l->names[i]);
			memset(l->fns, 0, l->n * sizeof(void *));
			return; /* the handle stays open: a failed library is not retried */
		}
		memcpy(&l->fns[i], &f, sizeof(f));
	}
	l->ok = true;
}

static void load_cs(void) { load(&cs_lib); }
static void load_pfm(void) { load(&pfm_lib); }

static const void *loaded(struct lib *l, void (*once)(void), const void *table)
{
	pthread_once(&l->once, once);
	if (!l->ok) {
		err_set("%s", l->why);
		return NULL;
	}
	return table;
}

const struct dynlib_cs *dynlib_capstone(void)
{
	return loaded(&cs_lib, load_cs, &cs);
}

const struct dynlib_pfm *dynlib_pfm(void)
{
	return loaded(&pfm_lib, load_pfm, &pfm);
}
