/* Libraries loaded on first use (util/dynlib.c): libcapstone (annotate's disassembly) and
 * libpfm4 (its event names), which most runs never call. Linked in, they were mapped and
 * relocated at every start (118,000 relocations, about 1.3 ms and 5 MB resident, a report's
 * included); loaded here, a run pays for them only when it uses them. The Debian packages stay
 * the dependency: the library is the one the build compiled against, by its soname
 * (LPERF_CAPSTONE_SONAME, LPERF_PFM_SONAME from the Makefile), and every function is typed by
 * the library's own header. */
#ifndef LPERF_UTIL_DYNLIB_H
#define LPERF_UTIL_DYNLIB_H

#include <capstone/capstone.h>
#include <perfmon/pfmlib_perf_event.h>

struct dynlib_cs {
	__typeof__(cs_open) *open;
	__typeof__(cs_option) *option;
	__typeof__(cs_close) *close;
	__typeof__(cs_malloc) *malloc;
	__typeof__(cs_free) *free;
	__typeof__(cs_disasm_iter) *disasm_iter;
	__typeof__(cs_insn_group) *insn_group;
	__typeof__(cs_version) *version;
};

struct dynlib_pfm {
	__typeof__(pfm_initialize) *initialize;
	__typeof__(pfm_strerror) *strerror;
	__typeof__(pfm_get_version) *get_version;
	__typeof__(pfm_get_os_event_encoding) *get_os_event_encoding;
	__typeof__(pfm_get_pmu_info) *get_pmu_info;
	__typeof__(pfm_get_event_next) *get_event_next;
	__typeof__(pfm_get_event_info) *get_event_info;
	__typeof__(pfm_get_event_attr_info) *get_event_attr_info;
};

/* The library's functions, loaded on the first call (thread-safe; once per process): NULL
 * with err_set() naming the library and why when it cannot be loaded (the same answer at every
 * later call). */
const struct dynlib_cs *dynlib_capstone(void);
const struct dynlib_pfm *dynlib_pfm(void);

#endif
