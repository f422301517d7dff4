#include <stdio.h>
#include <string.h>

#include "output/stat_out.h"
#include "stat/stat_shadow.h"

double statout_display_value(const struct stat_result *r, size_t e, const struct stat_value *v)
{
	const struct ev *ev = &r->evl->ev[e];
	if (ev->source == EV_SRC_TOOL)
		return r->duration * 1e9;
	if (stat_ev_is_clock(ev))
		return v->scaled / 1e6;
	return v->scaled;
}

const char *statout_unit(const struct ev *ev)
{
	if (ev->source == EV_SRC_TOOL)
		return "ns";
	return stat_ev_is_clock(ev) ? "msec" : "";
}

void statout_note(const struct ev *ev, char *buf, size_t size)
{
	int n = ev->group >= 0 ? snprintf(buf, size, "g%d", ev->group) : snprintf(buf, size, "e");
	if (ev->metric && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, ",%s", ev->metric);
}
