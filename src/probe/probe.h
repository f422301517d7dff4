/* perf probe's dynamic events (src/probe/): uprobes in tracefs's uprobe_events, named and worded
 * as perf 6.1 names them ("probe_BIN:FUNC", "FUNC__return", "_1" for a duplicate), the symbols
 * perf probe lists (probe_elf.c) and where a function lives in its file. Kprobes need the
 * kernel's kprobe_events; where it is missing every kprobe request fails with perf's words. */
#ifndef LPERF_PROBE_PROBE_H
#define LPERF_PROBE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* probe_elf.c. The symbols of an ELF file that perf probe --funcs lists: functions and objects,
 * and untyped labels in text or data sections, all in allocated sections (.symtab, else
 * .dynsym), sorted by name (duplicates kept, as perf prints them). -1 with err_set(). */
int probe_elf_symbols(const char *path, char ***names, size_t *n);
/* The file offset of function func's entry (a FUNC or IFUNC symbol, through its PT_LOAD
 * segment), as uprobe_events takes it. -1 with err_set() ("Probe point 'x' not found."). */
int probe_elf_offset(const char *path, const char *func, uint64_t *offset);
/* The function at a file offset ("foo", or "foo+4" inside it); NULL when none (caller frees). */
char *probe_elf_name_at(const char *path, uint64_t offset);
/* probe_dwarf.c. */
/* A DWARF variable of func (a parameter or local in scope at func+off), "VAR" or "VAR->MEMBER",
 * as the kernel's fetch argument ("%di:s32", "+8(%si):s32"), as perf probe turns it; NULL with
 * err_set() when the debug info has no register location for it there (caller frees). */
char *probe_dwarf_fetch(const char *path, const char *func, uint64_t off, const char *expr);
/* perf's prologue skip for a probe with variables on unoptimised code: *skip is the offset of
 * the function's second line-table statement (its body), 0 for optimised code or without debug
 * info; *entry the function's address (for perf's message). -1 with err_set() when path cannot
 * be read. */
int probe_dwarf_prologue(const char *path, const char *func, uint64_t *skip, uint64_t *entry);
/* perf probe -V: where (perf's "NAME+OFF", the function's DWARF name) and the variables with a
 * location at func+off, "TYPE\tNAME" lines sorted as perf lists them. -1 with err_set() when
 * the debug info has no function there. */
int probe_dwarf_vars(const char *path, const char *func, uint64_t off, char **where, char ***lines, size_t *n);
/* perf probe -L FUNC: the function's source file and lines, from its declaration to its last
 * line-table row; numbered[l] is set for lines with code (1..end). */
struct probe_lines {
	char *file;
	int start, end;
	uint8_t *numbered;
	char *text;               /* the source file's text */
};
int probe_dwarf_lines(const char *path, const char *func, struct probe_lines *out);
void probe_dwarf_lines_free(struct probe_lines *l);
/* The source file of the function at offset, from DWARF; NULL when unknown (caller frees). */
char *probe_elf_source(const char *path, const char *func);

/* perf's filter language for --funcs and -d: globs joined by '|' (or) and '&' (and), each may
 * start with '!' (not); spaces around operators are ignored. */
bool probe_filter_match(const char *filter, const char *name);

/* probe_events.c. One dynamic event of uprobe_events / kprobe_events. */
struct probe_event {
	char kind;                /* 'p' entry, 'r' return */
	bool uprobe;
	char *group, *event;
	char *target;             /* uprobe: "PATH:0xOFFSET"; kprobe: "SYMBOL+OFF" */
	char *args;               /* "" when none */
};

/* The tracefs file of uprobes (uprobe) or kprobes; NULL with perf's message in err_set()
 * ("/sys/kernel/tracing//kprobe_events does not exist.\nPlease rebuild kernel with
 * CONFIG_KPROBE_EVENTS=y.") when the kernel has none. The caller frees. */
char *probe_events_file(bool uprobe);
/* Every event of both files (a missing file has none). */
int probe_events_read(struct probe_event **v, size_t *n);
void probe_events_free(struct probe_event *v, size_t n);
/* The kernel's symbols perf probe --funcs lists without -x: /proc/kallsyms's text, data and
 * bss symbols, modules' left out, sorted by name. -1 with err_set(). */
int probe_kernel_symbols(char ***names, size_t *n);
/* perf's group for a binary: "probe_" and its base name up to the first '.', with characters
 * other than letters, digits and '_' made '_' ("probe_libc" for libc.so.6). Caller frees. */
char *probe_group_for(const char *path);
/* An event name free in group among v: base, else base_1, base_2... (force) -- or -1 with
 * perf's "event \"x\" already exists." when !force. Caller frees *name. */
int probe_pick_name(const struct probe_event *v, size_t n, const char *group, const char *base, bool force,
		    char **name);
/* Writes the event ("p:GROUP/EVENT TARGET ARGS"); -1 with err_set() naming the kernel's reason. */
int probe_events_add(const struct probe_event *e);
/* Removes one event ("-:GROUP/EVENT"). */
int probe_events_del(const struct probe_event *e);

/* "GROUP:EVENT" or "EVENT" (any group), with globs, against an event (perf probe -d). */
bool probe_event_matches(const char *pattern, const struct probe_event *e);

/* probe_spec.c. A probe definition: "[[GROUP:]EVENT=]FUNC[+OFF|%return] [ARG ...]". */
struct probe_spec {
	char *group, *event, *func, *args;
	uint64_t off;
	uint64_t skip, entry;         /* perf's prologue skip (unoptimised code, variables asked) */
	bool ret;
};
/* -1 with perf's words in err_set(): "Semantic error :...", or "Debuginfo-analysis is not
 * supported." for source lines, files and patterns. probe_spec_free in both cases. */
int probe_spec_parse(const char *text, struct probe_spec *s);
void probe_spec_free(struct probe_spec *s);
/* What needs no file: no variable in a return probe, none in a kprobe (!uprobe). */
int probe_spec_check(const struct probe_spec *s, bool uprobe);
/* The event's target: "PATH:0xOFFSET" for a uprobe in exec (*file its real path, caller frees;
 * sets s->skip/entry when perf would skip the prologue), "FUNC[+OFF]" for a kprobe (exec NULL;
 * NULL with perf's words when the kernel has no kprobe_events). */
char *probe_spec_target(const char *exec, struct probe_spec *s, char **file);
/* The arguments for the kernel (*args), named as perf names them, and as perf's messages show
 * them (*shown). -1 with err_set() when a variable has no location lperf can read. */
int probe_spec_args(const char *file, const struct probe_spec *s, char **args, char **shown);
/* The names of an event's arguments ("i t" for "i=%di:s32 t=%si:x64"), for "with ..." in -l. */
char *probe_arg_names(const char *args);

#endif
