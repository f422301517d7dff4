/* --color / --stdio-color, shared by the commands whose text shows percentages. */
#include "cmd/cmd.h"
#include "util/opt.h"
#include "util/pager.h"

int cmd_opt_colour(const struct option *o, const char *a)
{
	return colour_parse(a ? a : "always", o->value);
}
