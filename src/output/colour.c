/* perf's percentage colours (output/colour.h). */
#include "output/colour.h"

const char *colour_pct_begin(bool on, double pct)
{
	if (!on)
		return "";
	if (pct >= COLOUR_HOT_RED)
		return "\033[31m";
	if (pct >= COLOUR_HOT_GREEN)
		return "\033[32m";
	return "";
}

const char *colour_pct_end(bool on, double pct)
{
	return on && pct >= COLOUR_HOT_GREEN ? "\033[m" : "";
}

void colour_pct_print(FILE *f, bool on, const char *fmt, double pct)
{
	fputs(colour_pct_begin(on, pct), f);
	fprintf(f, fmt, pct);
	fputs(colour_pct_end(on, pct), f);
}
