#include "output/folded_out.h"

#include <inttypes.h>
#include <stdlib.h>

void folded_print(FILE *out, const struct folded *f)
{
	size_t *order = folded_order(f);
	for (size_t i = 0; i < f->n; i++)
		fprintf(out, "%s %" PRIu64 "\n", f->stacks[order[i]], f->counts[order[i]]);
	free(order);
	fflush(out);
}
