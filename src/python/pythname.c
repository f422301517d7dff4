#include "python/pythname.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "python/pylocals.h"
#include "python/pyread.h"
#include "python/pystore.h"
#include "util/xalloc.h"

/* Learned from CPython's Include/{dictobject,moduleobject,object}.h, Objects/dict-common.h and
 * Include/internal/pycore_{interp,dict,object}.h of each version; the offsets checked against
 * pyenv builds' DWARF with gdb. */
#define MAX_ENTRIES 65536          /* items read of one dict */
#define MODULE_DICT 16             /* PyModuleObject.md_dict */
#define TYPE_BASICSIZE 32
#define TYPE_FLAGS 168
#define TYPE_DICTOFFSET 288
#define TPFLAGS_INLINE_VALUES (1u << 2)   /* 3.13 */
#define TPFLAGS_MANAGED_DICT (1u << 4)    /* 3.11+ */

struct kv {
	uint64_t key, value;
};

static uint64_t get64(const uint8_t *b, size_t off)
{
	uint64_t v;
	memcpy(&v, b + off, 8);
	return v;
}

static int minor3(const struct pyread *r)
{
	return r->proc.layout.major == 3 ? r->proc.layout.minor : 0;
}

/* PyInterpreterState's modules (imports.modules from 3.12): 3.13 publishes it in
 * _Py_DebugOffsets (interpreter_state.imports_modules, byte 88). */
static int64_t modules_offset(struct pyread *r)
{
	static const int32_t off[] = { [0] = 16, [6] = 16, [7] = 40, [8] = 56, [9] = 856, [10] = 856,
				       [11] = 888, [12] = 944 };
	int m = minor3(r);
	if (m == 13) {
		uint64_t v;
		if (pyread_mem(r->proc.pid, r->proc.runtime + 88, &v, 8) < 0 || v >= (1u << 20))
			return -1;
		return (int64_t)v;
	}
	return m < (int)(sizeof(off) / sizeof(off[0])) && off[m] ? off[m] : -1;
}

/* The items of a 3.6+ keys object whose values are in its entries or (a split table) in
 * values[], entry by entry. */
static size_t keys_items(struct pyread *r, uint64_t keys, uint64_t values, struct kv **out)
{
	uint8_t h[48];
	uint64_t n, ent;
	size_t esz = 24, koff = 8;
	*out = NULL;
	if (!keys || pyread_mem(r->proc.pid, keys, h, sizeof(h)) < 0)
		return 0;
	if (minor3(r) <= 10) {
		uint64_t size = get64(h, 8);
		n = get64(h, 32);
		if (!size || size > (1u << 24) || (size & (size - 1)) || n > size)
			return 0;
		uint64_t ix = size <= 0xff ? 1 : size <= 0xffff ? 2 : 4;
		ent = keys + 40 + size * ix;
	} else {
		unsigned log2 = h[8], log2ix = h[9], kind = h[10];
		n = get64(h, 24);
		if (log2 > 24 || log2ix > 27 || n > (1ull << log2))
			return 0;
		ent = keys + 32 + (1ull << log2ix);
		if (kind) { /* unicode keys or split: (key, value) */
			esz = 16;
			koff = 0;
		}
	}
	if (!n || n > MAX_ENTRIES)
		return 0;
	uint8_t *e = xmalloc(n * esz);
	uint64_t *v = values ? xmalloc(n * 8) : NULL;
	struct kv *kv = xcalloc(n, sizeof(*kv));
	size_t k = 0;
	if (pyread_mem(r->proc.pid, ent, e, n * esz) == 0 && (!v || pyread_mem(r->proc.pid, values, v, n * 8) == 0))
		for (uint64_t i = 0; i < n; i++) {
			kv[k].key = get64(e, i * esz + koff);
			kv[k].value = v ? v[i] : get64(e, i * esz + koff + 8);
			k += kv[k].key && kv[k].value;
		}
	free(e);
	free(v);
	if (!k)
		free(kv);
	else
		*out = kv;
	return k;
}

/* Where a split table's values start in its PyDictValues (3.13 puts four bytes first). */
static uint64_t values_at(struct pyread *r, uint64_t values)
{
	return values && minor3(r) >= 13 ? values + 8 : values;
}

/* The items of a dict. */
static size_t dict_items(struct pyread *r, uint64_t dict, struct kv **out)
{
	uint8_t h[48];
	*out = NULL;
	if (!dict || (dict & 7) || pyread_mem(r->proc.pid, dict, h, sizeof(h)) < 0)
		return 0;
	if (r->proc.layout.major == 3)
		return keys_items(r, get64(h, 32), values_at(r, get64(h, 40)), out);
	/* 2.7: ma_mask + 1 entries (hash, key, value) at ma_table */
	uint64_t n = get64(h, 32) + 1, table = get64(h, 40);
	if (n > MAX_ENTRIES || (n & (n - 1)))
		return 0;
	uint8_t *e = xmalloc(n * 24);
	struct kv *kv = xcalloc(n, sizeof(*kv));
	size_t k = 0;
	if (pyread_mem(r->proc.pid, table, e, n * 24) == 0)
		for (uint64_t i = 0; i < n; i++) {
			kv[k].key = get64(e, i * 24 + 8);
			kv[k].value = get64(e, i * 24 + 16);
			k += kv[k].key && kv[k].value;
		}
	free(e);
	if (!k)
		free(kv);
	else
		*out = kv;
	return k;
}

/* The value of the str key name among items (0 when absent). */
static uint64_t find_key(struct pyread *r, const struct kv *kv, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++) {
		bool cut;
		char *s = pyread_str_prefix(r, kv[i].key, 64, &cut);
		bool eq = s && !cut && !strcmp(s, name);
		free(s);
		if (eq)
			return kv[i].value;
	}
	return 0;
}

static uint64_t dict_get(struct pyread *r, uint64_t dict, const char *name)
{
	struct kv *kv;
	size_t n = dict_items(r, dict, &kv);
	uint64_t v = find_key(r, kv, n, name);
	free(kv);
	return v;
}

/* An attribute of a Python object from its instance attributes: its __dict__ (at
 * tp_dictoffset; 3.11+: the managed dict before the object), or 3.11+'s values kept without a
 * dict (before the object in 3.11 and 3.12, after it in 3.13) with the class's shared keys. */
static uint64_t instance_attr(struct pyread *r, uint64_t obj, const char *name)
{
	uint8_t o[16], t[TYPE_DICTOFFSET + 8], pre[32];
	int m = minor3(r);
	if (!obj || (obj & 7) || pyread_mem(r->proc.pid, obj, o, sizeof(o)) < 0 ||
	    pyread_mem(r->proc.pid, get64(o, 8), t, sizeof(t)) < 0)
		return 0;
	uint64_t type = get64(o, 8), flags = get64(t, TYPE_FLAGS), basic = get64(t, TYPE_BASICSIZE);
	int64_t dictoff = (int64_t)get64(t, TYPE_DICTOFFSET);
	if (m >= 11 && (flags & TPFLAGS_MANAGED_DICT)) {
		if (pyread_mem(r->proc.pid, obj - 32, pre, sizeof(pre)) < 0)
			return 0;
		uint64_t dict = get64(pre, 8), values = m == 11 ? get64(pre, 0) : 0;
		if (m == 12 && (dict & 1)) {
			values = dict + 1; /* 3.12 keeps the values' address less one: odd */
			dict = 0;
		}
		if (m >= 13 && !dict && (flags & TPFLAGS_INLINE_VALUES) && basic < (1u << 20))
			values = obj + basic;
		if (dict)
			return dict_get(r, dict, name);
		uint64_t keys;
		int32_t cached = m == 11 ? 872 : 880; /* PyHeapTypeObject.ht_cached_keys */
		if (!values || pyread_mem(r->proc.pid, type + (uint64_t)cached, &keys, 8) < 0)
			return 0;
		struct kv *kv;
		size_t n = keys_items(r, keys, values_at(r, values), &kv);
		uint64_t v = find_key(r, kv, n, name);
		free(kv);
		return v;
	}
	uint64_t dict;
	if (dictoff <= 0 || dictoff > (1 << 20) || pyread_mem(r->proc.pid, obj + (uint64_t)dictoff, &dict, 8) < 0)
		return 0;
	return dict_get(r, dict, name);
}

/* An int object's value, if it fits in 64 bits and is not negative. */
static bool int_value(struct pyread *r, uint64_t addr, uint64_t *out)
{
	struct pylocals pl;
	struct pyvalue v;
	pylocals_init(&pl, r);
	pylocals_value(&pl, addr, &v);
	free(v.data);
	if (v.kind != PYVAL_INT || v.neg || v.ndigits > 3 || (v.ndigits == 3 && v.digits[2] >> 4))
		return false;
	*out = 0;
	for (unsigned i = v.ndigits; i-- > 0;)
		*out = (*out << 30) | v.digits[i];
	return true;
}

size_t pythname_read(struct pyread *r, struct pythname *out, size_t max)
{
	int64_t moff = modules_offset(r);
	uint64_t interp, modules;
	if (moff < 0 || pyread_mem(r->proc.pid, r->proc.runtime + (uint64_t)r->proc.layout.runtime_interp_head, &interp, 8) < 0 ||
	    !interp || pyread_mem(r->proc.pid, interp + (uint64_t)moff, &modules, 8) < 0)
		return 0;
	uint64_t threading = dict_get(r, modules, "threading"), md, active;
	if (!threading || pyread_mem(r->proc.pid, threading + MODULE_DICT, &md, 8) < 0 ||
	    !(active = dict_get(r, md, "_active")))
		return 0;
	struct kv *kv;
	size_t n = dict_items(r, active, &kv), k = 0;
	const char *attr = r->proc.layout.major == 2 ? "_Thread__name" : "_name";
	for (size_t i = 0; i < n && k < max; i++) {
		uint64_t ident, name_obj = 0;
		if (!int_value(r, kv[i].key, &ident) || !(name_obj = instance_attr(r, kv[i].value, attr)))
			continue;
		bool cut;
		char *s = pyread_str_prefix(r, name_obj, sizeof(out[k].name) - 1, &cut);
		if (!s)
			continue;
		out[k].ident = ident;
		/* at most 63 characters: cut further to 63 bytes on a character boundary */
		size_t len = strlen(s);
		while (len > sizeof(out[k].name) - 1)
			for (len--; len && ((unsigned char)s[len] & 0xc0) == 0x80; len--)
				;
		memcpy(out[k].name, s, len);
		out[k].name[len] = 0;
		free(s);
		k++;
	}
	free(kv);
	return k;
}

enum { STORE_MAX = 256 };

size_t pythname_store(struct pyread *r, struct pystore_writer *w)
{
	struct pythname *names = xcalloc(STORE_MAX, sizeof(*names));
	struct py_thread *th = xcalloc(STORE_MAX, sizeof(*th));
	size_t nn = pythname_read(r, names, STORE_MAX), found = 0;
	int nt = nn ? pyread_threads(r, th, STORE_MAX) : 0;
	for (int t = 0; t < nt; t++)
		for (size_t k = 0; k < nn; k++) {
			int32_t tid;
			if (names[k].ident != th[t].pthread || (tid = pyread_tid(r, &th[t])) <= 0)
				continue;
			pystore_set_name(w, (uint32_t)tid, names[k].name);
			found++;
			break;
		}
	free(th);
	free(names);
	return found;
}
