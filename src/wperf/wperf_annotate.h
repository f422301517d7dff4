/* wperf's --annotate and --disassemble: per hot function, the samples per source line (and,
 * with --disassemble, per instruction address with the line's instructions), from the sampled
 * program counters, the DSOs' DWARF line tables (libdw) and capstone.
 *
 * Note for merging: the annotate command's line cache (symbols/srcline.h) answers the same
 * question; wperf_lines_find can become a call to srcline_find then. */
#ifndef LPERF_WPERF_WPERF_ANNOTATE_H
#define LPERF_WPERF_WPERF_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output/wperf_out.h"
#include "session/session.h"

struct dso;
struct symbol;

/* The sampled PCs, counted per (event, DSO, address); bounded by the code touched. */
struct wperf_pcs {
	struct wperf_pc {
		size_t ev;
		struct dso *dso;
		const struct symbol *sym;
		uint64_t addr;   /* DSO address space */
		uint64_t count;
	} *v;
	size_t n, cap, merged;
};

void wperf_pcs_add(struct wperf_pcs *p, size_t ev, const struct addr_loc *loc);
/* Sorts and merges duplicates. */
void wperf_pcs_compact(struct wperf_pcs *p);
void wperf_pcs_free(struct wperf_pcs *p);

/* The annotation of one hot function ("sym:module", as the table names it) of event ev: its
 * source lines by hits. Lines without DWARF are counted in *missing. */
int wperf_annotate_fn(const struct wperf_pcs *p, size_t ev, const char *row_name, bool long_names,
		      bool disasm, struct wperf_annot_fn *out, uint64_t *missing);
void wperf_annot_fn_free(struct wperf_annot_fn *f);
/* -v's "pcs" of event ev: every sampled PC with its count and "sym:module", most first. */
size_t wperf_pcs_rows(const struct wperf_pcs *p, size_t ev, bool long_names, struct wperf_pc_row **out);
void wperf_pc_rows_free(struct wperf_pc_row *rows, size_t n);
/* Releases the libdw and capstone handles kept between calls. */
void wperf_annotate_cleanup(void);

#endif
