/* pprof's profile.proto (github.com/google/pprof/blob/main/proto/profile.proto), gzipped, encoded
 * by hand: the message is small and fixed, and protobuf's wire format is two rules, a varint
 * (7 bits a byte, low first, high bit = more) and a key ((field << 3) | wire type; 0 varint,
 * 2 length-delimited). Repeated numbers are packed (one length-delimited run of varints).
 *
 * What goes in: two sample types per event, "<event>_samples"/count and "<event>"/nanoseconds
 * (clock events) or /events (the period), just "samples" and the event for a single event; one
 * sample per distinct stack and event, labelled with its command ("comm"), and with
 * pprof_write_labelled also its service, host, process ("pid": one sample per stack and process)
 * and event, as Pyroscope and Parca take labels; one location and one
 * function per frame (function name, system name = the folded spelling, file: the Python source
 * or the DSO; in the Python view a Python frame is one line of its function: the location's Line
 * carries that line, the function its name and file); one mapping per DSO with its build-id. Profile fields used: 1 sample_type,
 * 2 sample, 3 mapping, 4 location, 5 function, 6 string_table, 9 time_nanos, 10 duration_nanos, 11 period_type,
 * 14 default_sample_type. */
#include <stdlib.h>
#include <string.h>

#include "output/pictures.h"
#include "util/error.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "util/utf8.h"
#include "util/xalloc.h"

static void varint(struct strbuf *b, uint64_t v)
{
	while (v >= 0x80) {
		sb_addc(b, (char)(v | 0x80));
		v >>= 7;
	}
	sb_addc(b, (char)v);
}

static void fvar(struct strbuf *b, unsigned field, uint64_t v)
{
	if (!v)
		return;   /* proto3: zero is the default and is not written */
	varint(b, (uint64_t)field << 3);
	varint(b, v);
}

static void fbytes(struct strbuf *b, unsigned field, const void *p, size_t n)
{
	varint(b, (uint64_t)field << 3 | 2);
	varint(b, n);
	sb_add(b, p, n);
}

static void fmsg(struct strbuf *b, unsigned field, struct strbuf *m)
{
	fbytes(b, field, m->buf ? m->buf : "", m->len);
	sb_reset(m);
}

static void fpacked(struct strbuf *b, unsigned field, const uint64_t *v, size_t n)
{
	if (!n)
		return;
	struct strbuf t = STRBUF_INIT;
	for (size_t i = 0; i < n; i++)
		varint(&t, v[i]);
	fmsg(b, field, &t);
	sb_release(&t);
}

/* The string table: index 0 is "" as the format requires. */
struct strtab {
	char **v;
	size_t n, cap;
	struct hashmap index;    /* string -> its index + 1 */
};

static uint64_t str_id(struct strtab *t, const char *s)
{
	if (!s)
		s = "";
	/* pprof's strings are proto3 strings: strict UTF-8 (util/utf8.h), else Go refuses the file. */
	char *clean = utf8_valid(s) ? NULL : utf8_clean(s);
	bool found;
	struct hashmap_entry *he = hashmap_insert_str(&t->index, clean ? clean : s, &found);
	if (found) {
		free(clean);
		return (uint64_t)(uintptr_t)he->value - 1;
	}
	ALLOC_GROW(t->v, t->n + 1, t->cap);
	t->v[t->n] = clean ? clean : xstrdup(s);
	he->key.str = t->v[t->n];
	he->value = (void *)(uintptr_t)(t->n + 1);
	return t->n++;
}

static void value_types(struct strbuf *p, struct strtab *t, const struct stacks *st)
{
	struct strbuf m = STRBUF_INIT, name = STRBUF_INIT;
	for (size_t e = 0; e < st->nevents; e++) {
		const struct stack_event *ev = &st->events[e];
		sb_reset(&name);
		if (st->nevents == 1)
			sb_adds(&name, "samples");
		else
			sb_addf(&name, "%s_samples", ev->name);
		fvar(&m, 1, str_id(t, sb_str(&name)));
		fvar(&m, 2, str_id(t, "count"));
		fmsg(p, 1, &m);
		fvar(&m, 1, str_id(t, ev->name));
		fvar(&m, 2, str_id(t, ev->time_unit ? "nanoseconds" : "events"));
		fmsg(p, 1, &m);
	}
	if (st->nevents) {
		fvar(&m, 1, str_id(t, st->events[0].name));
		fvar(&m, 2, str_id(t, st->events[0].time_unit ? "nanoseconds" : "events"));
		fmsg(p, 11, &m);
	}
	sb_release(&m);
	sb_release(&name);
}

/* The frames of node's stack, leaf first, into locs (at most 4096); its command into *comm and
 * its event's root into *top. */
static size_t stack_locs(const struct stacks *st, uint32_t node, uint64_t *locs, const char **comm, uint32_t *top)
{
	size_t n = 0;
	*comm = NULL;
	for (uint32_t k = node; k != UINT32_MAX; k = st->nodes[k].parent) {
		const struct stack_frame *fr = &st->frames[st->nodes[k].frame];
		if (fr->kind == SK_COMM)
			*comm = fr->name;
		else if (fr->kind != SK_ROOT && n < 4096)
			locs[n++] = st->nodes[k].frame + 1;
		*top = k;
	}
	return n;
}

static void str_label(struct strbuf *m, struct strbuf *lab, struct strtab *t, const char *key, const char *val)
{
	fvar(lab, 1, str_id(t, key));
	fvar(lab, 2, str_id(t, val));
	fmsg(m, 3, lab);
}

/* One pprof sample: the stack of node with event e's count and period, labelled. */
static void one_sample(struct strbuf *p, struct strtab *t, const struct stacks *st, size_t e, uint32_t node,
		       uint64_t count, uint64_t period, const struct pprof_labels *l, int pid, uint64_t *locs)
{
	struct strbuf m = STRBUF_INIT, lab = STRBUF_INIT;
	size_t nv = 2 * st->nevents;
	uint64_t vals[2 * PPROF_EVENTS_MAX] = { 0 };
	const char *comm;
	uint32_t top;
	size_t n = stack_locs(st, node, locs, &comm, &top);
	vals[2 * e] = count;
	vals[2 * e + 1] = period;
	fpacked(&m, 1, locs, n);
	fpacked(&m, 2, vals, nv);
	if (comm)
		str_label(&m, &lab, t, "comm", comm);
	if (l) {
		if (l->service)
			str_label(&m, &lab, t, "service", l->service);
		if (l->host)
			str_label(&m, &lab, t, "host", l->host);
		if (l->pid) {
			char num[16];
			snprintf(num, sizeof(num), "%d", pid);
			str_label(&m, &lab, t, "pid", num);
		}
		str_label(&m, &lab, t, "event", st->events[e].name);
	}
	fmsg(p, 2, &m);
	sb_release(&m);
	sb_release(&lab);
}

/* One sample per node that has self samples: its frames leaf first, its comm as a label. */
static void samples(struct strbuf *p, struct strtab *t, const struct stacks *st, const struct pprof_labels *l)
{
	uint64_t *locs = xmalloc(4096 * sizeof(uint64_t));
	for (size_t e = 0; e < st->nevents; e++) {
		for (size_t i = 0; i < st->nnodes; i++) {
			const struct stack_node *nd = &st->nodes[i];
			if (!nd->self)
				continue;
			const char *comm;
			uint32_t top;
			stack_locs(st, (uint32_t)i, locs, &comm, &top);
			if (top == st->events[e].root)
				one_sample(p, t, st, e, (uint32_t)i, nd->self, nd->period_self, l, 0, locs);
		}
	}
	free(locs);
}

/* With a pid label: one sample per stack and process, from the samples kept in order. */
struct by_pid {
	uint32_t node;
	int pid;
	uint64_t period;
};

static int by_pid_cmp(const void *a, const void *b)
{
	const struct by_pid *x = a, *y = b;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static void samples_by_pid(struct strbuf *p, struct strtab *t, const struct stacks *st, const struct pprof_labels *l)
{
	uint64_t *locs = xmalloc(4096 * sizeof(uint64_t));
	for (size_t e = 0; e < st->nevents; e++) {
		const struct stack_event *ev = &st->events[e];
		struct by_pid *v = xcalloc(ev->ns ? ev->ns : 1, sizeof(*v));
		for (size_t i = 0; i < ev->ns; i++)
			v[i] = (struct by_pid){ ev->s[i].node, st->threads[ev->s[i].thread].pid, ev->s[i].period };
		qsort(v, ev->ns, sizeof(*v), by_pid_cmp);
		for (size_t i = 0, j; i < ev->ns; i = j) {
			uint64_t period = 0;
			for (j = i; j < ev->ns && !by_pid_cmp(&v[i], &v[j]); j++)
				period += v[j].period;
			one_sample(p, t, st, e, v[i].node, j - i, period, l, v[i].pid, locs);
		}
		free(v);
	}
	free(locs);
}

static void hex(char *out, const uint8_t *id, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
}

/* Mappings (one per DSO path), locations and functions (one per frame). */
static void places(struct strbuf *p, struct strtab *t, const struct stacks *st)
{
	struct strbuf m = STRBUF_INIT, line = STRBUF_INIT;
	uint64_t *map_of = xcalloc(st->nframes ? st->nframes : 1, sizeof(uint64_t));
	uint64_t nmaps = 0;
	/* pprof takes the first mapping for the main binary: the user DSO of the hottest frame. */
	uint64_t *self = xcalloc(st->nframes ? st->nframes : 1, sizeof(uint64_t));
	for (size_t i = 0; i < st->nnodes; i++)
		self[st->nodes[i].frame] += st->nodes[i].self;
	size_t first = SIZE_MAX;
	for (size_t i = 0; i < st->nframes; i++)
		if (st->frames[i].dso && st->frames[i].kind != SK_KERNEL && (first == SIZE_MAX || self[i] > self[first]))
			first = i;
	free(self);
	for (size_t o = 0; o <= st->nframes; o++) {
		size_t i = o == 0 ? first : o - 1;
		if (i >= st->nframes)
			continue;
		const struct stack_frame *fr = &st->frames[i];
		if (!fr->dso || map_of[i])
			continue;
		map_of[i] = ++nmaps;
		for (size_t k = i + 1; k < st->nframes; k++)
			if (st->frames[k].dso && !map_of[k] && !strcmp(st->frames[k].dso, fr->dso))
				map_of[k] = nmaps;
		char bid[41];
		hex(bid, fr->build_id, fr->build_id_size);
		fvar(&m, 1, nmaps);
		fvar(&m, 5, str_id(t, fr->dso));
		fvar(&m, 6, str_id(t, bid));
		fvar(&m, 7, 1);   /* has_functions */
		fmsg(p, 3, &m);
	}
	for (size_t i = 0; i < st->nframes; i++) {
		const struct stack_frame *fr = &st->frames[i];
		if (fr->kind == SK_ROOT || fr->kind == SK_COMM)
			continue;
		fvar(&m, 1, i + 1);
		fvar(&m, 2, map_of[i]);
		fvar(&m, 3, fr->addr);
		fvar(&line, 1, i + 1);
		if (fr->line)
			fvar(&line, 2, fr->line);
		fmsg(&m, 4, &line);
		fmsg(p, 4, &m);
		fvar(&m, 1, i + 1);
		fvar(&m, 2, str_id(t, fr->func));
		fvar(&m, 3, str_id(t, fr->name));
		fvar(&m, 4, str_id(t, fr->src ? fr->src : fr->file));
		if (fr->line && fr->kind != SK_PYTHON) /* a Python frame's line is the Line's, not its start */
			fvar(&m, 5, fr->line);
		fmsg(p, 5, &m);
	}
	free(map_of);
	sb_release(&m);
	sb_release(&line);
}

int pprof_write(const char *path, const struct stacks *st)
{
	return pprof_write_labelled(path, st, NULL);
}

int pprof_write_labelled(const char *path, const struct stacks *st, const struct pprof_labels *l)
{
	if (st->nevents > PPROF_EVENTS_MAX)
		return err_set("%s: a pprof of more than %d events", path, PPROF_EVENTS_MAX);
	struct strtab t = { 0 };
	hashmap_init(&t.index, HASHMAP_STR);
	struct strbuf p = STRBUF_INIT;
	str_id(&t, "");
	value_types(&p, &t, st);
	if (l && l->pid)
		samples_by_pid(&p, &t, st, l);
	else
		samples(&p, &t, st, l);
	places(&p, &t, st);
	if (l && l->time_ns)
		fvar(&p, 9, l->time_ns);
	if (st->last_time > st->first_time)
		fvar(&p, 10, st->last_time - st->first_time);
	if (st->nevents)
		fvar(&p, 14, str_id(&t, st->nevents == 1 ? "samples" : "")); /* set below for several */
	if (st->nevents > 1) {
		struct strbuf name = STRBUF_INIT;
		sb_addf(&name, "%s_samples", st->events[0].name);
		fvar(&p, 14, str_id(&t, sb_str(&name)));
		sb_release(&name);
	}
	for (size_t i = 0; i < t.n; i++)
		fbytes(&p, 6, t.v[i], strlen(t.v[i]));
	int rc = pic_gzip_file(path, p.buf ? p.buf : "", p.len);
	sb_release(&p);
	for (size_t i = 0; i < t.n; i++)
		free(t.v[i]);
	free(t.v);
	hashmap_free(&t.index);
	return rc;
}
