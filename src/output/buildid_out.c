/* Lines of buildid-list and buildid-cache, as perf 6.1 prints them. */
#include "output/buildid_out.h"

void buildid_print(FILE *f, const uint8_t *id, size_t n, const char *name)
{
	char hex[BUILDID_HEX];
	buildid_hex(id, n, hex);
	if (name)
		fprintf(f, "%s %s\n", hex, name);
	else
		fprintf(f, "%s\n", hex);
}

void buildid_print_cache(FILE *f, const struct buildid_cache_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s %s\n", v[i].hex, v[i].name);
}

void buildid_print_action(FILE *f, const char *verb, const uint8_t *id, size_t n, const char *name, int ok)
{
	char hex[BUILDID_HEX];
	buildid_hex(id, n, hex);
	fprintf(f, "%s %s %s: %s\n", verb, hex, name, ok ? "Ok" : "FAIL");
}
