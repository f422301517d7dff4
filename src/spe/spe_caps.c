/* The SPE version from what Linux shows in sysfs (see spe.h). */
#include <string.h>

#include "spe/spe.h"

enum spe_version spe_version_infer(char *const *formats, size_t nformats, char *const *caps,
				   size_t ncaps)
{
	enum spe_version v = SPE_V1;
	for (size_t i = 0; i < ncaps; i++)
		if (!strcmp(caps[i], "ernd=1"))
			v = SPE_V1P1;
	for (size_t i = 0; i < nformats; i++)
		if (!strcmp(formats[i], "inv_event_filter") || !strcmp(formats[i], "discard"))
			v = SPE_V1P2;
	return v;
}
