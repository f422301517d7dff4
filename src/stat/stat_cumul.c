#include "stat/stat_cumul.h"

static void add_value(struct stat_value *dst, const struct stat_value *d)
{
	if (d->status == COUNTER_NOT_SUPPORTED)
		return;
	if (d->scaled > 0)
		dst->scaled += d->scaled;
	if (dst->status == COUNTER_NOT_COUNTED)
		dst->status = d->status;
}

void stat_cumul_add(struct stat_result *dst, const struct stat_result *delta)
{
	if (dst->nev != delta->nev || dst->ncpus != delta->ncpus)
		return;
	for (size_t e = 0; e < dst->nev; e++) {
		add_value(&dst->ev[e].total, &delta->ev[e].total);
		for (size_t c = 0; c < dst->ncpus; c++)
			add_value(&dst->ev[e].cpu[c], &delta->ev[e].cpu[c]);
	}
	dst->duration = delta->timestamp; /* the delta's timestamp: seconds since counting began */
	dst->timestamp = delta->timestamp;
}
