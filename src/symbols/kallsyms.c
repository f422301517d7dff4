/* Kernel symbols from kallsyms ("ffffffff81000000 T _text", module symbols end with
 * "\t[module]"). Only text symbols are kept (t, T, w, W). kallsyms has no sizes: a symbol runs to
 * the next one. Module symbols are named "func [module]" in [kernel.kallsyms], and plain "func"
 * in the module's own DSO. */
#include "symbols/kallsyms.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/fileio.h"
#include "util/parse.h"
#include "util/xalloc.h"

/* Hundreds of thousands of lines, tens of megabytes at most; anything far larger is not kallsyms. */
#define KALLSYMS_MAX (512u << 20)

/* The " [module]" suffixes, one string per module, alive until the symbols are built. */
struct suffixes {
	char **v;
	size_t n, cap;
};

static const char *suffix_for(struct suffixes *s, const char *mod, size_t len)
{
	/* A module's symbols are listed together: the last one usually matches. */
	for (size_t i = s->n; i-- > 0;)
		if (!strncmp(s->v[i] + 1, mod, len) && s->v[i][len + 1] == 0)
			return s->v[i];
	ALLOC_GROW(s->v, s->n + 1, s->cap);
	s->v[s->n] = xasprintf(" %.*s", (int)len, mod);
	return s->v[s->n++];
}

bool kallsyms_parse_line(char *line, char *end, uint64_t *addr, char *type, char **name, char **mod,
		       size_t *modlen)
{
	char *p = line;
	uint64_t a = 0;
	int digits = 0, v;
	while (p < end && (v = hex_digit(*p)) >= 0) {
		if (++digits > 16)
			return false;
		a = a << 4 | (uint64_t)v;
		p++;
	}
	if (!digits || end - p < 4 || p[0] != ' ' || p[2] != ' ')
		return false;
	*addr = a;
	*type = p[1];
	*name = p + 3;
	char *q = *name;
	while (q < end && *q != '\t' && *q != ' ')
		q++;
	if (q == *name)
		return false;
	*mod = NULL;
	*modlen = 0;
	if (q < end && *q == '\t' && q + 1 < end && q[1] == '[') {
		char *close = memchr(q + 1, ']', (size_t)(end - q - 1));
		if (close) {
			*mod = q + 1;
			*modlen = (size_t)(close - q);
		}
	}
	*q = 0;
	return true;
}

const char *kallsyms_path(void)
{
	const char *p = getenv("LPERF_KALLSYMS");
	return p && *p ? p : "/proc/kallsyms";
}

char *kallsyms_read(const char *path, size_t *len)
{
	return file_read(path, KALLSYMS_MAX, len);
}

void kallsyms_load(const char *path, struct symtab_load *out)
{
	size_t len;
	char *buf = kallsyms_read(path, &len);
	if (!buf) {
		notes_add(&out->notes, "%s", err_msg());
		return;
	}
	kallsyms_parse_text(buf, len, path, out);
}

/* The names of the symbols kept, copied out of the text so that the text (5 MB, twice the names)
 * is freed before the symbols are sorted and copied: a first report's peak memory is this
 * load's. Blocks of ARENA_BLOCK bytes, alive until the symbols are built. */
#define ARENA_BLOCK (256u << 10)

struct names {
	char **blocks;
	size_t n, cap;
	char *at;
	size_t left;
};

static const char *names_copy(struct names *a, const char *s, size_t len)
{
	if (len + 1 > a->left) {
		size_t size = len + 1 > ARENA_BLOCK ? len + 1 : ARENA_BLOCK;
		ALLOC_GROW(a->blocks, a->n + 1, a->cap);
		a->at = a->blocks[a->n++] = xmalloc(size);
		a->left = size;
	}
	char *copy = a->at;
	memcpy(copy, s, len);
	copy[len] = 0;
	a->at += len + 1;
	a->left -= len + 1;
	return copy;
}

static void names_free(struct names *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->blocks[i]);
	free(a->blocks);
}

void kallsyms_parse_text(char *buf, size_t len, const char *path, struct symtab_load *out)
{
	struct names names = { 0 };
	struct symtab_builder b = { 0 };
	b.last_wins = true;
	struct suffixes sfx = { 0 };
	size_t nlines = 0, nzero = 0;
	uint64_t last = 0;
	for (char *line = buf, *bufend = buf + len; line < bufend;) {
		char *nl = memchr(line, '\n', (size_t)(bufend - line));
		char *end = nl ? nl : bufend;
		uint64_t addr;
		char type, *name, *mod;
		size_t modlen;
		if (kallsyms_parse_line(line, end, &addr, &type, &name, &mod, &modlen)) {
			nlines++;
			nzero += addr == 0;
			enum symtab_rank rank = SYMRANK_OTHER;
			switch (type) {
			case 'T': rank = SYMRANK_GLOBAL; break;
			case 't': rank = SYMRANK_LOCAL; break;
			case 'W':
			case 'w': rank = SYMRANK_WEAK; break;
			default: break;
			}
			if (rank != SYMRANK_OTHER && addr) {
				symtab_add(&b, addr, 0, 0, names_copy(&names, name, strlen(name)),
					   mod ? suffix_for(&sfx, mod, modlen) : NULL, rank);
				if (addr > last)
					last = addr;
			}
		}
		line = end + 1;
	}
	free(buf);
	if (nlines && nzero == nlines) {
		notes_add(&out->notes, "kernel addresses are hidden (kernel.kptr_restrict); run as root or set "
			  "kernel.kptr_restrict=0");
	} else if (!b.n) {
		notes_add(&out->notes, "no kernel text symbols in '%s'", path);
	} else {
		/* The last symbol has no next one: give it the rest of its page and one more, as
		 * perf does. */
		for (size_t i = 0; i < b.n; i++)
			if (b.v[i].start == last)
				b.v[i].limit = (last | 4095) + 1 + 4096;
	}
	symtab_finish(&b, &out->syms, &out->nsyms);
	for (size_t i = 0; i < sfx.n; i++)
		free(sfx.v[i]);
	free(sfx.v);
	names_free(&names);
}

void kallsyms_load_module(const struct symbol *ksyms, size_t nksyms, const char *knote, const char *module,
			  struct symtab_load *out)
{
	if (!nksyms) {
		notes_add(&out->notes, "no kernel symbols: %s", knote ? knote : "kallsyms is empty");
		return;
	}
	size_t mlen = strlen(module), n = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < nksyms; i++) {
			const char *name = ksyms[i].name;
			size_t len = strlen(name);
			if (len <= mlen + 1 || strcmp(name + len - mlen, module) || name[len - mlen - 1] != ' ')
				continue;
			if (pass == 1) {
				out->syms[n] = ksyms[i];
				out->syms[n].name = xstrndup(name, len - mlen - 1);
				/* its own copy: the kernel DSO frees the kernel's */
				if (ksyms[i].mangled)
					out->syms[n].mangled = xstrdup(ksyms[i].mangled);
			}
			n++;
		}
		if (pass == 0) {
			if (!n) {
				notes_add(&out->notes, "no symbols of module %s in kallsyms", module);
				return;
			}
			out->syms = xcalloc(n, sizeof(*out->syms));
			out->nsyms = n;
			n = 0;
		}
	}
}
