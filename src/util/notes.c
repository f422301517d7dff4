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

static void set_level(struct notes *ns, size_t i, enum notes_level level)
{
	if (level == NOTES_WARNING && !ns->levels)
		return;
	if (ns->lcap < ns->cap) {
		ns->levels = xrealloc(ns->levels, ns->cap);
		memset(ns->levels + ns->lcap, NOTES_WARNING, ns->cap - ns->lcap);
		ns->lcap = ns->cap;
	}
	ns->levels[i] = (unsigned char)level;
}

void notes_add_level(struct notes *ns, enum notes_level level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	notes_vadd(ns, fmt, ap);
	va_end(ap);
	set_level(ns, ns->n - 1, level);
}

enum notes_level notes_level(const struct notes *ns, size_t i)
{
	return ns->levels && i < ns->lcap ? (enum notes_level)ns->levels[i] : NOTES_WARNING;
}

void notes_move(struct notes *ns, struct notes *from)
{
	for (size_t i = 0; i < from->n; i++) {
		notes_take(ns, from->v[i]);
		set_level(ns, ns->n - 1, notes_level(from, i));
	}
	free(from->v);
	free(from->levels);
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
	free(ns->levels);
	memset(ns, 0, sizeof(*ns));
}
