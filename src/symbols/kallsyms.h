/* Kernel symbols from a kallsyms file (kallsyms.c). The loaders fill a symtab_load (symtab.h);
 * dso.c dispatches to them. */
#ifndef LPERF_SYMBOLS_KALLSYMS_H
#define LPERF_SYMBOLS_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/symtab.h"

/* The kallsyms file the kernel DSO is read from: $LPERF_KALLSYMS when set, else /proc/kallsyms. */
const char *kallsyms_path(void);
/* The kernel's text symbols from the kallsyms file at path (module symbols named "func [mod]"):
 * kallsyms_read then kallsyms_parse_text. */
void kallsyms_load(const char *path, struct symtab_load *out);
/* The file's text (NUL-terminated; *len without the NUL; the caller frees it), or NULL with
 * err_set(). Thread-safe (symbols/kahead.h reads it ahead). */
char *kallsyms_read(const char *path, size_t *len);
/* The symbols of text read from path (named in notes), which is modified in place and freed. */
void kallsyms_parse_text(char *buf, size_t len, const char *path, struct symtab_load *out);
/* Parses one line [line, end) in place ("ADDR T name", "\t[module]" after a module's name): the
 * name is NUL-terminated in the buffer; *mod (NULL: none) points at "[module]", *modlen bytes.
 * False for lines that are not symbols. Shared by kallsyms_parse_text and symbols/kstream.c. */
bool kallsyms_parse_line(char *line, char *end, uint64_t *addr, char *type, char **name, char **mod,
			 size_t *modlen);
/* The symbols of module ("[name]") among the kernel's (ksyms, from kallsyms_load), without the
 * module tag; knote is the kernel's own note, for when it has no symbols. */
void kallsyms_load_module(const struct symbol *ksyms, size_t nksyms, const char *knote, const char *module,
			  struct symtab_load *out);

#endif
