/* Python frames' labels in the Python view: py-spy's `func (file.py:LINE)` in place of the name
 * CPython's perf support gives (`py::func:/path/file.py`), which perf's own views keep. */
#include "resolve/resolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

const char *resolve_py_name(const struct frame *f)
{
	const struct symbol *s = f->loc.sym;
	if (!s)
		return NULL;
	if (s->mangled && !strncmp(s->mangled, "py::", 4))
		return s->mangled; /* a label made here: the name it was made from */
	return s->name && !strncmp(s->name, "py::", 4) ? s->name : NULL;
}

/* The file as the label shows it: its name, with its directory for a package's __init__.py or
 * __main__.py (which say nothing alone). */
static const char *short_file(const char *file)
{
	const char *base = strrchr(file, '/');
	if (!base)
		return file;
	if (base > file && (!strcmp(base + 1, "__init__.py") || !strcmp(base + 1, "__main__.py"))) {
		const char *dir = base;
		while (dir > file && dir[-1] != '/')
			dir--;
		return dir;
	}
	return base + 1;
}

void resolve_py_split(const char *pyname, const char **func, size_t *flen, const char **file)
{
	const char *fn = strncmp(pyname, "py::", 4) ? pyname : pyname + 4;
	const char *colon = strchr(fn, ':');
	*func = fn;
	*flen = colon ? (size_t)(colon - fn) : strlen(fn);
	*file = colon && colon[1] ? colon + 1 : NULL;
}

void resolve_py_label(struct strbuf *sb, const char *pyname, int line)
{
	const char *fn, *file;
	size_t flen;
	resolve_py_split(pyname, &fn, &flen, &file);
	sb_addf(sb, "%.*s", (int)flen, fn);
	if (file && line > 0)
		sb_addf(sb, " (%s:%d)", short_file(file), line);
	else if (file)
		sb_addf(sb, " (%s)", short_file(file));
	else if (line > 0)
		sb_addf(sb, " (line %d)", line);
}

/* One symbol per (Python name, line), made once and owned by the resolver. */
struct pylabel {
	struct symbol sym;       /* name: the label; mangled: the py:: name it was made from */
	char *key;               /* "LINE|py::func:/path" */
};

static const struct symbol *label_of(struct resolver *r, const struct frame *f, const char *pyname)
{
	int line = r->python_nolineno ? 0 : f->line;
	/* per Python frame of every sample: the key on the stack, on the heap only when kept or long */
	char small[256], *key = small;
	int n = snprintf(small, sizeof(small), "%d|%s", line, pyname);
	if (n < 0 || (size_t)n >= sizeof(small))
		key = xasprintf("%d|%s", line, pyname);
	bool found;
	struct hashmap_entry *e = hashmap_insert_str(&r->pylabels, key, &found);
	if (found) {
		if (key != small)
			free(key);
		return &((struct pylabel *)e->value)->sym;
	}
	struct pylabel *l = xcalloc(1, sizeof(*l));
	struct strbuf name = STRBUF_INIT;
	resolve_py_label(&name, pyname, line);
	l->sym = (struct symbol){ f->loc.sym->start, f->loc.sym->size, sb_detach(&name), xstrdup(pyname) };
	l->key = key == small ? xstrdup(small) : key;
	e->key.str = l->key;
	e->value = l;
	return &l->sym;
}

void resolve_python_labels(struct resolver *r, struct frame *frames, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *pyname = resolve_py_name(&frames[i]);
		if (pyname)
			frames[i].loc.sym = label_of(r, &frames[i], pyname);
	}
}

void resolve_python_labels_free(struct resolver *r)
{
	for (size_t i = 0; i < r->pylabels.n; i++) {
		struct pylabel *l = r->pylabels.v[i].value;
		free(l->sym.name);
		free(l->sym.mangled);
		free(l->key);
		free(l);
	}
	hashmap_free(&r->pylabels);
}
