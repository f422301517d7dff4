#include "python/pylocals.h"

#include <stdlib.h>
#include <string.h>

#include "python/pyread.h"
#include "util/xalloc.h"

/* Where each version keeps a frame's locals and a code object's names for them (learned from
 * CPython's Include/{frameobject,code}.h, Include/cpython/code.h and
 * Include/internal/pycore_frame.h of each version; checked against pyenv builds' DWARF by
 * tests/unit/test_pylocals.c). -1: the version has no such field. */
struct loc_layout {
	int major, minor;
	int32_t localsplus;       /* PyFrameObject.f_localsplus / _PyInterpreterFrame.localsplus */
	int32_t names;            /* co_varnames / co_localsplusnames */
	int32_t cellvars, freevars;  /* up to 3.10: their names follow co_varnames' in localsplus */
	int32_t kinds;            /* 3.11+: co_localspluskinds (a bytes object) */
	int32_t argcount, kwonly, flags;
	int32_t dict_used;        /* PyDictObject.ma_used */
	int int_kind;             /* 0: 2.7's int (a C long); 1: ob_size is the signed digit count;
				   * 2: 3.12+'s lv_tag (digits << 3 | sign) */
};

static const struct loc_layout loc_table[] = {
	{ 2, 7, 376, 56, 72, 64, -1, 16, -1, 28, 24, 0 },
	{ 3, 6, 376, 64, 80, 72, -1, 16, 20, 32, 16, 1 },
	{ 3, 7, 360, 64, 80, 72, -1, 16, 20, 32, 16, 1 },
	{ 3, 8, 360, 72, 88, 80, -1, 16, 24, 36, 16, 1 },
	{ 3, 9, 360, 72, 88, 80, -1, 16, 24, 36, 16, 1 },
	{ 3, 10, 352, 72, 88, 80, -1, 16, 24, 36, 16, 1 },
	{ 3, 11, 72, 96, -1, -1, 104, 56, 64, 48, 16, 1 },
	{ 3, 12, 72, 96, -1, -1, 104, 52, 60, 48, 16, 2 },
	{ 3, 13, 72, 96, -1, -1, 104, 52, 60, 48, 16, 2 },
};

#define CO_VARARGS 0x4
#define CO_VARKEYWORDS 0x8
#define CO_FAST_HIDDEN 0x10   /* 3.12+: an inlined comprehension's variable */

static const struct loc_layout *loc_layout(const struct pyread *r)
{
	for (size_t i = 0; i < sizeof(loc_table) / sizeof(loc_table[0]); i++)
		if (loc_table[i].major == r->proc.layout.major && loc_table[i].minor == r->proc.layout.minor)
			return &loc_table[i];
	return NULL;
}

static uint64_t get64(const uint8_t *b, size_t off)
{
	uint64_t v;
	memcpy(&v, b + off, 8);
	return v;
}

static int32_t get32(const uint8_t *b, size_t off)
{
	int32_t v;
	memcpy(&v, b + off, 4);
	return v;
}

void pylocals_init(struct pylocals *pl, struct pyread *r)
{
	memset(pl, 0, sizeof(*pl));
	pl->r = r;
}

/* A type's tp_name into name (printable ASCII only, else ""); cached by the type's address. */
static void type_name(struct pylocals *pl, uint64_t type, char name[48])
{
	for (size_t i = 0; i < pl->ntypes; i++)
		if (pl->types[i].addr == type) {
			memcpy(name, pl->types[i].name, 48);
			return;
		}
	memset(name, 0, 48);
	uint8_t b[8];
	char buf[48] = "";
	if (type && !(type & 7) && pyread_mem(pl->r->proc.pid, type + 24, b, 8) == 0) {
		uint64_t at = get64(b, 0);
		/* read up to the page's end first: the name may end just before an unmapped page */
		size_t first = 4096 - (size_t)(at & 4095);
		if (first > sizeof(buf) - 1)
			first = sizeof(buf) - 1;
		if (at && pyread_mem(pl->r->proc.pid, at, buf, first) == 0 && !memchr(buf, 0, first) &&
		    first < sizeof(buf) - 1 && pyread_mem(pl->r->proc.pid, at + first, buf + first, sizeof(buf) - 1 - first) < 0)
			buf[0] = 0;
		buf[sizeof(buf) - 1] = 0;
		bool ok = buf[0] != 0;
		for (size_t i = 0; buf[i]; i++)
			ok = ok && buf[i] > ' ' && buf[i] < 0x7f;
		if (ok)
			memcpy(name, buf, 48);
	}
	if (pl->ntypes < sizeof(pl->types) / sizeof(pl->types[0])) {
		pl->types[pl->ntypes].addr = type;
		memcpy(pl->types[pl->ntypes++].name, name, 48);
	}
}

static void read_int(struct pylocals *pl, const struct loc_layout *ll, const uint8_t *h, struct pyvalue *v)
{
	int64_t size;
	if (ll->int_kind == 0) {
		/* 2.7's int: a C long */
		int64_t x = (int64_t)get64(h, 16);
		uint64_t m = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
		v->neg = x < 0;
		for (v->ndigits = 0; m; m >>= 30)
			v->digits[v->ndigits++] = (uint32_t)(m & 0x3fffffff);
		v->kind = PYVAL_INT;
		return;
	}
	if (ll->int_kind == 2) {
		uint64_t tag = get64(h, 16);
		size = (int64_t)(tag >> 3);
		v->neg = (tag & 3) == 2;
	} else {
		size = (int64_t)get64(h, 16);
		v->neg = size < 0;
		size = size < 0 ? -size : size;
	}
	if (size < 0 || size > PYVAL_INT_DIGITS)
		return; /* too large: PYVAL_OTHER */
	v->ndigits = (unsigned)size;
	if (size && pyread_mem(pl->r->proc.pid, v->addr + 24, v->digits, (size_t)size * 4) < 0)
		return;
	for (unsigned i = 0; i < v->ndigits; i++)
		if (v->digits[i] >> 30)
			return; /* not a digit: not an int after all */
	v->kind = PYVAL_INT;
}

void pylocals_value(struct pylocals *pl, uint64_t addr, struct pyvalue *v)
{
	memset(v, 0, sizeof(*v));
	v->addr = addr;
	const struct loc_layout *ll = loc_layout(pl->r);
	uint8_t h[32] = { 0 };
	/* 16 bytes (the object's head) where 32 cross into unmapped memory */
	if (!ll || !addr || (addr & 7) || (pyread_mem(pl->r->proc.pid, addr, h, sizeof(h)) < 0 &&
					   pyread_mem(pl->r->proc.pid, addr, h, 16) < 0))
		return;
	type_name(pl, get64(h, 8), v->type);
	if (!v->type[0])
		return;
	const char *t = v->type;
	v->kind = PYVAL_OTHER;
	if (!strcmp(t, "NoneType")) {
		v->kind = PYVAL_NONE;
	} else if (!strcmp(t, "bool")) {
		uint64_t x = get64(h, 16);
		v->truth = ll->int_kind == 2 ? (x >> 3) != 0 : x != 0;
		v->kind = PYVAL_BOOL;
	} else if (!strcmp(t, "int") || (ll->major == 2 && !strcmp(t, "long"))) {
		const struct loc_layout l27long = { .major = 2, .int_kind = 1 };
		read_int(pl, ll->major == 2 && t[0] == 'l' ? &l27long : ll, h, v);
		if (v->kind != PYVAL_INT)
			v->kind = PYVAL_OTHER;
	} else if (!strcmp(t, "float")) {
		memcpy(&v->f, h + 16, 8);
		v->kind = PYVAL_FLOAT;
	} else if (ll->major == 3 && !strcmp(t, "str")) {
		v->data = pyread_str_prefix(pl->r, addr, PYVAL_STR_MAX, &v->cut);
		if (v->data) {
			v->len = strlen(v->data);
			v->kind = PYVAL_STR;
		}
	} else if ((ll->major == 3 && !strcmp(t, "bytes")) || (ll->major == 2 && !strcmp(t, "str"))) {
		v->data = (char *)pyread_bytes_prefix(pl->r, addr, PYVAL_STR_MAX, &v->len, &v->cut);
		if (v->data) {
			v->data[v->len] = 0;
			v->b_prefix = ll->major == 3;
			v->kind = PYVAL_BYTES;
		}
	} else if (!strcmp(t, "list") || !strcmp(t, "tuple")) {
		v->count = (int64_t)get64(h, 16);
		v->kind = t[0] == 'l' ? PYVAL_LIST : PYVAL_TUPLE;
	} else if (!strcmp(t, "dict")) {
		v->count = (int64_t)get64(h, (size_t)ll->dict_used);
		v->kind = PYVAL_DICT;
	} else if (!strcmp(t, "set") || !strcmp(t, "frozenset")) {
		v->count = (int64_t)get64(h, 24); /* fill, then used */
		v->kind = PYVAL_SET;
	}
	if (v->count < 0 || v->count > ((int64_t)1 << 48))
		v->kind = PYVAL_OTHER;
}

/* The items of a tuple (up to max); -1 when it cannot be read. */
static int read_tuple(struct pyread *r, uint64_t addr, uint64_t *items, size_t max)
{
	uint8_t h[24];
	if (!addr || pyread_mem(r->proc.pid, addr, h, sizeof(h)) < 0)
		return -1;
	int64_t n = (int64_t)get64(h, 16);
	if (n < 0 || (uint64_t)n > max)
		return -1;
	if (n && pyread_mem(r->proc.pid, addr + 24, items, (size_t)n * 8) < 0)
		return -1;
	return (int)n;
}

/* The names of the locals and which are hidden (3.12+); -1 when unreadable. */
static int read_names(struct pyread *r, const struct loc_layout *ll, const uint8_t *c, uint64_t *names,
		      uint8_t *hidden)
{
	int n = read_tuple(r, get64(c, (size_t)ll->names), names, PYLOCALS_MAX);
	if (n < 0)
		return -1;
	memset(hidden, 0, PYLOCALS_MAX);
	if (ll->kinds >= 0) {
		size_t len;
		bool cut;
		uint8_t *k = pyread_bytes_prefix(r, get64(c, (size_t)ll->kinds), PYLOCALS_MAX, &len, &cut);
		if (!k || len != (size_t)n) {
			free(k);
			return -1;
		}
		for (int i = 0; i < n; i++)
			hidden[i] = (k[i] & CO_FAST_HIDDEN) != 0;
		free(k);
		return n;
	}
	/* up to 3.10: the cells' and free variables' names follow */
	for (int pass = 0; pass < 2; pass++) {
		int m = read_tuple(r, get64(c, (size_t)(pass ? ll->freevars : ll->cellvars)), names + n,
				   PYLOCALS_MAX - (size_t)n);
		if (m < 0)
			return n; /* the plain locals at least */
		n += m;
	}
	return n;
}

size_t pylocals_read(struct pylocals *pl, uint64_t frame, uint64_t code, struct pylocal **out)
{
	struct pyread *r = pl->r;
	const struct loc_layout *ll = loc_layout(r);
	*out = NULL;
	uint8_t c[128];
	if (!ll || !frame || !code || pyread_mem(r->proc.pid, code, c, sizeof(c)) < 0)
		return 0;
	uint64_t names[PYLOCALS_MAX], vals[PYLOCALS_MAX];
	uint8_t hidden[PYLOCALS_MAX];
	int n = read_names(r, ll, c, names, hidden);
	if (n <= 0 || pyread_mem(r->proc.pid, frame + (uint64_t)ll->localsplus, vals, (size_t)n * 8) < 0)
		return 0;
	int32_t flags = get32(c, (size_t)ll->flags);
	int64_t nargs = (int64_t)get32(c, (size_t)ll->argcount) + (ll->kwonly >= 0 ? get32(c, (size_t)ll->kwonly) : 0) +
			!!(flags & CO_VARARGS) + !!(flags & CO_VARKEYWORDS);
	struct pylocal *l = xcalloc((size_t)n, sizeof(*l));
	size_t k = 0;
	for (int i = 0; i < n; i++) {
		if (!vals[i] || hidden[i])
			continue;
		struct pyvalue v;
		pylocals_value(pl, vals[i], &v);
		if (v.kind == PYVAL_OTHER && !strcmp(v.type, "cell")) {
			/* a cell variable: its content (ob_ref), if it has one */
			uint64_t ref;
			if (pyread_mem(r->proc.pid, vals[i] + 16, &ref, 8) < 0 || !ref)
				continue;
			pylocals_value(pl, ref, &v);
		}
		char *name = pyread_str_prefix(r, names[i], 256, NULL);
		if (!name) {
			free(v.data);
			continue;
		}
		l[k].name = name;
		l[k].arg = i < nargs;
		l[k++].v = v;
	}
	if (!k) {
		free(l);
		return 0;
	}
	*out = l;
	return k;
}

void pylocals_free(struct pylocal *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(l[i].name);
		free(l[i].v.data);
	}
	free(l);
}
