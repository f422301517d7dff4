#include "stream/session.h"

#include <stdlib.h>
#include <string.h>

#include "unwind/unwind.h"
#include "util/error.h"
#include "util/xalloc.h"

static int deliver(const struct perf_event_header *h, void *arg);

int session_init(struct session *ss, const struct evsel_set *evsels, const struct session_tool *tool)
{
	memset(ss, 0, sizeof(*ss));
	machine_init(&ss->machine);
	ss->evsels = evsels;
	ss->tool = *tool;
	ss->nper = evsels->n ? evsels->n : 1;
	ss->samples_per_evsel = xcalloc(ss->nper, sizeof(uint64_t));
	ss->oq = ordered_new(evsels, deliver, ss);
	bool stacks = false;
	for (size_t i = 0; i < evsels->n; i++)
		stacks |= (evsels->v[i].attr.sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)) ==
			  (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	if (tool->callchains && stacks)
		ss->unwinder = unwind_new(&ss->machine);
	return 0;
}

struct user_frames {
	struct session *ss;
	size_t *n;
	struct thread *t;
	uint64_t time;
	bool caller;             /* frames after the first are return addresses */
};

static void add_frame(struct session *ss, size_t *n, uint64_t ip, uint8_t cpumode, struct thread *t,
		      uint64_t time);

static void add_user(uint64_t ip, void *arg)
{
	struct user_frames *a = arg;
	size_t at = *a->n;
	add_frame(a->ss, a->n, ip, PERF_RECORD_MISC_USER, a->t, a->time);
	if (a->ss->tool.inline_frames && *a->n == at + 1)
		session_expand_inline(&a->ss->fbuf, &a->ss->fcap, a->n, at, a->caller);
	a->caller = true;
}

/* Callers are looked up at their return address itself, as Linux perf does, so that reports and
 * scripts agree with perf's symbol for symbol (ip - 1, the call instruction, would name a
 * different function only where a call is a function's last instruction). */
/* JIT code is resolved at the sample's time: a JIT can reuse an address for new code. */
static void add_frame(struct session *ss, size_t *n, uint64_t ip, uint8_t cpumode, struct thread *t,
		      uint64_t time)
{
	ALLOC_GROW(ss->fbuf, *n + 1, ss->fcap);
	struct frame *f = &ss->fbuf[(*n)++];
	memset(f, 0, sizeof(*f));
	f->ip = ip;
	machine_resolve_at(&ss->machine, t, cpumode, ip, time, &f->loc);
}

static int handle_sample(struct session *ss, const struct perf_event_header *h)
{
	struct perf_sample s;
	if (sample_parse(ss->evsels, h, &s) < 0) {
		ss->bad_samples++;
		return 0;
	}
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
	struct thread *t = machine_thread(&ss->machine, (pid_t)s.pid, (pid_t)s.tid);
	size_t n = 0;
	bool used_chain = false, chain_reset = false;
	bool dwarf = ss->unwinder && s.user_abi;
	if (ss->tool.callchains && s.callchain_nr) {
		uint8_t mode = s.cpumode;
		for (uint64_t i = 0; i < s.callchain_nr; i++) {
			uint64_t ip = s.callchain[i];
			/* With stack copies the user part comes from unwinding them. */
			if (dwarf && ip == PERF_CONTEXT_USER)
				break;
			if (ip >= PERF_CONTEXT_MAX) {
				switch (ip) {
				case PERF_CONTEXT_KERNEL: mode = PERF_RECORD_MISC_KERNEL; break;
				case PERF_CONTEXT_USER: mode = PERF_RECORD_MISC_USER; break;
				case PERF_CONTEXT_HV: mode = PERF_RECORD_MISC_HYPERVISOR; break;
				case PERF_CONTEXT_GUEST_KERNEL: mode = PERF_RECORD_MISC_GUEST_KERNEL; break;
				case PERF_CONTEXT_GUEST_USER: mode = PERF_RECORD_MISC_GUEST_USER; break;
				default: chain_reset = true; break; /* perf: invalid context, no chain */
				}
				if (chain_reset)
					break;
				continue;
			}
			add_frame(ss, &n, ip, mode, t, s.time);
		}
		if (chain_reset)
			n = 0;
		used_chain = n > 0;
	}
	bool truncated = false;
	if (ss->tool.callchains && dwarf) {
		struct user_frames a = { ss, &n, t, s.time, false };
		unwind_user(ss->unwinder, t, &s, add_user, &a, &truncated);
		if (truncated) {
			/* Say so in the stack itself, so no view presents a cut stack as whole. */
			static struct symbol truncated_sym = { 0, 0, (char *)"[truncated]", NULL };
			ALLOC_GROW(ss->fbuf, n + 1, ss->fcap);
			memset(&ss->fbuf[n], 0, sizeof(ss->fbuf[n]));
			ss->fbuf[n++].loc.sym = &truncated_sym;
			ss->truncated++;
		}
		used_chain = n > 0;
	}
	if (!used_chain)
		add_frame(ss, &n, s.ip, s.cpumode, t, s.time);
	if (ss->tool.python_view)
		n = session_python_view(ss->fbuf, n);
	struct resolved_sample rs = { &s, t, ss->fbuf, n, truncated, chain_reset };
	return ss->tool.sample(ss, &rs, ss->tool.arg);
}

static bool is_py(const struct frame *f)
{
	return f->loc.sym && !strncmp(f->loc.sym->name, "py::", 4);
}

/* The interpreter itself: libpython*, or a python* executable (static builds). */
static bool is_interpreter(const struct frame *f)
{
	const char *n = f->loc.dso ? f->loc.dso->short_name : NULL;
	return n && (!strncmp(n, "libpython", 9) || !strncmp(n, "python", 6));
}

size_t session_python_view(struct frame *frames, size_t n)
{
	size_t first_py = n;
	for (size_t i = 0; i < n && first_py == n; i++)
		if (is_py(&frames[i]))
			first_py = i;
	if (first_py == n)
		return n;
	size_t out = 0;
	for (size_t i = 0; i < first_py; i++)
		if (!is_interpreter(&frames[i]))
			frames[out++] = frames[i];
	for (size_t i = first_py; i < n; i++)
		if (is_py(&frames[i]) || (i + 1 == n && frames[i].loc.sym && !frames[i].loc.dso &&
					  !strcmp(frames[i].loc.sym->name, "[truncated]")))
			frames[out++] = frames[i];
	return out;
}

/* A record in time order: update the model, then the tool. */
static int deliver(const struct perf_event_header *h, void *arg)
{
	struct session *ss = arg;
	struct machine *m = &ss->machine;
	int r = 0;
	ss->nrecords++;
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
	default:
		break;
	}
	if (r == 0 && ss->tool.record)
		r = ss->tool.record(ss, h, ss->tool.arg);
	return r;
}

int session_push(struct session *ss, const struct perf_event_header *h)
{
	return ordered_push(ss->oq, h);
}

int session_flush(struct session *ss)
{
	return ordered_flush(ss->oq);
}

static int push_cb(const struct perf_event_header *h, void *arg)
{
	return session_push(arg, h);
}

int session_process_file(struct session *ss, struct perfdata_reader *r)
{
	int rc = perfdata_for_each(r, push_cb, ss);
	if (rc)
		return rc;
	return session_flush(ss);
}

void session_free(struct session *ss)
{
	if (ss->unwinder)
		unwind_free(ss->unwinder);
	ordered_free(ss->oq);
	machine_free(&ss->machine);
	free(ss->samples_per_evsel);
	free(ss->fbuf);
	memset(ss, 0, sizeof(*ss));
}
