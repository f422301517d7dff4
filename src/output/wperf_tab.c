/* wperf's simple tables (test, detect, version, man, list): one struct table for the text and the
 * same rows as JSON objects keyed by the column names with spaces as '_'. */
#include "output/wperf_out.h"

#include <stdlib.h>
#include <string.h>

void wperf_tab_init(struct wperf_tab *w, const char *key, size_t ncols, const char *const *cols,
		    const char *const *jkeys)
{
	memset(w, 0, sizeof(*w));
	w->key = key;
	w->jkeys = jkeys;
	table_init(&w->t, ncols, cols);
	w->t.indent = 8;
	w->t.underline = true;
}

void wperf_tab_print(FILE *f, const struct wperf_tab *w)
{
	table_print(&w->t, f);
}

void wperf_tab_json(struct json *j, const struct wperf_tab *w)
{
	json_begin_array(j, w->key);
	for (size_t r = 0; r < w->t.nrows; r++) {
		json_begin_object(j, NULL);
		for (size_t c = 0; c < w->t.ncols; c++) {
			const char *cell = w->t.cells[r * w->t.ncols + c];
			if (c < 8 && w->json_as_int[c])
				json_i64(j, w->jkeys[c], strtoll(cell ? cell : "0", NULL, 0));
			else
				json_str(j, w->jkeys[c], cell ? cell : "");
		}
		json_end_object(j);
	}
	json_end_array(j);
}

void wperf_tabs_json(FILE *f, const struct wperf_tab *w, size_t n)
{
	struct json j;
	json_init(&j, f, true);
	json_begin_object(&j, NULL);
	for (size_t i = 0; i < n; i++)
		wperf_tab_json(&j, &w[i]);
	json_end_object(&j);
	json_finish(&j);
}

void wperf_tab_free(struct wperf_tab *w)
{
	table_free(&w->t);
}
