/* Fuzz harness: perf's tracing data (the TRACING_DATA feature / pipe HEADER_TRACING_DATA data)
 * and tracepoint samples printed from it. The input is tracing data followed by raw sample data:
 * tracedata_parse reads the formats (bounds-checked, libtraceevent parses each format), then the
 * bytes after what it used are cut into records of a size the input chooses, each printed
 * through every parsed event's format by tracedata_print, as lperf script prints a sample's
 * fields (a record that does not fit its format is left unprinted). Seeds: lperf's recordings of
 * sched:sched_switch, syscalls:sys_enter_openat and sched_process_exec. */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "events/tracedata.h"
#include "fuzz.h"
#include "util/error.h"

/* libtraceevent 1.7.1 (Debian 12) leaks a few bytes on some error paths of tep_parse_event when
 * a format is malformed (a token of a field line it gives up on): its bug, not lperf's, bounded
 * by the formats of one recording. LeakSanitizer leaves leaks allocated inside it out; any other
 * leak still stops the run. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

static void print_records(struct tep_handle *tep, const uint8_t *p, size_t n)
{
	int nev = tep_get_events_count(tep);
	for (int round = 0; round < 8 && n >= 3; round++) {
		size_t len = 8 + (size_t)p[0] * 2;
		if (len > n - 1)
			len = n - 1;
		/* a copy of exactly len bytes: ASan sees any read past the record */
		uint8_t *raw = malloc(len);
		memcpy(raw, p + 1, len);
		for (int e = 0; e < nev && e < 8; e++) {
			struct tep_event *ev = tep_get_event(tep, e);
			if (!ev || len < 2)
				continue;
			uint16_t id = (uint16_t)ev->id;
			memcpy(raw, &id, 2); /* common_type: this event */
			struct strbuf sb = STRBUF_INIT;
			(void)tracedata_print(tep, 0, raw, len, &sb);
			sb_release(&sb);
		}
		free(raw);
		p += len + 1;
		n -= len + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t used = 0;
	struct tep_handle *tep = tracedata_parse(data, size, "fuzz.data", 0, &used);
	if (tep) {
		print_records(tep, data + used, size - used);
		tep_free(tep);
	}
	err_clear();
	return 0;
}
