#include "session/session.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "python/pymerge.h"
#include "python/pystore.h"
#include "record/regname.h"
#include "session/order_memo.h"
#include "session/session_batch.h"
#include "symbols/elf.h"
#include "symbols/srcline.h"
#include "util/error.h"
#include "util/xalloc.h"

static int deliver(const struct perf_event_header *h, void *arg);

/* The resolver's merge step: Python stacks read by lperf itself (src/python), once loaded. */
static size_t merge_python(void *arg, const struct perf_sample *s, struct frame **frames, size_t *cap, size_t n)
{
	struct session *ss = arg;
	if (!ss->py || !ss->tool.callchains)
		return n;
	n = pymerge_stack(ss->py, (int32_t)s->pid, s->tid, s->time, frames, cap, n);
	if ((pystore_gil_flags(ss->py) & PYSTORE_GIL_MARK) && pystore_gil(ss->py, (int32_t)s->pid, s->tid, s->time) == 1)
		n = pymerge_gil_mark(frames, cap, n);
	return n;
}

/* --gil: is this a sample to leave out (its thread did not hold the GIL, or nothing says)? */
static bool gil_drop(struct session *ss, const struct perf_sample *s)
{
	if (!ss->tool.gil_only && !(pystore_gil_flags(ss->py) & PYSTORE_GIL_ONLY))
		return false;
	if (pystore_gil(ss->py, (int32_t)s->pid, s->tid, s->time) == 1)
		return false;
	ss->gil_dropped++;
	return true;
}

/* The Python view names a thread by its Python name (threading.Thread.name, stored with the
 * stacks) rather than the kernel's "python3": the model's thread is renamed at its first
 * sample (the samples handed to workers first, as at a COMM), the kernel's name kept for its
 * forks and the process's name. perf's views keep the kernel's name. */
static int python_thread_name(struct session *ss, const struct perf_sample *s)
{
	if (!ss->py || !ss->tool.python_view)
		return 0;
	struct thread *t = machine_find_thread(&ss->machine, (pid_t)s->tid);
	bool same = t && t->pid == (pid_t)s->pid;
	if (same && t->kcomm)
		return 0; /* renamed here already (a COMM since clears kcomm): no store search per sample */
	const char *name = pystore_thread_name(ss->py, (int32_t)s->pid, s->tid);
	if (!name || !*name)
		return 0;
	if (same && t->comm && !strcmp(t->comm, name))
		return 0;
	int rc = ss->pool ? spool_drain(ss->pool) : 0;
	if (!rc)
		machine_rename(&ss->machine, (pid_t)s->pid, (pid_t)s->tid, name);
	return rc;
}

static void start_resolver(struct session *ss)
{
	resolver_init(&ss->resolver, &ss->machine, ss->evsels, ss->tool.callchains, ss->tool.python_view);
	ss->resolver.inline_frames = ss->tool.inline_frames;
	ss->resolver.python_labels = ss->tool.python_labels;
	ss->resolver.python_nolineno = ss->tool.python_nolineno;
	ss->resolver.srclines = ss->tool.srclines;
	ss->resolver.e_machine = regname_machine(ss->reader ? ss->reader->info.arch : NULL);
	if (!ss->resolver.e_machine)
		ss->resolver.e_machine = regname_host(); /* a live session, or a file without ARCH */
	ss->resolver.merge = merge_python;
	ss->resolver.merge_arg = ss;
}

int session_init(struct session *ss, const struct evsel_set *evsels, const struct session_tool *tool)
{
	memset(ss, 0, sizeof(*ss));
	machine_init(&ss->machine);
	ss->evsels = evsels;
	ss->tool = *tool;
	ss->nper = evsels->n ? evsels->n : 1;
	ss->samples_per_evsel = xcalloc(ss->nper, sizeof(uint64_t));
	ss->oq = ordered_new(evsels, deliver, ss);
	start_resolver(ss);
	return 0;
}

/* The header's build-ids name the files that ran: DSOs made from them know their build-id
 * before the first MMAP, so loading compares it with the file found and reads the build-id
 * cache's copy of a file rebuilt since (symbols/dso.c), or nothing. The kernel's is compared
 * with the running kernel's; modules are left to the kernel maps. */
static void seed_buildids(struct session *ss, const struct perfdata_info *in)
{
	for (size_t k = 0; k < in->nbuildids; k++) {
		const struct perfdata_buildid *b = &in->buildids[k];
		uint8_t mode = b->cpumode & PERF_RECORD_MISC_CPUMODE_MASK;
		size_t n = b->size > 20 ? 20 : b->size;
		if (b->filename && mode == PERF_RECORD_MISC_KERNEL && !strcmp(b->filename, "[kernel.kallsyms]"))
			dso_cache_get_kernel(&ss->machine.dsos, b->filename, b->id, n);
		if (!b->filename || b->filename[0] != '/' || mode == PERF_RECORD_MISC_KERNEL ||
		    mode == PERF_RECORD_MISC_GUEST_KERNEL)
			continue;
		dso_cache_get(&ss->machine.dsos, b->filename, b->id, n);
	}
}

/* With workers (report --threads), a first report's fixed costs start before the walk needs
 * them: the running kernel's /proc/kallsyms is read on a thread of their own (symbols/kahead.h)
 * while this one loads the files the header names and opens the separate debug files their
 * inline frames need (symbols/srcline.h), and then reads the file; that thread parses the
 * symbols meanwhile, and a tool that can (session_tool.ksyms_later) gets kernel frames without
 * their symbols until then. Nothing is kept in a DSO until the walk loads it (symbols/dso.h), so
 * the output is the one-thread run's.
 *
 * glibc's malloc raises its mmap threshold to the size of the largest block freed (up to 32 MB):
 * the kernel's text and the symbols' candidates, freed when they are parsed, would then leave
 * their blocks in the heap beside libc's inflated DWARF, which is opened before them now (5 MB
 * more of a first report's peak). A fixed threshold hands such blocks back when they are freed. */
static void read_ahead(struct session *ss)
{
	mallopt(M_MMAP_THRESHOLD, 256 << 10);
	struct dso_cache *c = &ss->machine.dsos;
	dso_cache_read_ahead_kernel(c);
	ss->machine.ksyms_later = ss->tool.ksyms_later && !ss->py && !ss->resolver.python_view;
	bool dwarf = ss->resolver.unwinder && ss->tool.inline_frames;
	for (size_t i = 0; i < c->n; i++) {
		dso_read_ahead(c->v[i]);
		if (dwarf)
			srcline_read_ahead(c->v[i]);
	}
	dso_cache_read_ahead_go(c);
}

/* The events are known: the recording's stored sources, then the tool's decisions. */
static int start(struct session *ss)
{
	ss->started = true;
	if (ss->reader && ss->tool.wall && ss->reader->info.has_feature[FEAT_LPERF_WALL] &&
	    ss->evsels == &ss->reader->evsels)
		session_wall(ss, &ss->reader->evsels);
	if (ss->reader) {
		seed_buildids(ss, &ss->reader->info);
		session_use_jit_sources(ss, ss->reader, ss->force);
	}
	int rc = 0;
	if (ss->tool.ready) {
		rc = ss->tool.ready(ss, ss->tool.arg);
		resolver_free(&ss->resolver);
		start_resolver(ss);
	}
	if (!rc && ss->reader && ss->threads > 1 && !ss->tool.record && ss->stable_base)
		read_ahead(ss);
	return rc;
}

void session_wall(struct session *ss, struct evsel_set *set)
{
	struct evsel *on = NULL, *off = NULL;
	for (size_t e = 0; e < set->n; e++) {
		struct evsel *ev = &set->v[e];
		/* kernel/offcpu.h's event, or the tracepoint of record --wall without BPF */
		if (ev->name && (!strcmp(ev->name, "offcpu-time") || !strcmp(ev->name, "sched:sched_switch")))
			off = off ? off : ev;
		else if (!on)
			on = ev;
	}
	if (!on || !off)
		return;
	/* The set's names may be borrowed (a live run's are the event list's): the old one is put
	 * back by session_free. */
	ss->wall_renamed = on;
	ss->wall_old_name = on->name;
	on->name = xstrdup("wall-clock");
	ss->wall_into = on;
	ss->wall_from = off->idx;
	ss->wall_switches = off->attr.type == PERF_TYPE_TRACEPOINT;
}

static int use_sample(struct session *ss, struct perf_sample *ps, const struct perf_event_header *h);

/* --wall without BPF: a switch-out sample waits for its thread's switch in. */
static void wall_hold(struct session *ss, const struct perf_event_header *h, uint32_t tid)
{
	bool found;
	struct hashmap_entry *e = hashmap_insert_u64(&ss->wall_held, tid, &found);
	free(e->value); /* a switch out without a switch in since (lost records) */
	e->value = xmalloc(h->size);
	memcpy(e->value, h, h->size);
}

/* Workers only for a mapped file: its events are all known (a pipe declares them as it goes,
 * moving the evsels the queued samples point at). */
static bool uses_workers(const struct session *ss)
{
	return ss->threads > 1 && !ss->tool.record && ss->stable_base;
}

/* A PERF_RECORD_SWITCH(_CPU_WIDE): a thread switched in weighs its held sample (it is counted
 * as a sample then: the earlier one was not). */
static int wall_switch_in(struct session *ss, const struct perf_event_header *h)
{
	struct perf_sample id;
	if (h->misc & PERF_RECORD_MISC_SWITCH_OUT || sample_id_parse(ss->evsels, h, &id) < 0 || !id.time)
		return 0;
	struct hashmap_entry *e = hashmap_find_u64(&ss->wall_held, id.tid);
	if (!e || !e->value)
		return 0;
	struct perf_event_header *held = e->value;
	e->value = NULL;
	struct perf_sample s;
	int rc = 0;
	if (sample_parse(ss->evsels, held, &s) == 0 && id.time >= s.time) {
		s.period = id.time - s.time;
		s.evsel = ss->wall_into;
		rc = use_sample(ss, &s, held);
	}
	free(held);
	return rc;
}

static int handle_sample(struct session *ss, const struct perf_event_header *h)
{
	struct perf_sample s;
	if (sample_parse(ss->evsels, h, &s) < 0) {
		ss->bad_samples++;
		return 0;
	}
	if (ss->wall_into && s.evsel && s.evsel->idx == ss->wall_from) {
		if (ss->wall_switches) {
			wall_hold(ss, h, s.tid);
			return 0;
		}
		s.evsel = ss->wall_into;
	}
	return use_sample(ss, &s, h);
}

/* The sample's thread. With workers out, one that is new or changes (its process learnt) waits
 * until they are done: they read the threads without a lock. */
static int sample_thread(struct session *ss, pid_t pid, pid_t tid, struct thread **out)
{
	struct thread *t = machine_find_thread(&ss->machine, tid);
	if (!t || (pid >= 0 && t->pid != pid)) {
		int rc = spool_drain(ss->pool);
		if (rc)
			return rc;
	}
	*out = machine_thread(&ss->machine, pid, tid);
	/* The unwinder's view of the maps is a cache built on first use: built here, read there. */
	if ((*out)->maps)
		maps_view((*out)->maps);
	return 0;
}

/* spool_cfg.hold: a record of a read walk stays in the reader's buffer for the workers. */
static struct perfdata_rbuf *hold_record(void *arg, const void *h, size_t len)
{
	const struct session *ss = arg;
	return ss->walking ? perfdata_walk_hold(ss->walking, h, len) : NULL;
}

/* A worker's frames for s (spool_cfg.deliver): finished and handed to the tool in order. */
static int deliver_frames(void *arg, const struct perf_sample *s, struct thread *t, struct frame **f,
			  size_t *fcap, size_t n, bool truncated, bool chain_reset)
{
	struct session *ss = arg;
	struct resolver *r = &ss->resolver;
	/* The worker's buffer becomes the resolver's for this sample (no copy of the frames). */
	struct frame *own = r->fbuf;
	size_t own_cap = r->fcap;
	r->fbuf = *f;
	r->fcap = *fcap;
	resolve_lock(); /* the tool, the hints and the Python merge read and load DSOs too */
	ALLOC_GROW(r->fbuf, n + 1, r->fcap);
	struct resolved_sample rs;
	resolve_sample_finish(r, s, t, n, truncated, chain_reset, &rs);
	session_hint_sample(&ss->hints, r, &rs);
	int rc = ss->tool.sample(&rs, ss->tool.arg);
	resolve_unlock();
	*f = r->fbuf;
	*fcap = r->fcap;
	r->fbuf = own;
	r->fcap = own_cap;
	return rc;
}

/* Outside the tool's --time window: counted, and no more work (the thread is still made, as
 * for any sample, so the model is the same whatever the window). */
static bool outside_window(struct session *ss, const struct perf_sample *s)
{
	const struct session_tool *t = &ss->tool;
	if (timerange_keeps(&ss->window, s->time))
		return false;
	ss->window_skipped++;
	if (t->window_skipped)
		(*t->window_skipped)++;
	return true;
}

static int use_sample(struct session *ss, struct perf_sample *ps, const struct perf_event_header *h)
{
	struct perf_sample s = *ps;
	if (gil_drop(ss, &s))
		return 0;
	int rn = python_thread_name(ss, &s);
	if (rn)
		return rn;
	ss->nsamples++;
	if (s.evsel) {
		/* Pipe-mode files declare events as the stream goes: grow with them. */
		size_t idx = (size_t)s.evsel->idx;
		if (idx >= ss->nper) {
			size_t n = idx + 1;
			ss->samples_per_evsel = xrealloc(ss->samples_per_evsel, n * sizeof(uint64_t));
			memset(ss->samples_per_evsel + ss->nper, 0, (n - ss->nper) * sizeof(uint64_t));
			ss->nper = n;
		}
		ss->samples_per_evsel[idx]++;
	}
	if (s.time) {
		if (!ss->first_time || s.time < ss->first_time)
			ss->first_time = s.time;
		if (s.time > ss->last_time)
			ss->last_time = s.time;
	}
	if (!ss->tool.sample)
		return 0;
	/* The session's thread is one of the threads: it reads, orders and aggregates (about 40%
	 * of the work on a DWARF file), so with two a second worker would only add its own files
	 * and caches, and switches. */
	if (uses_workers(ss)) {
		if (!ss->pool) {
			const struct spool_cfg c = { &ss->machine, ss->evsels, &ss->resolver, ss->stable_base,
						     ss->stable_len, hold_record, deliver_frames, ss };
			ss->pool = spool_new(&c, ss->threads - 1);
		}
		struct thread *t;
		int rc = sample_thread(ss, (pid_t)s.pid, (pid_t)s.tid, &t);
		return rc || outside_window(ss, &s) ? rc : spool_add(ss->pool, h, &s, t);
	}
	struct thread *t = machine_thread(&ss->machine, (pid_t)s.pid, (pid_t)s.tid);
	if (outside_window(ss, &s))
		return 0;
	struct resolved_sample rs;
	resolve_sample(&ss->resolver, &s, t, &rs);
	session_hint_sample(&ss->hints, &ss->resolver, &rs);
	return ss->tool.sample(&rs, ss->tool.arg);
}

/* A record in time order: update the model, then the tool. */
static int deliver(const struct perf_event_header *h, void *arg)
{
	struct session *ss = arg;
	struct machine *m = &ss->machine;
	int r = 0;
	ss->nrecords++;
	if (ss->pool && (h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2 || h->type == PERF_RECORD_COMM ||
			 h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT || h->type == PERF_RECORD_KSYMBOL)) {
		/* The model changes: the samples before it are resolved first. */
		r = spool_drain(ss->pool);
		if (r)
			return r;
	}
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		r = handle_sample(ss, h);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		struct rec_mmap mm;
		if (record_parse_mmap(h, &mm) < 0)
			break;
		bool kernel = mm.cpumode == PERF_RECORD_MISC_KERNEL || mm.pid == (uint32_t)-1;
		if (mm.data)
			break; /* data mappings hold no code */
		machine_mmap(m, (pid_t)mm.pid, (pid_t)mm.tid, mm.start, mm.len, mm.pgoff, mm.prot, mm.filename,
			     mm.build_id, mm.build_id_size, kernel);
		break;
	}
	case PERF_RECORD_COMM: {
		struct rec_comm c;
		if (record_parse_comm(h, &c) == 0)
			machine_comm(m, (pid_t)c.pid, (pid_t)c.tid, c.comm, c.exec);
		break;
	}
	case PERF_RECORD_FORK: {
		struct rec_task t;
		if (record_parse_task(h, &t) == 0)
			machine_fork(m, (pid_t)t.pid, (pid_t)t.ppid, (pid_t)t.tid, (pid_t)t.ptid);
		break;
	}
	case PERF_RECORD_EXIT: {
		struct rec_task t;
		if (record_parse_task(h, &t) == 0)
			machine_exit(m, (pid_t)t.pid, (pid_t)t.tid);
		break;
	}
	case PERF_RECORD_KSYMBOL: {
		struct rec_ksymbol k;
		if (record_parse_ksymbol(h, &k) == 0)
			machine_ksymbol(m, k.addr, k.len, k.name, k.unregister);
		else if (!ss->bad_ksymbols++) /* the first says why; a kernel symbol left unnamed */
			notes_add(&ss->notes, "%s: skipped (the kernel's symbols name that code)", err_msg());
		break;
	}
	case PERF_RECORD_LOST: {
		struct rec_lost l;
		if (record_parse_lost(h, &l) == 0)
			ss->lost_records += l.lost;
		break;
	}
	case PERF_RECORD_LOST_SAMPLES: {
		struct rec_lost l;
		if (record_parse_lost(h, &l) == 0)
			ss->lost_samples += l.lost;
		break;
	}
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (ss->wall_switches)
			r = wall_switch_in(ss, h);
		break;
	default:
		break;
	}
	if (r == 0 && ss->tool.record)
		r = ss->tool.record(ss, h, ss->tool.arg);
	if (ss->pool) /* the queue hands back the file's pages behind a record: not those workers read */
		ordered_hold(ss->oq, spool_oldest(ss->pool));
	return r;
}

int session_push(struct session *ss, const struct perf_event_header *h)
{
	return ordered_push(ss->oq, h);
}

int session_flush(struct session *ss)
{
	int rc = ordered_flush(ss->oq);
	if (ss->pool) {
		int pr = spool_drain(ss->pool);
		rc = rc ? rc : pr;
	}
	return rc;
}

static int push_cb(const struct perf_event_header *h, void *arg)
{
	struct session *ss = arg;
	if (!ss->started) {
		int rc = start(ss);
		if (rc)
			return rc;
	}
	const struct perfdata_reader *r = ss->walking;
	if (r && r->read_walk && (uintptr_t)h - (uintptr_t)r->map >= r->size)
		return ordered_push_copy(ss->oq, h, r->offset);
	return session_push(ss, h);
}

/* A record the reader read only the start of (perfdata_for_each_peek): queued by reference. */
static int peek_cb(const struct perf_event_header *at, const struct perf_event_header *head, size_t len, void *arg)
{
	struct session *ss = arg;
	if (!ss->started) {
		int rc = start(ss);
		if (rc)
			return rc;
	}
	return ordered_push_at(ss->oq, at, head, len);
}

/* session_process_file's walk: in the order an earlier report learnt, else by the queue. */
static int process_file(struct session *ss, struct perfdata_reader *r)
{
	/* A file an earlier report walked whole goes out as it is walked, in the order that report
	 * learnt (session/order_memo.h). Else the records wait in the queue by reference and are
	 * read when delivered: the walk reads only their starts. */
	struct order_memo_key mk;
	struct ordered_pull *pulls = NULL;
	size_t npulls = 0;
	bool memo = ss->stable_base && r->mapped && !r->swap &&
		    order_memo_key_of(r->fd, r->data_offset, r->data_size, &mk);
	bool known = memo && order_memo_load(&mk, &pulls, &npulls);
	/* In the learnt order the walk reads the records into a buffer rather than through the
	 * mapping (perfdata_reader.read_walk): they go out as they come, and the workers of
	 * report --threads read them there (spool_cfg.hold). */
	r->read_walk = known;
	if (known && ss->threads_auto && !ss->started)
		ss->threads = 1;
	ss->walking = r;
	if (known)
		ordered_replay(ss->oq, pulls, npulls);
	else if (memo)
		ordered_learn(ss->oq, r->data_offset);
	free(pulls);
	int rc = ss->stable_base && r->mapped && !known ? perfdata_for_each_peek(r, push_cb, peek_cb, ss)
							: perfdata_for_each(r, push_cb, ss);
	ss->walking = NULL;
	if (!rc && r->truncated) /* cut between two records: as damaged as one cut inside a record */
		rc = err_set("%s: the file ends at offset 0x%zx, inside its data section: the records after "
			     "it are lost", r->path, r->size);
	if (!ss->started) {
		/* a file damaged before its first record still starts the session (its tool's ready);
		 * what start does (the read-ahead's lookups) must not wipe why the walk stopped */
		char *stopped = rc ? xstrdup(err_msg()) : NULL;
		int sr = start(ss);
		if (stopped)
			err_set("%s", stopped);
		free(stopped);
		rc = rc ? rc : sr;
	}
	if (rc && ss->started) {
		/* A damaged or cut record stops the reading: the records queued before it are still
		 * delivered (what the commands promise: the part before the damage), and the reader's
		 * error stays the one to report. */
		char *why = xstrdup(err_msg());
		session_flush(ss);
		err_set("%s", why);
		free(why);
	}
	if (rc)
		return rc;
	rc = session_flush(ss);
	const struct ordered_pull *learnt;
	if (!rc && memo && !known && ordered_learned(ss->oq, r->data_offset + r->data_size, &learnt, &npulls))
		order_memo_save(&mk, learnt, npulls);
	return rc;
}

int session_process_file(struct session *ss, struct perfdata_reader *r)
{
	/* The whole file in memory (mapped read-only, or read whole) stays until the reader is
	 * closed: records waiting for their turn are referenced there, not copied. */
	if (r->map && !r->stream) {
		ordered_set_stable(ss->oq, r->map, r->size, r->mapped);
		ss->stable_base = r->map;
		ss->stable_len = r->size;
	}
	buildid_memo_start();
	int rc = process_file(ss, r);
	buildid_memo_stop();
	return rc;
}

/* Python stacks stored by record --python (python/pystore.h): joined with the samples. */
static void use_pystacks(struct session *ss, const struct perfdata_jit_source *js)
{
	if (!ss->py)
		ss->py = pystore_new();
	if (pystore_load(ss->py, js->pid, js->data, js->size) < 0)
		notes_add(&ss->notes, "%s", err_msg());
}

void session_use_jit_sources(struct session *ss, const struct perfdata_reader *r, bool force)
{
	machine_perfmap_path_policy(&ss->machine, force);
	for (size_t i = 0; i < r->info.njit_sources; i++) {
		const struct perfdata_jit_source *js = &r->info.jit_sources[i];
		if (js->kind == JIT_SRC_PERFMAP)
			machine_set_perfmap_data(&ss->machine, js->pid, js->data, js->size);
		else if (js->kind == JIT_SRC_JITDUMP)
			machine_set_jitdump_data(&ss->machine, js->pid, js->data, js->size);
		else if (js->kind == JIT_SRC_PYSTACKS)
			use_pystacks(ss, js);
	}
}

void session_free(struct session *ss)
{
	spool_free(ss->pool);
	resolver_free(&ss->resolver);
	pystore_free(ss->py);
	notes_clear(&ss->notes);
	session_hints_free(&ss->hints);
	ordered_free(ss->oq);
	machine_free(&ss->machine);
	free(ss->samples_per_evsel);
	if (ss->wall_renamed) {
		free(ss->wall_renamed->name);
		ss->wall_renamed->name = ss->wall_old_name;
	}
	for (size_t i = 0; i < ss->wall_held.n; i++)
		free(ss->wall_held.v[i].value);
	hashmap_free(&ss->wall_held);
	timerange_free(&ss->window);
	memset(ss, 0, sizeof(*ss));
}
