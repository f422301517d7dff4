/* The note list: a growable array of owned strings. */
#include "util/notes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void notes_take(struct notes *ns, char *msg)
{
	if (!msg)
		return;
	ALLOC_GROW(ns->v, ns->n + 1, ns->cap);
	ns->v[ns->n++] = msg;
}

void notes_vadd(struct notes *ns, const char *fmt, va_list ap)
{
	char *s;
	if (vasprintf(&s, fmt, ap) < 0)
		s = xstrdup(fmt);
	notes_take(ns, s);
}

void notes_add(struct notes *ns, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	notes_vadd(ns, fmt, ap);
	va_end(ap);
}

void notes_move(struct notes *ns, struct notes *from)
{
	for (size_t i = 0; i < from->n; i++)
		notes_take(ns, from->v[i]);
	free(from->v);
	memset(from, 0, sizeof(*from));
}

const char *notes_last(const struct notes *ns)
{
	return ns->n ? ns->v[ns->n - 1] : NULL;
}

void notes_clear(struct notes *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
	memset(ns, 0, sizeof(*ns));
}
