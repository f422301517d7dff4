/* perf's tracing data (the TRACING_DATA feature section of perf.data, and the data after a
 * pipe-mode HEADER_TRACING_DATA record): the format files of the recorded tracepoints, which
 * readers need to name and print the fields of a sample's raw data. Layout, as perf 6.1 writes
 * it: "\x17\x08\x44tracing", a version string ("0.6"), the byte order (0 little, 1 big), the size
 * of a long, the page size (u32); "header_page\0" u64 size and events/header_page;
 * "header_event\0" u64 size and events/header_event; u32 count of ftrace formats, each u64 size
 * and text; u32 count of systems, each its NUL-terminated name, u32 count of formats, each u64
 * size and text; u32 size and /proc/kallsyms (perf 6.1 writes 0); u32 size and printk_formats;
 * from version 0.6 u64 size and saved_cmdlines. Numbers in the byte order given. The formats are
 * parsed by Debian's libtraceevent. */
#ifndef LPERF_EVENTS_TRACEDATA_H
#define LPERF_EVENTS_TRACEDATA_H

#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

struct tep_handle;

/* Builds the tracing data for the tracepoints with these ids (PERF_TYPE_TRACEPOINT configs)
 * from the mounted tracefs. *out is malloc'ed. -1 with err_set() naming the tracefs file that
 * could not be read, or the id that names no tracepoint. */
int tracedata_build(const uint64_t *ids, size_t n, uint8_t **out, size_t *len);

/* Parses tracing data into a libtraceevent handle (free with tep_free). *used (may be NULL) is
 * how many bytes the data took (perf pads pipe-mode data to 8 bytes after them). NULL with
 * err_set() naming what ("FILE: tracing data at offset 0x1a2 (system 'sched', format 3): size
 * 4096 is past the end of the section") where the data is damaged; file_off is the data's offset
 * in the file, for messages. The formats are parsed in a child process first: one that crashes
 * libtraceevent (its parser has bugs on malformed print fmt expressions) is such an error too. */
struct tep_handle *tracedata_parse(const uint8_t *buf, size_t len, const char *file, uint64_t file_off,
				   size_t *used);

/* The formats of these tracepoints read from the live tracefs (for a recording that lacks its
 * own): tracedata_build then tracedata_parse. NULL with err_set(). */
struct tep_handle *tracedata_live(const uint64_t *ids, size_t n);

/* One tracepoint sample's fields (its raw data) as perf script prints them, by libtraceevent,
 * appended to out ("prev_comm=sh prev_pid=1 ... ==> next_comm=..."). libtraceevent trusts the
 * record: so the data is copied, zero-padded past every fixed field's end, and a dynamic field
 * (__data_loc) that points outside the record leaves the sample unprinted. -1 (nothing appended)
 * when the formats do not know the record's event or the record does not fit its format. */
int tracedata_print(struct tep_handle *tep, int cpu, const void *raw, size_t size, struct strbuf *out);

#endif
