/* Fuzz harness: perf maps (/tmp/perf-PID.map). The input is a map's text; it is parsed whole and
 * in two appends split where the input's last byte says (a live JIT's map read while it grows,
 * the tail after the last newline waiting for more), then every entry is looked up at its start,
 * middle and end, and the stats and the note a report prints are made. Seeds: maps written by
 * CPython 3.12/3.13 (-X perf) and Node.js (--perf-basic-prof). */
#include <stdlib.h>

#include "fuzz.h"
#include "symbols/perfmap.h"
#include "util/notes.h"
#include "util/error.h"

static void walk(struct perfmap *pm)
{
	const struct perfmap_stats *st = perfmap_stats(pm);
	size_t n = st->entries < 512 ? st->entries : 512;
	for (size_t i = 0; i < n; i++) {
		const struct symbol *s = perfmap_entry(pm, i);
		if (!s)
			break;
		(void)perfmap_find(pm, s->start);
		(void)perfmap_find(pm, s->start + s->size / 2);
		(void)perfmap_find(pm, s->start + s->size);
		(void)perfmap_find(pm, s->start - 1);
	}
	struct notes ns = NOTES_INIT;
	perfmap_notes(pm, &ns);
	notes_clear(&ns);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfmap *pm = perfmap_parse((const char *)data, size);
	walk(pm);
	perfmap_free(pm);

	size_t cut = size ? (size_t)data[size - 1] * size / 256 : 0;
	pm = perfmap_new();
	size_t used = perfmap_add(pm, (const char *)data, cut, false);
	if (used <= size)
		(void)perfmap_add(pm, (const char *)data + used, size - used, true);
	walk(pm);
	perfmap_free(pm);
	err_clear();
	return 0;
}
