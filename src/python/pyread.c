#include "python/pyread.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util/error.h"
#include "util/hashmap.h"
#include "util/utf8.h"
#include "util/xalloc.h"

int pyread_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	if (!addr)
		return err_set("read of address 0");
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return err_set("pid %d: reading %zu bytes at 0x%llx: %s", (int)pid, len,
			       (unsigned long long)addr, strerror(errno));
	if ((size_t)n != len)
		return err_set("pid %d: short read at 0x%llx", (int)pid, (unsigned long long)addr);
	return 0;
}

static uint64_t get64(const uint8_t *b, int32_t off)
{
	uint64_t v;
	memcpy(&v, b + off, 8);
	return v;
}

void pyread_init(struct pyread *r, const struct py_proc *p)
{
	memset(r, 0, sizeof(*r));
	r->proc = *p;
}

void pyread_free(struct pyread *r)
{
	for (size_t i = 0; i < r->ncodes; i++) {
		free(r->codes[i]->name);
		free(r->codes[i]->filename);
		free(r->codes[i]->linetable);
		free(r->codes[i]);
	}
	free(r->codes);
	free(r->th);
	hashmap_free(&r->index);
	memset(r, 0, sizeof(*r));
}

/* 2.7's names: a byte string, kept as it is where it is UTF-8 (else U+FFFD for the bad bytes). */
static char *read_str27(struct pyread *r, uint64_t addr, size_t max, bool *cut)
{
	size_t n;
	uint8_t *b = pyread_bytes_prefix(r, addr, max, &n, cut);
	if (!b || memchr(b, 0, n)) {
		free(b);
		return NULL;
	}
	b[n] = 0;
	char *out = utf8_clean((char *)b);
	free(b);
	return out;
}

char *pyread_str_prefix(struct pyread *r, uint64_t addr, size_t max, bool *cut)
{
	const struct py_layout *l = &r->proc.layout;
	bool cut_ = false;
	if (!cut)
		cut = &cut_;
	*cut = false;
	if (l->str_bytes)
		return read_str27(r, addr, max, cut);
	uint8_t hdr[128];
	if (!addr || (size_t)l->compact_size > sizeof(hdr) || pyread_mem(r->proc.pid, addr, hdr, (size_t)l->compact_size) < 0)
		return NULL;
	uint32_t state;
	memcpy(&state, hdr + l->unicode_state, 4);
	int64_t len = (int64_t)get64(hdr, l->unicode_length);
	unsigned kind = (state >> 2) & 7, compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
	if (!compact || len < 0 || (kind != 1 && kind != 2 && kind != 4))
		return NULL;
	if ((uint64_t)len > max) {
		*cut = true;
		len = (int64_t)max;
	}
	size_t nbytes = (size_t)len * kind;
	uint8_t *raw = xmalloc(nbytes + 1);
	uint64_t data = addr + (uint64_t)(ascii ? l->ascii_size : l->compact_size);
	if (nbytes && pyread_mem(r->proc.pid, data, raw, nbytes) < 0) {
		free(raw);
		return NULL;
	}
	char *out = xmalloc((size_t)len * 4 + 1);
	size_t o = 0;
	for (int64_t i = 0; i < len; i++) {
		uint32_t c = kind == 1 ? raw[i] : kind == 2 ? ((uint16_t *)(void *)raw)[i] : ((uint32_t *)(void *)raw)[i];
		/* A lone surrogate (a surrogateescape'd byte), a value over U+10FFFF or U+FFFE/U+FFFF
		 * becomes U+FFFD, as CPython's "replace" encoding gives it (util/utf8.h). */
		o += utf8_put(out + o, c);
	}
	out[o] = 0;
	free(raw);
	return out;
}

/* A name (a str of at most 4,096 characters, compact: names and file names always are). */
static char *read_str(struct pyread *r, uint64_t addr)
{
	bool cut;
	char *s = pyread_str_prefix(r, addr, 4096, &cut);
	if (s && cut) {
		free(s);
		return NULL;
	}
	return s;
}

uint8_t *pyread_bytes_prefix(struct pyread *r, uint64_t addr, size_t max, size_t *len, bool *cut)
{
	const struct py_layout *l = &r->proc.layout;
	uint8_t sz[8];
	*len = 0;
	*cut = false;
	if (!addr || pyread_mem(r->proc.pid, addr + (uint64_t)l->bytes_size, sz, 8) < 0)
		return NULL;
	int64_t n = (int64_t)get64(sz, 0);
	if (n < 0)
		return NULL;
	if ((uint64_t)n > max) {
		*cut = true;
		n = (int64_t)max;
	}
	uint8_t *b = xmalloc((size_t)n + 1);
	if (n && pyread_mem(r->proc.pid, addr + (uint64_t)l->bytes_sval, b, (size_t)n) < 0) {
		free(b);
		return NULL;
	}
	*len = (size_t)n;
	return b;
}

/* A bytes object's contents (1 MiB at most). */
static uint8_t *read_bytes(struct pyread *r, uint64_t addr, size_t *len)
{
	bool cut;
	uint8_t *b = pyread_bytes_prefix(r, addr, 1 << 20, len, &cut);
	if (b && cut) {
		free(b);
		*len = 0;
		return NULL;
	}
	return b;
}

/* Is addr's type PyCode_Type? Its tp_name says "code"; the type is remembered once seen. */
static bool is_code(struct pyread *r, uint64_t addr)
{
	uint8_t b[8];
	if (pyread_mem(r->proc.pid, addr + 8, b, 8) < 0)
		return false;
	uint64_t type = get64(b, 0);
	if (r->code_type)
		return type == r->code_type;
	char name[8] = "";
	if (pyread_mem(r->proc.pid, type + 24, b, 8) < 0 || pyread_mem(r->proc.pid, get64(b, 0), name, 5) < 0)
		return false;
	if (memcmp(name, "code", 5))
		return false;
	r->code_type = type;
	return true;
}

static void read_code(struct pyread *r, struct py_code *c)
{
	const struct py_layout *l = &r->proc.layout;
	uint8_t b[512];
	int32_t need = l->code_linetable;
	if (l->code_qualname > need)
		need = l->code_qualname;
	if (l->code_name > need)
		need = l->code_name;
	if (l->code_filename > need)
		need = l->code_filename;
	need += 8;
	c->bad = true;
	if (need > (int32_t)sizeof(b) || !is_code(r, c->addr) || pyread_mem(r->proc.pid, c->addr, b, (size_t)need) < 0)
		return;
	int32_t fl;
	memcpy(&fl, b + l->code_firstlineno, 4);
	c->firstline = fl;
	if (pyread_sig(get64(b, l->code_name), get64(b, l->code_filename), (uint32_t)fl) != c->sig)
		return; /* another code object lives there now */
	c->name = read_str(r, get64(b, l->code_qualname >= 0 ? l->code_qualname : l->code_name));
	c->filename = read_str(r, get64(b, l->code_filename));
	c->linetable = read_bytes(r, get64(b, l->code_linetable), &c->ltlen);
	if (!c->name || !c->filename)
		return;
	c->bad = false;
}

static bool code_eq(const void *value, const void *key)
{
	const struct py_code *c = value, *k = key;
	return c->addr == k->addr && c->sig == k->sig;
}

/* A forked child's code object it could not read (it has exited, or freed the object since
 * the frame was taken), named from the parent: the parent's cached copy, else the parent's
 * memory, only where the signature taken with the frame matches (the object the fork
 * inherited); otherwise it stays bad. */
static void read_code_parent(struct pyread *parent, struct py_code *c)
{
	struct hashmap_entry *e = parent->index.eq ? hashmap_find_custom(&parent->index,
		hashmap_hash_u64((c->addr >> 4) ^ c->sig), c) : NULL;
	const struct py_code *pc = e ? e->value : NULL;
	if (pc && !pc->bad) {
		c->firstline = pc->firstline;
		c->name = xstrdup(pc->name);
		c->filename = xstrdup(pc->filename);
		if (pc->ltlen) {
			c->linetable = xmalloc(pc->ltlen);
			memcpy(c->linetable, pc->linetable, pc->ltlen);
		}
		c->ltlen = pc->ltlen;
		c->bad = false;
		return;
	}
	if (pc)
		return; /* the parent could not read it either */
	read_code(parent, c);
}

const struct py_code *pyread_code(struct pyread *r, uint64_t addr, uint64_t sig)
{
	if (!r->index.eq)
		hashmap_init_custom(&r->index, code_eq);
	struct py_code probe = { .addr = addr, .sig = sig };
	bool found;
	struct hashmap_entry *e = hashmap_insert_custom(&r->index, hashmap_hash_u64((addr >> 4) ^ sig), &probe, &found);
	if (found)
		return e->value;
	struct py_code *c = xcalloc(1, sizeof(*c));
	c->addr = addr;
	c->sig = sig;
	c->id = (uint32_t)r->ncodes;
	e->value = c; /* before read_code: the map's next probe compares with it */
	read_code(r, c);
	if (c->bad && r->parent) {
		free(c->name);
		free(c->filename);
		free(c->linetable);
		c->name = c->filename = NULL;
		c->linetable = NULL;
		c->ltlen = 0;
		read_code_parent(r->parent, c);
	}
	c->shim = !c->bad && !strcmp(c->name, "__init__") && !strcmp(c->filename, "__init__");
	ALLOC_GROW(r->codes, r->ncodes + 1, r->ccap);
	r->codes[r->ncodes++] = c;
	return c;
}

static int line_of(const struct py_layout *l, const struct py_code *c, const struct py_rawframe *f)
{
	uint64_t off;
	if (l->frame_kind == PY_FRAME_OBJECT) {
		int32_t lasti = (int32_t)(uint32_t)f->lasti;
		if (lasti < 0)
			lasti = 0;
		off = l->linetable == PY_LINETABLE310 ? (uint64_t)lasti * 2 : (uint64_t)lasti;
	} else {
		uint64_t start = c->addr + (uint64_t)l->code_adaptive;
		off = f->lasti >= start ? f->lasti - start : 0;
	}
	return pyline_lookup(l->linetable, c->linetable, c->ltlen, c->firstline, off);
}

size_t pyread_cook(struct pyread *r, const struct py_rawframe *raw, size_t n, struct py_frame *out, size_t max)
{
	const struct py_layout *l = &r->proc.layout;
	size_t o = 0;
	for (size_t i = 0; i < n && o < max; i++) {
		const struct py_rawframe *f = &raw[i];
		if (l->frame_owner >= 0 && l->frame_is_entry < 0 && f->aux == 3) {
			/* 3.12+: the C stack's shim frame closes one call of the eval loop. */
			if (o)
				out[o - 1].entry = true;
			continue;
		}
		const struct py_code *c = pyread_code(r, f->code, f->sig);
		if (c->bad || c->shim)
			continue;
		out[o].code = c->id;
		out[o].line = line_of(l, c, f);
		out[o].entry = l->frame_kind == PY_FRAME_OBJECT || (l->frame_is_entry >= 0 && f->aux);
		o++;
	}
	return o;
}

int pyread_threads(struct pyread *r, struct py_thread *out, size_t max)
{
	const struct py_layout *l = &r->proc.layout;
	pid_t pid = r->proc.pid;
	uint8_t b[8];
	if (pyread_mem(pid, r->proc.runtime + (uint64_t)l->runtime_interp_head, b, 8) < 0)
		return -1;
	uint64_t interp = get64(b, 0);
	if (!interp)
		return 0;
	if (pyread_mem(pid, interp + (uint64_t)l->interp_tstate_head, b, 8) < 0)
		return -1;
	size_t n = 0;
	for (uint64_t ts = get64(b, 0); ts && n < max; n++) {
		uint8_t t[512];
		int32_t need = l->tstate_thread_id + 8;
		if (l->tstate_native_tid + 8 > need)
			need = l->tstate_native_tid + 8;
		if (l->tstate_frame + 8 > need)
			need = l->tstate_frame + 8;
		if (need > (int32_t)sizeof(t) || pyread_mem(pid, ts, t, (size_t)need) < 0)
			return -1;
		out[n].tstate = ts;
		out[n].pthread = get64(t, l->tstate_thread_id);
		out[n].tid = l->tstate_native_tid >= 0 ? (int32_t)get64(t, l->tstate_native_tid) : 0;
		ts = get64(t, l->tstate_next);
	}
	return (int)n;
}

int pyread_threads_all(struct pyread *r)
{
	int n;
	if (!r->thcap)
		r->th = xcalloc((r->thcap = 64), sizeof(*r->th));
	while ((n = pyread_threads(r, r->th, r->thcap)) == (int)r->thcap && r->thcap < 65536)
		r->th = xrealloc(r->th, (r->thcap *= 2) * sizeof(*r->th));
	return n;
}

size_t pyread_stack(struct pyread *r, uint64_t tstate, struct py_rawframe *out, size_t max, bool *truncated)
{
	const struct py_layout *l = &r->proc.layout;
	pid_t pid = r->proc.pid;
	uint8_t b[128];
	*truncated = false;
	if (pyread_mem(pid, tstate + (uint64_t)l->tstate_frame, b, 8) < 0)
		return 0;
	uint64_t fr = get64(b, 0);
	if (l->cframe_current >= 0 && fr) {
		if (pyread_mem(pid, fr + (uint64_t)l->cframe_current, b, 8) < 0)
			return 0;
		fr = get64(b, 0);
	}
	int32_t need = l->frame_back;
	if (l->frame_code > need)
		need = l->frame_code;
	if (l->frame_lasti > need)
		need = l->frame_lasti;
	need += 8;
	if (l->frame_owner >= need)
		need = l->frame_owner + 1;
	if (l->frame_is_entry >= need)
		need = l->frame_is_entry + 1;
	size_t n = 0;
	while (fr && n < max) {
		if (need > (int32_t)sizeof(b) || pyread_mem(pid, fr, b, (size_t)need) < 0)
			break;
		out[n].code = get64(b, l->frame_code);
		out[n].lasti = l->frame_kind == PY_FRAME_OBJECT ? (uint32_t)get64(b, l->frame_lasti) : get64(b, l->frame_lasti);
		out[n].aux = l->frame_is_entry >= 0 ? b[l->frame_is_entry] : l->frame_owner >= 0 ? b[l->frame_owner] : 0;
		uint8_t nm[8], fn[8];
		uint32_t fl = 0;
		out[n].sig = 0;
		out[n].frame = fr;
		if (out[n].code && pyread_mem(pid, out[n].code + (uint64_t)l->code_name, nm, 8) == 0 &&
		    pyread_mem(pid, out[n].code + (uint64_t)l->code_filename, fn, 8) == 0 &&
		    pyread_mem(pid, out[n].code + (uint64_t)l->code_firstlineno, &fl, 4) == 0)
			out[n].sig = pyread_sig(get64(nm, 0), get64(fn, 0), fl);
		n++;
		fr = get64(b, l->frame_back);
	}
	if (fr && n == max)
		*truncated = true;
	return n;
}

static long tid_off = -1;
static pthread_once_t tid_once = PTHREAD_ONCE_INIT;

static void find_tid_off(void)
{
	const int32_t *self = (const int32_t *)(uintptr_t)pthread_self();
	int32_t tid = (int32_t)gettid();
	for (long i = 0; i < 1024 / 4; i++)
		if (self[i] == tid) {
			tid_off = i * 4;
			return;
		}
}

int32_t pyread_tid(struct pyread *r, const struct py_thread *t)
{
	if (t->tid)
		return t->tid;
	pthread_once(&tid_once, find_tid_off);
	int32_t v;
	if (tid_off < 0 || !t->pthread || pyread_mem(r->proc.pid, t->pthread + (uint64_t)tid_off, &v, 4) < 0 || v <= 0)
		return 0;
	return v;
}
